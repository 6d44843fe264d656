// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the subnet management agent of a port (IBA vol 1 ch. 14), as
 * ib_device_ops.process_mad. ib_mad calls it first for every MAD that
 * reaches QP0 or QP1 of the port (and for the SMPs a local agent sends to
 * this port itself); it answers SubnGet/SubnSet on the SMI, hands the
 * PerfMgt class to the PMA (pma.c) and lets everything else (responses to
 * the SM on this port, SA, CM, traps) go on to ib_mad's agents.
 *
 * The port's management state lives in struct softib_port and in rdmavt's
 * rvt_ibport (sm_lid, sm_sl, gid_prefix, M_Key, subnet timeout, capability
 * mask, violation counters), all under rvp.lock. Port events are collected
 * under the lock and dispatched to ib_core after it is dropped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/unaligned.h>
#include <kunit/static_stub.h>
#include <rdma/ib_pma.h>

#include "softib.h"

#define SOFTIB_GUIDS_PER_BLOCK	8
#define SOFTIB_PKEYS_PER_BLOCK	32
#define SOFTIB_CLIENT_REREG	0x80	/* PortInfo octet 51, bit 7 */
/* The capabilities the port always has (opensm and ib_cm add their own). */
#define SOFTIB_PORT_CAPS	(IB_PORT_SYS_IMAGE_GUID_SUP | \
				 IB_PORT_CLIENT_REG_SUP)

/* Port events raised while rvp.lock is held, dispatched after. */
struct softib_evq {
	enum ib_event_type ev[8];
	unsigned int n;
};

/* One SMP being answered. */
struct softib_smp_ctx {
	struct softib_port *port;
	u32 mod;			/* attribute modifier */
	u32 in_port;			/* the port it arrived on */
	bool hide_mkey;			/* protect level 1, wrong M_Key */
	struct softib_evq evq;
};

static void softib_evq_add(struct softib_evq *q, enum ib_event_type type)
{
	if (!WARN_ON_ONCE(q->n >= ARRAY_SIZE(q->ev)))
		q->ev[q->n++] = type;
}

/* The one place a port event leaves the driver (a KUnit stub catches it). */
static void softib_sma_event(struct softib_port *port,
			     enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &port->sdev->rdi.ibdev,
		.event = type,
		.element.port_num = port->port_num,
	};

	KUNIT_STATIC_STUB_REDIRECT(softib_sma_event, port, type);
	ib_dispatch_event(&ev);
}

static void softib_evq_flush(struct softib_port *port, struct softib_evq *q)
{
	unsigned int i;

	for (i = 0; i < q->n; i++)
		softib_sma_event(port, q->ev[i]);
	q->n = 0;
}

/* PortState changes, with the events ib_core expects for them. */
static void softib_set_state(struct softib_port *port, u8 state,
			     struct softib_evq *q)
{
	lockdep_assert_held(&port->rvp.lock);
	if (port->state == state)
		return;
	if (port->state == IB_PORT_ACTIVE)
		softib_evq_add(q, IB_EVENT_PORT_ERR);
	else if (state == IB_PORT_ACTIVE)
		softib_evq_add(q, IB_EVENT_PORT_ACTIVE);
	WRITE_ONCE(port->state, state);
}

/*
 * The physical link follows the carrier unless the SM disabled it: with
 * the carrier the link trains (LinkUp) and a DOWN port comes to INIT;
 * without it the port is DOWN and the PHY sits in LinkDownDefaultState.
 */
static void softib_link_train(struct softib_port *port, struct softib_evq *q)
{
	lockdep_assert_held(&port->rvp.lock);
	if (port->phys_state == IB_PORT_PHYS_STATE_DISABLED) {
		softib_set_state(port, IB_PORT_DOWN, q);
	} else if (port->carrier) {
		WRITE_ONCE(port->phys_state, IB_PORT_PHYS_STATE_LINK_UP);
		if (port->state == IB_PORT_DOWN)
			softib_set_state(port, IB_PORT_INIT, q);
	} else {
		WRITE_ONCE(port->phys_state,
			   port->link_down_default == IB_PORT_PHYS_STATE_SLEEP ?
			   IB_PORT_PHYS_STATE_SLEEP : IB_PORT_PHYS_STATE_POLLING);
		softib_set_state(port, IB_PORT_DOWN, q);
	}
}

/* ---- traps ---------------------------------------------------------------- */

/*
 * Which traps a softib port sends, and why (issue 27, "traps").
 *
 * IBA vol 1 14.2.5.1 (Notice, Table 131) lists trap 128 ("link state of
 * at least one port of switch at LIDADDR has changed") with producer type
 * Switch: in a fabric the switch port at the far end of a CA's link reports
 * the link. softib has no switch yet (two CAs back to back, one link), so
 * nobody would tell the SM that a link came back, and opensm, which sweeps
 * only every sweep_interval, would leave the ports INIT until then. opensm's
 * osm_trap_rcv.c does not look at the producer of a trap 128: any generic
 * trap 128 or 144 makes it answer with a SubnTrapRepress and start a heavy
 * sweep at once (sweep_on_trap, its default). So a softib port sends:
 *
 *  - trap 128 (Urgent, producer CA, LIDADDR = its own LID) when its link
 *    comes up (carrier back, the port DOWN -> INIT), standing in for the
 *    missing switch; a link going down cannot carry one;
 *  - trap 144 (Informational, producer CA, LIDADDR and the new
 *    CapabilityMask, no other local changes) when its CapabilityMask
 *    changes (an SM, CM or other agent set or cleared its bit through
 *    ib_modify_port), which IBA has a CA send.
 *
 * A trap goes LID-routed through QP0 to MasterSMLID at MasterSMSL, only
 * when the port has a LID and an SM LID and its link is up (INIT, ARMED or
 * ACTIVE: SMPs flow on VL15 from INIT on; waiting for ACTIVE would never
 * send the link-up trap, the SM being the one that activates). It is resent
 * every 4.096 us * 2^SubnetTimeout (clamped to 200 ms .. 4 s), at most
 * SOFTIB_TRAP_SENDS times, until a SubnTrapRepress of its TID arrives.
 * NoticeToggle and NoticeCount are 0 in a trap. One trap is outstanding at
 * a time: a newer one replaces it (opensm reacts to both with the same
 * heavy sweep).
 */
#define SOFTIB_TRAP_SENDS	5
#define SOFTIB_TRAP_MIN_MS	200
#define SOFTIB_TRAP_MAX_MS	4000
#define SOFTIB_TRAP_128		128	/* link state change */
#define SOFTIB_TRAP_144		144	/* capability mask / local changes */
#define SOFTIB_PRODUCER_CA	1

/* The port's state a trap needs, read under rvp.lock. */
struct softib_trap_src {
	u16 lid;
	u16 sm_lid;
	u8 sm_sl;
	u8 state;
	u8 subnet_timeout;
	u32 cap_mask;
	__be64 mkey;
};

static void softib_trap_src_get(struct softib_port *port,
				struct softib_trap_src *src)
{
	struct rvt_ibport *rvp = &port->rvp;
	unsigned long flags;

	spin_lock_irqsave(&rvp->lock, flags);
	src->lid = port->lid;
	src->sm_lid = rvp->sm_lid;
	src->sm_sl = rvp->sm_sl;
	src->state = port->state;
	src->subnet_timeout = rvp->subnet_timeout;
	src->cap_mask = READ_ONCE(rvp->port_cap_flags);
	src->mkey = rvp->mkey;
	spin_unlock_irqrestore(&rvp->lock, flags);
}

static bool softib_trap_can_send(const struct softib_trap_src *src)
{
	return src->lid && src->sm_lid && src->state >= IB_PORT_INIT &&
	       src->state <= IB_PORT_ACTIVE;
}

/**
 * softib_trap_build - a SubnTrap(Notice) SMP
 * @smp: filled entirely
 * @number: the generic trap number (128 or 144)
 * @src: the port's LID, CapabilityMask and M_Key
 * @tid: its transaction ID
 *
 * The Notice's octets (IBA 14.2.5.1): 0 IsGeneric and Type, 1-3
 * ProducerType, 4-5 TrapNumber, 6-7 IssuerLID, 8-9 NoticeToggle and
 * NoticeCount, 10-63 DataDetails (trap 128: LIDADDR at 10; trap 144:
 * LIDADDR at 12, OtherLocalChanges in bit 0 of 15, CapabilityMask at 16,
 * ChangeFlags at 20, CapabilityMask2 at 22). IssuerGID (64-79) does not
 * fit an SMP's data and is not sent.
 */
static void softib_trap_build(struct ib_smp *smp, u16 number,
			      const struct softib_trap_src *src, __be64 tid)
{
	u8 *d = smp->data;

	memset(smp, 0, sizeof(*smp));
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = 1;
	smp->method = IB_MGMT_METHOD_TRAP;
	smp->tid = tid;
	smp->attr_id = IB_SMP_ATTR_NOTICE;
	smp->mkey = src->mkey;
	d[0] = number == SOFTIB_TRAP_128 ? IB_NOTICE_TYPE_URGENT :
					   IB_NOTICE_TYPE_INFO;
	put_unaligned_be24(SOFTIB_PRODUCER_CA, &d[1]);
	put_unaligned_be16(number, &d[4]);
	put_unaligned_be16(src->lid, &d[6]);
	if (number == SOFTIB_TRAP_128) {
		put_unaligned_be16(src->lid, &d[10]);
	} else {
		put_unaligned_be16(src->lid, &d[12]);
		put_unaligned_be32(src->cap_mask, &d[16]);
	}
}

/* Run the trap's work after @delay jiffies (a KUnit stub catches it). */
static void softib_trap_kick(struct softib_port *port, unsigned long delay)
{
	lockdep_assert_held(&port->trap.lock);
	KUNIT_STATIC_STUB_REDIRECT(softib_trap_kick, port, delay);
	mod_delayed_work(system_wq, &port->trap.work, delay);
}

static void softib_trap_send_done(struct ib_mad_agent *agent,
				  struct ib_mad_send_wc *wc)
{
	rdma_destroy_ah(wc->send_buf->ah, 0);
	ib_free_send_mad(wc->send_buf);
}

/*
 * Post @smp to @dlid (SL @sl) through @agent; the send handler frees the
 * AH and the buffer. A KUnit stub catches it.
 */
static int softib_trap_post(struct softib_port *port,
			    struct ib_mad_agent *agent,
			    const struct ib_smp *smp, u16 dlid, u8 sl)
{
	struct rdma_ah_attr attr = {};
	struct ib_mad_send_buf *send;
	struct ib_ah *ah;
	int ret;

	KUNIT_STATIC_STUB_REDIRECT(softib_trap_post, port, agent, smp, dlid,
				   sl);
	if (!agent)
		return -ENODEV;
	attr.type = rdma_ah_find_type(agent->device, port->port_num);
	rdma_ah_set_dlid(&attr, dlid);
	rdma_ah_set_sl(&attr, sl);
	rdma_ah_set_port_num(&attr, port->port_num);
	ah = rdma_create_ah(agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	send = ib_create_send_mad(agent, 0, 0, 0, IB_MGMT_MAD_HDR,
				  IB_MGMT_MAD_DATA, GFP_KERNEL,
				  IB_MGMT_BASE_VERSION);
	if (IS_ERR(send)) {
		ret = PTR_ERR(send);
		goto out_ah;
	}
	memcpy(send->mad, smp, sizeof(*smp));
	send->ah = ah;
	ret = ib_post_send_mad(send, NULL);
	if (ret)
		goto out_free;
	return 0;

out_free:
	ib_free_send_mad(send);
out_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	return ret;
}

static unsigned long softib_trap_interval(u8 subnet_timeout)
{
	u64 ns = 4096ULL << min_t(u8, subnet_timeout, 31);

	return msecs_to_jiffies(clamp_t(u64, div_u64(ns, NSEC_PER_MSEC),
					SOFTIB_TRAP_MIN_MS,
					SOFTIB_TRAP_MAX_MS));
}

/**
 * softib_trap_run - send the pending trap (again), or give it up
 * @port: the port
 *
 * The trap's work. It is kicked again before the send, so that a repress
 * that comes at once finds it rescheduled and only needs to clear pending.
 */
static void softib_trap_run(struct softib_port *port)
{
	struct softib_trap *tr = &port->trap;
	struct softib_trap_src src;
	struct ib_mad_agent *agent;
	struct ib_smp smp;
	unsigned long flags;

	softib_trap_src_get(port, &src);
	spin_lock_irqsave(&tr->lock, flags);
	if (!tr->pending || tr->stopped)
		goto unlock;
	if (tr->sends >= SOFTIB_TRAP_SENDS) {
		tr->pending = false;
		tr->st.timed_out++;
		goto unlock;
	}
	if (!softib_trap_can_send(&src)) {	/* the SM or the link went */
		tr->pending = false;
		tr->st.dropped++;
		goto unlock;
	}
	tr->sends++;
	tr->st.sent++;
	smp = tr->smp;
	agent = tr->agent;
	softib_trap_kick(port, softib_trap_interval(src.subnet_timeout));
	spin_unlock_irqrestore(&tr->lock, flags);

	/* Unanswered, a failed post is resent like a lost one. */
	if (softib_trap_post(port, agent, &smp, src.sm_lid, src.sm_sl))
		pr_debug("%s: trap %u not posted\n",
			 dev_name(&port->sdev->rdi.ibdev.dev),
			 get_unaligned_be16(&smp.data[4]));
	return;

unlock:
	spin_unlock_irqrestore(&tr->lock, flags);
}

static void softib_trap_work(struct work_struct *work)
{
	struct softib_trap *tr = container_of(to_delayed_work(work),
					      struct softib_trap, work);

	softib_trap_run(container_of(tr, struct softib_port, trap));
}

/* Queue trap @number; sent at once by the work. Not under rvp.lock. */
static void softib_trap_raise(struct softib_port *port, u16 number)
{
	struct softib_trap *tr = &port->trap;
	struct softib_trap_src src;
	unsigned long flags;
	u64 tid;

	softib_trap_src_get(port, &src);
	spin_lock_irqsave(&tr->lock, flags);
	if (tr->stopped)
		goto unlock;
	if (!softib_trap_can_send(&src)) {
		tr->st.dropped++;
		goto unlock;
	}
	if (tr->pending)
		tr->st.replaced++;
	/* ib_mad's convention: an agent's TIDs carry its hi_tid on top */
	tid = (u64)(tr->agent ? tr->agent->hi_tid : 0) << 32 | ++tr->seq;
	softib_trap_build(&tr->smp, number, &src, cpu_to_be64(tid));
	tr->pending = true;
	tr->sends = 0;
	softib_trap_kick(port, 0);
unlock:
	spin_unlock_irqrestore(&tr->lock, flags);
}

/* A SubnTrapRepress that passed the M_Key check: is it our trap's? */
static void softib_trap_repress(struct softib_port *port,
				const struct ib_smp *smp)
{
	struct softib_trap *tr = &port->trap;
	unsigned long flags;

	spin_lock_irqsave(&tr->lock, flags);
	if (tr->pending && smp->tid == tr->smp.tid &&
	    smp->attr_id == IB_SMP_ATTR_NOTICE) {
		/* the work, if it still runs, finds nothing pending */
		tr->pending = false;
		tr->st.repressed++;
	} else {
		tr->st.stale++;
	}
	spin_unlock_irqrestore(&tr->lock, flags);
}

static void softib_trap_init(struct softib_port *port)
{
	struct softib_trap *tr = &port->trap;

	spin_lock_init(&tr->lock);
	INIT_DELAYED_WORK(&tr->work, softib_trap_work);
	tr->agent = NULL;
	tr->stopped = false;
	tr->pending = false;
	tr->sends = 0;
	tr->cap_reported = READ_ONCE(port->rvp.port_cap_flags);
	memset(&tr->st, 0, sizeof(tr->st));
}

/**
 * softib_trap_start - register the port's trap sender on QP0
 * @port: the port of a registered device (ib_mad knows it)
 *
 * Without an agent (this failed) traps are counted but never leave.
 */
void softib_trap_start(struct softib_port *port)
{
	struct ib_mad_agent *agent;
	unsigned long flags;

	agent = ib_register_mad_agent(&port->sdev->rdi.ibdev, port->port_num,
				      IB_QPT_SMI, NULL, 0,
				      softib_trap_send_done, NULL, port, 0);
	if (IS_ERR(agent)) {
		pr_warn("%s: no MAD agent for traps: %pe\n",
			dev_name(&port->sdev->rdi.ibdev.dev), agent);
		return;
	}
	spin_lock_irqsave(&port->trap.lock, flags);
	port->trap.agent = agent;
	spin_unlock_irqrestore(&port->trap.lock, flags);
}

/**
 * softib_trap_stop - no more traps: cancel the work, free the agent
 * @port: the port
 *
 * Before ib_mad forgets the device. Unregistering the agent flushes its
 * sends (their handler frees AH and buffer). Idempotent.
 */
void softib_trap_stop(struct softib_port *port)
{
	struct softib_trap *tr = &port->trap;
	struct ib_mad_agent *agent;
	unsigned long flags;

	spin_lock_irqsave(&tr->lock, flags);
	tr->stopped = true;
	tr->pending = false;
	spin_unlock_irqrestore(&tr->lock, flags);
	/* nothing requeues it now; after this the agent is ours alone */
	cancel_delayed_work_sync(&tr->work);
	spin_lock_irqsave(&tr->lock, flags);
	agent = tr->agent;
	tr->agent = NULL;
	spin_unlock_irqrestore(&tr->lock, flags);
	if (agent)
		ib_unregister_mad_agent(agent);
}

/* The counters (debugfs), and whether a trap waits for its repress. */
void softib_trap_stats(struct softib_port *port, struct softib_trap_stats *st,
		       bool *pending)
{
	unsigned long flags;

	spin_lock_irqsave(&port->trap.lock, flags);
	*st = port->trap.st;
	*pending = port->trap.pending;
	spin_unlock_irqrestore(&port->trap.lock, flags);
}

/**
 * softib_sma_cap_mask_chg - the port's CapabilityMask changed
 * @port: the port
 *
 * rdmavt's cap_mask_chg, after ib_modify_port set or cleared bits: trap 144
 * if the mask differs from the last one a trap reported (or the reset's).
 */
void softib_sma_cap_mask_chg(struct softib_port *port)
{
	u32 caps = READ_ONCE(port->rvp.port_cap_flags);
	unsigned long flags;
	bool changed;

	/*
	 * rdmavt calls this for every ib_modify_port() that names bits, also
	 * when they were set already; opensm sweeps on each trap 144.
	 */
	spin_lock_irqsave(&port->trap.lock, flags);
	changed = caps != port->trap.cap_reported;
	port->trap.cap_reported = caps;
	spin_unlock_irqrestore(&port->trap.lock, flags);
	if (changed)
		softib_trap_raise(port, SOFTIB_TRAP_144);
}

/**
 * softib_sma_port_init - the port's management state after a reset
 * @port: the port; port->guids[0] already holds the port GUID
 *
 * Call once, before the device is registered (it initialises rvp.lock).
 */
void softib_sma_port_init(struct softib_port *port)
{
	struct rvt_ibport *rvp = &port->rvp;

	spin_lock_init(&rvp->lock);
	port->port_num = 1;
	port->carrier = false;
	port->lid = 0;
	port->lmc = 0;
	port->state = IB_PORT_DOWN;
	port->phys_state = IB_PORT_PHYS_STATE_POLLING;
	port->link_down_default = IB_PORT_PHYS_STATE_POLLING;
	port->mtu = SOFTIB_MAX_MTU;
	port->vl_high_limit = 0;
	port->init_type_reply = 0;
	memset(port->pkeys, 0, sizeof(port->pkeys));
	port->pkeys[0] = 0xffff;
	memset(port->sl_to_vl, 0, sizeof(port->sl_to_vl));
	memset(port->vl_arb, 0, sizeof(port->vl_arb));
	port->link_width_enabled = SOFTIB_WIDTH_SUPPORTED;
	port->link_speed_enabled = SOFTIB_SPEED_SUPPORTED;
	port->op_vls = SOFTIB_VL_CAP;
	port->vlstall_hoqlife = 0;
	port->phy_overrun_thresholds = 0;
	port->link_downed = 0;
	memset(&port->pma, 0, sizeof(port->pma));

	rvp->sm_lid = 0;
	rvp->sm_sl = 0;
	rvp->gid_prefix = cpu_to_be64(0xfe80000000000000ULL);
	rvp->mkey = 0;
	rvp->mkeyprot = 0;
	rvp->mkey_lease_period = 0;
	rvp->mkey_lease_timeout = 0;
	rvp->subnet_timeout = 0;
	rvp->port_cap_flags |= SOFTIB_PORT_CAPS;
	rvp->mkey_violations = 0;
	rvp->pkey_violations = 0;
	rvp->qkey_violations = 0;
	softib_trap_init(port);
}

/**
 * softib_sma_link_change - the carrier netdev's link went up or down
 * @port: the port
 * @up: netif_carrier_ok() of the carrier
 */
void softib_sma_link_change(struct softib_port *port, bool up)
{
	struct softib_evq q = {};
	bool was_down, link_up;
	unsigned long flags;

	spin_lock_irqsave(&port->rvp.lock, flags);
	if (!up && port->phys_state == IB_PORT_PHYS_STATE_LINK_UP &&
	    port->link_downed != 0xff)
		port->link_downed++;
	port->carrier = up;
	was_down = port->state == IB_PORT_DOWN;
	softib_link_train(port, &q);
	link_up = was_down && port->state != IB_PORT_DOWN;
	spin_unlock_irqrestore(&port->rvp.lock, flags);
	softib_evq_flush(port, &q);
	if (link_up)
		softib_trap_raise(port, SOFTIB_TRAP_128);
}

/*
 * M_Key check (IBA 14.2.4), of a CA port's key or of a switch's (its port
 * 0's, sw_sma.c). Protect bits 0 and 1 let any Get through (level 1 hides
 * PortInfo:M_Key), 2 and 3 refuse a Get with a wrong key; a Set or
 * TrapRepress needs the key at every level. A key of 0 turns checking off.
 * A refused SMP counts a violation and starts the lease; when the lease
 * runs out the protect bits fall to 0. The caller holds the lock of m.
 */
bool softib_mkey_check(const struct softib_mkey_ref *m,
		       const struct ib_smp *smp, bool ignore, bool *hide_mkey)
{
	*hide_mkey = false;
	if (*m->lease_timeout && time_after_eq(jiffies, *m->lease_timeout)) {
		*m->lease_timeout = 0;
		*m->prot = 0;
	}
	if (ignore || !m->key || smp->mkey == m->key) {
		*m->lease_timeout = 0;
		return true;
	}
	if (smp->method == IB_MGMT_METHOD_GET && *m->prot < 2) {
		*hide_mkey = *m->prot == 1;
		return true;
	}
	if (*m->violations != 0xffff)
		(*m->violations)++;
	if (!*m->lease_timeout && m->lease_period)
		*m->lease_timeout = (jiffies + m->lease_period * HZ) ?: 1;
	return false;
}

static bool softib_mkey_ok(struct softib_port *port, const struct ib_smp *smp,
			   int mad_flags, bool *hide_mkey)
{
	struct rvt_ibport *rvp = &port->rvp;
	struct softib_mkey_ref m = {
		.key = rvp->mkey,
		.lease_period = rvp->mkey_lease_period,
		.prot = &rvp->mkeyprot,
		.lease_timeout = &rvp->mkey_lease_timeout,
		.violations = &rvp->mkey_violations,
	};

	lockdep_assert_held(&rvp->lock);
	return softib_mkey_check(&m, smp, mad_flags & IB_MAD_IGNORE_MKEY,
				 hide_mkey);
}

/* ---- attributes: Get -------------------------------------------------- */

static u16 softib_get_node_desc(struct softib_smp_ctx *c, u8 *data)
{
	if (c->mod)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memcpy(data, c->port->sdev->rdi.ibdev.node_desc, IB_SMP_DATA_SIZE);
	return 0;
}

static u16 softib_get_node_info(struct softib_smp_ctx *c, u8 *data)
{
	struct ib_device *ibdev = &c->port->sdev->rdi.ibdev;
	struct ib_node_info *ni = (struct ib_node_info *)data;

	if (c->mod)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = 1;
	ni->node_type = RDMA_NODE_IB_CA;
	ni->num_ports = 1;
	ni->sys_guid = ibdev->attrs.sys_image_guid ?: ibdev->node_guid;
	ni->node_guid = ibdev->node_guid;
	ni->port_guid = c->port->guids[0];
	ni->partition_cap = cpu_to_be16(SOFTIB_NPKEYS);
	ni->device_id = cpu_to_be16(SOFTIB_DEVICE_ID);
	ni->revision = cpu_to_be32(SOFTIB_HW_REV);
	ni->local_port_num = c->in_port;
	put_unaligned_be24(SOFTIB_VENDOR_ID, ni->vendor_id);
	return 0;
}

/* PortInfo's AttributeModifier: the port, or 0 for the one it came in on. */
static bool softib_pi_mod_ok(struct softib_smp_ctx *c)
{
	return c->mod == 0 || c->mod == c->port->port_num;
}

static u16 softib_get_port_info(struct softib_smp_ctx *c, u8 *data)
{
	struct softib_port *port = c->port;
	struct rvt_ibport *rvp = &port->rvp;
	struct ib_port_info *pi = (struct ib_port_info *)data;

	lockdep_assert_held(&rvp->lock);
	if (!softib_pi_mod_ok(c))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	pi->mkey = c->hide_mkey ? 0 : rvp->mkey;
	pi->gid_prefix = rvp->gid_prefix;
	pi->lid = cpu_to_be16(port->lid);
	pi->sm_lid = cpu_to_be16(rvp->sm_lid);
	pi->cap_mask = cpu_to_be32(rvp->port_cap_flags);
	pi->mkey_lease_period = cpu_to_be16(rvp->mkey_lease_period);
	pi->local_port_num = c->in_port;
	pi->link_width_enabled = port->link_width_enabled;
	pi->link_width_supported = SOFTIB_WIDTH_SUPPORTED;
	pi->link_width_active = SOFTIB_LINK_WIDTH;
	pi->linkspeed_portstate = SOFTIB_SPEED_SUPPORTED << 4 | port->state;
	pi->portphysstate_linkdown = port->phys_state << 4 |
				     port->link_down_default;
	pi->mkeyprot_resv_lmc = rvp->mkeyprot << 6 | port->lmc;
	pi->linkspeedactive_enabled = SOFTIB_LINK_SPEED << 4 |
				      port->link_speed_enabled;
	pi->neighbormtu_mastersmsl = port->mtu << 4 | rvp->sm_sl;
	pi->vlcap_inittype = SOFTIB_VL_CAP << 4;
	pi->vl_high_limit = port->vl_high_limit;
	pi->vl_arb_high_cap = SOFTIB_VL_ARB_CAP;
	pi->vl_arb_low_cap = SOFTIB_VL_ARB_CAP;
	pi->inittypereply_mtucap = port->init_type_reply << 4 | SOFTIB_MAX_MTU;
	pi->vlstallcnt_hoqlife = port->vlstall_hoqlife;
	pi->operationalvl_pei_peo_fpi_fpo = port->op_vls << 4;
	pi->mkey_violations = cpu_to_be16(rvp->mkey_violations);
	pi->pkey_violations = cpu_to_be16(READ_ONCE(rvp->pkey_violations));
	pi->qkey_violations = cpu_to_be16(READ_ONCE(rvp->qkey_violations));
	pi->guid_cap = SOFTIB_NGUIDS;
	pi->clientrereg_resv_subnetto = rvp->subnet_timeout & 0x1f;
	pi->resv_resptimevalue = SOFTIB_RESP_TIME;
	pi->localphyerrors_overrunerrors = port->phy_overrun_thresholds;
	return 0;
}

/*
 * GUIDInfo: the modifier is the block (of 8 GUIDs); @set copies the
 * writable entries (all but 0, the port GUID) from @data.
 */
static u16 softib_guid_block(struct softib_smp_ctx *c, __be64 *data, bool set)
{
	unsigned int i;

	if (c->mod >= DIV_ROUND_UP(SOFTIB_NGUIDS, SOFTIB_GUIDS_PER_BLOCK))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	for (i = 0; i < SOFTIB_GUIDS_PER_BLOCK; i++) {
		unsigned int n = c->mod * SOFTIB_GUIDS_PER_BLOCK + i;

		if (n >= SOFTIB_NGUIDS)
			break;
		if (!set)
			data[i] = c->port->guids[n];
		else if (n)
			c->port->guids[n] = data[i];
	}
	return 0;
}

static u16 softib_get_guid_info(struct softib_smp_ctx *c, u8 *data)
{
	return softib_guid_block(c, (__be64 *)data, false);
}

/* P_KeyTable: bits 15-0 of the modifier are the block (of 32 P_Keys). */
static bool softib_pkey_block_ok(struct softib_smp_ctx *c)
{
	return c->mod < DIV_ROUND_UP(SOFTIB_NPKEYS, SOFTIB_PKEYS_PER_BLOCK);
}

static u16 softib_get_pkey_table(struct softib_smp_ctx *c, u8 *data)
{
	__be16 *p = (__be16 *)data;
	unsigned int i;

	lockdep_assert_held(&c->port->rvp.lock);
	if (!softib_pkey_block_ok(c))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	for (i = 0; i < SOFTIB_PKEYS_PER_BLOCK; i++) {
		unsigned int n = c->mod * SOFTIB_PKEYS_PER_BLOCK + i;

		if (n < SOFTIB_NPKEYS)
			p[i] = cpu_to_be16(c->port->pkeys[n]);
	}
	return 0;
}

/* SLtoVLMappingTable: 16 four-bit VLs; the modifier is reserved on a CA. */
static u16 softib_get_sl_to_vl(struct softib_smp_ctx *c, u8 *data)
{
	unsigned int i;

	lockdep_assert_held(&c->port->rvp.lock);
	for (i = 0; i < 8; i++)
		data[i] = c->port->sl_to_vl[2 * i] << 4 |
			  c->port->sl_to_vl[2 * i + 1];
	return 0;
}

/* VLArbitrationTable: bits 31-16 of the modifier are the block, 1 to 4. */
static int softib_vl_arb_block(struct softib_smp_ctx *c)
{
	u32 block = c->mod >> 16, port = c->mod & 0xffff;

	if (block < 1 || block > 4 || (port && port != c->port->port_num))
		return -1;
	return block - 1;
}

static u16 softib_get_vl_arb(struct softib_smp_ctx *c, u8 *data)
{
	int b = softib_vl_arb_block(c);

	lockdep_assert_held(&c->port->rvp.lock);
	if (b < 0)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memcpy(data, c->port->vl_arb[b], IB_SMP_DATA_SIZE);
	return 0;
}

/* ---- attributes: Set -------------------------------------------------- */

/* A LID the SM may set (the switch's SMA uses these three too). */
bool softib_ucast_lid_ok(u16 lid, u32 now)
{
	/* 0 (unassigned) only when it stays unassigned */
	if (!lid)
		return !now;
	return lid < be16_to_cpu(IB_MULTICAST_LID_BASE);
}

/* A {Width,Speed}Enabled value: 0 keeps, all-ones means "supported". */
bool softib_enable_ok(u8 v, u8 all, u8 supported)
{
	return !v || v == all || !(v & ~supported);
}

u8 softib_enable_new(u8 v, u8 all, u8 supported, u8 cur)
{
	if (!v)
		return cur;
	return v == all ? supported : v;
}

/* Everything is checked before anything changes: a refused Set is a no-op. */
static u16 softib_pi_check(struct softib_smp_ctx *c,
			   const struct ib_port_info *pi)
{
	struct softib_port *port = c->port;
	u8 state = pi->linkspeed_portstate & 0xf;
	u8 ldd = pi->portphysstate_linkdown & 0xf;
	u8 mtu = pi->neighbormtu_mastersmsl >> 4;
	u8 opvls = pi->operationalvl_pei_peo_fpi_fpo >> 4;

	if (!softib_ucast_lid_ok(be16_to_cpu(pi->lid), port->lid) ||
	    !softib_ucast_lid_ok(be16_to_cpu(pi->sm_lid), port->rvp.sm_lid))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	if (!softib_enable_ok(pi->link_width_enabled, 0xff,
			      SOFTIB_WIDTH_SUPPORTED) ||
	    !softib_enable_ok(pi->linkspeedactive_enabled & 0xf, 0xf,
			      SOFTIB_SPEED_SUPPORTED))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	if (mtu < IB_MTU_256 || mtu > SOFTIB_MAX_MTU || opvls > SOFTIB_VL_CAP)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	/* PortPhysicalState: Polling and Disabled act, the rest keep */
	if (ldd > IB_PORT_PHYS_STATE_POLLING)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	switch (state) {
	case IB_PORT_NOP:
	case IB_PORT_DOWN:
		break;
	case IB_PORT_ARMED:	/* INIT -> ARMED */
		if (port->state != IB_PORT_INIT &&
		    port->state != IB_PORT_ARMED)
			return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
		break;
	case IB_PORT_ACTIVE:	/* ARMED -> ACTIVE */
		if (port->state != IB_PORT_ARMED &&
		    port->state != IB_PORT_ACTIVE)
			return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
		break;
	default:		/* INIT is the link's to enter, not the SM's */
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	}
	return 0;
}

static u16 softib_set_port_info(struct softib_smp_ctx *c, const u8 *data)
{
	const struct ib_port_info *pi = (const struct ib_port_info *)data;
	struct softib_port *port = c->port;
	struct rvt_ibport *rvp = &port->rvp;
	u16 lid = be16_to_cpu(pi->lid), sm_lid = be16_to_cpu(pi->sm_lid);
	u8 lmc = pi->mkeyprot_resv_lmc & 7;
	u8 sm_sl = pi->neighbormtu_mastersmsl & 0xf;
	u8 state = pi->linkspeed_portstate & 0xf;
	u8 phys = pi->portphysstate_linkdown >> 4;
	u8 ldd = pi->portphysstate_linkdown & 0xf;
	u8 opvls = pi->operationalvl_pei_peo_fpi_fpo >> 4;
	u16 status;

	lockdep_assert_held(&rvp->lock);
	if (!softib_pi_mod_ok(c))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	status = softib_pi_check(c, pi);
	if (status)
		return status;

	if (lid != port->lid || lmc != port->lmc) {
		WRITE_ONCE(port->lid, lid);
		WRITE_ONCE(port->lmc, lmc);
		softib_evq_add(&c->evq, IB_EVENT_LID_CHANGE);
	}
	if (pi->gid_prefix != rvp->gid_prefix) {
		rvp->gid_prefix = pi->gid_prefix;
		softib_evq_add(&c->evq, IB_EVENT_GID_CHANGE);
	}
	if (sm_lid != rvp->sm_lid || sm_sl != rvp->sm_sl) {
		WRITE_ONCE(rvp->sm_lid, sm_lid);
		WRITE_ONCE(rvp->sm_sl, sm_sl);
		softib_evq_add(&c->evq, IB_EVENT_SM_CHANGE);
	}
	rvp->mkey = pi->mkey;
	rvp->mkeyprot = pi->mkeyprot_resv_lmc >> 6;
	rvp->mkey_lease_period = be16_to_cpu(pi->mkey_lease_period);
	rvp->subnet_timeout = pi->clientrereg_resv_subnetto & 0x1f;
	rvp->mkey_violations = be16_to_cpu(pi->mkey_violations);
	WRITE_ONCE(rvp->pkey_violations, be16_to_cpu(pi->pkey_violations));
	WRITE_ONCE(rvp->qkey_violations, be16_to_cpu(pi->qkey_violations));
	port->link_width_enabled =
		softib_enable_new(pi->link_width_enabled, 0xff,
				  SOFTIB_WIDTH_SUPPORTED,
				  port->link_width_enabled);
	port->link_speed_enabled =
		softib_enable_new(pi->linkspeedactive_enabled & 0xf, 0xf,
				  SOFTIB_SPEED_SUPPORTED,
				  port->link_speed_enabled);
	WRITE_ONCE(port->mtu, pi->neighbormtu_mastersmsl >> 4);
	port->vl_high_limit = pi->vl_high_limit;
	port->init_type_reply = pi->inittypereply_mtucap >> 4;
	port->vlstall_hoqlife = pi->vlstallcnt_hoqlife;
	port->phy_overrun_thresholds = pi->localphyerrors_overrunerrors;
	if (opvls)
		port->op_vls = opvls;
	if (ldd)
		port->link_down_default = ldd;

	/* Disabled, Polling (retrain) or Down (retrain): the link follows. */
	if (phys == IB_PORT_PHYS_STATE_DISABLED) {
		WRITE_ONCE(port->phys_state, phys);
		softib_link_train(port, &c->evq);
	} else if (phys == IB_PORT_PHYS_STATE_POLLING ||
		   state == IB_PORT_DOWN) {
		if (phys == IB_PORT_PHYS_STATE_POLLING)
			WRITE_ONCE(port->phys_state, phys);
		softib_set_state(port, IB_PORT_DOWN, &c->evq);
		softib_link_train(port, &c->evq);
	} else if (state == IB_PORT_ARMED || state == IB_PORT_ACTIVE) {
		softib_set_state(port, state, &c->evq);
	}
	if ((pi->clientrereg_resv_subnetto & SOFTIB_CLIENT_REREG) &&
	    (rvp->port_cap_flags & IB_PORT_CLIENT_REG_SUP))
		softib_evq_add(&c->evq, IB_EVENT_CLIENT_REREGISTER);
	return 0;
}

static u16 softib_set_pkey_table(struct softib_smp_ctx *c, const u8 *data)
{
	const __be16 *p = (const __be16 *)data;
	bool changed = false;
	unsigned int i;

	lockdep_assert_held(&c->port->rvp.lock);
	if (!softib_pkey_block_ok(c))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	for (i = 0; i < SOFTIB_PKEYS_PER_BLOCK; i++) {
		unsigned int n = c->mod * SOFTIB_PKEYS_PER_BLOCK + i;
		u16 pkey = be16_to_cpu(p[i]);

		if (n >= SOFTIB_NPKEYS || c->port->pkeys[n] == pkey)
			continue;
		WRITE_ONCE(c->port->pkeys[n], pkey);
		changed = true;
	}
	if (changed)
		softib_evq_add(&c->evq, IB_EVENT_PKEY_CHANGE);
	return 0;
}

static u16 softib_set_sl_to_vl(struct softib_smp_ctx *c, const u8 *data)
{
	unsigned int i;

	lockdep_assert_held(&c->port->rvp.lock);
	for (i = 0; i < 8; i++) {
		WRITE_ONCE(c->port->sl_to_vl[2 * i], data[i] >> 4);
		WRITE_ONCE(c->port->sl_to_vl[2 * i + 1], data[i] & 0xf);
	}
	return 0;
}

static u16 softib_set_vl_arb(struct softib_smp_ctx *c, const u8 *data)
{
	int b = softib_vl_arb_block(c);

	lockdep_assert_held(&c->port->rvp.lock);
	if (b < 0)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memcpy(c->port->vl_arb[b], data, IB_SMP_DATA_SIZE);
	return 0;
}

static u16 softib_set_guid_info(struct softib_smp_ctx *c, const u8 *data)
{
	return softib_guid_block(c, (__be64 *)data, true);
}

/* ---- dispatch ---------------------------------------------------------- */

struct softib_attr {
	__be16 id;
	u16 (*get)(struct softib_smp_ctx *c, u8 *data);
	u16 (*set)(struct softib_smp_ctx *c, const u8 *data);	/* NULL: RO */
};

static const struct softib_attr softib_attrs[] = {
	{ IB_SMP_ATTR_NODE_DESC, softib_get_node_desc, NULL },
	{ IB_SMP_ATTR_NODE_INFO, softib_get_node_info, NULL },
	{ IB_SMP_ATTR_GUID_INFO, softib_get_guid_info, softib_set_guid_info },
	{ IB_SMP_ATTR_PORT_INFO, softib_get_port_info, softib_set_port_info },
	{ IB_SMP_ATTR_PKEY_TABLE, softib_get_pkey_table,
	  softib_set_pkey_table },
	{ IB_SMP_ATTR_SL_TO_VL_TABLE, softib_get_sl_to_vl,
	  softib_set_sl_to_vl },
	{ IB_SMP_ATTR_VL_ARB_TABLE, softib_get_vl_arb, softib_set_vl_arb },
};

/* Turn the request in @out (a copy of it) into its GetResp. */
static int softib_reply(struct ib_mad *out, u16 status)
{
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	out->mad_hdr.status = cpu_to_be16(status);
	if (out->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		out->mad_hdr.status |= IB_SMP_DIRECTION;
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/*
 * SMInfo belongs to the SM: with one on this port (IsSM, set by opensm
 * through ib_umad's issm device) it goes on to the SM's agent; with SMs
 * disabled it is dropped; otherwise there is nobody to answer.
 */
static int softib_sm_info(struct softib_port *port, struct ib_mad *out)
{
	u32 caps = READ_ONCE(port->rvp.port_cap_flags);

	if (caps & IB_PORT_SM)
		return IB_MAD_RESULT_SUCCESS;
	if (caps & IB_PORT_SM_DISABLED)
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	return softib_reply(out, IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
}

static int softib_smp(struct softib_port *port, int mad_flags, u32 in_port,
		      const struct ib_smp *in, struct ib_mad *out)
{
	struct ib_smp *smp = (struct ib_smp *)out;
	struct softib_smp_ctx c = {
		.port = port,
		.mod = be32_to_cpu(in->attr_mod),
		.in_port = in_port,
	};
	const struct softib_attr *a = NULL;
	unsigned long flags;
	unsigned int i;
	u16 status;
	bool ok;

	switch (in->method) {
	case IB_MGMT_METHOD_GET:
	case IB_MGMT_METHOD_SET:
	case IB_MGMT_METHOD_TRAP_REPRESS:
		break;
	case IB_MGMT_METHOD_TRAP:
		return IB_MAD_RESULT_SUCCESS;	/* for the SM on this port */
	default:
		/* responses (to the SM on this port) go on to its agent */
		if (in->method & IB_MGMT_METHOD_RESP)
			return IB_MAD_RESULT_SUCCESS;
		memcpy(out, in, sizeof(*out));
		return softib_reply(out, IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD);
	}
	memcpy(out, in, sizeof(*out));
	if (in->class_version != 1)
		return softib_reply(out, IB_MGMT_MAD_STATUS_BAD_VERSION);

	spin_lock_irqsave(&port->rvp.lock, flags);
	ok = softib_mkey_ok(port, in, mad_flags, &c.hide_mkey);
	spin_unlock_irqrestore(&port->rvp.lock, flags);
	/* a refused SMP gets no answer (no trap 256 is sent: see the docs) */
	if (!ok)
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	/* the SM's answer to one of our traps: it stops the resends */
	if (in->method == IB_MGMT_METHOD_TRAP_REPRESS) {
		softib_trap_repress(port, in);
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	}
	if (in->attr_id == IB_SMP_ATTR_SM_INFO)
		return softib_sm_info(port, out);

	for (i = 0; i < ARRAY_SIZE(softib_attrs); i++)
		if (softib_attrs[i].id == in->attr_id)
			a = &softib_attrs[i];
	if (!a || (in->method == IB_MGMT_METHOD_SET && !a->set))
		return softib_reply(out,
				    IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);

	memset(smp->data, 0, sizeof(smp->data));
	spin_lock_irqsave(&port->rvp.lock, flags);
	status = in->method == IB_MGMT_METHOD_SET ? a->set(&c, in->data) : 0;
	/* The answer is the attribute as it is now (refused Set: unchanged). */
	status = a->get(&c, smp->data) ?: status;
	spin_unlock_irqrestore(&port->rvp.lock, flags);
	softib_evq_flush(port, &c.evq);
	return softib_reply(out, status);
}

/**
 * softib_process_mad - ib_device_ops.process_mad of a softib device
 *
 * SMPs (both SMI classes) go to the SMA, PerfMgt GMPs to the PMA; the rest
 * is not ours and goes on to ib_mad's agents (IB_MAD_RESULT_SUCCESS alone).
 */
int softib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		       const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		       const struct ib_mad *in, struct ib_mad *out,
		       size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	struct softib_port *port = &to_sdev(ibdev)->port;

	if (port_num != port->port_num ||
	    in->mad_hdr.base_version != IB_MGMT_BASE_VERSION ||
	    *out_mad_size < sizeof(*out))
		return IB_MAD_RESULT_FAILURE;
	*out_mad_size = sizeof(*out);

	switch (in->mad_hdr.mgmt_class) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		return softib_smp(port, mad_flags, port_num,
				  (const struct ib_smp *)in, out);
	case IB_MGMT_CLASS_PERF_MGMT:
		return softib_pma_process(port, in, out);
	default:
		return IB_MAD_RESULT_SUCCESS;
	}
}
