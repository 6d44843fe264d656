// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic: work requests. Kernel ULPs' ib_send_wr/ib_recv_wr become siw
 * WQEs in the rings (rdma-core writes user rings itself); the engine takes
 * them in order with sr_sq_take()/sr_rq_take() and returns them with
 * sr_sq_complete()/sr_rq_complete(); flushes complete what is left.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>

#include "sr_verbs.h"

static u16 sr_send_flags(const struct ib_send_wr *wr, bool sig_all)
{
	u16 flags = SIW_WQE_VALID;

	if ((wr->send_flags & IB_SEND_SIGNALED) || sig_all)
		flags |= SIW_WQE_SIGNALLED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		flags |= SIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		flags |= SIW_WQE_READ_FENCE;
	return flags;
}

/* Inline data goes at &sge[1], its length in sge[0].length. */
static int sr_sqe_inline(struct siw_sqe *sqe, const struct ib_send_wr *wr)
{
	u8 *data = (u8 *)&sqe->sge[1];
	u32 total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 len = wr->sg_list[i].length;

		if (len > SIW_MAX_INLINE - total)
			return -EINVAL;
		memcpy(data + total, (void *)(uintptr_t)wr->sg_list[i].addr,
		       len);
		total += len;
	}
	sqe->sge[0].length = total;
	sqe->sge[0].lkey = 0;
	sqe->sge[0].laddr = (uintptr_t)data;
	sqe->num_sge = 1;
	sqe->flags |= SIW_WQE_INLINE;
	return 0;
}

/*
 * Translate a kernel send WR into @sqe (all but the flags' VALID bit, which
 * the caller publishes last). -EINVAL for what iWARP or softrnic lacks.
 */
VISIBLE_IF_KUNIT int sr_sqe_from_wr(struct siw_sqe *sqe,
				    const struct ib_send_wr *wr, bool sig_all)
{
	int i;

	memset(sqe, 0, sizeof(*sqe));
	sqe->id = wr->wr_id;
	sqe->flags = sr_send_flags(wr, sig_all) & ~SIW_WQE_VALID;

	switch (wr->opcode) {
	case IB_WR_SEND:
		sqe->opcode = SIW_OP_SEND;
		break;
	case IB_WR_SEND_WITH_INV:
		sqe->opcode = SIW_OP_SEND_REMOTE_INV;
		sqe->rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_RDMA_WRITE:
		sqe->opcode = SIW_OP_WRITE;
		sqe->raddr = rdma_wr(wr)->remote_addr;
		sqe->rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		/* The sink STag goes on the wire: one SGE at most. */
		if (wr->num_sge > 1 || (wr->send_flags & IB_SEND_INLINE))
			return -EINVAL;
		sqe->opcode = wr->opcode == IB_WR_RDMA_READ ? SIW_OP_READ :
			      SIW_OP_READ_LOCAL_INV;
		sqe->raddr = rdma_wr(wr)->remote_addr;
		sqe->rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		if (wr->num_sge)
			return -EINVAL;
		sqe->opcode = SIW_OP_REG_MR;
		sqe->base_mr = (uintptr_t)reg_wr(wr)->mr;
		sqe->rkey = reg_wr(wr)->key;
		sqe->access = reg_wr(wr)->access;
		return 0;
	case IB_WR_LOCAL_INV:
		if (wr->num_sge)
			return -EINVAL;
		sqe->opcode = SIW_OP_INVAL_STAG;
		sqe->rkey = wr->ex.invalidate_rkey;
		return 0;
	default:
		return -EINVAL;
	}
	if (wr->send_flags & IB_SEND_INLINE)
		return sr_sqe_inline(sqe, wr);
	if (wr->num_sge < 0 || wr->num_sge > SIW_MAX_SGE)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		sqe->sge[i].laddr = wr->sg_list[i].addr;
		sqe->sge[i].length = wr->sg_list[i].length;
		sqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	sqe->num_sge = wr->num_sge;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sr_sqe_from_wr);

int sr_rqe_from_wr(struct siw_rqe *rqe, const struct ib_recv_wr *wr)
{
	int i;

	if (wr->num_sge < 0 || wr->num_sge > SIW_MAX_SGE)
		return -EINVAL;
	rqe->id = wr->wr_id;
	rqe->num_sge = wr->num_sge;
	rqe->opcode = SIW_OP_RECEIVE;
	rqe->unused = 0;
	for (i = 0; i < wr->num_sge; i++) {
		rqe->sge[i].laddr = wr->sg_list[i].addr;
		rqe->sge[i].length = wr->sg_list[i].length;
		rqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	/* Publish: the RQE's contents before its VALID bit. */
	smp_store_release(&rqe->flags, SIW_WQE_VALID);
	return 0;
}

static void sr_flush_now(struct sr_qp *qp)
{
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sr_qp_flush(qp);
}

int sr_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		 const struct ib_send_wr **bad_wr)
{
	struct sr_qp *qp = to_sr_qp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	int ret = 0;

	if (!qp->kernel) {
		/* rdma-core's doorbell: a post_send without WRs. */
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		if (state == IB_QPS_RTS)
			sr_tx_kick(qp);
		else if (state == IB_QPS_ERR)
			sr_qp_flush(qp);
		else if (state != IB_QPS_SQD)
			return -ENOTCONN;
		return 0;
	}
	if (state < IB_QPS_RTS) {
		*bad_wr = wr;
		return -ENOTCONN;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		struct siw_sqe *slot = &qp->sendq[qp->sq_put &
						  (qp->num_sqe - 1)];
		u16 valid;

		if (READ_ONCE(slot->flags) & SIW_WQE_VALID) {
			ret = -ENOMEM;
			break;
		}
		ret = sr_sqe_from_wr(slot, wr, qp->sq_sig_all);
		if (ret)
			break;
		valid = slot->flags | SIW_WQE_VALID;
		/* Publish: the SQE's contents before its VALID bit. */
		smp_store_release(&slot->flags, valid);
		qp->sq_put++;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (ret)
		*bad_wr = wr;
	if (state == IB_QPS_RTS)
		sr_tx_kick(qp);
	sr_flush_now(qp);
	return ret;
}

int sr_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		 const struct ib_recv_wr **bad_wr)
{
	struct sr_qp *qp = to_sr_qp(ibqp);
	unsigned long flags;
	int ret = 0;

	if (!qp->kernel || qp->srq || READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return qp->kernel ? -EINVAL : -EOPNOTSUPP;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	for (; wr; wr = wr->next) {
		struct siw_rqe *slot = &qp->recvq[qp->rq_put &
						  (qp->num_rqe - 1)];

		if (READ_ONCE(slot->flags) & SIW_WQE_VALID) {
			ret = -ENOMEM;
			break;
		}
		ret = sr_rqe_from_wr(slot, wr);
		if (ret)
			break;
		qp->rq_put++;
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (ret)
		*bad_wr = wr;
	sr_flush_now(qp);
	return ret;
}

/* Copy out the element at *get if valid, free it; 1, or 0 if none. */
static int sr_sq_pop(struct sr_qp *qp, struct siw_sqe *sqe)
{
	struct siw_sqe *slot;
	unsigned long flags;
	u16 f;

	spin_lock_irqsave(&qp->sq_lock, flags);
	slot = &qp->sendq[qp->sq_get & (qp->num_sqe - 1)];
	/* VALID before the contents (rdma-core published them). */
	f = smp_load_acquire(&slot->flags);
	if (!(f & SIW_WQE_VALID)) {
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return 0;
	}
	memcpy(sqe, slot, sizeof(*sqe));
	sqe->flags = f;
	/* Copied out before the slot goes back to the producer. */
	smp_store_release(&slot->flags, 0);
	qp->sq_get++;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return 1;
}

int sr_ring_take(struct siw_rqe *ring, u32 num, u32 *get, struct siw_rqe *rqe)
{
	struct siw_rqe *slot = &ring[*get & (num - 1)];
	/* VALID before the contents (the producer published them). */
	u16 f = smp_load_acquire(&slot->flags);

	if (!(f & SIW_WQE_VALID))
		return 0;
	memcpy(rqe, slot, sizeof(*rqe));
	rqe->flags = f;
	rqe->opcode = SIW_OP_RECEIVE;
	/* Copied out before the slot goes back to the producer. */
	smp_store_release(&slot->flags, 0);
	(*get)++;
	if (rqe->num_sge > SIW_MAX_SGE ||
	    sr_sge_len(rqe->sge, rqe->num_sge) < 0)
		return -EINVAL;
	return 1;
}

static int sr_rq_pop(struct sr_qp *qp, struct siw_rqe *rqe)
{
	unsigned long flags;
	int ret;

	if (qp->srq)
		return sr_srq_take(qp->srq, rqe);
	spin_lock_irqsave(&qp->rq_lock, flags);
	ret = sr_ring_take(qp->recvq, qp->num_rqe, &qp->rq_get, rqe);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	return ret;
}

/* A WQE the engine may not get: the status to complete it with. */
VISIBLE_IF_KUNIT enum siw_wc_status sr_sqe_check(const struct sr_qp *qp,
						 const struct siw_sqe *sqe)
{
	switch (sqe->opcode) {
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		if (sqe->flags & SIW_WQE_INLINE)
			return SIW_WC_LOC_QP_OP_ERR;
		if (sqe->num_sge > 1)
			return SIW_WC_LOC_LEN_ERR;
		break;
	case SIW_OP_WRITE:
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
		break;
	case SIW_OP_REG_MR:
	case SIW_OP_INVAL_STAG:
		/* base_mr is a kernel pointer: kernel QPs only. */
		return qp->kernel ? SIW_WC_SUCCESS : SIW_WC_LOC_QP_OP_ERR;
	default:
		return SIW_WC_LOC_QP_OP_ERR;
	}
	if (sqe->flags & SIW_WQE_INLINE)
		return sqe->sge[0].length > SIW_MAX_INLINE ?
			SIW_WC_LOC_LEN_ERR : SIW_WC_SUCCESS;
	if (sqe->num_sge > SIW_MAX_SGE ||
	    sr_sge_len(sqe->sge, sqe->num_sge) < 0)
		return SIW_WC_LOC_LEN_ERR;
	return SIW_WC_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(sr_sqe_check);

/* Carry out a local operation; its completion status. */
static enum siw_wc_status sr_sqe_local(struct sr_qp *qp,
				       const struct siw_sqe *sqe)
{
	int ret;

	if (sqe->opcode == SIW_OP_REG_MR)
		ret = sr_mr_fastreg(qp, sqe);
	else
		ret = sr_stag_invalidate(qp, sqe->rkey, false);
	return ret ? SIW_WC_LOC_PROT_ERR : SIW_WC_SUCCESS;
}

int sr_sq_take(struct sr_qp *qp, struct siw_sqe *sqe)
{
	enum siw_wc_status status;

	while (READ_ONCE(qp->state) == IB_QPS_RTS && sr_sq_pop(qp, sqe)) {
		status = sr_sqe_check(qp, sqe);
		if (status == SIW_WC_SUCCESS &&
		    sqe->opcode != SIW_OP_REG_MR &&
		    sqe->opcode != SIW_OP_INVAL_STAG)
			return 1;
		if (status == SIW_WC_SUCCESS)
			status = sr_sqe_local(qp, sqe);
		sr_sq_complete(qp, sqe, 0, status);
		if (status != SIW_WC_SUCCESS) {
			sr_qp_to_error(qp, IB_EVENT_QP_REQ_ERR);
			return -EINVAL;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sr_sq_take);

int sr_rq_take(struct sr_qp *qp, struct siw_rqe *rqe)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	int ret;

	if (state == IB_QPS_RESET || state == IB_QPS_ERR)
		return 0;
	ret = sr_rq_pop(qp, rqe);
	if (ret < 0) {
		sr_rq_complete(qp, rqe, 0, false, false, 0,
			       SIW_WC_LOC_LEN_ERR);
		sr_qp_to_error(qp, IB_EVENT_QP_REQ_ERR);
	}
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sr_rq_take);

static void sr_cqe_init(struct siw_cqe *cqe, struct sr_qp *qp, u64 id,
			u8 opcode, u32 bytes, enum siw_wc_status status)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->id = id;
	cqe->opcode = opcode;
	cqe->status = status;
	cqe->bytes = bytes;
	if (qp->kernel)
		cqe->base_qp = &qp->ibqp;
	else
		cqe->qp_id = qp->ibqp.qp_num;
}

void sr_sq_complete(struct sr_qp *qp, const struct siw_sqe *sqe, u32 bytes,
		    enum siw_wc_status status)
{
	struct siw_cqe cqe;

	if (status == SIW_WC_SUCCESS && !qp->sq_sig_all &&
	    !(sqe->flags & SIW_WQE_SIGNALLED))
		return;
	sr_cqe_init(&cqe, qp, sqe->id, sqe->opcode, bytes, status);
	sr_cq_add(qp->scq, &cqe, status != SIW_WC_SUCCESS);
}
EXPORT_SYMBOL_IF_KUNIT(sr_sq_complete);

void sr_rq_complete(struct sr_qp *qp, const struct siw_rqe *rqe, u32 bytes,
		    bool solicited, bool inval, u32 inval_stag,
		    enum siw_wc_status status)
{
	struct siw_cqe cqe;

	sr_cqe_init(&cqe, qp, rqe->id, SIW_OP_RECEIVE, bytes, status);
	if (inval && status == SIW_WC_SUCCESS) {
		cqe.flags = SIW_WQE_REM_INVAL;
		cqe.inval_stag = inval_stag;
	}
	sr_cq_add(qp->rcq, &cqe, solicited || status != SIW_WC_SUCCESS);
}
EXPORT_SYMBOL_IF_KUNIT(sr_rq_complete);

/*
 * Complete everything still in the SQ and RQ with SIW_WC_WR_FLUSH_ERR
 * (not the SRQ's: shared). One WQE at a time, without the ring's lock
 * while completing: a completion handler may post.
 */
void sr_qp_flush(struct sr_qp *qp)
{
	struct siw_sqe sqe;
	struct siw_rqe rqe;
	unsigned long flags;
	int ret;

	while (sr_sq_pop(qp, &sqe))
		sr_sq_complete(qp, &sqe, 0, SIW_WC_WR_FLUSH_ERR);
	if (qp->srq)
		return;
	for (;;) {
		spin_lock_irqsave(&qp->rq_lock, flags);
		ret = sr_ring_take(qp->recvq, qp->num_rqe, &qp->rq_get, &rqe);
		spin_unlock_irqrestore(&qp->rq_lock, flags);
		if (!ret)
			break;
		sr_rq_complete(qp, &rqe, 0, false, false, 0,
			       SIW_WC_WR_FLUSH_ERR);
	}
}
