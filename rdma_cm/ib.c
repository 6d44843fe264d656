// SPDX-License-Identifier: GPL-2.0
/*
 * Dispatch to the IB connection manager (ib_cm) for ports with
 * rdma_cap_ib_cm() (InfiniBand and RoCE), and translation of its events.
 *
 * ib_cm calls a cm_id's handler from process context, one event at a time
 * per cm_id, and not after ib_destroy_cm_id() has returned; an id destroys
 * its cm_id only outside its handler_mutex (cma_release()), and a handler
 * that has to destroy the id returns non-zero instead, which tells ib_cm
 * to destroy the cm_id itself.
 *
 * Listening: every listening id on an IB port (a device-bound listener, or
 * the per-device child of a wildcard one) holds a reference on the one
 * listening ib_cm_id of its device and service id (ib_cm_insert_listen()),
 * which ids of other namespaces and addresses on the same port share. So a
 * request names no rdma_cm id: it is matched to one by the rdma_cm header
 * of its private data through the port space (cma_ib_find_listener()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "cma_priv.h"
#include "ib.h"
#include "path_cache.h"
#include "ps.h"
#include "trace.h"

/* Our consumer may take its time to accept: ask for 4.096 us * 2^24. */
#define CMA_IB_MRA_SETTING		(IB_CM_MRA_FLAG_DELAY | 24)

#if !IS_ENABLED(CONFIG_KUNIT)	/* else ib.h declares it, for KUnit */
static int cma_ib_handler(struct ib_cm_id *cm_id,
			  const struct ib_cm_event *ib_ev);
#endif

/* What a request asks of a listener. */
struct cma_ib_req_key {
	struct ib_device	*device;
	const struct sockaddr	*local;	/* family AF_IB: an AF_IB request */
	u32			port;
	bool			ud;
};

/* Port space match (cma_ps_find()): runs under the port space lock. */
static bool cma_ib_listener_ok(struct rdma_id_private *id_priv, void *arg)
{
	const struct cma_ib_req_key *key = arg;
	bool ud = id_priv->id.qp_type == IB_QPT_UD;

	if (READ_ONCE(id_priv->state) != RDMA_CM_LISTEN || ud != key->ud)
		return false;
	/* A bound owner's device is stable while it is in the port space. */
	if (id_priv->id.device && id_priv->id.device != key->device)
		return false;
	/* As in-tree, an AF_IB request needs an AF_IB listener of its port. */
	if (key->local->sa_family == AF_IB &&
	    (cma_src_addr(id_priv)->sa_family != AF_IB ||
	     (id_priv->id.port_num && id_priv->id.port_num != key->port)))
		return false;
	return cma_ib_listen_match(cma_src_addr(id_priv),
				   READ_ONCE(id_priv->afonly), key->local);
}

/* The per-device child of wildcard listener @parent on @device, held. */
static struct rdma_id_private *cma_ib_child(struct rdma_id_private *parent,
					    struct ib_device *device)
{
	struct rdma_id_private *child, *found = NULL;

	mutex_lock(&cma_lock);
	list_for_each_entry(child, &parent->listen_list, listen_item) {
		if (child->id.device == device &&
		    refcount_inc_not_zero(&child->refcount)) {
			found = child;
			break;
		}
	}
	mutex_unlock(&cma_lock);
	return found;
}

/*
 * The id that listens for a request to @key->local on service id @sid of
 * @net: a device-bound listener itself, or the device's child of a
 * wildcard one; with a reference. NULL if there is none.
 */
static struct rdma_id_private *
cma_ib_find_listener(struct net *net, __be64 sid, struct cma_ib_req_key *key)
{
	struct rdma_id_private *id_priv, *child;

	id_priv = cma_ps_find(net, cma_ib_sid_ps(sid),
			      be16_to_cpu(cma_ib_sid_port(sid)),
			      cma_ib_listener_ok, key);
	if (!id_priv || id_priv->id.device)
		return id_priv;
	child = cma_ib_child(id_priv, key->device);
	cma_id_put(id_priv);
	return child;
}

/*
 * The namespace a request arrived in, with a reference, and the ifindex of
 * the netdev it came through; NULL if there is none. On RoCE that is the
 * netdev of its GID. On InfiniBand, as in-tree, it is the IPoIB netdev that
 * IPoIB (ib_get_net_dev_by_params()) says carries the request's local IP
 * address on that port, P_Key and GID: a request for an address that no
 * IPoIB netdev of the port has is refused, and one for an address in
 * another namespace reaches that namespace's listeners only.
 */
static struct net *cma_ib_req_net(struct ib_device *device, u32 port,
				  const struct ib_gid_attr *attr,
				  const struct ib_cm_event *ib_ev,
				  const struct sockaddr *local, int *ifindex)
{
	const struct sa_path_rec *path;
	const union ib_gid *gid;
	struct net_device *ndev;
	struct net *net = NULL;
	u16 pkey;

	*ifindex = 0;
	if (rdma_protocol_ib(device, port)) {
		/* A SIDR REQ may come without a GRH: any GID of the port. */
		if (ib_ev->event == IB_CM_SIDR_REQ_RECEIVED) {
			gid = attr ? &attr->gid : NULL;
			pkey = ib_ev->param.sidr_req_rcvd.pkey;
		} else {
			path = ib_ev->param.req_rcvd.primary_path;
			gid = &path->sgid;
			pkey = be16_to_cpu(path->pkey);
		}
		ndev = ib_get_net_dev_by_params(device, port, pkey, gid, local);
		if (!ndev)
			return NULL;
		net = maybe_get_net(dev_net(ndev));
		*ifindex = ndev->ifindex;
		dev_put(ndev);
		return net;
	}
	if (!rdma_protocol_roce(device, port))
		return get_net(&init_net);
	if (!attr)
		return NULL;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR(ndev)) {
		net = maybe_get_net(dev_net(ndev));
		*ifindex = ndev->ifindex;
	}
	rcu_read_unlock();
	return net;
}

/* Copy a request's paths as the route of the new id. */
static int cma_ib_req_route(struct rdma_id_private *conn_id,
			    const struct ib_cm_req_event_param *req)
{
	struct rdma_route *route = &conn_id->id.route;
	int n = req->alternate_path ? 2 : 1;

	route->path_rec = kcalloc(n, sizeof(*route->path_rec), GFP_KERNEL);
	if (!route->path_rec)
		return -ENOMEM;
	route->path_rec[0] = *req->primary_path;
	if (n == 2)
		route->path_rec[1] = *req->alternate_path;
	route->num_pri_alt_paths = n;
	if (rdma_protocol_roce(conn_id->id.device, conn_id->id.port_num))
		memcpy(route->addr.dev_addr.dst_dev_addr,
		       sa_path_get_dmac(req->primary_path), ETH_ALEN);
	return 0;
}

/*
 * Set up the new id @conn_id of a request on @port: addresses, device,
 * GID reference, route; and the event for its consumer.
 */
static int cma_ib_req_setup(struct rdma_id_private *conn_id,
			    struct rdma_id_private *listen_id,
			    const struct ib_cm_event *ib_ev, u32 port,
			    const struct ib_gid_attr *sgid_attr, int ifindex,
			    struct rdma_cm_event *ev)
{
	struct rdma_dev_addr *dev_addr = &conn_id->id.route.addr.dev_addr;
	const struct ib_cm_req_event_param *req;
	const u8 *pd = ib_ev->private_data;
	u8 hdr_len = cma_ib_hdr_len(listen_id);
	bool roce;
	int ret;

	dev_addr->bound_dev_if = ifindex;
	if (cma_src_addr(conn_id)->sa_family == AF_IB) {
		/*
		 * As in-tree: a SIDR_REQ to a wildcard AF_IB listener has no
		 * source GID to take, and is refused.
		 */
		if (cma_any_addr(cma_src_addr(conn_id)))
			return -ENODEV;
		cma_afib_translate((void *)cma_src_addr(conn_id), dev_addr);
		ret = 0;
	} else {
		ret = cma_addr_translate(cma_src_addr(conn_id), dev_addr);
	}
	/* Native IB without an IPoIB address to go by: device and GID only. */
	if (ret && ifindex)
		return ret;

	/* The listener, pinned by its handler_mutex, keeps its device. */
	if (!listen_id->cma_dev)
		return -ENODEV;
	ret = cma_attach_dev_live(conn_id, listen_id->cma_dev, port);
	if (ret)
		return ret;

	roce = rdma_protocol_roce(conn_id->id.device, port);
	if (sgid_attr) {
		rdma_hold_gid_attr(sgid_attr);
		dev_addr->sgid_attr = sgid_attr;
		conn_id->gid_type = sgid_attr->gid_type;
	}

	ev->event = RDMA_CM_EVENT_CONNECT_REQUEST;
	if (ib_ev->event == IB_CM_SIDR_REQ_RECEIVED) {
		ib_addr_set_pkey(dev_addr, roce ? 0xffff :
				 ib_ev->param.sidr_req_rcvd.pkey);
		ev->param.ud.private_data = pd + hdr_len;
		ev->param.ud.private_data_len =
			IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE - hdr_len;
		return 0;
	}

	req = &ib_ev->param.req_rcvd;
	ib_addr_set_pkey(dev_addr, roce ? 0xffff :
			 be16_to_cpu(req->primary_path->pkey));
	ret = cma_ib_req_route(conn_id, req);
	if (ret)
		return ret;
	if (cma_src_addr(conn_id)->sa_family == AF_IB)
		rdma_addr_set_dgid(dev_addr, &req->primary_path->dgid);
	ev->param.conn.private_data = pd + hdr_len;
	ev->param.conn.private_data_len =
		IB_CM_REQ_PRIVATE_DATA_SIZE - hdr_len;
	ev->param.conn.responder_resources = req->responder_resources;
	ev->param.conn.initiator_depth = req->initiator_depth;
	ev->param.conn.flow_control = req->flow_control;
	ev->param.conn.retry_count = req->retry_count;
	ev->param.conn.rnr_retry_count = req->rnr_retry_count;
	ev->param.conn.srq = req->srq;
	ev->param.conn.qp_num = req->remote_qpn;
	ev->ece = req->ece;
	return 0;
}

/*
 * A REQ or SIDR_REQ on a listening cm_id. @cm_id is the new cm_id of the
 * request; a non-zero return makes ib_cm destroy it (and refuse the peer).
 */
static int cma_ib_req(struct ib_cm_id *cm_id, const struct ib_cm_event *ib_ev)
{
	bool ud = ib_ev->event == IB_CM_SIDR_REQ_RECEIVED;
	struct rdma_id_private *listen_id, *owner, *conn_id;
	struct sockaddr_storage local, remote;
	const struct ib_gid_attr *sgid_attr;
	struct cma_ib_req_key key = {};
	struct rdma_cm_event ev = {};
	int ifindex, ret;
	struct net *net;
	__be64 sid;
	u32 port;

	if (ud) {
		sid = ib_ev->param.sidr_req_rcvd.service_id;
		sgid_attr = ib_ev->param.sidr_req_rcvd.sgid_attr;
		port = ib_ev->param.sidr_req_rcvd.port;
	} else {
		sid = cm_id->service_id;
		sgid_attr = ib_ev->param.req_rcvd.ppath_sgid_attr;
		port = ib_ev->param.req_rcvd.port;
		if (!ib_ev->param.req_rcvd.primary_path) {
			cma_ib_req_dropped();
			return -EINVAL;
		}
	}
	if (!rdma_is_port_valid(cm_id->device, port)) {
		cma_ib_req_dropped();
		return -EINVAL;
	}
	ret = cma_ib_hdr_parse(ib_ev->private_data,
			       ud ? IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE :
				    IB_CM_REQ_PRIVATE_DATA_SIZE,
			       sid, &local, &remote);
	if (ret && ret != -EAFNOSUPPORT) {
		cma_ib_req_dropped();
		return ret;
	}
	if (ret) {
		/* An AF_IB id's request: looked up in the initial namespace. */
		memset(&local, 0, sizeof(local));
		local.ss_family = AF_IB;
		net = get_net(&init_net);
		ifindex = 0;
	} else {
		net = cma_ib_req_net(cm_id->device, port, sgid_attr, ib_ev,
				     (struct sockaddr *)&local, &ifindex);
		if (!net)
			return -ENODEV;
	}
	key.device = cm_id->device;
	key.local = (struct sockaddr *)&local;
	key.port = port;
	key.ud = ud;
	listen_id = cma_ib_find_listener(net, sid, &key);
	if (!listen_id) {
		ret = -ECONNREFUSED;
		goto out_net;
	}

	/*
	 * A per-device child pins its parent (@owner), whose destroy
	 * destroys the child, and so waits for this call to return.
	 */
	owner = listen_id->parent ?: listen_id;
	trace_cm_req_handler(listen_id, ib_ev->event);
	mutex_lock(&listen_id->handler_mutex);
	if (cma_state(listen_id) != RDMA_CM_LISTEN ||
	    cma_state(owner) != RDMA_CM_LISTEN) {
		ret = -ECONNABORTED;
		goto out_unlock;
	}
	conn_id = cma_id_alloc(net, owner->id.event_handler, owner->id.context,
			       owner->id.ps, owner->id.qp_type, owner);
	if (!conn_id) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	mutex_lock_nested(&conn_id->handler_mutex, SINGLE_DEPTH_NESTING);
	conn_id->state = RDMA_CM_CONNECT;
	/* As in-tree, the listener's family says how to read the request. */
	if (cma_src_addr(listen_id)->sa_family == AF_IB) {
		cma_afib_req_addrs(conn_id, (void *)cma_src_addr(listen_id),
				   ud ? NULL : ib_ev->param.req_rcvd.primary_path);
	} else {
		memcpy(cma_src_addr(conn_id), &local, sizeof(local));
		memcpy(cma_dst_addr(conn_id), &remote, sizeof(remote));
	}
	ret = cma_ib_req_setup(conn_id, listen_id, ib_ev, port, sgid_attr,
			       ifindex, &ev);
	if (ret)
		goto err_conn;

	cm_id->context = conn_id;
	cm_id->cm_handler = ud ? cma_ud_handler : cma_ib_handler;
	conn_id->cm_id.ib = cm_id;
	conn_id->cm_is_ib = true;

	ret = cma_deliver(conn_id, &ev);
	if (ret) {
		/* ib_cm destroys @cm_id when we return non-zero. */
		conn_id->cm_id.ib = NULL;
		mutex_unlock(&listen_id->handler_mutex);
		cma_id_put(listen_id);
		put_net(net);
		cma_destroy_handler_locked(conn_id);
		return ret;
	}
	/* Not accepted yet: tell the peer to wait for the consumer. */
	if (!ud && cma_state(conn_id) == RDMA_CM_CONNECT &&
	    !conn_id->ib_replied) {
		trace_cm_send_mra(conn_id);
		ib_send_cm_mra(cm_id, CMA_IB_MRA_SETTING, NULL, 0);
	}
	mutex_unlock(&conn_id->handler_mutex);
	mutex_unlock(&listen_id->handler_mutex);
	cma_id_put(listen_id);
	put_net(net);
	return 0;

err_conn:
	mutex_unlock(&conn_id->handler_mutex);
	mutex_unlock(&listen_id->handler_mutex);
	rdma_destroy_id(&conn_id->id);
	cma_id_put(listen_id);
	put_net(net);
	return ret;

out_unlock:
	mutex_unlock(&listen_id->handler_mutex);
	cma_id_put(listen_id);
out_net:
	put_net(net);
	return ret;
}

/* The handler of a shared listening cm_id (its context is unused). */
VISIBLE_IF_KUNIT int cma_ib_listen_handler(struct ib_cm_id *cm_id,
					   const struct ib_cm_event *ib_ev)
{
	switch (ib_ev->event) {
	case IB_CM_REQ_RECEIVED:
	case IB_CM_SIDR_REQ_RECEIVED:
		return cma_ib_req(cm_id, ib_ev);
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_listen_handler);

int cma_ib_listen(struct rdma_id_private *id_priv)
{
	struct ib_cm_id *cm_id;
	__be64 sid;

	sid = rdma_get_service_id(&id_priv->id, cma_src_addr(id_priv));
	cm_id = ib_cm_insert_listen(id_priv->id.device, cma_ib_listen_handler,
				    sid);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	id_priv->cm_id.ib = cm_id;
	id_priv->cm_is_ib = true;
	return 0;
}

/*
 * Move the id's QP, if the CM owns one, to @state with the attributes of
 * the connection. Before RTR the QP first takes ib_cm's INIT attributes
 * (the access rights the peer negotiated): it went to INIT before there
 * was a connection.
 */
int cma_ib_qp_modify(struct rdma_id_private *id_priv, enum ib_qp_state state)
{
	struct ib_qp_attr attr;
	int mask, ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (!id_priv->id.qp)
		goto out;
	if (state == IB_QPS_RTR) {
		attr.qp_state = IB_QPS_INIT;
		ret = cma_init_qp_attr_locked(id_priv, &attr, &mask);
		if (!ret)
			ret = ib_modify_qp(id_priv->id.qp, &attr, mask);
		if (ret)
			goto out;
	}
	attr.qp_state = state;
	ret = cma_init_qp_attr_locked(id_priv, &attr, &mask);
	if (!ret)
		ret = ib_modify_qp(id_priv->id.qp, &attr, mask);
out:
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

/*
 * The active side's last step: QP to RTR and RTS, then RTU. On failure the
 * connection is refused (REJ) and the QP moved to ERROR.
 */
static int cma_ib_send_rtu(struct rdma_id_private *id_priv)
{
	int ret;

	ret = cma_ib_qp_modify(id_priv, IB_QPS_RTR);
	if (!ret)
		ret = cma_ib_qp_modify(id_priv, IB_QPS_RTS);
	if (!ret) {
		trace_cm_send_rtu(id_priv);
		ret = ib_send_cm_rtu(id_priv->cm_id.ib, NULL, 0);
	}
	if (ret) {
		cma_qp_to_err(id_priv);
		trace_cm_send_rej(id_priv);
		ib_send_cm_rej(id_priv->cm_id.ib, IB_CM_REJ_CONSUMER_DEFINED,
			       NULL, 0, NULL, 0);
	}
	return ret;
}

static void cma_ib_rep_event(struct rdma_cm_event *ev,
			     const struct ib_cm_event *ib_ev)
{
	const struct ib_cm_rep_event_param *rep = &ib_ev->param.rep_rcvd;

	ev->param.conn.private_data = ib_ev->private_data;
	ev->param.conn.private_data_len = IB_CM_REP_PRIVATE_DATA_SIZE;
	ev->param.conn.responder_resources = rep->responder_resources;
	ev->param.conn.initiator_depth = rep->initiator_depth;
	ev->param.conn.flow_control = rep->flow_control;
	ev->param.conn.rnr_retry_count = rep->rnr_retry_count;
	ev->param.conn.srq = rep->srq;
	ev->param.conn.qp_num = rep->remote_qpn;
	ev->ece = rep->ece;
}

/* Events of a connected-mode id's cm_id. */
VISIBLE_IF_KUNIT int cma_ib_handler(struct ib_cm_id *cm_id,
				    const struct ib_cm_event *ib_ev)
{
	struct rdma_id_private *id_priv = cm_id->context;
	struct rdma_cm_event ev = {};
	enum rdma_cm_state state;
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	state = cma_state(id_priv);
	if (ib_ev->event == IB_CM_TIMEWAIT_EXIT ?
	    state != RDMA_CM_DISCONNECT : state != RDMA_CM_CONNECT)
		goto out;

	switch (ib_ev->event) {
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
		/* No answer after the retries: a cached path may be stale. */
		cma_pc_conn_failed(id_priv);
		ev.event = RDMA_CM_EVENT_UNREACHABLE;
		ev.status = -ETIMEDOUT;
		break;
	case IB_CM_REP_RECEIVED:
		/*
		 * As in-tree: a delayed MRA, sent only if the peer repeats its
		 * REP because our RTU is late (a userspace consumer sends it
		 * when it reads CONNECT_RESPONSE): the peer then waits longer
		 * instead of timing the connection out.
		 */
		trace_cm_send_mra(id_priv);
		ib_send_cm_mra(cm_id, CMA_IB_MRA_SETTING, NULL, 0);
		cma_ib_rep_event(&ev, ib_ev);
		if (id_priv->id.qp) {
			ev.status = cma_ib_send_rtu(id_priv);
			ev.event = ev.status ? RDMA_CM_EVENT_CONNECT_ERROR :
					       RDMA_CM_EVENT_ESTABLISHED;
		} else {
			/* The consumer moves its QP, then rdma_accept(). */
			ev.event = RDMA_CM_EVENT_CONNECT_RESPONSE;
		}
		break;
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		ev.event = RDMA_CM_EVENT_ESTABLISHED;
		break;
	case IB_CM_DREQ_ERROR:
		ev.status = -ETIMEDOUT;
		fallthrough;
	case IB_CM_DREQ_RECEIVED:
	case IB_CM_DREP_RECEIVED:
		if (!cma_comp_exch(id_priv, RDMA_CM_CONNECT,
				   RDMA_CM_DISCONNECT))
			goto out;
		/*
		 * A DREQ is answered (DREP) by the consumer's
		 * rdma_disconnect() or destroy, as in-tree: until then the
		 * peer's DISCONNECTED waits.
		 */
		ev.event = RDMA_CM_EVENT_DISCONNECTED;
		break;
	case IB_CM_TIMEWAIT_EXIT:
		ev.event = RDMA_CM_EVENT_TIMEWAIT_EXIT;
		break;
	case IB_CM_REJ_RECEIVED:
		/*
		 * Whatever the reason: a REQ on a stale path reaches whoever
		 * has the old LID now, which refuses it (no listener, or not
		 * its address); the next resolution asks the SA again.
		 */
		cma_pc_conn_failed(id_priv);
		cma_qp_to_err(id_priv);
		ev.event = RDMA_CM_EVENT_REJECTED;
		ev.status = ib_ev->param.rej_rcvd.reason;
		ev.param.conn.private_data = ib_ev->private_data;
		ev.param.conn.private_data_len = IB_CM_REJ_PRIVATE_DATA_SIZE;
		break;
	default:
		/* MRA: ib_cm waits longer itself. LAP/APR: not used. */
		goto out;
	}

	ret = cma_deliver(id_priv, &ev);
	if (ret) {
		/* ib_cm destroys @cm_id when we return non-zero. */
		id_priv->cm_id.ib = NULL;
		cma_destroy_handler_locked(id_priv);
		return ret;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_handler);

int cma_ib_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param)
{
	struct rdma_route *route = &id_priv->id.route;
	struct ib_cm_req_param req = {};
	struct ib_cm_id *cm_id;
	u8 len;
	u8 *pd;
	int ret;

	if (!route->path_rec)
		return -EINVAL;
	pd = cma_ib_req_pdata(id_priv, conn_param, &len);
	if (IS_ERR(pd))
		return PTR_ERR(pd);

	cm_id = ib_create_cm_id(id_priv->id.device, cma_ib_handler, id_priv);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto out_free;
	}
	id_priv->cm_id.ib = cm_id;
	id_priv->cm_is_ib = true;

	req.primary_path = &route->path_rec[0];
	req.primary_path_inbound = route->path_rec_inbound;
	req.primary_path_outbound = route->path_rec_outbound;
	if (route->num_pri_alt_paths == 2)
		req.alternate_path = &route->path_rec[1];
	req.ppath_sgid_attr = route->addr.dev_addr.sgid_attr;
	req.service_id = rdma_get_service_id(&id_priv->id,
					     cma_dst_addr(id_priv));
	req.qp_num = id_priv->qp_num;
	req.qp_type = id_priv->id.qp_type;
	req.starting_psn = id_priv->seq_num;
	req.private_data = pd;
	req.private_data_len = len;
	req.responder_resources = conn_param->responder_resources;
	req.initiator_depth = conn_param->initiator_depth;
	req.flow_control = conn_param->flow_control;
	req.retry_count = min_t(u8, 7, conn_param->retry_count);
	req.rnr_retry_count = min_t(u8, 7, conn_param->rnr_retry_count);
	/* The port's or the namespace's values (cm_timers.c): in-tree's by default. */
	req.remote_cm_response_timeout = cma_cm_response_timeout(id_priv);
	req.local_cm_response_timeout = req.remote_cm_response_timeout;
	req.max_cm_retries = cma_cm_max_retries(id_priv);
	req.srq = id_priv->srq ? 1 : 0;
	req.ece.vendor_id = id_priv->ece.vendor_id;
	req.ece.attr_mod = id_priv->ece.attr_mod;

	trace_cm_send_req(id_priv);
	ret = ib_send_cm_req(cm_id, &req);
	if (ret) {
		/* Nothing was sent: no event can be under way. */
		id_priv->cm_id.ib = NULL;
		ib_destroy_cm_id(cm_id);
	}
out_free:
	kfree(pd);
	return ret;
}

int cma_ib_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *conn_param)
{
	struct ib_cm_rep_param rep = {};
	int ret;

	if (id_priv->id.qp_type == IB_QPT_UD) {
		if (!conn_param)
			return cma_ud_reply(id_priv, IB_SIDR_SUCCESS, 0,
					    NULL, 0);
		return cma_ud_reply(id_priv, IB_SIDR_SUCCESS, conn_param->qkey,
				    conn_param->private_data,
				    conn_param->private_data_len);
	}
	/* The active side with a QP of its own: it is ready, send RTU. */
	if (!conn_param)
		return cma_ib_send_rtu(id_priv);

	ret = cma_ib_qp_modify(id_priv, IB_QPS_RTR);
	if (ret)
		return ret;
	ret = cma_ib_qp_modify(id_priv, IB_QPS_RTS);
	if (ret)
		return ret;

	rep.qp_num = id_priv->qp_num;
	rep.starting_psn = id_priv->seq_num;
	rep.private_data = conn_param->private_data;
	rep.private_data_len = conn_param->private_data_len;
	rep.responder_resources = conn_param->responder_resources;
	rep.initiator_depth = conn_param->initiator_depth;
	rep.failover_accepted = 0;
	rep.flow_control = conn_param->flow_control;
	rep.rnr_retry_count = min_t(u8, 7, conn_param->rnr_retry_count);
	rep.srq = id_priv->srq ? 1 : 0;
	rep.ece.vendor_id = id_priv->ece.vendor_id;
	rep.ece.attr_mod = id_priv->ece.attr_mod;
	trace_cm_send_rep(id_priv);
	ret = ib_send_cm_rep(id_priv->cm_id.ib, &rep);
	if (!ret)
		id_priv->ib_replied = true;
	return ret;
}

int cma_ib_reject(struct rdma_id_private *id_priv, const void *pd,
		  u8 pd_len, u8 reason)
{
	if (id_priv->id.qp_type == IB_QPT_UD)
		return cma_ud_reply(id_priv, IB_SIDR_REJECT, 0, pd, pd_len);
	id_priv->ib_replied = true;
	trace_cm_send_rej(id_priv);
	return ib_send_cm_rej(id_priv->cm_id.ib, reason, NULL, 0, pd, pd_len);
}

/* Start a disconnect (DREQ) or answer the peer's (DREP). */
int cma_ib_disconnect(struct rdma_id_private *id_priv)
{
	cma_qp_to_err(id_priv);
	trace_cm_disconnect(id_priv);
	if (!ib_send_cm_dreq(id_priv->cm_id.ib, NULL, 0))
		trace_cm_sent_dreq(id_priv);
	else if (!ib_send_cm_drep(id_priv->cm_id.ib, NULL, 0))
		trace_cm_sent_drep(id_priv);
	return 0;
}

/* Apply the consumer's ACK timeout and minimum RNR timer; qp_mutex. */
void cma_ib_apply_timers(struct rdma_id_private *id_priv,
			 struct ib_qp_attr *qp_attr, int qp_attr_mask)
{
	lockdep_assert_held(&id_priv->qp_mutex);
	if ((qp_attr_mask & IB_QP_TIMEOUT) && id_priv->timeout_set)
		qp_attr->timeout = id_priv->timeout;
	if ((qp_attr_mask & IB_QP_MIN_RNR_TIMER) && id_priv->min_rnr_timer_set)
		qp_attr->min_rnr_timer = id_priv->min_rnr_timer;
}

/*
 * QP attributes on an IB/RoCE port. Before a connection exists (and for
 * UD, always) only the INIT attributes are ours to give: P_Key index,
 * port, and the access flags or the Q_Key; ib_cm gives the rest. Called
 * with qp_mutex held.
 */
int cma_ib_init_qp_attr(struct rdma_id_private *id_priv,
			struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct rdma_cm_id *id = &id_priv->id;
	u16 pkey, pkey_index;
	int ret;

	lockdep_assert_held(&id_priv->qp_mutex);
	if (cma_has_ib_cm(id_priv) && id->qp_type != IB_QPT_UD) {
		ret = ib_cm_init_qp_attr(id_priv->cm_id.ib, qp_attr,
					 qp_attr_mask);
		if (ret)
			return ret;
		/*
		 * Our receive PSN is the starting PSN we send (in the REQ,
		 * or the REP): a passive QP goes to RTR before its REP.
		 */
		if (qp_attr->qp_state == IB_QPS_RTR)
			qp_attr->rq_psn = id_priv->seq_num;
		cma_ib_apply_timers(id_priv, qp_attr, *qp_attr_mask);
		return 0;
	}

	pkey = rdma_protocol_roce(id->device, id->port_num) ? 0xffff :
	       ib_addr_get_pkey(dev_addr);
	ret = ib_find_cached_pkey(id->device, id->port_num, pkey, &pkey_index);
	if (ret)
		return ret;
	qp_attr->pkey_index = pkey_index;
	qp_attr->port_num = id->port_num;
	*qp_attr_mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	if (id->qp_type == IB_QPT_UD) {
		ret = cma_ud_set_qkey(id_priv, 0);
		if (ret)
			return ret;
		qp_attr->qkey = id_priv->qkey;
		*qp_attr_mask |= IB_QP_QKEY;
	} else {
		qp_attr->qp_access_flags = 0;
		*qp_attr_mask |= IB_QP_ACCESS_FLAGS;
	}
	return 0;
}
