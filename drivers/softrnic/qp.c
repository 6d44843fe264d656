// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic: RC queue pairs: create, the state machine, query, destroy,
 * references, and the hand-off from iw_cm's host CM (the only way to RTS).
 *
 *   RESET -> INIT -> RTR --(hand-off)--> RTS -> SQD (graceful close)
 *   any -> ERR (abortive close, flush); RESET, INIT, RTR, ERR -> RESET
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <rdma/uverbs_ioctl.h>

#include "sr_verbs.h"

static void sr_qp_release(struct kref *ref)
{
	complete(&container_of(ref, struct sr_qp, ref)->freed);
}

void sr_qp_get(struct sr_qp *qp)
{
	kref_get(&qp->ref);
}
EXPORT_SYMBOL_IF_KUNIT(sr_qp_get);

void sr_qp_put(struct sr_qp *qp)
{
	kref_put(&qp->ref, sr_qp_release);
}
EXPORT_SYMBOL_IF_KUNIT(sr_qp_put);

void sr_iw_add_ref(struct ib_qp *ibqp)
{
	sr_qp_get(to_sr_qp(ibqp));
}

void sr_iw_rem_ref(struct ib_qp *ibqp)
{
	sr_qp_put(to_sr_qp(ibqp));
}

struct ib_qp *sr_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct sr_qp *qp = xa_load(&to_sr_dev(ibdev)->qp_xa, qpn);

	return qp ? &qp->ibqp : NULL;
}

static int sr_qp_check_caps(struct ib_qp_init_attr *attr)
{
	struct ib_qp_cap *cap = &attr->cap;

	if (attr->qp_type != IB_QPT_RC || attr->create_flags)
		return -EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	if (cap->max_send_wr > SR_MAX_QP_WR || cap->max_recv_wr > SR_MAX_QP_WR ||
	    cap->max_send_sge > SIW_MAX_SGE || cap->max_recv_sge > SIW_MAX_SGE ||
	    cap->max_inline_data > SIW_MAX_INLINE)
		return -EINVAL;
	if (!cap->max_send_wr && !cap->max_recv_wr && !attr->srq)
		return -EINVAL;
	return 0;
}

static void sr_qp_free_rings(struct sr_qp *qp)
{
	sr_mmap_remove(qp->sq_entry);
	sr_mmap_remove(qp->rq_entry);
	sr_ring_free(qp->sendq);
	sr_ring_free(qp->recvq);
}

static int sr_qp_user_resp(struct sr_qp *qp, struct ib_udata *udata)
{
	struct siw_uresp_create_qp resp = {
		.qp_id = qp->ibqp.qp_num,
		.num_sqe = qp->num_sqe,
		.num_rqe = qp->num_rqe,
	};

	resp.sq_key = sr_mmap_insert(udata, qp->sendq,
				     qp->num_sqe * sizeof(*qp->sendq),
				     &qp->sq_entry);
	if (resp.sq_key == SIW_INVAL_UOBJ_KEY)
		return -ENOMEM;
	if (qp->recvq) {
		resp.rq_key = sr_mmap_insert(udata, qp->recvq,
					     qp->num_rqe * sizeof(*qp->recvq),
					     &qp->rq_entry);
		if (resp.rq_key == SIW_INVAL_UOBJ_KEY)
			return -ENOMEM;
	}
	return ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
}

int sr_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		 struct ib_udata *udata)
{
	struct sr_dev *sdev = to_sr_dev(ibqp->device);
	struct sr_qp *qp = to_sr_qp(ibqp);
	u32 qpn;
	int ret;

	ret = sr_qp_check_caps(attr);
	if (ret)
		return ret;
	if (atomic_inc_return(&sdev->num_qp) > SR_MAX_QP) {
		ret = -ENOMEM;
		goto out_count;
	}

	qp->sdev = sdev;
	kref_init(&qp->ref);
	init_completion(&qp->freed);
	mutex_init(&qp->modify_lock);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->state = IB_QPS_RESET;
	qp->kernel = !udata;
	qp->sq_sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_sr_cq(attr->send_cq);
	qp->rcq = to_sr_cq(attr->recv_cq);
	qp->srq = attr->srq ? to_sr_srq(attr->srq) : NULL;
	qp->max_inline = SIW_MAX_INLINE;

	qp->num_sqe = roundup_pow_of_two(max(attr->cap.max_send_wr, 1U));
	qp->sendq = sr_ring_alloc(qp->num_sqe * sizeof(*qp->sendq),
				  udata);
	if (!qp->sendq) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (!qp->srq) {
		qp->num_rqe = roundup_pow_of_two(max(attr->cap.max_recv_wr,
						     1U));
		qp->recvq = sr_ring_alloc(qp->num_rqe * sizeof(*qp->recvq),
					  udata);
		if (!qp->recvq) {
			ret = -ENOMEM;
			goto out_free;
		}
	}

	ret = xa_alloc(&sdev->qp_xa, &qpn, qp, XA_LIMIT(1, SR_MAX_QP * 4),
		       GFP_KERNEL);
	if (ret)
		goto out_free;
	ibqp->qp_num = qpn;

	if (udata) {
		ret = sr_qp_user_resp(qp, udata);
		if (ret)
			goto out_xa;
	}

	attr->cap.max_send_wr = qp->num_sqe;
	attr->cap.max_recv_wr = qp->num_rqe;
	attr->cap.max_send_sge = SIW_MAX_SGE;
	attr->cap.max_recv_sge = SIW_MAX_SGE;
	attr->cap.max_inline_data = qp->max_inline;
	return 0;

out_xa:
	xa_erase(&sdev->qp_xa, qpn);
out_free:
	sr_qp_free_rings(qp);
out_count:
	atomic_dec(&sdev->num_qp);
	return ret;
}

static void sr_qp_event(struct sr_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

void sr_qp_to_error(struct sr_qp *qp, enum ib_event_type event)
{
	enum ib_qp_state old;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	old = qp->state;
	qp->state = IB_QPS_ERR;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (old != IB_QPS_ERR && event)
		sr_qp_event(qp, event);
	sr_qp_flush(qp);
	/* Nothing more is taken from the SRQ for this QP. */
	if (old != IB_QPS_ERR && qp->srq)
		sr_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}
EXPORT_SYMBOL_IF_KUNIT(sr_qp_to_error);

static void sr_qp_set_state(struct sr_qp *qp, enum ib_qp_state state)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	qp->state = state;
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

/* Whether modify_qp may move the QP from @cur to @next. */
VISIBLE_IF_KUNIT bool sr_qp_transition_ok(enum ib_qp_state cur,
					  enum ib_qp_state next, bool conn)
{
	switch (next) {
	case IB_QPS_RESET:
		return !conn;
	case IB_QPS_INIT:
		return cur == IB_QPS_RESET || cur == IB_QPS_INIT;
	case IB_QPS_RTR:
		return cur == IB_QPS_INIT || cur == IB_QPS_RTR;
	case IB_QPS_RTS:	/* only the hand-off goes to RTS */
		return cur == IB_QPS_RTS;
	case IB_QPS_SQD:
		/*
		 * From ERR too: librdmacm's rdma_disconnect() moves an iWARP
		 * QP to SQD before it asks the CM, also when the peer has
		 * already ended the connection (the QP is in ERR then). As
		 * siw, take it and stay in ERR.
		 */
		return cur == IB_QPS_RTS || cur == IB_QPS_SQD ||
		       cur == IB_QPS_ERR;
	case IB_QPS_ERR:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sr_qp_transition_ok);

static int sr_qp_modify_state(struct sr_qp *qp, enum ib_qp_state next)
{
	enum ib_qp_state cur = READ_ONCE(qp->state);

	lockdep_assert_held(&qp->modify_lock);
	if (!sr_qp_transition_ok(cur, next, qp->conn))
		return -EINVAL;
	if (cur == next || (cur == IB_QPS_ERR && next == IB_QPS_SQD))
		return 0;
	switch (next) {
	case IB_QPS_SQD:
		sr_conn_close(qp, false);
		sr_qp_set_state(qp, next);
		break;
	case IB_QPS_ERR:
		if (qp->conn && cur != IB_QPS_ERR)
			sr_conn_close(qp, true);
		sr_qp_to_error(qp, 0);
		break;
	default:
		sr_qp_set_state(qp, next);
		break;
	}
	return 0;
}

int sr_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_udata *udata)
{
	struct sr_qp *qp = to_sr_qp(ibqp);
	int ret = 0;

	if (mask & ~(IB_QP_STATE | IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS |
		     IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_MAX_QP_RD_ATOMIC |
		     IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_EN_SQD_ASYNC_NOTIFY))
		return -EOPNOTSUPP;
	if (((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	     attr->max_rd_atomic > SR_MAX_ORD) ||
	    ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	     attr->max_dest_rd_atomic > SR_MAX_IRD) ||
	    ((mask & IB_QP_PORT) && attr->port_num != 1))
		return -EINVAL;

	mutex_lock(&qp->modify_lock);
	if (mask & IB_QP_STATE)
		ret = sr_qp_modify_state(qp, attr->qp_state);
	if (!ret && (mask & IB_QP_MAX_QP_RD_ATOMIC))
		qp->ord = attr->max_rd_atomic;
	if (!ret && (mask & IB_QP_MAX_DEST_RD_ATOMIC))
		qp->ird = attr->max_dest_rd_atomic;
	mutex_unlock(&qp->modify_lock);
	return ret;
}

int sr_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		struct ib_qp_init_attr *init)
{
	struct sr_qp *qp = to_sr_qp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = ib_mtu_int_to_enum(READ_ONCE(qp->sdev->netdev->mtu));
	attr->qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
				IB_ACCESS_REMOTE_READ;
	attr->cap.max_send_wr = qp->num_sqe;
	attr->cap.max_recv_wr = qp->num_rqe;
	attr->cap.max_send_sge = SIW_MAX_SGE;
	attr->cap.max_recv_sge = SIW_MAX_SGE;
	attr->cap.max_inline_data = qp->max_inline;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	attr->port_num = 1;

	init->qp_type = IB_QPT_RC;
	init->send_cq = &qp->scq->ibcq;
	init->recv_cq = &qp->rcq->ibcq;
	init->srq = qp->srq ? &qp->srq->ibsrq : NULL;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	return 0;
}

int sr_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sr_qp *qp = to_sr_qp(ibqp);
	struct sr_dev *sdev = qp->sdev;

	mutex_lock(&qp->modify_lock);
	if (qp->conn) {
		if (READ_ONCE(qp->state) != IB_QPS_ERR)
			sr_conn_close(qp, true);
		sr_qp_set_state(qp, IB_QPS_ERR);
		sr_conn_destroy(qp);
	}
	/* No flush on destroy: the consumer asked for no more completions. */
	sr_qp_set_state(qp, IB_QPS_ERR);
	mutex_unlock(&qp->modify_lock);

	xa_erase(&sdev->qp_xa, ibqp->qp_num);
	/* iw_cm lets go when the connection's CLOSE has been delivered. */
	sr_qp_put(qp);
	wait_for_completion(&qp->freed);
	sr_qp_free_rings(qp);
	atomic_dec(&sdev->num_qp);
	return 0;
}

/* iw_cm's host CM hands over a connected socket: the QP goes to RTS. */
int sr_host_attach(struct ib_qp *ibqp, struct socket *sock,
		   const struct orcm_iw_mpa_params *params,
		   struct orcm_iw_conn *conn)
{
	struct sr_qp *qp = to_sr_qp(ibqp);
	enum ib_qp_state state;
	int ret;

	if (params->ird > SR_MAX_IRD || params->ord > SR_MAX_ORD)
		return -EINVAL;
	mutex_lock(&qp->modify_lock);
	state = READ_ONCE(qp->state);
	if (qp->conn) {
		ret = -EBUSY;
	} else if (state != IB_QPS_INIT && state != IB_QPS_RTR) {
		ret = -EINVAL;
	} else {
		qp->ird = params->ird;
		qp->ord = params->ord;
		ret = sr_conn_attach(qp, sock, params, conn);
		if (!ret)
			sr_qp_set_state(qp, IB_QPS_RTS);
	}
	mutex_unlock(&qp->modify_lock);
	if (!ret)
		sr_tx_kick(qp);
	return ret;
}
