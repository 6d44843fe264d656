// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic wire engine, receive: FPDUs from the socket, parsed
 * incrementally (an FPDU may arrive in any number of pieces), checked
 * (MPA CRC and markers, DDP, RDMAP) and placed:
 *   RDMA WRITE       by STag and TO, with remote-write access checked;
 *   SEND (SE, Inv)   into the next RQE (RQ or SRQ), in MSN and MO order;
 *   READ request     checked, queued on the IRD ring for wire_tx.c;
 *   READ response    into the sink SGE of the oldest outstanding READ;
 *   TERMINATE        the QP goes to ERR, the socket is closed (FIN).
 * Any error sends TERMINATE (sr_conn_terminate()) and stops placement.
 * Runs in rx_work only; its state is rx_work's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/unaligned.h>

#include "wire.h"

#define SR_RX_BUDGET	16	/* socket reads per run of rx_work */

/* The segment being handled, for TERMINATE's copy of its headers. */
struct rx_seg {
	const u8 *ulpdu;
	u32 len;
	struct softrnic_ddp_hdr h;
	u8 op;
	const u8 *payload;
	u32 plen;
};

static void rx_term(struct sr_conn *c, const struct rx_seg *s, u8 layer,
		    u8 etype, u8 ecode)
{
	struct softrnic_term_cause cause = {
		.layer = layer, .etype = etype, .ecode = ecode,
	};
	const u8 *rreq = NULL;

	if (s && s->op == SOFTRNIC_OP_READ_REQ &&
	    s->plen >= SOFTRNIC_RDMAP_RREQ_LEN)
		rreq = s->payload;
	sr_conn_terminate(c, &cause, s ? s->ulpdu : NULL,
			  s ? softrnic_ddp_hdr_len(s->h.tagged) : 0,
			  s ? s->len : 0, rreq);
}

static void rx_term_tagged(struct sr_conn *c, const struct rx_seg *s, int err)
{
	rx_term(c, s, SOFTRNIC_TERM_DDP, SOFTRNIC_DDP_ET_TAGGED,
		err == -ERANGE ? SOFTRNIC_DDP_EC_T_BASE_BOUNDS :
		err == -EACCES ? SOFTRNIC_DDP_EC_T_STAG_NOT_ASSOC :
		SOFTRNIC_DDP_EC_T_INVALID_STAG);
}

static void rx_term_untagged(struct sr_conn *c, const struct rx_seg *s,
			     u8 ecode)
{
	rx_term(c, s, SOFTRNIC_TERM_DDP, SOFTRNIC_DDP_ET_UNTAGGED, ecode);
}

static void rx_write(struct sr_conn *c, const struct rx_seg *s)
{
	int err;

	if (!s->plen)
		return;
	if (s->h.to + s->plen < s->h.to) {
		rx_term(c, s, SOFTRNIC_TERM_DDP, SOFTRNIC_DDP_ET_TAGGED,
			SOFTRNIC_DDP_EC_T_TO_WRAP);
		return;
	}
	err = sr_stag_copy(c->qp, s->h.stag, s->h.to, (void *)s->payload,
			   s->plen, IB_ACCESS_REMOTE_WRITE, true);
	if (err)
		rx_term_tagged(c, s, err);
}

static void rx_rqe_done(struct sr_conn *c, bool se, bool inval, u32 stag,
			enum siw_wc_status status)
{
	sr_rq_complete(c->qp, &c->rqe, c->rqe_got, se, inval, stag, status);
	c->rqe_valid = false;
}

static void rx_send(struct sr_conn *c, const struct rx_seg *s)
{
	bool inval = softrnic_rdmap_has_inval(s->op);
	int err;

	if (s->h.msn != c->rx_msn[SOFTRNIC_QN_SEND]) {
		rx_term_untagged(c, s, SOFTRNIC_DDP_EC_UT_MSN_RANGE);
		return;
	}
	if (!c->rqe_valid) {
		s64 len;

		if (s->h.mo) {
			rx_term_untagged(c, s, SOFTRNIC_DDP_EC_UT_INVALID_MO);
			return;
		}
		if (sr_rq_take(c->qp, &c->rqe) <= 0) {
			rx_term_untagged(c, s, SOFTRNIC_DDP_EC_UT_NO_BUF);
			return;
		}
		c->rqe_valid = true;
		c->rqe_got = 0;
		len = sr_sge_len(c->rqe.sge, c->rqe.num_sge);
		c->rqe_len = len < 0 ? 0 : len;
	}
	if (s->h.mo != c->rqe_got) {
		rx_rqe_done(c, false, false, 0, SIW_WC_GENERAL_ERR);
		rx_term_untagged(c, s, SOFTRNIC_DDP_EC_UT_INVALID_MO);
		return;
	}
	if (s->plen > c->rqe_len - c->rqe_got) {
		rx_rqe_done(c, false, false, 0, SIW_WC_LOC_LEN_ERR);
		rx_term_untagged(c, s, SOFTRNIC_DDP_EC_UT_TOO_LONG);
		return;
	}
	if (s->plen) {
		err = sr_sge_copy(c->qp, c->rqe.sge, c->rqe.num_sge, c->rqe_got,
				  (void *)s->payload, s->plen, true);
		if (err) {
			rx_rqe_done(c, false, false, 0, sr_mem_status(err));
			rx_term(c, s, SOFTRNIC_TERM_RDMAP,
				SOFTRNIC_RDMAP_ET_CATASTROPHIC,
				SOFTRNIC_RDMAP_EC_UNSPECIFIED);
			return;
		}
	}
	c->rqe_got += s->plen;
	if (!s->h.last)
		return;
	c->rx_msn[SOFTRNIC_QN_SEND]++;
	if (inval && sr_stag_invalidate(c->qp, s->h.ulp_word, true)) {
		rx_rqe_done(c, false, false, 0, SIW_WC_REM_INV_REQ_ERR);
		rx_term(c, s, SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
			SOFTRNIC_RDMAP_EC_CANNOT_INVALIDATE);
		return;
	}
	rx_rqe_done(c, softrnic_rdmap_is_se(s->op), inval, s->h.ulp_word,
		    SIW_WC_SUCCESS);
}

/* Can the peer read [to, to + size) of @stag? 0 or sr_mr_check()'s error. */
static int rx_read_access(struct sr_conn *c, u32 stag, u64 to, u32 size)
{
	struct sr_mr *mr;
	int err;

	if (to + size < to)
		return -ERANGE;
	mr = sr_mr_get(c->qp->sdev, stag);
	if (!mr)
		return -ENOENT;
	err = sr_mr_check(mr, c->qp->ibqp.pd, to, size, IB_ACCESS_REMOTE_READ);
	sr_mr_put(mr);
	return err;
}

/* @rtr: the zero-length READ RTR, which IRD 0 must admit too. */
static void rx_read_req(struct sr_conn *c, const struct rx_seg *s, bool rtr)
{
	struct sr_ird_entry *e;
	struct softrnic_rdmap_rreq rr;
	u32 limit = c->params.ird + (rtr ? 1 : 0);
	int err;

	if (s->h.msn != c->rx_msn[SOFTRNIC_QN_READ_REQ]) {
		rx_term_untagged(c, s, SOFTRNIC_DDP_EC_UT_MSN_RANGE);
		return;
	}
	softrnic_rdmap_rreq_decode(s->payload, &rr);
	if (rr.size) {
		err = rx_read_access(c, rr.src_stag, rr.src_to, rr.size);
		if (err) {
			rx_term(c, s, SOFTRNIC_TERM_RDMAP,
				SOFTRNIC_RDMAP_ET_PROTECTION,
				err == -ERANGE ? SOFTRNIC_RDMAP_EC_BASE_BOUNDS :
				err == -EACCES ? SOFTRNIC_RDMAP_EC_ACCESS :
				SOFTRNIC_RDMAP_EC_INVALID_STAG);
			return;
		}
	}
	spin_lock(&c->lock);
	if (c->ird_count >= limit || c->ird_count >= c->ird_size) {
		spin_unlock(&c->lock);
		rx_term_untagged(c, s, SOFTRNIC_DDP_EC_UT_NO_BUF);
		return;
	}
	e = &c->ird[(c->ird_head + c->ird_count) % c->ird_size];
	e->rr = rr;
	e->sent = 0;
	c->ird_count++;
	spin_unlock(&c->lock);
	c->rx_msn[SOFTRNIC_QN_READ_REQ]++;
	queue_work(sr_wire_wq, &c->tx_work);
}

static void rx_read_resp(struct sr_conn *c, const struct rx_seg *s)
{
	struct sr_ord_entry *e;
	u32 sink_stag;
	u64 sink_to;
	int err;

	spin_lock(&c->lock);
	e = c->ord_count ? &c->ord[c->ord_head] : NULL;
	spin_unlock(&c->lock);
	if (!e) {
		rx_term(c, s, SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
			SOFTRNIC_RDMAP_EC_OPCODE);
		return;
	}
	sink_stag = e->rtr || !e->sqe.num_sge ? 0 : e->sqe.sge[0].lkey;
	sink_to = e->rtr || !e->sqe.num_sge ? 0 : e->sqe.sge[0].laddr;
	if (s->h.stag != sink_stag) {
		rx_term_tagged(c, s, -ENOENT);
		return;
	}
	if (s->h.to != sink_to + e->got || s->plen > e->size - e->got) {
		rx_term_tagged(c, s, -ERANGE);
		return;
	}
	if (s->plen) {
		err = sr_sge_copy(c->qp, e->sqe.sge, 1, e->got,
				  (void *)s->payload, s->plen, true);
		if (err) {
			rx_term_tagged(c, s, err);
			return;
		}
	}
	e->got += s->plen;
	if (!s->h.last)
		return;
	if (e->got != e->size) {
		rx_term_tagged(c, s, -ERANGE);
		return;
	}
	if (!e->rtr) {
		enum siw_wc_status st = SIW_WC_SUCCESS;

		if (e->sqe.opcode == SIW_OP_READ_LOCAL_INV &&
		    sr_stag_invalidate(c->qp, e->sqe.sge[0].lkey, false))
			st = SIW_WC_LOC_PROT_ERR;
		sr_sq_complete(c->qp, &e->sqe, e->got, st);
	}
	spin_lock(&c->lock);
	c->ord_rtr -= e->rtr;
	c->ord_head = (c->ord_head + 1) % c->ord_size;
	c->ord_count--;
	spin_unlock(&c->lock);
	queue_work(sr_wire_wq, &c->tx_work);
}

static void rx_terminate(struct sr_conn *c, const struct rx_seg *s)
{
	struct softrnic_rdmap_term t;

	if (!softrnic_rdmap_term_decode(s->payload, s->plen, &t))
		pr_debug("qp %u: peer TERMINATE layer %u etype %u ecode 0x%x\n",
			 c->qp->ibqp.qp_num, t.cause.layer, t.cause.etype,
			 t.cause.ecode);
	/*
	 * The peer has ended the stream (RFC 5040 5.2: no more RDMAP
	 * messages follow a TERMINATE): the QP goes to ERR and the socket is
	 * closed now, as siw does, whether or not the peer closes its side.
	 * Waiting for its FIN would let a peer that keeps TCP open pin the
	 * socket, this connection and the CM id, with no DISCONNECTED ever.
	 */
	set_bit(SR_CONN_TERM, &c->flags);
	set_bit(SR_CONN_PEER_TERM, &c->flags);
	sr_qp_to_error(c->qp, IB_EVENT_QP_FATAL);
	sr_conn_tell_closed(c);
	sr_conn_queue_release(c, 0);
}

/* Responder, peer-to-peer: the first message must be the agreed RTR. */
static void rx_rtr(struct sr_conn *c, const struct rx_seg *s)
{
	bool ok;

	switch (c->params.rtr) {
	case ORCM_IW_RTR_SEND:
		ok = s->op == SOFTRNIC_OP_SEND && !s->plen && s->h.last &&
		     !s->h.mo && s->h.msn == c->rx_msn[SOFTRNIC_QN_SEND];
		break;
	case ORCM_IW_RTR_WRITE:
		ok = s->op == SOFTRNIC_OP_WRITE && !s->plen && s->h.last;
		break;
	case ORCM_IW_RTR_READ:
		ok = s->op == SOFTRNIC_OP_READ_REQ &&
		     !get_unaligned_be32(s->payload + 12);
		break;
	default:
		ok = false;
	}
	if (!ok) {
		rx_term(c, s, SOFTRNIC_TERM_LLP, 0, SOFTRNIC_LLP_EC_NO_RTR);
		return;
	}
	if (c->params.rtr == ORCM_IW_RTR_SEND)
		c->rx_msn[SOFTRNIC_QN_SEND]++;
	else if (c->params.rtr == ORCM_IW_RTR_READ)
		rx_read_req(c, s, true);
	if (test_bit(SR_CONN_TERM, &c->flags))
		return;
	clear_bit(SR_CONN_RTR_WAIT, &c->flags);
	orcm_iw_conn_rtr_received(c->iwc);
	queue_work(sr_wire_wq, &c->tx_work);
}

static void rx_ulpdu(struct sr_conn *c, const u8 *ulpdu, u32 len)
{
	struct softrnic_term_cause cause;
	struct rx_seg s = { .ulpdu = ulpdu, .len = len };
	u32 hl;

	if (softrnic_ddp_decode(ulpdu, len, &s.h, &cause)) {
		sr_conn_terminate(c, &cause, ulpdu,
				  min(len, softrnic_ddp_hdr_len(s.h.tagged)),
				  len, NULL);
		return;
	}
	hl = softrnic_ddp_hdr_len(s.h.tagged);
	s.payload = ulpdu + hl;
	s.plen = len - hl;
	s.op = s.h.ulp_ctrl & 0x0f;
	if (softrnic_rdmap_check(&s.h, s.plen, &cause)) {
		sr_conn_terminate(c, &cause, ulpdu, hl, len, NULL);
		return;
	}
	if (test_bit(SR_CONN_RTR_WAIT, &c->flags)) {
		rx_rtr(c, &s);
		return;
	}
	switch (s.op) {
	case SOFTRNIC_OP_WRITE:
		rx_write(c, &s);
		break;
	case SOFTRNIC_OP_READ_REQ:
		rx_read_req(c, &s, false);
		break;
	case SOFTRNIC_OP_READ_RESP:
		rx_read_resp(c, &s);
		break;
	case SOFTRNIC_OP_TERMINATE:
		rx_terminate(c, &s);
		break;
	default:
		rx_send(c, &s);
		break;
	}
}

static void rx_consume(struct sr_conn *c, const u8 *data, u32 n)
{
	enum softrnic_mpa_rx_err err;
	const u8 *ulpdu;
	u32 used, len;
	int r;

	while (n && !test_bit(SR_CONN_TERM, &c->flags)) {
		r = softrnic_mpa_rx_feed(&c->mrx, data, n, &used, &err);
		data += used;
		n -= used;
		if (r < 0) {
			if (err == SOFTRNIC_MPA_SHORT)
				rx_term(c, NULL, SOFTRNIC_TERM_DDP,
					SOFTRNIC_DDP_ET_CATASTROPHIC, 0);
			else if (err == SOFTRNIC_MPA_NOMEM)
				rx_term(c, NULL, SOFTRNIC_TERM_RDMAP,
					SOFTRNIC_RDMAP_ET_CATASTROPHIC, 0);
			else
				rx_term(c, NULL, SOFTRNIC_TERM_LLP, 0,
					err == SOFTRNIC_MPA_BAD_CRC ?
					SOFTRNIC_LLP_EC_CRC :
					SOFTRNIC_LLP_EC_MARKER);
			return;
		}
		if (!r)
			return;
		ulpdu = softrnic_mpa_rx_ulpdu(&c->mrx, &len);
		rx_ulpdu(c, ulpdu, len);
		softrnic_mpa_rx_next(&c->mrx);
	}
}

void sr_rx_work(struct work_struct *w)
{
	struct sr_conn *c = container_of(w, struct sr_conn, rx_work);
	int budget = SR_RX_BUDGET;

	if (test_bit(SR_CONN_RELEASED, &c->flags) ||
	    test_bit(SR_CONN_DEAD, &c->flags))
		return;
	while (budget--) {
		struct kvec iov = { .iov_base = c->rxchunk,
				    .iov_len = SR_RX_CHUNK };
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
		int n = kernel_recvmsg(c->sock, &msg, &iov, 1, SR_RX_CHUNK,
				       MSG_DONTWAIT);

		if (n == -EAGAIN)
			return;
		if (n <= 0) {
			sr_conn_peer_fin(c, n);
			return;
		}
		/* after a TERMINATE, input is read and dropped */
		if (!test_bit(SR_CONN_TERM, &c->flags))
			rx_consume(c, c->rxchunk, n);
	}
	queue_work(sr_wire_wq, &c->rx_work);
}

/* rx_work is stopped: the receive WQE being filled is flushed. */
void sr_rx_flush(struct sr_conn *c)
{
	if (c->rqe_valid)
		rx_rqe_done(c, false, false, 0, SIW_WC_WR_FLUSH_ERR);
}
