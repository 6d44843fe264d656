// SPDX-License-Identifier: GPL-2.0
/*
 * cm_parity scenarios on ib_cm's own API over native IB (softib ib0 under
 * opensm, its loopback), as IPoIB connected mode and SRP call it: a
 * connection whose REQ carries an alternate path (what each side's event
 * and QP attributes say), ib_cm_notify(IB_EVENT_PATH_MIG), and a LAP sent
 * to the passive side from a MAD agent of ours (6.12 has no
 * ib_send_cm_lap()): its event, the QP attributes it loads, an MRA for it,
 * a duplicate, and an APR nobody asked for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/random.h>
#include <linux/wait.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_mad.h>
#include <rdma/iba.h>
#include <rdma/ibta_vol1_c12.h>

#include "pt.h"

#define IBCM_DEV	"ib0"
#define IBCM_SID	0x0000000000f1f001ULL
#define IBCM_MAX_EV	8
#define IBCM_WAIT	(5 * HZ)

struct ibcm_side {
	const char *name;
	struct ib_cm_id *id;
	int n_ev;
	enum ib_cm_event_type ev[IBCM_MAX_EV];
};

/* The scenario's state (scenarios run one at a time). */
static struct {
	struct ib_device *dev;
	struct ib_port_attr pa;
	union ib_gid gid;
	struct ibcm_side act, pas, lis;
	struct ib_mad_agent *agent;
} ic;

static DECLARE_WAIT_QUEUE_HEAD(ic_wq);

static const char *ic_ev_name(enum ib_cm_event_type e)
{
	static const char * const n[] = {
		[IB_CM_REQ_ERROR] = "REQ_ERROR",
		[IB_CM_REQ_RECEIVED] = "REQ_RECEIVED",
		[IB_CM_REP_ERROR] = "REP_ERROR",
		[IB_CM_REP_RECEIVED] = "REP_RECEIVED",
		[IB_CM_RTU_RECEIVED] = "RTU_RECEIVED",
		[IB_CM_USER_ESTABLISHED] = "USER_ESTABLISHED",
		[IB_CM_DREQ_ERROR] = "DREQ_ERROR",
		[IB_CM_DREQ_RECEIVED] = "DREQ_RECEIVED",
		[IB_CM_DREP_RECEIVED] = "DREP_RECEIVED",
		[IB_CM_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
		[IB_CM_MRA_RECEIVED] = "MRA_RECEIVED",
		[IB_CM_REJ_RECEIVED] = "REJ_RECEIVED",
		[IB_CM_LAP_ERROR] = "LAP_ERROR",
		[IB_CM_LAP_RECEIVED] = "LAP_RECEIVED",
		[IB_CM_APR_RECEIVED] = "APR_RECEIVED",
	};

	return e < ARRAY_SIZE(n) && n[e] ? n[e] : "?";
}

static void ic_log_path(const char *who, const char *what,
			struct sa_path_rec *p)
{
	if (!p) {
		pt_log("    %s: %s: none\n", who, what);
		return;
	}
	pt_log("    %s: %s: type=%d slid=%u dlid=%u sgid=%pI6 dgid=%pI6\n", who,
	       what, p->rec_type, be32_to_cpu(sa_path_get_slid(p)),
	       be32_to_cpu(sa_path_get_dlid(p)), p->sgid.raw, p->dgid.raw);
	pt_log("    %s: %s: flow=%#x hop=%u tclass=%u sl=%u pkey=%#x\n",
	       who, what, be32_to_cpu(p->flow_label), p->hop_limit,
	       p->traffic_class, p->sl, be16_to_cpu(p->pkey));
	pt_log("    %s: %s: mtu=%u rate=%u plt=%u rev=%u sid=%#llx\n", who,
	       what, p->mtu, p->rate, p->packet_life_time, p->reversible,
	       be64_to_cpu(p->service_id));
}

/* What an event carries that this scenario is about. */
static void ic_log_event(struct ibcm_side *s, const struct ib_cm_event *e)
{
	pt_log("  %s: event %s\n", s->name, ic_ev_name(e->event));
	switch (e->event) {
	case IB_CM_REQ_RECEIVED:
		ic_log_path(s->name, "primary", e->param.req_rcvd.primary_path);
		ic_log_path(s->name, "alternate",
			    e->param.req_rcvd.alternate_path);
		break;
	case IB_CM_LAP_RECEIVED:
		ic_log_path(s->name, "lap", e->param.lap_rcvd.alternate_path);
		pt_log("    %s: lap pd crc=%08x\n", s->name,
		       crc32_le(0, e->private_data,
				IB_CM_LAP_PRIVATE_DATA_SIZE));
		break;
	case IB_CM_REJ_RECEIVED:
		pt_log("    %s: rej reason=%d\n", s->name,
		       e->param.rej_rcvd.reason);
		break;
	default:
		break;
	}
}

static int ic_handler(struct ib_cm_id *id, const struct ib_cm_event *e)
{
	struct ibcm_side *s = id->context;

	if (e->event == IB_CM_REQ_RECEIVED) {
		s = &ic.pas;
		s->id = id;
		id->context = s;
	}
	ic_log_event(s, e);
	if (s->n_ev < IBCM_MAX_EV)
		s->ev[s->n_ev] = e->event;
	WRITE_ONCE(s->n_ev, s->n_ev + 1);
	wake_up(&ic_wq);
	return 0;
}

static bool ic_wait(struct ibcm_side *s, enum ib_cm_event_type e)
{
	bool got = false;

	wait_event_timeout(ic_wq, ({
		int i;

		for (i = 0; i < min(READ_ONCE(s->n_ev), IBCM_MAX_EV); i++)
			if (s->ev[i] == e)
				got = true;
		got;
	}), IBCM_WAIT);
	if (!got)
		pt_log("  %s: timed out waiting for %s\n", s->name,
		       ic_ev_name(e));
	return got;
}

/* The QP attributes ib_cm_init_qp_attr() gives @s for @state. */
static void ic_qp_attr(struct ibcm_side *s, enum ib_qp_state state)
{
	struct ib_qp_attr a = { .qp_state = state };
	const struct rdma_ah_attr *ah = &a.ah_attr, *alt = &a.alt_ah_attr;
	int mask = 0, ret;

	ret = ib_cm_init_qp_attr(s->id, &a, &mask);
	pt_log("  %s: init_qp_attr(%s) -> %d mask=%#x\n", s->name,
	       state == IB_QPS_RTR ? "RTR" : "RTS", ret, ret ? 0 : mask);
	if (ret)
		return;
	if (mask & IB_QP_AV)
		pt_log("    %s: av: dlid=%u sl=%u rate=%u bits=%u grh=%d\n",
		       s->name, rdma_ah_get_dlid(ah), rdma_ah_get_sl(ah),
		       rdma_ah_get_static_rate(ah), rdma_ah_get_path_bits(ah),
		       !!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH));
	if (mask & IB_QP_TIMEOUT)
		pt_log("    %s: timeout=%u\n", s->name, a.timeout);
	if (mask & IB_QP_ALT_PATH)
		pt_log("    %s: alt: port=%u pkey=%u timeout=%u dlid=%u sl=%u rate=%u grh=%d\n",
		       s->name, a.alt_port_num, a.alt_pkey_index,
		       a.alt_timeout, rdma_ah_get_dlid(alt),
		       rdma_ah_get_sl(alt), rdma_ah_get_static_rate(alt),
		       !!(rdma_ah_get_ah_flags(alt) & IB_AH_GRH));
	if (mask & IB_QP_PATH_MIG_STATE)
		pt_log("    %s: path_mig_state=%d\n", s->name,
		       a.path_mig_state);
}

/* An IB path from ib0 to itself (its loopback), SL @sl. */
static void ic_path(struct sa_path_rec *p, u8 sl)
{
	memset(p, 0, sizeof(*p));
	p->rec_type = SA_PATH_REC_TYPE_IB;
	p->sgid = ic.gid;
	p->dgid = ic.gid;
	sa_path_set_slid(p, ic.pa.lid);
	sa_path_set_dlid(p, ic.pa.lid);
	p->hop_limit = 0;
	p->reversible = 1;
	p->pkey = cpu_to_be16(0xffff);
	p->sl = sl;
	p->mtu_selector = IB_SA_EQ;
	p->mtu = IB_MTU_2048;
	p->rate_selector = IB_SA_EQ;
	p->rate = IB_RATE_10_GBPS;
	p->packet_life_time_selector = IB_SA_EQ;
	p->packet_life_time = 14;
	p->service_id = cpu_to_be64(IBCM_SID);
}

static void ic_send_handler(struct ib_mad_agent *agent,
			    struct ib_mad_send_wc *wc)
{
	rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(wc->send_buf);
}

/* A CM MAD to ib0's own CM (QP1 at its LID), from our send-only agent. */
static int ic_send_mad(__be16 attr_id, void (*fill)(void *attr))
{
	struct rdma_ah_attr ah = {};
	struct ib_mad_send_buf *buf;
	struct ib_mad_hdr *hdr;
	int ret;

	buf = ib_create_send_mad(ic.agent, 1, 0, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ah.type = rdma_ah_find_type(ic.dev, 1);
	rdma_ah_set_port_num(&ah, 1);
	rdma_ah_set_dlid(&ah, ic.pa.lid);
	buf->ah = rdma_create_ah(ic.agent->qp->pd, &ah,
				 RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(buf->ah)) {
		ret = PTR_ERR(buf->ah);
		ib_free_send_mad(buf);
		return ret;
	}
	hdr = buf->mad;
	hdr->base_version = IB_MGMT_BASE_VERSION;
	hdr->mgmt_class = IB_MGMT_CLASS_CM;
	hdr->class_version = 2;	/* the CM class, IBA 1.2 */
	hdr->method = IB_MGMT_METHOD_SEND;
	hdr->attr_id = attr_id;
	hdr->tid = cpu_to_be64(get_random_u32());
	fill(buf->mad);
	ret = ib_post_send_mad(buf, NULL);
	if (ret) {
		rdma_destroy_ah(buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
		ib_free_send_mad(buf);
	}
	return ret;
}

/*
 * The LAP the active side's CM would send: its comm ids, the passive QP
 * and an alternate path on SL 5 with 168 bytes of private data.
 */
static void ic_fill_lap(void *mad)
{
	struct cm_lap_msg *m = mad;
	u8 *pd = IBA_GET_MEM_PTR(CM_LAP_PRIVATE_DATA, m);
	int i;

	IBA_SET(CM_LAP_LOCAL_COMM_ID, m, be32_to_cpu(ic.act.id->local_id));
	IBA_SET(CM_LAP_REMOTE_COMM_ID, m, be32_to_cpu(ic.pas.id->local_id));
	IBA_SET(CM_LAP_REMOTE_QPN_EECN, m, 0x222);
	IBA_SET(CM_LAP_REMOTE_CM_RESPONSE_TIMEOUT, m, 18);
	IBA_SET(CM_LAP_ALTERNATE_LOCAL_PORT_LID, m, ic.pa.lid);
	IBA_SET(CM_LAP_ALTERNATE_REMOTE_PORT_LID, m, ic.pa.lid);
	IBA_SET_MEM(CM_LAP_ALTERNATE_LOCAL_PORT_GID, m, &ic.gid,
		    sizeof(ic.gid));
	IBA_SET_MEM(CM_LAP_ALTERNATE_REMOTE_PORT_GID, m, &ic.gid,
		    sizeof(ic.gid));
	IBA_SET(CM_LAP_ALTERNATE_FLOW_LABEL, m, 0x12345);
	IBA_SET(CM_LAP_ALTERNATE_TRAFFIC_CLASS, m, 0x20);
	IBA_SET(CM_LAP_ALTERNATE_HOP_LIMIT, m, 1);
	IBA_SET(CM_LAP_ALTERNATE_PACKET_RATE, m, IB_RATE_20_GBPS);
	IBA_SET(CM_LAP_ALTERNATE_SL, m, 5);
	IBA_SET(CM_LAP_ALTERNATE_SUBNET_LOCAL, m, 1);
	IBA_SET(CM_LAP_ALTERNATE_LOCAL_ACK_TIMEOUT, m, 17);
	for (i = 0; i < IB_CM_LAP_PRIVATE_DATA_SIZE; i++)
		pd[i] = i * 7 + 1;
}

/* An APR to the active side, for a LAP it never sent. */
static void ic_fill_apr(void *mad)
{
	struct cm_apr_msg *m = mad;

	IBA_SET(CM_APR_LOCAL_COMM_ID, m, be32_to_cpu(ic.pas.id->local_id));
	IBA_SET(CM_APR_REMOTE_COMM_ID, m, be32_to_cpu(ic.act.id->local_id));
	IBA_SET(CM_APR_AR_STATUS, m, IB_CM_APR_SUCCESS);
}

/* A connection on ib0's loopback whose REQ carries an alternate path. */
static bool ic_connect(void)
{
	struct sa_path_rec pri, alt;
	struct ib_cm_req_param req = {};
	struct ib_cm_rep_param rep = {};
	static const u8 pd[8] = "ibcm-alt";

	ic.lis.name = "listener";
	ic.act.name = "active";
	ic.pas.name = "passive";
	ic.lis.id = ib_create_cm_id(ic.dev, ic_handler, &ic.lis);
	ic.act.id = ib_create_cm_id(ic.dev, ic_handler, &ic.act);
	if (IS_ERR(ic.lis.id) || IS_ERR(ic.act.id)) {
		pt_log("## FAIL: ib_create_cm_id\n");
		return false;
	}
	pt_log("  listener: listen -> %d\n",
	       ib_cm_listen(ic.lis.id, cpu_to_be64(IBCM_SID)));
	ic_path(&pri, 0);
	ic_path(&alt, 3);
	alt.rate = IB_RATE_5_GBPS;
	alt.packet_life_time = 16;
	req.primary_path = &pri;
	req.alternate_path = &alt;
	req.service_id = cpu_to_be64(IBCM_SID);
	req.qp_num = 0x111;
	req.qp_type = IB_QPT_RC;
	req.starting_psn = 0x1234;
	req.private_data = pd;
	req.private_data_len = sizeof(pd);
	req.responder_resources = 1;
	req.initiator_depth = 1;
	req.remote_cm_response_timeout = 20;
	req.local_cm_response_timeout = 20;
	req.retry_count = 7;
	req.rnr_retry_count = 7;
	req.max_cm_retries = 15;
	pt_log("  active: send_req (alternate path) -> %d\n",
	       ib_send_cm_req(ic.act.id, &req));
	if (!ic_wait(&ic.pas, IB_CM_REQ_RECEIVED))
		return false;
	ic_qp_attr(&ic.pas, IB_QPS_RTR);
	ic_qp_attr(&ic.pas, IB_QPS_RTS);
	rep.qp_num = 0x222;
	rep.starting_psn = 0x5678;
	rep.responder_resources = 1;
	rep.initiator_depth = 1;
	rep.rnr_retry_count = 7;
	pt_log("  passive: send_rep -> %d\n", ib_send_cm_rep(ic.pas.id, &rep));
	if (!ic_wait(&ic.act, IB_CM_REP_RECEIVED))
		return false;
	ic_qp_attr(&ic.act, IB_QPS_RTR);
	ic_qp_attr(&ic.act, IB_QPS_RTS);
	pt_log("  active: send_rtu -> %d\n", ib_send_cm_rtu(ic.act.id, NULL, 0));
	return ic_wait(&ic.pas, IB_CM_RTU_RECEIVED);
}

static void ic_end(void)
{
	struct ibcm_side *s[] = { &ic.act, &ic.pas, &ic.lis };
	int i;

	for (i = 0; i < ARRAY_SIZE(s); i++)
		if (!IS_ERR_OR_NULL(s[i]->id))
			ib_destroy_cm_id(s[i]->id);
	if (!IS_ERR_OR_NULL(ic.agent))
		ib_unregister_mad_agent(ic.agent);
	if (ic.dev)
		ib_device_put(ic.dev);
	memset(&ic, 0, sizeof(ic));
}

static bool ic_setup(void)
{
	int ret;

	memset(&ic, 0, sizeof(ic));
	ic.dev = ib_device_get_by_name(IBCM_DEV, RDMA_DRIVER_UNKNOWN);
	if (!ic.dev) {
		pt_log("## FAIL: no device %s\n", IBCM_DEV);
		return false;
	}
	ret = ib_query_port(ic.dev, 1, &ic.pa);
	if (!ret)
		ret = rdma_query_gid(ic.dev, 1, 0, &ic.gid);
	if (ret || ic.pa.state != IB_PORT_ACTIVE) {
		pt_log("## FAIL: %s port 1: %d, state %d\n", IBCM_DEV, ret,
		       ic.pa.state);
		return false;
	}
	ic.agent = ib_register_mad_agent(ic.dev, 1, IB_QPT_GSI, NULL, 0,
					 ic_send_handler, NULL, NULL, 0);
	if (IS_ERR(ic.agent)) {
		pt_log("## FAIL: MAD agent: %ld\n", PTR_ERR(ic.agent));
		return false;
	}
	return true;
}

enum { IC_ALT, IC_MIGRATE, IC_LAP, IC_COUNT };

static const char * const ic_names[] = {
	"ibcm-alt-path", "ibcm-path-mig", "ibcm-lap",
};

static void sc_ibcm(int how)
{
	int ret;

	if (!ic_setup() || !ic_connect())
		goto out;
	switch (how) {
	case IC_MIGRATE:
		ret = ib_cm_notify(ic.act.id, IB_EVENT_PATH_MIG);
		pt_log("  active: notify(PATH_MIG) -> %d\n", ret);
		ic_qp_attr(&ic.act, IB_QPS_RTR);
		ic_qp_attr(&ic.act, IB_QPS_RTS);
		ret = ib_cm_notify(ic.act.id, IB_EVENT_PATH_MIG);
		pt_log("  active: notify(PATH_MIG) again -> %d\n", ret);
		break;
	case IC_LAP:
		pt_log("  lap to passive -> %d\n",
		       ic_send_mad(CM_LAP_ATTR_ID, ic_fill_lap));
		if (!ic_wait(&ic.pas, IB_CM_LAP_RECEIVED))
			break;
		ic_qp_attr(&ic.pas, IB_QPS_RTS);
		pt_log("  passive: notify(PATH_MIG), LAP pending -> %d\n",
		       ib_cm_notify(ic.pas.id, IB_EVENT_PATH_MIG));
		pt_log("  passive: send_mra -> %d\n",
		       ib_send_cm_mra(ic.pas.id, 10, "mra", 3));
		pt_log("  passive: send_mra again -> %d\n",
		       ib_send_cm_mra(ic.pas.id, 10, NULL, 0));
		pt_log("  lap again -> %d\n",
		       ic_send_mad(CM_LAP_ATTR_ID, ic_fill_lap));
		pt_log("  apr to active -> %d\n",
		       ic_send_mad(CM_APR_ATTR_ID, ic_fill_apr));
		msleep(300);	/* what either may make of them */
		break;
	default:
		break;
	}
	pt_log("  events: active %d passive %d\n", READ_ONCE(ic.act.n_ev),
	       READ_ONCE(ic.pas.n_ev));
	pt_log("  active: send_dreq -> %d\n",
	       ib_send_cm_dreq(ic.act.id, NULL, 0));
	if (ic_wait(&ic.pas, IB_CM_DREQ_RECEIVED))
		pt_log("  passive: send_drep -> %d\n",
		       ib_send_cm_drep(ic.pas.id, NULL, 0));
	ic_wait(&ic.act, IB_CM_DREP_RECEIVED);
out:
	ic_end();
}

void pt_register_ibcm(void)
{
	int i;

	for (i = 0; i < IC_COUNT; i++)
		pt_add(ic_names[i], sc_ibcm, i, false);
}
