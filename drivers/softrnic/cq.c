// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic: completion queues. The ring is struct siw_cqe[num_cqe] followed
 * by struct siw_cq_ctrl, the notification word: rdma-core arms a user CQ by
 * writing it directly; req_notify_cq writes it for a kernel CQ. A CQE
 * belongs to the consumer while SIW_WQE_VALID is set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/uverbs_ioctl.h>

#include "sr_verbs.h"

static atomic_t sr_cq_ids = ATOMIC_INIT(0);

int sr_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		 struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
	struct sr_dev *sdev = to_sr_dev(ibcq->device);
	struct sr_cq *cq = to_sr_cq(ibcq);
	struct siw_uresp_create_cq resp = {};
	size_t len;
	int ret;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > SR_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_cq) > SR_MAX_CQ) {
		ret = -ENOMEM;
		goto out_count;
	}

	spin_lock_init(&cq->lock);
	cq->num_cqe = roundup_pow_of_two(attr->cqe);
	len = cq->num_cqe * sizeof(*cq->queue) + sizeof(*cq->notify);
	cq->queue = sr_ring_alloc(len, udata);
	if (!cq->queue) {
		ret = -ENOMEM;
		goto out_count;
	}
	cq->notify = (struct siw_cq_ctrl *)&cq->queue[cq->num_cqe];
	cq->kernel = !udata;
	ibcq->cqe = cq->num_cqe;

	if (udata) {
		resp.cq_id = atomic_inc_return(&sr_cq_ids);
		resp.num_cqe = cq->num_cqe;
		resp.cq_key = sr_mmap_insert(udata, cq->queue, len, &cq->entry);
		if (resp.cq_key == SIW_INVAL_UOBJ_KEY) {
			ret = -ENOMEM;
			goto out_free;
		}
		ret = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (ret)
			goto out_free;
	}
	return 0;

out_free:
	sr_mmap_remove(cq->entry);
	sr_ring_free(cq->queue);
out_count:
	atomic_dec(&sdev->num_cq);
	return ret;
}

int sr_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sr_cq *cq = to_sr_cq(ibcq);

	sr_mmap_remove(cq->entry);
	sr_ring_free(cq->queue);
	atomic_dec(&to_sr_dev(ibcq->device)->num_cq);
	return 0;
}

/*
 * Add a CQE (any context). @solicited: satisfies a CQ armed for solicited
 * completions. Calls the completion handler, outside cq->lock, if the CQ
 * was armed. -ENOSPC on overflow (IB_EVENT_CQ_ERR is raised).
 */
int sr_cq_add(struct sr_cq *cq, const struct siw_cqe *cqe, bool solicited)
{
	struct siw_cqe *slot;
	unsigned long flags;
	bool notify = false;
	u32 armed;

	spin_lock_irqsave(&cq->lock, flags);
	slot = &cq->queue[cq->put & (cq->num_cqe - 1)];
	if (READ_ONCE(slot->flags) & SIW_WQE_VALID) {
		spin_unlock_irqrestore(&cq->lock, flags);
		if (cq->ibcq.event_handler) {
			struct ib_event ev = {
				.device = cq->ibcq.device,
				.element.cq = &cq->ibcq,
				.event = IB_EVENT_CQ_ERR,
			};

			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
		return -ENOSPC;
	}
	slot->id = cqe->id;
	slot->opcode = cqe->opcode;
	slot->status = cqe->status;
	slot->bytes = cqe->bytes;
	slot->imm_data = cqe->imm_data;
	slot->qp_id = cqe->qp_id;
	/* The CQE's contents before its VALID bit, then the arm word. */
	smp_store_release(&slot->flags, cqe->flags | SIW_WQE_VALID);
	cq->put++;
	/* Pairs with the arm then check of the consumer (rdma-core, req_notify). */
	smp_mb();
	armed = READ_ONCE(cq->notify->flags);
	if ((armed & SIW_NOTIFY_NEXT_COMPLETION) ||
	    ((armed & SIW_NOTIFY_SOLICITED) && solicited))
		/* A user re-arming meanwhile keeps its arm. */
		notify = cmpxchg(&cq->notify->flags, armed, SIW_NOTIFY_NOT) ==
			 armed;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}

static const enum ib_wc_opcode sr_wc_opcode[SIW_NUM_OPCODES] = {
	[SIW_OP_WRITE] = IB_WC_RDMA_WRITE,
	[SIW_OP_READ] = IB_WC_RDMA_READ,
	[SIW_OP_READ_LOCAL_INV] = IB_WC_RDMA_READ,
	[SIW_OP_SEND] = IB_WC_SEND,
	[SIW_OP_SEND_WITH_IMM] = IB_WC_SEND,
	[SIW_OP_SEND_REMOTE_INV] = IB_WC_SEND,
	[SIW_OP_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[SIW_OP_COMP_AND_SWAP] = IB_WC_COMP_SWAP,
	[SIW_OP_RECEIVE] = IB_WC_RECV,
	[SIW_OP_READ_RESPONSE] = IB_WC_RDMA_READ,
	[SIW_OP_INVAL_STAG] = IB_WC_LOCAL_INV,
	[SIW_OP_REG_MR] = IB_WC_REG_MR,
};

static const enum ib_wc_status sr_wc_status[SIW_NUM_WC_STATUS] = {
	[SIW_WC_SUCCESS] = IB_WC_SUCCESS,
	[SIW_WC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[SIW_WC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[SIW_WC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[SIW_WC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[SIW_WC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
	[SIW_WC_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
	[SIW_WC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[SIW_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[SIW_WC_GENERAL_ERR] = IB_WC_GENERAL_ERR,
};

static void sr_cqe_to_wc(const struct siw_cqe *cqe, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->id;
	wc->byte_len = cqe->bytes;
	wc->qp = cqe->base_qp;
	wc->opcode = cqe->opcode < SIW_NUM_OPCODES ?
		sr_wc_opcode[cqe->opcode] : IB_WC_SEND;
	wc->status = cqe->status < SIW_NUM_WC_STATUS ?
		sr_wc_status[cqe->status] : IB_WC_GENERAL_ERR;
	if (cqe->flags & SIW_WQE_REM_INVAL) {
		wc->wc_flags = IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = cqe->inval_stag;
	}
}

/* Kernel CQs only: rdma-core polls a user CQ's ring itself. */
int sr_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct sr_cq *cq = to_sr_cq(ibcq);
	unsigned long flags;
	int n;

	if (!cq->kernel)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num; n++) {
		struct siw_cqe *cqe = &cq->queue[cq->get & (cq->num_cqe - 1)];

		if (!(READ_ONCE(cqe->flags) & SIW_WQE_VALID))
			break;
		sr_cqe_to_wc(cqe, &wc[n]);
		WRITE_ONCE(cqe->flags, 0);
		cq->get++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int sr_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags how)
{
	struct sr_cq *cq = to_sr_cq(ibcq);
	unsigned long flags;
	int ret = 0;
	u32 arm;

	arm = (how & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
		SIW_NOTIFY_SOLICITED :
		SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION;
	spin_lock_irqsave(&cq->lock, flags);
	WRITE_ONCE(cq->notify->flags, arm);
	if (how & IB_CQ_REPORT_MISSED_EVENTS)
		ret = !!(READ_ONCE(cq->queue[cq->get & (cq->num_cqe - 1)].flags) &
			 SIW_WQE_VALID);
	spin_unlock_irqrestore(&cq->lock, flags);
	return ret;
}
