/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the softib KUnit suites (softib_kunit.c,
 * softib_fuzz_kunit.c): build a UD packet with its ICRC, a QP that takes
 * packets (with an empty receive queue, or with receive WQEs on rdmavt's
 * DMA MR, whose references a test counts), and hand a frame to the
 * receive path the way the carrier's rx handler does.
 */
#ifndef SOFTIB_TEST_H
#define SOFTIB_TEST_H

#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <rdma/rdmavt_cq.h>

#include "drivers/softib/softib.h"
#include "drivers/softib/wire.h"

/*
 * A packet of h's headers and payload_len bytes of payload (payload, or
 * 0xa0, 0xa1, ... when NULL), with its ICRC; fills in h's PadCnt, PktLen
 * and PayLen. Returns its length.
 */
static inline unsigned int sib_make_data(struct softib_hdr *h, u8 *buf,
					 const u8 *payload,
					 unsigned int payload_len)
{
	unsigned int hl, bytes, i;

	h->padcnt = -payload_len & 3;
	hl = softib_hdr_len(h);
	bytes = hl + payload_len + h->padcnt + SOFTIB_ICRC_BYTES;
	h->pktlen = bytes / 4;
	if (h->lnh == SOFTIB_LNH_GLOBAL)
		h->paylen = bytes - SOFTIB_LRH_BYTES - SOFTIB_GRH_BYTES;
	softib_hdr_build(buf, h);
	for (i = 0; i < payload_len + h->padcnt; i++)
		buf[hl + i] = i >= payload_len ? 0 :
			      payload ? payload[i] : 0xa0 + i;
	softib_icrc_set(buf, bytes - SOFTIB_ICRC_BYTES);
	return bytes;
}

static inline unsigned int sib_make(struct softib_hdr *h, u8 *buf,
				    unsigned int payload_len)
{
	return sib_make_data(h, buf, NULL, payload_len);
}

/*
 * A QP ready to receive (RTS) whose receive queue is empty, from zeroed
 * memory: a packet that passes every check of the receive path ends in
 * rvt_get_rwqe() finding no WQE and is counted as no_rwqe, which is how a
 * test sees "delivered".
 */
static inline void sib_qp_ready(struct rvt_qp *qp, struct rvt_krwq *kwq,
				struct ib_device *ibdev, enum ib_qp_type type,
				u32 qpn)
{
	spin_lock_init(&kwq->p_lock);
	spin_lock_init(&kwq->c_lock);
	spin_lock_init(&qp->r_lock);
	qp->r_rq.kwq = kwq;
	qp->r_rq.size = 1;
	qp->ibqp.device = ibdev;
	qp->ibqp.qp_type = type;
	qp->ibqp.qp_num = qpn;
	qp->state = IB_QPS_RTS;
}

/* softib_ud_rcv() in the context the carrier's rx handler gives it. */
static inline void sib_rx_skb(struct softib_dev *sdev, struct sk_buff *skb)
{
	local_bh_disable();
	rcu_read_lock();
	softib_ud_rcv(sdev, skb);
	rcu_read_unlock();
	local_bh_enable();
}

/*
 * A receive queue that takes packets, on a QP sib_qp_ready() made: up to
 * SIB_RQ_MAX WQEs of one SGE each, posted as rvt_post_recv() leaves them
 * (sib_rq_post()), on lkey 0, which rdmavt resolves to the device's DMA MR
 * for a kernel PD; a receive CQ of rdmavt's kernel kind. rvt_get_rwqe(),
 * rvt_copy_sge(), rvt_recv_cq() and rvt_error_qp() run on them as on a
 * registered device. The DMA MR's percpu_ref is in atomic mode, so that
 * sib_mr_refs() can read how many references the receive path holds.
 */
#define SIB_RQ_MAX	16
#define SIB_RQ_BUF	1024		/* the largest WQE */

struct sib_rq {
	struct kunit *test;
	struct softib_dev *sdev;
	struct rvt_qp *qp;
	struct rvt_mregion *mr;		/* sdev's DMA MR */
	struct completion mr_done;	/* its last reference went */
	struct rvt_pd pd;
	struct rvt_cq cq;
	struct rvt_k_cq_wc *wc;		/* the CQ's ring */
	struct rvt_krwq *kwq;
	u8 *buf;			/* WQE i's buffer: buf + i * SIB_RQ_BUF */
	u32 len[SIB_RQ_MAX + 1];	/* WQE lengths, by ring slot */
	u64 posted;			/* WQEs posted so far (the next wr_id) */
};

static inline void sib_rq_mr_release(struct percpu_ref *ref)
{
	struct rvt_mregion *mr = container_of(ref, struct rvt_mregion,
					      refcount);

	complete(&mr->comp);
}

/* the references to the DMA MR (its percpu_ref is in atomic mode) */
static inline long sib_mr_refs(struct sib_rq *rq)
{
	return atomic_long_read(&rq->mr->refcount.data->count);
}

static inline void sib_rq_notify_error(struct rvt_qp *qp)
{
}

static inline void sib_rq_free(void *data)
{
	struct sib_rq *rq = data;

	RCU_INIT_POINTER(rq->sdev->rdi.dma_mr, NULL);
	if (rq->mr)
		percpu_ref_exit(&rq->mr->refcount);
	kfree(rq->mr);
	kfree(rq->wc);
	kfree(rq->kwq);
	kfree(rq->buf);
}

/*
 * Give qp (ready to receive, sdev's) a receive queue of SIB_RQ_MAX slots
 * and nothing posted, a PD and a receive CQ; sdev the DMA MR.
 */
static inline struct sib_rq *sib_rq_init(struct kunit *test,
					 struct softib_dev *sdev,
					 struct rvt_qp *qp)
{
	struct sib_rq *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);
	size_t wqe = sizeof(struct rvt_rwqe) + sizeof(struct ib_sge);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->test = test;
	rq->sdev = sdev;
	rq->qp = qp;
	rq->mr = kzalloc(sizeof(*rq->mr), GFP_KERNEL);
	rq->wc = kzalloc(struct_size(rq->wc, kqueue, 4 * SIB_RQ_MAX + 1),
			 GFP_KERNEL);
	rq->kwq = kzalloc(sizeof(*rq->kwq) + (SIB_RQ_MAX + 1) * wqe,
			  GFP_KERNEL);
	rq->buf = kcalloc(SIB_RQ_MAX + 1, SIB_RQ_BUF, GFP_KERNEL);
	/* sib_rq_free() takes what there is (percpu_ref_exit() a zeroed ref) */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sib_rq_free, rq),
			0);
	KUNIT_ASSERT_TRUE(test, rq->mr && rq->wc && rq->kwq && rq->buf);
	init_completion(&rq->mr->comp);
	KUNIT_ASSERT_EQ(test, percpu_ref_init(&rq->mr->refcount,
					      sib_rq_mr_release,
					      PERCPU_REF_INIT_ATOMIC,
					      GFP_KERNEL), 0);
	rq->mr->pd = &rq->pd.ibpd;
	rq->mr->length = ~0ULL;
	rq->mr->access_flags = IB_ACCESS_LOCAL_WRITE;
	rcu_assign_pointer(sdev->rdi.dma_mr, rq->mr);
	sdev->rdi.driver_f.notify_error_qp = sib_rq_notify_error;

	rq->pd.ibpd.device = &sdev->rdi.ibdev;
	spin_lock_init(&rq->cq.lock);
	rq->cq.rdi = &sdev->rdi;
	rq->cq.kqueue = rq->wc;
	rq->cq.ibcq.cqe = 4 * SIB_RQ_MAX;
	rq->cq.ibcq.device = &sdev->rdi.ibdev;
	rq->cq.notify = RVT_CQ_NONE;

	spin_lock_init(&rq->kwq->p_lock);
	spin_lock_init(&rq->kwq->c_lock);
	rq->kwq->curr_wq = rq->kwq->wq;
	spin_lock_init(&qp->s_lock);
	qp->r_rq.kwq = rq->kwq;
	qp->r_rq.size = SIB_RQ_MAX + 1;
	qp->r_rq.max_sge = 1;
	qp->ibqp.pd = &rq->pd.ibpd;
	qp->ibqp.recv_cq = &rq->cq.ibcq;
	return rq;
}

/* Post one WQE of len bytes (wr_id: how many were posted before it). */
static inline void sib_rq_post(struct sib_rq *rq, u32 len)
{
	struct rvt_krwq *kwq = rq->kwq;
	u32 head = kwq->head, next = (head + 1) % rq->qp->r_rq.size;
	struct rvt_rwqe *wqe = rvt_get_rwqe_ptr(&rq->qp->r_rq, head);

	KUNIT_ASSERT_NE(rq->test, next, kwq->tail);	/* full */
	KUNIT_ASSERT_LE(rq->test, len, SIB_RQ_BUF);
	wqe->wr_id = rq->posted++;
	wqe->num_sge = 1;
	wqe->sg_list[0].addr = (uintptr_t)(rq->buf + head * SIB_RQ_BUF);
	wqe->sg_list[0].length = len;
	wqe->sg_list[0].lkey = 0;
	rq->len[head] = len;
	spin_lock_irq(&kwq->p_lock);
	/* the WQE before the head that shows it, as rvt_post_recv() */
	smp_store_release(&kwq->head, next);
	spin_unlock_irq(&kwq->p_lock);
}

/* The next completion of the receive CQ into wc; false when none. */
static inline bool sib_rq_poll(struct sib_rq *rq, struct ib_wc *wc)
{
	struct rvt_k_cq_wc *k = rq->wc;

	if (k->tail == k->head)
		return false;
	*wc = k->kqueue[k->tail];
	k->tail = k->tail >= (u32)rq->cq.ibcq.cqe ? 0 : k->tail + 1;
	return true;
}

/* The receive buffer of the WQE that wc completed. */
static inline const u8 *sib_rq_buf(struct sib_rq *rq, const struct ib_wc *wc)
{
	return rq->buf + (wc->wr_id % (SIB_RQ_MAX + 1)) * SIB_RQ_BUF;
}

/*
 * The QP fails (rvt_error_qp(): what a reset or a destroy starts with):
 * rdmavt completes the WQE the receive path holds and flushes the rest,
 * and puts the MR references the QP holds.
 */
static inline void sib_rq_fail(struct sib_rq *rq)
{
	struct rvt_qp *qp = rq->qp;

	spin_lock_irq(&qp->r_lock);
	spin_lock(&qp->s_lock);
	rvt_error_qp(qp, IB_WC_WR_FLUSH_ERR);
	spin_unlock(&qp->s_lock);
	spin_unlock_irq(&qp->r_lock);
}

/* Drop the DMA MR's own reference: true when the last one went with it. */
static inline bool sib_rq_mr_kill(struct sib_rq *rq)
{
	percpu_ref_kill(&rq->mr->refcount);
	return try_wait_for_completion(&rq->mr->comp);
}

#endif /* SOFTIB_TEST_H */
