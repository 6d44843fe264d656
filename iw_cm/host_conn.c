// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm: one host-stack connection, from the TCP handshake
 * through the MPA exchange to the driver's ->attach(), and the events it
 * owes iw_cm afterwards.
 *
 * Everything runs in the connection's work item on hcm_wq (never in the
 * caller of iw_cm_connect(): the connect is non-blocking and the socket
 * callbacks only queue the work); iw_accept() and iw_reject() run in their
 * caller, after taking the connection over from HCM_REQ_DELIVERED under
 * conn->lock. Sockets are read with MSG_DONTWAIT, exactly up to the end of
 * the MPA frame, so that the driver gets the stream at its first FPDU.
 *
 *   active:  CONNECTING --TCP up--> REQ_SENT --reply--> ATTACHED
 *   passive: REQ_WAIT --request--> REQ_DELIVERED --accept--> ACCEPTING
 *            --> ATTACHED (--reject--> DEAD)
 *   any failure before ATTACHED --> DEAD
 *
 * Events, in order, from the work only: CONNECT_REPLY (active) or
 * ESTABLISHED (passive: at once, or after the peer-to-peer RTR), then
 * DISCONNECT, then CLOSE. A passive connection that dies before its RTR
 * gets ESTABLISHED with a negative status and nothing after; one whose RTR
 * does not come within rtr_timeout_ms is made to die (QP to ERR: the
 * driver resets the connection), and gets ESTABLISHED with -ETIMEDOUT.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/minmax.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp_states.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "host.h"
#include "iwcm.h"

/* Connections allocated and not yet freed (KUnit: none may linger). */
atomic_t hcm_conns_live = ATOMIC_INIT(0);
EXPORT_SYMBOL_IF_KUNIT(hcm_conns_live);

static void hcm_conn_free(struct kref *kref)
{
	struct orcm_iw_conn *conn = container_of(kref, struct orcm_iw_conn,
						 kref);

	WARN_ON_ONCE(conn->sock);
	WARN_ON_ONCE(conn->cm_id);
	kfree(conn);
	atomic_dec(&hcm_conns_live);
}

void hcm_conn_put(struct orcm_iw_conn *conn)
{
	kref_put(&conn->kref, hcm_conn_free);
}

/* Run the machine. Any context; the queued work holds a reference. */
void hcm_conn_queue(struct orcm_iw_conn *conn)
{
	kref_get(&conn->kref);
	if (!queue_work(hcm_wq, &conn->work))
		hcm_conn_put(conn);
}

static void hcm_conn_disarm(struct orcm_iw_conn *conn)
{
	if (cancel_delayed_work(&conn->timer))
		hcm_conn_put(conn);
}

/* (Re)start the phase timeout. Called by the connection's owner. */
void hcm_conn_arm(struct orcm_iw_conn *conn, unsigned int ms)
{
	hcm_conn_disarm(conn);
	kref_get(&conn->kref);
	if (!queue_delayed_work(hcm_wq, &conn->timer,
				msecs_to_jiffies(max(ms, 1u))))
		hcm_conn_put(conn);
}

/*
 * Start phase @dl's deadline, as the connection's namespace sets it; the
 * owner calls it while the connection holds its socket (not after
 * ->attach() handed it to the driver).
 */
static void hcm_conn_arm_dl(struct orcm_iw_conn *conn, enum hcm_deadline dl)
{
	hcm_conn_arm(conn, hcm_deadline_ms(sock_net(conn->sock->sk), dl));
}

static void hcm_conn_timer_fn(struct work_struct *work)
{
	struct orcm_iw_conn *conn = container_of(to_delayed_work(work),
						 struct orcm_iw_conn, timer);
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	conn->timed_out = true;
	spin_unlock_irqrestore(&conn->lock, flags);
	hcm_conn_queue(conn);
	hcm_conn_put(conn);		/* the timer's */
}

/* ---- socket callbacks: only queue the work ---- */

static void hcm_sk_state_change(struct sock *sk)
{
	struct orcm_iw_conn *conn;

	read_lock_bh(&sk->sk_callback_lock);
	conn = sk->sk_user_data;
	if (conn)
		hcm_conn_queue(conn);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void hcm_sk_data_ready(struct sock *sk)
{
	hcm_sk_state_change(sk);
}

void hcm_sock_attach(struct orcm_iw_conn *conn)
{
	struct sock *sk = conn->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	conn->saved_state_change = sk->sk_state_change;
	conn->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = conn;
	sk->sk_state_change = hcm_sk_state_change;
	sk->sk_data_ready = hcm_sk_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* Give the socket its own callbacks back; none of ours runs afterwards. */
static void hcm_sock_detach(struct orcm_iw_conn *conn)
{
	struct sock *sk = conn->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == conn) {
		sk->sk_user_data = NULL;
		sk->sk_state_change = conn->saved_state_change;
		sk->sk_data_ready = conn->saved_data_ready;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

static void hcm_sock_close(struct orcm_iw_conn *conn)
{
	if (!conn->sock)
		return;
	hcm_sock_detach(conn);
	sock_release(conn->sock);
	conn->sock = NULL;
}

/* ---- frames ---- */

static int hcm_send(struct orcm_iw_conn *conn, const struct orcm_mpa_frame *f)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kvec vec;
	int len, ret;

	len = orcm_mpa_encode(f, conn->buf, sizeof(conn->buf));
	if (len < 0)
		return len;
	vec.iov_base = conn->buf;
	vec.iov_len = len;
	/* A fresh connection's send buffer always takes 532 bytes. */
	ret = kernel_sendmsg(conn->sock, &msg, &vec, 1, len);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -EAGAIN;
}

/*
 * Read what is there of the frame, never beyond its end. Return: 1 with
 * the frame decoded into @f, 0 for more to come, or an errno (-ECONNRESET
 * when the peer closed, a decoder error for a bad frame).
 */
static int hcm_read_frame(struct orcm_iw_conn *conn, bool request,
			  struct orcm_mpa_frame *f)
{
	struct msghdr msg = {};
	struct kvec vec;
	size_t need;
	int ret;

	for (;;) {
		need = conn->have < ORCM_MPA_HDR_LEN ? ORCM_MPA_HDR_LEN :
						       conn->need;
		if (conn->have >= ORCM_MPA_HDR_LEN && conn->have == need)
			break;
		vec.iov_base = conn->buf + conn->have;
		vec.iov_len = need - conn->have;
		ret = kernel_recvmsg(conn->sock, &msg, &vec, 1, vec.iov_len,
				     MSG_DONTWAIT);
		if (ret == -EAGAIN)
			return 0;
		if (ret < 0)
			return ret;
		if (!ret)
			return -ECONNRESET;
		conn->have += ret;
		if (conn->have == ORCM_MPA_HDR_LEN) {
			ret = orcm_mpa_hdr_check(conn->buf, conn->have,
						 request);
			if (ret < 0)
				return ret;
			conn->need = ret;
		}
	}
	ret = orcm_mpa_decode(conn->buf, conn->have, request, f);
	return ret < 0 ? ret : 1;
}

/* ---- events to iw_cm ---- */

static void hcm_event_init(struct orcm_iw_conn *conn, struct iw_cm_event *ev,
			   enum iw_cm_event_type type, int status)
{
	memset(ev, 0, sizeof(*ev));
	ev->event = type;
	ev->status = status;
	ev->local_addr = conn->laddr;
	ev->remote_addr = conn->raddr;
}

/* Private data for an event: iw_cm_event carries at most a u8 of it. */
static void hcm_event_pd(struct iw_cm_event *ev, const u8 *pd, u16 len)
{
	ev->private_data = len ? (void *)pd : NULL;
	ev->private_data_len = min_t(u16, len, U8_MAX);
}

static void hcm_addrs(struct orcm_iw_conn *conn)
{
	memset(&conn->laddr, 0, sizeof(conn->laddr));
	memset(&conn->raddr, 0, sizeof(conn->raddr));
	kernel_getsockname(conn->sock, (struct sockaddr *)&conn->laddr);
	kernel_getpeername(conn->sock, (struct sockaddr *)&conn->raddr);
}

/* Drop the event target's reference: no event follows. */
static void hcm_conn_drop_id(struct orcm_iw_conn *conn)
{
	struct iw_cm_id *cm_id;
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	cm_id = conn->cm_id;
	conn->cm_id = NULL;
	spin_unlock_irqrestore(&conn->lock, flags);
	if (cm_id)
		cm_id->rem_ref(cm_id);
}

/*
 * Leave the listener's half-open set (passive), dropping its reference.
 * Two owners can get here for one connection: the work after the
 * CONNECT_REQUEST upcall, and the child's owner rejecting (or failing an
 * accept) as soon as the upcall is made. The pointer is taken exactly
 * once, so exactly one of them puts the reference.
 */
static void hcm_conn_leave_listener(struct orcm_iw_conn *conn)
{
	struct hcm_listener *lis = xchg(&conn->lis, NULL);

	if (!lis)
		return;
	spin_lock_bh(&lis->lock);
	if (!list_empty(&conn->lis_entry)) {
		list_del_init(&conn->lis_entry);
		lis->nr_half_open--;
	}
	spin_unlock_bh(&lis->lock);
	hcm_race_window(conn, HCM_RACE_LEAVE_LISTENER);
	hcm_listener_put(lis);
}

/*
 * The connection failed before ATTACHED (its owner calls this): close the
 * socket, tell an initiator's id with CONNECT_REPLY(@status, reject data
 * @pd), and end the machine.
 */
static void hcm_conn_fail(struct orcm_iw_conn *conn, int status,
			  const u8 *pd, u16 pd_len)
{
	struct iw_cm_event ev;
	unsigned long flags;

	hcm_conn_disarm(conn);
	spin_lock_irqsave(&conn->lock, flags);
	conn->state = HCM_DEAD;
	spin_unlock_irqrestore(&conn->lock, flags);
	hcm_sock_close(conn);
	hcm_conn_leave_listener(conn);
	if (conn->initiator && conn->cm_id) {
		hcm_event_init(conn, &ev, IW_CM_EVENT_CONNECT_REPLY, status);
		hcm_event_pd(&ev, pd, pd_len);
		conn->cm_id->event_handler(conn->cm_id, &ev);
	}
	hcm_conn_drop_id(conn);
	hcm_conn_put(conn);		/* the machine's */
}

/*
 * After ATTACHED: deliver what the driver's upcalls have made due, in
 * order, then end the machine once CLOSE (or a failed ESTABLISHED) went.
 */
static void hcm_conn_deliver(struct orcm_iw_conn *conn, bool timed_out)
{
	struct iw_cm_event ev;
	struct iw_cm_id *cm_id;
	unsigned long flags;
	bool last = false;

	/*
	 * A responder still without its RTR: the peer is not coming. The
	 * driver owns the socket, so it is asked to reset the connection;
	 * its orcm_iw_conn_released() then ends the wait below.
	 */
	if (timed_out) {
		spin_lock_irqsave(&conn->lock, flags);
		timed_out = !conn->initiator && conn->params.p2p &&
			    !conn->est_sent && !conn->released &&
			    !conn->rtr_expired;
		if (timed_out)
			conn->rtr_expired = true;
		spin_unlock_irqrestore(&conn->lock, flags);
		if (timed_out)
			iwcm_modify_qp_state(conn->qp, IB_QPS_ERR);
	}

	for (;;) {
		spin_lock_irqsave(&conn->lock, flags);
		cm_id = conn->cm_id;
		if (!cm_id) {
			spin_unlock_irqrestore(&conn->lock, flags);
			return;
		}
		if (!conn->est_sent &&
		    (conn->initiator || !conn->params.p2p || conn->rtr)) {
			conn->est_sent = true;
			hcm_event_init(conn, &ev, conn->initiator ?
				       IW_CM_EVENT_CONNECT_REPLY :
				       IW_CM_EVENT_ESTABLISHED, 0);
			ev.ird = conn->params.ird;
			ev.ord = conn->params.ord;
			if (conn->initiator)
				hcm_event_pd(&ev, conn->rep.pd,
					     conn->rep.pd_len);
			else if (conn->params.p2p)
				hcm_conn_disarm(conn);	/* the RTR came */
		} else if (!conn->est_sent && conn->released) {
			/* The responder's connection died before its RTR. */
			conn->est_sent = true;
			hcm_event_init(conn, &ev, IW_CM_EVENT_ESTABLISHED,
				       conn->rtr_expired ? -ETIMEDOUT :
				       conn->release_status ?: -ECONNRESET);
			last = true;
		} else if (!conn->est_sent) {
			spin_unlock_irqrestore(&conn->lock, flags);
			return;		/* awaiting the RTR */
		} else if (conn->peer_closed && !conn->disc_sent) {
			conn->disc_sent = true;
			hcm_event_init(conn, &ev, IW_CM_EVENT_DISCONNECT, 0);
		} else if (conn->released) {
			hcm_event_init(conn, &ev, IW_CM_EVENT_CLOSE,
				       conn->release_status);
			last = true;
		} else {
			spin_unlock_irqrestore(&conn->lock, flags);
			return;
		}
		if (last)
			conn->cm_id = NULL;
		spin_unlock_irqrestore(&conn->lock, flags);

		cm_id->event_handler(cm_id, &ev);
		if (last) {
			/*
			 * A responder that died before its RTR still has the
			 * RTR timer armed: a timer outliving the machine would
			 * fire into hcm_wq, gone once iw_cm is unloaded.
			 */
			hcm_conn_disarm(conn);
			cm_id->rem_ref(cm_id);
			hcm_conn_put(conn);	/* the machine's */
			return;
		}
	}
}

/* Hand the socket to the driver. On error the socket is still ours. */
static int hcm_conn_attach(struct orcm_iw_conn *conn)
{
	unsigned long flags;
	int ret;

	hcm_conn_disarm(conn);
	hcm_sock_detach(conn);
	ret = conn->ops->attach(conn->qp, conn->sock, &conn->params, conn);
	if (ret)
		return ret;
	spin_lock_irqsave(&conn->lock, flags);
	conn->sock = NULL;
	conn->state = HCM_ATTACHED;
	spin_unlock_irqrestore(&conn->lock, flags);
	return 0;
}

/* ---- active side ---- */

/* CONNECTING: TCP is up (send the request), failed, or still going. */
static void hcm_active_connecting(struct orcm_iw_conn *conn, bool timed_out)
{
	struct sock *sk = conn->sock->sk;
	int err;

	switch (READ_ONCE(sk->sk_state)) {
	case TCP_ESTABLISHED:
		break;
	case TCP_SYN_SENT:
		if (timed_out)
			hcm_conn_fail(conn, -ETIMEDOUT, NULL, 0);
		return;
	default:
		err = sock_error(sk) ?: -ECONNREFUSED;
		hcm_conn_fail(conn, err == -ETIMEDOUT ? -ETIMEDOUT :
				    -ECONNREFUSED, NULL, 0);
		return;
	}
	hcm_addrs(conn);
	err = hcm_send(conn, &conn->req);
	if (err) {
		hcm_conn_fail(conn, -ECONNRESET, NULL, 0);
		return;
	}
	spin_lock_irq(&conn->lock);
	conn->state = HCM_REQ_SENT;
	spin_unlock_irq(&conn->lock);
	hcm_conn_arm_dl(conn, HCM_DL_MPA_REP);
	/* The reply may be in already. */
	hcm_conn_queue(conn);
}

static void hcm_active_reply(struct orcm_iw_conn *conn, bool timed_out)
{
	int ret;

	ret = hcm_read_frame(conn, false, &conn->rep);
	if (!ret) {
		if (timed_out)
			hcm_conn_fail(conn, -ETIMEDOUT, NULL, 0);
		return;
	}
	if (ret < 0) {
		pr_debug("conn %p: bad or no MPA reply: %d\n", conn, ret);
		hcm_conn_fail(conn, -ECONNRESET, NULL, 0);
		return;
	}
	ret = orcm_mpa_complete(&conn->req, &conn->rep, &conn->params);
	if (ret == -ECONNREFUSED) {
		hcm_conn_fail(conn, -ECONNREFUSED, conn->rep.pd,
			      conn->rep.pd_len);
		return;
	}
	if (ret || hcm_conn_attach(conn)) {
		hcm_conn_fail(conn, -ECONNRESET, NULL, 0);
		return;
	}
	hcm_conn_deliver(conn, false);
}

/**
 * hcm_conn_connect - start an active connection (iw_connect)
 * @conn: a new initiator connection
 * @cm_id: the id; its QP is @param->qpn
 * @param: private data, IRD/ORD
 * @net: namespace of the socket
 *
 * Does not wait for TCP: the connect is non-blocking, the rest runs in
 * the work. Return: 0 (CONNECT_REPLY follows) or an errno (nothing
 * follows; @conn is freed).
 */
int hcm_conn_connect(struct orcm_iw_conn *conn, struct iw_cm_id *cm_id,
		     struct iw_cm_conn_param *param, struct net *net)
{
	/* The mapped addresses: the id's own unless the port mapper mapped it. */
	struct sockaddr_storage *laddr = &cm_id->m_local_addr;
	struct sockaddr_storage *raddr = &cm_id->m_remote_addr;
	struct orcm_mpa_local loc = {};
	struct sockaddr_in *sin;
	struct sockaddr_in6 *sin6;
	bool bind = false;
	int ret;

	conn->qp = conn->dev->ops.iw_get_qp(conn->dev, param->qpn);
	if (!conn->qp) {
		ret = -EINVAL;
		goto out_free;
	}
	loc.rev = READ_ONCE(hcm_mpa_rev);
	loc.crc = READ_ONCE(hcm_crc);
	loc.markers = READ_ONCE(hcm_markers);
	loc.p2p = READ_ONCE(hcm_peer2peer);
	loc.rtr = ORCM_RTR_BIT(READ_ONCE(hcm_p2p_type));
	loc.ird = min_t(u32, param->ird, ORCM_MPA_IRD_ORD_MAX);
	loc.ord = min_t(u32, param->ord, ORCM_MPA_IRD_ORD_MAX);
	if (param->private_data_len +
	    (loc.rev == 1 ? 0 : ORCM_MPA_V2_WORDS) > ORCM_MPA_PD_MAX) {
		ret = -EINVAL;
		goto out_free;
	}
	memcpy(conn->pd, param->private_data, param->private_data_len);
	orcm_mpa_make_request(&loc, conn->pd, param->private_data_len,
			      &conn->req);

	ret = hcm_sock_create(net, raddr->ss_family, &conn->sock);
	if (ret)
		goto out_free;
	if (laddr->ss_family == AF_INET) {
		sin = (struct sockaddr_in *)laddr;
		bind = sin->sin_addr.s_addr != htonl(INADDR_ANY) ||
		       sin->sin_port;
	} else if (laddr->ss_family == AF_INET6) {
		sin6 = (struct sockaddr_in6 *)laddr;
		bind = !ipv6_addr_any(&sin6->sin6_addr) || sin6->sin6_port;
	}
	if (bind) {
		hcm_sock_share_mapped(conn->sock, cm_id);
		ret = kernel_bind(conn->sock, (struct sockaddr *)laddr,
				  sizeof(*laddr));
		hcm_sock_unshare(conn->sock);
		if (ret)
			goto out_sock;
	}
	ret = kernel_connect(conn->sock, (struct sockaddr *)raddr,
			     sizeof(*raddr), O_NONBLOCK);
	if (ret && ret != -EINPROGRESS)
		goto out_sock;

	cm_id->add_ref(cm_id);
	conn->cm_id = cm_id;
	cm_id->provider_data = conn;
	conn->state = HCM_CONNECTING;
	hcm_sock_attach(conn);
	hcm_conn_arm_dl(conn, HCM_DL_CONNECT);
	hcm_conn_queue(conn);
	return 0;

out_sock:
	sock_release(conn->sock);
	conn->sock = NULL;
out_free:
	hcm_conn_put(conn);
	return ret;
}

/* ---- passive side ---- */

/* Start reading the request of a connection a listener accepted. */
void hcm_conn_passive_start(struct orcm_iw_conn *conn,
			    struct hcm_listener *lis, struct socket *sock)
{
	conn->lis = lis;		/* the caller's listener reference */
	conn->sock = sock;
	conn->state = HCM_REQ_WAIT;
	hcm_addrs(conn);
	hcm_sock_attach(conn);
	hcm_conn_arm_dl(conn, HCM_DL_MPA_REQ);
	hcm_conn_queue(conn);
}

/* IRD/ORD of the CONNECT_REQUEST: the peer's, or, revision 1, ours. */
static void hcm_request_ird_ord(struct orcm_iw_conn *conn,
				struct iw_cm_event *ev)
{
	if (conn->req.rev == 2) {
		ev->ird = conn->req.ird;
		ev->ord = conn->req.ord;
		return;
	}
	ev->ird = conn->dev->attrs.max_qp_rd_atom;
	ev->ord = conn->dev->attrs.max_qp_init_rd_atom;
}

/* The request is in: hand it to the listener's id. */
static void hcm_passive_deliver(struct orcm_iw_conn *conn)
{
	struct hcm_listener *lis = conn->lis;
	struct iw_cm_event ev;
	int ret = -ECONNREFUSED;

	hcm_event_init(conn, &ev, IW_CM_EVENT_CONNECT_REQUEST, 0);
	hcm_event_pd(&ev, conn->req.pd, conn->req.pd_len);
	hcm_request_ird_ord(conn, &ev);
	ev.provider_data = conn;

	hcm_conn_disarm(conn);
	/* The child id's reference, and the hand-over, before the upcall. */
	kref_get(&conn->kref);
	spin_lock_irq(&conn->lock);
	conn->state = HCM_REQ_DELIVERED;
	spin_unlock_irq(&conn->lock);

	spin_lock_bh(&lis->lock);
	if (lis->cm_id)
		ret = lis->cm_id->event_handler(lis->cm_id, &ev);
	spin_unlock_bh(&lis->lock);
	if (ret) {
		/* No child id was made: nobody else can own us. */
		hcm_conn_put(conn);
		hcm_conn_fail(conn, ret, NULL, 0);
		return;
	}
	hcm_conn_leave_listener(conn);
}

static void hcm_passive_request(struct orcm_iw_conn *conn, bool timed_out,
				bool aborted)
{
	int ret;

	if (aborted) {
		hcm_conn_fail(conn, -ECONNABORTED, NULL, 0);
		return;
	}
	ret = hcm_read_frame(conn, true, &conn->req);
	if (!ret) {
		if (timed_out)
			hcm_conn_fail(conn, -ETIMEDOUT, NULL, 0);
		return;
	}
	if (ret < 0) {
		pr_debug("conn %p: bad MPA request: %d\n", conn, ret);
		hcm_conn_fail(conn, ret, NULL, 0);
		return;
	}
	hcm_passive_deliver(conn);
}

/*
 * Waiting for the user's accept or reject: a peer that closes, or sends
 * before our reply, ends the connection (accept then fails).
 *
 * The user may be taking the connection over meanwhile: iw_accept() hands
 * the socket to the driver, iw_reject() releases it, and either clears
 * conn->sock. Both first move the state out of HCM_REQ_DELIVERED under
 * conn->lock, so the socket is looked at only under that lock and only in
 * that state; moving to HCM_DEAD there makes the work its owner.
 */
static void hcm_passive_waiting(struct orcm_iw_conn *conn)
{
	struct sock *sk;
	bool broken = false;

	hcm_race_window(conn, HCM_RACE_WAITING);
	spin_lock_irq(&conn->lock);
	if (conn->state == HCM_REQ_DELIVERED) {
		sk = conn->sock->sk;
		broken = READ_ONCE(sk->sk_state) != TCP_ESTABLISHED ||
			 !skb_queue_empty_lockless(&sk->sk_receive_queue);
	}
	if (broken)
		conn->state = HCM_DEAD;
	spin_unlock_irq(&conn->lock);
	if (broken)
		hcm_conn_fail(conn, -ECONNRESET, NULL, 0);
}

/* Take the connection over from the child id (accept/reject). */
static bool hcm_conn_take(struct orcm_iw_conn *conn)
{
	bool mine;

	spin_lock_irq(&conn->lock);
	mine = conn->state == HCM_REQ_DELIVERED;
	if (mine)
		conn->state = HCM_ACCEPTING;
	spin_unlock_irq(&conn->lock);
	return mine;
}

/**
 * hcm_conn_accept - iw_accept: reply, hand over, ESTABLISHED follows
 * @conn: the connection of @cm_id (the child id's reference is ours now)
 * @cm_id: the id of the CONNECT_REQUEST
 * @param: QP, IRD/ORD and private data of the reply
 *
 * Return: 0, or an errno with the connection closed (no event follows).
 */
int hcm_conn_accept(struct orcm_iw_conn *conn, struct iw_cm_id *cm_id,
		    struct iw_cm_conn_param *param)
{
	struct orcm_mpa_local loc = {};
	struct orcm_mpa_frame rej;
	unsigned int rtr_ms;
	int ret;

	if (!hcm_conn_take(conn)) {
		ret = -ECONNRESET;
		goto out_put;
	}
	conn->qp = conn->dev->ops.iw_get_qp(conn->dev, param->qpn);
	if (!conn->qp) {
		ret = -EINVAL;
		goto out_fail;
	}
	loc.rev = READ_ONCE(hcm_mpa_rev);
	loc.crc = READ_ONCE(hcm_crc);
	loc.markers = READ_ONCE(hcm_markers);
	loc.p2p = READ_ONCE(hcm_peer2peer);
	loc.rtr = ORCM_RTR_ALL;
	loc.ird = min_t(u32, param->ird, ORCM_MPA_IRD_ORD_MAX);
	loc.ord = min_t(u32, param->ord, ORCM_MPA_IRD_ORD_MAX);
	ret = orcm_mpa_respond(&conn->req, &loc, param->private_data,
			       param->private_data_len, &conn->rep,
			       &conn->params);
	if (ret == -EPROTO) {
		/* No common RTR type: refuse the peer cleanly. */
		orcm_mpa_make_reject(&conn->req, NULL, 0, &rej);
		hcm_send(conn, &rej);
	}
	if (ret) {
		ret = ret == -EMSGSIZE ? -EINVAL : -ECONNREFUSED;
		goto out_fail;
	}
	ret = hcm_send(conn, &conn->rep);
	if (ret)
		goto out_fail;
	/* Not before the reply: the frame holds only the reply now. */
	conn->rep.pd = NULL;
	conn->rep.pd_len = 0;

	cm_id->add_ref(cm_id);
	spin_lock_irq(&conn->lock);
	conn->cm_id = cm_id;
	spin_unlock_irq(&conn->lock);
	/* The socket is the driver's after ->attach(): its namespace's now. */
	rtr_ms = hcm_deadline_ms(sock_net(conn->sock->sk), HCM_DL_RTR);
	ret = hcm_conn_attach(conn);
	if (ret)
		goto out_fail;
	if (conn->params.p2p)
		hcm_conn_arm(conn, rtr_ms);
	hcm_conn_queue(conn);		/* ESTABLISHED, now or after RTR */
	hcm_conn_put(conn);		/* the child id's */
	return 0;

out_fail:
	hcm_conn_fail(conn, ret, NULL, 0);
out_put:
	hcm_conn_put(conn);
	return ret;
}

/**
 * hcm_conn_reject - iw_reject: send an MPA reject and close
 * @conn: the connection of the id (the child id's reference is ours now)
 * @pd: private data of the reject
 * @pd_len: its length
 *
 * Return: 0, also when the connection had died already.
 */
int hcm_conn_reject(struct orcm_iw_conn *conn, const void *pd, u8 pd_len)
{
	struct orcm_mpa_frame rej;

	if (hcm_conn_take(conn)) {
		orcm_mpa_make_reject(&conn->req, pd, pd_len, &rej);
		/* Best effort: the peer sees the reject or the close. */
		hcm_send(conn, &rej);
		kernel_sock_shutdown(conn->sock, SHUT_WR);
		hcm_conn_fail(conn, -ECONNREFUSED, NULL, 0);
	}
	hcm_conn_put(conn);
	return 0;
}

/* The listener is going away: end a half-open connection. */
void hcm_conn_abort(struct orcm_iw_conn *conn)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	conn->aborted = true;
	spin_unlock_irqrestore(&conn->lock, flags);
	hcm_conn_queue(conn);
}

/* ---- the machine ---- */

static void hcm_conn_work(struct work_struct *work)
{
	struct orcm_iw_conn *conn = container_of(work, struct orcm_iw_conn,
						 work);
	enum hcm_conn_state state;
	bool timed_out, aborted;

	spin_lock_irq(&conn->lock);
	state = conn->state;
	timed_out = conn->timed_out;
	aborted = conn->aborted;
	conn->timed_out = false;
	spin_unlock_irq(&conn->lock);

	switch (state) {
	case HCM_CONNECTING:
		hcm_active_connecting(conn, timed_out);
		break;
	case HCM_REQ_SENT:
		hcm_active_reply(conn, timed_out);
		break;
	case HCM_REQ_WAIT:
		hcm_passive_request(conn, timed_out, aborted);
		break;
	case HCM_REQ_DELIVERED:
		hcm_passive_waiting(conn);
		break;
	case HCM_ATTACHED:
		hcm_conn_deliver(conn, timed_out);
		break;
	case HCM_ACCEPTING:
	case HCM_DEAD:
		break;
	}
	hcm_conn_put(conn);		/* the queued work's */
}

struct orcm_iw_conn *hcm_conn_alloc(struct ib_device *dev,
				    const struct orcm_iw_host_ops *ops,
				    bool initiator)
{
	struct orcm_iw_conn *conn;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return NULL;
	atomic_inc(&hcm_conns_live);
	kref_init(&conn->kref);
	INIT_WORK(&conn->work, hcm_conn_work);
	INIT_DELAYED_WORK(&conn->timer, hcm_conn_timer_fn);
	INIT_LIST_HEAD(&conn->lis_entry);
	spin_lock_init(&conn->lock);
	conn->dev = dev;
	conn->ops = ops;
	conn->initiator = initiator;
	return conn;
}

/* ---- the driver's upcalls (iw_host.h): any context, only queue ---- */

void orcm_iw_conn_rtr_received(struct orcm_iw_conn *conn)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	conn->rtr = true;
	spin_unlock_irqrestore(&conn->lock, flags);
	hcm_conn_queue(conn);
}
EXPORT_SYMBOL(orcm_iw_conn_rtr_received);

void orcm_iw_conn_peer_closed(struct orcm_iw_conn *conn)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	conn->peer_closed = true;
	spin_unlock_irqrestore(&conn->lock, flags);
	hcm_conn_queue(conn);
}
EXPORT_SYMBOL(orcm_iw_conn_peer_closed);

void orcm_iw_conn_released(struct orcm_iw_conn *conn, int status)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	conn->released = true;
	conn->release_status = status;
	spin_unlock_irqrestore(&conn->lock, flags);
	hcm_conn_queue(conn);
}
EXPORT_SYMBOL(orcm_iw_conn_released);

struct iw_cm_id *orcm_iw_conn_cm_id(struct orcm_iw_conn *conn)
{
	unsigned long flags;
	struct iw_cm_id *cm_id;

	spin_lock_irqsave(&conn->lock, flags);
	cm_id = conn->cm_id;
	spin_unlock_irqrestore(&conn->lock, flags);
	return cm_id;
}
EXPORT_SYMBOL(orcm_iw_conn_cm_id);
