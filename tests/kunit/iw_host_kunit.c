// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for iw_cm's host-stack CM (iw_cm/host.c, host_conn.c) over
 * real loopback TCP in the test kernel.
 *
 * The device is a mock host-model RNIC: an unregistered ib_device whose
 * ops are orcm_iw_host_device_ops (ib_set_device_ops(), as a driver does)
 * plus its own iw_add_ref/iw_rem_ref/iw_get_qp/modify_qp, with two QPs:
 * QP 1 for the initiator, QP 2 for the responder. Its ->attach() records
 * the negotiated parameters and keeps the socket; an initiator in
 * peer-to-peer mode writes 4 bytes "RTR!" as its RTR (a stand-in for the
 * zero-length RDMAP message), which the responder's test reads from the
 * handed-off socket: that the stream is positioned right after the MPA
 * frames is tested with it. A QP moved to SQD or ERR closes its socket
 * and reports orcm_iw_conn_released(), as a driver would.
 *
 * Users are iw_cm ids driven through the exported iw_cm API, and raw
 * kernel TCP sockets play bad peers on both sides.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "iw_cm/host.h"
#include "iw_cm/iwcm.h"
#include "iw_cm/iwpm.h"
#include "iw_cm/mpa.h"

#define QPN_INI		1
#define QPN_RSP		2
#define EV_MAX		32
#define WAIT_MS		5000
#define LOOPBACK	0x7f000001

struct hk_qp {
	struct ib_qp qp;
	bool attached, released;
	struct socket *sock;
	struct orcm_iw_conn *conn;
	struct orcm_iw_mpa_params params;
};

struct hk_ev {
	struct iw_cm_id *id;
	enum iw_cm_event_type type;
	int status;
	u8 pd[U8_MAX];
	u8 pd_len;
	u32 ird, ord;
};

struct hk_ctx {
	struct ib_device dev;
	struct ib_port_data port_data[2];
	struct hk_qp qps[3];		/* by QP number */
	atomic_t qp_refs;
	int attach_ret[3];		/* what ->attach() returns, by QPN */

	/* The user's log; @lock protects it (the handler runs in iw_cm). */
	spinlock_t lock;
	wait_queue_head_t wq;
	struct hk_ev ev[EV_MAX];
	int nr_ev;
	struct iw_cm_id *children[EV_MAX];	/* of each CONNECT_REQUEST */
	int nr_children, taken;		/* made; handed to the test */

	/* hk_race_hook(): the first pass through @race_at waits for @race_go. */
	enum hcm_race race_at;
	atomic_t race_hits;
	struct completion race_reached, race_go;

	/* Saved module parameters, restored at the end. */
	unsigned int rev, p2p_type, req_ms, rep_ms, rtr_ms, conn_ms;
	unsigned int max_half_open, max_half_open_per_addr;
	bool crc, markers, p2p;
};

static struct hk_ctx *hk_dev_ctx(struct ib_device *dev)
{
	return container_of(dev, struct hk_ctx, dev);
}

/* ---- the mock RNIC ---- */

static void hk_iw_add_ref(struct ib_qp *qp)
{
	atomic_inc(&hk_dev_ctx(qp->device)->qp_refs);
}

static void hk_iw_rem_ref(struct ib_qp *qp)
{
	atomic_dec(&hk_dev_ctx(qp->device)->qp_refs);
}

static struct ib_qp *hk_iw_get_qp(struct ib_device *dev, int qpn)
{
	if (qpn != QPN_INI && qpn != QPN_RSP)
		return NULL;
	return &hk_dev_ctx(dev)->qps[qpn].qp;
}

static int hk_send(struct socket *sock, const void *buf, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };

	return kernel_sendmsg(sock, &msg, &vec, 1, len);
}

static int hk_attach(struct ib_qp *ibqp, struct socket *sock,
		     const struct orcm_iw_mpa_params *params,
		     struct orcm_iw_conn *conn)
{
	struct hk_ctx *ctx = hk_dev_ctx(ibqp->device);
	struct hk_qp *qp = container_of(ibqp, struct hk_qp, qp);
	int ret = ctx->attach_ret[ibqp->qp_num];

	if (ret)
		return ret;
	qp->params = *params;
	sock->sk->sk_rcvtimeo = msecs_to_jiffies(WAIT_MS);
	/*
	 * As a driver does: the socket's user data is ours now. (An
	 * accepted socket that still carried the listener's callbacks
	 * would take this for the listener on the next data.)
	 */
	write_lock_bh(&sock->sk->sk_callback_lock);
	sock->sk->sk_user_data = qp;
	write_unlock_bh(&sock->sk->sk_callback_lock);
	qp->sock = sock;
	qp->conn = conn;
	qp->released = false;
	qp->attached = true;
	if (params->initiator && params->p2p)
		hk_send(sock, "RTR!", 4);
	return 0;
}

/* The driver lets go of the connection: close, report CLOSE. */
static void hk_release(struct hk_qp *qp, int status)
{
	if (!qp->attached || qp->released)
		return;
	qp->released = true;
	kernel_sock_shutdown(qp->sock, SHUT_RDWR);
	sock_release(qp->sock);
	qp->sock = NULL;
	orcm_iw_conn_released(qp->conn, status);
}

static int hk_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			int mask, struct ib_udata *udata)
{
	struct hk_qp *qp = container_of(ibqp, struct hk_qp, qp);

	if ((mask & IB_QP_STATE) &&
	    (attr->qp_state == IB_QPS_SQD || attr->qp_state == IB_QPS_ERR))
		hk_release(qp, 0);
	return 0;
}

static const struct orcm_iw_host_ops hk_host_ops = {
	.attach = hk_attach,
};

/* ---- the user ---- */

static int hk_handler(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct hk_ctx *ctx = id->context;
	struct hk_ev *rec;

	spin_lock(&ctx->lock);
	if (ctx->nr_ev < EV_MAX) {
		rec = &ctx->ev[ctx->nr_ev++];
		rec->id = id;
		rec->type = ev->event;
		rec->status = ev->status;
		rec->pd_len = ev->private_data_len;
		if (ev->private_data_len)
			memcpy(rec->pd, ev->private_data, ev->private_data_len);
		rec->ird = ev->ird;
		rec->ord = ev->ord;
		if (ev->event == IW_CM_EVENT_CONNECT_REQUEST)
			ctx->children[ctx->nr_children++] = id;
	}
	spin_unlock(&ctx->lock);
	wake_up_all(&ctx->wq);
	return 0;
}

/* The index of the first event of @type for @id, or -1. */
static int hk_find(struct hk_ctx *ctx, struct iw_cm_id *id,
		   enum iw_cm_event_type type)
{
	int i, found = -1;

	spin_lock(&ctx->lock);
	for (i = 0; i < ctx->nr_ev; i++) {
		if ((!id || ctx->ev[i].id == id) && ctx->ev[i].type == type) {
			found = i;
			break;
		}
	}
	spin_unlock(&ctx->lock);
	return found;
}

static int hk_wait_ms(struct hk_ctx *ctx, struct iw_cm_id *id,
		      enum iw_cm_event_type type, unsigned int ms)
{
	int i = -1;

	wait_event_timeout(ctx->wq, (i = hk_find(ctx, id, type)) >= 0,
			   msecs_to_jiffies(ms));
	return i;
}

static int hk_wait(struct hk_ctx *ctx, struct iw_cm_id *id,
		   enum iw_cm_event_type type)
{
	return hk_wait_ms(ctx, id, type, WAIT_MS);
}

static int hk_nr_events(struct hk_ctx *ctx)
{
	int n;

	spin_lock(&ctx->lock);
	n = ctx->nr_ev;
	spin_unlock(&ctx->lock);
	return n;
}

/* ---- ids ---- */

static void hk_set_sin(struct sockaddr_storage *ss, u32 ip, u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(ip);
	sin->sin_port = htons(port);
}

static u16 hk_port(const struct sockaddr_storage *ss)
{
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static void hk_id_destroy_action(void *arg)
{
	iw_destroy_cm_id(arg);
}

static void hk_adopt(struct kunit *test, struct iw_cm_id *id)
{
	int ret = kunit_add_action_or_reset(test, hk_id_destroy_action, id);

	KUNIT_ASSERT_EQ(test, ret, 0);
}

static void hk_destroy(struct kunit *test, struct iw_cm_id *id)
{
	kunit_release_action(test, hk_id_destroy_action, id);
}

static struct iw_cm_id *hk_new_id(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *id;

	id = iw_create_cm_id(&ctx->dev, hk_handler, ctx);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(id));
	hk_adopt(test, id);
	orcm_iw_cm_set_net(id, &init_net);
	return id;
}

/* A listener on 127.0.0.1 at a port the host picks; its port is @*port. */
static struct iw_cm_id *hk_listen(struct kunit *test, int backlog, u16 *port)
{
	struct iw_cm_id *id = hk_new_id(test);

	hk_set_sin(&id->local_addr, LOOPBACK, 0);
	KUNIT_ASSERT_EQ(test, iw_cm_listen(id, backlog), 0);
	*port = hk_port(&id->local_addr);
	KUNIT_ASSERT_NE(test, *port, 0);
	return id;
}

static int hk_connect(struct kunit *test, struct iw_cm_id **idp, u16 port,
		      const void *pd, u32 pd_len, u32 ird, u32 ord)
{
	struct iw_cm_conn_param p = {
		.qpn = QPN_INI, .ird = ird, .ord = ord,
		.private_data = pd, .private_data_len = pd_len,
	};
	struct iw_cm_id *id = hk_new_id(test);

	*idp = id;
	hk_set_sin(&id->remote_addr, LOOPBACK, port);
	return iw_cm_connect(id, &p);
}

static bool hk_child_ready(struct hk_ctx *ctx)
{
	bool ready;

	spin_lock(&ctx->lock);
	ready = ctx->nr_children > ctx->taken;
	spin_unlock(&ctx->lock);
	return ready;
}

/*
 * Wait for the next request on a listener; the test owns the new id.
 * @ev_idx: set to the index of its CONNECT_REQUEST in the log.
 */
static struct iw_cm_id *hk_child(struct kunit *test, int *ev_idx)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *child;
	int i, n = 0;

	KUNIT_ASSERT_GT(test, wait_event_timeout(ctx->wq, hk_child_ready(ctx),
						 msecs_to_jiffies(WAIT_MS)),
			0L);
	spin_lock(&ctx->lock);
	child = ctx->children[ctx->taken++];
	for (i = 0; i < ctx->nr_ev; i++)
		if (ctx->ev[i].type == IW_CM_EVENT_CONNECT_REQUEST &&
		    n++ == ctx->taken - 1)
			break;
	spin_unlock(&ctx->lock);
	hk_adopt(test, child);
	if (ev_idx)
		*ev_idx = i;
	return child;
}

/* ---- raw TCP peers ---- */

static void hk_sock_release_action(void *arg)
{
	sock_release(arg);
}

static int hk_own_sock(struct kunit *test, struct socket *sock)
{
	return kunit_add_action_or_reset(test, hk_sock_release_action, sock);
}

static struct socket *hk_raw_sock(struct kunit *test)
{
	struct socket *sock;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &sock), 0);
	KUNIT_ASSERT_EQ(test, hk_own_sock(test, sock), 0);
	sock->sk->sk_rcvtimeo = msecs_to_jiffies(WAIT_MS);
	sock->sk->sk_sndtimeo = msecs_to_jiffies(WAIT_MS);
	return sock;
}

/* A raw client of 127.0.0.1:@port from the address @src (0: the host's). */
static struct socket *hk_raw_connect_from(struct kunit *test, u16 port,
					  u32 src)
{
	struct socket *sock = hk_raw_sock(test);
	struct sockaddr_storage ss;

	if (src) {
		hk_set_sin(&ss, src, 0);
		KUNIT_ASSERT_EQ(test, kernel_bind(sock, (struct sockaddr *)&ss,
						  sizeof(ss)), 0);
	}
	hk_set_sin(&ss, LOOPBACK, port);
	KUNIT_ASSERT_EQ(test, kernel_connect(sock, (struct sockaddr *)&ss,
					     sizeof(ss), 0), 0);
	return sock;
}

static struct socket *hk_raw_connect(struct kunit *test, u16 port)
{
	return hk_raw_connect_from(test, port, 0);
}

static struct socket *hk_raw_listen(struct kunit *test, u16 *port)
{
	struct socket *sock = hk_raw_sock(test);
	struct sockaddr_storage ss;

	hk_set_sin(&ss, LOOPBACK, 0);
	KUNIT_ASSERT_EQ(test, kernel_bind(sock, (struct sockaddr *)&ss,
					  sizeof(ss)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(sock, 8), 0);
	KUNIT_ASSERT_GE(test, kernel_getsockname(sock, (struct sockaddr *)&ss),
			0);
	*port = hk_port(&ss);
	return sock;
}

static struct socket *hk_raw_accept(struct kunit *test, struct socket *lsock)
{
	struct socket *sock = NULL;
	unsigned long end = jiffies + msecs_to_jiffies(WAIT_MS);

	while (kernel_accept(lsock, &sock, O_NONBLOCK)) {
		KUNIT_ASSERT_TRUE(test, time_before(jiffies, end));
		msleep(20);
	}
	KUNIT_ASSERT_EQ(test, hk_own_sock(test, sock), 0);
	sock->sk->sk_rcvtimeo = msecs_to_jiffies(WAIT_MS);
	return sock;
}

/* Read exactly @len bytes (blocking, with the socket's timeout). */
static int hk_recv(struct socket *sock, void *buf, size_t len)
{
	struct msghdr msg = {};
	struct kvec vec = { .iov_base = buf, .iov_len = len };

	return kernel_recvmsg(sock, &msg, &vec, 1, len, MSG_WAITALL);
}

/* The peer closed or reset @sock within @ms. */
static bool hk_closed_within(struct socket *sock, unsigned int ms)
{
	u8 byte;
	int ret;

	sock->sk->sk_rcvtimeo = msecs_to_jiffies(ms);
	ret = hk_recv(sock, &byte, 1);
	return ret == 0 || ret == -ECONNRESET || ret == -EPIPE;
}

/* Read a whole MPA frame off a raw socket and decode it. */
static int hk_raw_frame(struct socket *sock, bool request, u8 *buf,
			struct orcm_mpa_frame *f)
{
	int ret, total;

	ret = hk_recv(sock, buf, ORCM_MPA_HDR_LEN);
	if (ret != ORCM_MPA_HDR_LEN)
		return ret < 0 ? ret : -ENODATA;
	total = orcm_mpa_hdr_check(buf, ORCM_MPA_HDR_LEN, request);
	if (total < 0)
		return total;
	if (total > ORCM_MPA_HDR_LEN) {
		ret = hk_recv(sock, buf + ORCM_MPA_HDR_LEN,
			      total - ORCM_MPA_HDR_LEN);
		if (ret != total - ORCM_MPA_HDR_LEN)
			return -ENODATA;
	}
	return orcm_mpa_decode(buf, total, request, f);
}

/* ---- fixture ---- */

/* The test whose hk_race_hook() is installed (one test runs at a time). */
static struct hk_ctx *hk_race_ctx;

/* hcm_race_hook: hold the first pass through ctx->race_at until released. */
static void hk_race_hook(struct orcm_iw_conn *conn, enum hcm_race where)
{
	struct hk_ctx *ctx = READ_ONCE(hk_race_ctx);

	if (!ctx || where != ctx->race_at ||
	    atomic_inc_return(&ctx->race_hits) != 1)
		return;
	complete(&ctx->race_reached);
	wait_for_completion_timeout(&ctx->race_go, msecs_to_jiffies(WAIT_MS));
}

/* Hold the next connection work that reaches @where. */
static void hk_race_arm(struct kunit *test, enum hcm_race where)
{
	struct hk_ctx *ctx = test->priv;

	ctx->race_at = where;
	WRITE_ONCE(hk_race_ctx, ctx);
	WRITE_ONCE(hcm_race_hook, hk_race_hook);
}

/* The work is held in the window. */
static void hk_race_reached(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;

	KUNIT_ASSERT_GT(test,
			wait_for_completion_timeout(&ctx->race_reached,
						    msecs_to_jiffies(WAIT_MS)),
			0UL);
}

static void hk_ctx_cleanup(void *arg)
{
	struct hk_ctx *ctx = arg;

	WRITE_ONCE(hcm_mpa_rev, ctx->rev);
	WRITE_ONCE(hcm_crc, ctx->crc);
	WRITE_ONCE(hcm_markers, ctx->markers);
	WRITE_ONCE(hcm_peer2peer, ctx->p2p);
	WRITE_ONCE(hcm_p2p_type, ctx->p2p_type);
	WRITE_ONCE(hcm_mpa_req_timeout_ms, ctx->req_ms);
	WRITE_ONCE(hcm_mpa_rep_timeout_ms, ctx->rep_ms);
	WRITE_ONCE(hcm_rtr_timeout_ms, ctx->rtr_ms);
	WRITE_ONCE(hcm_connect_timeout_ms, ctx->conn_ms);
	WRITE_ONCE(hcm_max_half_open, ctx->max_half_open);
	WRITE_ONCE(hcm_max_half_open_per_addr, ctx->max_half_open_per_addr);
	WRITE_ONCE(hcm_race_hook, NULL);
	WRITE_ONCE(hk_race_ctx, NULL);
	complete_all(&ctx->race_go);
	/* Let queued work of the test's connections finish. */
	orcm_iw_host_flush();
	iwcm_flush_events();
	orcm_iw_host_unregister(&ctx->dev);
}

static int hk_init(struct kunit *test)
{
	struct hk_ctx *ctx;
	int i, ret;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ib_set_device_ops(&ctx->dev, &orcm_iw_host_device_ops);
	/* A host-model device: its ports are host ports, never mapped. */
	ctx->dev.iw_driver_flags = IW_F_NO_PORT_MAP;
	ctx->dev.ops.iw_add_ref = hk_iw_add_ref;
	ctx->dev.ops.iw_rem_ref = hk_iw_rem_ref;
	ctx->dev.ops.iw_get_qp = hk_iw_get_qp;
	ctx->dev.ops.modify_qp = hk_modify_qp;
	ctx->dev.attrs.max_qp_rd_atom = 16;
	ctx->dev.attrs.max_qp_init_rd_atom = 16;
	ctx->port_data[1].immutable.core_cap_flags = RDMA_CORE_PORT_IWARP;
	ctx->dev.port_data = ctx->port_data;
	ctx->dev.phys_port_cnt = 1;
	for (i = QPN_INI; i <= QPN_RSP; i++) {
		ctx->qps[i].qp.device = &ctx->dev;
		ctx->qps[i].qp.real_qp = &ctx->qps[i].qp;
		ctx->qps[i].qp.qp_type = IB_QPT_RC;
		ctx->qps[i].qp.qp_num = i;
		ctx->qps[i].qp.port = 1;
	}
	spin_lock_init(&ctx->lock);
	init_waitqueue_head(&ctx->wq);
	init_completion(&ctx->race_reached);
	init_completion(&ctx->race_go);
	ctx->rev = hcm_mpa_rev;
	ctx->crc = hcm_crc;
	ctx->markers = hcm_markers;
	ctx->p2p = hcm_peer2peer;
	ctx->p2p_type = hcm_p2p_type;
	ctx->req_ms = hcm_mpa_req_timeout_ms;
	ctx->rep_ms = hcm_mpa_rep_timeout_ms;
	ctx->rtr_ms = hcm_rtr_timeout_ms;
	ctx->conn_ms = hcm_connect_timeout_ms;
	ctx->max_half_open = hcm_max_half_open;
	ctx->max_half_open_per_addr = hcm_max_half_open_per_addr;
	test->priv = ctx;
	ret = orcm_iw_host_register(&ctx->dev, &hk_host_ops);
	if (ret)
		return ret;
	return kunit_add_action_or_reset(test, hk_ctx_cleanup, ctx);
}

struct hk_params {
	u8 rev;
	bool crc, markers, p2p;
	enum orcm_iw_rtr type;
};

static void hk_set_params(const struct hk_params *p)
{
	WRITE_ONCE(hcm_mpa_rev, p->rev);
	WRITE_ONCE(hcm_crc, p->crc);
	WRITE_ONCE(hcm_markers, p->markers);
	WRITE_ONCE(hcm_peer2peer, p->p2p);
	if (p->type != ORCM_IW_RTR_NONE)
		WRITE_ONCE(hcm_p2p_type, p->type);
}

/* ---- tests ---- */

static void hk_test_register(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct ib_device *other;
	struct iw_cm_id *id;

	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	id = kunit_kzalloc(test, sizeof(*id), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_NOT_NULL(test, id);
	KUNIT_EXPECT_EQ(test, orcm_iw_host_register(&ctx->dev, &hk_host_ops),
			-EEXIST);
	KUNIT_EXPECT_EQ(test, orcm_iw_host_register(other, NULL), -EINVAL);
	/* A device that did not register has no host CM. */
	id->device = other;
	KUNIT_EXPECT_EQ(test, orcm_iw_host_device_ops.iw_create_listen(id, 1),
			-EOPNOTSUPP);
}

struct neg_case {
	const char *name;
	struct hk_params ini, rsp;
	u8 rev;
	bool crc, ini_mrx, ini_mtx, p2p;
	enum orcm_iw_rtr rtr;
};

#define P2P2(t)	{ .rev = 2, .p2p = true, .type = (t) }

static const struct neg_case neg_cases[] = {
	{ "v2-p2p-write", P2P2(ORCM_IW_RTR_WRITE), P2P2(ORCM_IW_RTR_WRITE),
	  2, .p2p = true, .rtr = ORCM_IW_RTR_WRITE },
	{ "v2-p2p-read", P2P2(ORCM_IW_RTR_READ), P2P2(ORCM_IW_RTR_WRITE),
	  2, .p2p = true, .rtr = ORCM_IW_RTR_READ },
	{ "v2-p2p-send", P2P2(ORCM_IW_RTR_SEND), P2P2(ORCM_IW_RTR_WRITE),
	  2, .p2p = true, .rtr = ORCM_IW_RTR_SEND },
	{ "v2-no-p2p", { .rev = 2 }, { .rev = 2 }, 2 },
	{ "v2-responder-not-p2p", P2P2(ORCM_IW_RTR_WRITE), { .rev = 2 }, 2 },
	{ "v2-initiator-not-p2p", { .rev = 2 }, P2P2(ORCM_IW_RTR_WRITE), 2 },
	{ "fallback-to-v1", P2P2(ORCM_IW_RTR_WRITE), { .rev = 1, .p2p = true },
	  1 },
	{ "v1-both", { .rev = 1 }, { .rev = 1 }, 1 },
	{ "v1-initiator", { .rev = 1 }, P2P2(ORCM_IW_RTR_READ), 1 },
	{ "crc-initiator", { .rev = 2, .crc = true }, { .rev = 2 }, 2,
	  .crc = true },
	{ "crc-responder", { .rev = 1 }, { .rev = 1, .crc = true }, 1,
	  .crc = true },
	{ "markers-initiator", { .rev = 2, .markers = true }, { .rev = 2 }, 2,
	  .ini_mrx = true },
	{ "markers-responder", { .rev = 2 }, { .rev = 2, .markers = true }, 2,
	  .ini_mtx = true },
	{ "all-on", { .rev = 2, .crc = true, .markers = true, .p2p = true,
	  .type = ORCM_IW_RTR_READ }, { .rev = 2, .crc = true,
	  .markers = true, .p2p = true }, 2, true, true, true, true,
	  ORCM_IW_RTR_READ },
};

KUNIT_ARRAY_PARAM_DESC(neg, neg_cases, name);

/*
 * A whole connection per combination: the events, what each end's
 * driver was handed, ESTABLISHED only after the RTR, and a stream that
 * starts right after the MPA frames.
 */
static void hk_test_negotiation(struct kunit *test)
{
	const struct neg_case *c = test->param_value;
	struct hk_ctx *ctx = test->priv;
	struct hk_qp *qi = &ctx->qps[QPN_INI], *qr = &ctx->qps[QPN_RSP];
	struct iw_cm_conn_param ap = { .qpn = QPN_RSP, .ird = 7, .ord = 2,
				       .private_data = "rep",
				       .private_data_len = 3 };
	struct iw_cm_id *aid, *child;
	u8 buf[8];
	int i, req, rep;
	u16 port;

	hk_set_params(&c->ini);
	hk_listen(test, 8, &port);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, "req", 3, 5, 3), 0);
	child = hk_child(test, &req);
	KUNIT_EXPECT_EQ(test, ctx->ev[req].pd_len, 3);
	KUNIT_EXPECT_MEMEQ(test, ctx->ev[req].pd, "req", 3);
	/* The peer's IRD/ORD in revision 2; the device's in revision 1. */
	KUNIT_EXPECT_EQ(test, ctx->ev[req].ird, c->ini.rev == 2 ? 5 : 16);
	KUNIT_EXPECT_EQ(test, ctx->ev[req].ord, c->ini.rev == 2 ? 3 : 16);

	hk_set_params(&c->rsp);
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &ap), 0);
	rep = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, rep, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[rep].status, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[rep].pd_len, 3);
	KUNIT_EXPECT_MEMEQ(test, ctx->ev[rep].pd, "rep", 3);
	KUNIT_EXPECT_EQ(test, hk_port(&aid->m_remote_addr), port);
	KUNIT_ASSERT_TRUE(test, qi->attached);
	KUNIT_ASSERT_TRUE(test, qr->attached);

	KUNIT_EXPECT_TRUE(test, qi->params.initiator);
	KUNIT_EXPECT_FALSE(test, qr->params.initiator);
	for (i = 0; i < 2; i++) {
		const struct orcm_iw_mpa_params *p = i ? &qr->params :
							 &qi->params;

		KUNIT_EXPECT_EQ(test, p->rev, c->rev);
		KUNIT_EXPECT_EQ(test, p->crc, c->crc);
		KUNIT_EXPECT_EQ(test, p->p2p, c->p2p);
		KUNIT_EXPECT_EQ(test, p->rtr, c->p2p ? c->rtr :
						       ORCM_IW_RTR_NONE);
	}
	KUNIT_EXPECT_EQ(test, qi->params.markers_rx, c->ini_mrx);
	KUNIT_EXPECT_EQ(test, qi->params.markers_tx, c->ini_mtx);
	KUNIT_EXPECT_EQ(test, qr->params.markers_tx, c->ini_mrx);
	KUNIT_EXPECT_EQ(test, qr->params.markers_rx, c->ini_mtx);
	if (c->rev == 2) {
		/* ORD at most the peer's IRD, both ways. */
		KUNIT_EXPECT_EQ(test, qr->params.ord, 2);
		KUNIT_EXPECT_EQ(test, qi->params.ord, 3);
		KUNIT_EXPECT_EQ(test, ctx->ev[rep].ord, 3);
	}

	if (c->p2p) {
		/* No ESTABLISHED before the RTR... */
		msleep(50);
		KUNIT_EXPECT_LT(test, hk_find(ctx, child,
					      IW_CM_EVENT_ESTABLISHED), 0);
		/* ...which is the first thing on the responder's stream. */
		KUNIT_ASSERT_EQ(test, hk_recv(qr->sock, buf, 4), 4);
		KUNIT_EXPECT_MEMEQ(test, buf, "RTR!", 4);
		orcm_iw_conn_rtr_received(qr->conn);
	}
	i = hk_wait(ctx, child, IW_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(aid), IWCM_ESTABLISHED);

	/* Both streams start right after the MPA frames. */
	KUNIT_ASSERT_EQ(test, hk_send(qr->sock, "DATA", 4), 4);
	KUNIT_ASSERT_EQ(test, hk_recv(qi->sock, buf, 4), 4);
	KUNIT_EXPECT_MEMEQ(test, buf, "DATA", 4);
	KUNIT_ASSERT_EQ(test, hk_send(qi->sock, "ATAD", 4), 4);
	KUNIT_ASSERT_EQ(test, hk_recv(qr->sock, buf, 4), 4);
	KUNIT_EXPECT_MEMEQ(test, buf, "ATAD", 4);
}

struct pd_case {
	const char *name;
	u8 rev;
	u32 len;
	int err;
};

static const struct pd_case pd_cases[] = {
	{ "0", 2, 0 },
	{ "255", 2, 255 },
	{ "508-rev2", 2, 508 },
	{ "509-rev2", 2, 509, -EINVAL },	/* 4 bytes go to IRD/ORD */
	{ "512-rev1", 1, 512 },
	{ "513", 1, 513, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(pd, pd_cases, name);

/* Private data of every size, in the request and in the reply. */
static void hk_test_private_data(struct kunit *test)
{
	const struct pd_case *c = test->param_value;
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_conn_param ap = { .qpn = QPN_RSP };
	struct hk_params p = { .rev = c->rev };
	struct iw_cm_id *aid, *child;
	u8 *pd;
	int i, req;
	u16 port;

	pd = kunit_kzalloc(test, 520, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	for (i = 0; i < 520; i++)
		pd[i] = i * 13 + 1;
	hk_set_params(&p);
	hk_listen(test, 4, &port);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, pd, c->len, 1, 1),
			c->err);
	if (c->err) {
		KUNIT_EXPECT_EQ(test, iwcm_id_state(aid), IWCM_IDLE);
		return;
	}
	child = hk_child(test, &req);
	/* An iw_cm event carries a u8 of private data. */
	KUNIT_EXPECT_EQ(test, ctx->ev[req].pd_len, min_t(u32, c->len, 255));
	KUNIT_EXPECT_MEMEQ(test, ctx->ev[req].pd, pd,
			   min_t(u32, c->len, 255));
	ap.private_data = pd + 1;
	ap.private_data_len = c->len;
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &ap), 0);
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].pd_len, min_t(u32, c->len, 255));
	KUNIT_EXPECT_MEMEQ(test, ctx->ev[i].pd, pd + 1,
			   min_t(u32, c->len, 255));
}

static void hk_test_accept_pd_too_big(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_conn_param ap = { .qpn = QPN_RSP,
				       .private_data_len = 509 };
	struct hk_params p = { .rev = 2 };
	struct iw_cm_id *aid, *child;
	int i;
	u16 port;

	ap.private_data = kunit_kzalloc(test, 509, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ap.private_data);
	hk_set_params(&p);
	hk_listen(test, 4, &port);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, NULL, 0, 1, 1), 0);
	child = hk_child(test, NULL);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &ap), -EINVAL);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_IDLE);
	/* The connection is closed: the initiator hears of it. */
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, -ECONNRESET);
}

static void hk_test_reject_with_data(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *aid, *child;
	int i;
	u16 port;

	hk_listen(test, 4, &port);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, "hi", 2, 1, 1), 0);
	child = hk_child(test, NULL);
	KUNIT_ASSERT_EQ(test, iw_cm_reject(child, "go away", 7), 0);
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].pd_len, 7);
	KUNIT_EXPECT_MEMEQ(test, ctx->ev[i].pd, "go away", 7);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(aid), IWCM_IDLE);
	KUNIT_EXPECT_FALSE(test, ctx->qps[QPN_INI].attached);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
}

static void hk_test_connect_refused(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct socket *s;
	struct iw_cm_id *aid;
	int i;
	u16 port;

	/* A port that was just free: nobody listens there now. */
	s = hk_raw_listen(test, &port);
	kunit_release_action(test, hk_sock_release_action, s);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, NULL, 0, 1, 1), 0);
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].pd_len, 0);
}

/* rdma_connect() never waits for TCP or MPA: a silent peer proves it. */
static void hk_test_connect_does_not_block(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *aid;
	unsigned long t0;
	int i;
	u16 port;

	WRITE_ONCE(hcm_mpa_rep_timeout_ms, 300);
	hk_raw_listen(test, &port);
	t0 = jiffies;
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, NULL, 0, 1, 1), 0);
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - t0), 100U);
	KUNIT_EXPECT_EQ(test, hk_nr_events(ctx), 0);
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - t0), 250U);
}

/* The raw server checks the request, then answers with @reply. */
struct bad_reply {
	const char *name;
	const char *key;
	u8 tail[16];
	unsigned int len;
	bool close;		/* then close the connection */
	int status;
};

#define REP_KEY	"MPA ID Rep Frame"
#define REQ_KEY	"MPA ID Req Frame"

/* A frame: a 16-byte key and what follows it; @len bytes are sent. */
static void hk_frame(u8 *buf, const char *key, const u8 *tail)
{
	memcpy(buf, key, ORCM_MPA_KEY_LEN);
	memcpy(buf + ORCM_MPA_KEY_LEN, tail, 16);
}

static const struct bad_reply bad_replies[] = {
	{ "garbage-key", "XPA ID Rep Frame", { 0x10, 2, 0, 4, 0, 1, 0, 1 }, 24,
	  .status = -ECONNRESET },
	{ "request-key", REQ_KEY, { 0x10, 2, 0, 4, 0, 1, 0, 1 }, 24,
	  .status = -ECONNRESET },
	{ "rev-3", REP_KEY, { 0x10, 3, 0, 4, 0, 1, 0, 1 }, 24,
	  .status = -ECONNRESET },
	{ "pdlen-513", REP_KEY, { 0x10, 2, 2, 1, 0, 1, 0, 1 }, 24,
	  .status = -ECONNRESET },
	{ "v2-without-H", REP_KEY, { 0, 2, 0, 4, 0, 1, 0, 1 }, 24,
	  .status = -ECONNRESET },
	/* We offered WRITE (default p2p_type); a READ answer is wrong. */
	{ "rtr-not-offered", REP_KEY, { 0x10, 2, 0, 4, 0x80, 1, 0x40, 1 },
	  24, .status = -ECONNRESET },
	{ "two-rtr", REP_KEY, { 0x10, 2, 0, 4, 0x80, 1, 0xc0, 1 }, 24,
	  .status = -ECONNRESET },
	{ "rtr-without-p2p", REP_KEY, { 0x10, 2, 0, 4, 0, 1, 0x80, 1 }, 24,
	  .status = -ECONNRESET },
	{ "pdlen-above-bytes-then-close", REP_KEY, { 0x10, 2, 0, 9, 0x80, 1,
	  0x80, 1 }, 24, true, -ECONNRESET },
	{ "half-header-then-silence", REP_KEY, {}, 10,
	  .status = -ETIMEDOUT },
	{ "nothing-then-close", REP_KEY, {}, 0, true, -ECONNRESET },
	{ "good-control", REP_KEY, { 0x10, 2, 0, 4, 0x80, 1, 0x80, 1 }, 24 },
};

KUNIT_ARRAY_PARAM_DESC(bad_reply, bad_replies, name);

static void hk_test_bad_reply(struct kunit *test)
{
	const struct bad_reply *c = test->param_value;
	struct hk_ctx *ctx = test->priv;
	struct orcm_mpa_frame req;
	struct socket *ls, *s;
	struct iw_cm_id *aid;
	u8 *buf;
	int i;
	u16 port;

	buf = kunit_kzalloc(test, ORCM_MPA_FRAME_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	WRITE_ONCE(hcm_mpa_rep_timeout_ms, 300);
	ls = hk_raw_listen(test, &port);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, "x", 1, 1, 1), 0);
	s = hk_raw_accept(test, ls);
	KUNIT_ASSERT_GT(test, hk_raw_frame(s, true, buf, &req), 0);
	KUNIT_EXPECT_EQ(test, req.rev, 2);
	KUNIT_EXPECT_TRUE(test, req.p2p);
	KUNIT_EXPECT_EQ(test, req.rtr, ORCM_RTR_BIT(ORCM_IW_RTR_WRITE));
	KUNIT_EXPECT_EQ(test, req.pd_len, 1);
	hk_frame(buf, c->key, c->tail);
	if (c->len)
		KUNIT_ASSERT_EQ(test, hk_send(s, buf, c->len), c->len);
	if (c->close)
		kernel_sock_shutdown(s, SHUT_RDWR);
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, c->status);
	KUNIT_EXPECT_EQ(test, ctx->qps[QPN_INI].attached, !c->status);
	if (c->status)
		KUNIT_EXPECT_TRUE(test, hk_closed_within(s, WAIT_MS));
}

/*
 * A responder may send its first FPDU in the same segment as its reply
 * (no peer-to-peer: it need not wait for an RTR). The host CM reads the
 * reply and not one octet more: what follows is the driver's, still in the
 * socket it is handed (softrnic reads it once attached, sr_conn_attach()).
 */
static void hk_test_reply_and_data_in_one_write(struct kunit *test)
{
	/* The good reply's control octets: peer-to-peer, WRITE RTR. */
	static const u8 rep[16] = { 0x10, 2, 0, 4, 0x80, 1, 0x80, 1 };
	static const u8 tail[] = { 0x00, 0x0a, 0x41, 0x43, 1, 2, 3, 4,
				   5, 6, 7, 8 };
	struct hk_ctx *ctx = test->priv;
	struct orcm_mpa_frame req;
	struct socket *ls, *s;
	struct iw_cm_id *aid;
	struct msghdr msg = {};
	struct kvec vec;
	u8 *buf, got[sizeof(tail)];
	int i;
	u16 port;

	buf = kunit_kzalloc(test, ORCM_MPA_FRAME_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	ls = hk_raw_listen(test, &port);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, "x", 1, 1, 1), 0);
	s = hk_raw_accept(test, ls);
	KUNIT_ASSERT_GT(test, hk_raw_frame(s, true, buf, &req), 0);
	/* The good reply, then the data: one send. */
	hk_frame(buf, REP_KEY, rep);
	memcpy(buf + 24, tail, sizeof(tail));
	KUNIT_ASSERT_EQ(test, hk_send(s, buf, 24 + sizeof(tail)),
			(int)(24 + sizeof(tail)));
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_ASSERT_EQ(test, ctx->ev[i].status, 0);
	KUNIT_ASSERT_TRUE(test, ctx->qps[QPN_INI].attached);
	/* The attached socket still holds every octet after the reply. */
	vec.iov_base = got;
	vec.iov_len = sizeof(got);
	KUNIT_ASSERT_EQ(test, kernel_recvmsg(ctx->qps[QPN_INI].sock, &msg, &vec,
					     1, sizeof(got), MSG_WAITALL),
			(int)sizeof(got));
	KUNIT_EXPECT_MEMEQ(test, got, tail, sizeof(tail));
}

/* A raw client sends @frame to the host CM's listener. */
struct bad_request {
	const char *name;
	const char *key;
	u8 tail[16];
	unsigned int len;
};

static const struct bad_request bad_requests[] = {
	{ "garbage-key", "MPA ID Req FramX", { 0x10, 2, 0, 4, 0, 1, 0, 1 }, 24 },
	{ "reply-where-request-belongs", REP_KEY, { 0x10, 2, 0, 4, 0, 1, 0,
	  1 }, 24 },
	{ "R-in-request", REQ_KEY, { 0x20, 1, 0, 0 }, 20 },
	{ "rev-0", REQ_KEY, { 0, 0, 0, 0 }, 20 },
	{ "rev-3", REQ_KEY, { 0x10, 3, 0, 4, 0, 1, 0, 1 }, 24 },
	{ "pdlen-513", REQ_KEY, { 0, 1, 2, 1 }, 20 },
	{ "v2-without-H", REQ_KEY, { 0, 2, 0, 4, 0, 1, 0, 1 }, 24 },
	{ "v2-pdlen-2", REQ_KEY, { 0x10, 2, 0, 2, 0, 1 }, 22 },
	{ "rtr-without-p2p", REQ_KEY, { 0x10, 2, 0, 4, 0, 1, 0x80, 1 }, 24 },
	{ "p2p-without-rtr", REQ_KEY, { 0x10, 2, 0, 4, 0x80, 1, 0, 1 }, 24 },
	{ "p2p-read-only-ord-0", REQ_KEY, { 0x10, 2, 0, 4, 0x80, 1, 0x40, 0 },
	  24 },
	{ "pdlen-above-bytes", REQ_KEY, { 0, 1, 0, 100, 1, 2, 3 }, 23 },
	{ "half-header", REQ_KEY, {}, 12 },
	{ "nothing", REQ_KEY, {}, 0 },
};

KUNIT_ARRAY_PARAM_DESC(bad_request, bad_requests, name);

/*
 * Each bad request is closed, by the decoder at once or by the request
 * timeout, without a CONNECT_REQUEST; the listener serves a good client
 * afterwards.
 */
static void hk_test_bad_request(struct kunit *test)
{
	const struct bad_request *c = test->param_value;
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *lid, *aid;
	unsigned int half_open;
	unsigned long refused;
	struct socket *s;
	u32 backlog;
	u8 buf[32];
	u16 port;

	WRITE_ONCE(hcm_mpa_req_timeout_ms, 300);
	lid = hk_listen(test, 4, &port);
	s = hk_raw_connect(test, port);
	hk_frame(buf, c->key, c->tail);
	if (c->len)
		KUNIT_ASSERT_EQ(test, hk_send(s, buf, c->len), c->len);
	KUNIT_EXPECT_TRUE(test, hk_closed_within(s, 3000));
	KUNIT_EXPECT_EQ(test, hk_nr_events(ctx), 0);
	orcm_iw_host_flush();
	orcm_iw_host_listener_stats(lid, &half_open, &refused, &backlog);
	KUNIT_EXPECT_EQ(test, half_open, 0U);

	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, NULL, 0, 1, 1), 0);
	hk_child(test, NULL);
}

static void hk_test_half_open_cap(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	long before = atomic_long_read(&hcm_half_open_refused);
	unsigned long end = jiffies + msecs_to_jiffies(WAIT_MS);
	struct socket *s[5];
	unsigned int half_open;
	unsigned long refused;
	struct iw_cm_id *lid, *aid;
	int i, closed = 0;
	u32 backlog;
	u16 port;

	/* One source here: its own cap must not bite first. */
	WRITE_ONCE(hcm_max_half_open, 2);
	WRITE_ONCE(hcm_max_half_open_per_addr, 2);
	lid = hk_listen(test, 16, &port);
	for (i = 0; i < 5; i++)
		s[i] = hk_raw_connect(test, port);
	do {
		msleep(20);
		orcm_iw_host_listener_stats(lid, &half_open, &refused,
					    &backlog);
	} while (refused < 3 && time_before(jiffies, end));
	KUNIT_EXPECT_EQ(test, refused, 3UL);
	KUNIT_EXPECT_EQ(test, half_open, 2U);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&hcm_half_open_refused),
			before + 3);
	/* The refused ones were reset; the two others are still open. */
	for (i = 0; i < 5; i++)
		closed += hk_closed_within(s[i], 100);
	KUNIT_EXPECT_EQ(test, closed, 3);

	/* Freeing a slot lets a real request in. */
	kunit_release_action(test, hk_sock_release_action, s[0]);
	kunit_release_action(test, hk_sock_release_action, s[1]);
	kunit_release_action(test, hk_sock_release_action, s[2]);
	kunit_release_action(test, hk_sock_release_action, s[3]);
	kunit_release_action(test, hk_sock_release_action, s[4]);
	end = jiffies + msecs_to_jiffies(WAIT_MS);
	do {
		msleep(20);
		orcm_iw_host_listener_stats(lid, &half_open, &refused,
					    &backlog);
	} while (half_open && time_before(jiffies, end));
	KUNIT_EXPECT_EQ(test, half_open, 0U);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, NULL, 0, 1, 1), 0);
	hk_child(test, NULL);
	KUNIT_EXPECT_EQ(test, hk_nr_events(ctx), 1);
}

/*
 * Issue 30, defect 5: a source that connects and stays silent must not
 * take every half-open slot of a listener. With a cap of 4 per listener
 * (by default 1 per source), four idle connects from 127.0.0.1 leave room
 * for a client from 127.0.0.2, whose request gets through.
 */
static void hk_test_half_open_per_source(struct kunit *test)
{
	static const u8 v1[16] = { 0, 1, 0, 0 };	/* rev 1, no data */
	unsigned long end = jiffies + msecs_to_jiffies(WAIT_MS);
	struct socket *good;
	struct iw_cm_id *lid;
	unsigned int half_open;
	unsigned long refused;
	u32 backlog;
	u8 buf[32];
	int i;
	u16 port;

	WRITE_ONCE(hcm_max_half_open, 4);
	lid = hk_listen(test, 16, &port);
	for (i = 0; i < 4; i++)
		hk_raw_connect(test, port);
	do {
		msleep(20);
		orcm_iw_host_listener_stats(lid, &half_open, &refused,
					    &backlog);
	} while (half_open + refused < 4 && time_before(jiffies, end));
	KUNIT_EXPECT_EQ(test, half_open, 1U);
	KUNIT_EXPECT_EQ(test, refused, 3UL);

	good = hk_raw_connect_from(test, port, LOOPBACK + 1);
	hk_frame(buf, REQ_KEY, v1);
	KUNIT_ASSERT_EQ(test, hk_send(good, buf, 20), 20);
	hk_child(test, NULL);
	orcm_iw_host_listener_stats(lid, &half_open, &refused, &backlog);
	KUNIT_EXPECT_EQ(test, refused, 3UL);
	KUNIT_EXPECT_FALSE(test, hk_closed_within(good, 100));
}

static void hk_test_backlog_and_host_port(struct kunit *test)
{
	struct iw_cm_id *lid, *lid2;
	struct sockaddr_storage ss;
	unsigned int half_open;
	unsigned long refused;
	struct socket *s;
	u32 backlog;
	u16 port, port2;

	lid = hk_listen(test, 7, &port);
	orcm_iw_host_listener_stats(lid, &half_open, &refused, &backlog);
	KUNIT_EXPECT_EQ(test, backlog, 7U);

	/* The listener owns a host port... */
	s = hk_raw_sock(test);
	hk_set_sin(&ss, LOOPBACK, port);
	KUNIT_EXPECT_EQ(test, kernel_bind(s, (struct sockaddr *)&ss,
					  sizeof(ss)), -EADDRINUSE);
	/* ...and cannot take one a host socket listens on. */
	hk_raw_listen(test, &port2);
	lid2 = hk_new_id(test);
	hk_set_sin(&lid2->local_addr, LOOPBACK, port2);
	KUNIT_EXPECT_EQ(test, iw_cm_listen(lid2, 4), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(lid2), IWCM_IDLE);

	/* Destroyed, the port is free again. */
	hk_destroy(test, lid);
	KUNIT_EXPECT_EQ(test, kernel_bind(s, (struct sockaddr *)&ss,
					  sizeof(ss)), 0);
}

static void hk_restore_iwpm_mode(void *mode)
{
	iwpm_test_set_mode((long)mode);
}

/* -EADDRINUSE or 0: can a host socket with SO_REUSEADDR bind @port? */
static int hk_try_bind(struct kunit *test, u16 port)
{
	struct socket *s = hk_raw_sock(test);
	struct sockaddr_storage ss;

	/* Past TIME_WAIT of our own closed connections, not past a holder. */
	s->sk->sk_reuse = SK_CAN_REUSE;
	hk_set_sin(&ss, LOOPBACK, port);
	return kernel_bind(s, (struct sockaddr *)&ss, sizeof(ss));
}

/*
 * A host-CM device without IW_F_NO_PORT_MAP plays an offloaded-CM RNIC:
 * iw_cm maps its ids' ports (kernel mode: host ports it holds), the host
 * CM's sockets sit on the mapped ports beside the holds, and no host
 * socket gets those ports until the ids are gone.
 */
static void hk_test_offloaded_mapped(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_conn_param ap = { .qpn = QPN_RSP, .ird = 1, .ord = 1 };
	struct iw_cm_conn_param cp = { .qpn = QPN_INI, .ird = 1, .ord = 1 };
	struct hk_params p = { .rev = 2 };
	struct iw_cm_id *lid, *aid, *child;
	struct sockaddr_storage peer;
	struct socket *tmp;
	u16 port, aport;
	long old;
	int i;

	hk_set_params(&p);
	ctx->dev.iw_driver_flags = 0;
	old = iwpm_test_set_mode(IWPM_MODE_KERNEL);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							hk_restore_iwpm_mode,
							(void *)old), 0);
	/* A port the host has free: it picks one for a socket we close. */
	tmp = hk_raw_listen(test, &port);
	kunit_release_action(test, hk_sock_release_action, tmp);

	lid = hk_new_id(test);
	hk_set_sin(&lid->local_addr, LOOPBACK, port);
	KUNIT_ASSERT_EQ(test, iw_cm_listen(lid, 4), 0);
	KUNIT_EXPECT_TRUE(test, lid->mapped);
	KUNIT_EXPECT_EQ(test, hk_port(&lid->m_local_addr), port);
	KUNIT_EXPECT_EQ(test, hk_try_bind(test, port), -EADDRINUSE);

	aid = hk_new_id(test);
	hk_set_sin(&aid->local_addr, LOOPBACK, 0);
	hk_set_sin(&aid->remote_addr, LOOPBACK, port);
	KUNIT_ASSERT_EQ(test, iw_cm_connect(aid, &cp), 0);
	KUNIT_EXPECT_TRUE(test, aid->mapped);
	aport = hk_port(&aid->m_local_addr);
	KUNIT_EXPECT_NE(test, aport, 0);
	child = hk_child(test, NULL);
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &ap), 0);
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, 0);
	/* The connection runs from the active id's mapped port... */
	KUNIT_ASSERT_TRUE(test, ctx->qps[QPN_RSP].attached);
	memset(&peer, 0, sizeof(peer));
	KUNIT_ASSERT_GE(test, kernel_getpeername(ctx->qps[QPN_RSP].sock,
						 (struct sockaddr *)&peer), 0);
	KUNIT_EXPECT_EQ(test, hk_port(&peer), aport);
	/* ...which the host does not give out either. */
	KUNIT_EXPECT_EQ(test, hk_try_bind(test, aport), -EADDRINUSE);

	hk_destroy(test, aid);
	hk_destroy(test, child);
	hk_destroy(test, lid);
	orcm_iw_host_flush();
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, hk_try_bind(test, port), 0);
	KUNIT_EXPECT_EQ(test, hk_try_bind(test, aport), 0);
}

/* Destroy in every state. */
static void hk_test_destroy_listener_half_open(struct kunit *test)
{
	struct iw_cm_id *lid;
	struct socket *s;
	u16 port;

	lid = hk_listen(test, 4, &port);
	s = hk_raw_connect(test, port);
	msleep(50);
	hk_destroy(test, lid);
	KUNIT_EXPECT_TRUE(test, hk_closed_within(s, 2000));
}

static void hk_test_destroy_child_unanswered(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *aid, *child;
	int i;
	u16 port;

	hk_listen(test, 4, &port);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, NULL, 0, 1, 1), 0);
	child = hk_child(test, NULL);
	hk_destroy(test, child);
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, -ECONNREFUSED);
}

static void hk_test_destroy_connecting(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *aid;
	u16 port;

	WRITE_ONCE(hcm_mpa_rep_timeout_ms, 200);
	hk_raw_listen(test, &port);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, NULL, 0, 1, 1), 0);
	/* Waits for the (timed out) answer, then no event reaches us. */
	hk_destroy(test, aid);
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, hk_nr_events(ctx), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->qp_refs), 0);
}

/* Connect and accept without peer-to-peer; both ends established. */
static void hk_pair(struct kunit *test, struct iw_cm_id **aid,
		    struct iw_cm_id **child)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_conn_param ap = { .qpn = QPN_RSP, .ird = 1, .ord = 1 };
	struct hk_params p = { .rev = 2 };
	u16 port;

	hk_set_params(&p);
	hk_listen(test, 4, &port);
	KUNIT_ASSERT_EQ(test, hk_connect(test, aid, port, NULL, 0, 1, 1), 0);
	*child = hk_child(test, NULL);
	KUNIT_ASSERT_EQ(test, iw_cm_accept(*child, &ap), 0);
	KUNIT_ASSERT_GE(test, hk_wait(ctx, *aid, IW_CM_EVENT_CONNECT_REPLY),
			0);
	KUNIT_ASSERT_GE(test, hk_wait(ctx, *child, IW_CM_EVENT_ESTABLISHED),
			0);
}

static void hk_test_disconnect(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct hk_qp *qr = &ctx->qps[QPN_RSP];
	struct iw_cm_id *aid, *child;
	u8 byte;
	int i;

	hk_pair(test, &aid, &child);
	KUNIT_ASSERT_EQ(test, iw_cm_disconnect(aid, 0), 0);
	i = hk_wait(ctx, aid, IW_CM_EVENT_CLOSE);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(aid), IWCM_IDLE);
	/* The peer's driver sees the FIN and says so, in order. */
	KUNIT_EXPECT_EQ(test, hk_recv(qr->sock, &byte, 1), 0);
	orcm_iw_conn_peer_closed(qr->conn);
	hk_release(qr, 0);
	i = hk_wait(ctx, child, IW_CM_EVENT_CLOSE);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_IDLE);
	KUNIT_EXPECT_EQ(test, hk_nr_events(ctx), i + 1);
}

/*
 * A peer-to-peer pair up to the initiator's CONNECT_REPLY; the responder
 * waits for the RTR (the mock never reports the initiator's "RTR!").
 */
static struct iw_cm_id *hk_p2p_accepted(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_conn_param ap = { .qpn = QPN_RSP, .ird = 1, .ord = 1 };
	struct hk_params p = P2P2(ORCM_IW_RTR_WRITE);
	struct iw_cm_id *aid, *child;
	u16 port;

	hk_set_params(&p);
	hk_listen(test, 4, &port);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, NULL, 0, 1, 1), 0);
	child = hk_child(test, NULL);
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &ap), 0);
	KUNIT_ASSERT_GE(test, hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY), 0);
	return child;
}

/* Wait up to @ms for at most @n host CM connections to be left. */
static bool hk_conns_at_most(int n, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (atomic_read(&hcm_conns_live) > n) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(10000, 20000);
	}
	return true;
}

static void hk_test_rsp_dies_before_rtr(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *child = hk_p2p_accepted(test);
	int i, live;

	live = atomic_read(&hcm_conns_live);
	hk_release(&ctx->qps[QPN_RSP], -ECONNRESET);
	i = hk_wait(ctx, child, IW_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, -ECONNRESET);
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_IDLE);
	KUNIT_EXPECT_LT(test, hk_find(ctx, child, IW_CM_EVENT_CLOSE), 0);
	/*
	 * The responder's machine is over: its connection goes now, not when
	 * the RTR timer (rtr_timeout_ms, 5 s) would have fired. A timer left
	 * armed would outlive iw_cm's workqueue on unload.
	 */
	KUNIT_EXPECT_TRUE(test, hk_conns_at_most(live - 1, 1000));
}

/* An initiator that never sends its RTR: the responder gives up on it. */
static void hk_test_rtr_timeout(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *child;
	int i;

	WRITE_ONCE(hcm_rtr_timeout_ms, 200);
	child = hk_p2p_accepted(test);
	i = hk_wait(ctx, child, IW_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, -ETIMEDOUT);
	/* The driver was told to reset the connection... */
	KUNIT_EXPECT_TRUE(test, ctx->qps[QPN_RSP].released);
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_IDLE);
	KUNIT_EXPECT_LT(test, hk_find(ctx, child, IW_CM_EVENT_CLOSE), 0);
	/* ...so the id goes at once, and the initiator sees the reset. */
	hk_destroy(test, child);
	KUNIT_EXPECT_TRUE(test, hk_closed_within(ctx->qps[QPN_INI].sock,
						 2000));
}

/* A namespace's deadline back to unset (the module parameter's). */
struct hk_dl_restore {
	struct net *net;
	enum hcm_deadline dl;
};

static void hk_dl_restore_action(void *arg)
{
	struct hk_dl_restore *r = arg;

	hcm_deadline_set_net(r->net, r->dl, 0);
}

static void hk_dl_set(struct kunit *test, struct net *net,
		      enum hcm_deadline dl, unsigned int ms)
{
	struct hk_dl_restore *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->net = net;
	r->dl = dl;
	hcm_deadline_set_net(net, dl, ms);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							hk_dl_restore_action,
							r), 0);
}

/*
 * Each deadline: the module parameter while the namespace's value is 0,
 * the namespace's once set, the parameter again for no namespace.
 */
static const enum hcm_deadline hk_dl_params[] = {
	HCM_DL_CONNECT, HCM_DL_MPA_REP, HCM_DL_MPA_REQ, HCM_DL_RTR,
};

static void hk_dl_desc(const enum hcm_deadline *dl, char *desc)
{
	static const char * const names[] = {
		"connect", "mpa_rep", "mpa_req", "rtr",
	};

	strscpy(desc, names[*dl], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hk_dl, hk_dl_params, hk_dl_desc);

static void hk_test_deadline_pick(struct kunit *test)
{
	const enum hcm_deadline *dl = test->param_value;
	unsigned int *param[] = {
		[HCM_DL_CONNECT] = &hcm_connect_timeout_ms,
		[HCM_DL_MPA_REP] = &hcm_mpa_rep_timeout_ms,
		[HCM_DL_MPA_REQ] = &hcm_mpa_req_timeout_ms,
		[HCM_DL_RTR] = &hcm_rtr_timeout_ms,
	};
	int i;

	/* hk_init() saved the parameters; its cleanup restores them. */
	for (i = 0; i < HCM_DL_NR; i++)
		WRITE_ONCE(*param[i], 1000 + i);
	KUNIT_EXPECT_EQ(test, hcm_deadline_ms(&init_net, *dl), 1000 + *dl);
	hk_dl_set(test, &init_net, *dl, 250);
	KUNIT_EXPECT_EQ(test, hcm_deadline_ms(&init_net, *dl), 250);
	/* The others keep their parameters; no namespace: the parameter. */
	for (i = 0; i < HCM_DL_NR; i++) {
		if (i != *dl)
			KUNIT_EXPECT_EQ(test, hcm_deadline_ms(&init_net, i),
					1000 + i);
	}
	KUNIT_EXPECT_EQ(test, hcm_deadline_ms(NULL, *dl), 1000 + *dl);
	WRITE_ONCE(*param[*dl], 7);
	KUNIT_EXPECT_EQ(test, hcm_deadline_ms(&init_net, *dl), 250);
}

/*
 * The namespace's deadline is the one a connection runs on: the RTR
 * parameter at a minute, the namespace's at 200 ms; the responder gives
 * up within the test's wait.
 */
static void hk_test_rtr_timeout_netns(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *child;
	int i;

	WRITE_ONCE(hcm_rtr_timeout_ms, 60000);
	hk_dl_set(test, &init_net, HCM_DL_RTR, 200);
	child = hk_p2p_accepted(test);
	i = hk_wait(ctx, child, IW_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, -ETIMEDOUT);
	hk_destroy(test, child);
}

static void hk_test_attach_fails(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_conn_param ap = { .qpn = QPN_RSP, .ird = 1, .ord = 1 };
	struct iw_cm_id *aid, *child;
	int i;
	u16 port;

	hk_listen(test, 4, &port);
	/* The responder's driver refuses: accept fails, initiator reset. */
	ctx->attach_ret[QPN_RSP] = -ENOMEM;
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, NULL, 0, 1, 1), 0);
	child = hk_child(test, NULL);
	KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &ap), -ENOMEM);
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	/* The reply made it out before the refusal: reset, or attach. */
	KUNIT_EXPECT_TRUE(test,
			  ctx->ev[i].status == -ECONNRESET || !ctx->ev[i].status);
	iwcm_flush_events();
	KUNIT_EXPECT_EQ(test, iwcm_id_state(child), IWCM_IDLE);

	/* The initiator's driver refuses: CONNECT_REPLY -ECONNRESET. */
	ctx->attach_ret[QPN_RSP] = 0;
	ctx->attach_ret[QPN_INI] = -EIO;
	hk_destroy(test, aid);
	memset(&ctx->qps[QPN_INI].params, 0, sizeof(ctx->qps[0].params));
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, NULL, 0, 1, 1), 0);
	child = hk_child(test, NULL);
	WRITE_ONCE(hcm_peer2peer, false);
	KUNIT_ASSERT_EQ(test, iw_cm_accept(child, &ap), 0);
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, -ECONNRESET);
	/* The responder's connection follows (its peer reset it). */
	KUNIT_EXPECT_EQ(test, hk_recv(ctx->qps[QPN_RSP].sock, &i, 1), 0);
}

/*
 * Issue 30, defect 2. After the CONNECT_REQUEST upcall the work leaves the
 * listener (hcm_passive_deliver()), while the child's owner may reject at
 * once (iw_cm rejects when the handler refuses, e.g. a full rdma_ucm
 * backlog): both looked up conn->lis and both put it, freeing a listener
 * that still listens. The work is held between its lookup and its put
 * while the reject runs: the listener must keep exactly its own reference
 * and still serve.
 */
static void hk_test_race_reject_vs_deliver(struct kunit *test)
{
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *lid, *aid, *aid2, *child;
	int i;
	u16 port;

	hk_race_arm(test, HCM_RACE_LEAVE_LISTENER);
	lid = hk_listen(test, 4, &port);
	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid, port, NULL, 0, 1, 1), 0);
	hk_race_reached(test);
	child = hk_child(test, NULL);
	KUNIT_EXPECT_EQ(test, iw_cm_reject(child, NULL, 0), 0);
	complete_all(&ctx->race_go);
	orcm_iw_host_flush();
	KUNIT_EXPECT_EQ(test, orcm_iw_host_listener_refs(lid), 1U);
	i = hk_wait(ctx, aid, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, ctx->ev[i].status, -ECONNREFUSED);

	KUNIT_ASSERT_EQ(test, hk_connect(test, &aid2, port, NULL, 0, 1, 1), 0);
	hk_child(test, NULL);
	hk_destroy(test, lid);
}

/*
 * Issue 30, defect 3. A peer that sends a byte (or a FIN) right after its
 * request queues the work, which finds REQ_DELIVERED and then looks at the
 * socket, while the user accepts (the socket goes to the driver) or rejects
 * (the socket is released). The work is held between the two; the user's
 * answer must win and the work must leave the socket alone.
 */
static void hk_test_race_answer_vs_waiting(struct kunit *test)
{
	const bool *accept = test->param_value;
	struct iw_cm_conn_param ap = { .qpn = QPN_RSP, .ird = 1, .ord = 1 };
	static const u8 v1[16] = { 0, 1, 0, 0 };	/* rev 1, no data */
	struct hk_ctx *ctx = test->priv;
	struct iw_cm_id *child;
	struct orcm_mpa_frame f;
	struct socket *s;
	u8 buf[32];
	int i;
	u16 port;

	hk_race_arm(test, HCM_RACE_WAITING);
	hk_listen(test, 4, &port);
	s = hk_raw_connect(test, port);
	hk_frame(buf, REQ_KEY, v1);
	KUNIT_ASSERT_EQ(test, hk_send(s, buf, 20), 20);
	child = hk_child(test, NULL);
	KUNIT_ASSERT_EQ(test, hk_send(s, "x", 1), 1);
	hk_race_reached(test);
	if (*accept)
		KUNIT_EXPECT_EQ(test, iw_cm_accept(child, &ap), 0);
	else
		KUNIT_EXPECT_EQ(test, iw_cm_reject(child, NULL, 0), 0);
	complete_all(&ctx->race_go);
	orcm_iw_host_flush();

	KUNIT_ASSERT_EQ(test, hk_raw_frame(s, false, buf, &f), 20);
	KUNIT_EXPECT_EQ(test, f.kind, *accept ? ORCM_MPA_REP : ORCM_MPA_REJ);
	if (*accept) {
		i = hk_wait(ctx, child, IW_CM_EVENT_ESTABLISHED);
		KUNIT_ASSERT_GE(test, i, 0);
		KUNIT_EXPECT_EQ(test, ctx->ev[i].status, 0);
		/* The byte is the driver's, first in its stream. */
		KUNIT_ASSERT_TRUE(test, ctx->qps[QPN_RSP].attached);
		KUNIT_EXPECT_EQ(test, hk_recv(ctx->qps[QPN_RSP].sock, buf, 1), 1);
		KUNIT_EXPECT_EQ(test, buf[0], 'x');
	} else {
		KUNIT_EXPECT_TRUE(test, hk_closed_within(s, 2000));
	}
}

static const bool race_answers[] = { true, false };

static void race_answer_desc(const bool *accept, char *desc)
{
	strscpy(desc, *accept ? "accept" : "reject", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(race_answer, race_answers, race_answer_desc);

static struct kunit_case iw_host_cases[] = {
	KUNIT_CASE(hk_test_register),
	KUNIT_CASE_PARAM(hk_test_negotiation, neg_gen_params),
	KUNIT_CASE_PARAM(hk_test_private_data, pd_gen_params),
	KUNIT_CASE(hk_test_accept_pd_too_big),
	KUNIT_CASE(hk_test_reject_with_data),
	KUNIT_CASE(hk_test_connect_refused),
	KUNIT_CASE(hk_test_connect_does_not_block),
	KUNIT_CASE_PARAM(hk_test_bad_reply, bad_reply_gen_params),
	KUNIT_CASE(hk_test_reply_and_data_in_one_write),
	KUNIT_CASE_PARAM(hk_test_bad_request, bad_request_gen_params),
	KUNIT_CASE(hk_test_half_open_cap),
	KUNIT_CASE(hk_test_half_open_per_source),
	KUNIT_CASE(hk_test_backlog_and_host_port),
	KUNIT_CASE(hk_test_offloaded_mapped),
	KUNIT_CASE(hk_test_destroy_listener_half_open),
	KUNIT_CASE(hk_test_destroy_child_unanswered),
	KUNIT_CASE(hk_test_destroy_connecting),
	KUNIT_CASE(hk_test_disconnect),
	KUNIT_CASE(hk_test_rsp_dies_before_rtr),
	KUNIT_CASE(hk_test_rtr_timeout),
	KUNIT_CASE_PARAM(hk_test_deadline_pick, hk_dl_gen_params),
	KUNIT_CASE(hk_test_rtr_timeout_netns),
	KUNIT_CASE(hk_test_attach_fails),
	KUNIT_CASE(hk_test_race_reject_vs_deliver),
	KUNIT_CASE_PARAM(hk_test_race_answer_vs_waiting,
			 race_answer_gen_params),
	{}
};

static struct kunit_suite iw_host_suite = {
	.name = "orcm_iw_host",
	.init = hk_init,
	.test_cases = iw_host_cases,
};

kunit_test_suite(iw_host_suite);

MODULE_DESCRIPTION("KUnit tests for the host-stack CM of openrdma-cm iw_cm");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
