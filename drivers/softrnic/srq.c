// SPDX-License-Identifier: GPL-2.0
/* softrnic: shared receive queues, with the limit event. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/uverbs_ioctl.h>

#include "sr_verbs.h"

int sr_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		  struct ib_udata *udata)
{
	struct sr_dev *sdev = to_sr_dev(ibsrq->device);
	struct sr_srq *srq = to_sr_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct siw_uresp_create_srq resp = {};
	size_t len;
	int ret;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > SR_MAX_SRQ_WR ||
	    attr->max_sge > SIW_MAX_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_srq) > SR_MAX_SRQ) {
		ret = -ENOMEM;
		goto out_count;
	}
	spin_lock_init(&srq->lock);
	srq->num_rqe = roundup_pow_of_two(attr->max_wr);
	len = srq->num_rqe * sizeof(*srq->recvq);
	srq->recvq = sr_ring_alloc(len, udata);
	if (!srq->recvq) {
		ret = -ENOMEM;
		goto out_count;
	}
	srq->limit = attr->srq_limit;
	srq->armed = !!srq->limit;
	srq->kernel = !udata;
	attr->max_wr = srq->num_rqe;
	attr->max_sge = SIW_MAX_SGE;

	if (udata) {
		resp.num_rqe = srq->num_rqe;
		resp.srq_key = sr_mmap_insert(udata, srq->recvq, len,
					      &srq->entry);
		if (resp.srq_key == SIW_INVAL_UOBJ_KEY) {
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
	sr_mmap_remove(srq->entry);
	sr_ring_free(srq->recvq);
out_count:
	atomic_dec(&sdev->num_srq);
	return ret;
}

int sr_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		  enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sr_srq *srq = to_sr_srq(ibsrq);
	unsigned long flags;

	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;	/* no resize */
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->num_rqe)
		return -EINVAL;
	spin_lock_irqsave(&srq->lock, flags);
	srq->limit = attr->srq_limit;
	srq->armed = !!srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int sr_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sr_srq *srq = to_sr_srq(ibsrq);

	attr->max_wr = srq->num_rqe;
	attr->max_sge = SIW_MAX_SGE;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int sr_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sr_srq *srq = to_sr_srq(ibsrq);

	sr_mmap_remove(srq->entry);
	sr_ring_free(srq->recvq);
	atomic_dec(&to_sr_dev(ibsrq->device)->num_srq);
	return 0;
}

int sr_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct sr_srq *srq = to_sr_srq(ibsrq);
	unsigned long flags;
	int ret = 0;

	if (!srq->kernel) {
		*bad_wr = wr;
		return -EOPNOTSUPP;	/* rdma-core writes the ring */
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		struct siw_rqe *slot =
			&srq->recvq[srq->put & (srq->num_rqe - 1)];

		if (READ_ONCE(slot->flags) & SIW_WQE_VALID) {
			ret = -ENOMEM;
			break;
		}
		ret = sr_rqe_from_wr(slot, wr);
		if (ret)
			break;
		srq->put++;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/*
 * Posted WQEs are contiguous from get on: fewer than limit are left when
 * the element limit - 1 after get is not valid.
 */
int sr_srq_take(struct sr_srq *srq, struct siw_rqe *rqe)
{
	bool fire = false;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&srq->lock, flags);
	ret = sr_ring_take(srq->recvq, srq->num_rqe, &srq->get, rqe);
	if (ret == 1 && srq->armed) {
		u32 last = (srq->get + srq->limit - 1) & (srq->num_rqe - 1);

		if (!(READ_ONCE(srq->recvq[last].flags) & SIW_WQE_VALID)) {
			srq->armed = false;
			fire = true;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (fire && srq->ibsrq.event_handler) {
		struct ib_event ev = {
			.device = srq->ibsrq.device,
			.element.srq = &srq->ibsrq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	return ret;
}
