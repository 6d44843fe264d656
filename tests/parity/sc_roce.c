// SPDX-License-Identifier: GPL-2.0
/*
 * cm_parity scenarios over RoCE (rxe loopback on one device, through
 * ib_cm): resolution, RC connect/accept/reject with private data up to the
 * IB CM's limits, disconnect and destroy, UD (SIDR), QP options, and
 * multicast on UD ids.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_verbs.h>
#include <rdma/ib_sa.h>

#include "pt.h"

#define RC_PORT		(PT_PORT + 80)
#define UD_PORT		(PT_PORT + 90)
#define MC_G1		"239.5.0.1"
#define MC_G2		"239.5.0.2"
#define MC_G6		"ff0e::5:1"

/* The resolved route of @p: what the path record holds. */
static void rc_route(struct pt_id *p)
{
	struct sa_path_rec *pr = p->id->route.path_rec;

	if (!pr) {
		pt_log("  %s: route: paths=%d no path record\n", p->name,
		       p->id->route.num_pri_alt_paths);
		return;
	}
	pt_log("  %s: route: paths=%d type=%d sgid=%pI6 dgid=%pI6\n", p->name,
	       p->id->route.num_pri_alt_paths, pr->rec_type, pr->sgid.raw,
	       pr->dgid.raw);
	pt_log("  %s: route: pkey=%#x mtu=%u hop=%u tclass=%u sl=%u\n",
	       p->name, be16_to_cpu(pr->pkey), pr->mtu, pr->hop_limit,
	       pr->traffic_class, pr->sl);
}

/* Resolution on RoCE: to B, to B6, from an explicit source. */
static void sc_resolve(int arg)
{
	static const char * const dst[] = { PARITY_RB, PARITY_RB6, PARITY_RB };
	struct pt_id c = {};

	if (pt_create(&c, "client"))
		return;
	if (arg == 2) {
		pt_call(&c, "resolve_addr from A",
			rdma_resolve_addr(c.id, pt_psa(PARITY_RA, 0),
					  pt_psa(PARITY_RB, RC_PORT), 2000));
		if (pt_wait(&c, RDMA_CM_EVENT_ADDR_RESOLVED)) {
			pt_call(&c, "resolve_route",
				rdma_resolve_route(c.id, 2000));
			pt_wait(&c, RDMA_CM_EVENT_ROUTE_RESOLVED);
		}
	} else {
		pt_resolve(&c, dst[arg], RC_PORT);
	}
	if (c.id && c.id->device)
		rc_route(&c);
	pt_call(&c, "after", 0);
	pt_destroy(&c);
}

/* A listener on B in @mode and a client connected to it with @pdlen. */
static bool rc_pair(struct pt_id *l, struct pt_id *c, u16 port,
		    enum pt_mode mode, u8 pdlen)
{
	if (pt_create(l, "listener") || pt_create(c, "client"))
		return false;
	pt_listen(l, PARITY_RB, port, mode);
	return !pt_connect(c, PARITY_RB, port, pdlen);
}

static bool rc_established(struct pt_id *l, struct pt_id *c)
{
	if (pt_wait_any(c, RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_REJECTED) !=
	    RDMA_CM_EVENT_ESTABLISHED || !l->child)
		return false;
	return pt_wait(l->child, RDMA_CM_EVENT_ESTABLISHED);
}

/*
 * @a disconnects; @b hears it and answers (the DREP), as a ULP does; then
 * @a hears the answer.
 */
static void rc_disconnect(struct pt_id *a, struct pt_id *b)
{
	pt_call(a, "disconnect", rdma_disconnect(a->id));
	if (pt_wait(b, RDMA_CM_EVENT_DISCONNECTED))
		pt_call(b, "disconnect (answer)", rdma_disconnect(b->id));
	pt_wait(a, RDMA_CM_EVENT_DISCONNECTED);
}

static void rc_end(struct pt_id *l, struct pt_id *c)
{
	pt_destroy_children();
	pt_destroy(c);
	pt_destroy(l);
}

/* Private data on connect (56 is the REQ's room), accept, reject. */
enum { PD_CONNECT, PD_ACCEPT, PD_REJECT };
static const struct {
	const char *name;
	int what;
	u8 len;
} pd_cases[] = {
	{ "roce-pd-connect-0", PD_CONNECT, 0 },
	{ "roce-pd-connect-1", PD_CONNECT, 1 },
	{ "roce-pd-connect-56", PD_CONNECT, 56 },
	{ "roce-pd-connect-57", PD_CONNECT, 57 },
	{ "roce-pd-accept-0", PD_ACCEPT, 0 },
	{ "roce-pd-accept-1", PD_ACCEPT, 1 },
	{ "roce-pd-accept-196", PD_ACCEPT, 196 },
	{ "roce-pd-accept-197", PD_ACCEPT, 197 },
	{ "roce-pd-reject-0", PD_REJECT, 0 },
	{ "roce-pd-reject-5", PD_REJECT, 5 },
	{ "roce-pd-reject-148", PD_REJECT, 148 },
	{ "roce-pd-reject-149", PD_REJECT, 149 },
};

static void sc_pd(int i)
{
	int what = pd_cases[i].what;
	u8 len = pd_cases[i].len;
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	l.pdlen = what == PD_CONNECT ? 8 : len;
	pt_listen(&l, PARITY_RB, RC_PORT + 1,
		  what == PD_REJECT ? PT_REJECT : PT_ACCEPT);
	if (pt_connect(&c, PARITY_RB, RC_PORT + 1,
		       what == PD_CONNECT ? len : 3))
		goto out;
	if (what == PD_ACCEPT && len > 196) {
		/* The accept failed: destroying the request rejects it. */
		pt_wait(&l, RDMA_CM_EVENT_CONNECT_REQUEST);
		pt_destroy_children();
		pt_wait(&c, RDMA_CM_EVENT_REJECTED);
	} else if (what == PD_REJECT) {
		pt_wait(&c, RDMA_CM_EVENT_REJECTED);
	} else if (rc_established(&l, &c)) {
		rc_disconnect(&c, l.child);
	}
	pt_call(&c, "after", 0);
out:
	rc_end(&l, &c);
}

/* Nothing listens on the port: ib_cm rejects the REQ. */
static void sc_no_listener(int arg)
{
	struct pt_id c = {};

	if (pt_create(&c, "client"))
		return;
	if (!pt_connect(&c, PARITY_RB, RC_PORT + 2, 4))
		pt_wait(&c, RDMA_CM_EVENT_REJECTED);
	pt_call(&c, "after", 0);
	pt_connect_param(&c, 0, 1, 1);	/* again */
	pt_destroy(&c);
}

/* Disconnect from the active side, the passive side, both. */
enum { DC_ACTIVE, DC_PASSIVE, DC_BOTH, DC_COUNT };
static const char * const dc_names[] = {
	"roce-disconnect-active", "roce-disconnect-passive",
	"roce-disconnect-both",
};

static void sc_disconnect(int how)
{
	struct pt_id l = {}, c = {};

	if (!rc_pair(&l, &c, RC_PORT + 3, PT_ACCEPT, 0) ||
	    !rc_established(&l, &c))
		goto out;
	if (how == DC_ACTIVE) {
		rc_disconnect(&c, l.child);
	} else if (how == DC_PASSIVE) {
		rc_disconnect(l.child, &c);
	} else {
		pt_call(&c, "disconnect", rdma_disconnect(c.id));
		pt_call(l.child, "disconnect", rdma_disconnect(l.child->id));
		pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
		pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
	}
	pt_call(&c, "after", 0);
	pt_call(l.child, "after", 0);
	pt_call(&c, "disconnect again", rdma_disconnect(c.id));
out:
	rc_end(&l, &c);
}

/* Destroy in each state. */
enum {
	DS_ADDR, DS_ROUTE, DS_ACTIVE, DS_PASSIVE, DS_LISTENER, DS_PENDING,
	DS_COUNT
};

static const char * const ds_names[] = {
	"roce-destroy-addr-resolved", "roce-destroy-route-resolved",
	"roce-destroy-established-active", "roce-destroy-established-passive",
	"roce-destroy-listener-keeps-child",
	"roce-destroy-client-request-pending",
};

static void sc_destroy(int how)
{
	struct pt_id l = {}, c = {};

	if (how == DS_ADDR || how == DS_ROUTE) {
		if (pt_create(&c, "client"))
			return;
		pt_call(&c, "resolve_addr",
			rdma_resolve_addr(c.id, NULL,
					  pt_psa(PARITY_RB, RC_PORT + 4), 2000));
		if (pt_wait(&c, RDMA_CM_EVENT_ADDR_RESOLVED) &&
		    how == DS_ROUTE) {
			pt_call(&c, "resolve_route",
				rdma_resolve_route(c.id, 2000));
			pt_wait(&c, RDMA_CM_EVENT_ROUTE_RESOLVED);
		}
		pt_call(&c, "before", 0);
		pt_destroy(&c);
		return;
	}
	if (!rc_pair(&l, &c, RC_PORT + 4,
		     how == DS_PENDING ? PT_KEEP : PT_ACCEPT, 0))
		goto out;
	if (how == DS_PENDING) {
		pt_wait(&l, RDMA_CM_EVENT_CONNECT_REQUEST);
		pt_call(&c, "before", 0);
		pt_destroy(&c);
		if (l.child)
			pt_wait(l.child, RDMA_CM_EVENT_REJECTED);
		pt_call(&l, "after the client is gone", 0);
		goto out;
	}
	if (!rc_established(&l, &c))
		goto out;
	switch (how) {
	case DS_ACTIVE:
		pt_destroy(&c);
		pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
		pt_call(l.child, "after", 0);
		break;
	case DS_PASSIVE:
		pt_destroy(l.child);
		pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
		pt_call(&c, "after", 0);
		break;
	case DS_LISTENER:
		pt_destroy(&l);
		pt_call(l.child, "after the listener is gone", 0);
		rc_disconnect(&c, l.child);
		break;
	}
out:
	rc_end(&l, &c);
}

/* The handler returns 1 on an event: the CM destroys the id. */
static const struct {
	const char *name;
	enum rdma_cm_event_type ev;
	bool passive;
} hd_cases[] = {
	{ "roce-handler-destroys-addr-resolved", RDMA_CM_EVENT_ADDR_RESOLVED },
	{ "roce-handler-destroys-route-resolved", RDMA_CM_EVENT_ROUTE_RESOLVED },
	{ "roce-handler-destroys-connect-request",
	  RDMA_CM_EVENT_CONNECT_REQUEST, true },
	{ "roce-handler-destroys-established-active",
	  RDMA_CM_EVENT_ESTABLISHED },
	{ "roce-handler-destroys-established-passive",
	  RDMA_CM_EVENT_ESTABLISHED, true },
	{ "roce-handler-destroys-disconnected-active",
	  RDMA_CM_EVENT_DISCONNECTED },
	{ "roce-handler-destroys-disconnected-passive",
	  RDMA_CM_EVENT_DISCONNECTED, true },
	{ "roce-handler-destroys-rejected", RDMA_CM_EVENT_REJECTED },
};

static void sc_handler_destroy(int i)
{
	enum rdma_cm_event_type ev = hd_cases[i].ev;
	bool passive = hd_cases[i].passive;
	u16 port = RC_PORT + 5;
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	if (passive)
		l.destroy_on = ev;
	else
		c.destroy_on = ev;
	pt_listen(&l, PARITY_RB, port,
		  ev == RDMA_CM_EVENT_REJECTED ? PT_REJECT : PT_ACCEPT);
	if (ev == RDMA_CM_EVENT_ADDR_RESOLVED) {
		pt_call(&c, "resolve_addr",
			rdma_resolve_addr(c.id, NULL, pt_psa(PARITY_RB, port),
					  2000));
		pt_wait(&c, ev);
		goto out;
	}
	if (ev == RDMA_CM_EVENT_ROUTE_RESOLVED) {
		pt_resolve(&c, PARITY_RB, port);
		goto out;
	}
	if (pt_connect(&c, PARITY_RB, port, 0))
		goto out;
	if (ev == RDMA_CM_EVENT_REJECTED ||
	    ev == RDMA_CM_EVENT_CONNECT_REQUEST) {
		pt_wait(&c, RDMA_CM_EVENT_REJECTED);
		goto out;
	}
	if (!pt_wait(&c, RDMA_CM_EVENT_ESTABLISHED) || !l.child ||
	    !pt_wait(l.child, RDMA_CM_EVENT_ESTABLISHED))
		goto out;
	if (ev == RDMA_CM_EVENT_ESTABLISHED) {
		pt_wait(passive ? &c : l.child, RDMA_CM_EVENT_DISCONNECTED);
		goto out;
	}
	if (passive)
		pt_call(&c, "disconnect", rdma_disconnect(c.id));
	else
		pt_call(l.child, "disconnect", rdma_disconnect(l.child->id));
	pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
	pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
out:
	pt_call(&c, "after", 0);
	rc_end(&l, &c);
}

/* The QP attributes the CM gave @p's QP. */
static void rc_qp_attr(struct pt_id *p)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr a;
	int ret;

	if (!p->id || !p->id->qp)
		return;
	ret = ib_query_qp(p->id->qp, &a, IB_QP_STATE | IB_QP_TIMEOUT |
			  IB_QP_MIN_RNR_TIMER | IB_QP_AV | IB_QP_PATH_MTU |
			  IB_QP_RETRY_CNT | IB_QP_RNR_RETRY, &init);
	if (ret) {
		pt_log("  %s: query_qp -> %d\n", p->name, ret);
		return;
	}
	pt_log("  %s: qp state=%d timeout=%u min_rnr=%u mtu=%d retry=%u/%u\n",
	       p->name, a.qp_state, a.timeout, a.min_rnr_timer, a.path_mtu,
	       a.retry_cnt, a.rnr_retry);
	pt_log("  %s: qp tclass=%u sl=%u hop=%u\n", p->name,
	       a.ah_attr.grh.traffic_class, a.ah_attr.sl,
	       a.ah_attr.grh.hop_limit);
}

/* set_service_type, set_ack_timeout, set_min_rnr_timer, then connect. */
static void sc_options(int set)
{
	u16 port = RC_PORT + 6;
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	pt_listen(&l, PARITY_RB, port, PT_ACCEPT);
	if (set) {
		rdma_set_service_type(c.id, 32);
		pt_call(&c, "set_service_type(32)", 0);
		pt_call(&c, "set_ack_timeout(16)",
			rdma_set_ack_timeout(c.id, 16));
		pt_call(&c, "set_min_rnr_timer(12)",
			rdma_set_min_rnr_timer(c.id, 12));
	}
	if (!pt_resolve(&c, PARITY_RB, port))
		goto out;
	rc_route(&c);
	pt_log("  client: create_qp -> %d\n", pt_qp(&c));
	if (pt_connect_param(&c, 0, 1, 1) || !rc_established(&l, &c))
		goto out;
	rc_qp_attr(&c);
	rc_qp_attr(l.child);
	pt_call(&c, "set_ack_timeout(18) connected",
		rdma_set_ack_timeout(c.id, 18));
	rc_disconnect(&c, l.child);
out:
	rc_end(&l, &c);
}

/* UD (RDMA_PS_UDP): resolve and connect by SIDR. */
enum {
	UD_OK, UD_REQ_MAX, UD_REQ_OVER, UD_REP_MAX, UD_REP_OVER, UD_REJECT,
	UD_NOBODY, UD_COUNT
};

static const char * const ud_names[] = {
	"roce-ud-sidr", "roce-ud-sidr-pd-180", "roce-ud-sidr-pd-181",
	"roce-ud-accept-pd-136", "roce-ud-accept-pd-137", "roce-ud-reject",
	"roce-ud-no-listener",
};

static int ud_create(struct pt_id *p, const char *name)
{
	return pt_create_ps(p, name, RDMA_PS_UDP, IB_QPT_UD);
}

static void sc_ud(int how)
{
	static const u8 req_pd[] = { [UD_REQ_MAX] = 180, [UD_REQ_OVER] = 181 };
	static const u8 rep_pd[] = { [UD_REP_MAX] = 136, [UD_REP_OVER] = 137 };
	u16 port = UD_PORT + (how == UD_NOBODY);
	struct pt_id l = {}, c = {};
	int got;

	if (ud_create(&l, "listener") || ud_create(&c, "client"))
		goto out;
	l.pdlen = how < ARRAY_SIZE(rep_pd) && rep_pd[how] ? rep_pd[how] : 8;
	if (how != UD_NOBODY)
		pt_listen(&l, PARITY_RB, port,
			  how == UD_REJECT ? PT_REJECT : PT_ACCEPT);
	/* No set_min_rnr_timer(): in-tree WARNs on a UD id. */
	if (how == UD_OK)
		pt_call(&c, "set_ack_timeout(16)",
			rdma_set_ack_timeout(c.id, 16));
	if (pt_connect(&c, PARITY_RB, port,
		       how < ARRAY_SIZE(req_pd) && req_pd[how] ?
		       req_pd[how] : 4))
		goto out;
	if (how == UD_REP_OVER) {
		/* The accept failed: destroying the request answers it. */
		pt_wait(&l, RDMA_CM_EVENT_CONNECT_REQUEST);
		pt_destroy_children();
	}
	got = pt_wait_any(&c, RDMA_CM_EVENT_ESTABLISHED,
			  RDMA_CM_EVENT_UNREACHABLE);
	if (got == RDMA_CM_EVENT_ESTABLISHED) {
		pt_call(&c, "disconnect", rdma_disconnect(c.id));
		if (l.child)
			pt_call(l.child, "after", 0);
	}
	pt_call(&c, "after", 0);
out:
	rc_end(&l, &c);
}

/*
 * Multicast on a UD id (no QP: the CM does not attach one, and in-tree
 * WARNs on a join of an id with a QP). No handler here returns 1 on
 * MULTICAST_JOIN: in-tree WARNs on that too (a panic in the test VM).
 */
static int mc_join(struct pt_id *p, const char *group, u8 join_state)
{
	char what[48];
	int ret;

	ret = rdma_join_multicast(p->id, pt_psa(group, 0), join_state, p);
	snprintf(what, sizeof(what), "join %s state=%#x", group, join_state);
	pt_call(p, what, ret);
	return ret;
}

static void mc_leave(struct pt_id *p, const char *group)
{
	char what[48];

	rdma_leave_multicast(p->id, pt_psa(group, 0));
	snprintf(what, sizeof(what), "leave %s", group);
	pt_call(p, what, 0);
}

/* @p resolved from @src to @group (how mckey sets up its id). */
static bool mc_resolve(struct pt_id *p, const char *src, const char *group)
{
	pt_call(p, "resolve_addr",
		rdma_resolve_addr(p->id, pt_psa(src, 0), pt_psa(group, 0),
				  2000));
	return pt_wait(p, RDMA_CM_EVENT_ADDR_RESOLVED);
}

enum {
	MC_JOIN, MC_TWO, MC_TWICE, MC_LEAVE_UNJOINED, MC_UNICAST, MC_RC,
	MC_IDLE, MC_BOUND, MC_SENDONLY, MC_V6, MC_DESTROY_JOINED, MC_COUNT
};

static const char * const mc_names[] = {
	"roce-mc-join", "roce-mc-two-groups", "roce-mc-same-group-twice",
	"roce-mc-leave-unjoined", "roce-mc-unicast-address", "roce-mc-rc-id",
	"roce-mc-idle", "roce-mc-bound", "roce-mc-sendonly", "roce-mc-ipv6",
	"roce-mc-destroy-joined",
};

static void sc_mc(int how)
{
	const u8 full = BIT(FULLMEMBER_JOIN);
	struct pt_id m = {};

	if (how == MC_RC ? pt_create(&m, "member") :
	    ud_create(&m, "member"))
		return;
	switch (how) {
	case MC_IDLE:
		mc_join(&m, MC_G1, full);
		goto out;
	case MC_BOUND:
		pt_call(&m, "bind", rdma_bind_addr(m.id, pt_psa(PARITY_RA, 0)));
		break;
	case MC_RC:
		if (!pt_resolve(&m, PARITY_RB, RC_PORT + 7))
			goto out;
		break;
	case MC_V6:
		if (!mc_resolve(&m, PARITY_RA6, MC_G6))
			goto out;
		if (!mc_join(&m, MC_G6, full) &&
		    pt_wait_any(&m, RDMA_CM_EVENT_MULTICAST_JOIN,
				RDMA_CM_EVENT_MULTICAST_ERROR) >= 0)
			mc_leave(&m, MC_G6);
		goto out;
	default:
		if (!mc_resolve(&m, PARITY_RA, MC_G1))
			goto out;
	}
	switch (how) {
	case MC_TWO:
		if (!mc_join(&m, MC_G1, full))
			pt_wait_n(&m, RDMA_CM_EVENT_MULTICAST_JOIN, 1);
		if (!mc_join(&m, MC_G2, full))
			pt_wait_n(&m, RDMA_CM_EVENT_MULTICAST_JOIN, 2);
		mc_leave(&m, MC_G1);
		mc_leave(&m, MC_G2);
		break;
	case MC_TWICE:
		if (!mc_join(&m, MC_G1, full))
			pt_wait_n(&m, RDMA_CM_EVENT_MULTICAST_JOIN, 1);
		if (!mc_join(&m, MC_G1, full))
			pt_wait_n(&m, RDMA_CM_EVENT_MULTICAST_JOIN, 2);
		mc_leave(&m, MC_G1);
		mc_leave(&m, MC_G1);
		break;
	case MC_LEAVE_UNJOINED:
		mc_leave(&m, MC_G2);
		if (!mc_join(&m, MC_G1, full))
			pt_wait(&m, RDMA_CM_EVENT_MULTICAST_JOIN);
		mc_leave(&m, MC_G2);
		mc_leave(&m, MC_G1);
		break;
	case MC_UNICAST:
		if (!mc_join(&m, PARITY_RB, full)) {
			pt_wait_any(&m, RDMA_CM_EVENT_MULTICAST_JOIN,
				    RDMA_CM_EVENT_MULTICAST_ERROR);
			mc_leave(&m, PARITY_RB);
		}
		break;
	case MC_SENDONLY:
		if (!mc_join(&m, MC_G1, BIT(SENDONLY_FULLMEMBER_JOIN)))
			pt_wait(&m, RDMA_CM_EVENT_MULTICAST_JOIN);
		mc_leave(&m, MC_G1);
		break;
	case MC_DESTROY_JOINED:
		if (!mc_join(&m, MC_G1, full))
			pt_wait(&m, RDMA_CM_EVENT_MULTICAST_JOIN);
		break;
	default:	/* MC_JOIN, MC_RC, MC_BOUND */
		if (!mc_join(&m, MC_G1, full)) {
			pt_wait_any(&m, RDMA_CM_EVENT_MULTICAST_JOIN,
				    RDMA_CM_EVENT_MULTICAST_ERROR);
			mc_leave(&m, MC_G1);
		}
	}
out:
	pt_call(&m, "after", 0);
	pt_destroy(&m);
}

void pt_register_roce(void)
{
	int i;

	pt_add("roce-resolve", sc_resolve, 0, false);
	pt_add("roce-resolve-v6", sc_resolve, 1, false);
	pt_add("roce-resolve-from-A", sc_resolve, 2, false);
	for (i = 0; i < ARRAY_SIZE(pd_cases); i++)
		pt_add(pd_cases[i].name, sc_pd, i, false);
	pt_add("roce-no-listener", sc_no_listener, 0, false);
	for (i = 0; i < DC_COUNT; i++)
		pt_add(dc_names[i], sc_disconnect, i, false);
	for (i = 0; i < DS_COUNT; i++)
		pt_add(ds_names[i], sc_destroy, i, false);
	for (i = 0; i < ARRAY_SIZE(hd_cases); i++)
		pt_add(hd_cases[i].name, sc_handler_destroy, i, false);
	pt_add("roce-options-default", sc_options, 0, false);
	pt_add("roce-options-set", sc_options, 1, false);
	for (i = 0; i < UD_COUNT; i++)
		pt_add(ud_names[i], sc_ud, i, false);
	for (i = 0; i < MC_COUNT; i++)
		pt_add(mc_names[i], sc_mc, i, false);
}
