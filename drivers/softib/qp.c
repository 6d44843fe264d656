// SPDX-License-Identifier: GPL-2.0
/*
 * softib: what rdmavt asks of a driver for its QPs, AHs and send queue.
 * Sends run on the device's workqueue, one work item per QP (a work item
 * never runs concurrently with itself, so a QP's send engine is single
 * threaded without RVT_S_BUSY): ud.c's engine for UD, SMI and GSI QPs,
 * rc.c's for RC. UC QPs are refused (-EOPNOTSUPP).
 */
#include "softib.h"
#include "wire.h"

static void softib_send_work(struct work_struct *work)
{
	struct softib_qp_priv *priv =
		container_of(work, struct softib_qp_priv, send_work);

	if (priv->qp->ibqp.qp_type == IB_QPT_RC)
		softib_rc_send(priv->qp);
	else
		softib_ud_send(priv->qp);
}

/*
 * Affiliated asynchronous events that the receive path raises (softirq,
 * r_lock held) reach the QP's handler from a work item, in a task: a ULP's
 * handler may take locks that are never taken in interrupt context. The
 * in-tree ib_cm's answer to ib_cm_notify(COMM_EST), for one, nests an
 * xarray lock that is taken with interrupts on, and lockdep reports the
 * inversion if COMM_EST comes from a softirq. rxe's responder, too, raises
 * its events from a task.
 */
enum {
	SOFTIB_QP_EV_COMM_EST,
	SOFTIB_QP_EV_LAST_WQE,
};

static void softib_event_work(struct work_struct *work)
{
	struct softib_qp_priv *priv =
		container_of(work, struct softib_qp_priv, event_work);
	struct rvt_qp *qp = priv->qp;
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
	};

	if (!qp->ibqp.event_handler)
		return;
	if (test_and_clear_bit(SOFTIB_QP_EV_COMM_EST, &priv->events)) {
		ev.event = IB_EVENT_COMM_EST;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	if (test_and_clear_bit(SOFTIB_QP_EV_LAST_WQE, &priv->events)) {
		ev.event = IB_EVENT_QP_LAST_WQE_REACHED;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
}

/* priv's event work, before the QP can receive (KUnit's mock QPs too). */
void softib_qp_events_init(struct softib_qp_priv *priv)
{
	INIT_WORK(&priv->event_work, softib_event_work);
	priv->events = 0;
}
EXPORT_SYMBOL_IF_KUNIT(softib_qp_events_init);

static void softib_qp_event(struct rvt_qp *qp, int bit)
{
	struct softib_qp_priv *priv = qp->priv;
	struct softib_dev *sdev = rdi_to_sdev(ib_to_rvt(qp->ibqp.device));

	if (!test_and_set_bit(bit, &priv->events))
		queue_work(sdev->wq, &priv->event_work);
}

/**
 * softib_qp_comm_est - the first packet of a QP in RTR: COMM_EST, once
 * @qp: the QP (r_lock held)
 *
 * What rvt_comm_est() does, with the event delivered from a task; again
 * only after the QP is moved to RTR anew (rdmavt clears the flag then).
 */
void softib_qp_comm_est(struct rvt_qp *qp)
{
	lockdep_assert_held(&qp->r_lock);
	if (qp->r_flags & RVT_R_COMM_EST)
		return;
	qp->r_flags |= RVT_R_COMM_EST;
	softib_qp_event(qp, SOFTIB_QP_EV_COMM_EST);
}

/**
 * softib_qp_error - the QP goes to the error state (rvt_error_qp())
 * @qp: the QP (r_lock and s_lock held)
 * @status: the status the flushed receive WQEs complete with
 *
 * And, as rvt_rc_error() does, LAST_WQE_REACHED if it is on an SRQ, from
 * a task.
 */
void softib_qp_error(struct rvt_qp *qp, enum ib_wc_status status)
{
	lockdep_assert_held(&qp->r_lock);
	lockdep_assert_held(&qp->s_lock);
	if (rvt_error_qp(qp, status))
		softib_qp_event(qp, SOFTIB_QP_EV_LAST_WQE);
}
EXPORT_SYMBOL_IF_KUNIT(softib_qp_error);

/* From the receive path and the engine itself: no state check. */
void softib_queue_send(struct rvt_qp *qp)
{
	struct softib_qp_priv *priv = qp->priv;
	struct softib_dev *sdev = rdi_to_sdev(ib_to_rvt(qp->ibqp.device));

	queue_work(sdev->wq, &priv->send_work);
}

static void *softib_qp_priv_alloc(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	struct softib_qp_priv *priv;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_SMI:
	case IB_QPT_GSI:
	case IB_QPT_UD:
	case IB_QPT_RC:
		break;
	default:
		return ERR_PTR(-EOPNOTSUPP);
	}
	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	priv->qp = qp;
	INIT_WORK(&priv->send_work, softib_send_work);
	softib_qp_events_init(priv);
	return priv;
}

static void softib_qp_priv_free(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	struct softib_qp_priv *priv = qp->priv;

	cancel_work_sync(&priv->send_work);
	/* events of a QP being destroyed are not delivered */
	cancel_work_sync(&priv->event_work);
	kfree(priv);
}

/* Called with s_lock held: only queue the work. */
static bool softib_schedule_send(struct rvt_qp *qp)
{
	struct softib_qp_priv *priv = qp->priv;
	struct softib_dev *sdev = rdi_to_sdev(ib_to_rvt(qp->ibqp.device));

	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_OR_FLUSH_SEND))
		return false;
	return queue_work(sdev->wq, &priv->send_work);
}

static void softib_do_send(struct rvt_qp *qp)
{
	softib_schedule_send(qp);
}

static void softib_notify_qp_reset(struct rvt_qp *qp)
{
	softib_rc_reset(qp);
}

static void softib_flush_qp_waiters(struct rvt_qp *qp)
{
}

/* No locks held (rvt_reset_qp drops them first). */
static void softib_stop_send_queue(struct rvt_qp *qp)
{
	struct softib_qp_priv *priv = qp->priv;

	cancel_work_sync(&priv->send_work);
}

static void softib_quiesce_qp(struct rvt_qp *qp)
{
	struct softib_qp_priv *priv = qp->priv;

	flush_work(&priv->send_work);
}

/* rvt_error_qp() schedules the send engine, which flushes the SQ. */
static void softib_notify_error_qp(struct rvt_qp *qp)
{
}

/* The retry timer fired (rvt_rc_timeout): r_lock and s_lock held. */
static void softib_notify_restart_rc(struct rvt_qp *qp, u32 psn, int wait)
{
	softib_rc_restart(qp, psn, wait);
}

static int softib_get_pmtu_from_attr(struct rvt_dev_info *rdi,
				     struct rvt_qp *qp,
				     struct ib_qp_attr *attr)
{
	return min_t(int, attr->path_mtu, softib_max_mtu(rdi_to_sdev(rdi)));
}

static u32 softib_mtu_from_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			      u32 pmtu)
{
	return ib_mtu_enum_to_int(pmtu);
}

static int softib_mtu_to_path_mtu(u32 mtu)
{
	return ib_mtu_int_to_enum(mtu);
}

/* QP0 and QP1 the MAD layer has not destroyed yet. */
static unsigned int softib_free_all_qps(struct rvt_dev_info *rdi)
{
	struct softib_dev *sdev = rdi_to_sdev(rdi);
	unsigned int n = 0;

	if (rcu_access_pointer(sdev->port.rvp.qp[0]))
		n++;
	if (rcu_access_pointer(sdev->port.rvp.qp[1]))
		n++;
	return n;
}

static int softib_check_ah(struct ib_device *ibdev, struct rdma_ah_attr *ah)
{
	u32 dlid = rdma_ah_get_dlid(ah);

	if (rdma_ah_get_sl(ah) > 15)
		return -EINVAL;
	if (softib_lid_is_mcast(dlid) &&
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	return 0;
}

static void softib_notify_new_ah(struct ib_device *ibdev,
				 struct rdma_ah_attr *attr, struct rvt_ah *ah)
{
	struct softib_dev *sdev = to_sdev(ibdev);

	ah->log_pmtu = ilog2(ib_mtu_enum_to_int(softib_active_mtu(&sdev->port)));
}

/* A UD send is one packet: no longer than the AH's path MTU. */
static int softib_setup_wqe(struct rvt_qp *qp, struct rvt_swqe *wqe,
			    bool *call_send)
{
	struct rvt_ah *ah;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_SMI:
	case IB_QPT_GSI:
	case IB_QPT_UD:
		ah = rvt_get_swqe_ah(wqe);
		if (wqe->length > (1U << ah->log_pmtu))
			return -EINVAL;
		break;
	default:
		break;
	}
	return 0;
}

void softib_qp_init_driver_f(struct rvt_driver_provided *f)
{
	f->schedule_send = softib_schedule_send;
	f->schedule_send_no_lock = softib_schedule_send;
	f->do_send = softib_do_send;
	f->setup_wqe = softib_setup_wqe;
	f->qp_priv_alloc = softib_qp_priv_alloc;
	f->qp_priv_free = softib_qp_priv_free;
	f->notify_qp_reset = softib_notify_qp_reset;
	f->flush_qp_waiters = softib_flush_qp_waiters;
	f->stop_send_queue = softib_stop_send_queue;
	f->quiesce_qp = softib_quiesce_qp;
	f->notify_error_qp = softib_notify_error_qp;
	f->notify_restart_rc = softib_notify_restart_rc;
	f->get_pmtu_from_attr = softib_get_pmtu_from_attr;
	f->mtu_from_qp = softib_mtu_from_qp;
	f->mtu_to_path_mtu = softib_mtu_to_path_mtu;
	f->free_all_qps = softib_free_all_qps;
	f->check_ah = softib_check_ah;
	f->notify_new_ah = softib_notify_new_ah;
}
