// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of rdma_cm with a real (registered) RDMA device: a mock iWARP
 * RNIC registered with the stock ib_core, whose iw_* ops record what iw_cm
 * asks of them and let a test play the peer (a CONNECT_REQUEST on a
 * listener). These cover the device lifetime paths that only kernel ULPs
 * reach: DEVICE_REMOVAL handlers that return non-zero (nvmet-rdma returns
 * 1, isert -1), removal racing with destroy, wildcard listeners and their
 * per-device children, loopback destinations.
 *
 * A step that could hang (device unregistration, destroy) runs in a kthread
 * and is waited for with a deadline, so a regression fails the test rather
 * than the VM.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "rdma_cm/cma_priv.h"
#include "mock_rnic_ops.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define MOCK_PORT	7400

/* A port of each test's own: a failed test leaves no binding to the next. */
static u16 cmk_port(void)
{
	static atomic_t next = ATOMIC_INIT(0);

	return MOCK_PORT + atomic_inc_return(&next);
}

#define DEADLINE	(10 * HZ)

#define MOCK_QPN	7
#define MOCK_STATES	8

/* The mock RNIC. */
struct mock_dev {
	struct ib_device ibdev;
	int listen_ret;			/* what iw_create_listen returns */
	int accept_ret;			/* what iw_accept returns */
	atomic_t n_listen, n_unlisten, n_reject;
	struct iw_cm_id *listener;	/* last iw_create_listen()ed id */
	struct ib_qp *qp;		/* the one QP, number MOCK_QPN */
	bool registered, hung;
	/* The states the QP was moved to, in order. */
	enum ib_qp_state qp_states[MOCK_STATES];
	int nr_qp_states;
};

struct mock_pd {
	struct ib_pd ibpd;
};

struct mock_qp {
	struct ib_qp ibqp;
};

struct mock_cq {
	struct ib_cq ibcq;
};

static struct mock_dev *to_mock(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mock_dev, ibdev);
}

static int mock_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *attr, struct ib_udata *udata)
{
	memset(attr, 0, sizeof(*attr));
	attr->max_qp = 16;
	attr->max_qp_init_rd_atom = 4;
	attr->max_qp_rd_atom = 4;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	return 0;
}

static int mock_query_gid(struct ib_device *ibdev, u32 port, int idx,
			  union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	return 0;
}

static int mock_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			  struct ib_udata *udata)
{
	struct mock_dev *mock = to_mock(qp->device);

	if (mock->qp)
		return -ENOSPC;
	qp->qp_num = MOCK_QPN;
	mock->qp = qp;
	mock->nr_qp_states = 0;
	return 0;
}

static int mock_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata)
{
	struct mock_dev *mock = to_mock(qp->device);

	if ((mask & IB_QP_STATE) && mock->nr_qp_states < MOCK_STATES)
		mock->qp_states[mock->nr_qp_states++] = attr->qp_state;
	return 0;
}

static int mock_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	to_mock(qp->device)->qp = NULL;
	return 0;
}

static int mock_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			  struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}

static int mock_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	return -EOPNOTSUPP;
}

static int mock_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	return to_mock(id->device)->accept_ret;
}

static int mock_iw_reject(struct iw_cm_id *id, const void *pd, u8 len)
{
	atomic_inc(&to_mock(id->device)->n_reject);
	return 0;
}

static int mock_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct mock_dev *mock = to_mock(id->device);

	if (mock->listen_ret)
		return mock->listen_ret;
	atomic_inc(&mock->n_listen);
	WRITE_ONCE(mock->listener, id);
	return 0;
}

static int mock_iw_destroy_listen(struct iw_cm_id *id)
{
	struct mock_dev *mock = to_mock(id->device);

	atomic_inc(&mock->n_unlisten);
	cmpxchg(&mock->listener, id, NULL);
	return 0;
}

static void mock_iw_ref(struct ib_qp *qp)
{
}

static struct ib_qp *mock_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	return qpn == MOCK_QPN ? to_mock(ibdev)->qp : NULL;
}

static const struct ib_device_ops mock_ops = {
	.owner = THIS_MODULE,
	MOCK_RNIC_COMMON_OPS,
	.query_device = mock_query_device,
	.query_gid = mock_query_gid,
	.iw_connect = mock_iw_connect,
	.iw_accept = mock_iw_accept,
	.iw_reject = mock_iw_reject,
	.iw_create_listen = mock_iw_create_listen,
	.iw_destroy_listen = mock_iw_destroy_listen,
	.iw_add_ref = mock_iw_ref,
	.iw_rem_ref = mock_iw_ref,
	.iw_get_qp = mock_iw_get_qp,
	.create_qp = mock_create_qp,
	.modify_qp = mock_modify_qp,
	.destroy_qp = mock_destroy_qp,
	.create_cq = mock_create_cq,
	INIT_RDMA_OBJ_SIZE(ib_cq, mock_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, mock_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mock_qp, ibqp),
};

static void mock_release(void *arg)
{
	struct mock_dev *mock = arg;

	if (mock->hung)
		return;	/* its unregistration never returned: leave it */
	if (mock->registered)
		ib_unregister_device(&mock->ibdev);
	ib_dealloc_device(&mock->ibdev);
}

/*
 * The mock, registered on @ndev. Test-managed: a test that ends early still
 * unregisters it (a device left registered would call into this module
 * after it is unloaded).
 */
static struct mock_dev *mock_register(struct kunit *test,
				      struct net_device *ndev)
{
	struct mock_dev *mock;
	int ret;

	mock = ib_alloc_device(mock_dev, ibdev);
	KUNIT_ASSERT_NOT_NULL(test, mock);
	mock->ibdev.node_type = RDMA_NODE_RNIC;
	mock->ibdev.phys_port_cnt = 1;
	mock->ibdev.num_comp_vectors = 1;
	ib_set_device_ops(&mock->ibdev, &mock_ops);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, mock_release, mock));
	ret = ib_device_set_netdev(&mock->ibdev, ndev, 1);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "ib_device_set_netdev");
	ret = ib_register_device(&mock->ibdev, "orcmk%d", NULL);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "ib_register_device");
	mock->registered = true;
	return mock;
}

/* A netdev of our own (no RDMA device sits on it unless a test says so). */
static netdev_tx_t cmk_ndev_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops cmk_ndev_ops = {
	.ndo_start_xmit = cmk_ndev_xmit,
};

static void cmk_ndev_release(void *ndev)
{
	unregister_netdev(ndev);
	free_netdev(ndev);
}

static struct net_device *cmk_ndev(struct kunit *test)
{
	struct net_device *ndev;

	ndev = alloc_netdev(0, "orcmk%d", NET_NAME_ENUM, ether_setup);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	ndev->netdev_ops = &cmk_ndev_ops;
	eth_hw_addr_random(ndev);
	if (register_netdev(ndev)) {
		free_netdev(ndev);
		KUNIT_FAIL_AND_ABORT(test, "register_netdev");
	}
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, cmk_ndev_release, ndev));
	return ndev;
}

/* Run @fn(@arg) in a kthread; true if it returned within DEADLINE. */
struct cmk_call {
	void (*fn)(void *arg);
	void *arg;
	struct completion done;
};

static int cmk_call_fn(void *data)
{
	struct cmk_call *c = data;

	c->fn(c->arg);
	complete(&c->done);
	return 0;
}

static struct cmk_call *cmk_start(struct kunit *test, void (*fn)(void *),
				  void *arg)
{
	struct cmk_call *c;
	struct task_struct *t;

	/* Not test-managed: a call that never returns keeps using it. */
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->fn = fn;
	c->arg = arg;
	init_completion(&c->done);
	t = kthread_run(cmk_call_fn, c, "cmk_call");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	return c;
}

/* Wait for @c; frees it only if it finished (else it is leaked, on purpose). */
static bool cmk_wait(struct cmk_call *c, unsigned long timeout)
{
	if (!wait_for_completion_timeout(&c->done, timeout))
		return false;
	kfree(c);
	return true;
}

static void cmk_unregister(void *mock)
{
	ib_unregister_device(&((struct mock_dev *)mock)->ibdev);
}

static void cmk_destroy_id(void *id)
{
	rdma_destroy_id(id);
}

/* The unregistration @c of @mock ended; the cleanup action frees it. */
static void cmk_unregistered(struct kunit *test, struct mock_dev *mock,
			     struct cmk_call *c)
{
	if (!cmk_wait(c, DEADLINE)) {
		mock->hung = true;
		KUNIT_FAIL_AND_ABORT(test, "ib_unregister_device() hung");
	}
	mock->registered = false;
}

/* Unregister the mock, bounded. */
static void mock_unregister(struct kunit *test, struct mock_dev *mock)
{
	cmk_unregistered(test, mock, cmk_start(test, cmk_unregister, mock));
}

static void cmk_dealloc_pd(void *pd)
{
	ib_dealloc_pd(pd);
}

/* What a test's consumer sees, and how it answers. */
struct cmk_consumer {
	struct kunit *test;
	atomic_t n_events[RDMA_CM_EVENT_ADDR_CHANGE + 8];
	int removal_ret;		/* returned for DEVICE_REMOVAL */
	bool destroy_on_removal;	/* ret 0: destroy from a work item */
	struct work_struct destroy_work;
	struct rdma_cm_id *id;
	struct completion resolved;
	int addr_status;
	/* CONNECT_REQUEST: enter, then wait for @go; refuse (non-zero). */
	struct completion req_entered, req_go;
	bool req_block;
	/* CONNECT_REQUEST: with @pd, create a QP and accept; results. */
	struct ib_pd *pd;
	int create_qp_ret, accept_ret;
	atomic_t n_req_done;		/* CONNECT_REQUEST handlers returned */
	/* CONNECT_REQUEST: rdma_destroy_id() the new id, return @req_ret. */
	bool req_destroy_self;
	int req_ret;
};

static void cmk_destroy_work(struct work_struct *w)
{
	struct cmk_consumer *c = container_of(w, struct cmk_consumer,
					       destroy_work);

	rdma_destroy_id(c->id);
}

/* In the CONNECT_REQUEST handler: a QP, then rdma_accept(). */
static void cmk_accept(struct cmk_consumer *c, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr attr = {
		.qp_type = IB_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
	};

	c->create_qp_ret = rdma_create_qp(id, c->pd, &attr);
	if (c->create_qp_ret)
		return;
	c->accept_ret = rdma_accept(id, &param);
	rdma_destroy_qp(id);
}

static int cmk_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cmk_consumer *c = id->context;

	if (ev->event < ARRAY_SIZE(c->n_events))
		atomic_inc(&c->n_events[ev->event]);
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ADDR_ERROR:
		c->addr_status = ev->status;
		complete(&c->resolved);
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (c->destroy_on_removal) {
			/* As rdma_ucm does: destroy later, from elsewhere. */
			c->id = id;
			schedule_work(&c->destroy_work);
		}
		return c->removal_ret;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (c->req_destroy_self) {
			/* rdma_ucm, when it cannot allocate the event. */
			rdma_destroy_id(id);
			atomic_inc(&c->n_req_done);
			return c->req_ret;
		}
		if (c->req_block) {
			complete(&c->req_entered);
			wait_for_completion(&c->req_go);
		}
		if (c->pd)
			cmk_accept(c, id);
		atomic_inc(&c->n_req_done);
		return -ECONNREFUSED;	/* rdma_cm destroys the new id */
	default:
		return 0;
	}
}

static int n_ev(struct cmk_consumer *c, enum rdma_cm_event_type type)
{
	return atomic_read(&c->n_events[type]);
}

static struct cmk_consumer *cmk_consumer(struct kunit *test)
{
	struct cmk_consumer *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->test = test;
	INIT_WORK(&c->destroy_work, cmk_destroy_work);
	init_completion(&c->resolved);
	init_completion(&c->req_entered);
	init_completion(&c->req_go);
	return c;
}

/*
 * A new id, destroyed at the end of the test unless the test hands it over
 * first (cmk_disown(): to rdma_cm, which destroys it, or to a kthread).
 */
static struct rdma_cm_id *cmk_create(struct kunit *test,
				     struct cmk_consumer *c)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, cmk_handler, c, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, cmk_destroy_id, id));
	return id;
}

static void cmk_disown(struct kunit *test, struct rdma_cm_id *id)
{
	kunit_remove_action(test, cmk_destroy_id, id);
}

static void set_sin(struct sockaddr_in *sin, __be32 addr, u16 port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = addr;
	sin->sin_port = htons(port);
}

/* An id resolved to 127.0.0.1, which attaches it to @mock. */
static struct rdma_cm_id *cmk_resolved(struct kunit *test,
				       struct cmk_consumer *c,
				       struct mock_dev *mock)
{
	struct rdma_cm_id *id = cmk_create(test, c);
	struct sockaddr_in dst;

	set_sin(&dst, htonl(INADDR_LOOPBACK), cmk_port());
	KUNIT_ASSERT_EQ(test, 0, rdma_resolve_addr(id, NULL,
						   (struct sockaddr *)&dst,
						   2000));
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&c->resolved,
							  DEADLINE), 0);
	KUNIT_ASSERT_EQ(test, c->addr_status, 0);
	KUNIT_ASSERT_EQ(test, n_ev(c, RDMA_CM_EVENT_ADDR_RESOLVED), 1);
	KUNIT_ASSERT_PTR_EQ(test, id->device, &mock->ibdev);
	return id;
}

/* Every live id of rdma_cm (what /sys/kernel/debug/rdma_cm/ids reads). */
static long cmk_live_ids(void)
{
	return cma_ids_live();
}

/* Wait (2 s at most) until @v reaches @n. */
static bool cmk_wait_atomic(atomic_t *v, int n)
{
	int i;

	for (i = 0; i < 100 && atomic_read(v) < n; i++)
		msleep(20);
	return atomic_read(v) >= n;
}

/*
 * DEVICE_REMOVAL: the consumer returns non-zero (nvmet-rdma: 1, isert: -1)
 * and rdma_cm destroys the id; or returns 0 and destroys it itself later
 * (rdma_ucm). Either way the unregistration completes, the id is gone, and
 * the event came exactly once.
 */
static const int removal_rets[] = { 1, -1, 0 };

static void removal_desc(const int *r, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "handler returns %d", *r);
}

KUNIT_ARRAY_PARAM(removal, removal_rets, removal_desc);

static void cmk_test_removal(struct kunit *test)
{
	const int *ret = test->param_value;
	struct cmk_consumer *c = cmk_consumer(test);
	long before = cmk_live_ids();
	struct mock_dev *mock;

	mock = mock_register(test, init_net.loopback_dev);
	c->removal_ret = *ret;
	c->destroy_on_removal = !*ret;
	/* Destroyed by rdma_cm, or by the consumer's work: not by the test. */
	cmk_disown(test, cmk_resolved(test, c, mock));
	KUNIT_EXPECT_EQ(test, cmk_live_ids(), before + 1);

	mock_unregister(test, mock);
	flush_work(&c->destroy_work);
	KUNIT_EXPECT_EQ(test, n_ev(c, RDMA_CM_EVENT_DEVICE_REMOVAL), 1);
	KUNIT_EXPECT_EQ(test, cmk_live_ids(), before);
}

/*
 * A loopback destination: no RDMA device sits on the loopback netdev, so
 * the first device with an active port serves it (as in-tree).
 */
static void cmk_test_loopback_first_active(struct kunit *test)
{
	struct cmk_consumer *c = cmk_consumer(test);
	struct mock_dev *mock = mock_register(test, cmk_ndev(test));
	struct rdma_cm_id *id;

	id = cmk_resolved(test, c, mock);
	KUNIT_EXPECT_EQ(test, id->port_num, 1U);

	/* As in-tree: a zero route timeout is refused, the id unchanged. */
	KUNIT_EXPECT_EQ(test, rdma_resolve_route(id, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(id)),
			RDMA_CM_ADDR_RESOLVED);
	/* reuseaddr: on in any state but LISTEN, off only when idle. */
	KUNIT_EXPECT_EQ(test, rdma_set_reuseaddr(id, 1), 0);
	KUNIT_EXPECT_EQ(test, rdma_set_reuseaddr(id, 0), -EINVAL);
}

/* A wildcard listen that a device refuses fails as a whole and is undone. */
static void cmk_test_wildcard_listen_refused(struct kunit *test)
{
	struct cmk_consumer *c = cmk_consumer(test);
	struct mock_dev *mock = mock_register(test, init_net.loopback_dev);
	long before = cmk_live_ids();
	struct sockaddr_in any;
	struct rdma_cm_id *id;

	id = cmk_create(test, c);
	set_sin(&any, 0, cmk_port());
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(id, (struct sockaddr *)&any));
	mock->listen_ret = -EADDRINUSE;
	KUNIT_EXPECT_EQ(test, rdma_listen(id, 4), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(id)), RDMA_CM_ADDR_BOUND);
	/* No per-device child is left behind. */
	KUNIT_EXPECT_EQ(test, cmk_live_ids(), before + 1);

	/* The port is free again, and a second try listens. */
	mock->listen_ret = 0;
	KUNIT_EXPECT_EQ(test, rdma_listen(id, 4), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&mock->n_listen), 1);
	KUNIT_EXPECT_EQ(test, cmk_live_ids(), before + 2);
	cmk_disown(test, id);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, atomic_read(&mock->n_unlisten), 1);
	KUNIT_EXPECT_EQ(test, cmk_live_ids(), before);
	mock_unregister(test, mock);
}

/* A wildcard listener on @mock; its child's iw_cm_id is mock->listener. */
static struct rdma_cm_id *cmk_wildcard(struct kunit *test,
				       struct cmk_consumer *c,
				       struct mock_dev *mock)
{
	struct rdma_cm_id *id = cmk_create(test, c);
	struct iw_cm_id *listener;
	struct sockaddr_in any;

	set_sin(&any, 0, cmk_port());
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(id, (struct sockaddr *)&any));
	KUNIT_ASSERT_EQ(test, 0, rdma_listen(id, 4));
	listener = READ_ONCE(mock->listener);
	KUNIT_ASSERT_NOT_NULL(test, listener);
	return id;
}

/* The peer: a connection request on the mock's listener. */
static int mock_conn_request(struct mock_dev *mock)
{
	struct iw_cm_id *listener = READ_ONCE(mock->listener);
	struct iw_cm_event ev = {
		.event = IW_CM_EVENT_CONNECT_REQUEST,
		.ird = 1,
		.ord = 1,
	};

	/* A real RNIC reports the address the peer reached: one of ours. */
	set_sin((struct sockaddr_in *)&ev.local_addr, htonl(INADDR_LOOPBACK),
		ntohs(((struct sockaddr_in *)&listener->local_addr)->sin_port));
	set_sin((struct sockaddr_in *)&ev.remote_addr, htonl(INADDR_LOOPBACK),
		40000);
	return listener->event_handler(listener, &ev);
}

/*
 * The device goes away while its child of a wildcard listener is inside
 * the consumer's CONNECT_REQUEST handler, and the consumer destroys the
 * parent meanwhile. The parent's destroy must wait for that handler (the
 * child pins the parent), and the removal must destroy the child once.
 */
static void cmk_test_removal_destroy_race(struct kunit *test)
{
	struct cmk_consumer *c = cmk_consumer(test);
	struct mock_dev *mock = mock_register(test, init_net.loopback_dev);
	long before = cmk_live_ids();
	struct cmk_call *unreg, *destroy;
	struct rdma_cm_id *parent;

	parent = cmk_wildcard(test, c, mock);
	c->req_block = true;
	KUNIT_ASSERT_EQ(test, 0, mock_conn_request(mock));
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&c->req_entered,
							  DEADLINE), 0);

	unreg = cmk_start(test, cmk_unregister, mock);
	msleep(100);
	cmk_disown(test, parent);
	destroy = cmk_start(test, cmk_destroy_id, parent);
	/* The handler still runs with the parent's context: no return yet. */
	KUNIT_EXPECT_FALSE(test, cmk_wait(destroy, HZ / 2));

	complete_all(&c->req_go);
	KUNIT_EXPECT_TRUE(test, cmk_wait(destroy, DEADLINE));
	cmk_unregistered(test, mock, unreg);
	KUNIT_EXPECT_EQ(test, cmk_live_ids(), before);
	/* The refused request was rejected to the peer. */
	KUNIT_EXPECT_EQ(test, atomic_read(&mock->n_reject), 1);
}

/*
 * Destroy of a wildcard listener racing with the removal of its device,
 * many times: each child is destroyed exactly once (KASAN, refcount and
 * list debugging catch a second time), and both calls return.
 */
static void cmk_test_listener_destroy_vs_removal(struct kunit *test)
{
	struct cmk_consumer *c = cmk_consumer(test);
	long before = cmk_live_ids();
	struct cmk_call *unreg, *destroy;
	struct rdma_cm_id *parent;
	struct mock_dev *mock;
	int i;

	for (i = 0; i < 20; i++) {
		mock = mock_register(test, init_net.loopback_dev);
		parent = cmk_wildcard(test, c, mock);
		cmk_disown(test, parent);
		if (i & 1) {
			destroy = cmk_start(test, cmk_destroy_id, parent);
			unreg = cmk_start(test, cmk_unregister, mock);
		} else {
			unreg = cmk_start(test, cmk_unregister, mock);
			destroy = cmk_start(test, cmk_destroy_id, parent);
		}
		if (!cmk_wait(destroy, DEADLINE))
			KUNIT_FAIL_AND_ABORT(test, "round %d: destroy hung", i);
		cmk_unregistered(test, mock, unreg);
		KUNIT_ASSERT_EQ(test, cmk_live_ids(), before);
	}
}

/*
 * The id of an incoming connection joins its listener's device without
 * cma_lock (cma_attach_dev_live()): it is attached and listed, unless the
 * device is being removed, when it is refused and left alone.
 */
static void cmk_test_attach_live(struct kunit *test)
{
	struct cmk_consumer *c = cmk_consumer(test);
	struct mock_dev *mock = mock_register(test, init_net.loopback_dev);
	struct rdma_cm_id *bound = cmk_resolved(test, c, mock);
	struct cma_device *cma_dev = to_id_priv(bound)->cma_dev;
	struct rdma_id_private *a = to_id_priv(cmk_create(test, c));
	struct rdma_id_private *b = to_id_priv(cmk_create(test, c));

	KUNIT_ASSERT_NOT_NULL(test, cma_dev);
	KUNIT_EXPECT_EQ(test, 0, cma_attach_dev_live(a, cma_dev, 1));
	KUNIT_EXPECT_PTR_EQ(test, a->cma_dev, cma_dev);
	KUNIT_EXPECT_PTR_EQ(test, a->id.device, &mock->ibdev);
	KUNIT_EXPECT_EQ(test, a->id.port_num, 1U);
	KUNIT_EXPECT_FALSE(test, list_empty(&a->device_item));

	spin_lock(&cma_dev->id_lock);
	cma_dev->removing = true;
	spin_unlock(&cma_dev->id_lock);
	KUNIT_EXPECT_EQ(test, -ENODEV, cma_attach_dev_live(b, cma_dev, 1));
	spin_lock(&cma_dev->id_lock);
	cma_dev->removing = false;
	spin_unlock(&cma_dev->id_lock);
	KUNIT_EXPECT_NULL(test, b->cma_dev);
	KUNIT_EXPECT_NULL(test, b->id.device);
}

/*
 * rdma_accept() that the RNIC fails: the QP goes to ERROR before the
 * connection is rejected, so nothing can flow on it.
 */
static void cmk_test_accept_fails(struct kunit *test)
{
	struct cmk_consumer *c = cmk_consumer(test);
	struct mock_dev *mock = mock_register(test, init_net.loopback_dev);
	long before = cmk_live_ids();
	struct rdma_cm_id *parent;

	c->pd = ib_alloc_pd(&mock->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->pd));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, cmk_dealloc_pd, c->pd));
	mock->accept_ret = -EIO;
	parent = cmk_wildcard(test, c, mock);
	KUNIT_ASSERT_EQ(test, 0, mock_conn_request(mock));
	/* iw_cm delivers from its workqueue. */
	KUNIT_ASSERT_TRUE(test, cmk_wait_atomic(&c->n_req_done, 1));

	KUNIT_EXPECT_EQ(test, c->create_qp_ret, 0);
	KUNIT_EXPECT_EQ(test, c->accept_ret, -EIO);
	KUNIT_ASSERT_GE(test, mock->nr_qp_states, 1);
	KUNIT_EXPECT_EQ(test, mock->qp_states[mock->nr_qp_states - 1],
			IB_QPS_ERR);
	/*
	 * The handler refused: rdma_cm destroyed the new id. As in-tree, a
	 * failed iw_accept leaves the connection to the RNIC, which closes
	 * it: nobody calls iw_reject.
	 */
	msleep(100);
	KUNIT_EXPECT_EQ(test, cmk_live_ids(), before + 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&mock->n_reject), 0);

	cmk_disown(test, parent);
	rdma_destroy_id(parent);
}

/*
 * A CONNECT_REQUEST handler that destroys its own new id with
 * rdma_destroy_id(), as rdma_ucm does when it cannot allocate the event
 * (ucma_connect_event_handler(), then it returns -ENOMEM). In-tree
 * deadlocks on the id's handler_mutex there; ours destroys the id once
 * the handler returns, whatever it returns, and exactly once.
 */
static const int self_destroy_rets[] = { -ENOMEM, 0 };

static void self_destroy_desc(const int *r, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "handler returns %d", *r);
}

KUNIT_ARRAY_PARAM(self_destroy, self_destroy_rets, self_destroy_desc);

static void cmk_test_req_destroys_self(struct kunit *test)
{
	struct cmk_consumer *c = cmk_consumer(test);
	struct mock_dev *mock = mock_register(test, init_net.loopback_dev);
	long before = cmk_live_ids();
	struct rdma_cm_id *parent;

	c->req_destroy_self = true;
	c->req_ret = *(const int *)test->param_value;
	parent = cmk_wildcard(test, c, mock);
	KUNIT_ASSERT_EQ(test, 0, mock_conn_request(mock));
	/* iw_cm delivers from its workqueue; a deadlock never returns. */
	KUNIT_ASSERT_TRUE(test, cmk_wait_atomic(&c->n_req_done, 1));
	msleep(100);
	/* The listener and its per-device child; the new id is gone. */
	KUNIT_EXPECT_EQ(test, cmk_live_ids(), before + 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&mock->n_reject), 1);

	/* The listener still takes requests. */
	c->req_destroy_self = false;
	KUNIT_ASSERT_EQ(test, 0, mock_conn_request(mock));
	KUNIT_ASSERT_TRUE(test, cmk_wait_atomic(&c->n_req_done, 2));
	msleep(100);
	KUNIT_EXPECT_EQ(test, cmk_live_ids(), before + 2);
	cmk_disown(test, parent);
	rdma_destroy_id(parent);
	KUNIT_EXPECT_EQ(test, cmk_live_ids(), before);
}

/*
 * AF_IB on an iWARP device, where the in-tree CM refuses it: a GID binds
 * InfiniBand ports only (-ENODEV, the id stays IDLE), a destination GID
 * finds no port with AF_IB addressing (-ENODEV, no event), and a wildcard
 * AF_IB listener skips a device without an IB CM (no iw_cm listen) where
 * an IPv4 one listens on it.
 */
static void cmk_test_afib_iwarp(struct kunit *test)
{
	struct cmk_consumer *c = cmk_consumer(test);
	struct mock_dev *mock = mock_register(test, init_net.loopback_dev);
	struct sockaddr_ib sib = {
		.sib_family = AF_IB,
		.sib_pkey = htons(0xffff),
		.sib_sid_mask = cpu_to_be64(U64_MAX),
	};
	struct rdma_cm_id *id, *wild, *wild4;
	struct sockaddr_in any;

	sib.sib_addr.sib_raw[0] = 0xfe;
	sib.sib_addr.sib_raw[1] = 0x80;
	sib.sib_addr.sib_raw[15] = 1;
	sib.sib_sid = cpu_to_be64(RDMA_IB_IP_PS_TCP | cmk_port());
	id = cmk_create(test, c);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&sib),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(id)), RDMA_CM_IDLE);
	KUNIT_EXPECT_NULL(test, id->device);

	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&sib, 2000),
			-ENODEV);
	KUNIT_EXPECT_NULL(test, id->device);
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(id)), RDMA_CM_ADDR_BOUND);

	wild = cmk_create(test, c);
	memset(&sib.sib_addr, 0, sizeof(sib.sib_addr));
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(wild, (struct sockaddr *)&sib));
	KUNIT_EXPECT_EQ(test, rdma_listen(wild, 4), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&mock->n_listen), 0);

	wild4 = cmk_create(test, c);
	set_sin(&any, 0, cmk_port());
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(wild4, (struct sockaddr *)&any));
	KUNIT_EXPECT_EQ(test, rdma_listen(wild4, 4), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&mock->n_listen), 1);
	msleep(50);
	KUNIT_EXPECT_EQ(test, n_ev(c, RDMA_CM_EVENT_ADDR_RESOLVED), 0);
}

/* Wait (2 s at most) until @id_priv holds no reference but its own. */
static bool cmk_wait_own_ref(struct rdma_id_private *id_priv)
{
	int i;

	for (i = 0; i < 100 && refcount_read(&id_priv->refcount) > 1; i++)
		msleep(20);
	return refcount_read(&id_priv->refcount) == 1;
}

/*
 * The address handler racing with destroy (syzbot's use-after-free in
 * in-tree's addr_handler): the resolution completed and its handler
 * claimed the request, then rdma_destroy_id() marked the id DESTROYING
 * under handler_mutex before the handler got it. The handler must leave
 * the id alone: no event, and no device bound, which would put the dying
 * id back on the device's list and in the tracking index after
 * cma_release() took it off both. The test holds handler_mutex to stop
 * the handler at that point, and plays destroy's first half itself.
 */
static void cmk_test_addr_done_vs_destroy(struct kunit *test)
{
	struct cmk_consumer *c = cmk_consumer(test);
	struct rdma_id_private *id_priv;
	struct sockaddr_in dst;
	struct rdma_cm_id *id;
	unsigned long flags;
	int i;

	mock_register(test, init_net.loopback_dev);
	id = cmk_create(test, c);
	id_priv = to_id_priv(id);
	set_sin(&dst, htonl(INADDR_LOOPBACK), cmk_port());

	rdma_lock_handler(id);
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000)) {
		rdma_unlock_handler(id);
		KUNIT_FAIL_AND_ABORT(test, "rdma_resolve_addr");
	}
	/* The handler claims the request, then waits for handler_mutex. */
	for (i = 0; i < 100 && atomic_read(&id_priv->addr_busy); i++)
		msleep(20);
	if (atomic_read(&id_priv->addr_busy)) {
		rdma_unlock_handler(id);
		KUNIT_FAIL_AND_ABORT(test, "the resolution did not complete");
	}
	spin_lock_irqsave(&id_priv->lock, flags);
	WRITE_ONCE(id_priv->state, RDMA_CM_DESTROYING);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	rdma_unlock_handler(id);

	/* The handler ran and dropped the request's reference. */
	KUNIT_EXPECT_TRUE(test, cmk_wait_own_ref(id_priv));
	KUNIT_EXPECT_NULL(test, id->device);
	KUNIT_EXPECT_NULL(test, id_priv->cma_dev);
	KUNIT_EXPECT_EQ(test, n_ev(c, RDMA_CM_EVENT_ADDR_RESOLVED), 0);
	KUNIT_EXPECT_EQ(test, n_ev(c, RDMA_CM_EVENT_ADDR_ERROR), 0);
	KUNIT_EXPECT_EQ(test, cma_state(id_priv), RDMA_CM_DESTROYING);
	/* The test's cleanup action destroys it (from DESTROYING). */
}

static struct kunit_case cma_dev_cases[] = {
	KUNIT_CASE_PARAM(cmk_test_removal, removal_gen_params),
	KUNIT_CASE(cmk_test_loopback_first_active),
	KUNIT_CASE(cmk_test_wildcard_listen_refused),
	KUNIT_CASE(cmk_test_removal_destroy_race),
	KUNIT_CASE(cmk_test_listener_destroy_vs_removal),
	KUNIT_CASE(cmk_test_accept_fails),
	KUNIT_CASE_PARAM(cmk_test_req_destroys_self, self_destroy_gen_params),
	KUNIT_CASE(cmk_test_attach_live),
	KUNIT_CASE(cmk_test_afib_iwarp),
	KUNIT_CASE(cmk_test_addr_done_vs_destroy),
	{}
};

static struct kunit_suite cma_dev_suite = {
	.name = "rdma_cm_dev",
	.test_cases = cma_dev_cases,
};

kunit_test_suite(cma_dev_suite);

MODULE_DESCRIPTION("KUnit tests of rdma_cm with a mock iWARP device");
MODULE_LICENSE("GPL");
