// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm ib_cm.ko: RoCE source GID entries about to leave the table.
 *
 * ib_core answers a netdev's NETDEV_CHANGEADDR (a new MAC: a bond's
 * failover with fail_over_mac active, "ip link set address") by deleting
 * every GID entry of that netdev and adding them again at other indices,
 * from a work item (roce_gid_mgmt.c). rdma_cm tells its ids meanwhile
 * (ADDR_CHANGE, from its own work) and their consumers disconnect: DREQs
 * and DREPs through AHs that name the old entries. A send that is still on
 * rxe's QP1 when its entry goes fails in rxe's requester and leaves QP1 in
 * error for good, so that no MAD of any id leaves the port again (see
 * cm_av_sgid_gone() in mad.c). Refusing only sends whose entry is gone
 * leaves that window open.
 *
 * So the notifier here, which runs in the netdev's notifier chain before
 * either work, marks the netdev's entries on every RoCE port of the CM
 * doomed: from then on a send through one is refused as if the entry were
 * gone already (the id enters timewait, as in-tree when ib_core refuses
 * the AH of a MAD), and the sends waiting through one are cancelled
 * (cm_cancel_stale_sends()). An entry stays doomed until it left the table
 * (the next GID change event of its device drops the mark) or CM_DOOM_MS
 * passed: an entry that was not deleted after all is usable again.
 *
 * Locking: cm_doom.lock protects the list; it nests inside cm.lock and
 * inside an id's lock and takes nothing itself (rdma_get_gid_attr() takes
 * the GID table's rwlock, a leaf, irqsave). Every listed entry holds a
 * reference on its GID attribute, dropped outside the lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "cm_priv.h"

/* Longer than ib_core's deletion takes to follow the notifier. */
#define CM_DOOM_MS	2000

struct cm_doomed_gid {
	struct list_head entry;		/* on cm_doom.list */
	const struct ib_gid_attr *attr;	/* held */
	unsigned long expires;		/* jiffies */
};

static struct {
	spinlock_t lock;		/* @list, @count */
	struct list_head list;		/* cm_doomed_gid */
	unsigned int count;		/* on @list; read without @lock */
} cm_doom = {
	.lock = __SPIN_LOCK_UNLOCKED(cm_doom.lock),
	.list = LIST_HEAD_INIT(cm_doom.list),
};

/* Whether @attr's entry left its GID table. Any context. */
bool cm_gid_entry_gone(const struct ib_gid_attr *attr)
{
	struct net_device *ndev;
	bool gone;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	gone = IS_ERR(ndev);
	rcu_read_unlock();
	return gone;
}
EXPORT_SYMBOL_IF_KUNIT(cm_gid_entry_gone);

/* @attr's mark, or NULL. */
static struct cm_doomed_gid *cm_doom_find(const struct ib_gid_attr *attr)
{
	struct cm_doomed_gid *d;

	lockdep_assert_held(&cm_doom.lock);
	list_for_each_entry(d, &cm_doom.list, entry)
		if (d->attr == attr)
			return d;
	return NULL;
}

/**
 * cm_gid_doomed - whether sends through @attr are refused for now
 * @attr: a GID attribute, held by the caller
 *
 * Any context; takes cm_doom.lock only while some entry is marked.
 */
bool cm_gid_doomed(const struct ib_gid_attr *attr)
{
	struct cm_doomed_gid *d;
	unsigned long flags;
	bool doomed = false;

	if (!READ_ONCE(cm_doom.count))
		return false;
	spin_lock_irqsave(&cm_doom.lock, flags);
	d = cm_doom_find(attr);
	doomed = d && time_before(jiffies, d->expires);
	spin_unlock_irqrestore(&cm_doom.lock, flags);
	return doomed;
}

/* The entries marked now (debugfs ib_cm/counters: gid_doomed_now). */
unsigned int cm_doom_count(void)
{
	return READ_ONCE(cm_doom.count);
}
EXPORT_SYMBOL_IF_KUNIT(cm_doom_count);

static bool cm_doom_add(const struct ib_gid_attr *attr, unsigned long expires)
{
	struct cm_doomed_gid *d;
	unsigned long flags;

	spin_lock_irqsave(&cm_doom.lock, flags);
	d = cm_doom_find(attr);
	if (d) {			/* marked again: ours is held */
		d->expires = expires;
		spin_unlock_irqrestore(&cm_doom.lock, flags);
		return false;
	}
	d = kmalloc(sizeof(*d), GFP_ATOMIC);
	if (d) {
		d->attr = attr;
		d->expires = expires;
		list_add_tail(&d->entry, &cm_doom.list);
		WRITE_ONCE(cm_doom.count, cm_doom.count + 1);
		cm_count(CM_CNT_GID_DOOMED);
	}
	spin_unlock_irqrestore(&cm_doom.lock, flags);
	return d;
}

/**
 * cm_doom_gids - mark the GID entries of @ndev on @dev's RoCE ports doomed
 * @dev: a registered device
 * @ndev: the netdev whose entries ib_core is about to delete
 * @expires: when the marks lapse (jiffies)
 *
 * Any context (the notifier calls it under cm.lock). A mark that cannot be
 * allocated is skipped: that entry stays usable until it is gone.
 *
 * Return: the number of entries marked.
 */
VISIBLE_IF_KUNIT unsigned int cm_doom_gids(struct ib_device *dev,
					   const struct net_device *ndev,
					   unsigned long expires)
{
	const struct ib_gid_attr *attr;
	unsigned int n = 0, i;
	u32 p;

	rdma_for_each_port(dev, p) {
		if (!rdma_protocol_roce(dev, p))
			continue;
		for (i = 0; i < dev->port_data[p].immutable.gid_tbl_len; i++) {
			attr = rdma_get_gid_attr(dev, p, i);
			if (IS_ERR(attr))
				continue;
			/* A valid entry's netdev, only compared. */
			if (rcu_access_pointer(attr->ndev) == ndev &&
			    cm_doom_add(attr, expires))
				n++;
			else
				rdma_put_gid_attr(attr);
		}
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(cm_doom_gids);

/**
 * cm_doom_reap - drop marks of @dev (every device: NULL)
 * @dev: the device whose marks to look at, or NULL
 * @all: drop them all (device removal), else those whose entry is gone or
 *	whose time passed
 *
 * Process or softirq context, not under cm_doom.lock.
 */
void cm_doom_reap(const struct ib_device *dev, bool all)
{
	struct cm_doomed_gid *d, *tmp;
	unsigned long flags;
	LIST_HEAD(drop);

	spin_lock_irqsave(&cm_doom.lock, flags);
	list_for_each_entry_safe(d, tmp, &cm_doom.list, entry) {
		if (dev && d->attr->device != dev)
			continue;
		if (all || !time_before(jiffies, d->expires) ||
		    cm_gid_entry_gone(d->attr)) {
			list_move(&d->entry, &drop);
			WRITE_ONCE(cm_doom.count, cm_doom.count - 1);
		}
	}
	spin_unlock_irqrestore(&cm_doom.lock, flags);
	list_for_each_entry_safe(d, tmp, &drop, entry) {
		rdma_put_gid_attr(d->attr);
		kfree(d);
	}
}
EXPORT_SYMBOL_IF_KUNIT(cm_doom_reap);

static int cm_doom_netdev_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	unsigned long expires = jiffies + msecs_to_jiffies(CM_DOOM_MS);
	struct cm_device *cm_dev;

	if (event != NETDEV_CHANGEADDR)
		return NOTIFY_DONE;
	spin_lock(&cm.lock);
	list_for_each_entry(cm_dev, &cm.devices, entry) {
		if (!cm_dev->gid_watch || cm_dev->going_away)
			continue;
		cm_doom_reap(cm_dev->ib_dev, false);
		if (!cm_doom_gids(cm_dev->ib_dev, ndev, expires))
			continue;
		/* The sends waiting through them: cancelled from the work. */
		WRITE_ONCE(cm_dev->stale_tries, 0);
		mod_delayed_work(cm.wq, &cm_dev->stale_work, 0);
	}
	spin_unlock(&cm.lock);
	return NOTIFY_DONE;
}

static struct notifier_block cm_doom_nb = {
	.notifier_call = cm_doom_netdev_event,
};

int cm_doom_init(void)
{
	return register_netdevice_notifier(&cm_doom_nb);
}

void cm_doom_exit(void)
{
	unregister_netdevice_notifier(&cm_doom_nb);
	cm_doom_reap(NULL, true);
}
