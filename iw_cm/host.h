/* SPDX-License-Identifier: GPL-2.0 */
/*
 * openrdma-cm iw_cm: the host-stack CM (include/openrdma/iw_host.h),
 * private definitions shared by host.c (devices, parameters, listeners,
 * the iw_* ops) and host_conn.c (one connection's TCP + MPA machine).
 */
#ifndef _OPENRDMA_IW_HOST_PRIV_H
#define _OPENRDMA_IW_HOST_PRIV_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <openrdma/iw_host.h>

#include "mpa.h"

struct sock;

/* Module parameters (host.c), read with READ_ONCE(). */
extern unsigned int hcm_mpa_rev;
extern bool hcm_crc;
extern bool hcm_markers;
extern bool hcm_peer2peer;
extern unsigned int hcm_p2p_type;
extern unsigned int hcm_connect_timeout_ms;
extern unsigned int hcm_mpa_req_timeout_ms;
extern unsigned int hcm_mpa_rep_timeout_ms;
extern unsigned int hcm_rtr_timeout_ms;
extern unsigned int hcm_max_half_open;
extern unsigned int hcm_max_half_open_per_addr;
extern atomic_long_t hcm_half_open_refused;
extern atomic_t hcm_conns_live;

extern struct workqueue_struct *hcm_wq;

/* The deadlines of a connection's phases, per namespace (host_timers.c). */
enum hcm_deadline {
	HCM_DL_CONNECT,		/* initiator: TCP handshake */
	HCM_DL_MPA_REP,		/* initiator: the whole MPA reply */
	HCM_DL_MPA_REQ,		/* responder: the whole MPA request */
	HCM_DL_RTR,		/* peer-to-peer responder: the RTR */
	HCM_DL_NR
};

#define HCM_DL_MAX_MS	3600000U	/* an hour */

struct net;
unsigned int hcm_deadline_ms(const struct net *net, enum hcm_deadline dl);
int hcm_timers_init(void);
void hcm_timers_exit(void);
#if IS_ENABLED(CONFIG_KUNIT)
void hcm_deadline_set_net(struct net *net, enum hcm_deadline dl,
			  unsigned int ms);
#endif

struct hcm_listener {
	struct kref kref;		/* listen op + each half-open conn */
	struct socket *sock;		/* the listening host socket */
	struct ib_device *dev;
	const struct orcm_iw_host_ops *ops;
	struct work_struct accept_work;	/* accepts on hcm_wq */
	void (*saved_data_ready)(struct sock *sk);

	/*
	 * @lock (BH-safe: the accept work and the connections' work take
	 * it, never a socket callback) protects the fields below. It is
	 * held across the CONNECT_REQUEST upcall to @cm_id, which only
	 * queues, so that iw_destroy_listen() cannot drop @cm_id under it.
	 */
	spinlock_t lock;
	struct iw_cm_id *cm_id;		/* add_ref()ed; NULL once closing */
	struct list_head half_open;	/* orcm_iw_conn.lis_entry */
	unsigned int nr_half_open;
	unsigned long refused;		/* over the half-open cap */
};

enum hcm_conn_state {
	HCM_CONNECTING,		/* active: TCP handshake under way */
	HCM_REQ_SENT,		/* active: request sent, reading the reply */
	HCM_REQ_WAIT,		/* passive: reading the request (half-open) */
	HCM_REQ_DELIVERED,	/* passive: CONNECT_REQUEST queued to iw_cm */
	HCM_ACCEPTING,		/* passive: inside iw_accept()/iw_reject() */
	HCM_ATTACHED,		/* the driver owns the socket */
	HCM_DEAD,		/* failed or rejected; socket closed */
};

struct orcm_iw_conn {
	/*
	 * References: one for the machine itself (dropped when the last
	 * event has gone to iw_cm, or when it dies), one per queued @work
	 * or @timer, one held by the passive child id (provider_data) from
	 * CONNECT_REQUEST to iw_accept()/iw_reject().
	 */
	struct kref kref;
	struct work_struct work;	/* the machine, on hcm_wq */
	struct delayed_work timer;	/* the current phase's timeout */
	struct ib_device *dev;
	const struct orcm_iw_host_ops *ops;
	bool initiator;
	/*
	 * Passive, with a listener reference, until the connection leaves
	 * the half-open set: the work (after CONNECT_REQUEST) and the
	 * child's owner (reject, failed accept) may both try, so it is
	 * taken with xchg() and put by whoever got it.
	 */
	struct hcm_listener *lis;
	struct list_head lis_entry;	/* on lis->half_open, lis->lock */
	struct list_head abort_entry;	/* iw_destroy_listen()'s own list */
	void (*saved_state_change)(struct sock *sk);
	void (*saved_data_ready)(struct sock *sk);

	/*
	 * @lock (any context, irqsave: the driver's upcalls may come with
	 * its locks held in softirq) protects the fields below. A change of
	 * @state under it is also a change of owner: who moves the
	 * connection out of HCM_REQ_DELIVERED owns the socket.
	 */
	spinlock_t lock;
	enum hcm_conn_state state;
	struct iw_cm_id *cm_id;		/* events go here; add_ref()ed */
	bool timed_out;			/* @timer fired */
	bool aborted;			/* listener gone */
	bool rtr;			/* orcm_iw_conn_rtr_received() */
	bool peer_closed;		/* orcm_iw_conn_peer_closed() */
	bool released;			/* orcm_iw_conn_released() */
	int release_status;
	bool est_sent, disc_sent;
	bool rtr_expired;		/* no RTR within rtr_timeout_ms */

	/*
	 * Owned by whoever owns the connection by @state (the work, or
	 * iw_accept()/iw_reject() in HCM_ACCEPTING): no lock. In
	 * HCM_REQ_DELIVERED nobody owns them: the work may look at @sock
	 * only under @lock while that state holds.
	 */
	struct socket *sock;		/* ours until attach */
	struct ib_qp *qp;
	struct sockaddr_storage laddr, raddr;
	struct orcm_mpa_frame req, rep;
	struct orcm_iw_mpa_params params;
	size_t have, need;		/* bytes of the frame in @buf */
	u8 buf[ORCM_MPA_FRAME_MAX];
	u8 pd[ORCM_MPA_PD_MAX];		/* active: the request's data */
};

/* host_conn.c */
struct orcm_iw_conn *hcm_conn_alloc(struct ib_device *dev,
				    const struct orcm_iw_host_ops *ops,
				    bool initiator);
void hcm_conn_put(struct orcm_iw_conn *conn);
void hcm_conn_queue(struct orcm_iw_conn *conn);
void hcm_conn_arm(struct orcm_iw_conn *conn, unsigned int ms);
void hcm_sock_attach(struct orcm_iw_conn *conn);
int hcm_conn_connect(struct orcm_iw_conn *conn, struct iw_cm_id *cm_id,
		     struct iw_cm_conn_param *param, struct net *net);
void hcm_conn_passive_start(struct orcm_iw_conn *conn,
			    struct hcm_listener *lis, struct socket *sock);
int hcm_conn_accept(struct orcm_iw_conn *conn, struct iw_cm_id *cm_id,
		    struct iw_cm_conn_param *param);
int hcm_conn_reject(struct orcm_iw_conn *conn, const void *pd, u8 pd_len);
void hcm_conn_abort(struct orcm_iw_conn *conn);

/* host.c */
void hcm_listener_put(struct hcm_listener *lis);
int hcm_sock_create(struct net *net, int family, struct socket **res);
void hcm_sock_share_mapped(struct socket *sock, const struct iw_cm_id *cm_id);
void hcm_sock_unshare(struct socket *sock);

/*
 * The windows in which a passive connection's work races its user's
 * iw_accept()/iw_reject() (host_conn.c). Test kernels (CONFIG_KUNIT) can
 * widen them: a KUnit hook, or a sleep of race_delay_ms for the e2e stress
 * tests. Process context; elsewhere they compile to nothing.
 */
enum hcm_race {
	HCM_RACE_LEAVE_LISTENER,	/* listener looked up, not yet put */
	HCM_RACE_WAITING,		/* REQ_DELIVERED seen, socket not read */
};

#if IS_ENABLED(CONFIG_KUNIT)
extern unsigned int hcm_race_delay_ms;
extern void (*hcm_race_hook)(struct orcm_iw_conn *conn, enum hcm_race where);
void hcm_race_window(struct orcm_iw_conn *conn, enum hcm_race where);
#else
static inline void hcm_race_window(struct orcm_iw_conn *conn,
				   enum hcm_race where)
{
}
#endif

#if IS_ENABLED(CONFIG_KUNIT)
unsigned int orcm_iw_host_listener_refs(struct iw_cm_id *cm_id);
void orcm_iw_host_listener_stats(struct iw_cm_id *cm_id,
				 unsigned int *half_open,
				 unsigned long *refused, u32 *backlog);
void orcm_iw_host_flush(void);
#endif

#endif /* _OPENRDMA_IW_HOST_PRIV_H */
