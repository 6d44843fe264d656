/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The softrnic wire engine: one struct sr_conn per connected QP, RDMAP over
 * DDP over MPA on the TCP socket that iw_cm's host CM handed over.
 *
 * Contexts: the socket callbacks (softirq, socket lock held) only queue
 * work. rx_work (wire_rx.c) reads and places; tx_work (wire_tx.c) frames
 * and sends; rel_work releases the socket. All run on sr_wire_wq; a work
 * item never runs twice at once, so rx state is rx_work's alone and tx
 * state is owned by whoever holds tx_mutex (tx_work, or attach sending the
 * RTR). What both sides touch is under @lock or in @flags.
 */
#ifndef _SOFTRNIC_WIRE_H
#define _SOFTRNIC_WIRE_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <openrdma/offload_track.h>

#include "softrnic.h"
#include "mpa.h"
#include "ddp.h"
#include "rdmap.h"

#define SR_RX_CHUNK		(16 * 1024)
#define SR_RELEASE_TIMEOUT	(5 * HZ)	/* FIN sent, peer silent */

/* Bits of sr_conn.flags. */
enum {
	SR_CONN_RTR_WAIT,	/* responder, p2p: no tx until the RTR came */
	SR_CONN_CLOSING,	/* graceful close asked: drain, then FIN */
	SR_CONN_FIN_SENT,	/* our FIN (or TERMINATE + FIN) is out */
	SR_CONN_PEER_FIN,	/* EOF seen on the socket */
	SR_CONN_TOLD_CLOSED,	/* orcm_iw_conn_peer_closed() was called */
	SR_CONN_TERM,		/* we are terminating: rx discards */
	SR_CONN_PEER_TERM,	/* the peer's TERMINATE came: close now */
	SR_CONN_ABORT,		/* abortive close: RST on release */
	SR_CONN_RELEASED,	/* socket gone, iw_cm told */
	SR_CONN_DEAD,		/* destroy: no work may start */
};

/* The classes of path change (wire_track.c), counted per connection. */
enum sr_trk_class {
	SR_TRK_ROUTE,
	SR_TRK_NEIGH,
	SR_TRK_MTU,
	SR_TRK_LINK,
	SR_TRK_ADDR,
	SR_TRK_NCLASS
};

/* The path as the offload interface told it (wire_track.c); trk_lock. */
struct sr_trk {
	struct orcm_track_path path;	/* the last one notified */
	u32 mulpdu_want;		/* for tx: 0 keeps the current */
	ktime_t want_time;		/* event_time of @mulpdu_want's update */
	s64 tx_lat_ns;			/* its event -> tx took it; -1 none */
	bool hold;			/* link down: tx sends nothing new */
	u32 nr_updates;			/* updates notified */
	u32 nr_class[SR_TRK_NCLASS];	/* callbacks per class */
	s64 last_lat_ns;		/* netdev event -> callback; -1 none */
};

/* An inbound RDMA READ that we serve (IRD). */
struct sr_ird_entry {
	struct softrnic_rdmap_rreq rr;
	u32 sent;
};

/* An outbound RDMA READ waiting for its response (ORD). */
struct sr_ord_entry {
	struct siw_sqe sqe;
	u32 got;
	u32 size;
	bool rtr;		/* the zero-length READ RTR: no WQE */
};

struct sr_conn {
	struct sr_qp *qp;
	struct socket *sock;
	struct orcm_iw_conn *iwc;
	struct orcm_iw_mpa_params params;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);

	unsigned long flags;		/* SR_CONN_* bits, atomic */
	int rel_status;			/* for orcm_iw_conn_released() */

	struct work_struct rx_work;
	struct work_struct tx_work;
	struct delayed_work rel_work;

	/*
	 * Protects the IRD and ORD rings and the TERMINATE request: rx_work
	 * adds IRD entries and retires ORD ones, tx_work the reverse.
	 * Process context only (works, attach, close).
	 */
	spinlock_t lock;
	struct sr_ird_entry *ird;	/* params.ird + 1 (READ RTR) */
	u32 ird_size, ird_head, ird_count;
	struct sr_ord_entry *ord;	/* params.ord + 1 (READ RTR) */
	u32 ord_size, ord_head, ord_count;
	u32 ord_rtr;			/* the READ RTR is among them: 0 or 1 */
	bool term_pending;		/* rx asks tx to send a TERMINATE */
	bool term_sent;			/* ... and it is framed: FIN next */
	u32 term_len;
	u8 term_payload[SOFTRNIC_RDMAP_TERM_MAX_LEN];

	/* TX: owned by the holder of tx_mutex. */
	struct mutex tx_mutex;
	struct softrnic_mpa_tx mtx;
	u32 mulpdu;
	u32 mulpdu_cap;			/* @ulpdu and @txbuf fit this MULPDU */
	u8 *ulpdu;			/* @mulpdu octets */
	u8 *txbuf;			/* one FPDU of @mulpdu, markers too */
	bool tx_more;			/* more of its message follows (MSG_MORE) */
	u32 tx_len, tx_sent;
	struct siw_sqe cur;		/* the SQE being sent */
	bool cur_valid;
	bool cur_complete;		/* complete it once txbuf is sent */
	u32 cur_off, cur_len;
	u32 tx_msn[3];			/* next MSN per untagged queue */

	/* RX: owned by rx_work. */
	struct softrnic_mpa_rx mrx;
	u8 *rxchunk;			/* SR_RX_CHUNK */
	u32 rx_msn[3];			/* expected MSN per untagged queue */
	struct siw_rqe rqe;		/* the receive WQE being filled */
	bool rqe_valid;
	u32 rqe_len;			/* its SGE list's length */
	u32 rqe_got;			/* octets placed so far */

	/* Path tracking, offload_cm (wire_track.c). */
	struct orcm_track_sub trk_sub;
	bool trk_subscribed;		/* set at attach, cleared at release */
	spinlock_t trk_lock;		/* protects @trk */
	struct sr_trk trk;
	struct dentry *trk_dbg;		/* softrnic/<dev>-qp<N> */
};

extern struct workqueue_struct *sr_wire_wq;

/* Without markers the ULPDU is built inside its FPDU, framed in place. */
static inline bool sr_conn_tx_in_place(const struct sr_conn *c)
{
	return c->ulpdu == c->txbuf + SOFTRNIC_MPA_HDR_LEN;
}

/* wire_conn.c */
void sr_conn_terminate(struct sr_conn *c, const struct softrnic_term_cause *cause,
		       const u8 *ddp_hdr, u32 ddp_hdr_len, u16 seg_len,
		       const u8 *rreq);
void sr_conn_peer_fin(struct sr_conn *c, int status);
void sr_conn_tell_closed(struct sr_conn *c);
void sr_conn_queue_release(struct sr_conn *c, unsigned long delay);
int sr_conn_tx_bufs(struct sr_conn *c, u32 mulpdu);

/* wire_track.c */
void sr_track_init(void);
void sr_track_exit(void);
void sr_track_attach(struct sr_conn *c, struct orcm_iw_conn *conn);
void sr_track_release(struct sr_conn *c);
void sr_track_free(struct sr_conn *c);
bool sr_track_tx(struct sr_conn *c);

/* wire_tx.c */
void sr_tx_work(struct work_struct *w);
int sr_tx_rtr(struct sr_conn *c);
bool sr_tx_term_now(struct sr_conn *c);
void sr_tx_flush(struct sr_conn *c);

/* wire_rx.c */
void sr_rx_work(struct work_struct *w);
void sr_rx_flush(struct sr_conn *c);

#endif /* _SOFTRNIC_WIRE_H */
