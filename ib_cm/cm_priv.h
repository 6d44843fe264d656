/* SPDX-License-Identifier: GPL-2.0 */
/*
 * openrdma-cm ib_cm: private definitions shared by the files of ib_cm.ko.
 *
 * Contexts:
 *  - the exported API runs in process context and may sleep, except
 *    ib_cm_notify() (any context: from an interrupt or softirq it only sets
 *    a bit and queues work; from a task it may take the id's lock),
 *    ib_cm_init_qp_attr() and ibcm_reject_msg();
 *  - the MAD layer calls our send and receive handlers from its
 *    workqueues (process context);
 *  - a user's cm_handler runs from cm_wq, from the id's own work item:
 *    one handler call at a time per id, ids in parallel.
 *
 * Locking (outermost first):
 *  - cm_id_priv.lock (spinlock, never with interrupts disabled: the MAD
 *    and provider calls made under it take _bh locks) protects the id's
 *    state and every field marked "lock" below;
 *  - cm.lock (spinlock) protects the id tables: the local-id xarray, the
 *    remote-id and remote-QPN hashes, the listener list and the device
 *    list; it is taken inside an id's lock, never the other way round;
 *  - cm_port.agent_lock protects cm_port.agent; inside both of the above;
 *  - cm_port.pace_lock protects the port's REQ window and queue (pace.c);
 *    inside an id's lock, never with cm.lock or agent_lock.
 * No lock is held across a cm_handler call, a sleeping allocation,
 * rdma_create_ah(SLEEPABLE), ib_register/unregister_mad_agent or a wait.
 */
#ifndef _OPENRDMA_IBCM_PRIV_H
#define _OPENRDMA_IBCM_PRIV_H

#include <linux/completion.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>
#include <rdma/ibta_vol1_c12.h>

#define CM_CLASS_VERSION	2	/* IBA 1.2 CM class version */
#define CM_MAD_SIZE		sizeof(struct ib_mad)	/* 256 bytes */
#define CM_ARI_INFO_MAX		72	/* REJ ARI, APR and SIDR_REP info */

/* REQ transport service types (REQ "Transport Service Type"). */
#define CM_TRANSPORT_RC		0
#define CM_TRANSPORT_UC		1
#define CM_TRANSPORT_EXT	3	/* extended: XRC */
#define CM_EXT_TRANSPORT_XRC	1

/* Which message a REJ or MRA refers to (MessageRejected / MessageMRAed). */
#define CM_MSG_REQ		0
#define CM_MSG_REP		1
#define CM_MSG_OTHER		2

/* ---- messages: the wire contents of every CM MAD (msg.c) ---- */

struct cm_path_info {
	__be16 local_lid;
	__be16 remote_lid;
	union ib_gid local_gid;
	union ib_gid remote_gid;
	u32 flow_label;
	u8 packet_rate;
	u8 traffic_class;
	u8 hop_limit;
	u8 sl;
	u8 subnet_local;
	u8 local_ack_timeout;
};

struct cm_req_info {
	__be32 local_comm_id;
	u32 vendor_id;
	__be64 service_id;
	__be64 local_ca_guid;
	u32 local_qkey;
	u32 local_qpn;
	u8 responder_resources;
	u32 local_eecn;
	u8 initiator_depth;
	u32 remote_eecn;
	u8 remote_cm_response_timeout;
	u8 transport_type;
	u8 flow_control;
	u32 starting_psn;
	u8 local_cm_response_timeout;
	u8 retry_count;
	u16 pkey;
	u8 path_mtu;
	u8 rdc_exists;
	u8 rnr_retry_count;
	u8 max_cm_retries;
	u8 srq;
	u8 ext_transport_type;
	struct cm_path_info primary;
	struct cm_path_info alternate;
	u8 private_data[IB_CM_REQ_PRIVATE_DATA_SIZE];
};

struct cm_mra_info {
	__be32 local_comm_id;
	__be32 remote_comm_id;
	u8 msg_mraed;
	u8 service_timeout;
	u8 private_data[IB_CM_MRA_PRIVATE_DATA_SIZE];
};

struct cm_rej_info {
	__be32 local_comm_id;
	__be32 remote_comm_id;
	u8 msg_rejected;
	u8 ari_length;
	u16 reason;
	u8 ari[IB_CM_REJ_ARI_LENGTH];
	u8 private_data[IB_CM_REJ_PRIVATE_DATA_SIZE];
};

struct cm_rep_info {
	__be32 local_comm_id;
	__be32 remote_comm_id;
	u32 local_qkey;
	u32 local_qpn;
	u32 local_eecn;
	u32 starting_psn;
	u32 vendor_id;
	u8 responder_resources;
	u8 initiator_depth;
	u8 target_ack_delay;
	u8 failover_accepted;
	u8 flow_control;
	u8 rnr_retry_count;
	u8 srq;
	__be64 local_ca_guid;
	u8 private_data[IB_CM_REP_PRIVATE_DATA_SIZE];
};

/* RTU, DREQ and DREP: the comm ids, DREQ's QPN, private data. */
struct cm_disc_info {
	__be32 local_comm_id;
	__be32 remote_comm_id;
	u32 remote_qpn;			/* DREQ only */
	u8 private_data[IB_CM_DREP_PRIVATE_DATA_SIZE];	/* the largest */
};

struct cm_lap_info {
	__be32 local_comm_id;
	__be32 remote_comm_id;
	u32 remote_qpn;
	u8 remote_cm_response_timeout;
	struct cm_path_info alternate;	/* the sender's view: local = its */
	u8 private_data[IB_CM_LAP_PRIVATE_DATA_SIZE];
};

struct cm_apr_info {
	__be32 local_comm_id;
	__be32 remote_comm_id;
	u8 info_length;
	u8 status;
	u8 info[IB_CM_APR_INFO_LENGTH];
	u8 private_data[IB_CM_APR_PRIVATE_DATA_SIZE];
};

struct cm_sidr_req_info {
	__be32 request_id;
	u16 pkey;
	__be64 service_id;
	u8 private_data[IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE];
};

struct cm_sidr_rep_info {
	__be32 request_id;
	u8 status;
	u8 info_length;
	u32 vendor_id;
	u32 qpn;
	__be64 service_id;
	u32 qkey;
	u8 info[IB_CM_SIDR_REP_INFO_LENGTH];
	u8 private_data[IB_CM_SIDR_REP_PRIVATE_DATA_SIZE];
};

/* One CM MAD, decoded: the header fields we use and the attribute. */
struct cm_msg {
	__be16 attr_id;			/* CM_*_ATTR_ID */
	__be32 attr_mod;		/* carries the ECE attr_mod on REQ/REP */
	__be64 tid;
	union {
		struct cm_req_info req;
		struct cm_mra_info mra;
		struct cm_rej_info rej;
		struct cm_rep_info rep;
		struct cm_disc_info disc;	/* RTU, DREQ, DREP */
		struct cm_lap_info lap;
		struct cm_apr_info apr;
		struct cm_sidr_req_info sidr_req;
		struct cm_sidr_rep_info sidr_rep;
	};
};

int cm_msg_parse(const void *buf, size_t len, struct cm_msg *msg);
void cm_msg_build(void *buf, const struct cm_msg *msg);
const char *cm_attr_name(__be16 attr_id);

/* ---- devices and ports (main.c) ---- */

struct cm_device;

/*
 * The per-port message counters that ib_core shows in sysfs, as the in-tree
 * ib_cm does: /sys/class/infiniband/DEV/ports/N/<group>/<message>
 * (counters.c). One counter per group and CM message (REQ 0x10 .. APR 0x1A).
 */
enum cm_msg_group {
	CM_GRP_TX,			/* cm_tx_msgs: sends completed, resends included */
	CM_GRP_TX_RETRIES,		/* cm_tx_retries: of those, resends */
	CM_GRP_RX,			/* cm_rx_msgs: received */
	CM_GRP_RX_DUP,			/* cm_rx_duplicates: received again */
	CM_GRP_MAX
};

#define CM_MSG_FIRST_ATTR	0x10	/* REQ */
#define CM_MSG_TYPES		11	/* REQ .. APR */

struct cm_port {
	struct cm_device *cm_dev;
	u32 port_num;
	spinlock_t agent_lock;		/* protects @agent */
	struct ib_mad_agent *agent;	/* agent_lock; NULL once removed */
	bool sysfs;			/* the counter groups are registered */
	atomic_long_t msgs[CM_GRP_MAX][CM_MSG_TYPES];	/* lockless */
	/* REQ pacing (pace.c) */
	spinlock_t pace_lock;		/* the two below, ids' pace_entry */
	unsigned int req_inflight;	/* paced REQs awaiting an answer */
	struct list_head req_wait;	/* ids whose REQ waits, oldest first */
	struct work_struct pace_work;	/* sends what a freed slot allows */
};

void cm_port_count(struct cm_port *port, enum cm_msg_group group,
		   __be16 attr_id, long n);
void cm_count_sent(struct cm_port *port, const struct ib_mad_send_buf *buf);
int cm_port_sysfs_add(struct cm_port *port);
void cm_port_sysfs_del(struct cm_port *port);
void cm_counters_init(void);

/*
 * A send's context[1]: the id's state when it was sent, and CM_SEND_RESEND
 * for a message sent again for a duplicate of the peer's (counted as a
 * retry, as the in-tree CM counts its replies to duplicates).
 */
#define CM_SEND_STATE_MASK	0xffffUL
#define CM_SEND_RESEND		0x10000UL
#define CM_SEND_PACED		0x20000UL	/* a REQ in its port's window */

/*
 * Exported by ib_core (sysfs.c) but declared only in its private
 * core_priv.h; the prototypes are the ABI of those exports.
 */
int ib_port_register_client_groups(struct ib_device *ibdev, u32 port_num,
				   const struct attribute_group **groups);
void ib_port_unregister_client_groups(struct ib_device *ibdev, u32 port_num,
				      const struct attribute_group **groups);

struct cm_device {
	struct list_head entry;		/* on cm.devices; cm.lock */
	struct kref kref;		/* one for ib_client, one per id */
	struct ib_device *ib_dev;
	__be64 ca_guid;
	u8 ack_delay;
	bool going_away;		/* cm.lock */
	bool gid_watch;			/* a RoCE port: gid_doom.c looks */
	struct ib_event_handler event_handler;	/* GID changes */
	struct delayed_work stale_work;	/* cm_cancel_stale_sends() again */
	unsigned int stale_tries;	/* of @stale_work; racy, bounded */
	u32 num_ports;			/* rdma_end_port() */
	struct cm_port *port[];		/* [port_num - 1]; NULL: no IB CM */
};

/* Counters of received MADs dropped, and why (debugfs ib_cm/counters). */
enum cm_counter {
	CM_CNT_RX,			/* every MAD received */
	CM_CNT_RX_MALFORMED,		/* failed cm_msg_parse() */
	CM_CNT_RX_UNKNOWN_ATTR,		/* an attribute id we do not know */
	CM_CNT_RX_UNKNOWN_ID,		/* no id for the comm id it names */
	CM_CNT_RX_BAD_STATE,		/* its id is in a state that ignores it */
	CM_CNT_RX_DUPLICATE,		/* a duplicate REQ, REP or SIDR_REQ */
	CM_CNT_RX_NO_LISTENER,		/* REQ/SIDR_REQ for no listener */
	CM_CNT_RX_STALE,		/* REQ rejected as a stale connection */
	CM_CNT_RX_LAP_APR,		/* LAP or APR dropped (RoCE, bad) */
	CM_CNT_RX_NOMEM,		/* dropped for want of memory */
	CM_CNT_TX,			/* MADs posted */
	CM_CNT_TX_ERR,			/* MADs we could not post */
	CM_CNT_TIMEOUT,			/* sends that ran out of retries */
	CM_CNT_TX_STALE,		/* sends cancelled: their GID left */
	CM_CNT_GID_DOOMED,		/* GID entries marked (gid_doom.c) */
	CM_CNT_TX_REQ_PACED,		/* REQs that waited for a slot */
	CM_CNT_TX_FLUSHED,		/* awaited sends the QP flushed */
	CM_CNT_TX_NETDEV_DOWN,		/* refused: the GID's netdev is down */
	CM_CNT_MAX
};

struct cm_globals {
	spinlock_t lock;		/* the tables below; see the top */
	struct list_head devices;	/* cm_device; lock */
	struct list_head listeners;	/* cm_id_priv.listen_entry; lock */
	struct xarray local_ids;	/* index -> cm_id_priv; lock for writers */
	u32 local_id_next;
	u32 local_id_xor;		/* random, so comm ids are not guessable */
	DECLARE_HASHTABLE(remote_ids, 8);	/* by (remote comm id, guid) */
	DECLARE_HASHTABLE(remote_qpns, 8);	/* by (remote QPN, guid) */
	__be64 next_service_id;		/* IB_CM_ASSIGN_SERVICE_ID */
	atomic_long_t counters[CM_CNT_MAX];
	atomic_long_t nr_ids;		/* live ids (debugfs ib_cm/ids) */
	struct workqueue_struct *wq;
};

extern struct cm_globals cm;

static inline void cm_count(enum cm_counter c)
{
	atomic_long_inc(&cm.counters[c]);
}

struct cm_device *cm_device_get_by_ib(struct ib_device *ib_dev);
void cm_device_put(struct cm_device *cm_dev);
struct cm_port *cm_port_of(struct cm_device *cm_dev, u32 port_num);

/* ---- ids (id.c) ---- */

/* An event waiting for the id's cm_handler, with storage for its data. */
struct cm_event_elem {
	struct list_head entry;		/* on cm_id_priv.events */
	struct ib_cm_event ev;		/* points into the fields below */
	struct sa_path_rec path[2];
	u8 data[IB_CM_DREP_PRIVATE_DATA_SIZE];	/* private data, 224 at most */
	u8 info[CM_ARI_INFO_MAX];
	struct cm_id_priv *listen;	/* REQ/SIDR_REQ: ref on the listener */
};

/* A path's address vector on this device (cm_av_init(), mad.c). */
struct cm_av {
	struct cm_port *port;
	u16 pkey_index;
	struct rdma_ah_attr ah_attr;	/* owns a sgid_attr ref if GRH */
	struct ib_ah *mad_ah;		/* to the peer's CM; may be NULL */
};

/* A path the id left (migration, a new LAP): freed with the id. */
struct cm_old_av {
	struct list_head entry;		/* on cm_id_priv.old_avs */
	struct cm_av av;
};

/*
 * An alternate path (lap.c): from a REQ's alternate path or a LAP, loaded
 * into the QP with the primary one (IB_QP_ALT_PATH), the id's path after
 * an IB_EVENT_PATH_MIG. IB ports only, as in-tree.
 */
struct cm_alt {
	bool valid;
	bool taken;			/* the id migrated to it */
	u8 ack_timeout;			/* the QP's alt_timeout */
	struct cm_av av;		/* av.mad_ah: the id's once taken */
	struct cm_old_av *spare;	/* for the primary path a migration leaves */
};

struct cm_id_priv {
	struct ib_cm_id id;		/* handed to the user */

	/*
	 * One reference for the user (dropped by ib_destroy_cm_id() or when
	 * the handler asks for destruction), one while @work is queued, one
	 * while @timewait_work is pending, one per MAD in flight, and
	 * short-lived ones of the receive path. The last put completes
	 * @done (ib_destroy_cm_id() waits for it) or, after a destruction
	 * asked for by the handler, frees the id.
	 */
	refcount_t refcount;
	struct completion done;
	bool free_on_last_put;

	struct cm_device *cm_dev;	/* device reference */
	struct work_struct work;	/* delivers @events on cm.wq */
	struct delayed_work timewait_work;
	unsigned long flags;		/* CM_FLAG_*, atomic bitops */
	/*
	 * The timeout CM_FLAG_NOTIFY_TIMEOUT stands for (REQ, REP, DREQ or
	 * SIDR_REQ error): written before the bit is set, read after it is
	 * cleared (both under @lock).
	 */
	enum ib_cm_event_type timeout_type;

	spinlock_t lock;		/* the fields below, and id.state */
	bool destroying;		/* no more cm_handler calls */
	struct list_head events;	/* cm_event_elem, oldest first */
	struct ib_mad_send_buf *msg;	/* the send waiting for an answer */
	bool msg_stale;			/* @msg cancelled: its GID left */
	bool msg_cancelled;		/* @msg's cancel found it on the QP */
	void *last_mad;			/* last REP/MRA/RTU/DREP, to resend */
	/* A REQ waiting for a slot of its port (pace.c): */
	struct list_head pace_entry;	/* port->req_wait; port->pace_lock */
	struct cm_msg *paced_req;	/* the REQ to send */
	unsigned int paced_timeout_ms;
	int paced_retries;
	bool mra_delayed;		/* @last_mad is an MRA not sent yet */

	/*
	 * The path: set before the id is visible to the receive path, and
	 * changed afterwards only under @lock, by a path migration (lap.c).
	 */
	struct cm_port *port;
	u16 pkey_index;
	struct rdma_ah_attr ah_attr;	/* data path; owns a sgid_attr ref */
	bool has_av;
	bool passive;			/* made for a received REQ */
	struct ib_ah *mad_ah;		/* to the remote CM's QP1 */
	u8 packet_life_time;
	u8 path_mtu;

	/* The connection. */
	__be64 tid;
	__be64 remote_ca_guid;
	u32 local_qpn;
	u32 remote_qpn;
	enum ib_qp_type qp_type;
	u32 sq_psn;
	u32 rq_psn;
	u8 responder_resources;
	u8 initiator_depth;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 local_ack_timeout;
	u8 max_cm_retries;
	u8 remote_cm_response_timeout;	/* how long the peer may take */
	u8 local_cm_response_timeout;	/* how long we may take */
	u32 qkey;			/* SIDR */

	/* Alternate paths (lap.c): @lock; id.lap_state too. */
	struct cm_alt alt;
	struct list_head old_avs;	/* cm_old_av */
	void *lap_mra;			/* our MRA of the LAP, for duplicates */

	/* Table membership: cm.lock. */
	u32 local_index;		/* in cm.local_ids */
	struct hlist_node remote_id_node;
	struct hlist_node remote_qpn_node;
	bool in_remote_ids;
	bool in_remote_qpns;
	struct list_head listen_entry;	/* on cm.listeners */
	bool listening;
	__be64 service_mask;
	unsigned int listen_sharecount;	/* ib_cm_insert_listen() users */
};

/* cm_id_priv.flags */
#define CM_FLAG_NOTIFY_EST	0	/* ib_cm_notify(IB_EVENT_COMM_EST) */
#define CM_FLAG_NOTIFY_MIG	1	/* ib_cm_notify(IB_EVENT_PATH_MIG) */
#define CM_FLAG_NOTIFY_TIMEOUT	2	/* a send timed out, no event memory */
#define CM_FLAG_NOTIFY_TIMEWAIT	3	/* timewait ended (no memory needed) */

static inline struct cm_id_priv *to_priv(struct ib_cm_id *id)
{
	return container_of(id, struct cm_id_priv, id);
}

struct cm_id_priv *cm_id_alloc(struct ib_device *device,
			       ib_cm_handler handler, void *context);
void cm_get(struct cm_id_priv *priv);
void cm_put(struct cm_id_priv *priv);
void cm_destroy(struct cm_id_priv *priv, bool from_handler);
void cm_discard_new(struct cm_id_priv *priv);
struct cm_id_priv *cm_lookup_local(__be32 local_id);
struct cm_id_priv *cm_lookup_remote(__be32 remote_id, __be64 guid);
struct cm_id_priv *cm_insert_remote_id(struct cm_id_priv *priv);
struct cm_id_priv *cm_insert_remote_qpn(struct cm_id_priv *priv);
void cm_unlink_remote(struct cm_id_priv *priv);
struct cm_event_elem *cm_event_alloc(enum ib_cm_event_type type, gfp_t gfp);
void cm_event_free(struct cm_event_elem *elem);
void cm_queue_event(struct cm_id_priv *priv, struct cm_event_elem *elem);
void cm_notify_timeout_locked(struct cm_id_priv *priv,
			      enum ib_cm_event_type type);
void cm_enter_timewait(struct cm_id_priv *priv);
void cm_cancel_msg(struct cm_id_priv *priv);

/* ---- MAD I/O (mad.c) ---- */

unsigned int cm_time_ms(u8 iba_time);
unsigned int cm_msg_timeout_ms(u8 packet_life_time, u8 response_timeout);
unsigned int cm_wait_ms(const struct cm_id_priv *priv);
int cm_av_init(struct cm_device *cm_dev, struct sa_path_rec *path,
	       const struct ib_gid_attr *sgid_attr, struct cm_av *av);
void cm_av_destroy(struct cm_av *av);
int cm_set_av_from_path(struct cm_id_priv *priv, struct sa_path_rec *path,
			const struct ib_gid_attr *sgid_attr);
int cm_set_av_from_wc(struct cm_id_priv *priv, struct cm_port *port,
		      struct ib_mad_recv_wc *wc);
int cm_send(struct cm_id_priv *priv, const struct cm_msg *msg,
	    unsigned int timeout_ms, int retries, bool keep);
int cm_send_again(struct cm_id_priv *priv, const struct cm_msg *msg);
int cm_send_flags(struct cm_id_priv *priv, const struct cm_msg *msg,
		  unsigned int timeout_ms, int retries, bool keep,
		  unsigned long flags);
void cm_pace_port_init(struct cm_port *port);
int cm_pace_req_locked(struct cm_id_priv *priv, const struct cm_msg *msg,
		       unsigned int timeout_ms, int retries);
void cm_pace_done(struct cm_port *port);
void cm_pace_forget(struct cm_id_priv *priv);
int cm_send_built(struct cm_id_priv *priv, const void *mad);
int cm_resend_last(struct cm_id_priv *priv);
void cm_send_reply_from_wc(struct cm_port *port,
			   struct ib_mad_recv_wc *wc, const struct cm_msg *msg);
__be64 cm_new_tid(struct cm_port *port);
void cm_send_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_wc *send_wc);
void cm_recv_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_buf *send_buf,
		     struct ib_mad_recv_wc *recv_wc);
void cm_recv_msg(struct cm_port *port, struct ib_mad_recv_wc *wc,
		 struct cm_msg *msg);
void cm_recv_buf(struct cm_port *port, struct ib_mad_recv_wc *wc,
		 const void *buf, size_t len);
void cm_send_timeout(struct cm_id_priv *priv, enum ib_cm_state state,
		     __be16 attr_id);
unsigned int cm_cancel_stale_sends(struct cm_device *cm_dev);

/* ---- listeners (listen.c) ---- */

bool cm_service_match(__be64 want, __be64 mask, __be64 got);
struct cm_id_priv *cm_find_listener(struct ib_device *dev, __be64 service_id);

/* ---- per message (req.c, rep.c, rej.c, mra.c, disc.c, sidr.c) ---- */

void cm_path_from_req(struct sa_path_rec *path, const struct cm_req_info *req,
		      const struct rdma_ah_attr *wc_ah, bool roce);
void cm_recv_req(struct cm_port *port, struct ib_mad_recv_wc *wc,
		 struct cm_msg *msg);
void cm_recv_rep(struct cm_port *port, struct cm_msg *msg);
void cm_recv_rtu(struct cm_port *port, struct cm_msg *msg);
void cm_recv_rej(struct cm_port *port, struct cm_msg *msg);
void cm_recv_mra(struct cm_port *port, struct cm_msg *msg);
void cm_recv_dreq(struct cm_port *port, struct ib_mad_recv_wc *wc,
		  struct cm_msg *msg);
void cm_recv_drep(struct cm_port *port, struct cm_msg *msg);
void cm_recv_lap(struct cm_port *port, struct ib_mad_recv_wc *wc,
		 struct cm_msg *msg);
void cm_recv_sidr_req(struct cm_port *port, struct ib_mad_recv_wc *wc,
		      struct cm_msg *msg);
void cm_recv_sidr_rep(struct cm_port *port, struct cm_msg *msg);
void cm_reject_from_wc(struct cm_port *port, struct ib_mad_recv_wc *wc,
		       const struct cm_msg *rcvd,
		       enum ib_cm_rej_reason reason);
void cm_reject_from_wc_ari(struct cm_port *port, struct ib_mad_recv_wc *wc,
			   const struct cm_msg *rcvd,
			   enum ib_cm_rej_reason reason,
			   const void *ari, u8 ari_length);
int cm_send_rej_locked(struct cm_id_priv *priv, enum ib_cm_rej_reason reason,
		       const void *ari, u8 ari_length,
		       const void *private_data, u8 private_data_len);
int cm_send_dreq_locked(struct cm_id_priv *priv, const void *private_data,
			u8 private_data_len, bool wait);
int cm_send_drep_locked(struct cm_id_priv *priv, const void *private_data,
			u8 private_data_len);
int cm_send_sidr_rep_locked(struct cm_id_priv *priv,
			    struct ib_cm_sidr_rep_param *param);
void cm_establish(struct cm_id_priv *priv);

/* ---- alternate paths, LAP, path migration (lap.c) ---- */

u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time);
void cm_path_to_info(struct cm_path_info *pi, struct sa_path_rec *path,
		     u8 ack_timeout);
void cm_path_from_alt_info(struct sa_path_rec *path,
			   const struct cm_path_info *pi, u16 pkey, u8 mtu);
int cm_alt_load(struct cm_id_priv *priv, struct sa_path_rec *path,
		u8 ack_timeout);
void cm_alt_release(struct cm_id_priv *priv);
void cm_alt_qp_attr(struct cm_id_priv *priv, struct ib_qp_attr *attr,
		    int *mask, enum ib_qp_state qp_state);
int cm_migrate(struct cm_id_priv *priv);
int cm_send_lap_mra(struct cm_id_priv *priv, const struct cm_msg *msg,
		    bool delay);

/* ---- GID entries about to be deleted (gid_doom.c) ---- */

bool cm_gid_entry_gone(const struct ib_gid_attr *attr);
bool cm_gid_doomed(const struct ib_gid_attr *attr);
void cm_doom_reap(const struct ib_device *dev, bool all);
unsigned int cm_doom_count(void);
int cm_doom_init(void);
void cm_doom_exit(void);

/* ---- debugfs (main.c) ---- */

void cm_debugfs_init(void);
void cm_debugfs_exit(void);

#if IS_ENABLED(CONFIG_KUNIT)
/* Test hooks, exported only to KUnit tests. */
long cm_counter_read(enum cm_counter c);
extern unsigned int cm_req_window;	/* req_window, pace.c */
void cm_pace_read(struct cm_port *port, unsigned int *inflight,
		  unsigned int *waiting);
int cm_pace_req(struct cm_id_priv *priv, const struct cm_msg *msg,
		unsigned int timeout_ms, int retries);
void cm_pace_window_changed(void);
long cm_ids_live(void);
void cm_test_add_device(struct cm_device *cm_dev);
void cm_test_del_device(struct cm_device *cm_dev);
void cm_test_flush(void);
bool cm_av_sgid_gone(const struct ib_gid_attr *attr);
bool cm_ah_netdev_down(const struct ib_gid_attr *attr);
bool cm_send_is_stale(struct cm_id_priv *priv, struct cm_device *cm_dev);
unsigned int cm_doom_gids(struct ib_device *dev, const struct net_device *ndev,
			  unsigned long expires);
bool cm_send_done_timed_out(struct cm_id_priv *priv,
			    struct ib_mad_send_buf *buf,
			    enum ib_wc_status status,
			    enum ib_cm_state *state);
#endif

#endif /* _OPENRDMA_IBCM_PRIV_H */
