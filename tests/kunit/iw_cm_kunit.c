// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for openrdma-cm iw_cm.ko, driven through a fake iWARP
 * provider: an unregistered, zeroed struct ib_device whose iw_* ops and
 * modify_qp record what iw_cm asks of them, and a fake QP. Tests play the
 * provider by calling cm_id->event_handler the way siw does, and play the
 * user with a cm_handler that logs every event it is given.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "iw_cm/iwcm.h"

#define FAKE_QPN	7
#define LOG_MAX		16
#define HELD_MAX	16
#define REC_PD_MAX	64
#define WAIT_JIFFIES	(5 * HZ)

/* One call of the user's cm_handler. */
struct fake_rec {
	struct iw_cm_id *id;
	struct iw_cm_event ev;		/* private_data points at the original */
	u8 pd[REC_PD_MAX];
};

struct fake_ctx {
	struct ib_device dev;		/* the fake provider's device */
	struct ib_port_data port_data[2];
	struct ib_qp qp;		/* the only QP, number FAKE_QPN */
	struct kunit *test;

	/* Provider side: what iw_cm asked of it. */
	atomic_t qp_refs;
	int n_modify;
	enum ib_qp_state last_qp_state;
	int last_qp_mask;
	int n_connect, n_accept, n_reject, n_create_listen, n_destroy_listen;
	int listen_backlog;
	int connect_ret, accept_ret, listen_ret;	/* what the ops return */
	bool accept_upcalls;		/* ESTABLISHED from inside iw_accept */
	u16 last_pd_len;
	u8 last_pd[IWCM_MAX_PRIVATE_DATA];
	u32 last_ird, last_ord;
	void *last_reject_pd;		/* provider_data of the rejected id */
	struct iw_cm_id *held[HELD_MAX];	/* ids we hold an add_ref on */

	/* User side: the cm_handler's log and behaviour. */
	struct fake_rec log[LOG_MAX];
	int nr_log;
	int conn_req_ret;		/* returned for CONNECT_REQUEST */
	bool accept_in_handler;		/* accept the request from the handler */
	int accept_in_handler_ret;
	int handler_ret;		/* returned for everything else */
	struct iw_cm_id *block_id;	/* its handler waits for @gate */
	struct completion entered, gate;
};

static struct fake_ctx *dev_ctx(struct ib_device *dev)
{
	return container_of(dev, struct fake_ctx, dev);
}

static int inject(struct iw_cm_id *id, enum iw_cm_event_type type,
		  int status, const void *pd, u8 pd_len, void *provider_data);

/* ---- the fake provider ---- */

static bool fake_holds(struct fake_ctx *ctx, struct iw_cm_id *id)
{
	int i;

	for (i = 0; i < HELD_MAX; i++)
		if (ctx->held[i] == id)
			return true;
	return false;
}

static void fake_hold(struct fake_ctx *ctx, struct iw_cm_id *id)
{
	int i;

	for (i = 0; i < HELD_MAX; i++) {
		if (!ctx->held[i]) {
			id->add_ref(id);
			ctx->held[i] = id;
			return;
		}
	}
	WARN(1, "fake provider: too many ids held\n");
}

/* The provider drops its reference on @id, as siw does when it is done. */
static void fake_release(struct fake_ctx *ctx, struct iw_cm_id *id)
{
	int i;

	for (i = 0; i < HELD_MAX; i++) {
		if (ctx->held[i] == id) {
			ctx->held[i] = NULL;
			id->rem_ref(id);
			return;
		}
	}
}

static void fake_record_param(struct fake_ctx *ctx,
			      const struct iw_cm_conn_param *p)
{
	ctx->last_pd_len = p->private_data_len;
	memcpy(ctx->last_pd, p->private_data,
	       min_t(size_t, p->private_data_len, sizeof(ctx->last_pd)));
	ctx->last_ird = p->ird;
	ctx->last_ord = p->ord;
}

static void fake_iw_add_ref(struct ib_qp *qp)
{
	atomic_inc(&dev_ctx(qp->device)->qp_refs);
}

static void fake_iw_rem_ref(struct ib_qp *qp)
{
	atomic_dec(&dev_ctx(qp->device)->qp_refs);
}

static struct ib_qp *fake_iw_get_qp(struct ib_device *dev, int qpn)
{
	return qpn == FAKE_QPN ? &dev_ctx(dev)->qp : NULL;
}

static int fake_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct fake_ctx *ctx = dev_ctx(id->device);

	ctx->n_connect++;
	fake_record_param(ctx, p);
	if (ctx->connect_ret)
		return ctx->connect_ret;
	fake_hold(ctx, id);
	return 0;
}

static int fake_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct fake_ctx *ctx = dev_ctx(id->device);

	ctx->n_accept++;
	fake_record_param(ctx, p);
	if (ctx->accept_ret)
		return ctx->accept_ret;
	fake_hold(ctx, id);
	/* As siw does when no RTR is awaited: upcall before returning. */
	if (ctx->accept_upcalls)
		inject(id, IW_CM_EVENT_ESTABLISHED, 0, NULL, 0, NULL);
	return 0;
}

static int fake_iw_reject(struct iw_cm_id *id, const void *pd, u8 len)
{
	struct fake_ctx *ctx = dev_ctx(id->device);

	ctx->n_reject++;
	ctx->last_reject_pd = id->provider_data;
	ctx->last_pd_len = len;
	memcpy(ctx->last_pd, pd, len);
	return 0;
}

static int fake_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct fake_ctx *ctx = dev_ctx(id->device);

	ctx->n_create_listen++;
	ctx->listen_backlog = backlog;
	if (ctx->listen_ret)
		return ctx->listen_ret;
	fake_hold(ctx, id);
	return 0;
}

static int fake_iw_destroy_listen(struct iw_cm_id *id)
{
	struct fake_ctx *ctx = dev_ctx(id->device);

	ctx->n_destroy_listen++;
	fake_release(ctx, id);
	return 0;
}

static int fake_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata)
{
	struct fake_ctx *ctx = dev_ctx(qp->device);

	ctx->n_modify++;
	ctx->last_qp_state = attr->qp_state;
	ctx->last_qp_mask = mask;
	return 0;
}

/* ---- the fake user ---- */

static int fake_handler(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct fake_ctx *ctx = id->context;
	struct fake_rec *rec;

	if (ctx->nr_log < LOG_MAX) {
		rec = &ctx->log[ctx->nr_log++];
		rec->id = id;
		rec->ev = *ev;
		if (ev->private_data)
			memcpy(rec->pd, ev->private_data,
			       min_t(size_t, ev->private_data_len, REC_PD_MAX));
	}
	if (id == ctx->block_id) {
		complete(&ctx->entered);
		wait_for_completion(&ctx->gate);
	}
	if (ev->event != IW_CM_EVENT_CONNECT_REQUEST)
		return ctx->handler_ret;
	if (ctx->accept_in_handler) {
		struct iw_cm_conn_param p = { .qpn = FAKE_QPN };

		ctx->accept_in_handler_ret = iw_cm_accept(id, &p);
	}
	return ctx->conn_req_ret;
}

/* ---- helpers ---- */

static void set_sin(struct sockaddr_storage *ss, u32 ip, u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(ip);
	sin->sin_port = htons(port);
}

#define IP_LOCAL	0xc6120001	/* 198.18.0.1 */
#define IP_PEER		0xc6130001	/* 198.19.0.1 */

/*
 * Destroying an id whose connect or accept is unanswered waits for the
 * answer, as in-tree; a real provider always gives one (at worst on its
 * MPA timeout). The fake one answers now.
 */
static void fake_answer_outstanding(struct fake_ctx *ctx, struct iw_cm_id *id)
{
	ctx->handler_ret = 0;	/* the handler must not destroy it as well */
	switch (iwcm_id_state(id)) {
	case IWCM_CONN_SENT:
		inject(id, IW_CM_EVENT_CONNECT_REPLY, -ECONNRESET, NULL, 0,
		       NULL);
		break;
	case IWCM_CONN_RECV:
		if (fake_holds(ctx, id))	/* accepted */
			inject(id, IW_CM_EVENT_ESTABLISHED, 0, NULL, 0, NULL);
		break;
	default:
		break;
	}
}

static void id_destroy_action(void *arg)
{
	struct iw_cm_id *id = arg;
	struct fake_ctx *ctx = id->context;

	complete_all(&ctx->gate);	/* never wait on a closed gate */
	fake_answer_outstanding(ctx, id);
	iw_destroy_cm_id(id);
}

/* Make the test own @id: it is destroyed when the test ends. */
static void adopt_id(struct kunit *test, struct iw_cm_id *id)
{
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, id_destroy_action, id));
}

/* Destroy now, as the user would. */
static void destroy_id(struct kunit *test, struct iw_cm_id *id)
{
	kunit_release_action(test, id_destroy_action, id);
}

/* iw_cm (or another thread) destroyed @id: do not destroy it again. */
static void forget_id(struct kunit *test, struct iw_cm_id *id)
{
	kunit_remove_action(test, id_destroy_action, id);
}

static struct iw_cm_id *new_id_on(struct kunit *test, struct ib_device *dev,
				  void *context)
{
	struct iw_cm_id *id;

	id = iw_create_cm_id(dev, fake_handler, context);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(id));
	adopt_id(test, id);
	set_sin(&id->local_addr, IP_LOCAL, 4000);
	set_sin(&id->remote_addr, IP_PEER, 5000);
	return id;
}

static struct iw_cm_id *new_id(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;

	return new_id_on(test, &ctx->dev, ctx);
}

static int inject(struct iw_cm_id *id, enum iw_cm_event_type type,
		  int status, const void *pd, u8 pd_len, void *provider_data)
{
	struct iw_cm_event ev = {
		.event = type,
		.status = status,
		.private_data = (void *)pd,
		.private_data_len = pd_len,
		.provider_data = provider_data,
		.ird = 11,
		.ord = 12,
	};

	set_sin(&ev.local_addr, IP_LOCAL, 4001);
	set_sin(&ev.remote_addr, IP_PEER, 5001);
	return id->event_handler(id, &ev);
}

static struct iw_cm_id *new_listener(struct kunit *test)
{
	struct iw_cm_id *id = new_id(test);

	KUNIT_ASSERT_EQ(test, 0, iw_cm_listen(id, 0));
	return id;
}

/* A connection request on @listener; returns the new id, test-owned. */
static struct iw_cm_id *new_child(struct kunit *test,
				  struct iw_cm_id *listener, void *cookie)
{
	struct fake_ctx *ctx = test->priv;
	struct fake_rec *rec;
	int before = ctx->nr_log;

	KUNIT_ASSERT_EQ(test, 0, inject(listener, IW_CM_EVENT_CONNECT_REQUEST,
					0, "hello", 5, cookie));
	iwcm_flush_events();
	KUNIT_ASSERT_GT(test, ctx->nr_log, before);
	rec = &ctx->log[before];
	KUNIT_ASSERT_EQ(test, rec->ev.event, IW_CM_EVENT_CONNECT_REQUEST);
	adopt_id(test, rec->id);
	return rec->id;
}

static struct iw_cm_conn_param conn_param(const void *pd, u16 len, u32 qpn)
{
	struct iw_cm_conn_param p = {
		.private_data = pd,
		.private_data_len = len,
		.ird = 3,
		.ord = 4,
		.qpn = qpn,
	};
	return p;
}

static struct iw_cm_id *new_connecting(struct kunit *test)
{
	struct iw_cm_conn_param p = conn_param("req", 3, FAKE_QPN);
	struct iw_cm_id *id = new_id(test);

	KUNIT_ASSERT_EQ(test, 0, iw_cm_connect(id, &p));
	return id;
}

static struct iw_cm_id *new_established(struct kunit *test)
{
	struct iw_cm_id *id = new_connecting(test);

	KUNIT_ASSERT_EQ(test, 0,
			inject(id, IW_CM_EVENT_CONNECT_REPLY, 0, NULL, 0, NULL));
	iwcm_flush_events();
	KUNIT_ASSERT_EQ(test, iwcm_id_state(id), IWCM_ESTABLISHED);
	return id;
}

/*
 * Stall iwcm_wq: a refused connect whose handler waits for ctx->gate.
 * Everything queued after this waits until the gate opens.
 */
static struct iw_cm_id *block_worker(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_connecting(test);

	ctx->block_id = id;
	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_CONNECT_REPLY,
					-ECONNREFUSED, NULL, 0, NULL));
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&ctx->entered,
							  WAIT_JIFFIES), 0);
	return id;
}

static int log_count(struct fake_ctx *ctx, struct iw_cm_id *id)
{
	int i, n = 0;

	for (i = 0; i < ctx->nr_log; i++)
		n += ctx->log[i].id == id;
	return n;
}

/* ---- suite setup ---- */

static const struct ib_device_ops fake_ops = {
	.iw_add_ref = fake_iw_add_ref,
	.iw_rem_ref = fake_iw_rem_ref,
	.iw_get_qp = fake_iw_get_qp,
	.iw_connect = fake_iw_connect,
	.iw_accept = fake_iw_accept,
	.iw_reject = fake_iw_reject,
	.iw_create_listen = fake_iw_create_listen,
	.iw_destroy_listen = fake_iw_destroy_listen,
	.modify_qp = fake_modify_qp,
};

static void fake_ctx_cleanup(void *arg)
{
	struct fake_ctx *ctx = arg;
	int i;

	complete_all(&ctx->gate);
	iwcm_flush_events();
	for (i = 0; i < HELD_MAX; i++)
		if (ctx->held[i])
			fake_release(ctx, ctx->held[i]);
}

static int iwcm_test_init(struct kunit *test)
{
	struct fake_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->test = test;
	ctx->dev.ops = fake_ops;
	ctx->port_data[1].immutable.core_cap_flags = RDMA_CORE_PORT_IWARP;
	ctx->dev.port_data = ctx->port_data;
	ctx->dev.phys_port_cnt = 1;
	ctx->qp.device = &ctx->dev;
	ctx->qp.real_qp = &ctx->qp;
	ctx->qp.qp_type = IB_QPT_RC;
	ctx->qp.qp_num = FAKE_QPN;
	ctx->qp.port = 1;
	atomic_set(&ctx->qp_refs, 0);
	init_completion(&ctx->entered);
	init_completion(&ctx->gate);
	test->priv = ctx;
	return kunit_add_action_or_reset(test, fake_ctx_cleanup, ctx);
}

/* ---- tests ---- */

static void iwcm_test_listen_backlog(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *a = new_id(test), *b = new_id(test);

	KUNIT_EXPECT_EQ(test, iw_cm_listen(a, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->n_create_listen, 0);

	KUNIT_ASSERT_EQ(test, iw_cm_listen(a, 0), 0);
	KUNIT_EXPECT_EQ(test, ctx->listen_backlog, 256);	/* the default */
	/* An idle listener holds a few event elements, not its backlog. */
	KUNIT_EXPECT_EQ(test, to_iwcm(a)->nr_elems,
			(unsigned int)IWCM_LISTEN_PREFILL);
	KUNIT_EXPECT_EQ(test, to_iwcm(a)->max_elems, 256U);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(a), IWCM_LISTEN);
	KUNIT_EXPECT_MEMEQ(test, &a->m_local_addr, &a->local_addr,
			   sizeof(a->local_addr));
	KUNIT_EXPECT_EQ(test, iw_cm_listen(a, 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->n_create_listen, 1);

	KUNIT_ASSERT_EQ(test, iw_cm_listen(b, 17), 0);
	KUNIT_EXPECT_EQ(test, ctx->listen_backlog, 17);

	destroy_id(test, a);
	KUNIT_EXPECT_EQ(test, ctx->n_destroy_listen, 1);
}

static void iwcm_test_listen_provider_error(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_id(test);

	ctx->listen_ret = -EADDRINUSE;
	KUNIT_EXPECT_EQ(test, iw_cm_listen(id, 4), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_IDLE);
	ctx->listen_ret = 0;
	KUNIT_EXPECT_EQ(test, iw_cm_listen(id, 4), 0);
	destroy_id(test, id);
	/* Only the successful listen is torn down. */
	KUNIT_EXPECT_EQ(test, ctx->n_destroy_listen, 1);
}

static void iwcm_test_conn_request(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *listener = new_listener(test);
	char pd[8] = "private";
	struct fake_rec *rec;
	struct iw_cm_id *child;
	int cookie;

	KUNIT_ASSERT_EQ(test, 0, inject(listener, IW_CM_EVENT_CONNECT_REQUEST,
					0, pd, sizeof(pd), &cookie));
	/* iw_cm must have copied the data: the provider reuses its buffer. */
	memset(pd, 'x', sizeof(pd));
	iwcm_flush_events();

	KUNIT_ASSERT_EQ(test, ctx->nr_log, 1);
	rec = &ctx->log[0];
	child = rec->id;
	adopt_id(test, child);
	KUNIT_EXPECT_PTR_NE(test, child, listener);
	KUNIT_EXPECT_EQ(test, rec->ev.event, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_EXPECT_EQ(test, rec->ev.private_data_len, 8);
	KUNIT_EXPECT_MEMEQ(test, rec->pd, "private", 8);
	KUNIT_EXPECT_EQ(test, rec->ev.ird, 11);
	KUNIT_EXPECT_EQ(test, rec->ev.ord, 12);
	KUNIT_EXPECT_PTR_EQ(test, rec->ev.provider_data, (void *)&cookie);

	KUNIT_EXPECT_PTR_EQ(test, child->device, &ctx->dev);
	KUNIT_EXPECT_PTR_EQ(test, child->cm_handler, listener->cm_handler);
	KUNIT_EXPECT_PTR_EQ(test, child->context, listener->context);
	KUNIT_EXPECT_PTR_EQ(test, child->provider_data, (void *)&cookie);
	KUNIT_EXPECT_MEMEQ(test, &child->local_addr, &rec->ev.local_addr,
			   sizeof(child->local_addr));
	KUNIT_EXPECT_MEMEQ(test, &child->remote_addr, &rec->ev.remote_addr,
			   sizeof(child->remote_addr));
	KUNIT_EXPECT_MEMEQ(test, &child->m_remote_addr, &rec->ev.remote_addr,
			   sizeof(child->m_remote_addr));
	KUNIT_EXPECT_EQ(test, ((struct sockaddr_in *)&child->remote_addr)->sin_port,
			htons(5001));
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_CONN_RECV);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(listener), IWCM_LISTEN);
	KUNIT_EXPECT_EQ(test, ctx->n_reject, 0);

	/* An unanswered request is rejected when its id is destroyed. */
	destroy_id(test, child);
	KUNIT_EXPECT_EQ(test, ctx->n_reject, 1);
	KUNIT_EXPECT_PTR_EQ(test, ctx->last_reject_pd, (void *)&cookie);
}

static void iwcm_test_conn_request_handler_refuses(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *listener = new_listener(test);
	int cookie;

	ctx->conn_req_ret = -ENOMEM;
	KUNIT_ASSERT_EQ(test, 0, inject(listener, IW_CM_EVENT_CONNECT_REQUEST,
					0, NULL, 0, &cookie));
	iwcm_flush_events();
	KUNIT_ASSERT_EQ(test, ctx->nr_log, 1);
	/* The new id was rejected and destroyed by iw_cm, not the listener. */
	KUNIT_EXPECT_EQ(test, ctx->n_reject, 1);
	KUNIT_EXPECT_PTR_EQ(test, ctx->last_reject_pd, (void *)&cookie);
	KUNIT_EXPECT_EQ(test, ctx->last_pd_len, 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(listener), IWCM_LISTEN);
	KUNIT_EXPECT_EQ(test, ctx->n_destroy_listen, 0);

	ctx->conn_req_ret = 0;
	new_child(test, listener, &cookie);
	KUNIT_EXPECT_EQ(test, ctx->n_reject, 1);
}

static void iwcm_test_conn_request_not_listening(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_id(test);

	/* The provider keeps a request nobody listens for, and refuses it. */
	KUNIT_EXPECT_EQ(test, inject(id, IW_CM_EVENT_CONNECT_REQUEST, 0,
				     "x", 1, NULL), -ECONNREFUSED);
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, ctx->nr_log, 0);
}

/*
 * A connect flood on a listener whose user is slow: requests queue up to
 * the backlog, and every one beyond is refused at once (-ENOMEM to the
 * provider) instead of allocating more; once the queue drains, requests
 * are taken again. The parameter is the backlog.
 */
static void iwcm_test_listen_flood(struct kunit *test)
{
	const int *backlog = test->param_value;
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *listener = new_id(test);
	int i, cookie, refused = 0;

	KUNIT_ASSERT_EQ(test, 0, iw_cm_listen(listener, *backlog));
	ctx->conn_req_ret = -ECONNREFUSED;	/* iw_cm rejects each one */
	block_worker(test);
	for (i = 0; i < *backlog + 20; i++)
		if (inject(listener, IW_CM_EVENT_CONNECT_REQUEST, 0, "x", 1,
			   &cookie) == -ENOMEM)
			refused++;
	KUNIT_EXPECT_EQ(test, refused, 20);
	KUNIT_EXPECT_LE(test, to_iwcm(listener)->nr_elems, (unsigned int)*backlog);
	KUNIT_EXPECT_EQ(test, to_iwcm(listener)->refused, 20UL);

	complete_all(&ctx->gate);
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, ctx->n_reject, *backlog);
	/* Drained: the listener takes requests again. */
	KUNIT_EXPECT_EQ(test, 0, inject(listener, IW_CM_EVENT_CONNECT_REQUEST,
					0, NULL, 0, &cookie));
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, ctx->n_reject, *backlog + 1);
}

static const int flood_backlogs[] = { 1, 4, 64 };

static void flood_desc(const int *b, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "backlog %d", *b);
}

KUNIT_ARRAY_PARAM(flood, flood_backlogs, flood_desc);

static void iwcm_test_listener_destroyed_with_queued_request(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *listener = new_listener(test);
	int cookie;

	block_worker(test);
	KUNIT_ASSERT_EQ(test, 0, inject(listener, IW_CM_EVENT_CONNECT_REQUEST,
					0, NULL, 0, &cookie));
	forget_id(test, listener);
	iw_destroy_cm_id(listener);	/* with the request still queued */
	KUNIT_EXPECT_EQ(test, ctx->n_destroy_listen, 1);
	complete_all(&ctx->gate);
	iwcm_flush_events();
	/* Only the blocker's reply was delivered; the request was refused. */
	KUNIT_EXPECT_EQ(test, ctx->nr_log, 1);
	KUNIT_EXPECT_EQ(test, ctx->n_reject, 1);
	KUNIT_EXPECT_PTR_EQ(test, ctx->last_reject_pd, (void *)&cookie);
}

static void iwcm_test_accept_established(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *child = new_child(test, new_listener(test), NULL);
	struct iw_cm_conn_param p = conn_param("reply", 5, FAKE_QPN);
	struct fake_rec *rec;

	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &p), 0);
	KUNIT_EXPECT_EQ(test, ctx->n_accept, 1);
	KUNIT_EXPECT_EQ(test, ctx->last_pd_len, 5);
	KUNIT_EXPECT_MEMEQ(test, ctx->last_pd, "reply", 5);
	KUNIT_EXPECT_EQ(test, ctx->last_ird, 3);
	KUNIT_EXPECT_EQ(test, ctx->last_ord, 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 1);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_CONN_RECV);
	/* A second accept, or a reject, while the first is pending. */
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_reject(child, NULL, 0), -EINVAL);

	KUNIT_ASSERT_EQ(test, 0, inject(child, IW_CM_EVENT_ESTABLISHED, 0,
					NULL, 0, NULL));
	iwcm_flush_events();
	KUNIT_ASSERT_EQ(test, ctx->nr_log, 2);
	rec = &ctx->log[1];
	KUNIT_EXPECT_PTR_EQ(test, rec->id, child);
	KUNIT_EXPECT_EQ(test, rec->ev.event, IW_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, rec->ev.ird, 11);
	KUNIT_EXPECT_EQ(test, rec->ev.ord, 12);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->n_accept, 1);

	/* Destroying a connected id resets it and lets go of the QP. */
	destroy_id(test, child);
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 1);
	KUNIT_EXPECT_EQ(test, ctx->last_qp_state, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, ctx->last_qp_mask, IB_QP_STATE);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
}

static void iwcm_test_accept_failures(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *child = new_child(test, new_listener(test), NULL);
	struct iw_cm_conn_param bad_qp = conn_param(NULL, 0, FAKE_QPN + 1);
	struct iw_cm_conn_param p = conn_param(NULL, 0, FAKE_QPN);

	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &bad_qp), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->n_accept, 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_CONN_RECV);

	ctx->accept_ret = -EIO;
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &p), -EIO);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_IDLE);
	/* The provider failed the accept: nothing is left to reject. */
	destroy_id(test, child);
	KUNIT_EXPECT_EQ(test, ctx->n_reject, 0);
}

static void iwcm_test_accept_upcall_inside(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *child = new_child(test, new_listener(test), NULL);
	struct iw_cm_conn_param p = conn_param(NULL, 0, FAKE_QPN);

	ctx->accept_upcalls = true;
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &p), 0);
	iwcm_flush_events();
	KUNIT_ASSERT_EQ(test, ctx->nr_log, 2);
	KUNIT_EXPECT_EQ(test, ctx->log[1].ev.event, IW_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_ESTABLISHED);
}

static void iwcm_test_accept_in_handler(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *child;

	ctx->accept_in_handler = true;
	ctx->accept_upcalls = true;
	child = new_child(test, new_listener(test), NULL);
	KUNIT_EXPECT_EQ(test, ctx->accept_in_handler_ret, 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_ESTABLISHED);
	KUNIT_ASSERT_EQ(test, ctx->nr_log, 2);
	KUNIT_EXPECT_PTR_EQ(test, ctx->log[1].id, child);
	KUNIT_EXPECT_EQ(test, ctx->log[1].ev.event, IW_CM_EVENT_ESTABLISHED);
}

static void iwcm_test_accept_in_handler_then_refuse(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *listener = new_listener(test);

	/* Accepted from the handler, then refused: iw_cm resets it. */
	ctx->accept_in_handler = true;
	ctx->accept_upcalls = true;
	ctx->conn_req_ret = -ENOMEM;
	KUNIT_ASSERT_EQ(test, 0, inject(listener, IW_CM_EVENT_CONNECT_REQUEST,
					0, NULL, 0, NULL));
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, ctx->accept_in_handler_ret, 0);
	KUNIT_EXPECT_EQ(test, ctx->nr_log, 1);	/* no ESTABLISHED delivered */
	KUNIT_EXPECT_EQ(test, ctx->n_reject, 0);
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 1);
	KUNIT_EXPECT_EQ(test, ctx->last_qp_state, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
	/* The provider still holds the id it accepted; cleanup drops it. */
	KUNIT_EXPECT_TRUE(test, fake_holds(ctx, ctx->log[0].id));
	KUNIT_EXPECT_EQ(test, iwcm_id_state(ctx->log[0].id), IWCM_DESTROYING);
}

static void iwcm_test_reject(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	int cookie;
	struct iw_cm_id *child = new_child(test, new_listener(test), &cookie);
	struct iw_cm_conn_param p = conn_param(NULL, 0, FAKE_QPN);

	KUNIT_EXPECT_EQ(test, iw_cm_reject(child, NULL, 3), -EINVAL);
	KUNIT_ASSERT_EQ(test, iw_cm_reject(child, "busy", 4), 0);
	KUNIT_EXPECT_EQ(test, ctx->n_reject, 1);
	KUNIT_EXPECT_EQ(test, ctx->last_pd_len, 4);
	KUNIT_EXPECT_MEMEQ(test, ctx->last_pd, "busy", 4);
	KUNIT_EXPECT_PTR_EQ(test, ctx->last_reject_pd, (void *)&cookie);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_IDLE);
	KUNIT_EXPECT_EQ(test, iw_cm_reject(child, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &p), -EINVAL);
	destroy_id(test, child);
	KUNIT_EXPECT_EQ(test, ctx->n_reject, 1);
	KUNIT_EXPECT_EQ(test, ctx->nr_log, 1);
}

static void iwcm_test_connect_reply_ok(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_connecting(test);
	struct sockaddr_storage own_local = id->local_addr;
	struct fake_rec *rec;

	KUNIT_EXPECT_EQ(test, ctx->n_connect, 1);
	KUNIT_EXPECT_EQ(test, ctx->last_pd_len, 3);
	KUNIT_EXPECT_MEMEQ(test, ctx->last_pd, "req", 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 1);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_CONN_SENT);
	KUNIT_EXPECT_MEMEQ(test, &id->m_remote_addr, &id->remote_addr,
			   sizeof(id->remote_addr));

	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_CONNECT_REPLY, 0,
					"accepted", 8, NULL));
	iwcm_flush_events();
	KUNIT_ASSERT_EQ(test, ctx->nr_log, 1);
	rec = &ctx->log[0];
	KUNIT_EXPECT_PTR_EQ(test, rec->id, id);
	KUNIT_EXPECT_EQ(test, rec->ev.event, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, rec->ev.status, 0);
	KUNIT_EXPECT_EQ(test, rec->ev.private_data_len, 8);
	KUNIT_EXPECT_MEMEQ(test, rec->pd, "accepted", 8);
	/* The user sees its own address, m_local_addr the provider's. */
	KUNIT_EXPECT_MEMEQ(test, &rec->ev.local_addr, &own_local,
			   sizeof(own_local));
	KUNIT_EXPECT_EQ(test,
			((struct sockaddr_in *)&id->m_local_addr)->sin_port,
			htons(4001));
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 1);
	KUNIT_EXPECT_EQ(test, iw_cm_connect(id, &(struct iw_cm_conn_param){
		.qpn = FAKE_QPN }), -EINVAL);
}

static void iwcm_test_connect_reply_refused(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_connecting(test);
	struct iw_cm_conn_param p = conn_param(NULL, 0, FAKE_QPN);
	struct fake_rec *rec;

	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_CONNECT_REPLY,
					-ECONNREFUSED, "go away", 7, NULL));
	iwcm_flush_events();
	KUNIT_ASSERT_EQ(test, ctx->nr_log, 1);
	rec = &ctx->log[0];
	KUNIT_EXPECT_EQ(test, rec->ev.event, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, rec->ev.status, -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, rec->ev.private_data_len, 7);
	KUNIT_EXPECT_MEMEQ(test, rec->pd, "go away", 7);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_IDLE);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
	/* Idle again: the id may connect once more. */
	KUNIT_EXPECT_EQ(test, iw_cm_connect(id, &p), 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_CONN_SENT);
}

static void iwcm_test_connect_provider_error(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_id(test);
	struct iw_cm_conn_param p = conn_param(NULL, 0, FAKE_QPN);
	struct iw_cm_conn_param bad_qp = conn_param(NULL, 0, 99);

	KUNIT_EXPECT_EQ(test, iw_cm_connect(id, &bad_qp), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->n_connect, 0);
	ctx->connect_ret = -ENETUNREACH;
	KUNIT_EXPECT_EQ(test, iw_cm_connect(id, &p), -ENETUNREACH);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_IDLE);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, ctx->nr_log, 0);
}

static void iwcm_test_disconnect_then_close(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_established(test);
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	int mask;

	KUNIT_ASSERT_EQ(test, ctx->nr_log, 1);	/* the reply */
	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_DISCONNECT, 0,
					NULL, 0, NULL));
	iwcm_flush_events();
	/* DISCONNECT only moves the id on; the user hears CLOSE. */
	KUNIT_EXPECT_EQ(test, ctx->nr_log, 1);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_CLOSING);
	KUNIT_EXPECT_EQ(test, iw_cm_init_qp_attr(id, &attr, &mask), -EINVAL);
	/* The peer closed first: a graceful disconnect has nothing to do. */
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, 0), 0);
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 0);

	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_CLOSE, 0,
					NULL, 0, NULL));
	iwcm_flush_events();
	KUNIT_ASSERT_EQ(test, ctx->nr_log, 2);
	KUNIT_EXPECT_EQ(test, ctx->log[1].ev.event, IW_CM_EVENT_CLOSE);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_IDLE);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
	/* Closed: destroying needs no QP change. */
	destroy_id(test, id);
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 0);
}

/*
 * A connection's id takes its event elements from inside itself: its whole
 * life (connect, reply, disconnect, close) allocates none; a listener uses
 * its own ones first and stays within its backlog.
 */
static void iwcm_test_inline_elems(struct kunit *test)
{
	struct iw_cm_id *id = new_established(test);
	struct iw_cm_id *l2 = new_id(test), *l0 = new_id(test);

	KUNIT_EXPECT_EQ(test, to_iwcm(id)->nr_elems,
			(unsigned int)IWCM_ACTIVE_ELEMS);
	KUNIT_EXPECT_EQ(test, to_iwcm(id)->inline_used,
			(unsigned int)min(IWCM_ACTIVE_ELEMS, IWCM_INLINE_ELEMS));
	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_DISCONNECT, 0,
					NULL, 0, NULL));
	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_CLOSE, 0,
					NULL, 0, NULL));
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_IDLE);
	KUNIT_EXPECT_EQ(test, to_iwcm(id)->nr_elems,
			(unsigned int)IWCM_ACTIVE_ELEMS);

	KUNIT_ASSERT_EQ(test, 0, iw_cm_listen(l2, 2));
	KUNIT_EXPECT_EQ(test, to_iwcm(l2)->nr_elems, 2U);
	KUNIT_EXPECT_EQ(test, to_iwcm(l2)->inline_used, 2U);
	KUNIT_ASSERT_EQ(test, 0, iw_cm_listen(l0, 0));
	KUNIT_EXPECT_EQ(test, to_iwcm(l0)->nr_elems,
			(unsigned int)IWCM_LISTEN_PREFILL);
	KUNIT_EXPECT_EQ(test, to_iwcm(l0)->inline_used,
			(unsigned int)IWCM_INLINE_ELEMS);
}

static void iwcm_test_events_in_order(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_connecting(test);

	/* Queued back to back, from the same upcall context. */
	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_CONNECT_REPLY, 0,
					NULL, 0, NULL));
	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_DISCONNECT, 0,
					NULL, 0, NULL));
	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_CLOSE, 0,
					NULL, 0, NULL));
	iwcm_flush_events();
	KUNIT_ASSERT_EQ(test, ctx->nr_log, 2);
	KUNIT_EXPECT_EQ(test, ctx->log[0].ev.event, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, ctx->log[1].ev.event, IW_CM_EVENT_CLOSE);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_IDLE);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
}

struct disconnect_case {
	const char *name;
	int abrupt;
	enum ib_qp_state want;
};

static const struct disconnect_case disconnect_cases[] = {
	{ "graceful", 0, IB_QPS_SQD },
	{ "abrupt", 1, IB_QPS_ERR },
};

KUNIT_ARRAY_PARAM_DESC(disconnect, disconnect_cases, name);

static void iwcm_test_disconnect(struct kunit *test)
{
	const struct disconnect_case *c = test->param_value;
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_established(test);

	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, c->abrupt), 0);
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 1);
	KUNIT_EXPECT_EQ(test, ctx->last_qp_state, c->want);
	KUNIT_EXPECT_EQ(test, ctx->last_qp_mask, IB_QP_STATE);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_CLOSING);
	/* The QP is ours until the provider's CLOSE. */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 1);

	/* Escalating to a reset while closing. */
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, 1), 0);
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 2);
	KUNIT_EXPECT_EQ(test, ctx->last_qp_state, IB_QPS_ERR);

	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_CLOSE, 0,
					NULL, 0, NULL));
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, 1), 0);
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 2);
}

static void iwcm_test_destroy_with_queued_events(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_established(test);
	int logged = ctx->nr_log;

	block_worker(test);
	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_DISCONNECT, 0,
					NULL, 0, NULL));
	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_CLOSE, 0,
					NULL, 0, NULL));
	/* Must not wait for the stalled worker. */
	forget_id(test, id);
	iw_destroy_cm_id(id);
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 1);
	KUNIT_EXPECT_EQ(test, ctx->last_qp_state, IB_QPS_ERR);

	complete_all(&ctx->gate);
	iwcm_flush_events();
	/* Only the blocker's event got through; none for the destroyed id. */
	KUNIT_EXPECT_EQ(test, ctx->nr_log, logged + 1);
	KUNIT_EXPECT_EQ(test, log_count(ctx, id), 1);	/* its old reply */
	/* The provider still holds it; its memory lives until released. */
	KUNIT_EXPECT_EQ(test, iwcm_id_refcount(id), 1);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_DESTROYING);
	KUNIT_EXPECT_EQ(test, inject(id, IW_CM_EVENT_CLOSE, 0, NULL, 0, NULL),
			0);
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, log_count(ctx, id), 1);
	fake_release(ctx, id);
}

struct destroyer {
	struct iw_cm_id *id;
	struct completion done;
};

static int destroyer_fn(void *arg)
{
	struct destroyer *d = arg;

	iw_destroy_cm_id(d->id);
	complete(&d->done);
	return 0;
}

/* iw_destroy_cm_id(@id) in another thread; the test no longer owns @id. */
static struct destroyer *start_destroyer(struct kunit *test,
					 struct iw_cm_id *id)
{
	struct task_struct *task;
	struct destroyer *d;

	/* Not kunit-managed: on a timeout the thread may still use it. */
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	d->id = id;
	init_completion(&d->done);
	task = kthread_run(destroyer_fn, d, "iwcm_kunit_destroy");
	if (IS_ERR(task)) {
		kfree(d);
		KUNIT_FAIL_AND_ABORT(test, "kthread_run: %ld", PTR_ERR(task));
	}
	forget_id(test, id);
	return d;
}

static void finish_destroyer(struct kunit *test, struct destroyer *d)
{
	if (wait_for_completion_timeout(&d->done, WAIT_JIFFIES))
		kfree(d);
	else
		KUNIT_FAIL(test, "iw_destroy_cm_id() did not return");
}

static void iwcm_test_destroy_waits_for_handler(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = block_worker(test);
	struct destroyer *d = start_destroyer(test, id);

	/* The handler of this id is running: destroy must wait for it. */
	msleep(100);
	KUNIT_EXPECT_FALSE(test, completion_done(&d->done));
	complete_all(&ctx->gate);
	finish_destroyer(test, d);
	/* The handler ran once, and destroy let it finish. */
	KUNIT_EXPECT_EQ(test, log_count(ctx, id), 1);
}

static void iwcm_test_destroy_while_connecting(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_connecting(test);
	struct destroyer *d = start_destroyer(test, id);

	/* As in-tree, destroy waits for the provider to answer the connect. */
	msleep(100);
	KUNIT_EXPECT_FALSE(test, completion_done(&d->done));
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 0);
	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_CONNECT_REPLY, 0,
					"late", 4, NULL));
	finish_destroyer(test, d);
	iwcm_flush_events();
	/* The reply is not delivered, and the new connection is reset. */
	KUNIT_EXPECT_EQ(test, log_count(ctx, id), 0);
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 1);
	KUNIT_EXPECT_EQ(test, ctx->last_qp_state, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_DESTROYING);
	KUNIT_EXPECT_EQ(test, iwcm_id_refcount(id), 1);	/* the provider's */
}

static void iwcm_test_handler_nonzero_destroys(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *id = new_connecting(test);

	ctx->handler_ret = -EINVAL;
	KUNIT_ASSERT_EQ(test, 0, inject(id, IW_CM_EVENT_CONNECT_REPLY, 0,
					NULL, 0, NULL));
	iwcm_flush_events();
	forget_id(test, id);	/* iw_cm destroyed it */
	KUNIT_EXPECT_EQ(test, ctx->nr_log, 1);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_DESTROYING);
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 1);
	KUNIT_EXPECT_EQ(test, ctx->last_qp_state, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_refcount(id), 1);	/* the provider's */
	fake_release(ctx, id);
}

static void iwcm_test_wrong_state(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_conn_param p = conn_param(NULL, 0, FAKE_QPN);
	struct iw_cm_id *idle = new_id(test);
	struct iw_cm_id *listener = new_listener(test);
	struct iw_cm_id *connecting = new_connecting(test);
	struct iw_cm_id *established = new_established(test);

	KUNIT_EXPECT_EQ(test, iw_cm_accept(idle, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_reject(idle, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(idle, 0), 0);

	KUNIT_EXPECT_EQ(test, iw_cm_connect(listener, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(listener, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_reject(listener, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(listener, 1), -EINVAL);

	KUNIT_EXPECT_EQ(test, iw_cm_connect(connecting, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_listen(connecting, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(connecting, &p), -EINVAL);

	KUNIT_EXPECT_EQ(test, iw_cm_listen(established, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(established, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_reject(established, NULL, 0), -EINVAL);

	/* None of the refused calls reached the provider. */
	KUNIT_EXPECT_EQ(test, ctx->n_connect, 2);
	KUNIT_EXPECT_EQ(test, ctx->n_accept, 0);
	KUNIT_EXPECT_EQ(test, ctx->n_reject, 0);
	KUNIT_EXPECT_EQ(test, ctx->n_create_listen, 1);
	KUNIT_EXPECT_EQ(test, ctx->n_modify, 0);
}

/*
 * MPA's 512 bytes, checked here for every driver; in-tree leaves it to the
 * driver (tests/parity/deviations, kunit:iw_cm_kunit:...private_data_limits).
 */
static void iwcm_test_private_data_limits(struct kunit *test)
{
	static const u8 big[IWCM_MAX_PRIVATE_DATA + 1];
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_id *child = new_child(test, new_listener(test), NULL);
	struct iw_cm_id *id = new_id(test);
	struct iw_cm_conn_param too_big = conn_param(big, sizeof(big),
						     FAKE_QPN);
	struct iw_cm_conn_param max = conn_param(big, sizeof(big) - 1,
						 FAKE_QPN);
	struct iw_cm_conn_param no_buf = conn_param(NULL, 1, FAKE_QPN);

	KUNIT_EXPECT_EQ(test, iw_cm_connect(id, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_connect(id, &too_big), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_connect(id, &no_buf), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->n_connect, 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_IDLE);

	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &too_big), -EINVAL);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->n_accept, 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_CONN_RECV);

	KUNIT_EXPECT_EQ(test, iw_cm_connect(id, &max), 0);
	KUNIT_EXPECT_EQ(test, ctx->last_pd_len, IWCM_MAX_PRIVATE_DATA);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &max), 0);
	KUNIT_EXPECT_EQ(test, ctx->n_accept, 1);
}

static void iwcm_test_no_iw_ops(struct kunit *test)
{
	struct fake_ctx *ctx = test->priv;
	struct iw_cm_conn_param p = conn_param(NULL, 0, FAKE_QPN);
	struct ib_device *bare;
	struct iw_cm_id *id;

	KUNIT_EXPECT_EQ(test, PTR_ERR(iw_create_cm_id(NULL, fake_handler, ctx)),
			-EINVAL);
	bare = kunit_kzalloc(test, sizeof(*bare), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bare);
	id = new_id_on(test, bare, ctx);
	KUNIT_EXPECT_EQ(test, iw_cm_listen(id, 0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, iw_cm_connect(id, &p), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(id, &p), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, iw_cm_reject(id, NULL, 0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, iw_cm_disconnect(id, 1), 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(id), IWCM_IDLE);
	destroy_id(test, id);
}

/* iw_cm_init_qp_attr() for each id state and QP state. */

enum qp_setup { S_IDLE, S_LISTEN, S_CONN_SENT, S_CONN_RECV, S_ESTABLISHED,
		S_CLOSING };

struct qp_attr_case {
	const char *name;
	enum qp_setup setup;
	enum ib_qp_state qp_state;
	int ret;
	int mask;		/* -1: left alone */
	int access;		/* -1: left alone */
};

#define RW	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ)
#define SA	(IB_QP_STATE | IB_QP_ACCESS_FLAGS)

static const struct qp_attr_case qp_attr_cases[] = {
	{ "idle INIT",		S_IDLE,		IB_QPS_INIT, 0, SA, RW },
	{ "idle RTR",		S_IDLE,		IB_QPS_RTR,  0, SA, RW },
	{ "idle RTS",		S_IDLE,		IB_QPS_RTS,  0, 0, -1 },
	{ "idle SQD",		S_IDLE,		IB_QPS_SQD,  -EINVAL, -1, -1 },
	{ "idle ERR",		S_IDLE,		IB_QPS_ERR,  -EINVAL, -1, -1 },
	{ "listen INIT",	S_LISTEN,	IB_QPS_INIT, -EINVAL, -1, -1 },
	{ "listen RTS",		S_LISTEN,	IB_QPS_RTS,  -EINVAL, -1, -1 },
	{ "conn_sent RTR",	S_CONN_SENT,	IB_QPS_RTR,  0, SA, RW },
	{ "conn_recv INIT",	S_CONN_RECV,	IB_QPS_INIT, 0, SA, RW },
	{ "conn_recv RTS",	S_CONN_RECV,	IB_QPS_RTS,  0, 0, -1 },
	{ "established RTR",	S_ESTABLISHED,	IB_QPS_RTR,  0, SA, RW },
	{ "established RTS",	S_ESTABLISHED,	IB_QPS_RTS,  0, 0, -1 },
	{ "established RESET",	S_ESTABLISHED,	IB_QPS_RESET, -EINVAL, -1, -1 },
	{ "closing INIT",	S_CLOSING,	IB_QPS_INIT, -EINVAL, -1, -1 },
	{ "closing RTS",	S_CLOSING,	IB_QPS_RTS,  -EINVAL, -1, -1 },
};

KUNIT_ARRAY_PARAM_DESC(qp_attr, qp_attr_cases, name);

static struct iw_cm_id *id_in(struct kunit *test, enum qp_setup setup)
{
	struct iw_cm_id *id;

	switch (setup) {
	case S_LISTEN:
		return new_listener(test);
	case S_CONN_SENT:
		return new_connecting(test);
	case S_CONN_RECV:
		return new_child(test, new_listener(test), NULL);
	case S_ESTABLISHED:
		return new_established(test);
	case S_CLOSING:
		id = new_established(test);
		KUNIT_ASSERT_EQ(test, iw_cm_disconnect(id, 0), 0);
		return id;
	case S_IDLE:
	default:
		return new_id(test);
	}
}

static void iwcm_test_init_qp_attr(struct kunit *test)
{
	const struct qp_attr_case *c = test->param_value;
	struct iw_cm_id *id = id_in(test, c->setup);
	struct ib_qp_attr attr;
	int mask = -1;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = c->qp_state;
	attr.qp_access_flags = -1;
	KUNIT_EXPECT_EQ(test, iw_cm_init_qp_attr(id, &attr, &mask), c->ret);
	KUNIT_EXPECT_EQ(test, mask, c->mask);
	KUNIT_EXPECT_EQ(test, attr.qp_access_flags, c->access);
	KUNIT_EXPECT_EQ(test, attr.qp_state, c->qp_state);
}

/* iwcm_reject_msg() */

struct reject_msg_case {
	const char *name;
	int reason;
	const char *msg;
};

/* The in-tree texts (ULP logs carry them); the parity suite compares too. */
static const struct reject_msg_case reject_msg_cases[] = {
	{ "0",			0,		"unrecognized reason" },
	{ "-ECONNRESET",	-ECONNRESET,	"reset by remote host" },
	{ "-ECONNREFUSED",	-ECONNREFUSED,	"refused by remote application" },
	{ "-ETIMEDOUT",		-ETIMEDOUT,	"setup timeout" },
	{ "-ENETUNREACH",	-ENETUNREACH,	"unrecognized reason" },
	{ "-EINVAL",		-EINVAL,	"unrecognized reason" },
	{ "-EIO",		-EIO,		"unrecognized reason" },
	{ "ECONNREFUSED",	ECONNREFUSED,	"unrecognized reason" },
	{ "INT_MIN",		INT_MIN,	"unrecognized reason" },
};

KUNIT_ARRAY_PARAM_DESC(reject_msg, reject_msg_cases, name);

static void iwcm_test_reject_msg(struct kunit *test)
{
	const struct reject_msg_case *c = test->param_value;

	KUNIT_EXPECT_STREQ(test, iwcm_reject_msg(c->reason), c->msg);
}

static struct kunit_case iwcm_test_cases[] = {
	KUNIT_CASE(iwcm_test_listen_backlog),
	KUNIT_CASE(iwcm_test_listen_provider_error),
	KUNIT_CASE(iwcm_test_conn_request),
	KUNIT_CASE(iwcm_test_conn_request_handler_refuses),
	KUNIT_CASE(iwcm_test_conn_request_not_listening),
	KUNIT_CASE(iwcm_test_listener_destroyed_with_queued_request),
	KUNIT_CASE_PARAM(iwcm_test_listen_flood, flood_gen_params),
	KUNIT_CASE(iwcm_test_accept_established),
	KUNIT_CASE(iwcm_test_accept_failures),
	KUNIT_CASE(iwcm_test_accept_upcall_inside),
	KUNIT_CASE(iwcm_test_accept_in_handler),
	KUNIT_CASE(iwcm_test_accept_in_handler_then_refuse),
	KUNIT_CASE(iwcm_test_reject),
	KUNIT_CASE(iwcm_test_connect_reply_ok),
	KUNIT_CASE(iwcm_test_connect_reply_refused),
	KUNIT_CASE(iwcm_test_connect_provider_error),
	KUNIT_CASE(iwcm_test_disconnect_then_close),
	KUNIT_CASE(iwcm_test_inline_elems),
	KUNIT_CASE(iwcm_test_events_in_order),
	KUNIT_CASE_PARAM(iwcm_test_disconnect, disconnect_gen_params),
	KUNIT_CASE(iwcm_test_destroy_with_queued_events),
	KUNIT_CASE(iwcm_test_destroy_waits_for_handler),
	KUNIT_CASE(iwcm_test_destroy_while_connecting),
	KUNIT_CASE(iwcm_test_handler_nonzero_destroys),
	KUNIT_CASE(iwcm_test_wrong_state),
	KUNIT_CASE(iwcm_test_private_data_limits),
	KUNIT_CASE(iwcm_test_no_iw_ops),
	KUNIT_CASE_PARAM(iwcm_test_init_qp_attr, qp_attr_gen_params),
	KUNIT_CASE_PARAM(iwcm_test_reject_msg, reject_msg_gen_params),
	{}
};

static struct kunit_suite iwcm_test_suite = {
	.name = "openrdma_iw_cm",
	.init = iwcm_test_init,
	.test_cases = iwcm_test_cases,
};

kunit_test_suite(iwcm_test_suite);

MODULE_DESCRIPTION("KUnit tests for the openrdma-cm iw_cm module");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
