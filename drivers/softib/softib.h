/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softib: a software InfiniBand HCA (link layer InfiniBand, node type CA,
 * one port per device) built on rdmavt. IB packets (LRH, GRH when present,
 * BTH and the extended transport headers, payload, ICRC) travel as the
 * payload of Ethernet frames of EtherType SOFTIB_ETHERTYPE on a carrier
 * netdev; the LRH's DLID routes, and the Ethernet header goes to the MAC
 * the DLID was last seen behind (struct softib_neigh), broadcast when it
 * is unknown, multicast or permissive.
 *
 * This header is the contract between the parts of the driver:
 *   main.c   module, `rdma link add NAME type softib netdev NETDEV`, rdmavt
 *            registration, netdev notifier (removal follows the netdev)
 *   net.c    the carrier: transmit an IB packet, receive hook
 *   icrc.c   the invariant CRC
 *   ud.c     UD, SMI (QP0) and GSI (QP1): send engine and receive; the
 *            receive checks every packet shares, then RC's go to rc_rx.c
 *   rc.c     RC send engine: requests, ACK/NAK and READ responses, go-back-N
 *   rc_rx.c  RC receive: the responder, and the requester's ACKs/responses
 *   sma.c    the subnet management agent (process_mad: SubnGet/Set) and
 *            its traps to the SM (trap 128 and 144)
 *   pma.c    the performance management agent (PortCounters)
 *   stats.c  drop counters (debugfs)
 *   mr.c     map_mr_sg: fast-registration MRs at the ULP's page size
 */
#ifndef SOFTIB_H
#define SOFTIB_H

#include <linux/netdevice.h>
#include <linux/pci.h>
#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

/* IEEE 802 "Local Experimental EtherType 1": never seen outside a test. */
#define SOFTIB_ETHERTYPE	0x88b5

#define SOFTIB_NPKEYS		16
#define SOFTIB_NGUIDS		1
#define SOFTIB_NUM_VLS		1	/* data VLs: VL0 only (+ VL15) */
#define SOFTIB_MAX_MTU		IB_MTU_4096
/*
 * NodeInfo identity (sma.c; main.c should report the same in
 * ib_device_attr). VendorID 0x025342: an IEEE 802c "Administratively
 * Assigned Identifier" (first octet x2: local, never an IEEE-assigned OUI
 * or CID), so it cannot collide with a real vendor.
 */
#define SOFTIB_VENDOR_ID	0x025342
#define SOFTIB_DEVICE_ID	0x0001
#define SOFTIB_HW_REV		1
/* The link as PortInfo and query_port report it: 4X QDR. */
#define SOFTIB_LINK_WIDTH	IB_WIDTH_4X
#define SOFTIB_LINK_SPEED	IB_SPEED_QDR
/* PortInfo capabilities of every softib port, CA's and switch's (sma.c) */
#define SOFTIB_WIDTH_SUPPORTED	3	/* LinkWidthSupported: 1X, 4X */
#define SOFTIB_SPEED_SUPPORTED	7	/* LinkSpeedSupported: SDR, DDR, QDR */
#define SOFTIB_VL_CAP		1	/* VLCap: VL0 */
#define SOFTIB_VL_ARB_CAP	8	/* VLArbitration{High,Low}Cap */
#define SOFTIB_RESP_TIME	18	/* RespTimeValue: 4.096 us << 18 */

/* Why a received packet was dropped; each has a counter (stats.c). */
enum softib_drop {
	SOFTIB_DROP_SHORT,	/* shorter than its headers say */
	SOFTIB_DROP_ICRC,	/* bad invariant CRC */
	SOFTIB_DROP_LVER,	/* LRH link version, LNH or GRH next header */
	SOFTIB_DROP_DLID,	/* DLID neither ours nor multicast */
	SOFTIB_DROP_OPCODE,	/* unknown or unsupported opcode */
	SOFTIB_DROP_QP,		/* no such QP, or QP type / state mismatch */
	SOFTIB_DROP_PKEY,	/* P_Key not in the port's table */
	SOFTIB_DROP_QKEY,	/* Q_Key mismatch */
	SOFTIB_DROP_PSN,	/* PSN outside the window */
	SOFTIB_DROP_PORT_DOWN,	/* port not ARMED/ACTIVE for this traffic */
	SOFTIB_DROP_NO_RWQE,	/* UD: no receive buffer posted */
	SOFTIB_DROP_MAD,	/* malformed SMP/GMP */
	/* RC (rc_rx.c) */
	SOFTIB_DROP_OPSEQ,	/* opcode out of sequence: NAK invalid request */
	SOFTIB_DROP_LEN,	/* payload length vs. opcode, MTU, RETH, WQE */
	SOFTIB_DROP_RKEY,	/* R_Key or access check: NAK remote access */
	SOFTIB_DROP_RNR,	/* no receive WQE: RNR NAK */
	SOFTIB_DROP_DUP,	/* duplicate request: re-ACKed, not re-executed */
	SOFTIB_DROP_MGMT,	/* a SubnSet the management policy refuses */
	SOFTIB_DROP_NR
};

/* PMA PortCounters (IBA 16.1.3.5), 64-bit internally, saturated on read. */
struct softib_counters {
	atomic64_t xmit_data;	/* in 32-bit words, as the PMA reports */
	atomic64_t rcv_data;
	atomic64_t xmit_pkts;
	atomic64_t rcv_pkts;
	atomic64_t xmit_discards;
	atomic64_t rcv_errors;
	atomic64_t xmit_mcast_pkts;
	atomic64_t rcv_mcast_pkts;
	atomic64_t drops[SOFTIB_DROP_NR];
};

/*
 * pma.c: what each counter read when it was last cleared through the PMA
 * (PortCounters and PortCountersExtended clear separately). Under rvp.lock.
 */
enum softib_pc {
	SOFTIB_PC_RCV_ERRORS, SOFTIB_PC_XMIT_DISCARDS, SOFTIB_PC_VL15_DROPPED,
	SOFTIB_PC_XMIT_DATA, SOFTIB_PC_RCV_DATA, SOFTIB_PC_XMIT_PKTS,
	SOFTIB_PC_RCV_PKTS, SOFTIB_PC_NR
};

enum softib_pcx {
	SOFTIB_PCX_XMIT_DATA, SOFTIB_PCX_RCV_DATA, SOFTIB_PCX_XMIT_PKTS,
	SOFTIB_PCX_RCV_PKTS, SOFTIB_PCX_UNI_XMIT, SOFTIB_PCX_UNI_RCV,
	SOFTIB_PCX_MC_XMIT, SOFTIB_PCX_MC_RCV, SOFTIB_PCX_NR
};

struct softib_pma_base {
	u64 pc[SOFTIB_PC_NR];
	u64 pcx[SOFTIB_PCX_NR];
};

struct softib_dev;

/*
 * net.c: who sits behind a carrier. The MAC each unicast LID's frames go
 * to, learned from the frames received (their SLID and Ethernet source),
 * one table per CA port and per switch port. Bounded (the entry seen
 * longest ago makes room), aged (SOFTIB_NEIGH_AGE without a frame from
 * the LID), flushed when the link goes down (main.c, sw.c) or the port's
 * own LID changes (noticed at the next frame in or out); never taught a
 * LID of the port's own. A LID not in the table,
 * a multicast LID and the permissive LID go to broadcast.
 */
#define SOFTIB_NEIGH_MAX	64
#define SOFTIB_NEIGH_AGE	(60 * HZ)

struct softib_neigh_ent {
	unsigned long seen;		/* jiffies of the last frame from it */
	u16 lid;			/* 0: a free slot */
	u8 mac[ETH_ALEN];
};

struct softib_neigh {
	/*
	 * lock protects ent[] and the SM binding. Taken with irqsave: the
	 * SMA flushes under rvp.lock (irqsave), and nothing is taken under
	 * it.
	 */
	spinlock_t lock;
	u16 own;			/* the port's LID ent[] was learned at */
	struct softib_neigh_ent ent[SOFTIB_NEIGH_MAX];
	/*
	 * A CA port's SM binding (mgmt_policy sm-only, softib_mgmt_set_ok()):
	 * the Ethernet source the first SubnSet from the wire came from
	 * since the link came up. A switch keeps its own (struct softib_sw).
	 */
	bool sm_bound;
	u8 sm_mac[ETH_ALEN];
	/* frames sent to a learned MAC, and to broadcast */
	atomic64_t ucast, bcast;
};

void softib_neigh_init(struct softib_neigh *n);
void softib_neigh_learn(struct softib_neigh *n, u16 slid, u16 own,
			u16 own_mask, const u8 *mac, unsigned long now);
bool softib_neigh_lookup(struct softib_neigh *n, u16 dlid, u8 *mac,
			 unsigned long now);
void softib_neigh_flush(struct softib_neigh *n, bool sm);
void softib_neigh_own(struct softib_neigh *n, u16 own);
unsigned int softib_neigh_count(struct softib_neigh *n, unsigned long now);
bool softib_neigh_sm_ok(struct softib_neigh *n, const u8 *mac);
const u8 *softib_skb_src(const struct sk_buff *skb);

/*
 * net.c: management from the wire (module parameter mgmt_policy). sm-only
 * (the default): a port whose M_Key is 0 takes SubnSet from the wire only
 * from the Ethernet source its first SubnSet came from since its link came
 * up (its SM); open: from anyone, as IBA has it. A non-zero M_Key is
 * IBA's own check in either.
 */
enum softib_mgmt_policy {
	SOFTIB_MGMT_SM_ONLY,
	SOFTIB_MGMT_OPEN,
};

enum softib_mgmt_policy softib_mgmt_policy_get(void);
bool softib_mgmt_set_ok(struct softib_neigh *n, __be64 mkey, const u8 *mac);

/*
 * sma.c: the traps the port sends to its master SM (IBA vol 1 14.2.5.1,
 * 14.3.12): one at a time, resent until the SM answers with a
 * SubnTrapRepress of the same TID or the sends run out.
 */
struct softib_trap_stats {
	u64 sent;			/* SubnTrap posted (first sends and resends) */
	u64 repressed;			/* answered by the SM */
	u64 timed_out;			/* every send went unanswered */
	u64 dropped;			/* not sent: no LID, no SM LID, link down */
	u64 replaced;			/* a newer trap took the slot unanswered */
	u64 stale;			/* a repress that matched nothing */
};

struct softib_trap {
	/*
	 * lock protects everything below but work. It is never taken with
	 * rvp.lock held, nor rvp.lock with it: the port's state is read
	 * under rvp.lock first, then the trap is changed under lock.
	 */
	spinlock_t lock;
	/*
	 * agent: our send-only MAD agent on QP0, set by softib_trap_start()
	 * and cleared by softib_trap_stop(); the work may use it unlocked,
	 * since stop cancels the work before it unregisters the agent.
	 */
	struct ib_mad_agent *agent;
	bool stopped;			/* the device is going: queue nothing */
	bool pending;			/* smp waits for its repress */
	u8 sends;			/* how many times smp was sent */
	u32 seq;			/* low half of the next TID */
	u32 cap_reported;		/* CapabilityMask of the last trap 144 */
	struct ib_smp smp;		/* the pending SubnTrap(Notice) */
	struct softib_trap_stats st;
	struct delayed_work work;	/* sends smp, then resends it */
};

/*
 * One port. rvp is rdmavt's per-port state: sm_lid, sm_sl, gid_prefix,
 * mkey, mkeyprot, mkey_lease_period, subnet_timeout, port_cap_flags,
 * pkey_violations, qkey_violations, the QP0/QP1 pointers and the
 * multicast tree. The SMA (sma.c) is the only writer of the port's
 * management state below; everything is under rvp.lock unless said.
 */
struct softib_port {
	struct rvt_ibport rvp;
	struct softib_dev *sdev;
	u32 port_num;			/* always 1 */

	/* protected by rvp.lock; read locklessly (READ_ONCE) on the data path */
	u32 lid;			/* base LID, 0 = unassigned */
	u8 lmc;
	u8 state;			/* enum ib_port_state */
	u8 phys_state;			/* enum ib_port_phys_state */
	u8 mtu;				/* neighbour MTU, enum ib_mtu */
	u8 vl_high_limit;
	u8 init_type_reply;
	u8 link_down_default;		/* LinkDownDefaultState */
	u16 pkeys[SOFTIB_NPKEYS];	/* index 0: 0xffff (full default) */
	u8 sl_to_vl[16];
	__be64 guids[SOFTIB_NGUIDS];	/* GUIDInfo: [0] is the port GUID */

	struct softib_counters cnt;
	struct rvt_qp *qp[2];		/* not used: rvp.qp[] is the truth */

	/* sma.c, under rvp.lock */
	bool carrier;			/* the carrier netdev has its link */
	u8 link_width_enabled;
	u8 link_speed_enabled;
	u8 op_vls;			/* OperationalVLs (1: VL0) */
	u8 vlstall_hoqlife;		/* PortInfo octet 42, as set */
	u8 phy_overrun_thresholds;	/* PortInfo octet 53, as set */
	u8 link_downed;			/* PMA LinkDownedCounter, saturating */
	u8 vl_arb[4][IB_SMP_DATA_SIZE];	/* VLArbitrationTable blocks 1-4 */
	struct softib_pma_base pma;	/* pma.c */
	struct softib_trap trap;	/* sma.c, under trap.lock */
	struct softib_neigh neigh;	/* net.c, under neigh.lock */
};

/*
 * The device. rdi must stay first (rdmavt's and ib_core's container).
 * ndev: the carrier, held (netdev_hold) for the device's life.
 */
struct softib_dev {
	struct rvt_dev_info rdi;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct list_head list;		/* softib_list, under softib_lock */
	__be64 node_guid;
	struct softib_port port;
	struct pci_dev fake_pdev;	/* only for rdmavt's message prefixes */
	struct dentry *debugfs;
	struct workqueue_struct *wq;	/* send engine (ud.c, rc.c) */
	/* added by wt-softib (main.c) */
	struct work_struct free_work;	/* rdmavt teardown after unregister */
	bool registered;		/* rvt_register_device() succeeded */
	bool live;			/* receive path may use it (RCU) */
	bool carrier;			/* last link state told to the SMA */
};

/* Responder resources (READs and atomics) a softib QP grants, at most. */
#define SOFTIB_MAX_RD_ATOMIC	16

/*
 * rc_rx.c: the RDMA READ request an s_ack_queue[] slot answers, as the
 * requester sent it first (a duplicate is checked against it).
 */
struct softib_rd_req {
	u64 va;
	u32 rkey;
	u32 len;
	u32 psn;
};

/* rvt_qp.priv of every softib QP (qp.c) */
struct softib_qp_priv {
	struct rvt_qp *qp;
	struct work_struct send_work;	/* runs the send engine on sdev->wq */
	/*
	 * Affiliated events the receive path raised, delivered by event_work
	 * (on sdev->wq): bits SOFTIB_QP_EV_*, set and taken with atomic
	 * bitops, no lock.
	 */
	struct work_struct event_work;
	unsigned long events;

	/* RC only; everything below under qp->s_lock (and r_lock: rc_rx.c) */
	/* requester: go-back-N already started from gbn_psn (until progress) */
	bool gbn_armed;
	u32 gbn_psn;
	/* requester: one past the highest PSN sent (valid once one was) */
	bool hi_valid;
	u32 hi_psn;
	/* responder: an ACK for r_psn - 1 is owed */
	bool ack_pending;
	/* responder: a NAK is owed: nak_aeth at nak_psn */
	bool nak_pending;
	u32 nak_aeth;
	u32 nak_psn;
	/* responder: next READ response PSN of s_ack_queue[s_tail_ack_queue] */
	u32 resp_psn;
	u32 resp_first;		/* the PSN that gets the FIRST/ONLY opcode */
	/*
	 * responder: the RETH of the RDMA WRITE in progress, and whether
	 * r_sge's MR reference was given back at an RNR NAK (wr_parked: the
	 * retried packet takes the R_Key anew).
	 */
	u64 wr_va;
	u32 wr_rkey;
	bool wr_parked;
	/* responder: each s_ack_queue[] slot's READ request (rc_rx.c) */
	struct softib_rd_req rd[SOFTIB_MAX_RD_ATOMIC + 1];
};

static inline struct softib_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct softib_dev, rdi.ibdev);
}

static inline struct softib_dev *rdi_to_sdev(struct rvt_dev_info *rdi)
{
	return container_of(rdi, struct softib_dev, rdi);
}

/* net.c */
int softib_net_init(void);
void softib_net_exit(void);
int softib_xmit(struct softib_dev *sdev, struct sk_buff *skb);
int softib_eth_xmit(struct net_device *ndev, struct sk_buff *skb,
		    struct softib_neigh *n);

/* icrc.c */
u32 softib_icrc(const void *pkt, unsigned int len_without_icrc);

/* ud.c */
void softib_ud_rcv(struct softib_dev *sdev, struct sk_buff *skb);
u16 softib_pkey_at(struct softib_port *port, unsigned int idx);

/* sma.c / pma.c: ib_device_ops.process_mad */
int softib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
		       const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		       const struct ib_mad *in, struct ib_mad *out,
		       size_t *out_mad_size, u16 *out_mad_pkey_index);
void softib_sma_port_init(struct softib_port *port);
bool softib_ucast_lid_ok(u16 lid, u32 now);
/* A port's M_Key state, wherever it lives (sma.c, sw_sma.c). */
struct softib_mkey_ref {
	__be64 key;
	u16 lease_period;
	u8 *prot;
	unsigned long *lease_timeout;
	u16 *violations;
};

bool softib_mkey_check(const struct softib_mkey_ref *m,
		       const struct ib_smp *smp, bool ignore, bool *hide_mkey);
bool softib_enable_ok(u8 v, u8 all, u8 supported);
u8 softib_enable_new(u8 v, u8 all, u8 supported, u8 cur);
void softib_sma_link_change(struct softib_port *port, bool up);
void softib_sma_cap_mask_chg(struct softib_port *port);
void softib_trap_start(struct softib_port *port);
void softib_trap_stop(struct softib_port *port);
void softib_trap_stats(struct softib_port *port, struct softib_trap_stats *st,
		       bool *pending);
int softib_pma_process(struct softib_port *port, const struct ib_mad *in,
		       struct ib_mad *out);

/* stats.c */
void softib_drop(struct softib_port *port, enum softib_drop why);

/* added by wt-softib */
/* main.c */
struct softib_dev *softib_find_rcu(struct net_device *ndev);
/*
 * A netdev is one CA's carrier or one switch port's, never both (main.c,
 * softib_lock): a switch port holds its netdev by a claim.
 */
struct softib_claim {
	struct list_head node;		/* main.c's softib_claims */
	struct net_device *ndev;
};

int softib_ndev_claim(struct softib_claim *c, struct net_device *ndev);
void softib_ndev_unclaim(struct softib_claim *c);
int softib_ca_claim(struct softib_dev *sdev);
void softib_ca_unclaim(struct softib_dev *sdev);
enum ib_mtu softib_ndev_mtu(const struct net_device *ndev);
enum ib_mtu softib_max_mtu(struct softib_dev *sdev);
enum ib_mtu softib_active_mtu(struct softib_port *port);
/* qp.c: rdmavt's QP hooks */
void softib_qp_init_driver_f(struct rvt_driver_provided *f);
/* ud.c */
void softib_ud_send(struct rvt_qp *qp);
/* net.c: the packet in skb to the carrier, or to our own receive path */
struct softib_hdr;
struct sk_buff *softib_pkt_build(struct softib_dev *sdev,
				 const struct softib_hdr *h,
				 struct rvt_sge_state *ss, u32 len, gfp_t gfp);
void softib_pkt_out(struct softib_dev *sdev, struct sk_buff *skb);
/* qp.c: run the QP's send engine (whatever its state) */
void softib_queue_send(struct rvt_qp *qp);
void softib_qp_events_init(struct softib_qp_priv *priv);
void softib_qp_comm_est(struct rvt_qp *qp);
void softib_qp_error(struct rvt_qp *qp, enum ib_wc_status status);
/* rc.c */
void softib_rc_send(struct rvt_qp *qp);
void softib_rc_restart(struct rvt_qp *qp, u32 psn, int wait);
void softib_rc_reset(struct rvt_qp *qp);
void softib_rc_go_back(struct rvt_qp *qp, u32 psn);
void softib_rc_fail(struct rvt_qp *qp, enum ib_wc_status status);
bool softib_wqe_is_rd_atomic(const struct rvt_swqe *wqe);
u32 softib_rc_ack_aeth(struct rvt_qp *qp);
/* mr.c: ib_device_ops.map_mr_sg, at the page size given */
/* The page sizes a fast-registration MR takes: 4 KiB to 2 GiB. */
#define SOFTIB_MR_PAGE_SIZES	GENMASK_ULL(31, 12)
int softib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		     int sg_nents, unsigned int *sg_offset);
/* main.c, for the KUnit tests: `rdma link add NAME type softib netdev ND` */
int softib_newlink(const char *name, struct net_device *ndev);
/* rc_rx.c */
void softib_rc_rx_reset(struct rvt_qp *qp);
void softib_rc_rcv(struct softib_port *port, struct rvt_qp *qp,
		   const struct softib_hdr *h, const u8 *pkt);
/* stats.c */
u64 softib_drop_count(struct softib_port *port, enum softib_drop why);
void softib_debugfs_add(struct softib_dev *sdev);
void softib_debugfs_remove(struct softib_dev *sdev);
void softib_debugfs_init(void);
void softib_debugfs_exit(void);

#endif /* SOFTIB_H */
