// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for softib's RC transport: 24-bit PSN order across the wrap,
 * the AETH (syndrome, MSN, the credit code of IBA table 44), a build/parse
 * round trip of the RC extended headers, and the responder's checks on a
 * QP in RTS: a PSN ahead of the expected one (NAK PSN sequence error, once),
 * behind it (a duplicate, re-ACKed), an opcode out of sequence, lengths
 * past the RETH or the path MTU (NAK invalid request), a bad R_Key (NAK
 * remote access error); each dropped under its own counter and r_psn left
 * alone, and an ACK for a PSN never sent dropped by the requester; COMM_EST
 * raised once per move to RTR, LAST_WQE_REACHED once for an SRQ QP the
 * receive path fails, both delivered from a task.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/percpu-refcount.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_pack.h>

#include "drivers/softib/softib.h"
#include "drivers/softib/wire.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static void sibrc_psn(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, softib_psn_cmp(5, 5), 0);
	KUNIT_EXPECT_LT(test, softib_psn_cmp(4, 5), 0);
	KUNIT_EXPECT_GT(test, softib_psn_cmp(6, 5), 0);
	/* Across the wrap: 0 follows 0xffffff, 0xfffffe precedes 1. */
	KUNIT_EXPECT_GT(test, softib_psn_cmp(0, 0xffffff), 0);
	KUNIT_EXPECT_LT(test, softib_psn_cmp(0xfffffe, 1), 0);
	/* Only 24 bits count. */
	KUNIT_EXPECT_EQ(test, softib_psn_cmp(0x1000005, 5), 0);
	KUNIT_EXPECT_EQ(test, softib_psn_add(0xffffff, 1), 0u);
	KUNIT_EXPECT_EQ(test, softib_psn_add(0xfffffe, 3), 1u);
	/* Half the space ahead is ahead, the other half behind. */
	KUNIT_EXPECT_GT(test, softib_psn_cmp(0x7fffff, 0), 0);
	KUNIT_EXPECT_LT(test, softib_psn_cmp(0x800001, 0), 0);
}

static void sibrc_aeth(struct kunit *test)
{
	/* IBA table 44: code -> count 0 1 2 3 4 6 8 12 16 24 32 ... 32768 */
	static const struct { u32 rwqes; u8 code; } v[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 }, { 5, 4 },
		{ 6, 5 }, { 7, 5 }, { 8, 6 }, { 11, 6 }, { 12, 7 }, { 16, 8 },
		{ 24, 9 }, { 32, 10 }, { 100, 13 }, { 128, 14 },
		{ 24575, 28 }, { 24576, 29 }, { 32768, 30 }, { 1000000, 30 },
	};
	unsigned int i;
	u32 aeth;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		KUNIT_EXPECT_EQ_MSG(test, softib_credit_code(v[i].rwqes),
				    v[i].code, "%u receive WQEs", v[i].rwqes);
	aeth = softib_aeth(SOFTIB_AETH_ACK | 7, 0x1234567);
	KUNIT_EXPECT_EQ(test, aeth, 0x07234567u);
	KUNIT_EXPECT_EQ(test, softib_aeth_syndrome(aeth), 0x07);
	aeth = softib_aeth(SOFTIB_AETH_RNR | 14, 3);
	KUNIT_EXPECT_EQ(test, aeth >> 29, 1u);		/* RNR NAK */
	KUNIT_EXPECT_EQ(test, (aeth >> 24) & 0x1f, 14u);	/* its timer */
	KUNIT_EXPECT_EQ(test, softib_aeth(SOFTIB_NAK_PSN_SEQ, 0) >> 24, 0x60u);
	KUNIT_EXPECT_EQ(test, softib_aeth(SOFTIB_NAK_INV_REQ, 0) >> 24, 0x61u);
	KUNIT_EXPECT_EQ(test, softib_aeth(SOFTIB_NAK_REM_ACCESS, 0) >> 24,
			0x62u);
}

/* Build h with len payload bytes into buf and parse it back. */
static void sibrc_rt(struct kunit *test, struct softib_hdr *h, u32 len,
		     struct softib_hdr *out)
{
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	h->lnh = SOFTIB_LNH_LOCAL;
	h->dlid = 3;
	h->slid = 4;
	h->pkey = 0xffff;
	h->dqpn = 9;
	softib_hdr_lengths(h, len);
	softib_hdr_build(buf, h);
	softib_icrc_set(buf, h->pktlen * 4 - SOFTIB_ICRC_BYTES);
	KUNIT_ASSERT_EQ(test, softib_hdr_parse(buf, h->pktlen * 4, out),
			SOFTIB_DROP_NR);
	KUNIT_EXPECT_EQ(test, out->opcode, h->opcode);
	KUNIT_EXPECT_EQ(test, out->psn, h->psn);
	KUNIT_EXPECT_EQ(test, out->ackreq, h->ackreq);
	KUNIT_EXPECT_EQ(test, out->payload_len, len);
	KUNIT_EXPECT_EQ(test, out->hdr_len, softib_hdr_len(h));
}

static void sibrc_roundtrip(struct kunit *test)
{
	struct softib_hdr h = {}, o;
	u8 *buf;

	h.opcode = IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
	h.psn = 0xabcdef;
	h.ackreq = true;
	h.va = 0x1122334455667788ULL;
	h.rkey = 0xdeadbeef;
	h.dmalen = 13;
	h.imm = cpu_to_be32(0xcafe);
	sibrc_rt(test, &h, 13, &o);
	KUNIT_EXPECT_EQ(test, o.va, h.va);
	KUNIT_EXPECT_EQ(test, o.rkey, h.rkey);
	KUNIT_EXPECT_EQ(test, o.dmalen, h.dmalen);
	KUNIT_EXPECT_EQ(test, o.imm, h.imm);
	KUNIT_EXPECT_EQ(test, o.hdr_len, SOFTIB_LRH_BYTES + SOFTIB_BTH_BYTES +
			SOFTIB_RETH_BYTES + SOFTIB_IMM_BYTES);

	memset(&h, 0, sizeof(h));
	h.opcode = IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE;
	h.aeth = softib_aeth(SOFTIB_AETH_ACK | 3, 77);
	h.atomic_orig = 0x0102030405060708ULL;
	sibrc_rt(test, &h, 0, &o);
	KUNIT_EXPECT_EQ(test, o.aeth, h.aeth);
	KUNIT_EXPECT_EQ(test, o.atomic_orig, h.atomic_orig);

	memset(&h, 0, sizeof(h));
	h.opcode = IB_OPCODE_RC_COMPARE_SWAP;
	h.va = 8;
	h.rkey = 0x42;
	h.swap_add = 0xaaaa;
	h.compare = 0xbbbb;
	sibrc_rt(test, &h, 0, &o);
	KUNIT_EXPECT_EQ(test, o.swap_add, h.swap_add);
	KUNIT_EXPECT_EQ(test, o.compare, h.compare);

	memset(&h, 0, sizeof(h));
	h.opcode = IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE;
	h.inv_rkey = 0x5566;
	sibrc_rt(test, &h, 5, &o);
	KUNIT_EXPECT_EQ(test, o.inv_rkey, h.inv_rkey);

	/* UC's opcodes and RC's reserved ones: not ours. */
	buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(&h, 0, sizeof(h));
	h.lnh = SOFTIB_LNH_LOCAL;
	h.opcode = 0x20;		/* UC SEND FIRST */
	softib_hdr_lengths(&h, 8);
	softib_hdr_build(buf, &h);
	softib_icrc_set(buf, h.pktlen * 4 - SOFTIB_ICRC_BYTES);
	KUNIT_EXPECT_EQ(test, softib_hdr_parse(buf, h.pktlen * 4, &o),
			SOFTIB_DROP_OPCODE);
	/* An RC READ request too short for its RETH. */
	memset(&h, 0, sizeof(h));
	h.lnh = SOFTIB_LNH_LOCAL;
	h.opcode = IB_OPCODE_RC_SEND_ONLY;
	softib_hdr_lengths(&h, 8);
	softib_hdr_build(buf, &h);
	buf[SOFTIB_LRH_BYTES] = IB_OPCODE_RC_RDMA_READ_REQUEST;
	softib_icrc_set(buf, h.pktlen * 4 - SOFTIB_ICRC_BYTES);
	KUNIT_EXPECT_EQ(test, softib_hdr_parse(buf, h.pktlen * 4, &o),
			SOFTIB_DROP_SHORT);
}

/* ---- the responder on a mock QP ------------------------------------------- */

#define SIBRC_PSN	0x100
#define SIBRC_PEER	7

struct sibrc {
	struct softib_dev *sdev;
	struct rvt_qp *qp;
	struct softib_qp_priv *priv;
	/* no MR unless a test adds one (slot 1): every R_Key is bad */
	struct rvt_mregion __rcu *lkeys[2];
	struct rvt_pd pd;		/* the QP's: a kernel PD */
	struct rvt_krwq kwq;		/* its receive queue, empty */
	u8 pkt[512];
};

static void sibrc_noop_work(struct work_struct *work)
{
}

static void sibrc_free(void *data)
{
	struct sibrc *t = data;

	if (t->sdev && t->sdev->wq)
		destroy_workqueue(t->sdev->wq);
	if (t->sdev && t->sdev->ndev)
		free_netdev(t->sdev->ndev);
	if (t->qp)
		kfree(t->qp->s_ack_queue);
	kfree(t->priv);
	kfree(t->qp);
	kfree(t->sdev);
}

static struct sibrc *sibrc_setup(struct kunit *test)
{
	struct sibrc *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct softib_port *port;
	struct rvt_qp *qp;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->sdev = kzalloc(sizeof(*t->sdev), GFP_KERNEL);
	t->qp = kzalloc(sizeof(*t->qp), GFP_KERNEL);
	t->priv = kzalloc(sizeof(*t->priv), GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sibrc_free, t),
			0);
	KUNIT_ASSERT_NOT_NULL(test, t->sdev);
	KUNIT_ASSERT_NOT_NULL(test, t->qp);
	KUNIT_ASSERT_NOT_NULL(test, t->priv);
	t->sdev->wq = alloc_workqueue("sibrc_kunit", 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, t->sdev->wq);
	t->sdev->rdi.dparms.max_rdma_atomic = 4;
	t->sdev->rdi.lkey_table.table = t->lkeys;
	t->sdev->rdi.lkey_table.shift = 31;
	port = &t->sdev->port;
	port->sdev = t->sdev;
	port->port_num = 1;
	port->lid = 3;
	port->state = IB_PORT_ACTIVE;
	port->pkeys[0] = 0xffff;

	qp = t->qp;
	qp->s_ack_queue = kcalloc(rvt_max_atomic(&t->sdev->rdi),
				  sizeof(*qp->s_ack_queue), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->s_ack_queue);
	spin_lock_init(&qp->r_lock);
	spin_lock_init(&qp->s_lock);
	qp->ibqp.device = &t->sdev->rdi.ibdev;
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->ibqp.qp_num = 5;
	qp->state = IB_QPS_RTS;
	qp->remote_qpn = 9;
	qp->remote_ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&qp->remote_ah_attr, SIBRC_PEER);
	qp->pmtu = 256;
	qp->log_pmtu = 8;
	qp->r_psn = SIBRC_PSN;
	qp->r_state = IB_OPCODE_RC_SEND_LAST;
	qp->qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	qp->priv = t->priv;
	t->priv->qp = qp;
	INIT_WORK(&t->priv->send_work, sibrc_noop_work);
	softib_qp_events_init(t->priv);
	/* a kernel PD, an empty receive queue (a SEND gets an RNR NAK) */
	t->pd.ibpd.device = &t->sdev->rdi.ibdev;
	qp->ibqp.pd = &t->pd.ibpd;
	spin_lock_init(&t->kwq.p_lock);
	spin_lock_init(&t->kwq.c_lock);
	qp->r_rq.kwq = &t->kwq;
	qp->r_rq.size = 1;
	/* the send engine's packets go nowhere: the carrier is down */
	t->sdev->ndev = alloc_etherdev(0);
	KUNIT_ASSERT_NOT_NULL(test, t->sdev->ndev);
	return t;
}

/* A request header to the mock QP carrying len payload bytes. */
static struct softib_hdr sibrc_hdr(u8 opcode, u32 psn, u32 len)
{
	struct softib_hdr h = {
		.lnh = SOFTIB_LNH_LOCAL, .dlid = 3, .slid = SIBRC_PEER,
		.opcode = opcode, .pkey = 0xffff, .dqpn = 5, .psn = psn,
		.ackreq = true,
	};

	h.hdr_len = softib_hdr_len(&h);
	h.payload_len = len;
	return h;
}

/* One packet into softib_rc_rcv(): exactly counter why moves. */
static void sibrc_rx(struct kunit *test, struct sibrc *t,
		     const struct softib_hdr *h, enum softib_drop why)
{
	struct softib_port *port = &t->sdev->port;
	u64 before[SOFTIB_DROP_NR];
	int i;

	for (i = 0; i < SOFTIB_DROP_NR; i++)
		before[i] = softib_drop_count(port, i);
	local_bh_disable();
	rcu_read_lock();
	softib_rc_rcv(port, t->qp, h, t->pkt);
	rcu_read_unlock();
	local_bh_enable();
	for (i = 0; i < SOFTIB_DROP_NR; i++)
		KUNIT_EXPECT_EQ_MSG(test, softib_drop_count(port, i) - before[i],
				    (u64)(i == why), "reason %d (expected %d)",
				    i, why);
	flush_workqueue(t->sdev->wq);
}

/* The NAK owed: its syndrome and PSN; then forget it (as once sent). */
static void sibrc_expect_nak(struct kunit *test, struct sibrc *t, u8 syn,
			     u32 psn)
{
	KUNIT_EXPECT_TRUE(test, t->priv->nak_pending);
	KUNIT_EXPECT_EQ(test, softib_aeth_syndrome(t->priv->nak_aeth), syn);
	KUNIT_EXPECT_EQ(test, t->priv->nak_psn, psn);
	KUNIT_EXPECT_EQ(test, t->qp->r_psn, (u32)SIBRC_PSN);
	t->priv->nak_pending = false;
	t->qp->r_nak_state = 0;
}

static void sibrc_responder(struct kunit *test)
{
	struct sibrc *t = sibrc_setup(test);
	struct softib_hdr h;

	/* PSN ahead: sequence error NAK for the expected PSN, only once. */
	h = sibrc_hdr(IB_OPCODE_RC_SEND_ONLY, SIBRC_PSN + 3, 8);
	sibrc_rx(test, t, &h, SOFTIB_DROP_PSN);
	KUNIT_EXPECT_TRUE(test, t->priv->nak_pending);
	t->priv->nak_pending = false;
	sibrc_rx(test, t, &h, SOFTIB_DROP_PSN);
	KUNIT_EXPECT_FALSE(test, t->priv->nak_pending);
	t->priv->nak_pending = true;
	sibrc_expect_nak(test, t, SOFTIB_NAK_PSN_SEQ, SIBRC_PSN);

	/* PSN behind: a duplicate, not executed, ACKed again. */
	h = sibrc_hdr(IB_OPCODE_RC_SEND_ONLY, SIBRC_PSN - 1, 8);
	sibrc_rx(test, t, &h, SOFTIB_DROP_DUP);
	KUNIT_EXPECT_TRUE(test, t->priv->ack_pending);
	KUNIT_EXPECT_FALSE(test, t->priv->nak_pending);
	t->priv->ack_pending = false;
	/* Far behind (across the 24-bit wrap) is behind too. */
	h = sibrc_hdr(IB_OPCODE_RC_SEND_ONLY, 0xfffff0, 8);
	sibrc_rx(test, t, &h, SOFTIB_DROP_DUP);
	t->priv->ack_pending = false;

	/* A MIDDLE or LAST with no FIRST before it. */
	h = sibrc_hdr(IB_OPCODE_RC_RDMA_WRITE_MIDDLE, SIBRC_PSN, 256);
	sibrc_rx(test, t, &h, SOFTIB_DROP_OPSEQ);
	sibrc_expect_nak(test, t, SOFTIB_NAK_INV_REQ, SIBRC_PSN);
	h = sibrc_hdr(IB_OPCODE_RC_SEND_LAST, SIBRC_PSN, 8);
	sibrc_rx(test, t, &h, SOFTIB_DROP_OPSEQ);
	sibrc_expect_nak(test, t, SOFTIB_NAK_INV_REQ, SIBRC_PSN);

	/* WRITE ONLY carrying more than its RETH's DMA length. */
	h = sibrc_hdr(IB_OPCODE_RC_RDMA_WRITE_ONLY, SIBRC_PSN, 64);
	h.va = 0x1000;
	h.rkey = 0x1234;
	h.dmalen = 32;
	sibrc_rx(test, t, &h, SOFTIB_DROP_LEN);
	sibrc_expect_nak(test, t, SOFTIB_NAK_INV_REQ, SIBRC_PSN);
	/* WRITE FIRST whose DMA length fits one packet (should be ONLY). */
	h = sibrc_hdr(IB_OPCODE_RC_RDMA_WRITE_FIRST, SIBRC_PSN, 256);
	h.rkey = 0x1234;
	h.dmalen = 256;
	sibrc_rx(test, t, &h, SOFTIB_DROP_LEN);
	sibrc_expect_nak(test, t, SOFTIB_NAK_INV_REQ, SIBRC_PSN);
	/* A FIRST shorter than the path MTU; a packet longer than it. */
	h = sibrc_hdr(IB_OPCODE_RC_SEND_FIRST, SIBRC_PSN, 100);
	sibrc_rx(test, t, &h, SOFTIB_DROP_LEN);
	sibrc_expect_nak(test, t, SOFTIB_NAK_INV_REQ, SIBRC_PSN);
	h = sibrc_hdr(IB_OPCODE_RC_SEND_ONLY, SIBRC_PSN, 300);
	sibrc_rx(test, t, &h, SOFTIB_DROP_LEN);
	sibrc_expect_nak(test, t, SOFTIB_NAK_INV_REQ, SIBRC_PSN);

	/* A bad R_Key: NAK remote access error, for WRITE and READ. */
	h = sibrc_hdr(IB_OPCODE_RC_RDMA_WRITE_ONLY, SIBRC_PSN, 32);
	h.va = 0x1000;
	h.rkey = 0x1234;
	h.dmalen = 32;
	sibrc_rx(test, t, &h, SOFTIB_DROP_RKEY);
	sibrc_expect_nak(test, t, SOFTIB_NAK_REM_ACCESS, SIBRC_PSN);
	h = sibrc_hdr(IB_OPCODE_RC_RDMA_READ_REQUEST, SIBRC_PSN, 0);
	h.va = 0x1000;
	h.rkey = 0x1234;
	h.dmalen = 4096;
	sibrc_rx(test, t, &h, SOFTIB_DROP_RKEY);
	sibrc_expect_nak(test, t, SOFTIB_NAK_REM_ACCESS, SIBRC_PSN);
	KUNIT_EXPECT_EQ(test, t->qp->r_head_ack_queue, t->qp->s_tail_ack_queue);
	/* No remote atomic access on this QP: invalid request. */
	h = sibrc_hdr(IB_OPCODE_RC_FETCH_ADD, SIBRC_PSN, 0);
	h.rkey = 0x1234;
	sibrc_rx(test, t, &h, SOFTIB_DROP_RKEY);
	sibrc_expect_nak(test, t, SOFTIB_NAK_INV_REQ, SIBRC_PSN);

	/* A zero-length READ needs no R_Key: queued, r_psn moves on. */
	h = sibrc_hdr(IB_OPCODE_RC_RDMA_READ_REQUEST, SIBRC_PSN, 0);
	sibrc_rx(test, t, &h, SOFTIB_DROP_NR);
	KUNIT_EXPECT_FALSE(test, t->priv->nak_pending);
	KUNIT_EXPECT_EQ(test, t->qp->r_psn, (u32)SIBRC_PSN + 1);
	KUNIT_EXPECT_NE(test, t->qp->r_head_ack_queue,
			t->qp->s_tail_ack_queue);
	KUNIT_EXPECT_EQ(test, t->priv->resp_psn, (u32)SIBRC_PSN);

	/* From a stranger (SLID not the QP's peer), or a foreign P_Key. */
	h = sibrc_hdr(IB_OPCODE_RC_SEND_ONLY, SIBRC_PSN + 1, 8);
	h.slid = SIBRC_PEER + 1;
	sibrc_rx(test, t, &h, SOFTIB_DROP_QP);
	h = sibrc_hdr(IB_OPCODE_RC_SEND_ONLY, SIBRC_PSN + 1, 8);
	h.pkey = 0x8001;
	sibrc_rx(test, t, &h, SOFTIB_DROP_PKEY);
	KUNIT_EXPECT_EQ(test, t->qp->r_psn, (u32)SIBRC_PSN + 1);
}

static void sibrc_requester(struct kunit *test)
{
	struct sibrc *t = sibrc_setup(test);
	struct softib_hdr h;

	/* Nothing sent yet: any ACK, NAK or response is for no PSN of ours. */
	h = sibrc_hdr(IB_OPCODE_RC_ACKNOWLEDGE, 0x10, 0);
	h.aeth = softib_aeth(SOFTIB_AETH_ACK, 0);
	sibrc_rx(test, t, &h, SOFTIB_DROP_PSN);
	/* Sent up to 0x10 (exclusive), acknowledged through 0x0f: stale. */
	t->priv->hi_valid = true;
	t->priv->hi_psn = 0x10;
	t->qp->s_psn = 0x10;
	t->qp->s_last_psn = 0x0f;
	h = sibrc_hdr(IB_OPCODE_RC_ACKNOWLEDGE, 0x0f, 0);
	sibrc_rx(test, t, &h, SOFTIB_DROP_DUP);
	/* Beyond what was sent. */
	h = sibrc_hdr(IB_OPCODE_RC_ACKNOWLEDGE, 0x10, 0);
	sibrc_rx(test, t, &h, SOFTIB_DROP_PSN);
	/* An ACK with a payload. */
	t->qp->s_last_psn = 0x0e;
	h = sibrc_hdr(IB_OPCODE_RC_ACKNOWLEDGE, 0x0f, 4);
	sibrc_rx(test, t, &h, SOFTIB_DROP_LEN);
	KUNIT_EXPECT_EQ(test, t->qp->s_last_psn, 0x0eu);
}

struct sibrc_ev {
	int n;
	enum ib_event_type type;
	bool task;
};

static void sibrc_event(struct ib_event *ev, void *ctx)
{
	struct sibrc_ev *e = ctx;

	e->n++;
	e->type = ev->event;
	e->task = in_task();
}

/*
 * COMM_EST: the first request to a QP in RTR raises it, once, and the
 * handler runs in a task (the QP's event work), not in the receive
 * softirq; after a move to RTR again (rdmavt clears RVT_R_COMM_EST) the
 * next request raises it again.
 */
static void sibrc_comm_est(struct kunit *test)
{
	struct sibrc *t = sibrc_setup(test);
	struct sibrc_ev e = {};
	struct softib_hdr h;
	int i;

	t->qp->state = IB_QPS_RTR;
	t->qp->ibqp.event_handler = sibrc_event;
	t->qp->ibqp.qp_context = &e;
	for (i = 0; i < 3; i++) {
		if (i == 2)
			t->qp->r_flags &= ~RVT_R_COMM_EST;
		/* a zero-length READ: no R_Key, no receive WQE needed */
		h = sibrc_hdr(IB_OPCODE_RC_RDMA_READ_REQUEST, SIBRC_PSN + i, 0);
		sibrc_rx(test, t, &h, SOFTIB_DROP_NR);
		t->qp->s_tail_ack_queue = t->qp->r_head_ack_queue;
		KUNIT_EXPECT_EQ(test, t->qp->r_psn, (u32)SIBRC_PSN + i + 1);
		KUNIT_EXPECT_TRUE(test, t->qp->r_flags & RVT_R_COMM_EST);
		KUNIT_EXPECT_EQ(test, e.n, i < 2 ? 1 : 2);
		KUNIT_EXPECT_EQ(test, e.type, IB_EVENT_COMM_EST);
		KUNIT_EXPECT_TRUE(test, e.task);
	}
}

static void sibrc_noop_qp(struct rvt_qp *qp)
{
}

static bool sibrc_noop_sched(struct rvt_qp *qp)
{
	return false;
}

/*
 * A QP without a receive queue of its own (on an SRQ) that the receive
 * path moves to error: LAST_WQE_REACHED, once (a QP in error stays so),
 * from a task.
 */
static void sibrc_last_wqe(struct kunit *test)
{
	struct sibrc *t = sibrc_setup(test);
	struct sibrc_ev e = {};
	unsigned long flags;
	int i;

	t->sdev->rdi.driver_f.notify_error_qp = sibrc_noop_qp;
	t->sdev->rdi.driver_f.schedule_send = sibrc_noop_sched;
	t->qp->r_rq.kwq = NULL;		/* on an SRQ: no receive queue */
	t->qp->ibqp.event_handler = sibrc_event;
	t->qp->ibqp.qp_context = &e;
	for (i = 0; i < 2; i++) {
		spin_lock_irqsave(&t->qp->r_lock, flags);
		spin_lock(&t->qp->s_lock);
		softib_qp_error(t->qp, IB_WC_LOC_QP_OP_ERR);
		spin_unlock(&t->qp->s_lock);
		spin_unlock_irqrestore(&t->qp->r_lock, flags);
		flush_workqueue(t->sdev->wq);
		KUNIT_EXPECT_EQ(test, t->qp->state, IB_QPS_ERR);
		KUNIT_EXPECT_EQ(test, e.n, 1);
		KUNIT_EXPECT_EQ(test, e.type, IB_EVENT_QP_LAST_WQE_REACHED);
		KUNIT_EXPECT_TRUE(test, e.task);
	}
}

/* ---- MR references: R_Key 0, duplicate READs, RNR NAKs, READs done ------ */

#define SIBRC_IOVA	0x10000ULL
#define SIBRC_MR_LEN	4096
#define SIBRC_RKEY	0x80000001u	/* lkey table slot 1 (shift 31) */
#define SIBRC_RETRIES	5

/* A memory region as rdmavt keeps one, over a buffer of the test's own. */
struct sibrc_mr {
	struct sibrc *t;
	struct rvt_mregion *mr;
	u8 *buf;
};

static void sibrc_mr_release(struct percpu_ref *ref)
{
	struct rvt_mregion *mr = container_of(ref, struct rvt_mregion,
					      refcount);

	complete(&mr->comp);
}

static void sibrc_mr_free(void *data)
{
	struct sibrc_mr *m = data;

	if (m->mr) {
		percpu_ref_exit(&m->mr->refcount);
		kfree(m->mr->map[0]);
	}
	kfree(m->mr);
	kfree(m->buf);
}

/*
 * An MR of the QP's PD over SIBRC_MR_LEN bytes at SIBRC_IOVA, published
 * under rkey (slot 1 of the lkey table), or rdmavt's DMA MR when rkey is 0
 * (ib_alloc_pd() makes one for every kernel PD of a device without
 * IBK_LOCAL_DMA_LKEY, the first becomes rdi->dma_mr).
 */
static struct sibrc_mr *sibrc_mr_new(struct kunit *test, struct sibrc *t,
				     u32 rkey, int access)
{
	struct sibrc_mr *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct rvt_mregion *mr;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->t = t;
	m->buf = kzalloc(SIBRC_MR_LEN, GFP_KERNEL);
	mr = kzalloc(struct_size(mr, map, 1), GFP_KERNEL);
	m->mr = mr;
	if (mr)
		mr->map[0] = kzalloc(sizeof(*mr->map[0]), GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sibrc_mr_free, m),
			0);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_ASSERT_NOT_NULL(test, mr->map[0]);
	init_completion(&mr->comp);
	KUNIT_ASSERT_EQ(test, percpu_ref_init(&mr->refcount, sibrc_mr_release,
					      PERCPU_REF_INIT_ATOMIC,
					      GFP_KERNEL), 0);
	mr->pd = &t->pd.ibpd;
	mr->iova = SIBRC_IOVA;
	mr->length = SIBRC_MR_LEN;
	mr->lkey = rkey;
	mr->access_flags = access;
	mr->max_segs = 1;
	mr->mapsz = 1;
	mr->map[0]->segs[0].vaddr = m->buf;
	mr->map[0]->segs[0].length = SIBRC_MR_LEN;
	mr->lkey_published = 1;
	if (rkey)
		rcu_assign_pointer(t->lkeys[rkey >> 31], mr);
	else
		rcu_assign_pointer(t->sdev->rdi.dma_mr, mr);
	return m;
}

/* References on the MR besides its own (what rvt_dereg_mr() waits for). */
static long sibrc_mr_refs(struct sibrc_mr *m)
{
	return atomic_long_read(&m->mr->refcount.data->count) - 1;
}

/* Does the QP hold the MR, where rvt_qp_mr_clean() looks? */
static bool sibrc_qp_holds(struct rvt_qp *qp, struct rvt_mregion *mr)
{
	unsigned int i;

	if (qp->r_sge.num_sge && qp->r_sge.sge.mr == mr)
		return true;
	for (i = 0; i < rvt_max_atomic(ib_to_rvt(qp->ibqp.device)); i++)
		if (qp->s_ack_queue[i].rdma_sge.mr == mr)
			return true;
	return false;
}

/*
 * What ib_dereg_mr() comes to in rdmavt (rvt_dereg_mr()): the key is
 * unpublished, every QP that still holds the MR is moved to error
 * (rvt_qp_mr_clean()), the MR's own reference is dropped and the others
 * are waited for (5 s there, 1 s here). True when the QP held none (it
 * would stay in its state) and the wait succeeded: then the buffer is
 * freed, as the ULP would free the pages.
 */
static bool sibrc_mr_dereg(struct sibrc_mr *m)
{
	struct rvt_mregion *mr = m->mr;
	bool held;

	if (mr->lkey)
		RCU_INIT_POINTER(m->t->lkeys[mr->lkey >> 31], NULL);
	else
		RCU_INIT_POINTER(m->t->sdev->rdi.dma_mr, NULL);
	WRITE_ONCE(mr->lkey_published, 0);
	synchronize_rcu();
	held = sibrc_qp_holds(m->t->qp, mr);
	percpu_ref_kill(&mr->refcount);
	if (held || !wait_for_completion_timeout(&mr->comp, HZ))
		return false;
	kfree(m->buf);
	m->buf = NULL;
	return true;
}

/* The QP's send engine, run as its work item would: packets put out. */
static u64 sibrc_drain(struct sibrc *t)
{
	struct softib_port *port = &t->sdev->port;
	u64 before = atomic64_read(&port->cnt.xmit_pkts);

	softib_rc_send(t->qp);
	flush_workqueue(t->sdev->wq);
	return atomic64_read(&port->cnt.xmit_pkts) - before;
}

/* A READ request for len bytes at va under rkey, at psn. */
static struct softib_hdr sibrc_read(u32 psn, u64 va, u32 rkey, u32 len)
{
	struct softib_hdr h = sibrc_hdr(IB_OPCODE_RC_RDMA_READ_REQUEST, psn, 0);

	h.va = va;
	h.rkey = rkey;
	h.dmalen = len;
	return h;
}

struct sibrc_rkey0_case {
	const char *name;
	u8 opcode;
	bool unsafe_pd;		/* allocated with IB_PD_UNSAFE_GLOBAL_RKEY */
	bool ok;
};

static const struct sibrc_rkey0_case sibrc_rkey0_cases[] = {
	{ "WRITE, kernel PD", IB_OPCODE_RC_RDMA_WRITE_ONLY, false, false },
	{ "READ, kernel PD", IB_OPCODE_RC_RDMA_READ_REQUEST, false, false },
	{ "FETCH_ADD, kernel PD", IB_OPCODE_RC_FETCH_ADD, false, false },
	{ "COMPARE_SWAP, kernel PD", IB_OPCODE_RC_COMPARE_SWAP, false, false },
	{ "WRITE, unsafe global rkey PD", IB_OPCODE_RC_RDMA_WRITE_ONLY, true,
	  true },
	{ "READ, unsafe global rkey PD", IB_OPCODE_RC_RDMA_READ_REQUEST, true,
	  true },
	{ "FETCH_ADD, unsafe global rkey PD", IB_OPCODE_RC_FETCH_ADD, true,
	  false },
};

KUNIT_ARRAY_PARAM_DESC(sibrc_rkey0, sibrc_rkey0_cases, name);

/*
 * R_Key 0 names rdmavt's DMA MR (all kernel memory): refused to a kernel
 * QP, NAK remote access error, the memory its VA points at unchanged and
 * nothing queued; only a PD that asked for an unsafe global rkey takes it,
 * and then for READ and WRITE only.
 */
static void sibrc_rkey0(struct kunit *test)
{
	const struct sibrc_rkey0_case *c = test->param_value;
	bool write = c->opcode == IB_OPCODE_RC_RDMA_WRITE_ONLY;
	bool read = c->opcode == IB_OPCODE_RC_RDMA_READ_REQUEST;
	struct sibrc *t = sibrc_setup(test);
	struct sibrc_mr *dma;
	struct softib_hdr h;
	u8 *victim, *was;

	dma = sibrc_mr_new(test, t, 0, IB_ACCESS_LOCAL_WRITE);
	victim = kunit_kzalloc(test, 64, GFP_KERNEL);
	was = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, victim);
	KUNIT_ASSERT_NOT_NULL(test, was);
	memset(victim, 0x5a, 64);
	memcpy(was, victim, 64);
	t->qp->qp_access_flags |= IB_ACCESS_REMOTE_ATOMIC;
	if (c->unsafe_pd)
		t->pd.ibpd.flags = IB_PD_UNSAFE_GLOBAL_RKEY;

	h = sibrc_hdr(c->opcode, SIBRC_PSN, write ? 32 : 0);
	h.va = (u64)(uintptr_t)victim;
	h.rkey = 0;
	h.dmalen = write || read ? 32 : 0;
	h.swap_add = 1;
	h.compare = 0x5a5a5a5a5a5a5a5aULL;
	memset(t->pkt + h.hdr_len, 0xc3, 32);
	if (!c->ok) {
		sibrc_rx(test, t, &h, SOFTIB_DROP_RKEY);
		sibrc_expect_nak(test, t, SOFTIB_NAK_REM_ACCESS, SIBRC_PSN);
		KUNIT_EXPECT_EQ(test, t->qp->r_head_ack_queue,
				t->qp->s_tail_ack_queue);
		KUNIT_EXPECT_EQ(test, sibrc_drain(t), 0);
		KUNIT_EXPECT_MEMEQ(test, victim, was, 64);
		KUNIT_EXPECT_EQ(test, sibrc_mr_refs(dma), 0);
		return;
	}
	sibrc_rx(test, t, &h, SOFTIB_DROP_NR);
	KUNIT_EXPECT_FALSE(test, t->priv->nak_pending);
	KUNIT_EXPECT_EQ(test, t->qp->r_psn, (u32)SIBRC_PSN + 1);
	if (write)
		KUNIT_EXPECT_MEMEQ(test, victim, t->pkt + h.hdr_len, 32);
	/* READ: one response; WRITE: its ACK */
	KUNIT_EXPECT_EQ(test, sibrc_drain(t), 1);
	KUNIT_EXPECT_EQ(test, sibrc_mr_refs(dma), 0);
}

struct sibrc_stale_case {
	const char *name;
	int what;
};

enum { SIBRC_INVALIDATED, SIBRC_DEREGISTERED, SIBRC_REKEYED };

static const struct sibrc_stale_case sibrc_stale_cases[] = {
	{ "invalidated", SIBRC_INVALIDATED },
	{ "deregistered and freed", SIBRC_DEREGISTERED },
	{ "registered again under a new key", SIBRC_REKEYED },
};

KUNIT_ARRAY_PARAM_DESC(sibrc_stale, sibrc_stale_cases, name);

/*
 * A READ answered in full; a duplicate of part of it is answered again
 * (from its PSN, with the MR taken anew); one whose RETH does not match
 * the request is not. Then the ULP invalidates, deregisters (and frees)
 * or re-keys the MR: a duplicate with the old R_Key, a PSN in the
 * answered range, is dropped (counted as rkey) and nothing is sent.
 */
static void sibrc_dup_read_stale(struct kunit *test)
{
	const struct sibrc_stale_case *c = test->param_value;
	struct sibrc *t = sibrc_setup(test);
	struct sibrc_mr *m;
	struct softib_hdr h;

	m = sibrc_mr_new(test, t, SIBRC_RKEY, IB_ACCESS_REMOTE_READ);
	h = sibrc_read(SIBRC_PSN, SIBRC_IOVA, SIBRC_RKEY, 1024);
	sibrc_rx(test, t, &h, SOFTIB_DROP_NR);
	KUNIT_EXPECT_EQ(test, t->qp->r_psn, (u32)SIBRC_PSN + 4);
	KUNIT_EXPECT_EQ(test, sibrc_mr_refs(m), 1);
	KUNIT_EXPECT_EQ(test, sibrc_drain(t), 4);
	KUNIT_EXPECT_EQ(test, sibrc_mr_refs(m), 0);

	/* Its last two packets again: answered, the MR given back after. */
	h = sibrc_read(SIBRC_PSN + 2, SIBRC_IOVA + 512, SIBRC_RKEY, 512);
	sibrc_rx(test, t, &h, SOFTIB_DROP_DUP);
	KUNIT_EXPECT_EQ(test, sibrc_drain(t), 2);
	KUNIT_EXPECT_EQ(test, sibrc_mr_refs(m), 0);
	/* The PSN of the third packet with the VA of the first: no. */
	h = sibrc_read(SIBRC_PSN + 2, SIBRC_IOVA, SIBRC_RKEY, 512);
	sibrc_rx(test, t, &h, SOFTIB_DROP_DUP);
	KUNIT_EXPECT_EQ(test, sibrc_drain(t), 0);

	switch (c->what) {
	case SIBRC_INVALIDATED:
		atomic_set(&m->mr->lkey_invalid, 1);
		break;
	case SIBRC_DEREGISTERED:
		KUNIT_EXPECT_TRUE(test, sibrc_mr_dereg(m));
		KUNIT_EXPECT_EQ(test, t->qp->state, IB_QPS_RTS);
		break;
	case SIBRC_REKEYED:
		RCU_INIT_POINTER(t->lkeys[1], NULL);
		synchronize_rcu();
		m->mr->lkey = SIBRC_RKEY + 0x100;
		rcu_assign_pointer(t->lkeys[1], m->mr);
		break;
	}
	h = sibrc_read(SIBRC_PSN + 1, SIBRC_IOVA + 256, SIBRC_RKEY, 768);
	sibrc_rx(test, t, &h, SOFTIB_DROP_RKEY);
	KUNIT_EXPECT_FALSE(test, t->priv->nak_pending);
	KUNIT_EXPECT_EQ(test, sibrc_drain(t), 0);
	KUNIT_EXPECT_FALSE(test, sibrc_qp_holds(t->qp, m->mr));
	if (c->what != SIBRC_DEREGISTERED)
		KUNIT_EXPECT_EQ(test, sibrc_mr_refs(m), 0);
	KUNIT_EXPECT_EQ(test, t->qp->r_psn, (u32)SIBRC_PSN + 4);
}

static const char * const sibrc_rnr_cases[] = { "ONLY", "LAST" };

static void sibrc_rnr_desc(const char * const *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "WRITE %s with immediate", *c);
}

KUNIT_ARRAY_PARAM(sibrc_rnr, sibrc_rnr_cases, sibrc_rnr_desc);

/*
 * RDMA WRITE with immediate into a QP with no receive WQE: an RNR NAK,
 * memory untouched, and the MR's references where they started after
 * every one of the retries, so the MR can be deregistered. A LAST parked
 * at an RNR NAK takes its R_Key again when it comes back: after the MR is
 * invalidated it is refused (NAK remote access error); before, it lands
 * where it belongs.
 */
static void sibrc_rnr_write_imm(struct kunit *test)
{
	bool last = !strcmp(*(const char * const *)test->param_value, "LAST");
	struct sibrc *t = sibrc_setup(test);
	u8 op = last ? IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE :
		       IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
	u32 psn = SIBRC_PSN + last, off = last ? 256 : 0;
	struct sibrc_mr *m;
	struct softib_hdr h;
	u8 *zero;
	int i;

	zero = kunit_kzalloc(test, SIBRC_MR_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, zero);
	m = sibrc_mr_new(test, t, SIBRC_RKEY, IB_ACCESS_REMOTE_WRITE);
	if (last) {
		h = sibrc_hdr(IB_OPCODE_RC_RDMA_WRITE_FIRST, SIBRC_PSN, 256);
		h.va = SIBRC_IOVA;
		h.rkey = SIBRC_RKEY;
		h.dmalen = 512;
		memset(t->pkt + h.hdr_len, 0x11, 256);
		sibrc_rx(test, t, &h, SOFTIB_DROP_NR);
		KUNIT_EXPECT_EQ(test, sibrc_mr_refs(m), 1);
	}
	for (i = 0; i < SIBRC_RETRIES; i++) {
		h = sibrc_hdr(op, psn, 256);
		if (!last) {
			h.va = SIBRC_IOVA;
			h.rkey = SIBRC_RKEY;
			h.dmalen = 256;
		}
		h.imm = cpu_to_be32(i);
		memset(t->pkt + h.hdr_len, 0x22, 256);
		sibrc_rx(test, t, &h, SOFTIB_DROP_RNR);
		KUNIT_EXPECT_TRUE(test, t->priv->nak_pending);
		KUNIT_EXPECT_EQ(test, softib_aeth_syndrome(t->priv->nak_aeth),
				SOFTIB_AETH_RNR | t->qp->r_min_rnr_timer);
		KUNIT_EXPECT_EQ(test, t->priv->nak_psn, psn);
		KUNIT_EXPECT_EQ(test, sibrc_drain(t), 1);
		t->qp->r_nak_state = 0;
		KUNIT_EXPECT_EQ_MSG(test, sibrc_mr_refs(m), 0, "retry %d", i);
		KUNIT_EXPECT_FALSE(test, sibrc_qp_holds(t->qp, m->mr));
	}
	KUNIT_EXPECT_EQ(test, t->qp->r_psn, psn);
	KUNIT_EXPECT_MEMEQ(test, m->buf + off, zero, SIBRC_MR_LEN - off);

	if (last) {
		/* Back without immediate (needs no WQE): lands at 256. */
		h = sibrc_hdr(IB_OPCODE_RC_RDMA_WRITE_LAST, psn, 256);
		memset(t->pkt + h.hdr_len, 0x33, 256);
		sibrc_rx(test, t, &h, SOFTIB_DROP_NR);
		KUNIT_EXPECT_EQ(test, m->buf[255], 0x11);
		KUNIT_EXPECT_EQ(test, m->buf[256], 0x33);
		KUNIT_EXPECT_EQ(test, m->buf[511], 0x33);
		KUNIT_EXPECT_EQ(test, sibrc_mr_refs(m), 0);
		/* Again, parked, then the MR invalidated: refused. */
		h = sibrc_hdr(IB_OPCODE_RC_RDMA_WRITE_FIRST, psn + 1, 256);
		h.va = SIBRC_IOVA + 1024;
		h.rkey = SIBRC_RKEY;
		h.dmalen = 512;
		sibrc_rx(test, t, &h, SOFTIB_DROP_NR);
		h = sibrc_hdr(op, psn + 2, 256);
		sibrc_rx(test, t, &h, SOFTIB_DROP_RNR);
		t->priv->nak_pending = false;
		t->qp->r_nak_state = 0;
		KUNIT_EXPECT_EQ(test, sibrc_mr_refs(m), 0);
		atomic_set(&m->mr->lkey_invalid, 1);
		memset(t->pkt + h.hdr_len, 0x44, 256);
		sibrc_rx(test, t, &h, SOFTIB_DROP_RKEY);
		KUNIT_EXPECT_TRUE(test, t->priv->nak_pending);
		KUNIT_EXPECT_EQ(test, softib_aeth_syndrome(t->priv->nak_aeth),
				SOFTIB_NAK_REM_ACCESS);
		KUNIT_EXPECT_EQ(test, m->buf[1024 + 256], 0);
		KUNIT_EXPECT_EQ(test, sibrc_mr_refs(m), 0);
	}
	KUNIT_EXPECT_TRUE(test, sibrc_mr_dereg(m));
	KUNIT_EXPECT_EQ(test, t->qp->state, IB_QPS_RTS);
}

static const u32 sibrc_read_lens[] = { 1, 256, 1000, SIBRC_MR_LEN };

static void sibrc_read_len_desc(const u32 *len, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "READ of %u bytes", *len);
}

KUNIT_ARRAY_PARAM(sibrc_read_len, sibrc_read_lens, sibrc_read_len_desc);

/*
 * A READ answered in full holds no MR reference: the MR can be
 * deregistered and the QP stays in RTS (rdmavt errors a QP whose ack
 * queue still holds it). Until then the entry holds exactly one.
 */
static void sibrc_read_done_dereg(struct kunit *test)
{
	u32 len = *(const u32 *)test->param_value;
	u32 npkts = DIV_ROUND_UP(len, 256);
	struct sibrc *t = sibrc_setup(test);
	struct sibrc_mr *m;
	struct softib_hdr h;

	m = sibrc_mr_new(test, t, SIBRC_RKEY, IB_ACCESS_REMOTE_READ);
	h = sibrc_read(SIBRC_PSN, SIBRC_IOVA, SIBRC_RKEY, len);
	sibrc_rx(test, t, &h, SOFTIB_DROP_NR);
	KUNIT_EXPECT_EQ(test, sibrc_mr_refs(m), 1);
	KUNIT_EXPECT_TRUE(test, sibrc_qp_holds(t->qp, m->mr));
	KUNIT_EXPECT_EQ(test, sibrc_drain(t), npkts);
	KUNIT_EXPECT_EQ(test, t->qp->s_tail_ack_queue,
			t->qp->r_head_ack_queue);
	KUNIT_EXPECT_FALSE(test, sibrc_qp_holds(t->qp, m->mr));
	KUNIT_EXPECT_EQ(test, sibrc_mr_refs(m), 0);
	KUNIT_EXPECT_TRUE(test, sibrc_mr_dereg(m));
	KUNIT_EXPECT_EQ(test, t->qp->state, IB_QPS_RTS);
	/* and a READ under the key that is gone: NAK remote access */
	h = sibrc_read(SIBRC_PSN + npkts, SIBRC_IOVA, SIBRC_RKEY, len);
	sibrc_rx(test, t, &h, SOFTIB_DROP_RKEY);
}

static struct kunit_case sibrc_cases[] = {
	KUNIT_CASE(sibrc_psn),
	KUNIT_CASE(sibrc_aeth),
	KUNIT_CASE(sibrc_roundtrip),
	KUNIT_CASE(sibrc_responder),
	KUNIT_CASE(sibrc_requester),
	KUNIT_CASE(sibrc_comm_est),
	KUNIT_CASE(sibrc_last_wqe),
	KUNIT_CASE_PARAM(sibrc_rkey0, sibrc_rkey0_gen_params),
	KUNIT_CASE_PARAM(sibrc_dup_read_stale, sibrc_stale_gen_params),
	KUNIT_CASE_PARAM(sibrc_rnr_write_imm, sibrc_rnr_gen_params),
	KUNIT_CASE_PARAM(sibrc_read_done_dereg, sibrc_read_len_gen_params),
	{}
};

static struct kunit_suite sibrc_suite = {
	.name = "softib_rc",
	.test_cases = sibrc_cases,
};

kunit_test_suite(sibrc_suite);

MODULE_DESCRIPTION("KUnit tests for softib's RC transport");
MODULE_LICENSE("GPL");
