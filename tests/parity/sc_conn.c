// SPDX-License-Identifier: GPL-2.0
/*
 * cm_parity scenarios with a connection: connect, accept, reject with and
 * without private data, disconnect from either side, destroy in each state
 * and from inside each handler, listeners on each kind of address.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_verbs.h>

#include "pt.h"

#define PT_CONN_PORT	(PT_PORT + 50)

/* A listener on @ip:@port in @mode and a client connected to @dst. */
static bool pt_pair(struct pt_id *l, struct pt_id *c, const char *ip,
		    const char *dst, u16 port, enum pt_mode mode, u8 pdlen)
{
	if (pt_create(l, "listener") || pt_create(c, "client"))
		return false;
	pt_listen(l, ip, port, mode);
	return !pt_connect(c, dst, port, pdlen);
}

/* The client ESTABLISHED (not REJECTED), without a wait for what won't come. */
static bool pt_client_up(struct pt_id *c)
{
	return pt_wait_any(c, RDMA_CM_EVENT_ESTABLISHED,
			   RDMA_CM_EVENT_REJECTED) == RDMA_CM_EVENT_ESTABLISHED;
}

/* Both ends ESTABLISHED? */
static bool pt_established(struct pt_id *l, struct pt_id *c)
{
	if (!pt_client_up(c) || !l->child)
		return false;
	return pt_wait(l->child, RDMA_CM_EVENT_ESTABLISHED);
}

/* Established: the client disconnects, the passive side hears it. */
static void pt_disconnect_pair(struct pt_id *l, struct pt_id *c)
{
	if (!pt_established(l, c))
		return;
	pt_call(c, "disconnect", rdma_disconnect(c->id));
	pt_wait(l->child, RDMA_CM_EVENT_DISCONNECTED);
}

/* Destroy what a pair scenario made: accepted ids, the client, the listener. */
static void pt_end_pair(struct pt_id *l, struct pt_id *c)
{
	pt_destroy_children();
	pt_destroy(c);
	pt_destroy(l);
}

static void pt_states(struct pt_id *l, struct pt_id *c)
{
	pt_call(c, "after", 0);
	if (l->child)
		pt_call(l->child, "after", 0);
	pt_call(l, "after", 0);
}

/* Connect, accepted with private data; disconnect from @arg's side. */
static void sc_connect(int active_first)
{
	struct pt_id l = {}, c = {};

	if (!pt_pair(&l, &c, PARITY_B, PARITY_B, PT_PORT + 5 + !active_first,
		     PT_ACCEPT, 12) || !pt_established(&l, &c))
		goto out;
	if (active_first) {
		pt_call(&c, "disconnect", rdma_disconnect(c.id));
		pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
		pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
	} else {
		pt_call(l.child, "disconnect", rdma_disconnect(l.child->id));
		pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
		pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
	}
	pt_states(&l, &c);
	pt_call(&c, "disconnect again", rdma_disconnect(c.id));
	pt_call(l.child, "disconnect again", rdma_disconnect(l.child->id));
	pt_connect_param(&c, 0, 1, 1);	/* again */
out:
	pt_end_pair(&l, &c);
}

/* Both ends call rdma_disconnect() back to back. */
static void sc_disconnect_both(int arg)
{
	struct pt_id l = {}, c = {};

	if (!pt_pair(&l, &c, PARITY_B, PARITY_B, PT_CONN_PORT, PT_ACCEPT, 0) ||
	    !pt_established(&l, &c))
		goto out;
	pt_call(&c, "disconnect", rdma_disconnect(c.id));
	pt_call(l.child, "disconnect", rdma_disconnect(l.child->id));
	pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
	pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
	pt_states(&l, &c);
out:
	pt_end_pair(&l, &c);
}

/* Calls that are wrong once connected. */
static void sc_connected_calls(int arg)
{
	struct pt_id l = {}, c = {};
	struct pt_id *ch;

	if (!pt_pair(&l, &c, PARITY_B, PARITY_B, PT_CONN_PORT + 1, PT_ACCEPT,
		     0) || !pt_established(&l, &c))
		goto out;
	ch = l.child;
	pt_connect_param(&c, 0, 1, 1);	/* again */
	rdma_lock_handler(ch->id);
	pt_call(ch, "accept again", rdma_accept(ch->id, NULL));
	rdma_unlock_handler(ch->id);
	pt_call(ch, "reject after accept", rdma_reject(ch->id, NULL, 0, 0));
	pt_call(&c, "resolve_route", rdma_resolve_route(c.id, 100));
	pt_call(&c, "listen", rdma_listen(c.id, 1));
	pt_call(&c, "set_reuseaddr(1)", rdma_set_reuseaddr(c.id, 1));
	pt_call(&c, "notify", rdma_notify(c.id, IB_EVENT_COMM_EST));
	pt_call(ch, "notify", rdma_notify(ch->id, IB_EVENT_COMM_EST));
	pt_call(&c, "disconnect", rdma_disconnect(c.id));
	pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
	pt_wait(ch, RDMA_CM_EVENT_DISCONNECTED);
out:
	pt_end_pair(&l, &c);
}

/* A listener that rejects with private data, or refuses. */
static void sc_reject(int mode)
{
	struct pt_id l = {}, c = {};

	if (pt_pair(&l, &c, PARITY_B, PARITY_B,
		    PT_PORT + (mode == PT_REJECT ? 7 : 8), mode, 5))
		pt_wait(&c, RDMA_CM_EVENT_REJECTED);
	pt_call(&c, "after", 0);
	pt_connect_param(&c, 0, 1, 1);	/* again */
	pt_destroy(&c);
	pt_destroy(&l);
}

/* Nothing listens on the port: the peer's TCP refuses. */
static void sc_no_listener(int arg)
{
	struct pt_id c = {};

	if (pt_create(&c, "client"))
		return;
	if (!pt_connect(&c, PARITY_B, PT_PORT + 9, 0))
		pt_wait(&c, RDMA_CM_EVENT_REJECTED);
	pt_call(&c, "after", 0);
	pt_destroy(&c);
}

/* Private data the caller gets wrong. */
static void sc_pd_limits(int arg)
{
	struct rdma_conn_param param = { .private_data_len = 255 };
	struct pt_id c = {};

	if (pt_create(&c, "client"))
		return;
	if (pt_resolve(&c, PARITY_B, PT_PORT + 10))
		pt_call(&c, "connect pd=NULL/255", rdma_connect(c.id, &param));
	pt_destroy(&c);
}

/* Options and calls on a resolved id, then on a connected one. */
static void sc_options_resolved(int arg)
{
	u16 port = PT_PORT + 11;
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	pt_listen(&l, PARITY_B, port, PT_ACCEPT);
	if (!pt_resolve(&c, PARITY_B, port))
		goto out;
	pt_call(&c, "notify", rdma_notify(c.id, IB_EVENT_COMM_EST));
	pt_call(&c, "disconnect", rdma_disconnect(c.id));
	pt_call(&c, "bind", rdma_bind_addr(c.id, SA(l.id->route.addr.src_addr)));
	pt_log("  client: create_qp -> %d\n", pt_qp(&c));
	rdma_lock_handler(c.id);	/* rdma_accept() wants it, as ucma does */
	pt_call(&c, "accept (not a request)", rdma_accept(c.id, NULL));
	rdma_unlock_handler(c.id);
	pt_call(&c, "reject (not a request)", rdma_reject(c.id, NULL, 0, 0));
out:
	pt_destroy(&c);
	pt_destroy(&l);
}

/* Private data lengths on connect, accept and reject. */
static const u8 pd_lens[] = { 0, 1, 64, 196, 251 };
enum { PD_CONNECT, PD_ACCEPT, PD_REJECT, PD_COUNT };
static const char * const pd_what[] = { "connect", "accept", "reject" };

static void sc_pd(int arg)
{
	int what = arg / ARRAY_SIZE(pd_lens);
	u8 len = pd_lens[arg % ARRAY_SIZE(pd_lens)];
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	l.pdlen = what == PD_CONNECT ? 8 : len;
	pt_listen(&l, PARITY_B, PT_CONN_PORT + 2,
		  what == PD_REJECT ? PT_REJECT : PT_ACCEPT);
	if (pt_connect(&c, PARITY_B, PT_CONN_PORT + 2,
		       what == PD_CONNECT ? (len == 251 ? 255 : len) : 3))
		goto out;
	if (what == PD_REJECT) {
		pt_wait(&c, RDMA_CM_EVENT_REJECTED);
	} else if (pt_established(&l, &c)) {
		pt_call(&c, "disconnect", rdma_disconnect(c.id));
		pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
	}
out:
	pt_end_pair(&l, &c);
}

/* IRD/ORD that the caller asks for. */
static const u8 ird_ord[][2] = { { 0, 0 }, { 16, 16 }, { 255, 255 } };

static void sc_ird_ord(int i)
{
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	pt_listen(&l, PARITY_B, PT_CONN_PORT + 3, PT_ACCEPT);
	if (!pt_resolve(&c, PARITY_B, PT_CONN_PORT + 3))
		goto out;
	pt_log("  client: create_qp -> %d\n", pt_qp(&c));
	if (pt_connect_param(&c, 0, ird_ord[i][0], ird_ord[i][1]))
		goto out;
	pt_disconnect_pair(&l, &c);
out:
	pt_end_pair(&l, &c);
}

/* rdma_connect() and rdma_accept() without a QP. */
static void sc_no_qp(int passive)
{
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	l.no_qp = passive;
	pt_listen(&l, PARITY_B, PT_CONN_PORT + 4 + passive, PT_ACCEPT);
	if (!pt_resolve(&c, PARITY_B, PT_CONN_PORT + 4 + passive))
		goto out;
	if (!passive) {
		pt_connect_param(&c, 0, 1, 1);
		goto out;
	}
	pt_log("  client: create_qp -> %d\n", pt_qp(&c));
	if (!pt_connect_param(&c, 0, 1, 1))
		pt_wait(&c, RDMA_CM_EVENT_REJECTED);
out:
	pt_end_pair(&l, &c);
}

/* Destroy without a disconnect: the peer sees DISCONNECTED. */
enum { DS_ACTIVE, DS_PASSIVE, DS_LISTENER, DS_PENDING, DS_COUNT };
static const char * const ds_names[] = {
	"destroy-established-active", "destroy-established-passive",
	"destroy-listener-keeps-child", "destroy-client-request-pending",
};

static void sc_destroy(int how)
{
	struct pt_id l = {}, c = {};

	if (!pt_pair(&l, &c, PARITY_B, PARITY_B, PT_CONN_PORT + 6,
		     how == DS_PENDING ? PT_KEEP : PT_ACCEPT, 0))
		goto out;
	if (how == DS_PENDING) {
		pt_wait(&l, RDMA_CM_EVENT_CONNECT_REQUEST);
		pt_call(&c, "before", 0);
		pt_destroy(&c);
		pt_call(&l, "after the client is gone", 0);
		goto out;
	}
	if (!pt_established(&l, &c))
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
		pt_call(&c, "disconnect", rdma_disconnect(c.id));
		pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
		pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
		break;
	}
out:
	pt_end_pair(&l, &c);
}

/* The handler returns 1 on an event: the CM destroys the id. */
static const struct {
	const char *name;
	enum rdma_cm_event_type ev;
	bool passive;
} hd_cases[] = {
	{ "addr-resolved", RDMA_CM_EVENT_ADDR_RESOLVED },
	{ "route-resolved", RDMA_CM_EVENT_ROUTE_RESOLVED },
	{ "addr-error", RDMA_CM_EVENT_ADDR_ERROR },
	{ "established-active", RDMA_CM_EVENT_ESTABLISHED },
	{ "established-passive", RDMA_CM_EVENT_ESTABLISHED, true },
	{ "disconnected-active", RDMA_CM_EVENT_DISCONNECTED },
	{ "disconnected-passive", RDMA_CM_EVENT_DISCONNECTED, true },
	{ "rejected", RDMA_CM_EVENT_REJECTED },
};

static void sc_handler_destroy(int i)
{
	enum rdma_cm_event_type ev = hd_cases[i].ev;
	u16 port = PT_CONN_PORT + 7;
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	if (hd_cases[i].passive)
		l.destroy_on = ev;
	else
		c.destroy_on = ev;
	pt_listen(&l, PARITY_B, port,
		  ev == RDMA_CM_EVENT_REJECTED ? PT_REJECT : PT_ACCEPT);
	if (ev == RDMA_CM_EVENT_ADDR_RESOLVED ||
	    ev == RDMA_CM_EVENT_ADDR_ERROR) {
		const char *dst = ev == RDMA_CM_EVENT_ADDR_ERROR ?
				  PARITY_NOBODY : PARITY_B;

		pt_call(&c, "resolve_addr",
			rdma_resolve_addr(c.id, NULL, pt_psa(dst, port), 500));
		pt_wait(&c, ev);
		goto out;
	}
	if (ev == RDMA_CM_EVENT_ROUTE_RESOLVED) {
		pt_resolve(&c, PARITY_B, port);
		goto out;
	}
	if (pt_connect(&c, PARITY_B, port, 0))
		goto out;
	if (ev == RDMA_CM_EVENT_REJECTED) {
		pt_wait(&c, ev);
		goto out;
	}
	if (!pt_wait(&c, RDMA_CM_EVENT_ESTABLISHED) || !l.child ||
	    !pt_wait(l.child, RDMA_CM_EVENT_ESTABLISHED))
		goto out;
	if (ev == RDMA_CM_EVENT_ESTABLISHED) {
		/* The other side sees the connection go. */
		pt_wait(hd_cases[i].passive ? &c : l.child,
			RDMA_CM_EVENT_DISCONNECTED);
		goto out;
	}
	if (hd_cases[i].passive)
		pt_call(&c, "disconnect", rdma_disconnect(c.id));
	else
		pt_call(l.child, "disconnect", rdma_disconnect(l.child->id));
	pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
	pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
out:
	pt_call(&c, "after", 0);
	pt_end_pair(&l, &c);
}

/* Listeners on each kind of address, and who may connect to them. */
static const struct {
	const char *name, *listen_ip, *dst;
	bool afonly;
} la_cases[] = {
	{ "listen-any4-connect-A", "0.0.0.0", PARITY_A },
	{ "listen-any4-connect-B", "0.0.0.0", PARITY_B },
	{ "listen-A-connect-B", PARITY_A, PARITY_B },
	{ "listen-any6-connect-v4", "::", PARITY_B },
	{ "listen-any6-only-connect-v4", "::", PARITY_B, true },
	{ "listen-any6-connect-v6", "::", PARITY_B6 },
	{ "listen-B6-connect-v6", PARITY_B6, PARITY_B6 },
	{ "listen-lo4-connect-B", "127.0.0.1", PARITY_B },
};

static void sc_listen_connect(int i)
{
	u16 port = PT_CONN_PORT + 10 + i;
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	if (la_cases[i].afonly)
		pt_call(&l, "set_afonly(1)", rdma_set_afonly(l.id, 1));
	pt_listen(&l, la_cases[i].listen_ip, port, PT_ACCEPT);
	if (pt_connect(&c, la_cases[i].dst, port, 4))
		goto out;
	if (pt_client_up(&c) && l.child) {
		pt_wait(l.child, RDMA_CM_EVENT_ESTABLISHED);
		pt_call(&c, "disconnect", rdma_disconnect(c.id));
		pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
	}
out:
	pt_call(&c, "after", 0);
	pt_end_pair(&l, &c);
}

/* Two listeners on one port (A and B), a connection to each, in turn. */
static void sc_two_listeners(int arg)
{
	u16 port = PT_CONN_PORT + 20;
	struct pt_id la = {}, lb = {}, c1 = {}, c2 = {};

	if (pt_create(&la, "listenerA") || pt_create(&lb, "listenerB") ||
	    pt_create(&c1, "client1") || pt_create(&c2, "client2"))
		goto out;
	pt_listen(&la, PARITY_A, port, PT_ACCEPT);
	pt_listen(&lb, PARITY_B, port, PT_REJECT);
	if (!pt_connect(&c1, PARITY_A, port, 1))
		pt_wait(&c1, RDMA_CM_EVENT_ESTABLISHED);
	if (!pt_connect(&c2, PARITY_B, port, 2))
		pt_wait(&c2, RDMA_CM_EVENT_REJECTED);
	if (la.child)
		pt_wait(la.child, RDMA_CM_EVENT_ESTABLISHED);
out:
	pt_destroy_children();
	pt_destroy(&c1);
	pt_destroy(&c2);
	pt_destroy(&la);
	pt_destroy(&lb);
}

/* Listen, destroy, listen again on the port; then a connection. */
static void sc_relisten(int arg)
{
	u16 port = PT_CONN_PORT + 21;
	struct pt_id l = {}, c = {};

	if (pt_create(&l, "listener"))
		return;
	pt_listen(&l, PARITY_B, port, PT_ACCEPT);
	pt_destroy(&l);
	if (!pt_pair(&l, &c, PARITY_B, PARITY_B, port, PT_ACCEPT, 0))
		goto out;
	pt_disconnect_pair(&l, &c);
out:
	pt_end_pair(&l, &c);
}

/* Several clients of one listener, one after the other, all kept. */
static void sc_many_clients(int arg)
{
	u16 port = PT_CONN_PORT + 22;
	struct pt_id l = {}, c[4];
	int i;

	memset(c, 0, sizeof(c));
	if (pt_create(&l, "listener"))
		return;
	pt_listen(&l, "0.0.0.0", port, PT_ACCEPT);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		if (pt_create(&c[i], "client"))
			break;
		if (!pt_connect(&c[i], i % 2 ? PARITY_A : PARITY_B, port, i))
			pt_wait(&c[i], RDMA_CM_EVENT_ESTABLISHED);
	}
	/* One at a time, both ends seen: the order is the CM's, not luck's. */
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		if (c[i].id && !rdma_disconnect(c[i].id)) {
			pt_wait(&c[i], RDMA_CM_EVENT_DISCONNECTED);
			pt_wait(pt_child(i), RDMA_CM_EVENT_DISCONNECTED);
		}
		pt_destroy(&c[i]);
	}
	pt_destroy_children();
	pt_destroy(&l);
}

/* An explicitly bound client (address and port) connects. */
static void sc_bound_client(int arg)
{
	u16 port = PT_CONN_PORT + 23;
	struct pt_id l = {}, c = {}, d = {};

	if (pt_create(&l, "listener") || pt_create(&c, "client") ||
	    pt_create(&d, "second"))
		goto out;
	pt_listen(&l, PARITY_B, port, PT_ACCEPT);
	pt_call(&c, "bind A:33",
		rdma_bind_addr(c.id, pt_psa(PARITY_A, PT_PORT + 33)));
	if (pt_connect(&c, PARITY_B, port, 0))
		goto out;
	pt_client_up(&c);
	/* The port of a connected id is taken. */
	pt_call(&d, "bind A:33",
		rdma_bind_addr(d.id, pt_psa(PARITY_A, PT_PORT + 33)));
out:
	pt_destroy_children();
	pt_destroy(&c);
	pt_destroy(&d);
	pt_destroy(&l);
}

void pt_register_conn(void)
{
	char name[48];
	int i;

	pt_add("connect-active-disconnects", sc_connect, 1, false);
	pt_add("connect-passive-disconnects", sc_connect, 0, false);
	pt_add("disconnect-both", sc_disconnect_both, 0, false);
	pt_add("connected-calls", sc_connected_calls, 0, false);
	pt_add("reject-with-pd", sc_reject, PT_REJECT, false);
	pt_add("refuse-in-handler", sc_reject, PT_REFUSE, false);
	pt_add("no-listener", sc_no_listener, 0, false);
	pt_add("pd-limits", sc_pd_limits, 0, false);
	pt_add("calls-resolved", sc_options_resolved, 0, false);
	for (i = 0; i < PD_COUNT * ARRAY_SIZE(pd_lens); i++) {
		u8 len = pd_lens[i % ARRAY_SIZE(pd_lens)];

		if (i / ARRAY_SIZE(pd_lens) == PD_CONNECT && len == 251)
			len = 255;
		snprintf(name, sizeof(name), "pd-%s-%u",
			 pd_what[i / ARRAY_SIZE(pd_lens)], len);
		pt_add(name, sc_pd, i, false);
	}
	for (i = 0; i < ARRAY_SIZE(ird_ord); i++) {
		snprintf(name, sizeof(name), "ird-ord-%u", ird_ord[i][0]);
		pt_add(name, sc_ird_ord, i, false);
	}
	pt_add("connect-without-qp", sc_no_qp, 0, false);
	pt_add("accept-without-qp", sc_no_qp, 1, false);
	for (i = 0; i < DS_COUNT; i++)
		pt_add(ds_names[i], sc_destroy, i, false);
	for (i = 0; i < ARRAY_SIZE(hd_cases); i++) {
		snprintf(name, sizeof(name), "handler-destroys-%s",
			 hd_cases[i].name);
		pt_add(name, sc_handler_destroy, i, false);
	}
	for (i = 0; i < ARRAY_SIZE(la_cases); i++)
		pt_add(la_cases[i].name, sc_listen_connect, i, false);
	pt_add("two-listeners-one-port", sc_two_listeners, 0, false);
	pt_add("relisten", sc_relisten, 0, false);
	pt_add("many-clients", sc_many_clients, 0, false);
	pt_add("bound-client", sc_bound_client, 0, false);
}
