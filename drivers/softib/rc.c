// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the RC send engine, run by the QP's work item (qp.c).
 *
 * Each turn takes r_lock then s_lock, builds at most one packet and sends
 * it with both dropped (our own receive path may take another QP's locks).
 * The responder's packets go first: a NAK, then the READ responses and
 * atomic ACKs queued in s_ack_queue[] (rc_rx.c), then a coalesced ACK for
 * r_psn - 1. Then the requester's: the WQE at s_cur, from PSN s_psn.
 *
 * Requester state (s_lock): s_last == s_acked (completion happens when a
 * WQE is acknowledged, its data is copied at send time), s_acked..s_cur
 * sent and waiting for an ACK or response, s_cur..s_head still to send;
 * s_last_psn is the last PSN acknowledged, s_psn the next to send, and
 * priv->hi_psn one past the highest ever sent. PSNs of a WQE are rdmavt's,
 * assigned at post time (wqe->psn..wqe->lpsn; a READ's span its response
 * packets). Go-back-N: softib_rc_go_back() rewinds s_cur/s_psn to a PSN,
 * after which everything from there is sent again.
 */
#include <linux/skbuff.h>
#include <rdma/ib_pack.h>
#include "softib.h"
#include "wire.h"

/* Packets in flight before the requester waits for an ACK. */
#define SOFTIB_RC_WINDOW	512
/* Ask for an ACK at least every this many packets of a long message. */
#define SOFTIB_RC_ACKREQ_EVERY	32

bool softib_wqe_is_rd_atomic(const struct rvt_swqe *wqe)
{
	switch (wqe->wr.opcode) {
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return true;
	default:
		return false;
	}
}

static bool softib_wqe_is_local(const struct rvt_swqe *wqe)
{
	return wqe->wr.opcode == IB_WR_REG_MR ||
	       wqe->wr.opcode == IB_WR_LOCAL_INV;
}

/* The AETH credit field: receive WQEs posted, or invalid with an SRQ. */
static u8 softib_rc_credits(struct rvt_qp *qp)
{
	struct rvt_rq *rq = &qp->r_rq;
	u32 head, tail;

	if (qp->ibqp.srq || !rq->kwq)
		return SOFTIB_CREDIT_INVALID;
	if (qp->ip) {
		head = RDMA_READ_UAPI_ATOMIC(rq->wq->head);
		tail = RDMA_READ_UAPI_ATOMIC(rq->wq->tail);
	} else {
		head = READ_ONCE(rq->kwq->head);
		tail = READ_ONCE(rq->kwq->tail);
	}
	if (head >= rq->size || tail >= rq->size)
		return SOFTIB_CREDIT_INVALID;
	return softib_credit_code(rvt_get_rq_count(rq, head, tail));
}

u32 softib_rc_ack_aeth(struct rvt_qp *qp)
{
	return softib_aeth(SOFTIB_AETH_ACK | softib_rc_credits(qp), qp->r_msn);
}

/* The headers of an RC packet of len payload bytes on qp's path. */
static void softib_rc_hdr(struct softib_dev *sdev, struct rvt_qp *qp,
			  struct softib_hdr *h, u8 opcode, u32 psn)
{
	struct softib_port *port = &sdev->port;

	memset(h, 0, sizeof(*h));
	softib_hdr_route(port, &qp->remote_ah_attr, h);
	h->opcode = opcode;
	h->pkey = softib_pkey_at(port, qp->s_pkey_index);
	h->dqpn = qp->remote_qpn;
	h->psn = psn & 0xffffff;
}

static struct sk_buff *softib_rc_build(struct softib_dev *sdev,
				       struct softib_hdr *h,
				       struct rvt_sge_state *ss, u32 len)
{
	softib_hdr_lengths(h, len);
	return softib_pkt_build(sdev, h, ss, len, GFP_ATOMIC);
}

/* The n-th packet's opcode of a message of packets first..last. */
static u8 softib_rc_seg_op(bool first, bool last, u8 op_first, u8 op_middle,
			   u8 op_last, u8 op_only)
{
	if (first)
		return last ? op_only : op_first;
	return last ? op_last : op_middle;
}

/* ---- responder output ---------------------------------------------------- */

static struct sk_buff *softib_rc_read_resp(struct softib_dev *sdev,
					   struct rvt_qp *qp,
					   struct rvt_ack_entry *e)
{
	struct softib_qp_priv *priv = qp->priv;
	u32 psn = priv->resp_psn, total = e->rdma_sge.sge_length;
	u32 off = ((psn - e->psn) & 0xffffff) << qp->log_pmtu;
	bool first = psn == priv->resp_first, last = psn == e->lpsn;
	struct rvt_sge_state ss = {
		.sge = e->rdma_sge,
		.num_sge = e->rdma_sge.mr ? 1 : 0,
		.total_len = total,
	};
	struct softib_hdr h;
	u32 len;

	if (off > total)
		return NULL;
	len = min_t(u32, total - off, qp->pmtu);
	softib_rc_hdr(sdev, qp, &h,
		      softib_rc_seg_op(first, last,
				       IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST,
				       IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE,
				       IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST,
				       IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY),
		      psn);
	h.aeth = softib_rc_ack_aeth(qp);
	if (off)
		rvt_skip_sge(&ss, off, false);
	return softib_rc_build(sdev, &h, &ss, len);
}

/* Move to the next ack queue entry once one is fully answered. */
static void softib_rc_ackq_next(struct rvt_qp *qp)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct softib_qp_priv *priv = qp->priv;
	u8 next = qp->s_tail_ack_queue + 1;

	if (next >= rvt_max_atomic(rdi))
		next = 0;
	qp->s_tail_ack_queue = next;
	if (next != qp->r_head_ack_queue) {
		priv->resp_psn = qp->s_ack_queue[next].psn;
		priv->resp_first = priv->resp_psn;
	}
}

/*
 * A READ answered in full gives its MR reference back: nothing is left to
 * send from it, and a ULP may deregister the MR without its QP going to
 * error (rdmavt errors a QP whose ack queue still holds the MR). A
 * duplicate takes the R_Key anew (rc_rx.c). r_lock and s_lock held.
 */
static void softib_rc_read_done(struct rvt_qp *qp, struct rvt_ack_entry *e)
{
	lockdep_assert_held(&qp->s_lock);
	if (e->rdma_sge.mr) {
		rvt_put_mr(e->rdma_sge.mr);
		e->rdma_sge.mr = NULL;
	}
}

/* A READ entry answered before, its MR given back: nothing to send. */
static bool softib_rc_read_released(const struct rvt_ack_entry *e)
{
	return e->opcode == IB_OPCODE_RC_RDMA_READ_REQUEST &&
	       e->rdma_sge.sge_length && !e->rdma_sge.mr;
}

/* The responder's next packet, or NULL. r_lock and s_lock held. */
static struct sk_buff *softib_rc_responder_out(struct softib_dev *sdev,
					       struct rvt_qp *qp)
{
	struct softib_qp_priv *priv = qp->priv;
	struct rvt_ack_entry *e;
	struct sk_buff *skb;
	struct softib_hdr h;

	lockdep_assert_held(&qp->r_lock);
	lockdep_assert_held(&qp->s_lock);

	if (priv->nak_pending) {
		priv->nak_pending = false;
		priv->ack_pending = false;
		softib_rc_hdr(sdev, qp, &h, IB_OPCODE_RC_ACKNOWLEDGE,
			      priv->nak_psn);
		h.aeth = priv->nak_aeth;
		return softib_rc_build(sdev, &h, NULL, 0);
	}
	/*
	 * A duplicate READ rewinds to its entry and answers what follows
	 * again; the READs among them that were answered in full hold no MR
	 * now: skip them (their requester asks again, and rc_rx.c checks).
	 */
	while (qp->s_tail_ack_queue != qp->r_head_ack_queue &&
	       softib_rc_read_released(&qp->s_ack_queue[qp->s_tail_ack_queue]))
		softib_rc_ackq_next(qp);
	if (qp->s_tail_ack_queue != qp->r_head_ack_queue) {
		e = &qp->s_ack_queue[qp->s_tail_ack_queue];
		if (e->opcode == IB_OPCODE_RC_RDMA_READ_REQUEST) {
			skb = softib_rc_read_resp(sdev, qp, e);
			if (!skb)
				return NULL;
			if (priv->resp_psn == e->lpsn) {
				/* the data is in skb: the MR may go */
				softib_rc_read_done(qp, e);
				softib_rc_ackq_next(qp);
			} else {
				priv->resp_psn = softib_psn_add(priv->resp_psn,
								1);
			}
			return skb;
		}
		softib_rc_hdr(sdev, qp, &h, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE,
			      e->psn);
		h.aeth = softib_rc_ack_aeth(qp);
		h.atomic_orig = e->atomic_data;
		skb = softib_rc_build(sdev, &h, NULL, 0);
		if (skb)
			softib_rc_ackq_next(qp);
		return skb;
	}
	if (priv->ack_pending) {
		priv->ack_pending = false;
		softib_rc_hdr(sdev, qp, &h, IB_OPCODE_RC_ACKNOWLEDGE,
			      qp->r_psn - 1);
		h.aeth = softib_rc_ack_aeth(qp);
		return softib_rc_build(sdev, &h, NULL, 0);
	}
	return NULL;
}

/* ---- requester ------------------------------------------------------------ */

/* Complete the WQE at s_last (== s_acked) with status; s_lock held. */
static void softib_rc_complete(struct rvt_qp *qp, struct rvt_swqe *wqe,
			       enum ib_wc_status status)
{
	if (softib_wqe_is_rd_atomic(wqe) && qp->s_num_rd_atomic)
		qp->s_num_rd_atomic--;
	rvt_send_complete(qp, wqe, status);
}

/*
 * The oldest WQE fails with status and the QP goes to the error state (the
 * rest of the send queue is flushed). r_lock and s_lock held.
 */
void softib_rc_fail(struct rvt_qp *qp, enum ib_wc_status status)
{
	lockdep_assert_held(&qp->r_lock);
	lockdep_assert_held(&qp->s_lock);
	if (qp->s_last != qp->s_head)
		softib_rc_complete(qp, rvt_get_swqe_ptr(qp, qp->s_last),
				   status);
	softib_qp_error(qp, IB_WC_WR_FLUSH_ERR);
}

/*
 * Go back to psn: the next packet sent is psn, of the WQE that holds it,
 * and everything after it follows again. s_lock held.
 */
void softib_rc_go_back(struct rvt_qp *qp, u32 psn)
{
	struct softib_qp_priv *priv = qp->priv;
	struct rvt_swqe *wqe;
	u32 i = qp->s_acked, rd = 0;

	lockdep_assert_held(&qp->s_lock);
	rdi_to_sdev(ib_to_rvt(qp->ibqp.device))->port.rvp.n_rc_resends++;
	if (softib_psn_cmp(psn, qp->s_last_psn + 1) < 0)
		psn = qp->s_last_psn + 1;
	while (i != qp->s_head) {
		wqe = rvt_get_swqe_ptr(qp, i);
		if (softib_wqe_is_local(wqe) ||
		    softib_psn_cmp(psn, wqe->lpsn) <= 0)
			break;
		if (softib_wqe_is_rd_atomic(wqe))
			rd++;
		i = rvt_qp_swqe_incr(qp, i);
	}
	priv->gbn_armed = true;
	priv->gbn_psn = psn & 0xffffff;
	qp->s_cur = i;
	qp->s_num_rd_atomic = rd;
	if (i == qp->s_head) {
		qp->s_psn = psn & 0xffffff;
		return;
	}
	wqe = rvt_get_swqe_ptr(qp, i);
	if (softib_wqe_is_local(wqe) || softib_psn_cmp(psn, wqe->psn) < 0)
		psn = wqe->psn;
	qp->s_psn = psn & 0xffffff;
}

/*
 * rdmavt's notify_restart_rc: the retry timer fired (wait = 1) for psn,
 * the oldest unacknowledged PSN. r_lock and s_lock held.
 */
void softib_rc_restart(struct rvt_qp *qp, u32 psn, int wait)
{
	lockdep_assert_held(&qp->s_lock);
	if (qp->s_acked == qp->s_cur &&
	    softib_psn_cmp(qp->s_psn, qp->s_last_psn + 1) <= 0)
		return;		/* nothing in flight */
	if (wait) {
		if (!qp->s_retry) {
			softib_rc_fail(qp, IB_WC_RETRY_EXC_ERR);
			return;
		}
		qp->s_retry--;
	}
	softib_rc_go_back(qp, psn);
}

/* Start the retry timer unless it runs. s_lock held. */
static void softib_rc_arm_timer(struct rvt_qp *qp)
{
	if (!(qp->s_flags & RVT_S_TIMER))
		rvt_mod_retry_timer(qp);
}

/* SEND and WRITE opcodes by work request: FIRST, MIDDLE, LAST, ONLY */
static const u8 softib_rc_ops[IB_WR_SEND_WITH_INV + 1][4] = {
	[IB_WR_SEND] = {
		IB_OPCODE_RC_SEND_FIRST, IB_OPCODE_RC_SEND_MIDDLE,
		IB_OPCODE_RC_SEND_LAST, IB_OPCODE_RC_SEND_ONLY },
	[IB_WR_SEND_WITH_IMM] = {
		IB_OPCODE_RC_SEND_FIRST, IB_OPCODE_RC_SEND_MIDDLE,
		IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE,
		IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE },
	[IB_WR_SEND_WITH_INV] = {
		IB_OPCODE_RC_SEND_FIRST, IB_OPCODE_RC_SEND_MIDDLE,
		IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE,
		IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE },
	[IB_WR_RDMA_WRITE] = {
		IB_OPCODE_RC_RDMA_WRITE_FIRST, IB_OPCODE_RC_RDMA_WRITE_MIDDLE,
		IB_OPCODE_RC_RDMA_WRITE_LAST, IB_OPCODE_RC_RDMA_WRITE_ONLY },
	[IB_WR_RDMA_WRITE_WITH_IMM] = {
		IB_OPCODE_RC_RDMA_WRITE_FIRST, IB_OPCODE_RC_RDMA_WRITE_MIDDLE,
		IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
		IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE },
};

/* The request packet of wqe at s_psn; advances s_psn/s_cur. s_lock held. */
static struct sk_buff *softib_rc_request(struct softib_dev *sdev,
					 struct rvt_qp *qp,
					 struct rvt_swqe *wqe)
{
	struct softib_qp_priv *priv = qp->priv;
	u32 psn = qp->s_psn, idx = (psn - wqe->psn) & 0xffffff;
	u32 off = idx << qp->log_pmtu, len = 0;
	bool first = idx == 0, last = psn == (wqe->lpsn & 0xffffff);
	struct rvt_sge_state ss = {
		.sge = wqe->sg_list[0],
		.sg_list = wqe->sg_list + 1,
		.num_sge = wqe->wr.num_sge,
		.total_len = wqe->length,
	};
	struct rvt_sge_state *pss = NULL;
	struct softib_hdr h;
	struct sk_buff *skb;
	u8 op;

	if (off > wqe->length)
		return NULL;
	switch (wqe->wr.opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		op = softib_rc_seg_op(first, last,
				      softib_rc_ops[wqe->wr.opcode][0],
				      softib_rc_ops[wqe->wr.opcode][1],
				      softib_rc_ops[wqe->wr.opcode][2],
				      softib_rc_ops[wqe->wr.opcode][3]);
		softib_rc_hdr(sdev, qp, &h, op, psn);
		h.va = wqe->rdma_wr.remote_addr;
		h.rkey = wqe->rdma_wr.rkey;
		h.dmalen = wqe->length;
		break;
	case IB_WR_RDMA_READ:
		/* One request for the rest of the READ, from this PSN on. */
		softib_rc_hdr(sdev, qp, &h, IB_OPCODE_RC_RDMA_READ_REQUEST,
			      psn);
		h.va = wqe->rdma_wr.remote_addr + off;
		h.rkey = wqe->rdma_wr.rkey;
		h.dmalen = wqe->length - off;
		last = true;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		softib_rc_hdr(sdev, qp, &h,
			      wqe->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
			      IB_OPCODE_RC_COMPARE_SWAP :
			      IB_OPCODE_RC_FETCH_ADD, psn);
		h.va = wqe->atomic_wr.remote_addr;
		h.rkey = wqe->atomic_wr.rkey;
		h.swap_add = wqe->atomic_wr.swap;
		h.compare = wqe->atomic_wr.compare_add;
		if (wqe->wr.opcode == IB_WR_ATOMIC_FETCH_AND_ADD)
			h.swap_add = wqe->atomic_wr.compare_add;
		last = true;
		break;
	default:
		return NULL;
	}
	if (softib_op_ext(h.opcode) & SOFTIB_EXT_PAYLOAD) {
		len = min_t(u32, wqe->length - off, qp->pmtu);
		pss = &ss;
		if (off)
			rvt_skip_sge(&ss, off, false);
	}
	if (softib_op_has_imm(h.opcode))
		h.imm = wqe->wr.ex.imm_data;
	if (softib_op_ext(h.opcode) & SOFTIB_EXT_IETH)
		h.inv_rkey = wqe->wr.ex.invalidate_rkey;
	h.se = last && (wqe->wr.send_flags & IB_SEND_SOLICITED);
	h.ackreq = last || idx % SOFTIB_RC_ACKREQ_EVERY ==
			   SOFTIB_RC_ACKREQ_EVERY - 1;
	skb = softib_rc_build(sdev, &h, pss, len);
	if (!skb)
		return NULL;

	if (last) {
		if (softib_wqe_is_rd_atomic(wqe))
			qp->s_num_rd_atomic++;
		qp->s_psn = softib_psn_add(wqe->lpsn, 1);
		qp->s_cur = rvt_qp_swqe_incr(qp, qp->s_cur);
	} else {
		qp->s_psn = softib_psn_add(psn, 1);
	}
	if (!priv->hi_valid || softib_psn_cmp(qp->s_psn, priv->hi_psn) > 0)
		priv->hi_psn = qp->s_psn;
	priv->hi_valid = true;
	softib_rc_arm_timer(qp);
	return skb;
}

/*
 * Execute a local operation (rdmavt did it at post time unless it had to
 * wait behind earlier work) once everything before it is acknowledged.
 */
static void softib_rc_local(struct rvt_qp *qp, struct rvt_swqe *wqe)
{
	enum ib_wc_status status = IB_WC_SUCCESS;

	if (!(wqe->wr.send_flags & RVT_SEND_COMPLETION_ONLY)) {
		if (wqe->wr.opcode == IB_WR_LOCAL_INV &&
		    rvt_invalidate_rkey(qp, wqe->wr.ex.invalidate_rkey))
			status = IB_WC_LOC_PROT_ERR;
		atomic_dec(&qp->local_ops_pending);
	}
	softib_rc_complete(qp, wqe, status);
}

/*
 * The requester's next packet: NULL when there is nothing (more) to send
 * now, ERR_PTR(-EAGAIN) when a WQE completed without one. s_lock held.
 */
static struct sk_buff *softib_rc_requester_out(struct softib_dev *sdev,
					       struct rvt_qp *qp)
{
	struct rvt_swqe *wqe;

	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_NEXT_SEND_OK)) {
		if (!(ib_rvt_state_ops[qp->state] & RVT_FLUSH_SEND) ||
		    qp->s_last == READ_ONCE(qp->s_head))
			return NULL;
		wqe = rvt_get_swqe_ptr(qp, qp->s_last);
		rvt_send_complete(qp, wqe, IB_WC_WR_FLUSH_ERR);
		return ERR_PTR(-EAGAIN);
	}
	if (qp->s_flags & RVT_S_WAIT_RNR)
		return NULL;
	if (qp->s_cur == READ_ONCE(qp->s_head))
		return NULL;
	wqe = rvt_get_swqe_ptr(qp, qp->s_cur);
	if (softib_wqe_is_local(wqe)) {
		if (qp->s_acked != qp->s_cur)
			return NULL;
		softib_rc_local(qp, wqe);
		return ERR_PTR(-EAGAIN);
	}
	if (qp->s_psn == (wqe->psn & 0xffffff)) {
		/* A new WQE: fences and the initiator depth. */
		if ((wqe->wr.send_flags & IB_SEND_FENCE) &&
		    qp->s_num_rd_atomic)
			return NULL;
		if (softib_wqe_is_rd_atomic(wqe) &&
		    qp->s_num_rd_atomic >= qp->s_max_rd_atomic)
			return NULL;
	}
	if (softib_psn_cmp(qp->s_psn, qp->s_last_psn + 1 + SOFTIB_RC_WINDOW) >= 0)
		return NULL;
	return softib_rc_request(sdev, qp, wqe);
}

/* The send engine of an RC QP: run from its work item. */
void softib_rc_send(struct rvt_qp *qp)
{
	struct softib_dev *sdev = rdi_to_sdev(ib_to_rvt(qp->ibqp.device));
	struct sk_buff *skb;
	unsigned long flags;
	unsigned int budget = 256;

	while (budget--) {
		spin_lock_irqsave(&qp->r_lock, flags);
		spin_lock(&qp->s_lock);
		skb = NULL;
		if (ib_rvt_state_ops[qp->state] & RVT_PROCESS_RECV_OK)
			skb = softib_rc_responder_out(sdev, qp);
		if (!skb)
			skb = softib_rc_requester_out(sdev, qp);
		spin_unlock(&qp->s_lock);
		spin_unlock_irqrestore(&qp->r_lock, flags);
		if (!skb)
			return;
		if (!IS_ERR(skb))
			softib_pkt_out(sdev, skb);
	}
	/* Let other QPs have the workqueue; come back for the rest. */
	softib_queue_send(qp);
}
EXPORT_SYMBOL_IF_KUNIT(softib_rc_send);

/* rdmavt's notify_qp_reset: forget the engine's state. */
void softib_rc_reset(struct rvt_qp *qp)
{
	struct softib_qp_priv *priv = qp->priv;

	priv->gbn_armed = false;
	priv->hi_valid = false;
	priv->ack_pending = false;
	priv->nak_pending = false;
	priv->resp_psn = 0;
	priv->resp_first = 0;
	softib_rc_rx_reset(qp);
}
