// SPDX-License-Identifier: GPL-2.0
/*
 * softib: RC receive. ud.c's softib_ud_rcv() has checked the link and
 * the packet's headers (lengths, ICRC, DLID, P_Key in the port's table,
 * port state) and found an RC QP; here, under the QP's r_lock then s_lock:
 *
 * - requests (SEND, RDMA WRITE, RDMA READ, atomics) go to the responder:
 *   the PSN against r_psn (ahead: NAK PSN sequence error, once; behind: a
 *   duplicate, re-ACKed or, for READ and atomics, answered again from
 *   s_ack_queue[]), the opcode against the message in progress, lengths
 *   against the path MTU, the RETH and the receive WQE, the R_Key through
 *   rdmavt; no receive WQE for a SEND: RNR NAK;
 * - ACKs, NAKs, READ responses and atomic ACKs go to the requester: the
 *   acknowledged WQEs complete, a NAK or a gap in the READ responses goes
 *   back N, an RNR NAK waits the RNR timer, and an error NAK fails the WQE.
 *
 * Whatever fails a check is dropped and counted (stats.c); what has to be
 * sent in answer is left to the send engine (rc.c), which is kicked.
 */
#include <linux/skbuff.h>
#include <rdma/ib_pack.h>
#include "softib.h"
#include "wire.h"

/* Atomic operations of all softib QPs are atomic with each other. */
static DEFINE_SPINLOCK(softib_atomic_lock);

static bool softib_rc_is_response(u8 opcode)
{
	return opcode >= IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST &&
	       opcode <= IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE;
}

/* ---- responder ------------------------------------------------------------ */

/* Owe the requester a NAK (one at a time: r_nak_state until progress). */
static void softib_rc_nak(struct rvt_qp *qp, u8 syndrome, u32 psn)
{
	struct softib_qp_priv *priv = qp->priv;

	if (qp->r_nak_state)
		return;
	qp->r_nak_state = syndrome;
	priv->nak_pending = true;
	priv->nak_aeth = softib_aeth(syndrome, qp->r_msn);
	priv->nak_psn = psn & 0xffffff;
}

/* Refuse the in-sequence request h: count why and NAK with syndrome. */
static void softib_rc_refuse(struct softib_port *port, struct rvt_qp *qp,
			     const struct softib_hdr *h, enum softib_drop why,
			     u8 syndrome)
{
	softib_drop(port, why);
	softib_rc_nak(qp, syndrome, h->psn);
}

/*
 * The R_Key check of every RDMA WRITE, READ and atomic (and of a duplicate
 * READ, again): rvt_rkey_ok() takes a reference on the MR into sge.
 *
 * R_Key 0 is rdmavt's name for its DMA MR: every kernel address, no bounds,
 * no access rights. softib does not claim IBK_LOCAL_DMA_LKEY, so ib_core
 * gives every kernel PD such an MR for its local_dma_lkey, and
 * rvt_rkey_ok() would take R_Key 0 from the wire on any QP of a kernel PD:
 * anyone on the segment (softib frames are broadcast) could read and write
 * kernel memory through any kernel RC QP that ib_cm gave remote access.
 * The local DMA lkey is for the local side only; rxe never matches rkey 0
 * and hardware never hands out its reserved lkey as an rkey. So R_Key 0 is
 * refused here, with one exception: a PD allocated with
 * IB_PD_UNSAFE_GLOBAL_RKEY, whose ULP asked for exactly this (its
 * pd->unsafe_global_rkey is 0 on rdmavt) and knows what it costs. Even
 * then only what ib_core grants that MR, remote read and write: a global
 * MR never has remote atomic access, so atomics with R_Key 0 are refused
 * always. r_lock held.
 */
static bool softib_rc_rkey_ok(struct rvt_qp *qp, struct rvt_sge *sge,
			      u32 len, u64 va, u32 rkey, int acc)
{
	struct ib_pd *pd = qp->ibqp.pd;

	lockdep_assert_held(&qp->r_lock);
	if (!rkey && (!pd || !(pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY) ||
		      acc == IB_ACCESS_REMOTE_ATOMIC))
		return false;
	return rvt_rkey_ok(qp, sge, len, va, rkey, acc);
}

/* The opcode's place in a message: may it follow the last one received? */
static bool softib_rc_opseq_ok(u8 last, u8 op)
{
	bool in_send = last == IB_OPCODE_RC_SEND_FIRST ||
		       last == IB_OPCODE_RC_SEND_MIDDLE;
	bool in_write = last == IB_OPCODE_RC_RDMA_WRITE_FIRST ||
			last == IB_OPCODE_RC_RDMA_WRITE_MIDDLE;

	switch (op) {
	case IB_OPCODE_RC_SEND_MIDDLE:
	case IB_OPCODE_RC_SEND_LAST:
	case IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE:
	case IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE:
		return in_send;
	case IB_OPCODE_RC_RDMA_WRITE_MIDDLE:
	case IB_OPCODE_RC_RDMA_WRITE_LAST:
	case IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE:
		return in_write;
	default:
		return !in_send && !in_write;
	}
}

static bool softib_rc_op_first(u8 op)
{
	return op == IB_OPCODE_RC_SEND_FIRST ||
	       op == IB_OPCODE_RC_RDMA_WRITE_FIRST;
}

static bool softib_rc_op_only(u8 op)
{
	switch (op) {
	case IB_OPCODE_RC_SEND_ONLY:
	case IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE:
	case IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE:
	case IB_OPCODE_RC_RDMA_WRITE_ONLY:
	case IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE:
		return true;
	default:
		return false;
	}
}

static bool softib_rc_op_send(u8 op)
{
	return op <= IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE ||
	       op == IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE ||
	       op == IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE;
}

/* A message delivered: its receive completion. */
static void softib_rc_recv_done(struct softib_port *port, struct rvt_qp *qp,
				const struct softib_hdr *h,
				enum ib_wc_opcode opcode, u32 byte_len)
{
	struct ib_wc wc = {};

	rvt_put_ss(&qp->r_sge);
	if (!test_and_clear_bit(RVT_R_WRID_VALID, &qp->r_aflags))
		return;
	wc.wr_id = qp->r_wr_id;
	wc.status = IB_WC_SUCCESS;
	wc.opcode = opcode;
	wc.qp = &qp->ibqp;
	wc.byte_len = byte_len;
	wc.src_qp = qp->remote_qpn;
	wc.slid = h->slid;
	wc.sl = h->sl;
	wc.port_num = port->port_num;
	wc.pkey_index = qp->s_pkey_index;
	if (softib_op_has_imm(h->opcode)) {
		wc.ex.imm_data = h->imm;
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	if (softib_op_ext(h->opcode) & SOFTIB_EXT_IETH &&
	    !rvt_invalidate_rkey(qp, h->inv_rkey)) {
		wc.ex.invalidate_rkey = h->inv_rkey;
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	rvt_recv_cq(qp, &wc, h->se);
}

/* The next receive WQE; none: RNR NAK. False when there is none. */
static bool softib_rc_get_rwqe(struct softib_port *port, struct rvt_qp *qp,
			       const struct softib_hdr *h, bool wr_id_only)
{
	int ret = rvt_get_rwqe(qp, wr_id_only);

	if (ret < 0) {
		softib_drop(port, SOFTIB_DROP_QP);
		softib_qp_error(qp, IB_WC_LOC_QP_OP_ERR);
		return false;
	}
	if (!ret) {
		softib_drop(port, SOFTIB_DROP_RNR);
		softib_rc_nak(qp, SOFTIB_AETH_RNR | qp->r_min_rnr_timer,
			      h->psn);
		return false;
	}
	return true;
}

/*
 * An RNR NAK for a WRITE with immediate (no receive WQE for its
 * completion): give back the MR reference r_sge holds, so that a
 * requester retrying for as long as it likes (rnr_retry 7) pins no MR.
 * A refused ONLY is received anew, R_Key and all; a refused LAST finds the
 * WRITE parked and takes its R_Key again for the rest
 * (softib_rc_write_resume()). r_lock and s_lock held.
 */
static void softib_rc_write_park(struct rvt_qp *qp, bool only)
{
	struct softib_qp_priv *priv = qp->priv;

	lockdep_assert_held(&qp->r_lock);
	lockdep_assert_held(&qp->s_lock);
	rvt_put_ss(&qp->r_sge);
	priv->wr_parked = !only;
}

/*
 * The WRITE in progress was parked at an RNR NAK: its R_Key again, for
 * what is left of it, checked against the MR as it is now (the ULP may
 * have invalidated it meanwhile). False (NAK remote access error, still
 * parked) when it no longer passes. r_lock and s_lock held.
 */
static bool softib_rc_write_resume(struct softib_port *port, struct rvt_qp *qp,
				   const struct softib_hdr *h)
{
	struct softib_qp_priv *priv = qp->priv;
	u32 left = qp->r_len - qp->r_rcv_len;

	lockdep_assert_held(&qp->s_lock);
	qp->r_sge.sg_list = NULL;
	qp->r_sge.num_sge = 0;
	qp->r_sge.total_len = left;
	if (left) {
		if (!softib_rc_rkey_ok(qp, &qp->r_sge.sge, left,
				       priv->wr_va + qp->r_rcv_len,
				       priv->wr_rkey, IB_ACCESS_REMOTE_WRITE)) {
			softib_rc_refuse(port, qp, h, SOFTIB_DROP_RKEY,
					 SOFTIB_NAK_REM_ACCESS);
			return false;
		}
		qp->r_sge.num_sge = 1;
	}
	priv->wr_parked = false;
	return true;
}

/*
 * SEND and RDMA WRITE packets in sequence. Returns false when refused
 * (counted and NAKed, or RNR). r_lock and s_lock held.
 */
static bool softib_rc_write_send(struct softib_port *port, struct rvt_qp *qp,
				 const struct softib_hdr *h, const u8 *pkt)
{
	struct softib_qp_priv *priv = qp->priv;
	bool first = softib_rc_op_first(h->opcode);
	bool only = softib_rc_op_only(h->opcode);
	bool last = !first && !only && h->opcode !=
		    IB_OPCODE_RC_SEND_MIDDLE && h->opcode !=
		    IB_OPCODE_RC_RDMA_WRITE_MIDDLE;
	bool send = softib_rc_op_send(h->opcode);
	u32 len = h->payload_len;

	/* FIRST and MIDDLE carry exactly the path MTU, the rest no more. */
	if ((!last && !only && len != qp->pmtu) || len > qp->pmtu) {
		softib_rc_refuse(port, qp, h, SOFTIB_DROP_LEN,
				 SOFTIB_NAK_INV_REQ);
		return false;
	}
	if (send && (first || only)) {
		if (!softib_rc_get_rwqe(port, qp, h, false))
			return false;
		qp->r_rcv_len = 0;
	} else if (!send && (first || only)) {
		if (!(qp->qp_access_flags & IB_ACCESS_REMOTE_WRITE)) {
			softib_rc_refuse(port, qp, h, SOFTIB_DROP_RKEY,
					 SOFTIB_NAK_INV_REQ);
			return false;
		}
		/* FIRST: more than one MTU; ONLY: all of it, here. */
		if ((first && h->dmalen <= qp->pmtu) ||
		    (only && h->dmalen != len)) {
			softib_rc_refuse(port, qp, h, SOFTIB_DROP_LEN,
					 SOFTIB_NAK_INV_REQ);
			return false;
		}
		qp->r_sge.sg_list = NULL;
		qp->r_sge.num_sge = 0;
		qp->r_sge.total_len = h->dmalen;
		priv->wr_va = h->va;
		priv->wr_rkey = h->rkey;
		priv->wr_parked = false;
		if (h->dmalen) {
			if (!softib_rc_rkey_ok(qp, &qp->r_sge.sge, h->dmalen,
					       h->va, h->rkey,
					       IB_ACCESS_REMOTE_WRITE)) {
				softib_rc_refuse(port, qp, h, SOFTIB_DROP_RKEY,
						 SOFTIB_NAK_REM_ACCESS);
				return false;
			}
			qp->r_sge.num_sge = 1;
		}
		qp->r_len = h->dmalen;
		qp->r_rcv_len = 0;
	}
	/* Never past the receive WQE or the RETH; a LAST ends the WRITE. */
	if (qp->r_rcv_len + len > qp->r_len ||
	    (!send && (last || only) && qp->r_rcv_len + len != qp->r_len)) {
		softib_drop(port, SOFTIB_DROP_LEN);
		if (send) {
			/* The receive WQE is too small: it fails. */
			softib_rc_nak(qp, SOFTIB_NAK_INV_REQ, h->psn);
			softib_qp_error(qp, IB_WC_LOC_LEN_ERR);
		} else {
			softib_rc_nak(qp, SOFTIB_NAK_INV_REQ, h->psn);
		}
		return false;
	}
	/* A WRITE parked at an RNR NAK: its R_Key again, first. */
	if (!send && priv->wr_parked && !softib_rc_write_resume(port, qp, h))
		return false;
	/*
	 * WRITE with immediate: the receive WQE, before touching memory;
	 * none (RNR NAK): the MR reference goes back until the retry.
	 */
	if (!send && softib_op_has_imm(h->opcode) &&
	    !softib_rc_get_rwqe(port, qp, h, true)) {
		softib_rc_write_park(qp, only);
		return false;
	}
	if (len)
		rvt_copy_sge(qp, &qp->r_sge, (void *)(pkt + h->hdr_len), len,
			     true, false);
	qp->r_rcv_len += len;
	if (last || only) {
		qp->r_msn++;
		if (send)
			softib_rc_recv_done(port, qp, h, IB_WC_RECV,
					    qp->r_rcv_len);
		else if (softib_op_has_imm(h->opcode))
			softib_rc_recv_done(port, qp, h,
					    IB_WC_RECV_RDMA_WITH_IMM,
					    qp->r_rcv_len);
		else
			rvt_put_ss(&qp->r_sge);
	}
	qp->r_psn = softib_psn_add(qp->r_psn, 1);
	return true;
}

/* The next free s_ack_queue[] slot, or NULL when the queue is full. */
static struct rvt_ack_entry *softib_rc_ackq_slot(struct rvt_qp *qp)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	u8 next = qp->r_head_ack_queue + 1;
	struct rvt_ack_entry *e;

	if (next >= rvt_max_atomic(rdi))
		next = 0;
	if (next == qp->s_tail_ack_queue)
		return NULL;
	e = &qp->s_ack_queue[qp->r_head_ack_queue];
	if (e->rdma_sge.mr) {
		rvt_put_mr(e->rdma_sge.mr);
		e->rdma_sge.mr = NULL;
	}
	memset(&e->rdma_sge, 0, sizeof(e->rdma_sge));
	return e;
}

/* Queue e (filled) for the send engine. */
static void softib_rc_ackq_push(struct rvt_qp *qp, struct rvt_ack_entry *e)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct softib_qp_priv *priv = qp->priv;
	u8 next = qp->r_head_ack_queue + 1;

	if (next >= rvt_max_atomic(rdi))
		next = 0;
	if (qp->s_tail_ack_queue == qp->r_head_ack_queue) {
		priv->resp_psn = e->psn;
		priv->resp_first = e->psn;
	}
	e->sent = 0;
	qp->r_head_ack_queue = next;
	/* Its responses acknowledge everything before it. */
	priv->ack_pending = false;
}

/*
 * An RDMA READ request in sequence: its R_Key checked and the MR's
 * reference kept in its s_ack_queue[] entry until the send engine has
 * sent the last response (rc.c gives it back then), the request itself
 * kept in priv->rd[] for its duplicates. r_lock and s_lock held.
 */
static bool softib_rc_read_req(struct softib_port *port, struct rvt_qp *qp,
			       const struct softib_hdr *h)
{
	u32 npkts = h->dmalen ? ((h->dmalen - 1) >> qp->log_pmtu) + 1 : 1;
	struct softib_qp_priv *priv = qp->priv;
	struct softib_rd_req *rd;
	struct rvt_ack_entry *e;

	if (!(qp->qp_access_flags & IB_ACCESS_REMOTE_READ)) {
		softib_rc_refuse(port, qp, h, SOFTIB_DROP_RKEY,
				 SOFTIB_NAK_INV_REQ);
		return false;
	}
	if (h->payload_len || h->dmalen > (1U << 31)) {
		softib_rc_refuse(port, qp, h, SOFTIB_DROP_LEN,
				 SOFTIB_NAK_INV_REQ);
		return false;
	}
	e = softib_rc_ackq_slot(qp);
	if (!e) {
		/* More READs/atomics outstanding than we granted. */
		softib_rc_refuse(port, qp, h, SOFTIB_DROP_OPSEQ,
				 SOFTIB_NAK_INV_REQ);
		return false;
	}
	if (h->dmalen &&
	    !softib_rc_rkey_ok(qp, &e->rdma_sge, h->dmalen, h->va, h->rkey,
			       IB_ACCESS_REMOTE_READ)) {
		softib_rc_refuse(port, qp, h, SOFTIB_DROP_RKEY,
				 SOFTIB_NAK_REM_ACCESS);
		return false;
	}
	e->rdma_sge.sge_length = h->dmalen;
	rd = &priv->rd[e - qp->s_ack_queue];
	rd->va = h->va;
	rd->rkey = h->rkey;
	rd->len = h->dmalen;
	rd->psn = h->psn;
	e->opcode = IB_OPCODE_RC_RDMA_READ_REQUEST;
	e->psn = h->psn;
	e->lpsn = softib_psn_add(h->psn, npkts - 1);
	softib_rc_ackq_push(qp, e);
	qp->r_msn++;
	qp->r_psn = softib_psn_add(e->lpsn, 1);
	return true;
}

static bool softib_rc_atomic(struct softib_port *port, struct rvt_qp *qp,
			     const struct softib_hdr *h)
{
	struct rvt_ack_entry *e;
	struct rvt_sge sge;
	u64 *addr;

	if (!(qp->qp_access_flags & IB_ACCESS_REMOTE_ATOMIC)) {
		softib_rc_refuse(port, qp, h, SOFTIB_DROP_RKEY,
				 SOFTIB_NAK_INV_REQ);
		return false;
	}
	if (h->payload_len || (h->va & (sizeof(u64) - 1))) {
		softib_rc_refuse(port, qp, h, SOFTIB_DROP_LEN,
				 SOFTIB_NAK_INV_REQ);
		return false;
	}
	e = softib_rc_ackq_slot(qp);
	if (!e) {
		softib_rc_refuse(port, qp, h, SOFTIB_DROP_OPSEQ,
				 SOFTIB_NAK_INV_REQ);
		return false;
	}
	if (!softib_rc_rkey_ok(qp, &sge, sizeof(u64), h->va, h->rkey,
			       IB_ACCESS_REMOTE_ATOMIC)) {
		softib_rc_refuse(port, qp, h, SOFTIB_DROP_RKEY,
				 SOFTIB_NAK_REM_ACCESS);
		return false;
	}
	addr = sge.vaddr;
	spin_lock(&softib_atomic_lock);
	e->atomic_data = READ_ONCE(*addr);
	if (h->opcode == IB_OPCODE_RC_FETCH_ADD)
		WRITE_ONCE(*addr, e->atomic_data + h->swap_add);
	else if (e->atomic_data == h->compare)
		WRITE_ONCE(*addr, h->swap_add);
	spin_unlock(&softib_atomic_lock);
	rvt_put_mr(sge.mr);
	e->opcode = h->opcode;
	e->psn = h->psn;
	e->lpsn = h->psn;
	softib_rc_ackq_push(qp, e);
	qp->r_msn++;
	qp->r_psn = softib_psn_add(h->psn, 1);
	return true;
}

/* Is s_ack_queue[idx] still to be answered (s_tail..r_head)? */
static bool softib_rc_ackq_pending(struct rvt_qp *qp, unsigned int idx)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	unsigned int n = rvt_max_atomic(rdi);
	unsigned int tail = qp->s_tail_ack_queue;

	return (idx + n - tail) % n < (qp->r_head_ack_queue + n - tail) % n;
}

/* The s_ack_queue[] entry of a duplicate READ/atomic at psn, or -1. */
static int softib_rc_ackq_find(struct rvt_qp *qp, u8 opcode, u32 psn)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	unsigned int n = rvt_max_atomic(rdi), i;
	struct softib_qp_priv *priv = qp->priv;
	int idx = qp->r_head_ack_queue;
	u32 first;

	/*
	 * Not the slot at r_head itself: it is the next to be filled, and
	 * rewinding s_tail to it would leave nothing to answer (and its
	 * entry, given an MR reference, holding it unanswered).
	 */
	for (i = 0; i + 1 < n; i++) {
		struct rvt_ack_entry *e;

		if (--idx < 0)
			idx = n - 1;
		e = &qp->s_ack_queue[idx];
		if (e->opcode != opcode)
			continue;
		/* A READ's entry from the PSN it was first asked at. */
		first = opcode == IB_OPCODE_RC_RDMA_READ_REQUEST ?
			priv->rd[idx].psn : e->psn;
		if (softib_psn_cmp(psn, first) >= 0 &&
		    softib_psn_cmp(psn, e->lpsn) <= 0)
			return idx;
	}
	return -1;
}

/*
 * A duplicate READ for s_ack_queue[idx]: it must ask for the rest of the
 * request we answered, from its PSN on (the offset its PSN gives, the same
 * R_Key, the VA advanced by that offset, the length that is left), and
 * its R_Key must pass again: the entry gave its MR reference back when
 * the last response went out, and since then the ULP may have invalidated,
 * remapped or freed the MR. Anything else is not answered: IBA answers
 * duplicates or drops them (a NAK for a PSN behind r_psn would fail
 * whatever WQE the requester has outstanding now), so a refused duplicate
 * is dropped, counted under rkey when its R_Key failed and under dup
 * otherwise; an entry still being answered then goes on as it was. False
 * when refused. r_lock and s_lock held.
 */
static bool softib_rc_dup_read(struct softib_port *port, struct rvt_qp *qp,
			       const struct softib_hdr *h, int idx)
{
	struct softib_qp_priv *priv = qp->priv;
	struct rvt_ack_entry *e = &qp->s_ack_queue[idx];
	const struct softib_rd_req *rd = &priv->rd[idx];
	u64 off = (u64)((h->psn - rd->psn) & 0xffffff) << qp->log_pmtu;
	struct rvt_sge sge = {};

	lockdep_assert_held(&qp->r_lock);
	lockdep_assert_held(&qp->s_lock);
	if (off > rd->len || h->rkey != rd->rkey || h->va != rd->va + off ||
	    h->dmalen != rd->len - off) {
		softib_drop(port, SOFTIB_DROP_DUP);
		return false;
	}
	if (h->dmalen &&
	    !softib_rc_rkey_ok(qp, &sge, h->dmalen, h->va, h->rkey,
			       IB_ACCESS_REMOTE_READ)) {
		softib_drop(port, SOFTIB_DROP_RKEY);
		return false;
	}
	softib_drop(port, SOFTIB_DROP_DUP);
	if (e->rdma_sge.mr)
		rvt_put_mr(e->rdma_sge.mr);
	/* The entry now answers the duplicate: from its PSN, its length. */
	sge.sge_length = h->dmalen;
	e->rdma_sge = sge;
	e->psn = h->psn;
	return true;
}

/*
 * A request behind r_psn: the requester missed our answer. SEND and WRITE
 * are not executed again, only re-ACKed; a READ is answered again from
 * the PSN asked (its R_Key checked anew, softib_rc_dup_read()), and so is
 * what is queued after it that was not answered yet (rc.c skips the READs
 * answered already: they hold no MR, the requester asks for them again);
 * an atomic's saved result is sent again. r_lock and s_lock held.
 */
static void softib_rc_dup(struct softib_port *port, struct rvt_qp *qp,
			  const struct softib_hdr *h)
{
	struct softib_qp_priv *priv = qp->priv;
	bool read = h->opcode == IB_OPCODE_RC_RDMA_READ_REQUEST;
	int idx;

	if (!read && h->opcode != IB_OPCODE_RC_COMPARE_SWAP &&
	    h->opcode != IB_OPCODE_RC_FETCH_ADD) {
		softib_drop(port, SOFTIB_DROP_DUP);
		priv->ack_pending = true;
		return;
	}
	idx = softib_rc_ackq_find(qp, read ? IB_OPCODE_RC_RDMA_READ_REQUEST :
				  h->opcode, h->psn);
	if (idx < 0 || (!read && qp->s_ack_queue[idx].psn != h->psn)) {
		softib_drop(port, SOFTIB_DROP_DUP);
		return;
	}
	if (softib_rc_ackq_pending(qp, idx)) {
		/* Still to be answered: only ever go further back. */
		if (idx != qp->s_tail_ack_queue ||
		    softib_psn_cmp(h->psn, priv->resp_psn) >= 0) {
			softib_drop(port, SOFTIB_DROP_DUP);
			return;
		}
	}
	if (!read)
		softib_drop(port, SOFTIB_DROP_DUP);
	else if (!softib_rc_dup_read(port, qp, h, idx))
		return;
	qp->s_tail_ack_queue = idx;
	priv->resp_psn = h->psn;
	priv->resp_first = h->psn;
}

static void softib_rc_responder(struct softib_port *port, struct rvt_qp *qp,
				const struct softib_hdr *h, const u8 *pkt)
{
	struct softib_qp_priv *priv = qp->priv;
	int diff = softib_psn_cmp(h->psn, qp->r_psn);
	bool ok;

	if (diff > 0) {
		/* Packets were lost: ask for r_psn again (once). */
		softib_drop(port, SOFTIB_DROP_PSN);
		softib_rc_nak(qp, SOFTIB_NAK_PSN_SEQ, qp->r_psn);
		return;
	}
	if (diff < 0) {
		softib_rc_dup(port, qp, h);
		return;
	}
	if (!softib_rc_opseq_ok(qp->r_state, h->opcode)) {
		softib_rc_refuse(port, qp, h, SOFTIB_DROP_OPSEQ,
				 SOFTIB_NAK_INV_REQ);
		return;
	}
	if (qp->state == IB_QPS_RTR)
		softib_qp_comm_est(qp);
	switch (h->opcode) {
	case IB_OPCODE_RC_RDMA_READ_REQUEST:
		ok = softib_rc_read_req(port, qp, h);
		break;
	case IB_OPCODE_RC_COMPARE_SWAP:
	case IB_OPCODE_RC_FETCH_ADD:
		ok = softib_rc_atomic(port, qp, h);
		break;
	default:
		ok = softib_rc_write_send(port, qp, h, pkt);
		break;
	}
	if (!ok)
		return;
	qp->r_state = h->opcode;
	qp->r_nak_state = 0;
	if (h->ackreq && softib_op_ext(h->opcode) & SOFTIB_EXT_PAYLOAD)
		priv->ack_pending = true;
}

/* ---- requester ------------------------------------------------------------ */

/* Progress: the retry counters start again, so does the timer. */
static void softib_rc_progress(struct rvt_qp *qp)
{
	struct softib_qp_priv *priv = qp->priv;

	qp->s_retry = qp->s_retry_cnt;
	qp->s_rnr_retry = qp->s_rnr_retry_cnt;
	priv->gbn_armed = false;
	if (softib_psn_cmp(qp->s_psn, qp->s_last_psn + 1) < 0)
		qp->s_psn = softib_psn_add(qp->s_last_psn, 1);
	if (softib_psn_cmp(priv->hi_psn, qp->s_last_psn + 1) > 0) {
		rvt_mod_retry_timer(qp);
	} else if (qp->s_flags & RVT_S_TIMER) {
		qp->s_flags &= ~RVT_S_TIMER;
		del_timer(&qp->s_timer);
	}
}

/* Go back to psn unless we just did. */
static void softib_rc_gbn_once(struct rvt_qp *qp, u32 psn)
{
	struct softib_qp_priv *priv = qp->priv;

	if (priv->gbn_armed && priv->gbn_psn == (psn & 0xffffff))
		return;
	softib_rc_go_back(qp, psn);
}

/*
 * Everything up to psn (inclusive) is acknowledged: complete the WQEs it
 * covers. A READ or atomic is only done by its response: an ACK past one
 * that has none means the responses were lost, so go back to it.
 */
static bool softib_rc_acked(struct rvt_qp *qp, u32 psn)
{
	struct rvt_swqe *wqe = NULL;
	bool progress = false;

	while (qp->s_acked != qp->s_head) {
		wqe = rvt_get_swqe_ptr(qp, qp->s_acked);
		if (wqe->wr.opcode == IB_WR_REG_MR ||
		    wqe->wr.opcode == IB_WR_LOCAL_INV)
			break;
		if (softib_psn_cmp(wqe->lpsn, psn) > 0)
			break;
		if (softib_wqe_is_rd_atomic(wqe)) {
			softib_rc_gbn_once(qp, qp->s_last_psn + 1);
			goto out;
		}
		qp->s_last_psn = wqe->lpsn & 0xffffff;
		rvt_send_complete(qp, wqe, IB_WC_SUCCESS);
		wqe = NULL;
		progress = true;
	}
	/* Part of a SEND or WRITE; never of a READ (only its responses). */
	if (qp->s_acked != qp->s_head)
		wqe = rvt_get_swqe_ptr(qp, qp->s_acked);
	if (softib_psn_cmp(psn, qp->s_last_psn) > 0 &&
	    !(wqe && softib_wqe_is_rd_atomic(wqe))) {
		qp->s_last_psn = psn & 0xffffff;
		progress = true;
	}
out:
	if (progress)
		softib_rc_progress(qp);
	return progress;
}

/* A READ response or atomic ACK for the WQE at s_acked, PSN s_last_psn+1. */
static void softib_rc_rd_response(struct softib_port *port, struct rvt_qp *qp,
				  const struct softib_hdr *h, const u8 *pkt)
{
	struct rvt_swqe *wqe = rvt_get_swqe_ptr(qp, qp->s_acked);
	bool atomic = h->opcode == IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE;
	bool read = wqe->wr.opcode == IB_WR_RDMA_READ;
	u32 idx = (h->psn - wqe->psn) & 0xffffff, off, len = h->payload_len;
	bool last = h->psn == (wqe->lpsn & 0xffffff);
	struct rvt_sge_state ss = {
		.sge = wqe->sg_list[0],
		.sg_list = wqe->sg_list + 1,
		.num_sge = wqe->wr.num_sge,
		.total_len = wqe->length,
	};

	if (atomic == read) {
		softib_drop(port, SOFTIB_DROP_OPSEQ);
		return;
	}
	if (atomic) {
		if (len || !wqe->wr.num_sge) {
			softib_drop(port, SOFTIB_DROP_LEN);
			return;
		}
		*(u64 *)wqe->sg_list[0].vaddr = h->atomic_orig;
	} else {
		bool end = h->opcode == IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST ||
			   h->opcode == IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY;

		off = idx << qp->log_pmtu;
		if (end != last || off > wqe->length ||
		    (last ? len != wqe->length - off : len != qp->pmtu)) {
			softib_drop(port, SOFTIB_DROP_LEN);
			return;
		}
		if (len) {
			if (off)
				rvt_skip_sge(&ss, off, false);
			rvt_copy_sge(qp, &ss, (void *)(pkt + h->hdr_len), len,
				     false, false);
		}
	}
	qp->s_last_psn = h->psn & 0xffffff;
	if (last) {
		if (qp->s_num_rd_atomic)
			qp->s_num_rd_atomic--;
		rvt_send_complete(qp, wqe, IB_WC_SUCCESS);
	}
	softib_rc_progress(qp);
}

static void softib_rc_requester(struct softib_port *port, struct rvt_qp *qp,
				const struct softib_hdr *h, const u8 *pkt)
{
	struct softib_qp_priv *priv = qp->priv;
	u8 syn = softib_aeth_syndrome(h->aeth);
	u32 psn = h->psn;

	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_SEND_OK)) {
		softib_drop(port, SOFTIB_DROP_QP);
		return;
	}
	/* Only PSNs we sent and that are not acknowledged yet. */
	if (!priv->hi_valid || softib_psn_cmp(psn, priv->hi_psn) >= 0) {
		softib_drop(port, SOFTIB_DROP_PSN);
		return;
	}
	if (h->opcode != IB_OPCODE_RC_ACKNOWLEDGE) {
		if (h->opcode != IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE &&
		    (syn & SOFTIB_AETH_TYPE_MASK) != SOFTIB_AETH_ACK) {
			softib_drop(port, SOFTIB_DROP_OPCODE);
			return;
		}
		if (softib_psn_cmp(psn, qp->s_last_psn) <= 0) {
			softib_drop(port, SOFTIB_DROP_DUP);
			return;
		}
		/* Implicitly acknowledges what precedes it. */
		softib_rc_acked(qp, softib_psn_add(psn, -1));
		if (qp->s_acked == qp->s_head ||
		    !softib_wqe_is_rd_atomic(rvt_get_swqe_ptr(qp,
							      qp->s_acked))) {
			softib_drop(port, SOFTIB_DROP_OPSEQ);
			return;
		}
		if (psn != ((qp->s_last_psn + 1) & 0xffffff)) {
			/* Earlier responses were lost. */
			softib_drop(port, SOFTIB_DROP_PSN);
			softib_rc_gbn_once(qp, qp->s_last_psn + 1);
			return;
		}
		softib_rc_rd_response(port, qp, h, pkt);
		return;
	}

	if (h->payload_len) {
		softib_drop(port, SOFTIB_DROP_LEN);
		return;
	}
	switch (syn & SOFTIB_AETH_TYPE_MASK) {
	case SOFTIB_AETH_ACK:
		if (softib_psn_cmp(psn, qp->s_last_psn) <= 0) {
			softib_drop(port, SOFTIB_DROP_DUP);
			return;
		}
		softib_rc_acked(qp, psn);
		return;
	case SOFTIB_AETH_RNR:
		port->rvp.n_rnr_naks++;
		softib_rc_acked(qp, softib_psn_add(psn, -1));
		if (qp->s_flags & RVT_S_WAIT_RNR)
			return;
		if (qp->s_acked == qp->s_head)
			return;
		if (!qp->s_rnr_retry) {
			softib_rc_fail(qp, IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		if (qp->s_rnr_retry_cnt < 7)	/* 7: retry forever */
			qp->s_rnr_retry--;
		softib_rc_go_back(qp, psn);
		if (qp->s_flags & RVT_S_TIMER) {
			qp->s_flags &= ~RVT_S_TIMER;
			del_timer(&qp->s_timer);
		}
		rvt_add_rnr_timer(qp, h->aeth);
		return;
	case SOFTIB_AETH_NAK:
		softib_rc_acked(qp, softib_psn_add(psn, -1));
		if (qp->s_acked == qp->s_head)
			return;
		switch (syn) {
		case SOFTIB_NAK_PSN_SEQ:
			port->rvp.n_seq_naks++;
			softib_rc_gbn_once(qp, psn);
			return;
		case SOFTIB_NAK_INV_REQ:
			softib_rc_fail(qp, IB_WC_REM_INV_REQ_ERR);
			return;
		case SOFTIB_NAK_REM_ACCESS:
			softib_rc_fail(qp, IB_WC_REM_ACCESS_ERR);
			return;
		case SOFTIB_NAK_REM_OP:
			softib_rc_fail(qp, IB_WC_REM_OP_ERR);
			return;
		default:
			softib_drop(port, SOFTIB_DROP_OPCODE);
			return;
		}
	default:
		softib_drop(port, SOFTIB_DROP_OPCODE);
		return;
	}
}

/*
 * rdmavt's notify_qp_reset (rc.c's softib_rc_reset()), r_lock and s_lock
 * held: the responder's state here. The MR references (r_sge,
 * s_ack_queue[]) are given back by rdmavt itself, rvt_reset_qp() and
 * rvt_error_qp() put them all (rvt_clear_mr_refs()) and nothing here holds
 * one anywhere else; what rdmavt leaves of the old entries is forgotten,
 * so that no duplicate of the QP's last life is taken for one of this.
 */
void softib_rc_rx_reset(struct rvt_qp *qp)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct softib_qp_priv *priv = qp->priv;
	unsigned int i;

	lockdep_assert_held(&qp->s_lock);
	priv->wr_parked = false;
	priv->wr_va = 0;
	priv->wr_rkey = 0;
	memset(priv->rd, 0, sizeof(priv->rd));
	for (i = 0; qp->s_ack_queue && i < rvt_max_atomic(rdi); i++) {
		struct rvt_ack_entry *e = &qp->s_ack_queue[i];

		if (e->rdma_sge.mr)
			rvt_put_mr(e->rdma_sge.mr);
		memset(&e->rdma_sge, 0, sizeof(e->rdma_sge));
		e->atomic_data = 0;
		e->psn = 0;
		e->lpsn = 0;
		e->opcode = 0;
		e->sent = 0;
	}
}

/*
 * One RC packet for qp (softirq, or BH disabled; under rcu_read_lock()):
 * the rest of its checks, then the responder or the requester.
 */
void softib_rc_rcv(struct softib_port *port, struct rvt_qp *qp,
		   const struct softib_hdr *h, const u8 *pkt)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->r_lock, flags);
	spin_lock(&qp->s_lock);
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_RECV_OK) ||
	    h->slid != rdma_ah_get_dlid(&qp->remote_ah_attr)) {
		softib_drop(port, SOFTIB_DROP_QP);
		goto out;
	}
	if (!softib_pkey_match(softib_pkey_at(port, qp->s_pkey_index),
			       h->pkey)) {
		softib_drop(port, SOFTIB_DROP_PKEY);
		goto out;
	}
	if (softib_rc_is_response(h->opcode))
		softib_rc_requester(port, qp, h, pkt);
	else
		softib_rc_responder(port, qp, h, pkt);
	softib_queue_send(qp);
out:
	spin_unlock(&qp->s_lock);
	spin_unlock_irqrestore(&qp->r_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(softib_rc_rcv);
