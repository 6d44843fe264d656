// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of rdma_cm's network change tracking (rdma_cm/track.c).
 *
 * Fake Ethernet netdevs (registered here, transmit drops everything) and
 * ids made with rdma_create_id() whose address fields are set by hand and
 * indexed directly, as address resolution would. Events come from the real
 * notifier chains (call_netdevice_notifiers(), dev_set_mtu(), dev_close(),
 * neigh_update()), except the inet address ones, whose handler is called.
 *
 * - each event class reaches exactly the dependent ids: a bond failover
 *   (ADDR_CHANGE to ids on the bond with another MAC), a neighbour update
 *   (UNREACHABLE -ETIMEDOUT to RoCE ids on that neighbour with another MAC),
 *   MTU and link changes and an address removal (snapshot updates);
 * - destroy racing events: no event after rdma_destroy_id() returns; a
 *   handler that asks for its id's end while the id's work is queued again;
 * - an event costs what it touches: with 10,000 ids on other netdevs, an
 *   MTU change visits only the ids on its netdev;
 * - the offload interface (include/openrdma/offload_track.h): a driver's
 *   subscription on an id's iw_cm_id gets exactly its connection's changes,
 *   in process context, with the new values; no callback after unsubscribe
 *   returns, even racing an event; none after the id's end.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/vmalloc.h>
#include <net/arp.h>
#include <net/ipv6.h>
#include <net/neighbour.h>
#include <openrdma/offload_track.h>
#include <rdma/iw_cm.h>

#include "rdma_cm/cma_priv.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct kt_ctx {
	atomic_t	addr_change;
	atomic_t	unreachable;
	atomic_t	other;
	int		status;
	int		ret;		/* the handler's return value */
	/* If set, the handler announces a change on it (re-queues the work). */
	struct net_device *rekick;
};

static int kt_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kt_ctx *c = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_CHANGE:
		atomic_inc(&c->addr_change);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		c->status = ev->status;
		atomic_inc(&c->unreachable);
		break;
	default:
		atomic_inc(&c->other);
		break;
	}
	if (c->rekick) {
		rtnl_lock();
		dev_set_mtu(c->rekick, c->rekick->mtu == 1500 ? 1400 : 1500);
		rtnl_unlock();
	}
	return c->ret;
}

static netdev_tx_t kt_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops kt_ndev_ops = {
	.ndo_start_xmit = kt_xmit,
};

static void kt_ndev_release(void *ndev)
{
	unregister_netdev(ndev);
	free_netdev(ndev);
}

/* A registered, up, Ethernet-like netdev; a "bond master" if @bond. */
static struct net_device *kt_ndev(struct kunit *test, bool bond)
{
	struct net_device *ndev;
	int ret;

	ndev = alloc_netdev(0, "orcmt%d", NET_NAME_ENUM, ether_setup);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	ndev->netdev_ops = &kt_ndev_ops;
	eth_hw_addr_random(ndev);
	rtnl_lock();
	ret = register_netdevice(ndev);
	if (!ret) {
		if (bond) {
			ndev->flags |= IFF_MASTER;
			ndev->priv_flags |= IFF_BONDING;
		}
		ret = dev_open(ndev, NULL);
		if (ret)
			unregister_netdevice(ndev);
	}
	rtnl_unlock();
	if (ret) {
		free_netdev(ndev);
		KUNIT_FAIL_AND_ABORT(test, "netdev: %d", ret);
	}
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, kt_ndev_release, ndev));
	return ndev;
}

static void kt_destroy_id(void *id)
{
	rdma_destroy_id(id);
}

static void kt_sin(struct sockaddr *sa, const char *ip)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

	memset(s4, 0, sizeof(*s4));
	s4->sin_family = AF_INET;
	s4->sin_addr.s_addr = in_aton(ip);
}

/*
 * An id as address (and route) resolution leaves it: on @ifindex with
 * @ndev's MAC as its source MAC, from @src to @dst via next hop MAC @dmac.
 * Indexed by netdev and address, and by neighbour if @route. Destroyed by
 * the test's cleanup unless @own.
 */
static struct rdma_id_private *
kt_id_raw(struct kunit *test, struct kt_ctx *c, int ifindex,
	  const u8 *smac, const char *src, const char *dst, const u8 *dmac,
	  bool route, bool own)
{
	struct rdma_dev_addr *dev_addr;
	struct rdma_id_private *id_priv;
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, kt_handler, c, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	if (!own)
		KUNIT_ASSERT_EQ(test, 0,
				kunit_add_action_or_reset(test, kt_destroy_id,
							  id));
	id_priv = to_id_priv(id);
	dev_addr = &id->route.addr.dev_addr;
	dev_addr->bound_dev_if = ifindex;
	if (smac)
		memcpy(dev_addr->src_dev_addr, smac, ETH_ALEN);
	if (dmac)
		memcpy(dev_addr->dst_dev_addr, dmac, ETH_ALEN);
	if (src)
		kt_sin(cma_src_addr(id_priv), src);
	if (dst)
		kt_sin(cma_dst_addr(id_priv), dst);
	cma_track_index(id_priv, CMA_TRACK_DEV);
	cma_track_index(id_priv, CMA_TRACK_ADDR);
	if (route)
		cma_track_index(id_priv, CMA_TRACK_NEIGH);
	return id_priv;
}

static struct rdma_id_private *kt_id(struct kunit *test, struct kt_ctx *c,
				     struct net_device *ndev)
{
	return kt_id_raw(test, c, ndev->ifindex, ndev->dev_addr, NULL, NULL,
			 NULL, false, false);
}

/* Give @ndev a new random MAC and announce a bond failover on it. */
static void kt_failover(struct net_device *ndev)
{
	u8 mac[ETH_ALEN];

	eth_random_addr(mac);
	rtnl_lock();
	dev_addr_set(ndev, mac);
	call_netdevice_notifiers(NETDEV_BONDING_FAILOVER, ndev);
	rtnl_unlock();
	cma_track_flush();
}

/* Failover: ADDR_CHANGE to exactly the ids on the bond with another MAC. */
static void cma_track_failover_test(struct kunit *test)
{
	struct net_device *bond = kt_ndev(test, true);
	struct net_device *plain = kt_ndev(test, false);
	struct kt_ctx on[2] = {}, off = {}, other = {}, same = {};
	struct rdma_id_private *same_id;
	long visits;

	kt_id(test, &on[0], bond);
	kt_id(test, &on[1], bond);
	kt_id(test, &other, plain);
	visits = cma_track_visits();
	kt_failover(bond);
	KUNIT_EXPECT_EQ(test, atomic_read(&on[0].addr_change), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&on[1].addr_change), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&other.addr_change), 0);
	KUNIT_EXPECT_EQ(test, cma_track_visits() - visits, 2);

	/* Bound after the failover: the bond's MAC is its own; nothing. */
	same_id = kt_id(test, &same, bond);
	KUNIT_EXPECT_TRUE(test, cma_track_indexed(same_id, CMA_TRACK_DEV));
	rtnl_lock();
	call_netdevice_notifiers(NETDEV_BONDING_FAILOVER, bond);
	rtnl_unlock();
	cma_track_flush();
	KUNIT_EXPECT_EQ(test, atomic_read(&same.addr_change), 0);
	/* As in-tree, the stale MAC of the others still differs: again. */
	KUNIT_EXPECT_EQ(test, atomic_read(&on[0].addr_change), 2);

	/* Not a bond master: nothing, as in-tree. */
	kt_id(test, &off, plain);
	kt_failover(plain);
	KUNIT_EXPECT_EQ(test, atomic_read(&off.addr_change), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&other.addr_change), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&on[0].other) +
			atomic_read(&other.other), 0);
}

/* Make the neighbour @ip on @ndev valid with @mac (a NEIGH_UPDATE). */
static void kt_neigh(struct kunit *test, struct net_device *ndev,
		     const char *ip, const u8 *mac)
{
	__be32 addr = in_aton(ip);
	struct neighbour *n;

	n = neigh_create(&arp_tbl, &addr, ndev);
	KUNIT_ASSERT_FALSE(test, IS_ERR(n));
	neigh_update(n, mac, NUD_REACHABLE,
		     NEIGH_UPDATE_F_OVERRIDE | NEIGH_UPDATE_F_ADMIN, 0);
	neigh_release(n);
	cma_track_flush();
}

/* Neighbour update: UNREACHABLE to routed ids on it whose MAC differs. */
static void cma_track_neigh_test(struct kunit *test)
{
	struct net_device *a = kt_ndev(test, false);
	struct net_device *b = kt_ndev(test, false);
	struct kt_ctx hit = {}, same_nb_unrouted = {}, other_ip = {},
		      other_dev = {};
	u8 mac1[ETH_ALEN], mac2[ETH_ALEN];
	long visits;

	eth_random_addr(mac1);
	eth_random_addr(mac2);
	kt_neigh(test, a, "198.18.7.2", mac1);
	kt_id_raw(test, &hit, a->ifindex, a->dev_addr, "198.18.7.1",
		  "198.18.7.2", mac1, true, false);
	kt_id_raw(test, &same_nb_unrouted, a->ifindex, a->dev_addr,
		  "198.18.7.1", "198.18.7.2", mac1, false, false);
	kt_id_raw(test, &other_ip, a->ifindex, a->dev_addr, "198.18.7.1",
		  "198.18.7.3", mac1, true, false);
	kt_id_raw(test, &other_dev, b->ifindex, b->dev_addr, "198.18.7.1",
		  "198.18.7.2", mac1, true, false);

	/* Same MAC: nothing. */
	kt_neigh(test, a, "198.18.7.2", mac1);
	KUNIT_EXPECT_EQ(test, atomic_read(&hit.unreachable), 0);

	visits = cma_track_visits();
	kt_neigh(test, a, "198.18.7.2", mac2);
	KUNIT_EXPECT_EQ(test, atomic_read(&hit.unreachable), 1);
	KUNIT_EXPECT_EQ(test, hit.status, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, atomic_read(&same_nb_unrouted.unreachable), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&other_ip.unreachable), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&other_dev.unreachable), 0);
	KUNIT_EXPECT_EQ(test, cma_track_visits() - visits, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&hit.addr_change) +
			atomic_read(&hit.other), 0);
}

/* MTU, link down and up: the snapshot of ids on that netdev only. */
static void cma_track_netdev_test(struct kunit *test)
{
	struct net_device *a = kt_ndev(test, false);
	struct net_device *b = kt_ndev(test, false);
	struct rdma_id_private *ia, *ib;
	struct kt_ctx ca = {}, cb = {};
	struct cma_track_snap s;
	long visits;
	int ret;

	ia = kt_id(test, &ca, a);
	ib = kt_id(test, &cb, b);
	visits = cma_track_visits();
	rtnl_lock();
	ret = dev_set_mtu(a, 1280);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);
	cma_track_flush();
	KUNIT_EXPECT_EQ(test, cma_track_visits() - visits, 1);
	cma_track_snapshot(ia, &s);
	KUNIT_EXPECT_EQ(test, s.mtu, 1280);
	KUNIT_EXPECT_TRUE(test, s.link_up);
	KUNIT_EXPECT_EQ(test, s.updates, 1);
	cma_track_snapshot(ib, &s);
	KUNIT_EXPECT_EQ(test, s.updates, 0);

	rtnl_lock();
	dev_close(a);
	rtnl_unlock();
	cma_track_flush();
	cma_track_snapshot(ia, &s);
	KUNIT_EXPECT_FALSE(test, s.link_up);
	KUNIT_EXPECT_EQ(test, s.updates, 2);

	rtnl_lock();
	ret = dev_open(a, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);
	cma_track_flush();
	cma_track_snapshot(ia, &s);
	KUNIT_EXPECT_TRUE(test, s.link_up);
	KUNIT_EXPECT_EQ(test, s.updates, 3);
	/* No ULP event for any of these (in-tree has none). */
	KUNIT_EXPECT_EQ(test, atomic_read(&ca.addr_change) +
			atomic_read(&ca.unreachable) + atomic_read(&ca.other),
			0);
}

/* Local address removed: the ids with that source address only. */
static void cma_track_addr_test(struct kunit *test)
{
	struct net_device *a = kt_ndev(test, false);
	struct rdma_id_private *on, *off;
	struct kt_ctx c1 = {}, c2 = {};
	__be32 ip = in_aton("198.18.8.1");
	struct cma_track_snap s;

	on = kt_id_raw(test, &c1, a->ifindex, a->dev_addr, "198.18.8.1",
		       NULL, NULL, false, false);
	off = kt_id_raw(test, &c2, a->ifindex, a->dev_addr, "198.18.8.9",
			NULL, NULL, false, false);
	KUNIT_EXPECT_TRUE(test, cma_track_indexed(on, CMA_TRACK_ADDR));
	cma_track_addr_event(NETDEV_DOWN, a, AF_INET, &ip);
	cma_track_flush();
	cma_track_snapshot(on, &s);
	KUNIT_EXPECT_TRUE(test, s.addr_gone);
	cma_track_snapshot(off, &s);
	KUNIT_EXPECT_FALSE(test, s.addr_gone);
}

/*
 * Destroy racing events: the failover is announced while the id is being
 * destroyed; once rdma_destroy_id() has returned no handler runs. Also an
 * id whose handler returns non-zero is destroyed by the event.
 */
static void cma_track_destroy_race_test(struct kunit *test)
{
	struct net_device *bond = kt_ndev(test, true);
	struct rdma_id_private *id_priv;
	struct kt_ctx *c;
	long live = cma_ids_live();
	int i, seen, late = 0;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < 200; i++) {
		id_priv = kt_id_raw(test, c, bond->ifindex, bond->dev_addr,
				    NULL, NULL, NULL, false, true);
		rtnl_lock();
		eth_hw_addr_random(bond);
		call_netdevice_notifiers(NETDEV_BONDING_FAILOVER, bond);
		rtnl_unlock();
		if (i & 1)
			usleep_range(0, 50);
		rdma_destroy_id(&id_priv->id);
		seen = atomic_read(&c->addr_change);
		cma_track_flush();
		late += atomic_read(&c->addr_change) - seen;
	}
	KUNIT_EXPECT_EQ(test, late, 0);
	KUNIT_EXPECT_EQ(test, cma_ids_live(), live);

	/* A handler that returns non-zero: the event destroys the id. */
	c->ret = 1;
	atomic_set(&c->addr_change, 0);
	kt_id_raw(test, c, bond->ifindex, bond->dev_addr, NULL, NULL, NULL,
		  false, true);
	kt_failover(bond);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->addr_change), 1);
	KUNIT_EXPECT_EQ(test, cma_ids_live(), live);

	/*
	 * The same while the handler re-queues the id's work (a change on
	 * its netdev during the handler): the destroy must not wait for
	 * the rerun of the work it runs in.
	 */
	c->rekick = bond;
	kt_id_raw(test, c, bond->ifindex, bond->dev_addr, NULL, NULL, NULL,
		  false, true);
	kt_failover(bond);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->addr_change), 2);
	KUNIT_EXPECT_EQ(test, cma_ids_live(), live);
}

#define KT_MANY		10000

struct kt_many {
	struct rdma_cm_id	**ids;
	int			n;
};

static void kt_many_release(void *arg)
{
	struct kt_many *m = arg;

	while (m->n)
		rdma_destroy_id(m->ids[--m->n]);
	vfree(m->ids);
}

/* 10,000 ids on other netdevs are not visited by an MTU change. */
static void cma_track_scale_test(struct kunit *test)
{
	struct net_device *a = kt_ndev(test, false);
	struct kt_ctx ca = {}, cx = {};
	struct rdma_id_private *id_priv;
	struct kt_many *m;
	long visits;
	int i, ret;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	m->ids = vzalloc(array_size(KT_MANY, sizeof(*m->ids)));
	KUNIT_ASSERT_NOT_NULL(test, m->ids);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, kt_many_release, m));
	for (i = 0; i < KT_MANY; i++) {
		/* Interface numbers no netdev has: 100 of them. */
		id_priv = kt_id_raw(test, &cx, 1000000 + i % 100,
				    a->dev_addr, NULL, NULL, NULL, false, true);
		m->ids[m->n++] = &id_priv->id;
		KUNIT_ASSERT_TRUE(test,
				  cma_track_indexed(id_priv, CMA_TRACK_DEV));
	}
	for (i = 0; i < 3; i++)
		kt_id(test, &ca, a);

	visits = cma_track_visits();
	rtnl_lock();
	ret = dev_set_mtu(a, 1400);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);
	cma_track_flush();
	KUNIT_EXPECT_EQ(test, cma_track_visits() - visits, 3);
}

/* ---- the offload interface ---- */

struct kt_sub {
	struct orcm_track_sub	sub;
	atomic_t		n[5];		/* route, neigh, mtu, link, addr */
	atomic_t		bad_ctx;	/* a callback not in process context */
	atomic_t		in_cb;		/* callbacks running now */
	atomic_t		late;		/* callbacks begun after @gone */
	bool			gone;		/* unsubscribed (or id ended) */
	unsigned int		sleep_us;	/* widen the callback */
	struct orcm_track_path	last;
};

static void kt_sub_note(struct orcm_track_sub *sub,
			const struct orcm_track_path *path, int cls)
{
	struct kt_sub *k = container_of(sub, struct kt_sub, sub);

	atomic_inc(&k->in_cb);
	if (READ_ONCE(k->gone))
		atomic_inc(&k->late);
	if (!in_task() || irqs_disabled())
		atomic_inc(&k->bad_ctx);
	k->last = *path;
	atomic_inc(&k->n[cls]);
	if (k->sleep_us)
		usleep_range(k->sleep_us, k->sleep_us + 50);
	atomic_dec(&k->in_cb);
}

static void kt_sub_route(struct orcm_track_sub *sub,
			 const struct orcm_track_path *path)
{
	kt_sub_note(sub, path, 0);
}

static void kt_sub_neigh(struct orcm_track_sub *sub,
			 const struct orcm_track_path *path)
{
	kt_sub_note(sub, path, 1);
}

static void kt_sub_mtu(struct orcm_track_sub *sub,
		       const struct orcm_track_path *path)
{
	kt_sub_note(sub, path, 2);
}

static void kt_sub_link(struct orcm_track_sub *sub,
			const struct orcm_track_path *path)
{
	kt_sub_note(sub, path, 3);
}

static void kt_sub_addr(struct orcm_track_sub *sub,
			const struct orcm_track_path *path)
{
	kt_sub_note(sub, path, 4);
}

static const struct orcm_track_ops kt_sub_ops = {
	.route_changed = kt_sub_route,
	.neigh_changed = kt_sub_neigh,
	.mtu_changed = kt_sub_mtu,
	.link_changed = kt_sub_link,
	.addr_removed = kt_sub_addr,
};

static int kt_iw_handler(struct iw_cm_id *cm_id, struct iw_cm_event *ev)
{
	return 0;
}

/*
 * Give @id_priv an iw_cm_id, as rdma_connect() or an incoming connection
 * does (on a fake device: the id stays idle, no device op is called), and
 * start its tracking as they do. rdma_destroy_id() destroys the iw_cm_id.
 */
static struct ib_device kt_fake_ibdev;

static struct iw_cm_id *kt_iw(struct kunit *test,
			      struct rdma_id_private *id_priv)
{
	struct iw_cm_id *cm_id;

	cm_id = iw_create_cm_id(&kt_fake_ibdev, kt_iw_handler, id_priv);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cm_id));
	cm_id->local_addr.ss_family = AF_INET;
	mutex_lock(&id_priv->handler_mutex);
	id_priv->cm_id.iw = cm_id;
	id_priv->cm_is_ib = false;
	cma_track_iw_start(id_priv);
	mutex_unlock(&id_priv->handler_mutex);
	return cm_id;
}

/* Subscribe @k to @cm_id; the current path's MTU is returned. */
static u32 kt_subscribe_any(struct kunit *test, struct kt_sub *k,
			    struct iw_cm_id *cm_id)
{
	struct orcm_track_path now;

	k->sub.ops = &kt_sub_ops;
	k->sub.tcp_opt_len = 12;
	WRITE_ONCE(k->gone, false);
	KUNIT_ASSERT_EQ(test, orcm_iw_track_subscribe(cm_id, &k->sub, &now),
			0);
	k->last = now;
	return now.mtu;
}

/* ... on a path of MTU 1500: the MSS and MULPDU that follow. */
static void kt_subscribe(struct kunit *test, struct kt_sub *k,
			 struct iw_cm_id *cm_id)
{
	KUNIT_EXPECT_EQ(test, kt_subscribe_any(test, k, cm_id), 1500);
	/* 1500 - 20 (IPv4) - 20 (TCP) - 12 (timestamps), 6 of framing */
	KUNIT_EXPECT_EQ(test, k->last.mss, 1448);
	KUNIT_EXPECT_EQ(test, k->last.mulpdu, 1442);
}

static void kt_unsubscribe(struct kt_sub *k)
{
	orcm_iw_track_unsubscribe(&k->sub);
	WRITE_ONCE(k->gone, true);
}

static int kt_sub_total(struct kt_sub *k)
{
	int i, t = 0;

	for (i = 0; i < ARRAY_SIZE(k->n); i++)
		t += atomic_read(&k->n[i]);
	return t;
}

static void kt_set_mtu(struct kunit *test, struct net_device *ndev, int mtu)
{
	int ret;

	rtnl_lock();
	ret = dev_set_mtu(ndev, mtu);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);
}

/*
 * Each class reaches exactly the subscription of the connection it
 * concerns, from process context, with the new values: MTU (with MSS and
 * MULPDU), link down and up, local address removed through the real
 * notifier path; next hop and route through iw_cm's own update (the fake
 * netdevs have no routes: rdma_cm finds none, consistently).
 */
static void cma_track_offload_events_test(struct kunit *test)
{
	struct net_device *a = kt_ndev(test, false);
	struct net_device *b = kt_ndev(test, false);
	struct kt_ctx ca = {}, cb = {};
	struct rdma_id_private *ia1, *ia2, *ib;
	struct iw_cm_id *wa1, *wa2, *wb;
	struct kt_sub *sa1, *sa2, *sb;
	struct orcm_track_path p;
	__be32 ip = in_aton("198.18.9.1");

	sa1 = kunit_kzalloc(test, sizeof(*sa1), GFP_KERNEL);
	sa2 = kunit_kzalloc(test, sizeof(*sa2), GFP_KERNEL);
	sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, sa1 && sa2 && sb);
	ia1 = kt_id_raw(test, &ca, a->ifindex, a->dev_addr, "198.18.9.1",
			"198.18.9.2", NULL, false, false);
	ia2 = kt_id_raw(test, &ca, a->ifindex, a->dev_addr, "198.18.9.3",
			"198.18.9.2", NULL, false, false);
	ib = kt_id_raw(test, &cb, b->ifindex, b->dev_addr, "198.18.9.5",
		       "198.18.9.2", NULL, false, false);
	wa1 = kt_iw(test, ia1);
	wa2 = kt_iw(test, ia2);
	wb = kt_iw(test, ib);
	KUNIT_EXPECT_TRUE(test, cma_track_indexed(ia1, CMA_TRACK_NEIGH));
	kt_subscribe(test, sa1, wa1);
	kt_subscribe(test, sa2, wa2);
	kt_subscribe(test, sb, wb);
	KUNIT_EXPECT_EQ(test, orcm_iw_track_subscribe(wa1, &sb->sub, &p),
			-EBUSY);

	/* MTU of a: both a subscriptions, mtu_changed only, new values. */
	kt_set_mtu(test, a, 1280);
	cma_track_flush();
	KUNIT_EXPECT_EQ(test, atomic_read(&sa1->n[2]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&sa2->n[2]), 1);
	KUNIT_EXPECT_EQ(test, kt_sub_total(sa1), 1);
	KUNIT_EXPECT_EQ(test, kt_sub_total(sb), 0);
	KUNIT_EXPECT_EQ(test, sa1->last.mtu, 1280);
	KUNIT_EXPECT_EQ(test, sa1->last.mss, 1228);
	KUNIT_EXPECT_EQ(test, sa1->last.mulpdu, 1222);
	KUNIT_EXPECT_NE(test, ktime_to_ns(sa1->last.event_time), 0);
	KUNIT_EXPECT_LE(test, ktime_to_ns(sa1->last.event_time),
			ktime_get_ns());
	/* Markers: 4 octets per 512 of the segment (3 for 1248). */
	sa1->sub.markers = true;
	kt_set_mtu(test, a, 1300);
	cma_track_flush();
	KUNIT_EXPECT_EQ(test, sa1->last.mss, 1248);
	KUNIT_EXPECT_EQ(test, sa1->last.mulpdu, 1248 - 6 - 12);
	KUNIT_EXPECT_EQ(test, sa2->last.mulpdu, 1242);

	/* Link down and up on b: sb's link_changed, nothing else. */
	rtnl_lock();
	dev_close(b);
	rtnl_unlock();
	cma_track_flush();
	KUNIT_EXPECT_EQ(test, atomic_read(&sb->n[3]), 1);
	KUNIT_EXPECT_FALSE(test, sb->last.link_up);
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_open(b, NULL), 0);
	rtnl_unlock();
	cma_track_flush();
	KUNIT_EXPECT_EQ(test, atomic_read(&sb->n[3]), 2);
	KUNIT_EXPECT_TRUE(test, sb->last.link_up);
	KUNIT_EXPECT_EQ(test, kt_sub_total(sb), 2);
	KUNIT_EXPECT_EQ(test, kt_sub_total(sa1), 2);

	/* ia1's local address removed: sa1 only, once. */
	cma_track_addr_event(NETDEV_DOWN, a, AF_INET, &ip);
	cma_track_flush();
	KUNIT_EXPECT_EQ(test, atomic_read(&sa1->n[4]), 1);
	KUNIT_EXPECT_FALSE(test, sa1->last.addr_present);
	KUNIT_EXPECT_EQ(test, atomic_read(&sa2->n[4]), 0);
	cma_track_addr_event(NETDEV_DOWN, a, AF_INET, &ip);
	cma_track_flush();
	KUNIT_EXPECT_EQ(test, atomic_read(&sa1->n[4]), 1);

	/* Next hop MAC, then output netdev: one class each. */
	mutex_lock(&ia2->handler_mutex);
	p = sa2->last;
	eth_random_addr(p.nh_mac);
	orcm_iw_track_update(wa2, &p);
	KUNIT_EXPECT_EQ(test, atomic_read(&sa2->n[1]), 1);
	KUNIT_EXPECT_TRUE(test, ether_addr_equal(sa2->last.nh_mac, p.nh_mac));
	p.oif = b->ifindex;
	p.route_ok = true;
	orcm_iw_track_update(wa2, &p);
	mutex_unlock(&ia2->handler_mutex);
	KUNIT_EXPECT_EQ(test, atomic_read(&sa2->n[0]), 1);
	KUNIT_EXPECT_EQ(test, sa2->last.oif, b->ifindex);
	KUNIT_EXPECT_EQ(test, kt_sub_total(sa2), 4);

	KUNIT_EXPECT_EQ(test, atomic_read(&sa1->bad_ctx) +
			atomic_read(&sa2->bad_ctx) +
			atomic_read(&sb->bad_ctx), 0);
	/* No ULP event for any of it. */
	KUNIT_EXPECT_EQ(test, atomic_read(&ca.addr_change) +
			atomic_read(&ca.unreachable) + atomic_read(&ca.other) +
			atomic_read(&cb.other), 0);
	kt_unsubscribe(sa1);
	kt_unsubscribe(sa2);
	kt_unsubscribe(sb);
	kt_set_mtu(test, a, 1500);
	cma_track_flush();
	KUNIT_EXPECT_EQ(test, atomic_read(&sa1->late) +
			atomic_read(&sa2->late), 0);
}

static void kt_prefix(struct cma_track_prefix *p, const char *ip4, int len)
{
	memset(p, 0, sizeof(*p));
	p->family = AF_INET;
	ipv6_addr_set_v4mapped(in_aton(ip4), &p->addr);
	p->plen = 96 + len;
}

/*
 * A FIB change (track_fib.c) reaches the iWARP ids of its namespace whose
 * destination the changed prefix covers, and only them: not an id without
 * a connection, not another family's, each matching id once per event; a
 * rule change reaches all of them.
 */
static void cma_track_route_test(struct kunit *test)
{
	struct net_device *a = kt_ndev(test, false);
	struct rdma_id_private *i9, *i9b, *i10, *idle;
	struct cma_track_prefix p;
	struct kt_ctx c = {};
	long visits, kicks;

	i9 = kt_id_raw(test, &c, a->ifindex, a->dev_addr, "198.18.9.1",
		       "198.18.9.2", NULL, false, false);
	i9b = kt_id_raw(test, &c, a->ifindex, a->dev_addr, "198.18.9.3",
			"198.18.9.130", NULL, false, false);
	i10 = kt_id_raw(test, &c, a->ifindex, a->dev_addr, "198.18.9.5",
			"198.18.10.2", NULL, false, false);
	idle = kt_id_raw(test, &c, a->ifindex, a->dev_addr, "198.18.9.7",
			 "198.18.9.2", NULL, true, false);
	kt_iw(test, i9);
	kt_iw(test, i9b);
	kt_iw(test, i10);
	KUNIT_EXPECT_TRUE(test, cma_track_indexed(i9, CMA_TRACK_ROUTE));
	KUNIT_EXPECT_FALSE(test, cma_track_indexed(idle, CMA_TRACK_ROUTE));
	cma_track_flush();

	/* 198.18.9.0/24: the two ids towards it; 3 looked at. */
	kt_prefix(&p, "198.18.9.0", 24);
	visits = cma_track_visits();
	kicks = cma_track_kicks();
	cma_track_route_event(&init_net, &p, ktime_get_ns());
	KUNIT_EXPECT_EQ(test, cma_track_visits() - visits, 3);
	KUNIT_EXPECT_EQ(test, cma_track_kicks() - kicks, 2);
	/* a host route: one */
	kt_prefix(&p, "198.18.9.130", 32);
	kicks = cma_track_kicks();
	cma_track_route_event(&init_net, &p, ktime_get_ns());
	KUNIT_EXPECT_EQ(test, cma_track_kicks() - kicks, 1);
	/* 198.18.9.0/25 does not cover .130 */
	kt_prefix(&p, "198.18.9.0", 25);
	kicks = cma_track_kicks();
	cma_track_route_event(&init_net, &p, ktime_get_ns());
	KUNIT_EXPECT_EQ(test, cma_track_kicks() - kicks, 1);
	/* the default route covers all three */
	kt_prefix(&p, "0.0.0.0", 0);
	kicks = cma_track_kicks();
	cma_track_route_event(&init_net, &p, ktime_get_ns());
	KUNIT_EXPECT_EQ(test, cma_track_kicks() - kicks, 3);
	/* IPv6's default route: none of these IPv4 ids */
	memset(&p, 0, sizeof(p));
	p.family = AF_INET6;
	kicks = cma_track_kicks();
	cma_track_route_event(&init_net, &p, ktime_get_ns());
	KUNIT_EXPECT_EQ(test, cma_track_kicks() - kicks, 0);
	/* a rule: all of them */
	p.all = true;
	kicks = cma_track_kicks();
	cma_track_route_event(&init_net, &p, ktime_get_ns());
	KUNIT_EXPECT_EQ(test, cma_track_kicks() - kicks, 3);
	cma_track_flush();
	/* No ULP event for any of it. */
	KUNIT_EXPECT_EQ(test, atomic_read(&c.addr_change) +
			atomic_read(&c.unreachable) + atomic_read(&c.other), 0);
}

/*
 * Unsubscribe racing an event: callbacks that sleep, unsubscribed while
 * the MTU change is being delivered. None begins after unsubscribe has
 * returned, and none is still running then.
 */
static void cma_track_offload_unsub_race_test(struct kunit *test)
{
	struct net_device *a = kt_ndev(test, false);
	struct rdma_id_private *id_priv;
	struct kt_ctx c = {};
	struct iw_cm_id *cm_id;
	struct kt_sub *k;
	int i, running = 0;

	k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	k->sleep_us = 300;
	id_priv = kt_id_raw(test, &c, a->ifindex, a->dev_addr, "198.18.9.1",
			    "198.18.9.2", NULL, false, false);
	cm_id = kt_iw(test, id_priv);
	for (i = 0; i < 100; i++) {
		kt_subscribe_any(test, k, cm_id);
		/* One real change each time (two would coalesce to none). */
		kt_set_mtu(test, a, i & 1 ? 1500 : 1400);
		usleep_range(i * 5, i * 5 + 10);
		kt_unsubscribe(k);
		running += atomic_read(&k->in_cb);
		cma_track_flush();
	}
	KUNIT_EXPECT_EQ(test, running, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->late), 0);
	/* The race was run: callbacks came while subscribed, not always. */
	KUNIT_EXPECT_GT(test, kt_sub_total(k), 0);
	kunit_info(test, "%d callbacks in 100 races", kt_sub_total(k));
}

/*
 * The id's end: once rdma_destroy_id() has returned (the end the ULP
 * causes), no callback, even with a change announced just before, while
 * the driver has not unsubscribed yet.
 */
static void cma_track_offload_end_test(struct kunit *test)
{
	struct net_device *a = kt_ndev(test, false);
	struct rdma_id_private *id_priv;
	struct kt_ctx c = {};
	struct iw_cm_id *cm_id;
	struct kt_sub *k;
	int i, seen;

	k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	k->sleep_us = 100;
	for (i = 0; i < 50; i++) {
		id_priv = kt_id_raw(test, &c, a->ifindex, a->dev_addr,
				    "198.18.9.1", "198.18.9.2", NULL, false,
				    true);
		cm_id = kt_iw(test, id_priv);
		kt_subscribe(test, k, cm_id);
		kt_set_mtu(test, a, 1400);
		usleep_range(0, i * 4);
		rdma_destroy_id(&id_priv->id);
		WRITE_ONCE(k->gone, true);
		seen = kt_sub_total(k);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->in_cb), 0);
		kt_set_mtu(test, a, 1500);
		cma_track_flush();
		KUNIT_EXPECT_EQ(test, kt_sub_total(k), seen);
		/* The subscription's reference kept the iw_cm_id's memory. */
		orcm_iw_track_unsubscribe(&k->sub);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&k->late), 0);
	/* Some changes did reach a live subscription. */
	KUNIT_EXPECT_GT(test, kt_sub_total(k), 0);
	kunit_info(test, "%d callbacks before the ends of 50 ids",
		   kt_sub_total(k));
}

static struct kunit_case cma_track_cases[] = {
	KUNIT_CASE(cma_track_failover_test),
	KUNIT_CASE(cma_track_neigh_test),
	KUNIT_CASE(cma_track_netdev_test),
	KUNIT_CASE(cma_track_addr_test),
	KUNIT_CASE_SLOW(cma_track_destroy_race_test),
	KUNIT_CASE_SLOW(cma_track_scale_test),
	KUNIT_CASE(cma_track_offload_events_test),
	KUNIT_CASE(cma_track_route_test),
	KUNIT_CASE_SLOW(cma_track_offload_unsub_race_test),
	KUNIT_CASE_SLOW(cma_track_offload_end_test),
	{}
};

static struct kunit_suite cma_track_suite = {
	.name = "cma_track",
	.test_cases = cma_track_cases,
};

kunit_test_suite(cma_track_suite);

MODULE_DESCRIPTION("KUnit tests of rdma_cm's network change tracking");
MODULE_LICENSE("GPL");
