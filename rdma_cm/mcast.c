// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast on UD ids: rdma_join_multicast() and rdma_leave_multicast().
 *
 * RoCE needs no subnet administrator: a join derives the group's MGID from
 * the IP group (RoCE v2: the IPv4-mapped or IPv6 address; RoCE v1: IPv4 in
 * ff0e::ffff:0:0/96), builds the address vector locally and reports it in
 * MULTICAST_JOIN, from process context, so that the consumer can attach its
 * QP and send. A full member of a RoCE v2 group also joins the IP group on
 * the netdev (IGMP/MLD), so that switches deliver the group's traffic; a
 * send-only member does not. iWARP has no multicast; native IB joins go
 * through the subnet administrator (mcast_ib.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/igmp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

#include "cma_priv.h"
#include "ib.h"
#include "mcast.h"

/*
 * Join states (BIT(enum ib_sa_mc_join_states), as rdma_ucm passes them).
 * RoCE has no SA to tell the kinds of membership apart: as in-tree, a
 * send-only full member is a sender alone, every other state a member.
 */
#define CMA_MC_SENDONLY		BIT(SENDONLY_FULLMEMBER_JOIN)
#define CMA_MC_STATES		(BIT(NUM_JOIN_MEMBERSHIP_TYPES) - 1)

static bool cma_mc_addr_ok(const struct sockaddr *addr)
{
	if (addr->sa_family == AF_INET)
		return ipv4_is_multicast(((const struct sockaddr_in *)addr)->sin_addr.s_addr);
	if (addr->sa_family == AF_INET6)
		return ipv6_addr_is_multicast(&((const struct sockaddr_in6 *)addr)->sin6_addr);
	return false;
}

/*
 * The MGID of IP group @addr. RoCE v2 (IB_GID_TYPE_ROCE_UDP_ENCAP) carries
 * the IP group itself as the destination GID: the IPv6 address, or IPv4 as
 * ::ffff:a.b.c.d. RoCE v1 has no IP header, and IPv4 groups are mapped into
 * ff0e::ffff:a.b.c.d.
 */
VISIBLE_IF_KUNIT void cma_mc_mgid(const struct sockaddr *addr,
				  enum ib_gid_type gid_type, union ib_gid *mgid)
{
	memset(mgid, 0, sizeof(*mgid));
	if (addr->sa_family == AF_INET6) {
		memcpy(mgid->raw, &((const struct sockaddr_in6 *)addr)->sin6_addr,
		       sizeof(*mgid));
		return;
	}
	ipv6_addr_set_v4mapped(((const struct sockaddr_in *)addr)->sin_addr.s_addr,
			       (struct in6_addr *)mgid->raw);
	if (gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		mgid->raw[0] = 0xff;
		mgid->raw[1] = 0x0e;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_mc_mgid);

/* The GID of the id's source IP address (IPv4 mapped, as in the GID table). */
static void cma_mc_sgid(struct rdma_id_private *id_priv, union ib_gid *sgid)
{
	const struct sockaddr *src = cma_src_addr(id_priv);

	if (src->sa_family == AF_INET6)
		memcpy(sgid->raw, &((const struct sockaddr_in6 *)src)->sin6_addr,
		       sizeof(*sgid));
	else
		ipv6_addr_set_v4mapped(((const struct sockaddr_in *)src)->sin_addr.s_addr,
				       (struct in6_addr *)sgid->raw);
}

static enum ib_gid_type cma_mc_gid_type(struct rdma_id_private *id_priv)
{
	struct ib_device *device = id_priv->id.device;
	u32 port = id_priv->id.port_num;

	return READ_ONCE(id_priv->cma_dev->port_cfg[port - rdma_start_port(device)].gid_type);
}

static u8 cma_mc_tos(struct rdma_id_private *id_priv)
{
	struct ib_device *device = id_priv->id.device;
	u32 port = id_priv->id.port_num;
	u8 tos;

	mutex_lock(&id_priv->qp_mutex);
	tos = id_priv->tos_set ? id_priv->tos :
	      READ_ONCE(id_priv->cma_dev->port_cfg[port - rdma_start_port(device)].roce_tos);
	mutex_unlock(&id_priv->qp_mutex);
	return tos;
}

/*
 * Join (@join) or leave the IP group of @mgid on @ndev, under RTNL: IPv4
 * wants it, and so does IPv6 on 6.1 (ipv6_dev_mc_dec() asserts it there;
 * 6.12 no longer does, and takes it gladly).
 */
static int cma_mc_ip_group(struct net_device *ndev, const union ib_gid *mgid,
			   bool join)
{
	struct in6_addr group;
	struct in_device *in_dev;
	int ret = 0;

	memcpy(&group, mgid->raw, sizeof(group));
	if (ipv6_addr_v4mapped(&group)) {
		rtnl_lock();
		in_dev = __in_dev_get_rtnl(ndev);
		if (!in_dev)
			ret = -ENODEV;
		else if (join)
			ip_mc_inc_group(in_dev, group.s6_addr32[3]);
		else
			ip_mc_dec_group(in_dev, group.s6_addr32[3]);
		rtnl_unlock();
		return ret;
	}
#if IS_ENABLED(CONFIG_IPV6)
	rtnl_lock();
	if (join)
		ret = ipv6_dev_mc_inc(ndev, &group);
	else
		ret = ipv6_dev_mc_dec(ndev, &group);
	rtnl_unlock();
	return ret;
#else
	return -EAFNOSUPPORT;
#endif
}

/* Drop the IP group membership of @mc, if it holds one. */
static void cma_mc_drop_ip_group(struct rdma_id_private *id_priv,
				 struct cma_mc *mc)
{
	struct net_device *ndev;

	if (!mc->ip_ifindex)
		return;
	/* A netdev that is gone took its memberships with it. */
	ndev = dev_get_by_index(cma_net(id_priv), mc->ip_ifindex);
	mc->ip_ifindex = 0;
	if (!ndev)
		return;
	cma_mc_ip_group(ndev, &mc->mgid, false);
	dev_put(ndev);
}

/* Free an unlinked @mc whose work is not queued: membership dropped. */
static void cma_mc_release(struct rdma_id_private *id_priv, struct cma_mc *mc)
{
	cma_mc_drop_ip_group(id_priv, mc);
	rdma_destroy_ah_attr(&mc->event.param.ud.ah_attr);
	kfree(mc);
}

static void cma_mc_work(struct work_struct *work)
{
	struct cma_mc *mc = container_of(work, struct cma_mc, work);
	struct rdma_id_private *id_priv = mc->id_priv;
	struct rdma_cm_event ib_ev, *ev = &mc->event;
	enum rdma_cm_state state;
	int ret;
	bool mine;

	mutex_lock(&id_priv->handler_mutex);
	state = cma_state(id_priv);
	if (state == RDMA_CM_DESTROYING || state == RDMA_CM_DEVICE_REMOVAL)
		goto out_unlock;
	if (mc->ib) {
		/* InfiniBand: the SA's last word (mcast_ib.c). */
		if (!cma_mc_take_ib_event(id_priv, mc, &ib_ev))
			goto out_unlock;
		ev = &ib_ev;
	}
	ret = cma_deliver(id_priv, ev);
	if (ev == &ib_ev)
		rdma_destroy_ah_attr(&ib_ev.param.ud.ah_attr);
	if (ret) {
		/*
		 * The handler destroys its id (in-tree WARNs instead). The
		 * destroy path cancels the work of every join it unlinks,
		 * and this join's work is the one running: unlink and free
		 * it here, unless a leave already did and waits for us.
		 */
		spin_lock(&id_priv->mc_lock);
		mine = !list_empty(&mc->list);
		list_del_init(&mc->list);
		spin_unlock(&id_priv->mc_lock);
		if (mine)
			cma_mc_release(id_priv, mc);
		cma_id_put(id_priv);	/* the work's; the id's own remains */
		cma_destroy_handler_locked(id_priv);
		return;
	}
out_unlock:
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

/* Free an unlinked @mc: no event after this returns, membership dropped. */
static void cma_mc_free(struct rdma_id_private *id_priv, struct cma_mc *mc)
{
	/* First no more SA callbacks, which could queue the work again. */
	cma_mc_leave_ib(mc);
	if (cancel_work_sync(&mc->work))
		cma_id_put(id_priv);	/* the reference of the queued work */
	cma_mc_release(id_priv, mc);
}

/* Fill @mc's MULTICAST_JOIN event: the group's address vector and qkey. */
static int cma_mc_roce_event(struct rdma_id_private *id_priv,
			     struct cma_mc *mc, struct net_device *ndev,
			     enum ib_gid_type gid_type, void *context)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct rdma_ud_param *ud = &mc->event.param.ud;
	struct ib_sa_mcmember_rec rec = {};
	struct in6_addr *group;
	int ret;

	rec.mgid = mc->mgid;
	cma_mc_sgid(id_priv, &rec.port_gid);
	rec.qkey = cpu_to_be32(id_priv->qkey);
	rec.traffic_class = cma_mc_tos(id_priv);
	/* RoCE v1 frames are not routed; a v2 group uses the route's limit. */
	rec.hop_limit = gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP ?
			(dev_addr->hoplimit ?: IPV6_DEFAULT_HOPLIMIT) : 1;
	rec.mtu = iboe_get_mtu(ndev->mtu);
	rec.join_state = mc->join_state;

	ret = ib_init_ah_from_mcmember(id_priv->id.device, id_priv->id.port_num,
				       &rec, ndev, gid_type, &ud->ah_attr);
	if (ret)
		return ret;
	/* The MAC the group's frames go to, as the IP stack maps it. */
	group = (struct in6_addr *)rec.mgid.raw;
	if (ipv6_addr_v4mapped(group))
		ip_eth_mc_map(group->s6_addr32[3], ud->ah_attr.roce.dmac);
	else
		ipv6_eth_mc_map(group, ud->ah_attr.roce.dmac);

	mc->event.event = RDMA_CM_EVENT_MULTICAST_JOIN;
	ud->private_data = context;
	ud->qp_num = 0xffffff;
	ud->qkey = id_priv->qkey;
	return 0;
}

static int cma_mc_join_roce(struct rdma_id_private *id_priv,
			    struct cma_mc *mc, void *context)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	enum ib_gid_type gid_type = cma_mc_gid_type(id_priv);
	struct net_device *ndev;
	int ret;

	/* A send-only member needs no group membership: RoCE v2 only. */
	if (mc->join_state == CMA_MC_SENDONLY &&
	    gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EOPNOTSUPP;

	ndev = dev_get_by_index(cma_net(id_priv), dev_addr->bound_dev_if);
	if (!ndev)
		return -ENODEV;
	cma_mc_mgid((struct sockaddr *)&mc->addr, gid_type, &mc->mgid);
	ret = cma_mc_roce_event(id_priv, mc, ndev, gid_type, context);
	if (ret)
		goto out_put;

	if (gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
	    mc->join_state != CMA_MC_SENDONLY) {
		ret = cma_mc_ip_group(ndev, &mc->mgid, true);
		if (ret) {
			rdma_destroy_ah_attr(&mc->event.param.ud.ah_attr);
			goto out_put;
		}
		mc->ip_ifindex = ndev->ifindex;
	}
out_put:
	dev_put(ndev);
	return ret;
}

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	enum rdma_cm_state state = cma_state(id_priv);
	struct cma_mc *mc;
	bool ib;
	int ret;

	if (!id->device || (state != RDMA_CM_ADDR_BOUND &&
			    state != RDMA_CM_ADDR_RESOLVED))
		return -EINVAL;
	/* The in-tree stack says -ENOSYS for iWARP; that errno is reserved. */
	if (rdma_cap_iw_cm(id->device, id->port_num))
		return -EOPNOTSUPP;
	if (id->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (!addr || !cma_mc_addr_ok(addr) || !join_state ||
	    (join_state & ~CMA_MC_STATES))
		return -EINVAL;
	ib = rdma_protocol_ib(id->device, id->port_num);
	if (!ib && !rdma_protocol_roce(id->device, id->port_num))
		return -EOPNOTSUPP;

	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc)
		return -ENOMEM;
	mc->id_priv = id_priv;
	mc->join_state = join_state;
	mc->context = context;
	mc->join_addr = addr;
	mc->ib = ib;
	INIT_LIST_HEAD(&mc->list);
	memcpy(&mc->addr, addr, cma_addr_len(addr));
	INIT_WORK(&mc->work, cma_mc_work);
	mutex_lock(&id_priv->qp_mutex);
	ret = cma_ud_set_qkey(id_priv, 0);
	mutex_unlock(&id_priv->qp_mutex);
	if (ret)
		goto err_free;

	if (ib)
		ret = cma_mc_join_ib(id_priv, mc);
	else
		ret = cma_mc_join_roce(id_priv, mc, context);
	if (ret)
		goto err_free;

	spin_lock(&id_priv->mc_lock);
	list_add_tail(&mc->list, &id_priv->mc_list);
	if (ib) {
		cma_mc_publish_ib(id_priv, mc);
	} else {
		cma_id_get(id_priv);	/* the work's */
		queue_work(cma_wq, &mc->work);
	}
	spin_unlock(&id_priv->mc_lock);
	return 0;

err_free:
	kfree(mc);
	return ret;
}
EXPORT_SYMBOL(rdma_join_multicast);

/*
 * The join of @addr that a leave of @addr takes, on @mc_list (the caller
 * holds its lock): the one joined with this very address pointer, else
 * the first join of an equal address (in-tree takes the first always).
 *
 * rdma_ucm joins with, and leaves by, a pointer into its per-join object,
 * which it frees when the leave returns. An id that joined one group twice
 * (JOIN_MCAST twice, then LEAVE_MCAST of the second) would otherwise lose
 * its first join and keep the second, whose next event (a queued
 * MULTICAST_JOIN, an SA error) then goes to freed memory.
 */
VISIBLE_IF_KUNIT struct cma_mc *cma_mc_pick(struct list_head *mc_list,
					    const struct sockaddr *addr)
{
	struct cma_mc *mc, *first = NULL;

	list_for_each_entry(mc, mc_list, list) {
		if (cma_addr_cmp((struct sockaddr *)&mc->addr, addr))
			continue;
		if (mc->join_addr == addr)
			return mc;
		if (!first)
			first = mc;
	}
	return first;
}
EXPORT_SYMBOL_IF_KUNIT(cma_mc_pick);

/*
 * Leave a join of @addr (cma_mc_pick()). No event of that join is
 * delivered once this returns: it waits for one in delivery, so, as
 * in-tree, it must not be called from the id's own event handler.
 */
void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	struct cma_mc *found;

	spin_lock(&id_priv->mc_lock);
	found = cma_mc_pick(&id_priv->mc_list, addr);
	if (found)
		list_del_init(&found->list);
	spin_unlock(&id_priv->mc_lock);
	if (!found)
		return;

	/* A QP the CM owns leaves the group with the id. */
	mutex_lock(&id_priv->qp_mutex);
	if (id->qp)
		ib_detach_mcast(id->qp, &found->mgid, found->mlid);
	mutex_unlock(&id_priv->qp_mutex);
	cma_mc_free(id_priv, found);
}
EXPORT_SYMBOL(rdma_leave_multicast);

/* The destroy path: leave every group the id still has joined. */
void cma_mc_leave_all(struct rdma_id_private *id_priv)
{
	struct cma_mc *mc;

	for (;;) {
		spin_lock(&id_priv->mc_lock);
		mc = list_first_entry_or_null(&id_priv->mc_list,
					      struct cma_mc, list);
		if (mc)
			list_del_init(&mc->list);
		spin_unlock(&id_priv->mc_lock);
		if (!mc)
			return;
		cma_mc_free(id_priv, mc);
	}
}
