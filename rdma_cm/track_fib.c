// SPDX-License-Identifier: GPL-2.0
/*
 * Route changes under iWARP ids: a FIB notifier in every network namespace.
 *
 * The netdevice, netevent and address notifiers (track.c) see the route
 * changes that come with a link, neighbour or address event. A route
 * replaced on its own (`ip route replace DST via GW`, a routing daemon
 * moving a prefix to another next hop) comes with none: only the FIB
 * notifier chain of the namespace says so. It matters to an offloaded RNIC,
 * which holds the connection's next hop, so the ids re-validated here are
 * the iWARP ids with a connection (indexed as CMA_TRACK_ROUTE by
 * cma_track_iw_start()); RoCE ids are not (in-tree tracks no route, and
 * a RoCE id's next hop is its neighbour entry, tracked by track.c).
 *
 * Cost. An entry event names a prefix: the ids of the namespace are looked
 * at (a compare each) and only those whose destination is in the prefix
 * re-validate (a route lookup each). A rule or nexthop-object event can
 * change any route: every one of them re-validates.
 *
 * Context and order. FIB notifiers run in atomic context, and IPv6 calls
 * them before it links the new route into its table (so that a listener may
 * veto it), inside the table's bh-disabled lock. So the notifier only
 * records the prefix and queues the namespace's work; the work waits for an
 * RCU grace period, which also waits for that preempt-disabled section, so
 * the route lookups of the re-validation see the new table. The work runs
 * on rdma_cm's tracking workqueue (high priority, as the ids' own work). Events that
 * arrive before the work runs are merged (one prefix, or all); the first
 * one's time is the start of the update's latency.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inetdevice.h>
#include <linux/workqueue.h>
#include <net/fib_notifier.h>
#include <net/ip6_fib.h>
#include <net/ip_fib.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "cma_priv.h"
#include "track.h"

struct cma_track_net {
	struct net		*net;
	struct notifier_block	nb;
	bool			registered;
	struct work_struct	work;
	/* lock protects the pending update: pending, prefix, when_ns. */
	spinlock_t		lock;
	bool			pending;
	struct cma_track_prefix	prefix;
	u64			when_ns;
};

static unsigned int cma_track_net_id;

/* The prefix of an entry event; false for a family we do not route. */
static bool cma_track_fib_prefix(unsigned long event,
				 struct fib_notifier_info *info,
				 struct cma_track_prefix *p)
{
	struct fib6_entry_notifier_info *e6;
	struct fib_entry_notifier_info *e4;

	memset(p, 0, sizeof(*p));
	if (info->family != AF_INET && info->family != AF_INET6)
		return false;
	switch (event) {
	case FIB_EVENT_ENTRY_REPLACE:
	case FIB_EVENT_ENTRY_APPEND:
	case FIB_EVENT_ENTRY_ADD:
	case FIB_EVENT_ENTRY_DEL:
		break;
	case FIB_EVENT_RULE_ADD:
	case FIB_EVENT_RULE_DEL:
	case FIB_EVENT_NH_ADD:
	case FIB_EVENT_NH_DEL:
		p->all = true;
		return true;
	default:
		return false;
	}
	p->family = info->family;
	if (info->family == AF_INET) {
		e4 = container_of(info, struct fib_entry_notifier_info, info);
		ipv6_addr_set_v4mapped(htonl(e4->dst), &p->addr);
		p->plen = 96 + e4->dst_len;
	} else {
		e6 = container_of(info, struct fib6_entry_notifier_info, info);
		if (!e6->rt)
			return false;
		p->addr = e6->rt->fib6_dst.addr;
		p->plen = e6->rt->fib6_dst.plen;
	}
	return true;
}

static int cma_track_fib_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct cma_track_net *tn = container_of(nb, struct cma_track_net, nb);
	struct cma_track_prefix p;
	unsigned long flags;

	if (!cma_track_fib_prefix(event, ptr, &p))
		return NOTIFY_DONE;
	spin_lock_irqsave(&tn->lock, flags);
	if (!tn->pending) {
		tn->pending = true;
		tn->prefix = p;
		tn->when_ns = ktime_get_ns();
	} else if (memcmp(&tn->prefix, &p, sizeof(p))) {
		tn->prefix.all = true;
	}
	spin_unlock_irqrestore(&tn->lock, flags);
	cma_track_queue(&tn->work);
	return NOTIFY_DONE;
}

static void cma_track_fib_work(struct work_struct *work)
{
	struct cma_track_net *tn = container_of(work, struct cma_track_net,
						work);
	struct cma_track_prefix p;
	unsigned long flags;
	u64 when;

	/* After this, an IPv6 route announced before it is in its table. */
	synchronize_rcu();
	spin_lock_irqsave(&tn->lock, flags);
	p = tn->prefix;
	when = tn->when_ns;
	tn->pending = false;
	spin_unlock_irqrestore(&tn->lock, flags);
	cma_track_route_event(tn->net, &p, when);
}

static int __net_init cma_track_net_init(struct net *net)
{
	struct cma_track_net *tn = net_generic(net, cma_track_net_id);
	int ret;

	tn->net = net;
	spin_lock_init(&tn->lock);
	INIT_WORK(&tn->work, cma_track_fib_work);
	tn->nb.notifier_call = cma_track_fib_event;
	ret = register_fib_notifier(net, &tn->nb, NULL, NULL);
	/*
	 * Never fail the namespace for this: without the notifier its ids
	 * still follow every link, neighbour and address event.
	 */
	if (ret)
		pr_warn("no route tracking in a network namespace: %d\n", ret);
	tn->registered = !ret;
	return 0;
}

static void __net_exit cma_track_net_exit(struct net *net)
{
	struct cma_track_net *tn = net_generic(net, cma_track_net_id);

	if (tn->registered)
		unregister_fib_notifier(net, &tn->nb);
	cancel_work_sync(&tn->work);
}

static struct pernet_operations cma_track_net_ops = {
	.init = cma_track_net_init,
	.exit = cma_track_net_exit,
	.id = &cma_track_net_id,
	.size = sizeof(struct cma_track_net),
};

int cma_track_fib_init(void)
{
	return register_pernet_subsys(&cma_track_net_ops);
}

void cma_track_fib_exit(void)
{
	unregister_pernet_subsys(&cma_track_net_ops);
}
