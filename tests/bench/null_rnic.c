// SPDX-License-Identifier: GPL-2.0
/*
 * null_rnic: an iWARP RNIC that connects at once, for measuring the CM
 * alone (tools/bench/guest.sh, the "null" rows of `make bench`).
 *
 *   insmod null_rnic.ko netdev=<ifname>
 *
 * registers "nullrnic0" on the netdev (in the initial namespace). It does
 * no TCP and no MPA: iw_connect() looks the listener up in a hash by port
 * and queues the CONNECT_REQUEST; iw_accept() queues ESTABLISHED for the
 * passive id and CONNECT_REPLY for the active one; moving a connected QP
 * to SQD or ERR queues DISCONNECT and CLOSE for the peer and CLOSE for the
 * closer. Events go through one ordered workqueue, as an RNIC's event
 * queue would deliver them, so what a connection costs over this device is
 * the cost of rdma_cm, iw_cm and ib_core's verbs with a constant, small
 * provider share that is the same for both stacks. No data moves: posting
 * a work request fails.
 *
 * It uses exported ib_core calls only and loads under the in-tree CM and
 * under ours. Its ops and its event queue are marked for cm_acct.ko (the
 * driver's share of the CPU time); the upcalls into the CM are the CM's.
 *
 * port_map=1 registers it without IW_F_NO_PORT_MAP, as cxgb4 and irdma
 * are: iw_cm then runs its port mapper for it, and the device works on the
 * mapped addresses (m_local_addr, m_remote_addr) as an offloaded RNIC's
 * TCP stack would, so a connection only finds its listener when both
 * sides' mappings agree (tests/e2e/iwpm-null.sh).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/hashtable.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "cm_acct.h"
#include "mock_rnic_ops.h"

#define NR_PDATA_MAX	256	/* private data an event carries, at most */

static char *netdev = "nr0";
module_param(netdev, charp, 0444);
MODULE_PARM_DESC(netdev, "the netdev the device sits on");

static bool port_map;
module_param(port_map, bool, 0444);
MODULE_PARM_DESC(port_map, "1: no IW_F_NO_PORT_MAP (iw_cm maps its ports)");

struct nr_dev {
	struct ib_device ibdev;
	struct workqueue_struct *wq;	/* the event queue, ordered */
	spinlock_t lock;		/* listeners, conn of every QP */
	DECLARE_HASHTABLE(listeners, 10);	/* nr_listener by port */
	struct xarray qps;		/* qpn -> nr_qp */
	u8 mac[ETH_ALEN];		/* of the netdev, the GID */
};

struct nr_listener {
	struct hlist_node node;
	struct iw_cm_id *id;
};

struct nr_conn;

struct nr_qp {
	struct ib_qp ibqp;
	struct nr_conn *conn;		/* nr_dev.lock */
};

/*
 * One connection: two ids once accepted. References: one while it is
 * alive (from iw_connect() to its close, reject or refusal) and one for
 * each event queued for it.
 */
struct nr_conn {
	struct kref ref;
	struct iw_cm_id *active;	/* a reference while set */
	struct iw_cm_id *passive;	/* a reference while set */
	struct nr_qp *aqp, *pqp;	/* nr_dev.lock */
	bool closed;			/* nr_dev.lock */
	u8 ird, ord;
};

/* One event for one id: the id and the connection stay referenced. */
struct nr_event {
	struct work_struct work;
	struct iw_cm_id *id;
	struct nr_conn *conn;		/* NULL for a refusal without one */
	struct iw_cm_event ev;
	bool drop_id;			/* rem_ref the id after delivery */
	u8 phase;			/* enum cm_acct_phase of the upcall */
	u8 pdata[NR_PDATA_MAX];
};

struct nr_pd {
	struct ib_pd ibpd;
};

struct nr_cq {
	struct ib_cq ibcq;
};

static struct nr_dev *nr;

static void nr_conn_free(struct kref *ref)
{
	kfree(container_of(ref, struct nr_conn, ref));
}

static int nr_iw_reject(struct iw_cm_id *id, const void *pdata, u8 len);

static void nr_event_fn(struct work_struct *work)
{
	struct nr_event *e = container_of(work, struct nr_event, work);
	int ret;

	/* The upcall is the CM's; this work item around it is ours. */
	cm_acct_push(CMA_CM, e->phase);
	ret = e->id->event_handler(e->id, &e->ev);
	cm_acct_pop();
	/*
	 * A listener that takes no more requests (its backlog is full) says
	 * so here: the RNIC refuses the connection, as a TCP RST would.
	 */
	if (ret && e->ev.event == IW_CM_EVENT_CONNECT_REQUEST) {
		struct iw_cm_id none = { .provider_data = e->conn };

		nr_iw_reject(&none, NULL, 0);
	}
	if (e->drop_id) {
		cm_acct_push(CMA_CM, e->phase);
		e->id->rem_ref(e->id);
		cm_acct_pop();
	}
	if (e->conn)
		kref_put(&e->conn->ref, nr_conn_free);
	kfree(e);
}

/*
 * An event @type for @id with @status and private data; the addresses are
 * the id's own (local, remote), IRD/ORD the connection's. @drop_id: the
 * connection lets @id go after this one. @phase: what part of a connection
 * the upcall serves (cm_acct). Queue it with queue_work().
 */
static struct nr_event *nr_event_new(struct iw_cm_id *id,
				     struct nr_conn *conn,
				     enum iw_cm_event_type type, int status,
				     const void *pdata, u8 len, bool drop_id,
				     enum cm_acct_phase phase, gfp_t gfp)
{
	struct nr_event *e;

	e = kzalloc(sizeof(*e), gfp);
	if (!e)
		return NULL;
	INIT_WORK(&e->work, nr_event_fn);
	e->id = id;
	e->conn = conn;
	if (conn)
		kref_get(&conn->ref);
	e->drop_id = drop_id;
	e->phase = phase;
	e->ev.event = type;
	e->ev.status = status;
	e->ev.local_addr = id->m_local_addr;
	e->ev.remote_addr = id->m_remote_addr;
	if (len) {
		memcpy(e->pdata, pdata, len);
		e->ev.private_data = e->pdata;
		e->ev.private_data_len = len;
	}
	if (conn) {
		e->ev.ird = conn->ird;
		e->ev.ord = conn->ord;
	}
	return e;
}

/* nr_event_new() and queue it; from any context. */
static int nr_queue(struct iw_cm_id *id, struct nr_conn *conn,
		    enum iw_cm_event_type type, int status,
		    const void *pdata, u8 len, bool drop_id,
		    enum cm_acct_phase phase)
{
	struct nr_event *e;

	e = nr_event_new(id, conn, type, status, pdata, len, drop_id, phase,
			 GFP_ATOMIC);
	if (!e)
		return -ENOMEM;
	queue_work(nr->wq, &e->work);
	return 0;
}

static u16 nr_port(const struct sockaddr_storage *ss)
{
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

/* Does a listener on @l take a connection to @dst? */
static bool nr_addr_takes(const struct sockaddr_storage *l,
			  const struct sockaddr_storage *dst)
{
	const struct sockaddr_in6 *l6 = (const void *)l, *d6 = (const void *)dst;
	const struct sockaddr_in *l4 = (const void *)l, *d4 = (const void *)dst;

	if (l->ss_family == AF_INET6 && ipv6_addr_any(&l6->sin6_addr))
		return true;
	if (l->ss_family != dst->ss_family)
		return false;
	if (l->ss_family == AF_INET)
		return !l4->sin_addr.s_addr ||
		       l4->sin_addr.s_addr == d4->sin_addr.s_addr;
	return ipv6_addr_equal(&l6->sin6_addr, &d6->sin6_addr);
}

/* The listener for @dst, with a reference; NULL if none. */
static struct iw_cm_id *nr_find_listener(const struct sockaddr_storage *dst)
{
	struct nr_listener *l;
	struct iw_cm_id *found = NULL;

	spin_lock_bh(&nr->lock);
	hash_for_each_possible(nr->listeners, l, node, nr_port(dst)) {
		if (nr_port(&l->id->m_local_addr) == nr_port(dst) &&
		    nr_addr_takes(&l->id->m_local_addr, dst)) {
			found = l->id;
			found->add_ref(found);
			break;
		}
	}
	spin_unlock_bh(&nr->lock);
	return found;
}

static struct nr_qp *nr_get_qp(u32 qpn)
{
	return xa_load(&nr->qps, qpn);
}

static int nr_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct iw_cm_id *listener;
	struct nr_event *e;
	struct nr_conn *conn;
	struct nr_qp *qp;

	if (p->private_data_len > NR_PDATA_MAX)
		return -EINVAL;
	qp = nr_get_qp(p->qpn);
	if (!qp)
		return -EINVAL;
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return -ENOMEM;
	kref_init(&conn->ref);
	conn->ird = p->ird;
	conn->ord = p->ord;
	id->add_ref(id);
	conn->active = id;
	spin_lock_bh(&nr->lock);
	conn->aqp = qp;
	qp->conn = conn;
	spin_unlock_bh(&nr->lock);

	listener = nr_find_listener(&id->m_remote_addr);
	if (!listener) {
		/* As a TCP RST would: refused, and the connection is gone. */
		spin_lock_bh(&nr->lock);
		qp->conn = NULL;
		conn->aqp = NULL;
		conn->active = NULL;
		spin_unlock_bh(&nr->lock);
		nr_queue(id, conn, IW_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED,
			 NULL, 0, true, CMA_P_CONNECT);
		kref_put(&conn->ref, nr_conn_free);
		return 0;
	}

	/* The listener's reference, taken by the lookup, goes with it. */
	e = nr_event_new(listener, conn, IW_CM_EVENT_CONNECT_REQUEST, 0,
			 p->private_data, p->private_data_len, true,
			 CMA_P_REQ, GFP_KERNEL);
	if (!e) {
		listener->rem_ref(listener);
		spin_lock_bh(&nr->lock);
		qp->conn = NULL;
		spin_unlock_bh(&nr->lock);
		id->rem_ref(id);
		kref_put(&conn->ref, nr_conn_free);
		return -ENOMEM;
	}
	/* The connection's addresses, as the passive side sees them. */
	e->ev.local_addr = id->m_remote_addr;
	e->ev.remote_addr = id->m_local_addr;
	e->ev.provider_data = conn;
	queue_work(nr->wq, &e->work);
	return 0;
}

static int nr_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct nr_conn *conn = id->provider_data;
	struct iw_cm_id *active;
	struct nr_qp *qp;

	if (!conn || p->private_data_len > NR_PDATA_MAX)
		return -EINVAL;
	qp = nr_get_qp(p->qpn);
	if (!qp)
		return -EINVAL;
	id->add_ref(id);
	spin_lock_bh(&nr->lock);
	conn->passive = id;
	conn->pqp = qp;
	qp->conn = conn;
	active = conn->active;
	spin_unlock_bh(&nr->lock);
	conn->ird = p->ird;
	conn->ord = p->ord;
	nr_queue(id, conn, IW_CM_EVENT_ESTABLISHED, 0, NULL, 0, false,
		 CMA_P_ACCEPT);
	if (active)
		nr_queue(active, conn, IW_CM_EVENT_CONNECT_REPLY, 0,
			 p->private_data, p->private_data_len, false,
			 CMA_P_CONNECT);
	id->provider_data = NULL;
	return 0;
}

static int nr_iw_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
	struct nr_conn *conn = id->provider_data;
	struct iw_cm_id *active;

	if (!conn)
		return -EINVAL;
	id->provider_data = NULL;
	spin_lock_bh(&nr->lock);
	active = conn->active;
	conn->active = NULL;
	if (conn->aqp)
		conn->aqp->conn = NULL;
	conn->aqp = NULL;
	spin_unlock_bh(&nr->lock);
	if (active)
		nr_queue(active, conn, IW_CM_EVENT_CONNECT_REPLY,
			 -ECONNREFUSED, pdata, len, true, CMA_P_CONNECT);
	kref_put(&conn->ref, nr_conn_free);	/* no longer alive */
	return 0;
}

/*
 * A connected QP goes to SQD (a graceful close) or ERR: the peer hears a
 * DISCONNECT and both ends a CLOSE, once, after which the connection lets
 * both ids go.
 */
static void nr_close(struct nr_qp *qp)
{
	enum cm_acct_phase lph, pph;
	struct iw_cm_id *local, *peer;
	struct nr_conn *conn;

	spin_lock_bh(&nr->lock);
	conn = qp->conn;
	if (!conn || conn->closed || !conn->passive || !conn->active) {
		spin_unlock_bh(&nr->lock);
		return;
	}
	conn->closed = true;
	local = qp == conn->aqp ? conn->active : conn->passive;
	peer = qp == conn->aqp ? conn->passive : conn->active;
	lph = qp == conn->aqp ? CMA_P_DISC : CMA_P_PDOWN;
	pph = qp == conn->aqp ? CMA_P_PDOWN : CMA_P_DISC;
	if (conn->aqp)
		conn->aqp->conn = NULL;
	if (conn->pqp)
		conn->pqp->conn = NULL;
	conn->aqp = NULL;
	conn->pqp = NULL;
	conn->active = NULL;
	conn->passive = NULL;
	spin_unlock_bh(&nr->lock);

	nr_queue(peer, conn, IW_CM_EVENT_DISCONNECT, 0, NULL, 0, false, pph);
	nr_queue(peer, conn, IW_CM_EVENT_CLOSE, 0, NULL, 0, true, pph);
	nr_queue(local, conn, IW_CM_EVENT_CLOSE, 0, NULL, 0, true, lph);
	kref_put(&conn->ref, nr_conn_free);	/* no longer alive */
}

static int nr_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct nr_listener *l;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->id = id;
	id->provider_data = l;
	spin_lock_bh(&nr->lock);
	hash_add(nr->listeners, &l->node, nr_port(&id->m_local_addr));
	spin_unlock_bh(&nr->lock);
	return 0;
}

static int nr_iw_destroy_listen(struct iw_cm_id *id)
{
	struct nr_listener *l = id->provider_data;

	spin_lock_bh(&nr->lock);
	hash_del(&l->node);
	spin_unlock_bh(&nr->lock);
	id->provider_data = NULL;
	kfree(l);
	return 0;
}

static void nr_iw_qp_ref(struct ib_qp *qp)
{
}

static struct ib_qp *nr_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct nr_qp *qp = nr_get_qp(qpn);

	return qp ? &qp->ibqp : NULL;
}

/* As siw: the GID is the netdev's MAC, which is how in-tree finds the port. */
static int nr_query_gid(struct ib_device *ibdev, u32 port, int idx,
			union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, nr->mac, ETH_ALEN);
	return 0;
}

static int nr_query_device(struct ib_device *ibdev,
			   struct ib_device_attr *attr, struct ib_udata *udata)
{
	memset(attr, 0, sizeof(*attr));
	attr->max_qp = 1 << 20;
	attr->max_qp_wr = 1024;
	attr->max_send_sge = 4;
	attr->max_recv_sge = 4;
	attr->max_cq = 1 << 20;
	attr->max_cqe = 1 << 16;
	attr->max_pd = 1 << 20;
	attr->max_qp_init_rd_atom = 16;
	attr->max_qp_rd_atom = 16;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	return 0;
}

static int nr_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
			struct ib_udata *udata)
{
	struct nr_qp *qp = container_of(ibqp, struct nr_qp, ibqp);
	u32 qpn;
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	ret = xa_alloc(&nr->qps, &qpn, qp, XA_LIMIT(1, INT_MAX), GFP_KERNEL);
	if (ret)
		return ret;
	ibqp->qp_num = qpn;
	return 0;
}

static int nr_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
			struct ib_udata *udata)
{
	if ((mask & IB_QP_STATE) &&
	    (attr->qp_state == IB_QPS_SQD || attr->qp_state == IB_QPS_ERR))
		nr_close(container_of(ibqp, struct nr_qp, ibqp));
	return 0;
}

static int nr_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct nr_qp *qp = container_of(ibqp, struct nr_qp, ibqp);

	nr_close(qp);
	spin_lock_bh(&nr->lock);
	if (qp->conn) {
		if (qp->conn->aqp == qp)
			qp->conn->aqp = NULL;
		if (qp->conn->pqp == qp)
			qp->conn->pqp = NULL;
		qp->conn = NULL;
	}
	spin_unlock_bh(&nr->lock);
	xa_erase(&nr->qps, ibqp->qp_num);
	return 0;
}

static int nr_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			struct uverbs_attr_bundle *attrs)
{
	return attrs ? -EOPNOTSUPP : 0;
}

/*
 * The ops the core calls for every connection, each in a driver region of
 * cm_acct: their time is the driver's, not the CM's.
 */
#define NR_DRV(call) ({						\
	typeof(call) __r;						\
	cm_acct_push(CMA_DRIVER, CMA_P_ASYNC);				\
	__r = (call);							\
	cm_acct_pop();							\
	__r;								\
})

static int nr_op_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	return NR_DRV(nr_iw_connect(id, p));
}

static int nr_op_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	return NR_DRV(nr_iw_accept(id, p));
}

static int nr_op_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
	return NR_DRV(nr_iw_reject(id, pdata, len));
}

static int nr_op_create_listen(struct iw_cm_id *id, int backlog)
{
	return NR_DRV(nr_iw_create_listen(id, backlog));
}

static int nr_op_destroy_listen(struct iw_cm_id *id)
{
	return NR_DRV(nr_iw_destroy_listen(id));
}

static struct ib_qp *nr_op_get_qp(struct ib_device *ibdev, int qpn)
{
	return NR_DRV(nr_iw_get_qp(ibdev, qpn));
}

static int nr_op_query_gid(struct ib_device *ibdev, u32 port, int idx,
			   union ib_gid *gid)
{
	return NR_DRV(nr_query_gid(ibdev, port, idx, gid));
}

static int nr_op_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
			   struct ib_udata *udata)
{
	return NR_DRV(nr_create_qp(ibqp, attr, udata));
}

static int nr_op_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	return NR_DRV(nr_modify_qp(ibqp, attr, mask, udata));
}

static int nr_op_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return NR_DRV(nr_destroy_qp(ibqp, udata));
}

static const struct ib_device_ops nr_ops = {
	.owner = THIS_MODULE,
	MOCK_RNIC_COMMON_OPS,
	.query_device = nr_query_device,
	.query_gid = nr_op_query_gid,
	.iw_connect = nr_op_connect,
	.iw_accept = nr_op_accept,
	.iw_reject = nr_op_reject,
	.iw_create_listen = nr_op_create_listen,
	.iw_destroy_listen = nr_op_destroy_listen,
	.iw_add_ref = nr_iw_qp_ref,
	.iw_rem_ref = nr_iw_qp_ref,
	.iw_get_qp = nr_op_get_qp,
	.create_qp = nr_op_create_qp,
	.modify_qp = nr_op_modify_qp,
	.destroy_qp = nr_op_destroy_qp,
	.create_cq = nr_create_cq,
	INIT_RDMA_OBJ_SIZE(ib_cq, nr_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, nr_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, nr_qp, ibqp),
};

static int __init nr_init(void)
{
	struct net_device *ndev;
	int ret;

	ndev = dev_get_by_name(&init_net, netdev);
	if (!ndev)
		return -ENODEV;
	nr = ib_alloc_device(nr_dev, ibdev);
	if (!nr) {
		ret = -ENOMEM;
		goto err_ndev;
	}
	spin_lock_init(&nr->lock);
	ether_addr_copy(nr->mac, ndev->dev_addr);
	hash_init(nr->listeners);
	xa_init_flags(&nr->qps, XA_FLAGS_ALLOC1);
	nr->wq = alloc_ordered_workqueue("null_rnic", WQ_MEM_RECLAIM);
	if (!nr->wq) {
		ret = -ENOMEM;
		goto err_dev;
	}
	nr->ibdev.node_type = RDMA_NODE_RNIC;
	nr->ibdev.phys_port_cnt = 1;
	nr->ibdev.num_comp_vectors = 1;
	nr->ibdev.iw_driver_flags = port_map ? 0 : IW_F_NO_PORT_MAP;
	strscpy(nr->ibdev.iw_ifname, ndev->name, sizeof(nr->ibdev.iw_ifname));
	ib_set_device_ops(&nr->ibdev, &nr_ops);
	ret = ib_device_set_netdev(&nr->ibdev, ndev, 1);
	if (ret)
		goto err_wq;
	ret = ib_register_device(&nr->ibdev, "nullrnic%d", NULL);
	if (ret)
		goto err_wq;
	dev_put(ndev);
	return 0;

err_wq:
	destroy_workqueue(nr->wq);
err_dev:
	ib_dealloc_device(&nr->ibdev);
err_ndev:
	dev_put(ndev);
	return ret;
}

static void __exit nr_exit(void)
{
	ib_unregister_device(&nr->ibdev);
	destroy_workqueue(nr->wq);
	ib_dealloc_device(&nr->ibdev);
}

module_init(nr_init);
module_exit(nr_exit);
MODULE_DESCRIPTION("An iWARP RNIC that connects at once, for CM benchmarks");
MODULE_LICENSE("GPL");
