/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softrnic: the internal interface between the verbs layer and the wire
 * engine of the software iWARP RNIC.
 *
 * Verbs layer (main.c, verbs.c, pd/cq/qp/srq/mr/mmap .c): the ib_device,
 * the objects of this file, the rings shared with rdma-core's siw provider,
 * the STag table, memory access checks and completions.
 * Wire engine (wire*.c): MPA FPDUs, DDP and RDMAP over the TCP socket that
 * iw_cm's host CM hands over (include/openrdma/iw_host.h).
 *
 * Work queues are the uABI of stock siw (include/uapi/rdma/siw-abi.h): the
 * SQ is an array of struct siw_sqe, the RQ and the SRQ arrays of struct
 * siw_rqe, the CQ an array of struct siw_cqe followed by a struct
 * siw_cq_ctrl (the notification word). For a user object the array is
 * mmapped by rdma-core, which writes WQEs and reads CQEs directly: an
 * element belongs to the producer while its flags lack SIW_WQE_VALID and to
 * the consumer while they have it; the consumer clears the flags (release)
 * when done. Every ring size is a power of two (rdma-core indexes with
 * a free-running u32 modulo the size).
 *
 * The engine never reads the rings itself: it takes WQEs with sr_sq_take()
 * and sr_rq_take(), which copy them out (a user cannot change a WQE after it
 * was taken) and validate them, and it returns them with sr_sq_complete()
 * and sr_rq_complete(). A WQE taken is the engine's until it completes it.
 */
#ifndef _SOFTRNIC_H
#define _SOFTRNIC_H

#include <linux/bvec.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include <openrdma/iw_host.h>

#define SR_NODE_DESC		SIW_NODE_DESC_COMMON
#define SR_MAX_QP		(16 * 1024)
#define SR_MAX_QP_WR		(4 * 1024)	/* SQ and RQ elements */
#define SR_MAX_CQE		(SR_MAX_QP_WR * 8)
#define SR_MAX_CQ		(16 * 1024)
#define SR_MAX_PD		(16 * 1024)
#define SR_MAX_MR		(64 * 1024)
#define SR_MAX_SRQ		(4 * 1024)
#define SR_MAX_SRQ_WR		(4 * 1024)
#define SR_MAX_ORD		128		/* outbound READs */
#define SR_MAX_IRD		128		/* inbound READs */
#define SR_MAX_FR_PAGES		512		/* pages of one fast-reg MR */
#define SR_MAX_MR_SIZE		((u64)SZ_1G * 4)

/*
 * The device, one per `rdma link add NAME type softrnic netdev NETDEV`.
 * ibdev first (ib_alloc_device()).
 */
struct sr_dev {
	struct ib_device ibdev;
	/* Held from newlink to dealloc_driver; never changes. */
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	/* On sr_dev_list, under sr_dev_list_lock (main.c). */
	struct list_head list;
	/* QP number -> struct sr_qp (iw_get_qp); the xarray's lock. */
	struct xarray qp_xa;
	/* STag index (STag >> 8) -> struct sr_mr; lookups under RCU. */
	struct xarray mr_xa;
	u32 mr_next;		/* cyclic index allocation, under xa_lock */
	/* Object counts against the SR_MAX_* limits. */
	atomic_t num_pd, num_cq, num_qp, num_srq, num_mr;
	/* orcm_iw_host_register() succeeded (main.c, before registration). */
	bool host_registered;
};

static inline struct sr_dev *to_sr_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sr_dev, ibdev);
}

struct sr_ucontext {
	struct ib_ucontext ibuc;
};

struct sr_pd {
	struct ib_pd ibpd;
};

static inline struct sr_pd *to_sr_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sr_pd, ibpd);
}

/*
 * Completion queue. Producer: the verbs layer (sr_sq_complete(),
 * sr_rq_complete(), flushes), any context. Consumer: rdma-core (user CQ) or
 * poll_cq (kernel CQ).
 */
struct sr_cq {
	struct ib_cq ibcq;
	/*
	 * Protects put, get (kernel CQ), and the CQEs the kernel writes; taken
	 * with irqsave (completions arrive from softirq).
	 */
	spinlock_t lock;
	struct siw_cqe *queue;		/* num_cqe, then *notify; vmalloc_user */
	struct siw_cq_ctrl *notify;	/* armed flags: SIW_NOTIFY_* */
	u32 num_cqe;			/* power of two */
	u32 put;			/* next element the kernel fills */
	u32 get;			/* kernel CQ: next element poll_cq reads */
	bool kernel;
	struct rdma_user_mmap_entry *entry;	/* user CQ: the ring */
};

static inline struct sr_cq *to_sr_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sr_cq, ibcq);
}

/* Shared receive queue. */
struct sr_srq {
	struct ib_srq ibsrq;
	/* Protects get, put (kernel SRQ), limit, armed; irqsave. */
	spinlock_t lock;
	struct siw_rqe *recvq;		/* vmalloc_user */
	u32 num_rqe;			/* power of two */
	u32 get;			/* next element sr_rq_take() reads */
	u32 put;			/* kernel SRQ: next element posted */
	u32 limit;			/* IB_SRQ_LIMIT, valid while armed */
	bool armed;
	bool kernel;
	struct rdma_user_mmap_entry *entry;
};

static inline struct sr_srq *to_sr_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sr_srq, ibsrq);
}

/* The engine's per-connection state, defined by the engine. */
struct sr_conn;

/*
 * RC queue pair. ibqp is core-allocated; destroy_qp returns only when every
 * reference is gone (iw_cm's through iw_add_ref/iw_rem_ref, lookups through
 * sr_qp_get()).
 */
struct sr_qp {
	struct ib_qp ibqp;
	struct sr_dev *sdev;
	struct kref ref;		/* sr_qp_get()/sr_qp_put() */
	struct completion freed;	/* last sr_qp_put() */

	/*
	 * Serialises modify_qp, the hand-off (sr_conn_attach() is called
	 * with it held) and destroy_qp. Process context only.
	 */
	struct mutex modify_lock;
	/*
	 * Protects state; irqsave. Readers that only decide whether to do
	 * work (may be stale by the time they act) use READ_ONCE().
	 */
	spinlock_t state_lock;
	enum ib_qp_state state;

	/* Send queue; sq_lock (irqsave) protects sq_put (kernel) and sq_get. */
	spinlock_t sq_lock;
	struct siw_sqe *sendq;		/* vmalloc_user */
	u32 num_sqe;			/* power of two */
	u32 sq_put;			/* kernel QP: next element posted */
	u32 sq_get;			/* next element sr_sq_take() reads */

	/* Receive queue, unless srq; rq_lock (irqsave) for rq_put, rq_get. */
	spinlock_t rq_lock;
	struct siw_rqe *recvq;		/* NULL with an SRQ */
	u32 num_rqe;
	u32 rq_put;
	u32 rq_get;
	struct sr_srq *srq;

	struct sr_cq *scq;
	struct sr_cq *rcq;
	bool sq_sig_all;
	bool kernel;			/* created by a kernel ULP */
	u32 max_inline;
	/* RDMA READ credits from modify_qp; attach takes the MPA values. */
	u16 ird;			/* max_dest_rd_atomic */
	u16 ord;			/* max_rd_atomic */
	struct rdma_user_mmap_entry *sq_entry;
	struct rdma_user_mmap_entry *rq_entry;

	/*
	 * The engine's connection: set by sr_conn_attach(), cleared by
	 * sr_conn_destroy(), both under modify_lock; the engine owns what it
	 * points to.
	 */
	struct sr_conn *conn;
};

static inline struct sr_qp *to_sr_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sr_qp, ibqp);
}

enum sr_mr_type {
	SR_MR_DMA,	/* get_dma_mr: every kernel virtual address */
	SR_MR_USER,	/* reg_user_mr: an ib_umem */
	SR_MR_FAST,	/* alloc_mr(IB_MR_TYPE_MEM_REG): map_mr_sg + REG_MR */
};

/*
 * Memory region. The STag (lkey == rkey) is index << 8 | key; the index
 * finds it in sdev->mr_xa.
 */
struct sr_mr {
	struct ib_mr ibmr;
	struct sr_dev *sdev;
	enum sr_mr_type type;
	/*
	 * A reference per sr_mr_get(); dereg waits for the last. Holders keep
	 * it for one copy or one DDP segment, never across a wait for the peer.
	 */
	struct kref ref;
	struct completion freed;

	/*
	 * Protects stag, valid, iova, length, access (they change on
	 * IB_WR_REG_MR and invalidation of a fast-reg MR); irqsave.
	 */
	spinlock_t lock;
	u32 stag;
	bool valid;
	u64 iova;
	u64 length;
	int access;			/* IB_ACCESS_* */

	struct ib_umem *umem;		/* SR_MR_USER */
	/*
	 * SR_MR_FAST. The registration in use: its pages (kernel virtual
	 * addresses), written by IB_WR_REG_MR while the MR is invalid, under
	 * @lock, and read by the data path while it is valid.
	 */
	u64 *pages;
	u32 max_pages;
	u32 npages;
	u32 page_size;
	/*
	 * The mapping of the last map_mr_sg (owner: the ULP), which the next
	 * REG_MR copies into the registration. Staged apart so that a ULP can
	 * map while the MR is still valid, with the LOCAL_INV that ends the
	 * old registration chained before its REG_MR (ib_iser does).
	 */
	u64 *map_pages;
	u32 map_npages;
	u32 map_page_size;
	struct rcu_head rcu;		/* freed after RCU lookups end */
};

static inline struct sr_mr *to_sr_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sr_mr, ibmr);
}

/* ---- Provided by the verbs layer, called by the engine ---------------- */

/* QP references (any context). */
void sr_qp_get(struct sr_qp *qp);
void sr_qp_put(struct sr_qp *qp);

/*
 * Take the next send WQE, in SQ order. Local operations (SIW_OP_REG_MR,
 * SIW_OP_INVAL_STAG) are carried out and completed here and never returned.
 * Returns 1 with a validated copy in *sqe (opcode one of SIW_OP_WRITE,
 * SIW_OP_READ, SIW_OP_READ_LOCAL_INV, SIW_OP_SEND, SIW_OP_SEND_REMOTE_INV;
 * num_sge <= SIW_MAX_SGE, at most 1 for READ; inline data, if
 * SIW_WQE_INLINE, is sge[0].length <= SIW_MAX_INLINE bytes at &sge[1]),
 * 0 if the SQ is empty or the QP is not in RTS, or a negative errno when a
 * bad WQE was found (it was completed in error and the QP moved to ERR).
 * The engine keeps calling it until 0: rdma-core rings the doorbell only
 * when the SQ looked idle. Any context; takes sq_lock.
 */
int sr_sq_take(struct sr_qp *qp, struct siw_sqe *sqe);

/*
 * Take the next receive WQE, from the SRQ if the QP has one (firing the
 * SRQ limit event when it drops below the armed limit). Returns 1 with a
 * validated copy in *rqe, 0 if none is posted or the QP is in RESET/ERR,
 * negative after a bad WQE (completed in error, QP in ERR). Any context.
 */
int sr_rq_take(struct sr_qp *qp, struct siw_rqe *rqe);

/*
 * Complete a WQE taken above: a CQE on the send CQ if the WQE was signalled
 * (or sq_sig_all) or @status is not SIW_WC_SUCCESS; on the receive CQ
 * always. @solicited (an incoming SEND with SE) satisfies a CQ armed for
 * solicited completions; any CQE satisfies one armed for the next; an
 * error completion satisfies both. @inval: the incoming SEND with
 * invalidate invalidated @inval_stag (reported in the CQE). Any context.
 */
void sr_sq_complete(struct sr_qp *qp, const struct siw_sqe *sqe, u32 bytes,
		    enum siw_wc_status status);
void sr_rq_complete(struct sr_qp *qp, const struct siw_rqe *rqe, u32 bytes,
		    bool solicited, bool inval, u32 inval_stag,
		    enum siw_wc_status status);

/*
 * Move the QP to ERR: raise @event (an IB_EVENT_QP_* or 0 for none) to the
 * consumer, flush the WQEs still in the SQ and RQ with SIW_WC_WR_FLUSH_ERR
 * (WQEs the engine took are the engine's to complete). Calls nothing of the
 * engine: an engine that reports an error closes its own connection. The
 * engine calls it too when a connection has ended (after SQD as well), so
 * that what is left is flushed. Any context; idempotent.
 */
void sr_qp_to_error(struct sr_qp *qp, enum ib_event_type event);

/*
 * Memory access by STag/lkey. sr_mr_get() takes a reference on the MR that
 * @stag names (index and key byte must match), or returns NULL;
 * sr_mr_check() verifies, at the time of the call, that the MR is valid,
 * belongs to @pd, grants @access (IB_ACCESS_LOCAL_WRITE,
 * IB_ACCESS_REMOTE_READ, IB_ACCESS_REMOTE_WRITE; 0 for a local read) and
 * covers [@addr, @addr + @len). Errors: -ENOENT (no such or invalidated
 * STag), -EACCES (PD or rights), -ERANGE (bounds).
 */
struct sr_mr *sr_mr_get(struct sr_dev *sdev, u32 stag);
void sr_mr_put(struct sr_mr *mr);
int sr_mr_check(struct sr_mr *mr, struct ib_pd *pd, u64 addr, u64 len,
		int access);
/*
 * The pages behind [@addr, @addr + @len) of a checked MR, for an iov_iter
 * (ITER_BVEC) with the socket. Returns the number of entries filled, or
 * -E2BIG if more than @max are needed (ask for less).
 */
int sr_mr_bvec(struct sr_mr *mr, u64 addr, u32 len, struct bio_vec *bv,
	       unsigned int max);
/* Copy between a checked MR and @buf (@to_mem: into the MR). */
int sr_mr_copy(struct sr_mr *mr, u64 addr, void *buf, u32 len, bool to_mem);

/*
 * Convenience on top of the above. sr_sge_copy(): @len bytes starting
 * @offset bytes into the local SGE list of a WQE of @qp (lkeys of the QP's
 * PD; @to_mem needs IB_ACCESS_LOCAL_WRITE). sr_stag_copy(): a tagged
 * buffer named by the peer (@access IB_ACCESS_REMOTE_WRITE to place,
 * IB_ACCESS_REMOTE_READ to serve a READ). Both return 0 or the errors of
 * sr_mr_check(); sr_mem_status() turns those into a siw_wc_status.
 */
int sr_sge_copy(struct sr_qp *qp, const struct siw_sge *sge, u32 num_sge,
		u32 offset, void *buf, u32 len, bool to_mem);
int sr_stag_copy(struct sr_qp *qp, u32 stag, u64 addr, void *buf, u32 len,
		 int access, bool to_mem);
enum siw_wc_status sr_mem_status(int err);
/* Total length of an SGE list; -EINVAL above U32_MAX. */
s64 sr_sge_len(const struct siw_sge *sge, u32 num_sge);

/*
 * Invalidate @stag for @qp: @remote for an incoming SEND with invalidate
 * (only fast-reg MRs of the QP's PD), else a local invalidate (READ with
 * local invalidate, IB_WR_LOCAL_INV). 0, -ENOENT, -EACCES. Any context.
 */
int sr_stag_invalidate(struct sr_qp *qp, u32 stag, bool remote);

/* ---- Provided by the engine, called by the verbs layer ---------------- */

/* Module init/exit of the engine (workqueues, ...). */
int sr_wire_init(void);
void sr_wire_exit(void);

/*
 * iw_cm's ->attach() for @qp (orcm_iw_host_ops): take over @sock with the
 * negotiated @params. Called with qp->modify_lock held and the QP in INIT
 * or RTR; process context. The engine never takes modify_lock itself.
 * On 0 the engine owns @sock and @conn (it calls
 * orcm_iw_conn_*() for it) and has set qp->conn; the verbs layer then moves
 * the QP to RTS and kicks the SQ. Until then (and in RTR) the engine may
 * already receive: sr_rq_take() and the memory calls work before RTS,
 * sr_sq_take() returns 0. On error nothing of @sock or @conn is kept.
 */
int sr_conn_attach(struct sr_qp *qp, struct socket *sock,
		   const struct orcm_iw_mpa_params *params,
		   struct orcm_iw_conn *conn);

/*
 * New work in the SQ (post_send, the user doorbell, RTS). Any context
 * (kernel ULPs post from completion handlers): only schedules. A no-op
 * without a connection.
 */
void sr_tx_kick(struct sr_qp *qp);

/*
 * modify_qp to SQD (@abortive false: send what was taken, then FIN) or to
 * ERR (@abortive true: RST, now). Called with modify_lock held, process
 * context, qp->conn set; only starts the close. The end of the connection is reported to iw_cm with
 * orcm_iw_conn_released() and to the QP with sr_qp_to_error().
 */
void sr_conn_close(struct sr_qp *qp, bool abortive);

/*
 * destroy_qp, with qp->conn set: the QP is in ERR and sr_conn_close(qp,
 * true) was called. Waits until the engine no longer runs for @qp, has
 * completed or flushed every WQE it took, called orcm_iw_conn_released()
 * and released the socket; frees qp->conn and sets it NULL. Process
 * context, modify_lock held.
 */
void sr_conn_destroy(struct sr_qp *qp);

#endif /* _SOFTRNIC_H */
