// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the verbs layer of softrnic.ko, as an in-kernel client: a
 * softrnic device on the loopback netdev (registered with the stock ib_core
 * like `rdma link add`), then PD, CQ, QP, SRQ and MRs through the ib_*
 * verbs. The tests play the wire engine where one is needed: they put the
 * QP in RTS as the hand-off would, take WQEs with sr_sq_take() and
 * sr_rq_take(), and complete them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "drivers/softrnic/sr_verbs.h"

#define SRK_DEV		"srkunit0"
#define SRK_CQE		64
#define SRK_WR		8

struct srk {
	struct kunit *test;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct sr_qp *sqp;
	int comp_calls;		/* completion handler runs */
	int cq_events;		/* CQ async events */
	int qp_events[IB_EVENT_GID_CHANGE + 1];
	int srq_events;
};

static void srk_comp(struct ib_cq *cq, void *ctx)
{
	((struct srk *)ctx)->comp_calls++;
}

static void srk_cq_event(struct ib_event *ev, void *ctx)
{
	((struct srk *)ctx)->cq_events++;
}

static void srk_qp_event(struct ib_event *ev, void *ctx)
{
	struct srk *k = ctx;

	if (ev->event <= IB_EVENT_GID_CHANGE)
		k->qp_events[ev->event]++;
}

static void srk_srq_event(struct ib_event *ev, void *ctx)
{
	((struct srk *)ctx)->srq_events++;
}

static void srk_unreg(void *dev)
{
	ib_unregister_device_and_put(dev);
}

static void srk_dealloc_pd(void *pd)
{
	ib_dealloc_pd(pd);
}

static void srk_destroy_cq(void *cq)
{
	ib_destroy_cq(cq);
}

static void srk_destroy_qp(void *qp)
{
	ib_destroy_qp(qp);
}

static void srk_destroy_srq(void *srq)
{
	ib_destroy_srq(srq);
}

static void srk_dereg_mr(void *mr)
{
	ib_dereg_mr(mr);
}

static struct ib_cq *srk_cq(struct srk *k, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct ib_cq *cq;

	cq = ib_create_cq(k->dev, srk_comp, srk_cq_event, k, &attr);
	KUNIT_ASSERT_FALSE(k->test, IS_ERR(cq));
	KUNIT_ASSERT_EQ(k->test, 0,
			kunit_add_action_or_reset(k->test, srk_destroy_cq, cq));
	return cq;
}

static struct ib_qp *srk_qp(struct srk *k, struct ib_srq *srq)
{
	struct ib_qp_init_attr attr = {
		.event_handler = srk_qp_event,
		.qp_context = k,
		.send_cq = k->cq,
		.recv_cq = k->cq,
		.srq = srq,
		.cap = {
			.max_send_wr = SRK_WR,
			.max_recv_wr = srq ? 0 : SRK_WR,
			.max_send_sge = SIW_MAX_SGE,
			.max_recv_sge = SIW_MAX_SGE,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp;

	qp = ib_create_qp(k->pd, &attr);
	KUNIT_ASSERT_FALSE(k->test, IS_ERR(qp));
	KUNIT_ASSERT_EQ(k->test, 0,
			kunit_add_action_or_reset(k->test, srk_destroy_qp, qp));
	return qp;
}

/* The hand-off's part: INIT, RTR, then RTS as sr_host_attach() sets it. */
static void srk_rts(struct srk *k, struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	struct sr_qp *sqp = to_sr_qp(qp);
	unsigned long flags;

	KUNIT_ASSERT_EQ(k->test, 0, ib_modify_qp(qp, &attr, IB_QP_STATE));
	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(k->test, 0, ib_modify_qp(qp, &attr, IB_QP_STATE));
	spin_lock_irqsave(&sqp->state_lock, flags);
	sqp->state = IB_QPS_RTS;
	spin_unlock_irqrestore(&sqp->state_lock, flags);
}

static int srk_init(struct kunit *test)
{
	struct srk *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->test = test;
	test->priv = k;
	KUNIT_ASSERT_EQ(test, 0, sr_newlink(SRK_DEV, init_net.loopback_dev));
	k->dev = ib_device_get_by_name(SRK_DEV, RDMA_DRIVER_SIW);
	KUNIT_ASSERT_NOT_NULL(test, k->dev);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, srk_unreg, k->dev));
	KUNIT_ASSERT_EQ(test, k->dev->node_type, RDMA_NODE_RNIC);
	KUNIT_ASSERT_TRUE(test, rdma_protocol_iwarp(k->dev, 1));

	k->pd = ib_alloc_pd(k->dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(k->pd));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, srk_dealloc_pd, k->pd));
	k->cq = srk_cq(k, SRK_CQE);
	k->qp = srk_qp(k, NULL);
	k->sqp = to_sr_qp(k->qp);
	return 0;
}

/* ---- device ------------------------------------------------------------ */

static void srk_device(struct kunit *test)
{
	struct srk *k = test->priv;
	struct ib_device_attr *a = &k->dev->attrs;
	struct ib_port_attr pa;
	union ib_gid gid;

	KUNIT_EXPECT_EQ(test, a->max_send_sge, SIW_MAX_SGE);
	KUNIT_EXPECT_EQ(test, a->max_sge_rd, 1);
	KUNIT_EXPECT_TRUE(test, a->device_cap_flags &
			  IB_DEVICE_MEM_MGT_EXTENSIONS);
	KUNIT_EXPECT_EQ(test, k->dev->iw_driver_flags, (u32)IW_F_NO_PORT_MAP);
	KUNIT_EXPECT_EQ(test, k->dev->ops.uverbs_abi_ver, SIW_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, 0, ib_query_port(k->dev, 1, &pa));
	KUNIT_EXPECT_EQ(test, pa.gid_tbl_len, 1);
	KUNIT_EXPECT_EQ(test, 0, k->dev->ops.query_gid(k->dev, 1, 0, &gid));
	KUNIT_EXPECT_NE(test, 0, k->dev->ops.query_gid(k->dev, 1, 1, &gid));
	/* A second device on the same netdev is refused. */
	KUNIT_EXPECT_EQ(test, -EEXIST,
			sr_newlink("srkunit1", init_net.loopback_dev));
}

/* ---- send WR translation (parameterised) ------------------------------ */

struct srk_wr_case {
	const char *name;
	enum ib_wr_opcode opcode;
	int flags;
	int num_sge;
	u8 want_op;
	int want_ret;
};

static const struct srk_wr_case srk_wr_cases[] = {
	{ "send", IB_WR_SEND, IB_SEND_SIGNALED, 2, SIW_OP_SEND, 0 },
	{ "send_inv", IB_WR_SEND_WITH_INV, 0, 1, SIW_OP_SEND_REMOTE_INV, 0 },
	{ "write", IB_WR_RDMA_WRITE, IB_SEND_SOLICITED, 3, SIW_OP_WRITE, 0 },
	{ "read", IB_WR_RDMA_READ, IB_SEND_FENCE, 1, SIW_OP_READ, 0 },
	{ "read_inv", IB_WR_RDMA_READ_WITH_INV, 0, 1, SIW_OP_READ_LOCAL_INV, 0 },
	{ "local_inv", IB_WR_LOCAL_INV, 0, 0, SIW_OP_INVAL_STAG, 0 },
	{ "inline", IB_WR_SEND, IB_SEND_INLINE, 2, SIW_OP_SEND, 0 },
	{ "read_2sge", IB_WR_RDMA_READ, 0, 2, 0, -EINVAL },
	{ "too_many_sge", IB_WR_SEND, 0, SIW_MAX_SGE + 1, 0, -EINVAL },
	{ "send_imm", IB_WR_SEND_WITH_IMM, 0, 1, 0, -EINVAL },
	{ "atomic", IB_WR_ATOMIC_CMP_AND_SWP, 0, 1, 0, -EINVAL },
	{ "inline_read", IB_WR_RDMA_READ, IB_SEND_INLINE, 1, 0, -EINVAL },
};

static void srk_wr_desc(const struct srk_wr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(srk_wr, srk_wr_cases, srk_wr_desc);

static void srk_sqe_translation(struct kunit *test)
{
	const struct srk_wr_case *c = test->param_value;
	struct ib_sge sge[SIW_MAX_SGE + 1];
	char data[SIW_MAX_SGE + 1][8];
	struct ib_rdma_wr wr = {};
	struct siw_sqe *sqe = kunit_kzalloc(test, sizeof(*sqe), GFP_KERNEL);
	int i, ret;

	KUNIT_ASSERT_NOT_NULL(test, sqe);

	for (i = 0; i < c->num_sge; i++) {
		memset(data[i], 'a' + i, sizeof(data[i]));
		sge[i].addr = (uintptr_t)data[i];
		sge[i].length = 5 + i;
		sge[i].lkey = 0x100 + i;
	}
	wr.wr.wr_id = 0xabcdef;
	wr.wr.opcode = c->opcode;
	wr.wr.send_flags = c->flags;
	wr.wr.sg_list = sge;
	wr.wr.num_sge = c->num_sge;
	wr.wr.ex.invalidate_rkey = 0x4242;
	wr.remote_addr = 0x1000;
	wr.rkey = 0x7777;

	ret = sr_sqe_from_wr(sqe, &wr.wr, false);
	KUNIT_ASSERT_EQ(test, ret, c->want_ret);
	if (ret)
		return;
	KUNIT_EXPECT_EQ(test, sqe->opcode, c->want_op);
	KUNIT_EXPECT_EQ(test, sqe->id, 0xabcdefULL);
	KUNIT_EXPECT_EQ(test, !!(sqe->flags & SIW_WQE_SIGNALLED),
			!!(c->flags & IB_SEND_SIGNALED));
	KUNIT_EXPECT_EQ(test, !!(sqe->flags & SIW_WQE_SOLICITED),
			!!(c->flags & IB_SEND_SOLICITED));
	KUNIT_EXPECT_EQ(test, !!(sqe->flags & SIW_WQE_READ_FENCE),
			!!(c->flags & IB_SEND_FENCE));
	KUNIT_EXPECT_FALSE(test, sqe->flags & SIW_WQE_VALID);
	if (c->opcode == IB_WR_RDMA_WRITE || c->opcode == IB_WR_RDMA_READ ||
	    c->opcode == IB_WR_RDMA_READ_WITH_INV) {
		KUNIT_EXPECT_EQ(test, sqe->raddr, 0x1000ULL);
		KUNIT_EXPECT_EQ(test, sqe->rkey, 0x7777U);
	}
	if (c->opcode == IB_WR_SEND_WITH_INV || c->opcode == IB_WR_LOCAL_INV)
		KUNIT_EXPECT_EQ(test, sqe->rkey, 0x4242U);
	if (c->flags & IB_SEND_INLINE) {
		KUNIT_EXPECT_TRUE(test, sqe->flags & SIW_WQE_INLINE);
		KUNIT_EXPECT_EQ(test, sqe->sge[0].length, 5U + 6U);
		KUNIT_EXPECT_EQ(test, 0, memcmp(&sqe->sge[1], data[0], 5));
		KUNIT_EXPECT_EQ(test, 0,
				memcmp((u8 *)&sqe->sge[1] + 5, data[1], 6));
		return;
	}
	KUNIT_EXPECT_EQ(test, sqe->num_sge, c->num_sge);
	for (i = 0; i < c->num_sge; i++) {
		KUNIT_EXPECT_EQ(test, sqe->sge[i].laddr, sge[i].addr);
		KUNIT_EXPECT_EQ(test, sqe->sge[i].length, sge[i].length);
		KUNIT_EXPECT_EQ(test, sqe->sge[i].lkey, sge[i].lkey);
	}
}

/* ---- posting, taking, completing -------------------------------------- */

static void srk_post_send_states(struct kunit *test)
{
	struct srk *k = test->priv;
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .wr_id = 1 };
	struct ib_send_wr wr2 = { .opcode = IB_WR_ATOMIC_FETCH_AND_ADD };
	struct siw_sqe sqe;
	int i;

	/* Not before RTS (RESET). */
	KUNIT_EXPECT_EQ(test, -ENOTCONN, ib_post_send(k->qp, &wr, &bad));
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&wr);
	srk_rts(k, k->qp);

	/* A bad WR in a chain: the good one before it is posted. */
	wr.next = &wr2;
	KUNIT_EXPECT_EQ(test, -EINVAL, ib_post_send(k->qp, &wr, &bad));
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&wr2);
	wr.next = NULL;
	KUNIT_EXPECT_EQ(test, 1, sr_sq_take(k->sqp, &sqe));
	KUNIT_EXPECT_EQ(test, sqe.id, 1ULL);
	KUNIT_EXPECT_EQ(test, 0, sr_sq_take(k->sqp, &sqe));

	/* SQ full: -ENOMEM at the WR that did not fit. */
	for (i = 0; i < k->sqp->num_sqe; i++)
		KUNIT_EXPECT_EQ(test, 0, ib_post_send(k->qp, &wr, &bad));
	KUNIT_EXPECT_EQ(test, -ENOMEM, ib_post_send(k->qp, &wr, &bad));
	for (i = 0; i < k->sqp->num_sqe; i++)
		KUNIT_EXPECT_EQ(test, 1, sr_sq_take(k->sqp, &sqe));
	KUNIT_EXPECT_EQ(test, 0, sr_sq_take(k->sqp, &sqe));
}

/* Signalled WQEs complete on the CQ in order, unsignalled do not. */
static void srk_complete(struct kunit *test)
{
	struct srk *k = test->priv;
	const struct ib_send_wr *bad;
	/* An RDMA WR is an ib_rdma_wr, as ULPs post it. */
	struct ib_rdma_wr write = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .wr_id = 12,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = 0x2000, .rkey = 0x99,
	};
	struct ib_send_wr wr[2] = {
		{ .opcode = IB_WR_SEND, .wr_id = 10,
		  .send_flags = IB_SEND_SIGNALED, .next = &wr[1] },
		{ .opcode = IB_WR_SEND, .wr_id = 11, .next = &write.wr },
	};
	const struct ib_recv_wr *rbad;
	struct ib_recv_wr rwr = { .wr_id = 20 };
	struct siw_sqe sqe;
	struct siw_rqe rqe;
	struct ib_wc *wc = kunit_kcalloc(test, 4, sizeof(*wc), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, wc);

	srk_rts(k, k->qp);
	KUNIT_ASSERT_EQ(test, 0, ib_post_send(k->qp, wr, &bad));
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, 1, sr_sq_take(k->sqp, &sqe));
		sr_sq_complete(k->sqp, &sqe, 100 + i, SIW_WC_SUCCESS);
	}
	KUNIT_ASSERT_EQ(test, 0, ib_post_recv(k->qp, &rwr, &rbad));
	KUNIT_ASSERT_EQ(test, 1, sr_rq_take(k->sqp, &rqe));
	sr_rq_complete(k->sqp, &rqe, 33, false, true, 0x1234, SIW_WC_SUCCESS);

	KUNIT_ASSERT_EQ(test, 3, ib_poll_cq(k->cq, 4, wc));
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 10ULL);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, 100U);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, k->qp);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 12ULL);
	KUNIT_EXPECT_EQ(test, wc[1].opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, wc[2].wr_id, 20ULL);
	KUNIT_EXPECT_EQ(test, wc[2].opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc[2].byte_len, 33U);
	KUNIT_EXPECT_TRUE(test, wc[2].wc_flags & IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc[2].ex.invalidate_rkey, 0x1234U);
	KUNIT_EXPECT_EQ(test, 0, ib_poll_cq(k->cq, 4, wc));
}

/* A WQE the engine must not get: error completion, QP to ERR. */
static void srk_bad_sqe(struct kunit *test)
{
	struct srk *k = test->priv;
	struct siw_sqe *slot, sqe;
	struct ib_wc wc;

	srk_rts(k, k->qp);
	/* As a buggy or hostile producer would write it into the ring. */
	slot = &k->sqp->sendq[k->sqp->sq_put++ & (k->sqp->num_sqe - 1)];
	memset(slot, 0, sizeof(*slot));
	slot->id = 77;
	slot->opcode = SIW_OP_FETCH_AND_ADD;
	/* Published as rdma-core does: contents, then VALID. */
	smp_store_release(&slot->flags, SIW_WQE_VALID);

	KUNIT_EXPECT_EQ(test, -EINVAL, sr_sq_take(k->sqp, &sqe));
	KUNIT_EXPECT_EQ(test, READ_ONCE(k->sqp->state), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, k->qp_events[IB_EVENT_QP_REQ_ERR], 1);
	KUNIT_ASSERT_EQ(test, 1, ib_poll_cq(k->cq, 1, &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 77ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
}

/* Moving to ERR flushes SQ and RQ; WRs posted in ERR flush at once. */
static void srk_flush(struct kunit *test)
{
	struct srk *k = test->priv;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_send_wr swr = { .opcode = IB_WR_SEND, .wr_id = 1 };
	struct ib_recv_wr rwr = { .wr_id = 2 };
	const struct ib_send_wr *sbad;
	const struct ib_recv_wr *rbad;
	struct ib_wc *wc = kunit_kcalloc(test, 8, sizeof(*wc), GFP_KERNEL);
	int i, n;

	KUNIT_ASSERT_NOT_NULL(test, wc);

	srk_rts(k, k->qp);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, 0, ib_post_send(k->qp, &swr, &sbad));
		KUNIT_ASSERT_EQ(test, 0, ib_post_recv(k->qp, &rwr, &rbad));
	}
	KUNIT_ASSERT_EQ(test, 0, ib_modify_qp(k->qp, &attr, IB_QP_STATE));
	n = ib_poll_cq(k->cq, 8, wc);
	KUNIT_ASSERT_EQ(test, n, 6);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_WR_FLUSH_ERR);
	/* ib_drain_qp() relies on this. */
	KUNIT_ASSERT_EQ(test, 0, ib_post_send(k->qp, &swr, &sbad));
	KUNIT_ASSERT_EQ(test, 0, ib_post_recv(k->qp, &rwr, &rbad));
	KUNIT_ASSERT_EQ(test, 2, ib_poll_cq(k->cq, 8, wc));
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_WR_FLUSH_ERR);
}

/* ---- QP state machine (parameterised) ---------------------------------- */

struct srk_tr_case {
	enum ib_qp_state cur, next;
	bool conn, ok;
};

static const struct srk_tr_case srk_tr_cases[] = {
	{ IB_QPS_RESET, IB_QPS_INIT, false, true },
	{ IB_QPS_INIT, IB_QPS_RTR, false, true },
	{ IB_QPS_RTR, IB_QPS_RTR, false, true },
	{ IB_QPS_RTR, IB_QPS_RTS, false, false },	/* hand-off only */
	{ IB_QPS_INIT, IB_QPS_RTS, false, false },
	{ IB_QPS_RESET, IB_QPS_RTR, false, false },
	{ IB_QPS_RTS, IB_QPS_SQD, true, true },
	{ IB_QPS_RTS, IB_QPS_ERR, true, true },
	{ IB_QPS_RTS, IB_QPS_RESET, true, false },
	{ IB_QPS_ERR, IB_QPS_RESET, false, true },
	{ IB_QPS_ERR, IB_QPS_RTS, false, false },
	{ IB_QPS_SQD, IB_QPS_RTS, true, false },
	{ IB_QPS_ERR, IB_QPS_SQD, true, true },	/* librdmacm's disconnect */
	{ IB_QPS_INIT, IB_QPS_SQD, false, false },
	{ IB_QPS_RESET, IB_QPS_SQE, false, false },
};

static void srk_tr_desc(const struct srk_tr_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%d->%d%s", c->cur, c->next,
		 c->conn ? " connected" : "");
}

KUNIT_ARRAY_PARAM(srk_tr, srk_tr_cases, srk_tr_desc);

static void srk_transition(struct kunit *test)
{
	const struct srk_tr_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, c->ok,
			sr_qp_transition_ok(c->cur, c->next, c->conn));
}

static void srk_modify_qp(struct kunit *test)
{
	struct srk *k = test->priv;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTS };

	KUNIT_EXPECT_EQ(test, -EINVAL, ib_modify_qp(k->qp, &attr, IB_QP_STATE));
	attr.qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, 0, ib_modify_qp(k->qp, &attr, IB_QP_STATE));
	attr.qp_state = IB_QPS_RTR;
	attr.max_dest_rd_atomic = 16;
	attr.max_rd_atomic = 8;
	KUNIT_EXPECT_EQ(test, 0, ib_modify_qp(k->qp, &attr, IB_QP_STATE |
			IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MAX_QP_RD_ATOMIC));
	attr.qp_state = IB_QPS_RTS;
	KUNIT_EXPECT_EQ(test, -EINVAL, ib_modify_qp(k->qp, &attr, IB_QP_STATE));
	attr.max_rd_atomic = SR_MAX_ORD + 1;
	KUNIT_EXPECT_EQ(test, -EINVAL,
			ib_modify_qp(k->qp, &attr, IB_QP_MAX_QP_RD_ATOMIC));
	memset(&attr, 0, sizeof(attr));
	KUNIT_ASSERT_EQ(test, 0, ib_query_qp(k->qp, &attr, IB_QP_STATE, &init));
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, attr.max_dest_rd_atomic, 16);
	KUNIT_EXPECT_EQ(test, attr.max_rd_atomic, 8);
	KUNIT_EXPECT_EQ(test, init.cap.max_send_wr, (u32)SRK_WR);
	/* No UD, no atomics-only types. */
	{
		struct ib_qp_init_attr ud = {
			.send_cq = k->cq, .recv_cq = k->cq,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1 },
			.qp_type = IB_QPT_UD,
		};

		KUNIT_EXPECT_TRUE(test, IS_ERR(ib_create_qp(k->pd, &ud)));
	}
	/* ERR -> SQD (librdmacm's iWARP disconnect): taken, stays in ERR. */
	attr.qp_state = IB_QPS_ERR;
	KUNIT_EXPECT_EQ(test, 0, ib_modify_qp(k->qp, &attr, IB_QP_STATE));
	attr.qp_state = IB_QPS_SQD;
	KUNIT_EXPECT_EQ(test, 0, ib_modify_qp(k->qp, &attr, IB_QP_STATE));
	KUNIT_ASSERT_EQ(test, 0, ib_query_qp(k->qp, &attr, IB_QP_STATE, &init));
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_ERR);
}

/* ---- CQ notification ----------------------------------------------------- */

static void srk_cq_notify(struct kunit *test)
{
	struct srk *k = test->priv;
	struct siw_sqe sqe = { .id = 1, .flags = SIW_WQE_SIGNALLED,
			       .opcode = SIW_OP_SEND };
	struct siw_rqe rqe = { .id = 2 };
	struct ib_wc wc[4];

	/* Not armed: no call. */
	sr_sq_complete(k->sqp, &sqe, 0, SIW_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, k->comp_calls, 0);
	/* Armed for the next, with missed events: reported (CQ not empty). */
	KUNIT_EXPECT_EQ(test, 1, ib_req_notify_cq(k->cq, IB_CQ_NEXT_COMP |
						  IB_CQ_REPORT_MISSED_EVENTS));
	KUNIT_EXPECT_EQ(test, 1, ib_poll_cq(k->cq, 4, wc));
	KUNIT_EXPECT_EQ(test, 0, ib_req_notify_cq(k->cq, IB_CQ_NEXT_COMP |
						  IB_CQ_REPORT_MISSED_EVENTS));
	sr_sq_complete(k->sqp, &sqe, 0, SIW_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, k->comp_calls, 1);
	/* One shot. */
	sr_sq_complete(k->sqp, &sqe, 0, SIW_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, k->comp_calls, 1);

	/* Solicited only: an unsolicited receive does not, a solicited does. */
	ib_req_notify_cq(k->cq, IB_CQ_SOLICITED);
	sr_rq_complete(k->sqp, &rqe, 0, false, false, 0, SIW_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, k->comp_calls, 1);
	sr_rq_complete(k->sqp, &rqe, 0, true, false, 0, SIW_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, k->comp_calls, 2);
	/* An error completion satisfies a solicited arm. */
	ib_req_notify_cq(k->cq, IB_CQ_SOLICITED);
	sr_sq_complete(k->sqp, &sqe, 0, SIW_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, k->comp_calls, 3);
	/* Unsignalled successful SQEs make no CQE. */
	sqe.flags = 0;
	while (ib_poll_cq(k->cq, 4, wc) > 0)
		;
	sr_sq_complete(k->sqp, &sqe, 0, SIW_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, 0, ib_poll_cq(k->cq, 4, wc));
}

/* A full CQ: the CQE is dropped with a CQ error event, nothing worse. */
static void srk_cq_overflow(struct kunit *test)
{
	struct srk *k = test->priv;
	struct siw_sqe sqe = { .id = 1, .flags = SIW_WQE_SIGNALLED };
	struct ib_wc wc;
	int i;

	for (i = 0; i < k->cq->cqe; i++)
		sr_sq_complete(k->sqp, &sqe, 0, SIW_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, k->cq_events, 0);
	sr_sq_complete(k->sqp, &sqe, 0, SIW_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, k->cq_events, 1);
	for (i = 0; i < k->cq->cqe; i++)
		KUNIT_EXPECT_EQ(test, 1, ib_poll_cq(k->cq, 1, &wc));
	KUNIT_EXPECT_EQ(test, 0, ib_poll_cq(k->cq, 1, &wc));
}

/* ---- memory ---------------------------------------------------------- */

static void srk_dma_mr(struct kunit *test)
{
	struct srk *k = test->priv;
	u8 *buf = kunit_kzalloc(test, 3 * PAGE_SIZE, GFP_KERNEL);
	u8 *out = kunit_kzalloc(test, 3 * PAGE_SIZE, GFP_KERNEL);
	struct siw_sge sge[2];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (i = 0; i < 3 * PAGE_SIZE; i++)
		buf[i] = i * 7;
	/* Two SGEs with the PD's local DMA lkey; a copy across pages. */
	sge[0].laddr = (uintptr_t)buf + 100;
	sge[0].length = PAGE_SIZE;
	sge[0].lkey = k->pd->local_dma_lkey;
	sge[1].laddr = (uintptr_t)buf + 2 * PAGE_SIZE;
	sge[1].length = 64;
	sge[1].lkey = k->pd->local_dma_lkey;
	KUNIT_EXPECT_EQ(test, 0, sr_sge_copy(k->sqp, sge, 2, 50, out,
					     PAGE_SIZE - 50 + 64, false));
	KUNIT_EXPECT_EQ(test, 0, memcmp(out, buf + 150, PAGE_SIZE - 50));
	KUNIT_EXPECT_EQ(test, 0, memcmp(out + PAGE_SIZE - 50,
					buf + 2 * PAGE_SIZE, 64));
	/* Longer than the SGEs. */
	KUNIT_EXPECT_EQ(test, -EMSGSIZE,
			sr_sge_copy(k->sqp, sge, 2, 0, out, PAGE_SIZE + 65,
				    false));
	KUNIT_EXPECT_EQ(test, sr_mem_status(-EMSGSIZE), SIW_WC_LOC_LEN_ERR);
	/* Placement needs local write: the PD's DMA MR has it. */
	KUNIT_EXPECT_EQ(test, 0, sr_sge_copy(k->sqp, sge, 1, 0, out, 8, true));
	/* Unknown lkey, wrong key byte. */
	sge[0].lkey = 0xffffff00;
	KUNIT_EXPECT_EQ(test, -ENOENT,
			sr_sge_copy(k->sqp, sge, 1, 0, out, 8, false));
	sge[0].lkey = k->pd->local_dma_lkey ^ 0x1;
	KUNIT_EXPECT_EQ(test, -ENOENT,
			sr_sge_copy(k->sqp, sge, 1, 0, out, 8, false));
	KUNIT_EXPECT_EQ(test, sr_mem_status(-ENOENT), SIW_WC_LOC_PROT_ERR);
	/* Zero-length SGEs are never looked up. */
	sge[0].length = 0;
	KUNIT_EXPECT_EQ(test, 0, sr_sge_copy(k->sqp, sge, 1, 0, out, 0,
					     false));
	KUNIT_EXPECT_EQ(test, sr_sge_len(sge, 2), 64);
}

static struct ib_mr *srk_frmr(struct srk *k, struct ib_pd *pd, void *buf,
			      size_t len)
{
	struct scatterlist sg;
	struct ib_mr *mr;

	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(k->test, IS_ERR(mr));
	KUNIT_ASSERT_EQ(k->test, 0,
			kunit_add_action_or_reset(k->test, srk_dereg_mr, mr));
	sg_init_one(&sg, buf, len);
	/* The device uses virtual addresses: sg_dma_address = kva. */
	sg_dma_address(&sg) = (uintptr_t)buf;
	sg_dma_len(&sg) = len;
	KUNIT_ASSERT_EQ(k->test, 1, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE));
	return mr;
}

static void srk_post_local(struct srk *k, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad;
	struct siw_sqe sqe;

	KUNIT_ASSERT_EQ(k->test, 0, ib_post_send(k->qp, wr, &bad));
	/* Local operations run in sr_sq_take() and are never returned. */
	KUNIT_ASSERT_EQ(k->test, 0, sr_sq_take(k->sqp, &sqe));
}

static void srk_fast_reg(struct kunit *test)
{
	struct srk *k = test->priv;
	u8 *buf = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	u8 in[32], out[32];
	struct ib_reg_wr reg = {};
	struct ib_send_wr inv = { .opcode = IB_WR_LOCAL_INV };
	struct ib_pd *pd2;
	struct ib_mr *mr;
	struct ib_wc wc;
	u64 va;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	srk_rts(k, k->qp);
	mr = srk_frmr(k, k->pd, buf + 512, PAGE_SIZE + 100);
	va = mr->iova;
	/* Mapped but not registered: no access yet. */
	KUNIT_EXPECT_EQ(test, -ENOENT, sr_stag_copy(k->sqp, mr->rkey, va, in,
						    8, IB_ACCESS_REMOTE_WRITE,
						    true));
	ib_update_fast_reg_key(mr, 0x5a);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.wr.wr_id = 5;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	srk_post_local(k, &reg.wr);
	KUNIT_ASSERT_EQ(test, 1, ib_poll_cq(k->cq, 1, &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_REG_MR);

	/* Write across the page boundary, read it back through the buffer. */
	memset(in, 0xc3, sizeof(in));
	KUNIT_EXPECT_EQ(test, 0, sr_stag_copy(k->sqp, mr->rkey,
					      va + PAGE_SIZE - 512 - 8, in,
					      sizeof(in),
					      IB_ACCESS_REMOTE_WRITE, true));
	KUNIT_EXPECT_EQ(test, 0, memcmp(buf + PAGE_SIZE - 8, in, sizeof(in)));
	/* Bounds, rights, key, PD. */
	KUNIT_EXPECT_EQ(test, -ERANGE,
			sr_stag_copy(k->sqp, mr->rkey, va + PAGE_SIZE + 90,
				     in, 16, IB_ACCESS_REMOTE_WRITE, true));
	KUNIT_EXPECT_EQ(test, -ERANGE,
			sr_stag_copy(k->sqp, mr->rkey, va - 1, in, 4,
				     IB_ACCESS_REMOTE_WRITE, true));
	KUNIT_EXPECT_EQ(test, -EACCES,
			sr_stag_copy(k->sqp, mr->rkey, va, out, 4,
				     IB_ACCESS_REMOTE_READ, false));
	KUNIT_EXPECT_EQ(test, -ENOENT,
			sr_stag_copy(k->sqp, mr->rkey ^ 0x1, va, in, 4,
				     IB_ACCESS_REMOTE_WRITE, true));
	pd2 = ib_alloc_pd(k->dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd2));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, srk_dealloc_pd, pd2));
	{
		struct sr_mr *smr = sr_mr_get(to_sr_dev(k->dev), mr->rkey);

		KUNIT_ASSERT_NOT_NULL(test, smr);
		KUNIT_EXPECT_EQ(test, -EACCES,
				sr_mr_check(smr, pd2, va, 4,
					    IB_ACCESS_REMOTE_WRITE));
		sr_mr_put(smr);
	}
	/* Remote invalidate of the PD's DMA MR is refused. */
	KUNIT_EXPECT_EQ(test, -EACCES,
			sr_stag_invalidate(k->sqp, k->pd->local_dma_lkey,
					   true));

	/* A second REG_MR of a valid MR fails and moves the QP to ERR. */
	{
		struct ib_qp *qp2 = srk_qp(k, NULL);
		const struct ib_send_wr *bad;
		struct siw_sqe sqe;

		srk_rts(k, qp2);
		KUNIT_ASSERT_EQ(test, 0, ib_post_send(qp2, &reg.wr, &bad));
		KUNIT_EXPECT_EQ(test, -EINVAL,
				sr_sq_take(to_sr_qp(qp2), &sqe));
		KUNIT_ASSERT_EQ(test, 1, ib_poll_cq(k->cq, 1, &wc));
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
		KUNIT_EXPECT_EQ(test, READ_ONCE(to_sr_qp(qp2)->state),
				IB_QPS_ERR);
	}

	/* Local invalidate: the STag is dead; re-map and register again. */
	inv.ex.invalidate_rkey = mr->rkey;
	inv.send_flags = IB_SEND_SIGNALED;
	srk_post_local(k, &inv);
	KUNIT_ASSERT_EQ(test, 1, ib_poll_cq(k->cq, 1, &wc));
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, -ENOENT,
			sr_stag_copy(k->sqp, mr->rkey, va, in, 4,
				     IB_ACCESS_REMOTE_WRITE, true));
	ib_update_fast_reg_key(mr, 0x5b);
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_REMOTE_READ;
	srk_post_local(k, &reg.wr);
	KUNIT_ASSERT_EQ(test, 1, ib_poll_cq(k->cq, 1, &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, 0, sr_stag_copy(k->sqp, mr->rkey,
					      va + PAGE_SIZE - 520, out,
					      sizeof(out),
					      IB_ACCESS_REMOTE_READ, false));
	KUNIT_EXPECT_EQ(test, 0, memcmp(out, in, sizeof(out)));
	/* The old key is gone. */
	KUNIT_EXPECT_EQ(test, -ENOENT,
			sr_stag_copy(k->sqp, (mr->rkey & ~0xff) | 0x5a, va,
				     out, 4, IB_ACCESS_REMOTE_READ, false));
	/* Remote invalidate (SEND with invalidate) of a fast-reg MR. */
	KUNIT_EXPECT_EQ(test, 0, sr_stag_invalidate(k->sqp, mr->rkey, true));
	KUNIT_EXPECT_EQ(test, -ENOENT,
			sr_stag_copy(k->sqp, mr->rkey, va, out, 4,
				     IB_ACCESS_REMOTE_READ, false));
}

/* REG_MR of @mr under key byte @key with @access; it must succeed. */
static void srk_reg(struct srk *k, struct ib_mr *mr, u8 key, int access)
{
	struct ib_reg_wr reg = { .wr.opcode = IB_WR_REG_MR, .mr = mr };
	struct ib_wc wc;

	ib_update_fast_reg_key(mr, key);
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.key = mr->rkey;
	reg.access = access;
	srk_post_local(k, &reg.wr);
	KUNIT_ASSERT_EQ(k->test, 1, ib_poll_cq(k->cq, 1, &wc));
	KUNIT_EXPECT_EQ(k->test, wc.status, IB_WC_SUCCESS);
}

/*
 * A ULP maps a still-valid MR anew, with the LOCAL_INV that ends the old
 * registration chained ahead of the new REG_MR (ib_iser does): the map
 * succeeds and leaves the registration in use alone; the REG_MR moves the
 * STag to the new pages.
 */
static void srk_fast_reg_remap_valid(struct kunit *test)
{
	struct srk *k = test->priv;
	u8 *a = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	u8 *b = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct ib_send_wr inv = { .opcode = IB_WR_LOCAL_INV };
	int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct scatterlist sg;
	u8 in[16];
	struct ib_mr *mr;
	struct ib_wc wc;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	srk_rts(k, k->qp);
	mr = srk_frmr(k, k->pd, a, PAGE_SIZE);
	srk_reg(k, mr, 0x61, acc);

	sg_init_one(&sg, b, PAGE_SIZE);
	sg_dma_address(&sg) = (uintptr_t)b;
	sg_dma_len(&sg) = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, 1, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE));
	/* Still the old registration: the write lands in @a. */
	memset(in, 0xa1, sizeof(in));
	KUNIT_EXPECT_EQ(test, 0, sr_stag_copy(k->sqp, mr->rkey, (uintptr_t)a,
					      in, sizeof(in),
					      IB_ACCESS_REMOTE_WRITE, true));
	KUNIT_EXPECT_EQ(test, 0, memcmp(a, in, sizeof(in)));
	KUNIT_EXPECT_NE(test, 0, memcmp(b, in, sizeof(in)));

	inv.ex.invalidate_rkey = mr->rkey;
	inv.send_flags = IB_SEND_SIGNALED;
	srk_post_local(k, &inv);
	KUNIT_ASSERT_EQ(test, 1, ib_poll_cq(k->cq, 1, &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	srk_reg(k, mr, 0x62, acc);
	memset(in, 0xb2, sizeof(in));
	KUNIT_EXPECT_EQ(test, 0, sr_stag_copy(k->sqp, mr->rkey, (uintptr_t)b,
					      in, sizeof(in),
					      IB_ACCESS_REMOTE_WRITE, true));
	KUNIT_EXPECT_EQ(test, 0, memcmp(b, in, sizeof(in)));
	KUNIT_EXPECT_EQ(test, a[0], 0xa1);
}

static void srk_srq_limit(struct kunit *test)
{
	struct srk *k = test->priv;
	struct ib_srq_init_attr init = {
		.event_handler = srk_srq_event,
		.srq_context = k,
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct ib_srq_attr attr = { .srq_limit = 3 };
	struct ib_recv_wr rwr = { .wr_id = 9 };
	const struct ib_recv_wr *bad;
	struct ib_srq *srq;
	struct ib_qp *qp;
	struct siw_rqe rqe;
	int i;

	srq = ib_create_srq(k->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, srk_destroy_srq, srq));
	qp = srk_qp(k, srq);
	KUNIT_EXPECT_EQ(test, -EINVAL, ib_post_recv(qp, &rwr, &bad));
	for (i = 0; i < 6; i++)
		KUNIT_ASSERT_EQ(test, 0, ib_post_srq_recv(srq, &rwr, &bad));
	attr.srq_limit = 100;
	KUNIT_EXPECT_EQ(test, -EINVAL, ib_modify_srq(srq, &attr, IB_SRQ_LIMIT));
	attr.srq_limit = 3;
	KUNIT_ASSERT_EQ(test, 0, ib_modify_srq(srq, &attr, IB_SRQ_LIMIT));
	srk_rts(k, qp);
	/* 6 posted: 5, 4, 3 left do not fire; 2 left does, once. */
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, 1, sr_rq_take(to_sr_qp(qp), &rqe));
	KUNIT_EXPECT_EQ(test, k->srq_events, 0);
	KUNIT_ASSERT_EQ(test, 1, sr_rq_take(to_sr_qp(qp), &rqe));
	KUNIT_EXPECT_EQ(test, k->srq_events, 1);
	KUNIT_ASSERT_EQ(test, 1, sr_rq_take(to_sr_qp(qp), &rqe));
	KUNIT_EXPECT_EQ(test, k->srq_events, 1);
	KUNIT_EXPECT_EQ(test, rqe.id, 9ULL);
	/* Error on an SRQ QP: last WQE reached. */
	sr_qp_to_error(to_sr_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, k->qp_events[IB_EVENT_QP_LAST_WQE_REACHED], 1);
	KUNIT_EXPECT_EQ(test, 0, sr_rq_take(to_sr_qp(qp), &rqe));
}

static void srk_iw_ref(struct kunit *test)
{
	struct srk *k = test->priv;

	KUNIT_EXPECT_PTR_EQ(test, k->dev->ops.iw_get_qp(k->dev, k->qp->qp_num),
			    k->qp);
	KUNIT_EXPECT_NULL(test, k->dev->ops.iw_get_qp(k->dev, 0x7fffffff));
	/* iw_cm's reference: destroy would wait for the rem_ref. */
	k->dev->ops.iw_add_ref(k->qp);
	KUNIT_EXPECT_EQ(test, kref_read(&k->sqp->ref), 2U);
	k->dev->ops.iw_rem_ref(k->qp);
	KUNIT_EXPECT_EQ(test, kref_read(&k->sqp->ref), 1U);
}

static struct kunit_case srk_cases[] = {
	KUNIT_CASE(srk_device),
	KUNIT_CASE_PARAM(srk_sqe_translation, srk_wr_gen_params),
	KUNIT_CASE(srk_post_send_states),
	KUNIT_CASE(srk_complete),
	KUNIT_CASE(srk_bad_sqe),
	KUNIT_CASE(srk_flush),
	KUNIT_CASE_PARAM(srk_transition, srk_tr_gen_params),
	KUNIT_CASE(srk_modify_qp),
	KUNIT_CASE(srk_cq_notify),
	KUNIT_CASE(srk_cq_overflow),
	KUNIT_CASE(srk_dma_mr),
	KUNIT_CASE(srk_fast_reg),
	KUNIT_CASE(srk_fast_reg_remap_valid),
	KUNIT_CASE(srk_srq_limit),
	KUNIT_CASE(srk_iw_ref),
	{}
};

static struct kunit_suite srk_suite = {
	.name = "softrnic_verbs",
	.init = srk_init,
	.test_cases = srk_cases,
};

kunit_test_suite(srk_suite);

MODULE_DESCRIPTION("KUnit tests for the softrnic verbs layer");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
