// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE addressing: the source GID of a resolved address and the path
 * record of a route, built locally (RoCE has no subnet administrator).
 *
 * The source GID is the port's GID table entry for the source IP on the
 * netdev the address resolved to, of the port's default GID type (configfs,
 * cma_port_cfg.gid_type). The id keeps a reference on that entry in
 * id.route.addr.dev_addr.sgid_attr, dropped once by cma_release().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/route.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "cma_priv.h"
#include "ib.h"

static struct cma_port_cfg *cma_roce_port_cfg(struct rdma_id_private *id_priv)
{
	struct ib_device *device = id_priv->id.device;

	return &id_priv->cma_dev->port_cfg[id_priv->id.port_num -
					   rdma_start_port(device)];
}

/*
 * After address resolution bound the id to a RoCE port: take the GID entry
 * of the source address. -ENODEV when the netdev is gone, or the GID table's
 * error (-EINVAL: no entry of that type for the address on that netdev).
 */
int cma_roce_set_sgid(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct rdma_cm_id *id = &id_priv->id;
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	enum ib_gid_type type;
	union ib_gid gid;
	int ret;

	if (!id->device || !rdma_protocol_roce(id->device, id->port_num))
		return 0;
	ret = rdma_ip2gid(cma_src_addr(id_priv), &gid);
	if (ret)
		return ret;
	type = READ_ONCE(cma_roce_port_cfg(id_priv)->gid_type);

	ndev = dev_get_by_index(cma_net(id_priv), dev_addr->bound_dev_if);
	if (!ndev)
		return -ENODEV;
	attr = rdma_find_gid_by_port(id->device, &gid, type, id->port_num,
				     ndev);
	dev_put(ndev);
	if (IS_ERR(attr))
		return PTR_ERR(attr);

	cma_set_sgid_attr(id_priv, attr);
	id_priv->gid_type = type;
	ib_addr_set_pkey(dev_addr, 0xffff);
	return 0;
}

/*
 * Fill @rec for a RoCE path from the resolved addresses. -EINVAL if the
 * netdev's MTU cannot carry the smallest IB MTU.
 */
/*
 * The SL of @tos on @ndev: the VLAN priority (PCP) that the netdev's
 * egress map gives the ToS's socket priority; 0 without a VLAN.
 */
static u8 cma_roce_tos_sl(struct net_device *ndev, u8 tos)
{
	u16 mask;

	if (!is_vlan_dev(ndev))
		return 0;
	mask = vlan_dev_get_egress_qos_mask(ndev, rt_tos2priority(tos));
	return (mask & VLAN_PRIO_MASK) >> VLAN_PRIO_SHIFT;
}

int cma_roce_fill_path(struct sa_path_rec *rec,
		       const struct cma_roce_path_in *in)
{
	enum ib_mtu mtu = iboe_get_mtu(in->netdev_mtu);

	if (!mtu)
		return -EINVAL;
	memset(rec, 0, sizeof(*rec));
	rec->rec_type = sa_conv_gid_to_pathrec_type(in->gid_type);
	rec->sgid = in->sgid;
	rec->dgid = in->dgid;
	sa_path_set_dmac(rec, (u8 *)in->dmac);
	rec->roce.route_resolved = true;
	rec->hop_limit = in->hop_limit;
	rec->traffic_class = in->tos;
	/* As in-tree: the netdev's priority map (VLAN egress) gives the SL. */
	rec->sl = in->sl;
	rec->reversible = 1;
	rec->pkey = cpu_to_be16(0xffff);
	rec->mtu_selector = IB_SA_EQ;
	rec->mtu = mtu;
	rec->rate_selector = IB_SA_EQ;
	rec->rate = IB_RATE_PORT_CURRENT;
	rec->packet_life_time_selector = IB_SA_EQ;
	rec->packet_life_time = in->packet_life_time;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_roce_fill_path);

/* The inputs of cma_roce_fill_path() for a resolved id. */
static int cma_roce_path_in(struct rdma_id_private *id_priv,
			    struct cma_roce_path_in *in)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct net_device *ndev;
	int ret;

	if (!dev_addr->sgid_attr)
		return -EINVAL;
	ndev = dev_get_by_index(cma_net(id_priv), dev_addr->bound_dev_if);
	if (!ndev)
		return -ENODEV;
	in->netdev_mtu = READ_ONCE(ndev->mtu);

	ret = rdma_ip2gid(cma_dst_addr(id_priv), &in->dgid);
	if (ret)
		goto out_put;
	in->gid_type = dev_addr->sgid_attr->gid_type;
	in->sgid = dev_addr->sgid_attr->gid;
	memcpy(in->dmac, dev_addr->dst_dev_addr, ETH_ALEN);
	/* A route that resolved no hop limit (loopback) gets a default. */
	in->hop_limit = dev_addr->hoplimit > 0 ? dev_addr->hoplimit : 64;

	mutex_lock(&id_priv->qp_mutex);
	in->tos = id_priv->tos_set ? id_priv->tos :
		  READ_ONCE(cma_roce_port_cfg(id_priv)->roce_tos);
	mutex_unlock(&id_priv->qp_mutex);
	in->sl = cma_roce_tos_sl(ndev, in->tos);
	/*
	 * As in-tree, the path's life time is fixed: a consumer's ACK
	 * timeout (rdma_set_ack_timeout()) goes to its own QP alone, and
	 * the peer takes the REQ's, derived from the path.
	 */
	in->packet_life_time = CMA_ROCE_PACKET_LIFETIME;
out_put:
	dev_put(ndev);
	return ret;
}

/* Install @rec as the id's only path. */
static void cma_roce_set_route(struct rdma_id_private *id_priv,
			       struct sa_path_rec *rec)
{
	struct rdma_route *route = &id_priv->id.route;

	kfree(route->path_rec);
	route->path_rec = rec;
	route->num_pri_alt_paths = 1;
}

/*
 * rdma_resolve_route() on a RoCE port: the route is known once the address
 * is; ROUTE_RESOLVED is delivered from the work queue.
 */
int cma_roce_resolve_route(struct rdma_id_private *id_priv)
{
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };
	struct cma_roce_path_in in = {};
	struct sa_path_rec *rec;
	int ret;

	ret = cma_roce_path_in(id_priv, &in);
	if (ret)
		return ret;
	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;
	ret = cma_roce_fill_path(rec, &in);
	if (ret) {
		kfree(rec);
		return ret;
	}
	rec->service_id = rdma_get_service_id(&id_priv->id,
					      cma_dst_addr(id_priv));
	cma_roce_set_route(id_priv, rec);
	/* As in-tree: a neighbour update with another MAC: UNREACHABLE. */
	cma_track_route(id_priv);
	cma_queue_event(id_priv, RDMA_CM_ROUTE_QUERY, RDMA_CM_ROUTE_RESOLVED,
			&ev);
	return 0;
}

/*
 * rdma_set_ib_path() on a RoCE port: a path from the consumer gets the
 * layer 2 fields only the CM knows (the neighbour's MAC).
 */
int cma_roce_set_path_l2(struct rdma_id_private *id_priv,
			 struct sa_path_rec *rec)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;

	if (!dev_addr->sgid_attr)
		return -ENODEV;
	sa_path_set_dmac(rec, dev_addr->dst_dev_addr);
	rec->roce.route_resolved = true;
	return 0;
}
