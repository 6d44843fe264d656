// SPDX-License-Identifier: GPL-2.0
/*
 * cm_parity scenarios through ib_cm, each run on two fabrics: RoCE (rxe
 * loopback on one device) and native InfiniBand (softib under opensm, both
 * IPoIB addresses on one CA: its loopback; SA path records, SA multicast
 * joins): resolution, RC connect/accept/reject with private data up to the
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

/* A fabric: the prefix of its scenario names and its addresses. */
struct sc_fabric {
	const char *pfx;
	const char *a, *b, *a6, *b6;
};

static const struct sc_fabric sc_fabrics[] = {
	{ "roce", PARITY_RA, PARITY_RB, PARITY_RA6, PARITY_RB6 },
	{ "ib", PARITY_IA, PARITY_IB, PARITY_IA6, PARITY_IB6 },
};

#define FAB_SHIFT	8

/* The running scenario's fabric (scenarios run one at a time). */
static const struct sc_fabric *fab = &sc_fabrics[0];

/* A scenario's own argument; @fab from the rest. */
static int sc_arg(int arg)
{
	fab = &sc_fabrics[arg >> FAB_SHIFT];
	return arg & (BIT(FAB_SHIFT) - 1);
}

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
	if (pr->rec_type == SA_PATH_REC_TYPE_IB)
		pt_log("  %s: route: slid=%u dlid=%u rate=%u plt=%u\n",
		       p->name, be32_to_cpu(sa_path_get_slid(pr)),
		       be32_to_cpu(sa_path_get_dlid(pr)), pr->rate,
		       pr->packet_life_time);
}

/* Resolution on RoCE: to B, to B6, from an explicit source. */
static void sc_resolve(int arg)
{
	struct pt_id c = {};
	const char *dst[3];

	arg = sc_arg(arg);
	dst[0] = fab->b;
	dst[1] = fab->b6;
	dst[2] = fab->b;
	if (pt_create(&c, "client"))
		return;
	if (arg == 2) {
		pt_call(&c, "resolve_addr from A",
			rdma_resolve_addr(c.id, pt_psa(fab->a, 0),
					  pt_psa(fab->b, RC_PORT), 2000));
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
	pt_listen(l, fab->b, port, mode);
	return !pt_connect(c, fab->b, port, pdlen);
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
	{ "pd-connect-0", PD_CONNECT, 0 },
	{ "pd-connect-1", PD_CONNECT, 1 },
	{ "pd-connect-56", PD_CONNECT, 56 },
	{ "pd-connect-57", PD_CONNECT, 57 },
	{ "pd-accept-0", PD_ACCEPT, 0 },
	{ "pd-accept-1", PD_ACCEPT, 1 },
	{ "pd-accept-196", PD_ACCEPT, 196 },
	{ "pd-accept-197", PD_ACCEPT, 197 },
	{ "pd-reject-0", PD_REJECT, 0 },
	{ "pd-reject-5", PD_REJECT, 5 },
	{ "pd-reject-148", PD_REJECT, 148 },
	{ "pd-reject-149", PD_REJECT, 149 },
};

static void sc_pd(int arg)
{
	int i = sc_arg(arg);
	int what = pd_cases[i].what;
	u8 len = pd_cases[i].len;
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	l.pdlen = what == PD_CONNECT ? 8 : len;
	pt_listen(&l, fab->b, RC_PORT + 1,
		  what == PD_REJECT ? PT_REJECT : PT_ACCEPT);
	if (pt_connect(&c, fab->b, RC_PORT + 1,
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

	sc_arg(arg);
	if (pt_create(&c, "client"))
		return;
	if (!pt_connect(&c, fab->b, RC_PORT + 2, 4))
		pt_wait(&c, RDMA_CM_EVENT_REJECTED);
	pt_call(&c, "after", 0);
	pt_connect_param(&c, 0, 1, 1);	/* again */
	pt_destroy(&c);
}

/* Disconnect from the active side, the passive side, both. */
enum { DC_ACTIVE, DC_PASSIVE, DC_BOTH, DC_COUNT };
static const char * const dc_names[] = {
	"disconnect-active", "disconnect-passive",
	"disconnect-both",
};

static void sc_disconnect(int arg)
{
	int how = sc_arg(arg);
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
	"destroy-addr-resolved", "destroy-route-resolved",
	"destroy-established-active", "destroy-established-passive",
	"destroy-listener-keeps-child",
	"destroy-client-request-pending",
};

static void sc_destroy(int arg)
{
	int how = sc_arg(arg);
	struct pt_id l = {}, c = {};

	if (how == DS_ADDR || how == DS_ROUTE) {
		if (pt_create(&c, "client"))
			return;
		pt_call(&c, "resolve_addr",
			rdma_resolve_addr(c.id, NULL,
					  pt_psa(fab->b, RC_PORT + 4), 2000));
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
	{ "handler-destroys-addr-resolved", RDMA_CM_EVENT_ADDR_RESOLVED },
	{ "handler-destroys-route-resolved", RDMA_CM_EVENT_ROUTE_RESOLVED },
	{ "handler-destroys-connect-request",
	  RDMA_CM_EVENT_CONNECT_REQUEST, true },
	{ "handler-destroys-established-active",
	  RDMA_CM_EVENT_ESTABLISHED },
	{ "handler-destroys-established-passive",
	  RDMA_CM_EVENT_ESTABLISHED, true },
	{ "handler-destroys-disconnected-active",
	  RDMA_CM_EVENT_DISCONNECTED },
	{ "handler-destroys-disconnected-passive",
	  RDMA_CM_EVENT_DISCONNECTED, true },
	{ "handler-destroys-rejected", RDMA_CM_EVENT_REJECTED },
};

static void sc_handler_destroy(int arg)
{
	int i = sc_arg(arg);
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
	pt_listen(&l, fab->b, port,
		  ev == RDMA_CM_EVENT_REJECTED ? PT_REJECT : PT_ACCEPT);
	if (ev == RDMA_CM_EVENT_ADDR_RESOLVED) {
		pt_call(&c, "resolve_addr",
			rdma_resolve_addr(c.id, NULL, pt_psa(fab->b, port),
					  2000));
		pt_wait(&c, ev);
		goto out;
	}
	if (ev == RDMA_CM_EVENT_ROUTE_RESOLVED) {
		pt_resolve(&c, fab->b, port);
		goto out;
	}
	if (pt_connect(&c, fab->b, port, 0))
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
static void sc_options(int arg)
{
	int set = sc_arg(arg);
	u16 port = RC_PORT + 6;
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	pt_listen(&l, fab->b, port, PT_ACCEPT);
	if (set) {
		rdma_set_service_type(c.id, 32);
		pt_call(&c, "set_service_type(32)", 0);
		pt_call(&c, "set_ack_timeout(16)",
			rdma_set_ack_timeout(c.id, 16));
		pt_call(&c, "set_min_rnr_timer(12)",
			rdma_set_min_rnr_timer(c.id, 12));
	}
	if (!pt_resolve(&c, fab->b, port))
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
	"ud-sidr", "ud-sidr-pd-180", "ud-sidr-pd-181",
	"ud-accept-pd-136", "ud-accept-pd-137", "ud-reject",
	"ud-no-listener",
};

static int ud_create(struct pt_id *p, const char *name)
{
	return pt_create_ps(p, name, RDMA_PS_UDP, IB_QPT_UD);
}

static void sc_ud(int arg)
{
	int how = sc_arg(arg);
	static const u8 req_pd[] = { [UD_REQ_MAX] = 180, [UD_REQ_OVER] = 181 };
	static const u8 rep_pd[] = { [UD_REP_MAX] = 136, [UD_REP_OVER] = 137 };
	u16 port = UD_PORT + (how == UD_NOBODY);
	struct pt_id l = {}, c = {};
	int got;

	if (ud_create(&l, "listener") || ud_create(&c, "client"))
		goto out;
	l.pdlen = how < ARRAY_SIZE(rep_pd) && rep_pd[how] ? rep_pd[how] : 8;
	if (how != UD_NOBODY)
		pt_listen(&l, fab->b, port,
			  how == UD_REJECT ? PT_REJECT : PT_ACCEPT);
	/* No set_min_rnr_timer(): in-tree WARNs on a UD id. */
	if (how == UD_OK)
		pt_call(&c, "set_ack_timeout(16)",
			rdma_set_ack_timeout(c.id, 16));
	if (pt_connect(&c, fab->b, port,
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
	"mc-join", "mc-two-groups", "mc-same-group-twice",
	"mc-leave-unjoined", "mc-unicast-address", "mc-rc-id",
	"mc-idle", "mc-bound", "mc-sendonly", "mc-ipv6",
	"mc-destroy-joined",
};

static void sc_mc(int arg)
{
	int how = sc_arg(arg);
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
		pt_call(&m, "bind", rdma_bind_addr(m.id, pt_psa(fab->a, 0)));
		break;
	case MC_RC:
		if (!pt_resolve(&m, fab->b, RC_PORT + 7))
			goto out;
		break;
	case MC_V6:
		if (!mc_resolve(&m, fab->a6, MC_G6))
			goto out;
		if (!mc_join(&m, MC_G6, full) &&
		    pt_wait_any(&m, RDMA_CM_EVENT_MULTICAST_JOIN,
				RDMA_CM_EVENT_MULTICAST_ERROR) >= 0)
			mc_leave(&m, MC_G6);
		goto out;
	default:
		if (!mc_resolve(&m, fab->a, MC_G1))
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
		if (!mc_join(&m, fab->b, full)) {
			pt_wait_any(&m, RDMA_CM_EVENT_MULTICAST_JOIN,
				    RDMA_CM_EVENT_MULTICAST_ERROR);
			mc_leave(&m, fab->b);
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

/* pt_add() with the fabric's prefix and its bits in @arg. */
static void sc_add(int f, const char *name, void (*fn)(int arg), int arg)
{
	char full[48];

	snprintf(full, sizeof(full), "%s-%s", sc_fabrics[f].pfx, name);
	pt_add(full, fn, arg | f << FAB_SHIFT, false);
}

void pt_register_roce(void)
{
	int f, i;

	for (f = 0; f < ARRAY_SIZE(sc_fabrics); f++) {
		sc_add(f, "resolve", sc_resolve, 0);
		sc_add(f, "resolve-v6", sc_resolve, 1);
		sc_add(f, "resolve-from-A", sc_resolve, 2);
		for (i = 0; i < ARRAY_SIZE(pd_cases); i++)
			sc_add(f, pd_cases[i].name, sc_pd, i);
		sc_add(f, "no-listener", sc_no_listener, 0);
		for (i = 0; i < DC_COUNT; i++)
			sc_add(f, dc_names[i], sc_disconnect, i);
		for (i = 0; i < DS_COUNT; i++)
			sc_add(f, ds_names[i], sc_destroy, i);
		for (i = 0; i < ARRAY_SIZE(hd_cases); i++)
			sc_add(f, hd_cases[i].name, sc_handler_destroy, i);
		sc_add(f, "options-default", sc_options, 0);
		sc_add(f, "options-set", sc_options, 1);
		for (i = 0; i < UD_COUNT; i++)
			sc_add(f, ud_names[i], sc_ud, i);
		for (i = 0; i < MC_COUNT; i++)
			sc_add(f, mc_names[i], sc_mc, i);
	}
}
