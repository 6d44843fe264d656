// SPDX-License-Identifier: GPL-2.0
/*
 * cm_parity scenarios: binds and the port spaces. A matrix of two ids on
 * one port (each kind of address against each other, plain, with
 * reuseaddr on both, and with the first listening), and the sharing of
 * ephemeral ports when the range is narrow.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "pt.h"

#define PT_BIND_PORT	(PT_PORT + 20)

static void sc_bind(int arg)
{
	struct sockaddr_storage any = pt_sa(NULL, PT_PORT + 1);
	struct sockaddr_storage spec = pt_sa(PARITY_A, PT_PORT + 1);
	struct sockaddr_storage other = pt_sa(PARITY_NOBODY, PT_PORT + 1);
	struct sockaddr_storage lo = pt_sa("127.0.0.1", PT_PORT + 2);
	/* Static: scenarios run one at a time (pt_lock); stacks are small. */
	static struct pt_id a, b, c, d;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	memset(&d, 0, sizeof(d));
	if (pt_create(&a, "a") || pt_create(&b, "b") || pt_create(&c, "c") ||
	    pt_create(&d, "d"))
		goto out;
	pt_call(&a, "bind A:1", rdma_bind_addr(a.id, SA(spec)));
	pt_call(&a, "bind again", rdma_bind_addr(a.id, SA(spec)));
	pt_call(&b, "bind A:1", rdma_bind_addr(b.id, SA(spec)));
	pt_call(&c, "bind nobody:1", rdma_bind_addr(c.id, SA(other)));
	pt_call(&c, "bind A:1 after a refusal", rdma_bind_addr(c.id, SA(spec)));
	pt_call(&d, "bind 127.0.0.1:2", rdma_bind_addr(d.id, SA(lo)));
	pt_destroy(&b);
	if (!pt_create(&b, "b2"))
		pt_call(&b, "bind any:1", rdma_bind_addr(b.id, SA(any)));
	pt_destroy(&a);
	if (!pt_create(&a, "a2"))
		pt_call(&a, "bind A:1 after a is gone",
			rdma_bind_addr(a.id, SA(spec)));
out:
	pt_destroy(&a);
	pt_destroy(&b);
	pt_destroy(&c);
	pt_destroy(&d);
}

/* The kinds of source address; "-only" sets afonly before the bind. */
static const struct {
	const char *name, *ip;
	bool afonly;
} kinds[] = {
	{ "A", PARITY_A }, { "any4", "0.0.0.0" }, { "lo4", "127.0.0.1" },
	{ "any6", "::" }, { "any6-only", "::", true }, { "A6", PARITY_A6 },
	{ "B", PARITY_B }, { "A-mapped", "::ffff:198.18.1.1" },
};

#define N_FIRST		6	/* the first id: kinds[0..5] */
#define N_SECOND	ARRAY_SIZE(kinds)

enum bind_mode { BM_PLAIN, BM_REUSE, BM_LISTEN, BM_COUNT };
static const char * const bind_modes[] = { "plain", "reuse", "listen" };

static void pt_bind_kind(struct pt_id *p, int k, bool reuse)
{
	char what[40];

	if (kinds[k].afonly)
		pt_call(p, "set_afonly(1)", rdma_set_afonly(p->id, 1));
	if (reuse)
		pt_call(p, "set_reuseaddr(1)", rdma_set_reuseaddr(p->id, 1));
	snprintf(what, sizeof(what), "bind %s", kinds[k].name);
	pt_call(p, what,
		rdma_bind_addr(p->id, pt_psa(kinds[k].ip, PT_BIND_PORT)));
}

static void sc_bind_pair(int arg)
{
	int mode = arg / (N_FIRST * N_SECOND);
	int first = arg / N_SECOND % N_FIRST;
	int second = arg % N_SECOND;
	struct pt_id a = {}, b = {};

	if (pt_create(&a, "a") || pt_create(&b, "b"))
		goto out;
	pt_bind_kind(&a, first, mode == BM_REUSE);
	if (mode == BM_LISTEN)
		pt_call(&a, "listen", rdma_listen(a.id, 1));
	pt_bind_kind(&b, second, mode == BM_REUSE);
	if (mode != BM_PLAIN)
		pt_call(&b, "listen", rdma_listen(b.id, 1));
out:
	pt_destroy(&b);
	pt_destroy(&a);
}

/*
 * The guest narrows net.ipv4.ip_local_port_range to two ports: ids whose
 * 4-tuples differ share an ephemeral port, ids that would repeat one are
 * refused.
 */
static void sc_eph_resolve(int arg)
{
	static struct pt_id p[8];	/* one scenario at a time */
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(p); i++) {
		/* Five destination ports, then three times the same one. */
		u16 port = PT_PORT + 40 + (i < 5 ? i : 5);

		if (pt_create(&p[i], i < 5 ? "distinct" : "same"))
			continue;
		ret = rdma_resolve_addr(p[i].id, NULL,
					pt_psa(PARITY_B, port), 1000);
		pt_call(&p[i], "resolve_addr", ret);
		if (!ret)
			pt_wait(&p[i], RDMA_CM_EVENT_ADDR_RESOLVED);
	}
	for (i = 0; i < ARRAY_SIZE(p); i++)
		pt_destroy(&p[i]);
}

static void sc_eph_bind(int arg)
{
	static const char * const src[] = {
		PARITY_A, PARITY_A, PARITY_A, PARITY_B, "0.0.0.0",
	};
	struct pt_id p[ARRAY_SIZE(src)];
	int i;

	for (i = 0; i < ARRAY_SIZE(src); i++) {
		if (pt_create(&p[i], src[i]))
			continue;
		pt_call(&p[i], "bind port 0",
			rdma_bind_addr(p[i].id, pt_psa(src[i], 0)));
	}
	for (i = 0; i < ARRAY_SIZE(src); i++)
		pt_destroy(&p[i]);
}

void pt_register_bind(void)
{
	char name[48];
	int m, f, s;

	pt_add("bind", sc_bind, 0, false);
	for (m = 0; m < BM_COUNT; m++)
		for (f = 0; f < N_FIRST; f++)
			for (s = 0; s < N_SECOND; s++) {
				snprintf(name, sizeof(name), "bind-%s-%s-%s",
					 bind_modes[m], kinds[f].name,
					 kinds[s].name);
				pt_add(name, sc_bind_pair,
				       (m * N_FIRST + f) * N_SECOND + s, false);
			}
	pt_add("eph-resolve-share", sc_eph_resolve, 0, true);
	pt_add("eph-bind-share", sc_eph_bind, 0, true);
}
