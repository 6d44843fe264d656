// SPDX-License-Identifier: GPL-2.0
/*
 * Addressing on InfiniBand ports: the source GID entry of an id that
 * address resolution bound to one, and its route, a path record from the
 * subnet administrator
 * (ib_sa_path_rec_get()) for the GIDs that address resolution over IPoIB
 * found (dev_addr's source and destination hardware addresses).
 *
 * An id has at most one query, while it is in ROUTE_QUERY. The query holds
 * a reference on the id, dropped by its callback, which ib_sa calls exactly
 * once, also after ib_sa_cancel_query() (cma_ib_cancel_route(), from the
 * destroy path). The callback only queues the id's event work: it may run
 * in a context that cannot sleep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

#include "cma_priv.h"
#include "ib.h"

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
	if (dev_addr->sgid_attr)
		rdma_put_gid_attr(dev_addr->sgid_attr);
	dev_addr->sgid_attr = attr;
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

static void cma_ib_route_done(int status, struct sa_path_rec *resp,
			      unsigned int num_prs, void *context)
{
	struct rdma_id_private *id_priv = context;
	struct rdma_route *route = &id_priv->id.route;
	struct rdma_cm_event ev = {};

	if (!status && (!resp || !num_prs))
		status = -EHOSTUNREACH;
	if (!status) {
		/* The id is in ROUTE_QUERY: nobody else touches the route. */
		route->path_rec[0] = *resp;
		route->num_pri_alt_paths = 1;
		ev.event = RDMA_CM_EVENT_ROUTE_RESOLVED;
		cma_queue_event(id_priv, RDMA_CM_ROUTE_QUERY,
				RDMA_CM_ROUTE_RESOLVED, &ev);
	} else {
		ev.event = RDMA_CM_EVENT_ROUTE_ERROR;
		ev.status = status;
		cma_queue_event(id_priv, RDMA_CM_ROUTE_QUERY,
				RDMA_CM_ADDR_RESOLVED, &ev);
	}
	cma_id_put(id_priv);
}

int cma_ib_resolve_route(struct rdma_id_private *id_priv,
			 unsigned long timeout_ms)
{
	struct rdma_route *route = &id_priv->id.route;
	struct sa_path_rec query, *rec;
	ib_sa_comp_mask mask;
	bool tos_set;
	u8 tos;
	int ret;

	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;
	kfree(route->path_rec);
	route->path_rec = rec;
	route->num_pri_alt_paths = 0;

	mutex_lock(&id_priv->qp_mutex);
	tos_set = id_priv->tos_set;
	tos = id_priv->tos;
	mutex_unlock(&id_priv->qp_mutex);
	cma_ib_path_query(&query, &mask, &route->addr.dev_addr,
			  rdma_get_service_id(&id_priv->id,
					      cma_dst_addr(id_priv)),
			  tos_set, tos);

	cma_id_get(id_priv);
	ret = ib_sa_path_rec_get(&cma_sa_client, id_priv->id.device,
				 id_priv->id.port_num, &query, mask,
				 timeout_ms, GFP_KERNEL, cma_ib_route_done,
				 id_priv, (struct ib_sa_query **)&id_priv->query);
	if (ret < 0) {
		cma_id_put(id_priv);
		return ret;
	}
	id_priv->query_id = ret;
	return 0;
}

/* The destroy path of an id that was in ROUTE_QUERY on an IB port. */
void cma_ib_cancel_route(struct rdma_id_private *id_priv)
{
	if (id_priv->query)
		ib_sa_cancel_query(id_priv->query_id, id_priv->query);
}

void cma_sa_init(void)
{
	ib_sa_register_client(&cma_sa_client);
}

void cma_sa_exit(void)
{
	ib_sa_unregister_client(&cma_sa_client);
}
