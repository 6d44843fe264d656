// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic wire engine: a connection's life. attach takes the socket from
 * iw_cm's host CM, installs the socket callbacks and (peer-to-peer
 * initiator) sends the RTR; close and TERMINATE end it gracefully (FIN
 * after what is queued) or abortively (RST); release gives the socket back
 * to the kernel and tells iw_cm; destroy waits for all of it.
 *
 * Locking: sk_callback_lock guards sk_user_data and the callbacks; a
 * callback that finds the connection only queues work. Release restores the
 * callbacks first, so no socket callback queues work after it, then cancels
 * rx_work and takes tx_mutex before it frees the socket.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "wire.h"

struct workqueue_struct *sr_wire_wq;

int sr_wire_init(void)
{
	sr_wire_wq = alloc_workqueue("softrnic_wire", WQ_MEM_RECLAIM, 0);
	if (!sr_wire_wq)
		return -ENOMEM;
	sr_track_init();
	return 0;
}

void sr_wire_exit(void)
{
	sr_track_exit();
	destroy_workqueue(sr_wire_wq);
}

static struct sr_conn *sk_conn(struct sock *sk)
{
	struct sr_conn *c = sk->sk_user_data;

	return c && !test_bit(SR_CONN_DEAD, &c->flags) ? c : NULL;
}

static void sr_sk_data_ready(struct sock *sk)
{
	struct sr_conn *c;

	read_lock_bh(&sk->sk_callback_lock);
	c = sk_conn(sk);
	if (c)
		queue_work(sr_wire_wq, &c->rx_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void sr_sk_write_space(struct sock *sk)
{
	struct sr_conn *c;

	read_lock_bh(&sk->sk_callback_lock);
	c = sk_conn(sk);
	if (c && sk_stream_is_writeable(sk)) {
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		queue_work(sr_wire_wq, &c->tx_work);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/* FIN, RST, errors: rx_work reads the EOF or the error. */
static void sr_sk_state_change(struct sock *sk)
{
	struct sr_conn *c;

	read_lock_bh(&sk->sk_callback_lock);
	c = sk_conn(sk);
	if (c) {
		queue_work(sr_wire_wq, &c->rx_work);
		queue_work(sr_wire_wq, &c->tx_work);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void sr_sk_install(struct sr_conn *c)
{
	struct sock *sk = c->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	c->saved_data_ready = sk->sk_data_ready;
	c->saved_write_space = sk->sk_write_space;
	c->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = c;
	sk->sk_data_ready = sr_sk_data_ready;
	sk->sk_write_space = sr_sk_write_space;
	sk->sk_state_change = sr_sk_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void sr_sk_restore(struct sr_conn *c)
{
	struct sock *sk = c->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = c->saved_data_ready;
	sk->sk_write_space = c->saved_write_space;
	sk->sk_state_change = c->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

void sr_conn_queue_release(struct sr_conn *c, unsigned long delay)
{
	if (delay)
		queue_delayed_work(sr_wire_wq, &c->rel_work, delay);
	else
		mod_delayed_work(sr_wire_wq, &c->rel_work, 0);
}

/* Tell iw_cm once that the peer is going (FIN or TERMINATE). */
void sr_conn_tell_closed(struct sr_conn *c)
{
	if (!test_and_set_bit(SR_CONN_TOLD_CLOSED, &c->flags))
		orcm_iw_conn_peer_closed(c->iwc);
}

/*
 * rx_work saw EOF (@status 0) or a socket error; tx_work a send error.
 * After our own FIN, or on an error, the connection is over. A FIN first
 * from the peer ends it too (as RNICs do, the peer's close takes the QP
 * down): what tx_work is sending goes out, then our FIN, then release
 * moves the QP to ERR; a peer that stops reading meanwhile gets a RST
 * after SR_RELEASE_TIMEOUT.
 */
void sr_conn_peer_fin(struct sr_conn *c, int status)
{
	set_bit(SR_CONN_PEER_FIN, &c->flags);
	sr_conn_tell_closed(c);
	if (status) {
		if (!c->rel_status)
			c->rel_status = status;
		set_bit(SR_CONN_ABORT, &c->flags);
		sr_conn_queue_release(c, 0);
	} else if (test_bit(SR_CONN_FIN_SENT, &c->flags)) {
		sr_conn_queue_release(c, 0);
	} else {
		set_bit(SR_CONN_CLOSING, &c->flags);
		queue_work(sr_wire_wq, &c->tx_work);
		sr_conn_queue_release(c, SR_RELEASE_TIMEOUT);
	}
}

/*
 * A protocol error: send TERMINATE (@cause; the offending segment's DDP
 * header and READ request when given), move the QP to ERR, FIN after the
 * TERMINATE. Further input is discarded. Called by rx_work, or by the
 * holder of tx_mutex.
 */
void sr_conn_terminate(struct sr_conn *c, const struct softrnic_term_cause *cause,
		       const u8 *ddp_hdr, u32 ddp_hdr_len, u16 seg_len,
		       const u8 *rreq)
{
	enum ib_event_type ev = IB_EVENT_QP_FATAL;

	if (test_and_set_bit(SR_CONN_TERM, &c->flags))
		return;
	pr_debug("qp %u: TERMINATE layer %u etype %u ecode 0x%x\n",
		 c->qp->ibqp.qp_num, cause->layer, cause->etype, cause->ecode);
	spin_lock(&c->lock);
	c->term_len = softrnic_rdmap_term_encode(c->term_payload, cause,
						 ddp_hdr, ddp_hdr_len,
						 seg_len, rreq);
	c->term_pending = true;
	spin_unlock(&c->lock);
	if ((cause->layer == SOFTRNIC_TERM_RDMAP &&
	     cause->etype == SOFTRNIC_RDMAP_ET_PROTECTION) ||
	    (cause->layer == SOFTRNIC_TERM_DDP &&
	     cause->etype == SOFTRNIC_DDP_ET_TAGGED))
		ev = IB_EVENT_QP_ACCESS_ERR;
	sr_qp_to_error(c->qp, ev);
	queue_work(sr_wire_wq, &c->tx_work);
}

/* Release the socket and tell iw_cm; once. Process context. */
static void sr_conn_release(struct sr_conn *c)
{
	if (test_and_set_bit(SR_CONN_RELEASED, &c->flags))
		return;
	/* No path callback once iw_cm may report the end. */
	sr_track_release(c);
	sr_sk_restore(c);
	cancel_work_sync(&c->rx_work);
	sr_rx_flush(c);

	mutex_lock(&c->tx_mutex);
	/*
	 * After a TERMINATE, ours or the peer's, the stream ends with FIN
	 * (unsent data would be lost with RST); otherwise an abortive close,
	 * or one without our FIN, resets the connection.
	 */
	if (test_bit(SR_CONN_TERM, &c->flags) && sr_tx_term_now(c))
		kernel_sock_shutdown(c->sock, SHUT_WR);
	else if (test_bit(SR_CONN_PEER_TERM, &c->flags) &&
		 !test_bit(SR_CONN_ABORT, &c->flags))
		kernel_sock_shutdown(c->sock, SHUT_WR);
	else if (test_bit(SR_CONN_ABORT, &c->flags) ||
		 !test_bit(SR_CONN_FIN_SENT, &c->flags))
		sock_no_linger(c->sock->sk);	/* close with RST */
	sock_release(c->sock);
	c->sock = NULL;
	sr_tx_flush(c);
	mutex_unlock(&c->tx_mutex);

	sr_qp_to_error(c->qp, 0);
	orcm_iw_conn_released(c->iwc, c->rel_status);
	c->iwc = NULL;
}

static void sr_rel_work(struct work_struct *w)
{
	struct sr_conn *c = container_of(to_delayed_work(w), struct sr_conn,
					 rel_work);

	/* a peer's TERMINATE closes gracefully, whatever its side does */
	if (!test_bit(SR_CONN_PEER_TERM, &c->flags) &&
	    (!test_bit(SR_CONN_FIN_SENT, &c->flags) ||
	     !test_bit(SR_CONN_PEER_FIN, &c->flags)))
		set_bit(SR_CONN_ABORT, &c->flags);
	sr_conn_release(c);
}

static void sr_conn_free(struct sr_conn *c)
{
	sr_track_free(c);
	if (!sr_conn_tx_in_place(c))
		kvfree(c->ulpdu);
	kvfree(c->txbuf);
	softrnic_mpa_rx_destroy(&c->mrx);
	kvfree(c->rxchunk);
	kvfree(c->ird);
	kvfree(c->ord);
	kfree(c);
}

/*
 * Transmit buffers that fit one FPDU of @mulpdu with its markers, in place
 * of the current ones (none at alloc; tx_mutex held, nothing framed
 * waiting, when the path grows). Without markers the ULPDU is built where
 * the FPDU carries it, in @txbuf, and framed there
 * (softrnic_mpa_encode_inplace()): no copy. On failure the old buffers stay.
 */
int sr_conn_tx_bufs(struct sr_conn *c, u32 mulpdu)
{
	u32 fpdu = softrnic_mpa_fpdu_len(mulpdu);
	u8 *txbuf, *ulpdu;

	txbuf = kvmalloc(fpdu + SOFTRNIC_MPA_MARKER_LEN * (fpdu / 508 + 2),
			 GFP_KERNEL);
	if (!txbuf)
		return -ENOMEM;
	if (!c->mtx.markers) {
		ulpdu = txbuf + SOFTRNIC_MPA_HDR_LEN;
	} else {
		ulpdu = kvmalloc(mulpdu, GFP_KERNEL);
		if (!ulpdu) {
			kvfree(txbuf);
			return -ENOMEM;
		}
	}
	if (c->txbuf && !sr_conn_tx_in_place(c))
		kvfree(c->ulpdu);
	kvfree(c->txbuf);
	c->txbuf = txbuf;
	c->ulpdu = ulpdu;
	c->mulpdu_cap = mulpdu;
	return 0;
}

/*
 * The receive parser's buffer starts at the connection's FPDU, the likely
 * size of the peer's on the same path, and grows for a longer one (up to
 * 65535 octets of ULPDU, softrnic_mpa_rx_init()).
 */
static struct sr_conn *sr_conn_alloc(const struct orcm_iw_mpa_params *p,
				     u32 mulpdu)
{
	struct sr_conn *c = kzalloc(sizeof(*c), GFP_KERNEL);
	u32 fpdu = softrnic_mpa_fpdu_len(mulpdu);

	if (!c)
		return NULL;
	c->ird_size = min_t(u32, p->ird, SR_MAX_IRD) + 1;
	c->ord_size = min_t(u32, p->ord, SR_MAX_ORD) + 1;
	c->mtx.markers = p->markers_tx;
	c->rxchunk = kvmalloc(SR_RX_CHUNK, GFP_KERNEL);
	c->ird = kvcalloc(c->ird_size, sizeof(*c->ird), GFP_KERNEL);
	c->ord = kvcalloc(c->ord_size, sizeof(*c->ord), GFP_KERNEL);
	if (sr_conn_tx_bufs(c, mulpdu) || !c->rxchunk || !c->ird ||
	    !c->ord ||
	    softrnic_mpa_rx_init(&c->mrx, fpdu, p->crc, p->markers_rx)) {
		sr_conn_free(c);
		return NULL;
	}
	return c;
}

/* The largest ULPDU: one FPDU per TCP segment of the path's MSS. */
static u32 sr_conn_mulpdu(struct sock *sk, bool markers)
{
	u32 mulpdu = softrnic_mulpdu(READ_ONCE(tcp_sk(sk)->mss_cache), markers);

	return clamp_t(u32, mulpdu, 256, SOFTRNIC_MPA_MAX_ULPDU & ~3U);
}

int sr_conn_attach(struct sr_qp *qp, struct socket *sock,
		   const struct orcm_iw_mpa_params *params,
		   struct orcm_iw_conn *conn)
{
	struct sr_conn *c;
	unsigned int i;
	u32 mulpdu;
	int err;

	lockdep_assert_held(&qp->modify_lock);
	mulpdu = sr_conn_mulpdu(sock->sk, params->markers_tx);
	c = sr_conn_alloc(params, mulpdu);
	if (!c)
		return -ENOMEM;
	c->qp = qp;
	c->sock = sock;
	c->iwc = conn;
	c->params = *params;
	c->params.ird = c->ird_size - 1;
	c->params.ord = c->ord_size - 1;
	c->mulpdu = mulpdu;
	spin_lock_init(&c->lock);
	mutex_init(&c->tx_mutex);
	INIT_WORK(&c->rx_work, sr_rx_work);
	INIT_WORK(&c->tx_work, sr_tx_work);
	INIT_DELAYED_WORK(&c->rel_work, sr_rel_work);
	c->mtx.crc = params->crc;
	c->mtx.markers = params->markers_tx;
	for (i = 0; i < ARRAY_SIZE(c->tx_msn); i++) {
		c->tx_msn[i] = 1;	/* RFC 5041 5.1: MSNs start at 1 */
		c->rx_msn[i] = 1;
	}
	if (params->p2p && !params->initiator && params->rtr != ORCM_IW_RTR_NONE)
		set_bit(SR_CONN_RTR_WAIT, &c->flags);

	tcp_sock_set_nodelay(sock->sk);
	sr_sk_install(c);
	if (params->p2p && params->initiator && params->rtr != ORCM_IW_RTR_NONE) {
		err = sr_tx_rtr(c);
		if (err) {
			set_bit(SR_CONN_DEAD, &c->flags);
			sr_sk_restore(c);
			cancel_work_sync(&c->rx_work);
			cancel_work_sync(&c->tx_work);
			sr_conn_free(c);
			return err;
		}
	}
	sr_track_attach(c, conn);
	qp->conn = c;
	/* Data may have come before the callbacks were ours. */
	queue_work(sr_wire_wq, &c->rx_work);
	if (c->trk_subscribed)	/* the notified FPDU size */
		queue_work(sr_wire_wq, &c->tx_work);
	return 0;
}

void sr_tx_kick(struct sr_qp *qp)
{
	struct sr_conn *c = READ_ONCE(qp->conn);

	if (c && !test_bit(SR_CONN_DEAD, &c->flags))
		queue_work(sr_wire_wq, &c->tx_work);
}

void sr_conn_close(struct sr_qp *qp, bool abortive)
{
	struct sr_conn *c = qp->conn;

	lockdep_assert_held(&qp->modify_lock);
	if (!c)
		return;
	if (abortive) {
		set_bit(SR_CONN_ABORT, &c->flags);
		sr_conn_queue_release(c, 0);
		return;
	}
	set_bit(SR_CONN_CLOSING, &c->flags);
	queue_work(sr_wire_wq, &c->tx_work);
}

void sr_conn_destroy(struct sr_qp *qp)
{
	struct sr_conn *c = qp->conn;

	lockdep_assert_held(&qp->modify_lock);
	if (!c)
		return;
	set_bit(SR_CONN_ABORT, &c->flags);
	set_bit(SR_CONN_DEAD, &c->flags);
	cancel_delayed_work_sync(&c->rel_work);
	sr_conn_release(c);
	cancel_work_sync(&c->rx_work);
	cancel_work_sync(&c->tx_work);
	WRITE_ONCE(qp->conn, NULL);
	sr_conn_free(c);
}
