// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the switch node's lifetime and control, in sysfs:
 *
 *   echo "+sw0 8" > /sys/class/softib_switch/switches   create, 8 ports
 *   echo "1 vS1" > /sys/class/softib_switch/sw0/bind    port 1 on netdev vS1
 *   echo 1 > /sys/class/softib_switch/sw0/unbind
 *   cat /sys/class/softib_switch/sw0/ports              one line a port
 *   echo "-sw0" > /sys/class/softib_switch/switches     delete
 *
 * A bound port's link follows its netdev's carrier as a CA's does (DOWN
 * and Polling without it, INIT and LinkUp with it; the SM takes it on to
 * ACTIVE), and each change sets SwitchInfo's PortStateChange, which is how
 * opensm's light sweep finds a CA that came or went. A netdev is one CA's
 * carrier or one switch port, never both; a vanishing netdev unbinds its
 * port; module removal deletes every switch.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/etherdevice.h>
#include <linux/nsproxy.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <openrdma/compat.h>

#include "sw.h"

/*
 * softib_sw_lock (a mutex) guards the list of switches, every port's
 * binding (ndev, bound) and the creation and deletion of switches; the
 * netdev notifier takes it under the RTNL. softib_sw_ports is read under
 * RCU by the receive path. A port claims its netdev from main.c
 * (softib_ndev_claim(), under softib_lock, taken inside softib_sw_lock),
 * where `rdma link add` claims a CA's: a netdev has one user.
 */
static DEFINE_MUTEX(softib_sw_lock);
static LIST_HEAD(softib_sw_list);
static LIST_HEAD(softib_sw_ports);
static atomic_t softib_sw_count = ATOMIC_INIT(0);

static const char * const softib_sw_drop_names[SOFTIB_SW_DROP_NR] = {
	[SOFTIB_SW_DROP_SHORT] = "short",
	[SOFTIB_SW_DROP_LID] = "no_route",
	[SOFTIB_SW_DROP_LOOP] = "loop",
	[SOFTIB_SW_DROP_STATE] = "port_state",
	[SOFTIB_SW_DROP_MTU] = "mtu",
	[SOFTIB_SW_DROP_SMP] = "smp",
	[SOFTIB_SW_DROP_ICRC] = "smp_bad",
	[SOFTIB_SW_DROP_HOPS] = "hop_limit",
	[SOFTIB_SW_DROP_MGMT] = "mgmt",
};

void softib_sw_drop(struct softib_sw_port *p, enum softib_sw_drop why)
{
	atomic64_inc(&p->drops[why]);
}

struct softib_sw_port *softib_sw_port_find_rcu(struct net_device *ndev)
{
	struct softib_sw_port *p;

	list_for_each_entry_rcu(p, &softib_sw_ports, bound)
		if (rcu_access_pointer(p->ndev) == ndev)
			return p;
	return NULL;
}

/*
 * The physical link of an external port, from its carrier (the SMA's
 * DOWN or Polling retrains it the same way). Under sw->lock.
 */
void softib_sw_link_train(struct softib_sw_port *p)
{
	lockdep_assert_held(&p->sw->lock);
	if (p->phys_state == IB_PORT_PHYS_STATE_DISABLED) {
		WRITE_ONCE(p->state, IB_PORT_DOWN);
	} else if (p->carrier) {
		WRITE_ONCE(p->phys_state, IB_PORT_PHYS_STATE_LINK_UP);
		if (p->state == IB_PORT_DOWN)
			WRITE_ONCE(p->state, IB_PORT_INIT);
	} else {
		WRITE_ONCE(p->phys_state,
			   p->link_down_default == IB_PORT_PHYS_STATE_SLEEP ?
			   IB_PORT_PHYS_STATE_SLEEP :
			   IB_PORT_PHYS_STATE_POLLING);
		WRITE_ONCE(p->state, IB_PORT_DOWN);
	}
	if (p->state == IB_PORT_DOWN) {
		/* whoever was behind the link, the SM included, may not be */
		softib_neigh_flush(&p->neigh, true);
		if (p->sw->sm_port == p->num)
			p->sw->sm_port = 0;
	}
}

/* The carrier of p's netdev (none when unbound) changed, or may have. */
static void softib_sw_carrier(struct softib_sw_port *p)
{
	struct net_device *ndev;
	bool up;
	u8 was;

	lockdep_assert_held(&softib_sw_lock);
	ndev = rcu_dereference_protected(p->ndev,
					 lockdep_is_held(&softib_sw_lock));
	up = ndev && netif_running(ndev) && netif_carrier_ok(ndev);
	spin_lock_bh(&p->sw->lock);
	was = p->state;
	p->carrier = up;
	softib_sw_link_train(p);
	if (was != p->state && (was == IB_PORT_DOWN || p->state == IB_PORT_DOWN))
		p->sw->psc = true;
	spin_unlock_bh(&p->sw->lock);
}

/**
 * softib_sw_alloc - a switch, not yet visible anywhere
 * @nports: external ports, SOFTIB_SW_MIN_PORTS..SOFTIB_SW_MAX_PORTS
 * @idx: makes its GUID
 *
 * Return: the switch, all ports unbound and DOWN; NULL without memory.
 */
struct softib_sw *softib_sw_alloc(u8 nports, u32 idx)
{
	struct softib_sw *sw;
	unsigned int i;

	sw = kzalloc(struct_size(sw, port, nports + 1), GFP_KERNEL);
	if (!sw)
		return NULL;
	sw->lft = kvmalloc(SOFTIB_SW_LFT_CAP, GFP_KERNEL);
	sw->mft = kvcalloc(SOFTIB_SW_MFT_CAP, sizeof(*sw->mft), GFP_KERNEL);
	sw->sl2vl = kcalloc((nports + 1) * (nports + 1), 8, GFP_KERNEL);
	if (!sw->lft || !sw->mft || !sw->sl2vl) {
		softib_sw_free(sw);
		return NULL;
	}
	memset(sw->lft, SOFTIB_SW_LFT_NONE, SOFTIB_SW_LFT_CAP);
	spin_lock_init(&sw->lock);
	INIT_LIST_HEAD(&sw->list);
	sw->nports = nports;
	/* the EUI-64 of 02:53:42:00:xx:xx (softib's VendorID as the OUI) */
	sw->guid = cpu_to_be64((u64)SOFTIB_VENDOR_ID << 40 |
			       0xfffeULL << 24 | (idx & 0xffffff));
	snprintf(sw->desc, sizeof(sw->desc), "softib switch %u", idx);
	sw->gid_prefix = cpu_to_be64(0xfe80000000000000ULL);
	sw->pkeys[0] = 0xffff;
	for (i = 0; i <= nports; i++) {
		struct softib_sw_port *p = &sw->port[i];

		p->sw = sw;
		p->num = i;
		INIT_LIST_HEAD(&p->bound);
		softib_neigh_init(&p->neigh);
		softib_sw_port_reset(p);
	}
	return sw;
}

void softib_sw_free(struct softib_sw *sw)
{
	kvfree(sw->lft);
	kvfree(sw->mft);
	kfree(sw->sl2vl);
	kfree(sw);
}

static void softib_sw_release(struct device *dev)
{
	softib_sw_free(dev_to_sw(dev));
}

/* Unbind port p (a no-op when unbound); the caller waits for RCU. */
static struct net_device *softib_sw_unbind_one(struct softib_sw_port *p)
{
	struct net_device *ndev;

	lockdep_assert_held(&softib_sw_lock);
	ndev = rcu_dereference_protected(p->ndev,
					 lockdep_is_held(&softib_sw_lock));
	if (!ndev)
		return NULL;
	list_del_rcu(&p->bound);
	RCU_INIT_POINTER(p->ndev, NULL);
	softib_ndev_unclaim(&p->claim);
	softib_sw_carrier(p);
	return ndev;
}

static void softib_sw_unbind(struct softib_sw_port *p)
{
	struct net_device *ndev = softib_sw_unbind_one(p);

	if (!ndev)
		return;
	synchronize_net();
	netdev_put(ndev, &p->tracker);
}

static int softib_sw_bind(struct softib_sw *sw, unsigned int num,
			  const char *name)
{
	struct softib_sw_port *p;
	struct net_device *ndev;
	int ret;

	if (num < 1 || num > sw->nports)
		return -EINVAL;
	p = &sw->port[num];
	ndev = dev_get_by_name(current->nsproxy->net_ns, name);
	if (!ndev)
		return -ENODEV;
	ret = -EINVAL;
	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN)
		goto out;
	mutex_lock(&softib_sw_lock);
	/* a CA's carrier (live or still being made) or another port's: busy */
	if (sw->dead || rcu_access_pointer(p->ndev))
		ret = -EBUSY;
	else
		ret = softib_ndev_claim(&p->claim, ndev);
	if (!ret) {
		netdev_hold(ndev, &p->tracker, GFP_KERNEL);
		rcu_assign_pointer(p->ndev, ndev);
		list_add_tail_rcu(&p->bound, &softib_sw_ports);
		softib_sw_carrier(p);
	}
	mutex_unlock(&softib_sw_lock);
out:
	dev_put(ndev);
	return ret;
}

/* The netdev notifier's share (main.c calls it under the RTNL). */
void softib_sw_netdev_event(struct net_device *ndev, unsigned long event)
{
	struct softib_sw_port *p;

	mutex_lock(&softib_sw_lock);
	rcu_read_lock();
	p = softib_sw_port_find_rcu(ndev);
	rcu_read_unlock();
	if (!p)
		goto out;
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		softib_sw_carrier(p);
		break;
	case NETDEV_UNREGISTER:
		softib_sw_unbind(p);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&softib_sw_lock);
}

/* ---- sysfs ---------------------------------------------------------------- */

static ssize_t num_ports_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_sw(dev)->nports);
}
static DEVICE_ATTR_RO(num_ports);

static ssize_t node_guid_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	u64 g = be64_to_cpu(dev_to_sw(dev)->guid);

	return sysfs_emit(buf, "%04x:%04x:%04x:%04x\n", (u16)(g >> 48),
			  (u16)(g >> 32), (u16)(g >> 16), (u16)g);
}
static DEVICE_ATTR_RO(node_guid);

static ssize_t lid_show(struct device *dev, struct device_attribute *a,
			char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(dev_to_sw(dev)->lid));
}
static DEVICE_ATTR_RO(lid);

static ssize_t node_desc_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	struct softib_sw *sw = dev_to_sw(dev);
	ssize_t n;

	spin_lock_bh(&sw->lock);
	n = sysfs_emit(buf, "%.64s\n", sw->desc);
	spin_unlock_bh(&sw->lock);
	return n;
}

/*
 * NodeDescription is 64 bytes, not a C string: 64 characters fill it (show
 * and the SMA read at most 64). It takes what was written, without the
 * whitespace around it (echo's newline), cut at 64 bytes; only the count
 * bytes written are read.
 */
static ssize_t node_desc_store(struct device *dev, struct device_attribute *a,
			       const char *buf, size_t count)
{
	struct softib_sw *sw = dev_to_sw(dev);
	size_t n = count;

	while (n && isspace(*buf)) {
		buf++;
		n--;
	}
	while (n && isspace(buf[n - 1]))
		n--;
	n = min(n, sizeof(sw->desc));
	spin_lock_bh(&sw->lock);
	memset(sw->desc, 0, sizeof(sw->desc));
	memcpy(sw->desc, buf, n);
	spin_unlock_bh(&sw->lock);
	return count;
}
static DEVICE_ATTR_RW(node_desc);

static ssize_t bind_store(struct device *dev, struct device_attribute *a,
			  const char *buf, size_t count)
{
	char name[IFNAMSIZ];
	unsigned int num;
	int ret;

	if (sscanf(buf, "%u %15s", &num, name) != 2)
		return -EINVAL;
	ret = softib_sw_bind(dev_to_sw(dev), num, name);
	return ret ?: count;
}
static DEVICE_ATTR_WO(bind);

static ssize_t unbind_store(struct device *dev, struct device_attribute *a,
			    const char *buf, size_t count)
{
	struct softib_sw *sw = dev_to_sw(dev);
	unsigned int num;
	int ret;

	ret = kstrtouint(buf, 0, &num);
	if (ret)
		return ret;
	if (num < 1 || num > sw->nports)
		return -EINVAL;
	mutex_lock(&softib_sw_lock);
	softib_sw_unbind(&sw->port[num]);
	mutex_unlock(&softib_sw_lock);
	return count;
}
static DEVICE_ATTR_WO(unbind);

static const char *softib_sw_state_name(u8 state)
{
	static const char * const names[] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}

/* PortPhysicalState as ibstat spells it (IBA 14.2.5.6) */
static const char *softib_sw_phys_name(u8 phys)
{
	static const char * const names[] = {
		"NoChange", "Sleep", "Polling", "Disabled", "Training",
		"LinkUp", "LinkErrorRecovery", "PhyTest",
	};

	return phys < ARRAY_SIZE(names) ? names[phys] : "?";
}

/* "PORT NETDEV STATE PHYS rx_pkts N tx_pkts N drops N", one line a port */
static ssize_t ports_show(struct device *dev, struct device_attribute *a,
			  char *buf)
{
	struct softib_sw *sw = dev_to_sw(dev);
	unsigned int i, r;
	ssize_t n = 0;

	for (i = 1; i <= sw->nports; i++) {
		struct softib_sw_port *p = &sw->port[i];
		struct net_device *ndev;
		u64 drops = 0;

		for (r = 0; r < SOFTIB_SW_DROP_NR; r++)
			drops += atomic64_read(&p->drops[r]);
		rcu_read_lock();
		ndev = rcu_dereference(p->ndev);
		n += sysfs_emit_at(buf, n,
				   "%u %s %s %s rx_pkts %llu tx_pkts %llu drops %llu\n",
				   i, ndev ? ndev->name : "-",
				   softib_sw_state_name(READ_ONCE(p->state)),
				   softib_sw_phys_name(READ_ONCE(p->phys_state)),
				   atomic64_read(&p->rx_pkts),
				   atomic64_read(&p->tx_pkts), drops);
		rcu_read_unlock();
	}
	return n;
}
static DEVICE_ATTR_RO(ports);

/* "REASON COUNT" for every drop reason, over all ports */
static ssize_t drops_show(struct device *dev, struct device_attribute *a,
			  char *buf)
{
	struct softib_sw *sw = dev_to_sw(dev);
	unsigned int i, r;
	ssize_t n = 0;

	for (r = 0; r < SOFTIB_SW_DROP_NR; r++) {
		u64 sum = 0;

		for (i = 1; i <= sw->nports; i++)
			sum += atomic64_read(&sw->port[i].drops[r]);
		n += sysfs_emit_at(buf, n, "%s %llu\n",
				   softib_sw_drop_names[r], sum);
	}
	return n;
}
static DEVICE_ATTR_RO(drops);

static struct attribute *softib_sw_attrs[] = {
	&dev_attr_num_ports.attr,
	&dev_attr_node_guid.attr,
	&dev_attr_lid.attr,
	&dev_attr_node_desc.attr,
	&dev_attr_bind.attr,
	&dev_attr_unbind.attr,
	&dev_attr_ports.attr,
	&dev_attr_drops.attr,
	NULL,
};
ATTRIBUTE_GROUPS(softib_sw);

static struct class softib_sw_class;

static struct softib_sw *softib_sw_find(const char *name)
{
	struct softib_sw *sw;

	lockdep_assert_held(&softib_sw_lock);
	list_for_each_entry(sw, &softib_sw_list, list)
		if (!strcmp(dev_name(&sw->dev), name))
			return sw;
	return NULL;
}

static int softib_sw_create(const char *name, unsigned int nports)
{
	struct softib_sw *sw;
	int ret;

	if (nports < SOFTIB_SW_MIN_PORTS || nports > SOFTIB_SW_MAX_PORTS ||
	    !dev_valid_name(name))
		return -EINVAL;
	sw = softib_sw_alloc(nports, atomic_inc_return(&softib_sw_count));
	if (!sw)
		return -ENOMEM;
	device_initialize(&sw->dev);
	sw->dev.class = &softib_sw_class;
	sw->dev.release = softib_sw_release;
	sw->dev.groups = softib_sw_groups;
	ret = dev_set_name(&sw->dev, "%s", name);
	if (ret)
		goto out_put;
	mutex_lock(&softib_sw_lock);
	ret = -EEXIST;
	if (softib_sw_find(name))
		goto out_unlock;
	ret = device_add(&sw->dev);
	if (ret)
		goto out_unlock;
	list_add_tail(&sw->list, &softib_sw_list);
	mutex_unlock(&softib_sw_lock);
	return 0;

out_unlock:
	mutex_unlock(&softib_sw_lock);
out_put:
	put_device(&sw->dev);
	return ret;
}

/*
 * Deleting is two halves. Under softib_sw_lock: unlist the switch and
 * unbind its ports (dead: no port binds again). Then, without the lock:
 * wait for the receive path, drop the netdevs, remove the device (which
 * waits for writers of its attributes, and they take the lock).
 */
static void softib_sw_kill(struct softib_sw *sw)
{
	unsigned int i;

	lockdep_assert_held(&softib_sw_lock);
	sw->dead = true;
	list_del(&sw->list);
	for (i = 1; i <= sw->nports; i++)
		sw->port[i].gone = softib_sw_unbind_one(&sw->port[i]);
}

static void softib_sw_finish(struct softib_sw *sw)
{
	unsigned int i;

	synchronize_net();
	for (i = 1; i <= sw->nports; i++)
		if (sw->port[i].gone)
			netdev_put(sw->port[i].gone, &sw->port[i].tracker);
	device_unregister(&sw->dev);
}

static ssize_t switches_show(const struct class *c,
			     const struct class_attribute *a, char *buf)
{
	struct softib_sw *sw;
	ssize_t n = 0;

	mutex_lock(&softib_sw_lock);
	list_for_each_entry(sw, &softib_sw_list, list)
		n += sysfs_emit_at(buf, n, "%s ", dev_name(&sw->dev));
	mutex_unlock(&softib_sw_lock);
	if (n)
		buf[n - 1] = '\n';
	return n;
}

/* "+NAME NPORTS" creates, "-NAME" deletes (as bonding_masters does). */
static ssize_t switches_store(const struct class *c,
			      const struct class_attribute *a,
			      const char *buf, size_t count)
{
	char name[IFNAMSIZ];
	unsigned int nports;
	struct softib_sw *sw;
	int ret;

	if (buf[0] == '+') {
		if (sscanf(buf + 1, "%15s %u", name, &nports) != 2)
			return -EINVAL;
		ret = softib_sw_create(name, nports);
		return ret ?: count;
	}
	if (buf[0] != '-' || sscanf(buf + 1, "%15s", name) != 1)
		return -EINVAL;
	mutex_lock(&softib_sw_lock);
	sw = softib_sw_find(name);
	if (sw)
		softib_sw_kill(sw);
	mutex_unlock(&softib_sw_lock);
	if (!sw)
		return -ENODEV;
	softib_sw_finish(sw);
	return count;
}
static ORCM_CLASS_ATTR_RW(switches);

static struct attribute *softib_sw_class_attrs[] = {
	&class_attr_switches.attr,
	NULL,
};
ATTRIBUTE_GROUPS(softib_sw_class);

static struct class softib_sw_class = {
	.name = "softib_switch",
	.class_groups = softib_sw_class_groups,
};

int softib_sw_init(void)
{
	return class_register(&softib_sw_class);
}

void softib_sw_exit(void)
{
	struct softib_sw *sw;

	for (;;) {
		mutex_lock(&softib_sw_lock);
		sw = list_first_entry_or_null(&softib_sw_list,
					      struct softib_sw, list);
		if (sw)
			softib_sw_kill(sw);
		mutex_unlock(&softib_sw_lock);
		if (!sw)
			break;
		softib_sw_finish(sw);
	}
	class_unregister(&softib_sw_class);
}
