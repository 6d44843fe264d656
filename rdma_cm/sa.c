// SPDX-License-Identifier: GPL-2.0
/*
 * Addressing on InfiniBand ports: the source GID entry of an id that
 * address resolution bound to one, and its route, a path record from the
 * subnet administrator for the GIDs that address resolution over IPoIB
 * found (dev_addr's source and destination hardware addresses), through
 * the path cache (path_cache.c), which owns the queries: an id in
 * ROUTE_QUERY waits on one (id_priv->query) and stops waiting on destroy
 * (cma_ib_cancel_route()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/slab.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

#include "cma_priv.h"
#include "ib.h"
#include "path_cache.h"

struct ib_sa_client cma_sa_client;

/*
 * After address resolution bound the id to an InfiniBand port: take the
 * port's GID table entry of the source GID (the IPoIB hardware address's),
 * as the RoCE side does for its source IP. -ENODEV if the port no longer
 * has that GID.
 */
int cma_ib_set_sgid(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct rdma_cm_id *id = &id_priv->id;
	const struct ib_gid_attr *attr;
	union ib_gid gid;

	if (!id->device || !rdma_protocol_ib(id->device, id->port_num))
		return 0;
	rdma_addr_get_sgid(dev_addr, &gid);
	attr = rdma_find_gid_by_port(id->device, &gid, IB_GID_TYPE_IB,
				     id->port_num, NULL);
	if (IS_ERR(attr))
		return -ENODEV;
	cma_set_sgid_attr(id_priv, attr);
	id_priv->gid_type = IB_GID_TYPE_IB;
	return 0;
}

/* The query for the path of @dev_addr to service id @sid with ToS @tos. */
void cma_ib_path_query(struct sa_path_rec *rec, ib_sa_comp_mask *mask,
		       struct rdma_dev_addr *dev_addr, __be64 sid,
		       bool tos_set, u8 tos)
{
	memset(rec, 0, sizeof(*rec));
	rec->rec_type = SA_PATH_REC_TYPE_IB;
	rdma_addr_get_sgid(dev_addr, &rec->sgid);
	rdma_addr_get_dgid(dev_addr, &rec->dgid);
	rec->pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	rec->numb_path = 1;
	rec->reversible = 1;
	rec->service_id = sid;
	*mask = IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
		IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_NUMB_PATH |
		IB_SA_PATH_REC_REVERSIBLE | IB_SA_PATH_REC_SERVICE_ID;
	if (tos_set) {
		rec->traffic_class = tos;
		*mask |= IB_SA_PATH_REC_TRAFFIC_CLASS;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_path_query);

int cma_ib_resolve_route(struct rdma_id_private *id_priv,
			 unsigned long timeout_ms)
{
	struct rdma_route *route = &id_priv->id.route;
	struct sa_path_rec query, *rec;
	ib_sa_comp_mask mask;
	bool tos_set;
	u8 tos;

	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;
	kfree(route->path_rec);
	route->path_rec = rec;
	route->num_pri_alt_paths = 0;
	id_priv->pc_route = false;

	mutex_lock(&id_priv->qp_mutex);
	tos_set = id_priv->tos_set;
	tos = id_priv->tos;
	mutex_unlock(&id_priv->qp_mutex);
	/* As in-tree, AF_IB asks for the traffic class of its flow info. */
	if (cma_src_addr(id_priv)->sa_family == AF_IB) {
		tos_set = true;
		tos = be32_to_cpu(((struct sockaddr_ib *)
				   cma_src_addr(id_priv))->sib_flowinfo) >> 20;
	}
	cma_ib_path_query(&query, &mask, &route->addr.dev_addr,
			  rdma_get_service_id(&id_priv->id,
					      cma_dst_addr(id_priv)),
			  tos_set, tos);

	/* From the path cache, a query in flight, or the SA (path_cache.c). */
	return cma_pc_resolve(id_priv, &query, mask, timeout_ms);
}

/* The destroy path of an id that was in ROUTE_QUERY on an IB port. */
void cma_ib_cancel_route(struct rdma_id_private *id_priv)
{
	cma_pc_cancel(id_priv);
}

void cma_sa_init(void)
{
	ib_sa_register_client(&cma_sa_client);
}

void cma_sa_exit(void)
{
	ib_sa_unregister_client(&cma_sa_client);
}
