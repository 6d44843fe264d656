// SPDX-License-Identifier: GPL-2.0
/*
 * cm_parity scenarios: calls in each state without a connection (options,
 * resolution, bad arguments, port spaces, the message tables).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in6.h>
#include <rdma/ib.h>
#include <rdma/ib_verbs.h>

#include "pt.h"

static void sc_idle(int arg)
{
	struct rdma_conn_param param = {};
	struct pt_id a = {};

	if (pt_create(&a, "a"))
		return;
	pt_call(&a, "resolve_route", rdma_resolve_route(a.id, 1000));
	pt_call(&a, "resolve_route(0)", rdma_resolve_route(a.id, 0));
	pt_call(&a, "connect", rdma_connect(a.id, &param));
	pt_call(&a, "disconnect", rdma_disconnect(a.id));
	pt_call(&a, "reject", rdma_reject(a.id, NULL, 0, 0));
	pt_call(&a, "notify", rdma_notify(a.id, IB_EVENT_COMM_EST));
	pt_destroy(&a);
}

/* The setters a ULP calls, on an id brought into state @arg. */
enum { ST_IDLE, ST_BOUND, ST_LISTEN, ST_RESOLVED, ST_QP };

static const char * const opt_states[] = {
	"idle", "bound", "listening", "resolved", "resolved-with-qp",
};

static void sc_options(int st)
{
	struct sockaddr_storage a = pt_sa(PARITY_A, PT_PORT + 12);
	struct pt_id p = {};

	if (pt_create(&p, "a"))
		return;
	if (st == ST_BOUND || st == ST_LISTEN)
		pt_call(&p, "bind", rdma_bind_addr(p.id, SA(a)));
	if (st == ST_LISTEN)
		pt_call(&p, "listen", rdma_listen(p.id, 1));
	if (st >= ST_RESOLVED && !pt_resolve(&p, PARITY_B, PT_PORT + 12))
		goto out;
	if (st == ST_QP)
		pt_log("  a: create_qp -> %d\n", pt_qp(&p));

	pt_call(&p, "set_reuseaddr(1)", rdma_set_reuseaddr(p.id, 1));
	pt_call(&p, "set_reuseaddr(0)", rdma_set_reuseaddr(p.id, 0));
	pt_call(&p, "set_afonly(1)", rdma_set_afonly(p.id, 1));
	pt_call(&p, "set_afonly(0)", rdma_set_afonly(p.id, 0));
	pt_call(&p, "set_ack_timeout(14)", rdma_set_ack_timeout(p.id, 14));
	pt_call(&p, "set_min_rnr_timer(12)", rdma_set_min_rnr_timer(p.id, 12));
	pt_call(&p, "set_min_rnr_timer(40)", rdma_set_min_rnr_timer(p.id, 40));
	rdma_set_service_type(p.id, 32);
	pt_call(&p, "set_service_type(32)", 0);
	pt_call(&p, "notify", rdma_notify(p.id, IB_EVENT_COMM_EST));
	rdma_leave_multicast(p.id, pt_psa("239.1.2.3", 0));
	pt_call(&p, "leave_multicast(not joined)", 0);
out:
	pt_destroy(&p);
}

static void sc_listen(int arg)
{
	struct pt_id a = {}, b = {};

	if (pt_create(&a, "a") || pt_create(&b, "b"))
		goto out;
	pt_call(&a, "listen (idle)", rdma_listen(a.id, 0));
	pt_call(&a, "listen again", rdma_listen(a.id, 0));
	pt_call(&a, "bind", rdma_bind_addr(a.id, pt_psa(PARITY_A, 1)));
	pt_call(&a, "resolve_route", rdma_resolve_route(a.id, 100));
	pt_listen(&b, PARITY_B, PT_PORT + 3, PT_KEEP);
	pt_call(&b, "resolve_addr",
		rdma_resolve_addr(b.id, NULL, pt_psa(PARITY_A, 9), 100));
out:
	pt_destroy(&a);
	pt_destroy(&b);
}

/* rdma_listen() on an id bound to port 0 and to each kind of address. */
static const char * const listen_addrs[] = {
	PARITY_A, "0.0.0.0", "127.0.0.1", "::", PARITY_A6, "::1",
};

static void sc_listen_addr(int i)
{
	struct pt_id a = {};

	if (pt_create(&a, "a"))
		return;
	pt_call(&a, "bind port 0",
		rdma_bind_addr(a.id, pt_psa(listen_addrs[i], 0)));
	pt_call(&a, "listen", rdma_listen(a.id, 0));
	pt_destroy(&a);
}

static void sc_resolve_nobody(int arg)
{
	struct sockaddr_storage d = pt_sa(PARITY_NOBODY, PT_PORT);
	struct pt_id a = {};

	if (pt_create(&a, "a"))
		return;
	pt_call(&a, "resolve_addr nobody", rdma_resolve_addr(a.id, NULL, SA(d),
							     500));
	pt_wait(&a, RDMA_CM_EVENT_ADDR_ERROR);
	pt_call(&a, "after", 0);
	pt_call(&a, "resolve_addr B",
		rdma_resolve_addr(a.id, NULL, pt_psa(PARITY_B, PT_PORT), 500));
	pt_wait(&a, RDMA_CM_EVENT_ADDR_RESOLVED);
	pt_destroy(&a);
}

static void sc_resolve(int arg)
{
	struct pt_id a = {};

	if (pt_create(&a, "a"))
		return;
	if (pt_resolve(&a, PARITY_B, PT_PORT + 4)) {
		pt_call(&a, "resolve_route again",
			rdma_resolve_route(a.id, 1000));
		pt_call(&a, "resolve_addr again",
			rdma_resolve_addr(a.id, NULL,
					  pt_psa(PARITY_B, PT_PORT + 4), 100));
		pt_call(&a, "listen", rdma_listen(a.id, 1));
		pt_call(&a, "bind",
			rdma_bind_addr(a.id, pt_psa(PARITY_A, PT_PORT + 4)));
	}
	pt_destroy(&a);
}

/* Destinations of rdma_resolve_addr(), with the source it is given. */
static const struct {
	const char *name, *src, *dst;
	u16 sport;
} resolve_cases[] = {
	{ "resolve-src-A", PARITY_A, PARITY_B, 0 },
	{ "resolve-src-A-port", PARITY_A, PARITY_B, PT_PORT + 30 },
	{ "resolve-src-nobody", PARITY_NOBODY, PARITY_B, 0 },
	{ "resolve-src-v6-dst-v4", PARITY_A6, PARITY_B, 0 },
	{ "resolve-self", NULL, PARITY_A, 0 },
	{ "resolve-loopback", NULL, "127.0.0.1", 0 },
	{ "resolve-any", NULL, "0.0.0.0", 0 },
	{ "resolve-v6", NULL, PARITY_B6, 0 },
	{ "resolve-v6-src", PARITY_A6, PARITY_B6, 0 },
	{ "resolve-v6-loopback", NULL, "::1", 0 },
	{ "resolve-v6-linklocal-noscope", NULL, "fe80::1", 0 },
	{ "resolve-v4mapped", NULL, "::ffff:198.18.1.2", 0 },
	{ "resolve-broadcast", NULL, "255.255.255.255", 0 },
	{ "resolve-multicast", NULL, "224.0.0.1", 0 },
};

static void sc_resolve_case(int i)
{
	struct sockaddr_storage s = pt_sa(resolve_cases[i].src,
					  resolve_cases[i].sport);
	struct sockaddr_storage d = pt_sa(resolve_cases[i].dst, PT_PORT + 31);
	struct pt_id a = {};
	int ret;

	if (pt_create(&a, "a"))
		return;
	ret = rdma_resolve_addr(a.id, resolve_cases[i].src ? SA(s) : NULL,
				SA(d), 1000);
	pt_call(&a, "resolve_addr", ret);
	if (!ret && pt_wait_any(&a, RDMA_CM_EVENT_ADDR_RESOLVED,
				RDMA_CM_EVENT_ADDR_ERROR) ==
		    RDMA_CM_EVENT_ADDR_RESOLVED) {
		pt_call(&a, "resolve_route", rdma_resolve_route(a.id, 1000));
		/* Either answer is what the scenario is about. */
		pt_wait_any(&a, RDMA_CM_EVENT_ROUTE_RESOLVED,
			    RDMA_CM_EVENT_ROUTE_ERROR);
	} else if (!ret) {
		pt_call(&a, "after", 0);
	}
	pt_destroy(&a);
}

/*
 * Addresses of families and sizes that are not IP ones (@arg 1: AF_IB alone,
 * a scenario of its own so that its documented deviation covers that call).
 */
static void sc_bad_family(int arg)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_ib *sib = (struct sockaddr_ib *)&ss;
	struct pt_id a = {};

	if (pt_create(&a, "a"))
		return;
	if (arg)
		goto af_ib;
	ss.ss_family = AF_UNSPEC;
	pt_call(&a, "bind AF_UNSPEC", rdma_bind_addr(a.id, SA(ss)));
	ss.ss_family = AF_UNIX;
	pt_call(&a, "bind AF_UNIX", rdma_bind_addr(a.id, SA(ss)));
	pt_call(&a, "resolve_addr dst AF_UNIX",
		rdma_resolve_addr(a.id, NULL, SA(ss), 100));
	ss.ss_family = AF_UNSPEC;
	pt_call(&a, "resolve_addr dst AF_UNSPEC",
		rdma_resolve_addr(a.id, NULL, SA(ss), 100));
	pt_destroy(&a);
	return;
af_ib:
	memset(&ss, 0, sizeof(ss));
	sib->sib_family = AF_IB;
	pt_call(&a, "bind AF_IB (any)", rdma_bind_addr(a.id, SA(ss)));
	pt_destroy(&a);
}

/* The port spaces: one port, one id in each of TCP, UDP, IPOIB, IB. */
static void sc_port_spaces(int arg)
{
	static const struct {
		const char *name;
		enum rdma_ucm_port_space ps;
		enum ib_qp_type qpt;
	} sp[] = {
		{ "tcp", RDMA_PS_TCP, IB_QPT_RC },
		{ "udp", RDMA_PS_UDP, IB_QPT_UD },
		{ "ipoib", RDMA_PS_IPOIB, IB_QPT_UD },
		{ "ib", RDMA_PS_IB, IB_QPT_RC },
		{ "tcp2", RDMA_PS_TCP, IB_QPT_RC },
		{ "bogus", 0x7f, IB_QPT_RC },
	};
	struct sockaddr_storage a = pt_sa(PARITY_A, PT_PORT + 13);
	static struct pt_id p[ARRAY_SIZE(sp)];	/* one scenario at a time */
	int i;

	for (i = 0; i < ARRAY_SIZE(sp); i++) {
		if (pt_create_ps(&p[i], sp[i].name, sp[i].ps, sp[i].qpt))
			continue;
		pt_call(&p[i], "bind A", rdma_bind_addr(p[i].id, SA(a)));
	}
	for (i = 0; i < ARRAY_SIZE(sp); i++)
		pt_destroy(&p[i]);
}

/*
 * A UD id on an iWARP device: what multicast says with the address
 * resolved (@arg 0: the one state it is allowed in) and after the route.
 */
static void sc_ud(int arg)
{
	struct sockaddr_storage m = pt_sa("239.1.2.3", 0);
	struct pt_id a = {};
	bool ok;

	if (pt_create_ps(&a, "ud", RDMA_PS_UDP, IB_QPT_UD))
		return;
	if (arg) {
		ok = pt_resolve(&a, PARITY_B, PT_PORT + 14);
	} else {
		struct sockaddr *dst = pt_psa(PARITY_B, PT_PORT + 14);

		pt_call(&a, "resolve_addr",
			rdma_resolve_addr(a.id, NULL, dst, 1000));
		ok = pt_wait(&a, RDMA_CM_EVENT_ADDR_RESOLVED);
	}
	if (ok) {
		pt_call(&a, "join_multicast",
			rdma_join_multicast(a.id, SA(m), 0, NULL));
		rdma_leave_multicast(a.id, SA(m));
		pt_call(&a, "leave_multicast", 0);
	}
	pt_destroy(&a);
}

/*
 * The string rdma_event_msg() gives for event @arg, quoted: one scenario per
 * event, so that a documented deviation covers one string.
 */
static void sc_event_msg(int arg)
{
	pt_log("  event %d: \"%s\"\n", arg, rdma_event_msg(arg));
}

/* The strings rdma_reject_msg() gives on an iWARP id, quoted. */
static void sc_reject_msg(int arg)
{
	static const int status[] = {
		0, -ECONNRESET, -ECONNREFUSED, -ETIMEDOUT, -EINVAL, -ENETUNREACH,
		-ECONNABORTED, 1, 28,
	};
	struct pt_id a = {};
	int i;

	if (pt_create(&a, "a"))
		return;
	if (pt_resolve(&a, PARITY_B, PT_PORT + 15)) {
		for (i = 0; i < ARRAY_SIZE(status); i++)
			pt_log("  reject_msg(%d): \"%s\"\n", status[i],
			       rdma_reject_msg(a.id, status[i]));
	}
	pt_destroy(&a);
}

void pt_register_calls(void)
{
	char name[48];
	int i;

	pt_add("idle-calls", sc_idle, 0, false);
	for (i = 0; i < ARRAY_SIZE(opt_states); i++) {
		snprintf(name, sizeof(name), "options-%s", opt_states[i]);
		pt_add(name, sc_options, i, false);
	}
	pt_add("listen", sc_listen, 0, false);
	for (i = 0; i < ARRAY_SIZE(listen_addrs); i++) {
		snprintf(name, sizeof(name), "listen-port0-%s", listen_addrs[i]);
		pt_add(name, sc_listen_addr, i, false);
	}
	pt_add("resolve", sc_resolve, 0, false);
	pt_add("resolve-nobody", sc_resolve_nobody, 0, false);
	for (i = 0; i < ARRAY_SIZE(resolve_cases); i++)
		pt_add(resolve_cases[i].name, sc_resolve_case, i, false);
	pt_add("bad-family", sc_bad_family, 0, false);
	pt_add("bad-family-af-ib", sc_bad_family, 1, false);
	pt_add("port-spaces", sc_port_spaces, 0, false);
	pt_add("ud-multicast-addr-resolved", sc_ud, 0, false);
	pt_add("ud-multicast-route-resolved", sc_ud, 1, false);
	for (i = RDMA_CM_EVENT_ADDR_RESOLVED;
	     i <= RDMA_CM_EVENT_TIMEWAIT_EXIT + 1; i++) {
		snprintf(name, sizeof(name), "event-msg-%d", i);
		pt_add(name, sc_event_msg, i, false);
	}
	pt_add("reject-msg", sc_reject_msg, 0, false);
}
