// SPDX-License-Identifier: GPL-2.0
/*
 * Per-id options and queries: type of service, address reuse, address
 * family, IB timers, service id, GIDs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/rdma_cm_ib.h>

#include "cma_priv.h"
#include "ib.h"

void rdma_set_service_type(struct rdma_cm_id *id, int tos)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	mutex_lock(&id_priv->qp_mutex);
	id_priv->tos = (u8)tos;
	id_priv->tos_set = true;
	mutex_unlock(&id_priv->qp_mutex);
}
EXPORT_SYMBOL(rdma_set_service_type);

int rdma_set_reuseaddr(struct rdma_cm_id *id, int reuse)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&id_priv->lock, flags);
	/*
	 * As in-tree: off only before binding; on in any state but LISTEN
	 * (the port space reads the flag whenever another id binds).
	 */
	if (id_priv->state == RDMA_CM_IDLE ||
	    (reuse && id_priv->state != RDMA_CM_LISTEN)) {
		id_priv->reuseaddr = !!reuse;
		ret = 0;
	}
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_set_reuseaddr);

int rdma_set_afonly(struct rdma_cm_id *id, int afonly)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&id_priv->lock, flags);
	if (id_priv->state == RDMA_CM_IDLE ||
	    id_priv->state == RDMA_CM_ADDR_BOUND) {
		id_priv->afonly = !!afonly;
		id_priv->afonly_set = true;
		ret = 0;
	}
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_set_afonly);

static bool cma_reliable_qp(enum ib_qp_type type)
{
	return type == IB_QPT_RC || type == IB_QPT_XRC_INI ||
	       type == IB_QPT_XRC_TGT;
}

int rdma_set_ack_timeout(struct rdma_cm_id *id, u8 timeout)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (!cma_reliable_qp(id->qp_type) || id->qp_type == IB_QPT_XRC_TGT)
		return -EINVAL;
	mutex_lock(&id_priv->qp_mutex);
	id_priv->timeout = timeout;
	id_priv->timeout_set = true;
	mutex_unlock(&id_priv->qp_mutex);
	return 0;
}
EXPORT_SYMBOL(rdma_set_ack_timeout);

int rdma_set_min_rnr_timer(struct rdma_cm_id *id, u8 min_rnr_timer)
{
	struct rdma_id_private *id_priv = to_id_priv(id);

	if (!cma_reliable_qp(id->qp_type) || id->qp_type == IB_QPT_XRC_INI)
		return -EINVAL;
	if (min_rnr_timer > 31)
		return -EINVAL;
	mutex_lock(&id_priv->qp_mutex);
	id_priv->min_rnr_timer = min_rnr_timer;
	id_priv->min_rnr_timer_set = true;
	mutex_unlock(&id_priv->qp_mutex);
	return 0;
}
EXPORT_SYMBOL(rdma_set_min_rnr_timer);

int rdma_set_ib_path(struct rdma_cm_id *id, struct sa_path_rec *path_rec)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	struct sa_path_rec *rec;
	int ret = 0;

	if (!path_rec)
		return -EINVAL;
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED,
			   RDMA_CM_ROUTE_RESOLVED))
		return -EINVAL;
	rec = kmemdup(path_rec, sizeof(*rec), GFP_KERNEL);
	if (!rec) {
		ret = -ENOMEM;
		goto err_state;
	}
	if (rdma_protocol_roce(id->device, id->port_num)) {
		ret = cma_roce_set_path_l2(id_priv, rec);
		if (ret)
			goto err_free;
	}
	kfree(id->route.path_rec);
	id->route.path_rec = rec;
	id->route.num_pri_alt_paths = 1;
	id_priv->pc_route = false;	/* the caller's path, not the cache's */
	return 0;

err_free:
	kfree(rec);
err_state:
	cma_comp_exch(id_priv, RDMA_CM_ROUTE_RESOLVED, RDMA_CM_ADDR_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_set_ib_path);

__be64 rdma_get_service_id(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (addr->sa_family == AF_IB)
		return ((struct sockaddr_ib *)addr)->sib_sid;
	return cpu_to_be64(((u64)id->ps << 16) + be16_to_cpu(cma_port(addr)));
}
EXPORT_SYMBOL(rdma_get_service_id);

void rdma_read_gids(struct rdma_cm_id *id, union ib_gid *sgid,
		    union ib_gid *dgid)
{
	struct rdma_dev_addr *dev_addr = &id->route.addr.dev_addr;

	if (!id->device) {
		if (sgid)
			memset(sgid, 0, sizeof(*sgid));
		if (dgid)
			memset(dgid, 0, sizeof(*dgid));
		return;
	}
	if (rdma_protocol_roce(id->device, id->port_num)) {
		if (sgid)
			rdma_ip2gid((struct sockaddr *)&id->route.addr.src_addr,
				    sgid);
		if (dgid)
			rdma_ip2gid((struct sockaddr *)&id->route.addr.dst_addr,
				    dgid);
		return;
	}
	if (sgid)
		rdma_addr_get_sgid(dev_addr, sgid);
	if (dgid)
		rdma_addr_get_dgid(dev_addr, dgid);
}
EXPORT_SYMBOL(rdma_read_gids);
