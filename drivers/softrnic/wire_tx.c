// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic wire engine, transmit: SQEs and served READs into FPDUs.
 *
 * One FPDU at a time is built in c->ulpdu (DDP/RDMAP header + payload),
 * framed into c->txbuf (MPA: length, markers, pad, CRC) and pushed into the
 * socket without blocking; -EAGAIN waits for write_space. Order of what is
 * sent: a TERMINATE (then FIN and nothing else), READ responses (IRD),
 * then the SQ in order. An SEND or WRITE completes when its last FPDU is in
 * the socket; a READ when its response has arrived (wire_rx.c). READs in
 * flight are limited by the negotiated ORD; a WQE with the read fence
 * waits for them. Everything here runs with tx_mutex held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "wire.h"

#define SR_TX_BUDGET	64	/* FPDUs per run of tx_work */

static int tx_push(struct sr_conn *c, bool block)
{
	while (c->tx_sent < c->tx_len) {
		struct kvec iov = {
			.iov_base = c->txbuf + c->tx_sent,
			.iov_len = c->tx_len - c->tx_sent,
		};
		struct msghdr msg = {
			.msg_flags = MSG_NOSIGNAL | (block ? 0 : MSG_DONTWAIT) |
				     (c->tx_more ? MSG_MORE : 0),
		};
		int n = kernel_sendmsg(c->sock, &msg, &iov, 1, iov.iov_len);

		if (n < 0)
			return n;
		c->tx_sent += n;
	}
	c->tx_len = 0;
	c->tx_sent = 0;
	return 0;
}

/* Frame the ULPDU in c->ulpdu: @h, then @plen payload octets already there. */
static void tx_frame(struct sr_conn *c, const struct softrnic_ddp_hdr *h,
		     u32 plen)
{
	u32 hl = softrnic_ddp_encode(h, c->ulpdu);

	if (sr_conn_tx_in_place(c))
		c->tx_len = softrnic_mpa_encode_inplace(&c->mtx, c->txbuf,
							hl + plen);
	else
		c->tx_len = softrnic_mpa_encode(&c->mtx, c->txbuf, c->ulpdu,
						hl + plen);
	c->tx_sent = 0;
	/*
	 * More FPDUs of this message follow at once: let TCP fill its
	 * segments (and GSO its packets) past TCP_NODELAY, as siw does. The
	 * last FPDU of a message is pushed.
	 */
	c->tx_more = !h->last;
}

static void tx_untagged(struct softrnic_ddp_hdr *h, u8 op, u32 qn, u32 msn,
			u32 mo, bool last)
{
	memset(h, 0, sizeof(*h));
	h->ulp_ctrl = softrnic_rdmap_ctrl(op);
	h->qn = qn;
	h->msn = msn;
	h->mo = mo;
	h->last = last;
}

static void tx_tagged(struct softrnic_ddp_hdr *h, u8 op, u32 stag, u64 to,
		      bool last)
{
	memset(h, 0, sizeof(*h));
	h->tagged = true;
	h->ulp_ctrl = softrnic_rdmap_ctrl(op);
	h->stag = stag;
	h->to = to;
	h->last = last;
}

static void tx_read_req(struct sr_conn *c, const struct softrnic_rdmap_rreq *rr)
{
	struct softrnic_ddp_hdr h;

	tx_untagged(&h, SOFTRNIC_OP_READ_REQ, SOFTRNIC_QN_READ_REQ,
		    c->tx_msn[SOFTRNIC_QN_READ_REQ]++, 0, true);
	softrnic_rdmap_rreq_encode(rr, c->ulpdu + SOFTRNIC_DDP_UNTAGGED_HDR_LEN);
	tx_frame(c, &h, SOFTRNIC_RDMAP_RREQ_LEN);
}

/* Queue an outbound READ on the ORD ring; false if it is full. */
static bool tx_ord_add(struct sr_conn *c, const struct siw_sqe *sqe, u32 size,
		       bool rtr)
{
	struct sr_ord_entry *e;
	bool ok = false;

	spin_lock(&c->lock);
	if (c->ord_count < c->ord_size) {
		e = &c->ord[(c->ord_head + c->ord_count) % c->ord_size];
		memset(e, 0, sizeof(*e));
		if (sqe)
			e->sqe = *sqe;
		e->size = size;
		e->rtr = rtr;
		c->ord_count++;
		c->ord_rtr += rtr;
		ok = true;
	}
	spin_unlock(&c->lock);
	return ok;
}

/* The zero-length RTR of a peer-to-peer initiator; blocking (attach). */
int sr_tx_rtr(struct sr_conn *c)
{
	struct softrnic_rdmap_rreq rr = {};
	struct softrnic_ddp_hdr h;
	int err;

	mutex_lock(&c->tx_mutex);
	switch (c->params.rtr) {
	case ORCM_IW_RTR_SEND:
		tx_untagged(&h, SOFTRNIC_OP_SEND, SOFTRNIC_QN_SEND,
			    c->tx_msn[SOFTRNIC_QN_SEND]++, 0, true);
		tx_frame(c, &h, 0);
		break;
	case ORCM_IW_RTR_WRITE:
		tx_tagged(&h, SOFTRNIC_OP_WRITE, 0, 0, true);
		tx_frame(c, &h, 0);
		break;
	case ORCM_IW_RTR_READ:
		tx_ord_add(c, NULL, 0, true);
		tx_read_req(c, &rr);
		break;
	default:
		mutex_unlock(&c->tx_mutex);
		return -EINVAL;
	}
	err = tx_push(c, true);
	mutex_unlock(&c->tx_mutex);
	return err;
}

static void tx_term(struct sr_conn *c)
{
	struct softrnic_ddp_hdr h;

	tx_untagged(&h, SOFTRNIC_OP_TERMINATE, SOFTRNIC_QN_TERMINATE,
		    c->tx_msn[SOFTRNIC_QN_TERMINATE]++, 0, true);
	spin_lock(&c->lock);
	memcpy(c->ulpdu + SOFTRNIC_DDP_UNTAGGED_HDR_LEN, c->term_payload,
	       c->term_len);
	c->term_pending = false;
	c->term_sent = true;
	spin_unlock(&c->lock);
	tx_frame(c, &h, c->term_len);
}

static void tx_mem_cause(struct softrnic_term_cause *cause, int err)
{
	cause->layer = SOFTRNIC_TERM_RDMAP;
	cause->etype = SOFTRNIC_RDMAP_ET_PROTECTION;
	cause->ecode = err == -ERANGE ? SOFTRNIC_RDMAP_EC_BASE_BOUNDS :
		       err == -EACCES ? SOFTRNIC_RDMAP_EC_ACCESS :
		       SOFTRNIC_RDMAP_EC_INVALID_STAG;
}

/* One FPDU of the READ response at the head of the IRD ring. */
static int tx_read_resp(struct sr_conn *c)
{
	struct softrnic_ddp_hdr h;
	struct softrnic_term_cause cause;
	struct sr_ird_entry *e;
	u32 seg;
	bool last;
	int err;

	spin_lock(&c->lock);
	e = c->ird_count ? &c->ird[c->ird_head] : NULL;
	spin_unlock(&c->lock);
	if (!e)
		return 0;
	seg = min(e->rr.size - e->sent,
		  c->mulpdu - SOFTRNIC_DDP_TAGGED_HDR_LEN);
	if (seg) {
		err = sr_stag_copy(c->qp, e->rr.src_stag, e->rr.src_to + e->sent,
				   c->ulpdu + SOFTRNIC_DDP_TAGGED_HDR_LEN, seg,
				   IB_ACCESS_REMOTE_READ, false);
		if (err) {
			tx_mem_cause(&cause, err);
			sr_conn_terminate(c, &cause, NULL, 0, 0, NULL);
			return 0;
		}
	}
	last = e->sent + seg == e->rr.size;
	tx_tagged(&h, SOFTRNIC_OP_READ_RESP, e->rr.sink_stag,
		  e->rr.sink_to + e->sent, last);
	tx_frame(c, &h, seg);
	e->sent += seg;
	if (last) {
		spin_lock(&c->lock);
		c->ird_head = (c->ird_head + 1) % c->ird_size;
		c->ird_count--;
		spin_unlock(&c->lock);
	}
	return 1;
}

static void tx_local_error(struct sr_conn *c, enum siw_wc_status status)
{
	struct softrnic_term_cause cause = {
		.layer = SOFTRNIC_TERM_RDMAP,
		.etype = SOFTRNIC_RDMAP_ET_CATASTROPHIC,
		.ecode = SOFTRNIC_RDMAP_EC_UNSPECIFIED,
	};

	if (c->cur_valid)
		sr_sq_complete(c->qp, &c->cur, 0, status);
	c->cur_valid = false;
	sr_conn_terminate(c, &cause, NULL, 0, 0, NULL);
}

static bool tx_is_read(const struct siw_sqe *sqe)
{
	return sqe->opcode == SIW_OP_READ || sqe->opcode == SIW_OP_READ_LOCAL_INV;
}

/* Take the next SQE into c->cur; 1 taken, 0 none (or must wait). */
static int tx_take(struct sr_conn *c)
{
	s64 len;
	int r;

	if (test_bit(SR_CONN_CLOSING, &c->flags))
		return 0;
	r = sr_sq_take(c->qp, &c->cur);
	if (r < 0) {
		/* the verbs layer completed it in error, QP in ERR */
		tx_local_error(c, SIW_WC_LOC_QP_OP_ERR);
		return 0;
	}
	if (!r)
		return 0;
	if (c->cur.flags & SIW_WQE_INLINE)
		len = c->cur.sge[0].length;
	else if (tx_is_read(&c->cur))
		len = c->cur.num_sge ? c->cur.sge[0].length : 0;
	else
		len = sr_sge_len(c->cur.sge, c->cur.num_sge);
	c->cur_valid = true;
	c->cur_off = 0;
	c->cur_complete = false;
	if (len < 0) {
		tx_local_error(c, SIW_WC_LOC_LEN_ERR);
		return 0;
	}
	c->cur_len = len;
	return 1;
}

static int tx_payload(struct sr_conn *c, u32 hl, u32 seg)
{
	u8 *dst = c->ulpdu + hl;

	if (!seg)
		return 0;
	if (c->cur.flags & SIW_WQE_INLINE) {
		memcpy(dst, (u8 *)&c->cur.sge[1] + c->cur_off, seg);
		return 0;
	}
	return sr_sge_copy(c->qp, c->cur.sge, c->cur.num_sge, c->cur_off, dst,
			   seg, false);
}

/* The next FPDU of c->cur. 1: framed, 0: must wait (ORD, fence). */
static int tx_sqe(struct sr_conn *c)
{
	struct siw_sqe *sqe = &c->cur;
	struct softrnic_ddp_hdr h;
	bool tagged = sqe->opcode == SIW_OP_WRITE;
	u32 hl = softrnic_ddp_hdr_len(tagged);
	u32 seg, ord_busy;
	bool last;
	u8 op;
	int err;

	spin_lock(&c->lock);
	ord_busy = c->ord_count - c->ord_rtr;
	spin_unlock(&c->lock);
	if (tx_is_read(sqe)) {
		struct softrnic_rdmap_rreq rr = {
			.sink_stag = sqe->num_sge ? sqe->sge[0].lkey : 0,
			.sink_to = sqe->num_sge ? sqe->sge[0].laddr : 0,
			.size = c->cur_len,
			.src_stag = sqe->rkey,
			.src_to = sqe->raddr,
		};

		if (!c->params.ord) {
			tx_local_error(c, SIW_WC_LOC_QP_OP_ERR);
			return 0;
		}
		if (ord_busy >= c->params.ord)
			return 0;
		tx_ord_add(c, sqe, c->cur_len, false);
		c->cur_valid = false;
		tx_read_req(c, &rr);
		return 1;
	}
	if ((sqe->flags & SIW_WQE_READ_FENCE) && ord_busy && !c->cur_off)
		return 0;
	seg = min(c->cur_len - c->cur_off, c->mulpdu - hl);
	err = tx_payload(c, hl, seg);
	if (err) {
		tx_local_error(c, sr_mem_status(err));
		return 0;
	}
	last = c->cur_off + seg == c->cur_len;
	if (tagged) {
		tx_tagged(&h, SOFTRNIC_OP_WRITE, sqe->rkey,
			  sqe->raddr + c->cur_off, last);
	} else {
		bool inv = sqe->opcode == SIW_OP_SEND_REMOTE_INV;
		bool se = sqe->flags & SIW_WQE_SOLICITED;

		op = inv ? (se ? SOFTRNIC_OP_SEND_SE_INV : SOFTRNIC_OP_SEND_INV) :
			   (se ? SOFTRNIC_OP_SEND_SE : SOFTRNIC_OP_SEND);
		tx_untagged(&h, op, SOFTRNIC_QN_SEND,
			    c->tx_msn[SOFTRNIC_QN_SEND], c->cur_off, last);
		if (inv)
			h.ulp_word = sqe->rkey;
		if (last)
			c->tx_msn[SOFTRNIC_QN_SEND]++;
	}
	tx_frame(c, &h, seg);
	c->cur_off += seg;
	c->cur_complete = last;
	return 1;
}

/* After a TERMINATE, or a drained graceful close: FIN. */
static void tx_fin(struct sr_conn *c)
{
	if (test_and_set_bit(SR_CONN_FIN_SENT, &c->flags))
		return;
	kernel_sock_shutdown(c->sock, SHUT_WR);
	sr_conn_queue_release(c, test_bit(SR_CONN_PEER_FIN, &c->flags) ?
				 0 : SR_RELEASE_TIMEOUT);
}

/* Build the next FPDU: 1 framed, 0 nothing to send now. */
static int tx_next(struct sr_conn *c)
{
	bool term, term_sent;

	spin_lock(&c->lock);
	term = c->term_pending;
	term_sent = c->term_sent;
	spin_unlock(&c->lock);
	if (term) {
		tx_term(c);
		return 1;
	}
	if (term_sent) {
		tx_fin(c);
		return 0;
	}
	if (test_bit(SR_CONN_TERM, &c->flags) ||
	    test_bit(SR_CONN_RTR_WAIT, &c->flags))
		return 0;
	if (tx_read_resp(c))
		return 1;
	if (!c->cur_valid && !tx_take(c)) {
		if (test_bit(SR_CONN_CLOSING, &c->flags) && !c->ird_count)
			tx_fin(c);
		return 0;
	}
	return c->cur_valid ? tx_sqe(c) : 0;
}

void sr_tx_work(struct work_struct *w)
{
	struct sr_conn *c = container_of(w, struct sr_conn, tx_work);
	int budget = SR_TX_BUDGET;
	int err;

	mutex_lock(&c->tx_mutex);
	if (!c->sock || test_bit(SR_CONN_DEAD, &c->flags))
		goto out;
	while (budget--) {
		if (c->tx_len) {
			err = tx_push(c, false);
			if (err == -EAGAIN)
				goto out;
			if (err) {
				sr_conn_peer_fin(c, err);
				goto out;
			}
			if (c->cur_valid && c->cur_complete) {
				c->cur_valid = false;
				sr_sq_complete(c->qp, &c->cur, c->cur_len,
					       SIW_WC_SUCCESS);
			}
		}
		/* Between FPDUs: the path's FPDU size and link (offload). */
		if (!c->tx_len && sr_track_tx(c))
			goto out;
		if (!tx_next(c) && !c->tx_len)
			goto out;
	}
	queue_work(sr_wire_wq, &c->tx_work);
out:
	mutex_unlock(&c->tx_mutex);
}

/*
 * Release is near: a TERMINATE that tx_work has not framed yet is sent now,
 * without waiting, so that a close right after an error still reports it.
 * tx_mutex held. True if the TERMINATE is in the socket.
 */
bool sr_tx_term_now(struct sr_conn *c)
{
	lockdep_assert_held(&c->tx_mutex);
	if (c->tx_len && tx_push(c, false))
		return false;
	if (c->term_pending)
		tx_term(c);
	return c->term_sent && !tx_push(c, false);
}

/* The socket is gone: flush what the engine took. tx_mutex held. */
void sr_tx_flush(struct sr_conn *c)
{
	struct sr_ord_entry *e;

	lockdep_assert_held(&c->tx_mutex);
	if (c->cur_valid)
		sr_sq_complete(c->qp, &c->cur, 0, SIW_WC_WR_FLUSH_ERR);
	c->cur_valid = false;
	c->tx_len = 0;
	c->tx_sent = 0;
	spin_lock(&c->lock);
	while (c->ord_count) {
		e = &c->ord[c->ord_head];
		c->ord_head = (c->ord_head + 1) % c->ord_size;
		c->ord_count--;
		if (e->rtr)
			continue;
		spin_unlock(&c->lock);
		sr_sq_complete(c->qp, &e->sqe, 0, SIW_WC_WR_FLUSH_ERR);
		spin_lock(&c->lock);
	}
	c->ord_rtr = 0;
	c->ird_count = 0;
	spin_unlock(&c->lock);
}
