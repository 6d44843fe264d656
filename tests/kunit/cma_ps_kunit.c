// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the port spaces of rdma_cm (rdma_cm/ps.c).
 *
 * Most cases bind fake ids (zeroed struct rdma_id_private in init_net) into
 * private tables, each standing for the port spaces of one namespace, with a
 * chosen policy (ephemeral range, capability decision), so that they neither
 * see nor disturb real users of init_net. The last cases go through the
 * public entry points and init_net's own table: they need rdma_cm's module
 * init to have called cma_ps_init().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/string.h>
#include <net/ip.h>
#include <net/net_namespace.h>

#include "rdma_cm/cma_priv.h"
#include "rdma_cm/ps.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define PS_TEST_PORT	5000	/* explicit, unprivileged */

static const struct cma_ps_policy ps_test_policy = {
	.low			= 32768,
	.high			= 60999,
	.may_bind_service	= true,
};

static void ps_test_table_free(void *pn)
{
	cma_ps_table_free(pn);
}

KUNIT_DEFINE_ACTION_WRAPPER(ps_test_unbind, cma_ps_unbind,
			    struct rdma_id_private *);

/* A table freed when the test ends, after the ids bound into it. */
static struct cma_ps_net *ps_test_table(struct kunit *test)
{
	struct cma_ps_net *pn;

	pn = cma_ps_table_alloc();
	KUNIT_ASSERT_NOT_NULL(test, pn);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, ps_test_table_free,
						  pn));
	return pn;
}

static void ps_test_set_sa(struct kunit *test, struct sockaddr_storage *ss,
			   const char *str, u16 port)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(str, ':')) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		KUNIT_ASSERT_EQ(test, 1, in6_pton(str, -1,
						  sin6->sin6_addr.s6_addr,
						  -1, NULL));
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		KUNIT_ASSERT_EQ(test, 1, in4_pton(str, -1,
						  (u8 *)&sin->sin_addr.s_addr,
						  -1, NULL));
	}
}

static void ps_test_set_addr(struct kunit *test, struct rdma_id_private *id,
			     const char *str, u16 port)
{
	ps_test_set_sa(test, &id->id.route.addr.src_addr, str, port);
}

static u16 ps_test_port(struct rdma_id_private *id)
{
	struct sockaddr *sa = cma_src_addr(id);

	if (sa->sa_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)sa)->sin6_port);
	return ntohs(((struct sockaddr_in *)sa)->sin_port);
}

/* A fake id in init_net, unbound when the test ends. */
static struct rdma_id_private *ps_test_id(struct kunit *test,
					  enum rdma_ucm_port_space ps,
					  const char *addr, u16 port)
{
	struct rdma_id_private *id;

	id = kunit_kzalloc(test, sizeof(*id), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, id);
	id->id.ps = ps;
	id->id.route.addr.dev_addr.net = &init_net;
	id->state = RDMA_CM_ADDR_BOUND;
	/* rdma_bind_addr()'s default for IPv4. */
	id->afonly = !strchr(addr, ':');
	ps_test_set_addr(test, id, addr, port);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, ps_test_unbind, id));
	return id;
}

/* ---- conflict rules ---- */

struct ps_test_end {
	const char	*addr;
	u8		reuseaddr;
	u8		afonly;
	bool		listen;
};

/*
 * As in-tree (tests/parity compares the same pairs on both stacks): a
 * conflict with a wildcard on either side is -EADDRNOTAVAIL, between two
 * equal specific addresses -EADDRINUSE; ids that are both afonly and of
 * different families never conflict, and an IPv4 address never equals an
 * IPv6 one, v4-mapped or not.
 */
struct ps_conflict_case {
	const char		*desc;
	struct ps_test_end	a;	/* bound (and listening) first */
	struct ps_test_end	b;	/* then this one */
	int			expect;	/* b's bind (+ listen) result */
};

#define END(addr_, reuse_, afonly_, listen_)				\
	{ .addr = addr_, .reuseaddr = reuse_, .afonly = afonly_,	\
	  .listen = listen_ }

static const struct ps_conflict_case ps_conflict_cases[] = {
	/* IPv4 */
	{ "v4 any, v4 any", END("0.0.0.0", 0, 1, 0),
	  END("0.0.0.0", 0, 1, 0), -EADDRNOTAVAIL },
	{ "v4 addr, other v4 addr", END("10.0.0.1", 0, 1, 0),
	  END("10.0.0.2", 0, 1, 0), 0 },
	{ "v4 addr, same v4 addr", END("10.0.0.1", 0, 1, 0),
	  END("10.0.0.1", 0, 1, 0), -EADDRINUSE },
	{ "v4 any, v4 addr", END("0.0.0.0", 0, 1, 0),
	  END("10.0.0.1", 0, 1, 0), -EADDRNOTAVAIL },
	{ "v4 addr, v4 any", END("10.0.0.1", 0, 1, 0),
	  END("0.0.0.0", 0, 1, 0), -EADDRNOTAVAIL },
	{ "v4 any reuse, v4 any reuse", END("0.0.0.0", 1, 1, 0),
	  END("0.0.0.0", 1, 1, 0), 0 },
	{ "v4 addr reuse, same v4 addr reuse", END("10.0.0.1", 1, 1, 0),
	  END("10.0.0.1", 1, 1, 0), 0 },
	{ "v4 any reuse, v4 any", END("0.0.0.0", 1, 1, 0),
	  END("0.0.0.0", 0, 1, 0), -EADDRNOTAVAIL },
	{ "v4 any, v4 any reuse", END("0.0.0.0", 0, 1, 0),
	  END("0.0.0.0", 1, 1, 0), -EADDRNOTAVAIL },
	{ "v4 any reuse listening, v4 any reuse", END("0.0.0.0", 1, 1, 1),
	  END("0.0.0.0", 1, 1, 0), -EADDRNOTAVAIL },
	{ "v4 any reuse, v4 any reuse listening", END("0.0.0.0", 1, 1, 0),
	  END("0.0.0.0", 1, 1, 1), -EADDRNOTAVAIL },
	{ "v4 addr reuse listening, v4 any reuse", END("10.0.0.1", 1, 1, 1),
	  END("0.0.0.0", 1, 1, 0), -EADDRNOTAVAIL },
	{ "v4 addr listening, other v4 addr listening",
	  END("10.0.0.1", 0, 1, 1), END("10.0.0.2", 0, 1, 1), 0 },
	{ "v4 addr reuse listening, other v4 addr reuse listening",
	  END("10.0.0.1", 1, 1, 1), END("10.0.0.2", 1, 1, 1), 0 },
	/* IPv6 */
	{ "v6 any, v6 any", END("::", 0, 0, 0),
	  END("::", 0, 0, 0), -EADDRNOTAVAIL },
	{ "v6 any afonly, v6 any afonly", END("::", 0, 1, 0),
	  END("::", 0, 1, 0), -EADDRNOTAVAIL },
	{ "v6 addr, other v6 addr", END("fd00::1", 0, 0, 0),
	  END("fd00::2", 0, 0, 0), 0 },
	{ "v6 addr, same v6 addr", END("fd00::1", 0, 0, 0),
	  END("fd00::1", 0, 1, 0), -EADDRINUSE },
	{ "v6 any, v6 addr", END("::", 0, 0, 0),
	  END("fd00::1", 0, 0, 0), -EADDRNOTAVAIL },
	{ "v6 addr, v6 any afonly", END("fd00::1", 0, 0, 0),
	  END("::", 0, 1, 0), -EADDRNOTAVAIL },
	{ "v6 any reuse, v6 any reuse", END("::", 1, 0, 0),
	  END("::", 1, 0, 0), 0 },
	{ "v6 any reuse listening, v6 addr reuse", END("::", 1, 0, 1),
	  END("fd00::1", 1, 0, 0), -EADDRNOTAVAIL },
	/* IPv4 against IPv6 */
	{ "v4 any, v6 any dual-stack", END("0.0.0.0", 0, 1, 0),
	  END("::", 0, 0, 0), -EADDRNOTAVAIL },
	{ "v4 any, v6 any afonly", END("0.0.0.0", 0, 1, 0),
	  END("::", 0, 1, 0), 0 },
	{ "v6 any dual-stack, v4 any", END("::", 0, 0, 0),
	  END("0.0.0.0", 0, 1, 0), -EADDRNOTAVAIL },
	{ "v6 any afonly, v4 any", END("::", 0, 1, 0),
	  END("0.0.0.0", 0, 1, 0), 0 },
	{ "v6 any dual-stack, v4 addr", END("::", 0, 0, 0),
	  END("10.0.0.1", 0, 1, 0), -EADDRNOTAVAIL },
	{ "v4 addr, v6 any dual-stack", END("10.0.0.1", 0, 1, 0),
	  END("::", 0, 0, 0), -EADDRNOTAVAIL },
	{ "v6 any afonly, v4 addr", END("::", 0, 1, 0),
	  END("10.0.0.1", 0, 1, 0), 0 },
	{ "v4 any, v6 addr", END("0.0.0.0", 0, 1, 0),
	  END("fd00::1", 0, 0, 0), -EADDRNOTAVAIL },
	{ "v4 any, v6 addr afonly", END("0.0.0.0", 0, 1, 0),
	  END("fd00::1", 0, 1, 0), 0 },
	{ "v6 addr, v4 any", END("fd00::1", 0, 0, 0),
	  END("0.0.0.0", 0, 1, 0), -EADDRNOTAVAIL },
	{ "v4 addr, v6 addr", END("10.0.0.1", 0, 1, 0),
	  END("fd00::1", 0, 0, 0), 0 },
	{ "v4 addr, v6 v4-mapped same addr", END("10.0.0.1", 0, 1, 0),
	  END("::ffff:10.0.0.1", 0, 0, 0), 0 },
	{ "v4 addr, v6 v4-mapped other addr", END("10.0.0.1", 0, 1, 0),
	  END("::ffff:10.0.0.2", 0, 0, 0), 0 },
	{ "v4 any, v6 v4-mapped addr", END("0.0.0.0", 0, 1, 0),
	  END("::ffff:10.0.0.1", 0, 0, 0), -EADDRNOTAVAIL },
	{ "v4 addr, v6 v4-mapped any", END("10.0.0.1", 0, 1, 0),
	  END("::ffff:0.0.0.0", 0, 0, 0), 0 },
	{ "v6 any afonly, v6 v4-mapped addr", END("::", 0, 1, 0),
	  END("::ffff:10.0.0.1", 0, 0, 0), -EADDRNOTAVAIL },
	{ "v4 any reuse, v6 any dual-stack reuse", END("0.0.0.0", 1, 1, 0),
	  END("::", 1, 0, 0), 0 },
	{ "v4 any reuse listening, v6 any dual-stack reuse",
	  END("0.0.0.0", 1, 1, 1), END("::", 1, 0, 0), -EADDRNOTAVAIL },
	{ "v4 any reuse, v6 any dual-stack reuse listening",
	  END("0.0.0.0", 1, 1, 0), END("::", 1, 0, 1), -EADDRNOTAVAIL },
	{ "v4 any reuse listening, v6 any afonly reuse listening",
	  END("0.0.0.0", 1, 1, 1), END("::", 1, 1, 1), 0 },
};

KUNIT_ARRAY_PARAM_DESC(ps_conflict, ps_conflict_cases, desc);

/* Bind @id as rdma_bind_addr() would, then listen as rdma_listen() would. */
static int ps_test_bind_end(struct cma_ps_net *pn, struct rdma_id_private *id,
			    const struct ps_test_end *end)
{
	int ret;

	id->reuseaddr = end->reuseaddr;
	id->afonly = end->afonly;
	ret = cma_ps_bind_table(pn, id, &ps_test_policy);
	if (ret || !end->listen)
		return ret;

	id->state = RDMA_CM_LISTEN;
	if (id->reuseaddr)
		ret = cma_ps_check_listen(id);
	return ret;
}

static void ps_test_conflict(struct kunit *test)
{
	const struct ps_conflict_case *c = test->param_value;
	struct cma_ps_net *pn = ps_test_table(test);
	struct rdma_id_private *a, *b;
	int ret;

	a = ps_test_id(test, RDMA_PS_TCP, c->a.addr, PS_TEST_PORT);
	b = ps_test_id(test, RDMA_PS_TCP, c->b.addr, PS_TEST_PORT);

	KUNIT_ASSERT_EQ(test, 0, ps_test_bind_end(pn, a, &c->a));
	ret = ps_test_bind_end(pn, b, &c->b);
	KUNIT_EXPECT_EQ(test, c->expect, ret);
	/* A refused bind leaves the id unbound, with its port. */
	if (ret && !c->b.listen)
		KUNIT_EXPECT_NULL(test, b->bind_list);
	KUNIT_EXPECT_EQ(test, PS_TEST_PORT, ps_test_port(b));
	/* The first owner is untouched either way. */
	KUNIT_EXPECT_NOT_NULL(test, a->bind_list);
}

/* ---- ephemeral ports ---- */

static void ps_test_ephemeral_unique(struct kunit *test)
{
	const struct cma_ps_policy pol = {
		.low = 40000, .high = 40063, .may_bind_service = false,
	};
	struct cma_ps_net *pn = ps_test_table(test);
	unsigned long *seen;
	struct rdma_id_private *id;
	unsigned int i, n = pol.high - pol.low + 1;
	u16 port;

	seen = kunit_kcalloc(test, BITS_TO_LONGS(n), sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);

	for (i = 0; i < n; i++) {
		id = ps_test_id(test, RDMA_PS_TCP, i & 1 ? "::" : "0.0.0.0", 0);
		KUNIT_ASSERT_EQ(test, 0, cma_ps_bind_table(pn, id, &pol));
		port = ps_test_port(id);
		KUNIT_ASSERT_GE(test, port, pol.low);
		KUNIT_ASSERT_LE(test, port, pol.high);
		KUNIT_EXPECT_FALSE_MSG(test, test_bit(port - pol.low, seen),
				       "port %u handed out twice", port);
		__set_bit(port - pol.low, seen);
	}

	/* Every port of the range is taken now. */
	id = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", 0);
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL, cma_ps_bind_table(pn, id, &pol));
	KUNIT_EXPECT_NULL(test, id->bind_list);
	KUNIT_EXPECT_EQ(test, 0, ps_test_port(id));
}

/*
 * As in-tree, ids whose 4-tuples differ share ephemeral ports: with two
 * ports, five ids to distinct destination ports all bind; ids to one
 * destination get one port each, so the third is refused. The port handed
 * out last is not handed out again at once.
 */
static void ps_test_ephemeral_share(struct kunit *test)
{
	const struct cma_ps_policy pol = {
		.low = 46000, .high = 46001, .may_bind_service = false,
	};
	struct cma_ps_net *pn = ps_test_table(test);
	struct rdma_id_private *id, *prev = NULL;
	unsigned int i;

	for (i = 0; i < 5; i++) {
		id = ps_test_id(test, RDMA_PS_TCP, "10.0.0.1", 0);
		ps_test_set_sa(test, &id->id.route.addr.dst_addr, "10.0.0.2",
			       7000 + i);
		KUNIT_ASSERT_EQ_MSG(test, 0, cma_ps_bind_table(pn, id, &pol),
				    "id %u to a distinct port", i);
		if (prev)
			KUNIT_EXPECT_NE(test, ps_test_port(prev),
					ps_test_port(id));
		prev = id;
	}
	for (i = 0; i < 3; i++) {
		id = ps_test_id(test, RDMA_PS_TCP, "10.0.0.1", 0);
		ps_test_set_sa(test, &id->id.route.addr.dst_addr, "10.0.0.2",
			       7100);
		KUNIT_EXPECT_EQ_MSG(test, i < 2 ? 0 : -EADDRNOTAVAIL,
				    cma_ps_bind_table(pn, id, &pol),
				    "id %u to the same destination", i);
	}
	/* Another source address, or a wildcard destination: no clash. */
	id = ps_test_id(test, RDMA_PS_TCP, "10.0.0.3", 0);
	ps_test_set_sa(test, &id->id.route.addr.dst_addr, "10.0.0.2", 7100);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, id, &pol));
	id = ps_test_id(test, RDMA_PS_TCP, "10.0.0.1", 0);
	ps_test_set_sa(test, &id->id.route.addr.dst_addr, "0.0.0.0", 0);
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL, cma_ps_bind_table(pn, id, &pol));
}

static void ps_test_ephemeral_exhaustion(struct kunit *test)
{
	const struct cma_ps_policy pol = {
		.low = 45000, .high = 45001, .may_bind_service = false,
	};
	const struct cma_ps_policy empty = {
		.low = 45001, .high = 45000, .may_bind_service = false,
	};
	struct cma_ps_net *pn = ps_test_table(test);
	struct rdma_id_private *fixed, *eph, *none, *reuse;

	/* An explicit owner (even a reuseaddr one) makes its port used. */
	fixed = ps_test_id(test, RDMA_PS_UDP, "0.0.0.0", 45001);
	fixed->reuseaddr = 1;
	KUNIT_ASSERT_EQ(test, 0, cma_ps_bind_table(pn, fixed, &pol));

	eph = ps_test_id(test, RDMA_PS_UDP, "0.0.0.0", 0);
	KUNIT_ASSERT_EQ(test, 0, cma_ps_bind_table(pn, eph, &pol));
	KUNIT_EXPECT_EQ(test, 45000, ps_test_port(eph));

	reuse = ps_test_id(test, RDMA_PS_UDP, "0.0.0.0", 0);
	reuse->reuseaddr = 1;
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL,
			cma_ps_bind_table(pn, reuse, &pol));
	KUNIT_EXPECT_NULL(test, reuse->bind_list);

	/* Another port space has all its ports free. */
	none = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", 0);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, none, &pol));

	/* An empty range has nothing to give. */
	none = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", 0);
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL,
			cma_ps_bind_table(pn, none, &empty));

	/* Unbinding gives the port back. */
	cma_ps_unbind(eph);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, reuse, &pol));
	KUNIT_EXPECT_EQ(test, 45000, ps_test_port(reuse));
}

static void ps_test_ephemeral_random(struct kunit *test)
{
	const struct cma_ps_policy pol = {
		.low = 50000, .high = 50999, .may_bind_service = false,
	};
	struct cma_ps_net *pn = ps_test_table(test);
	struct rdma_id_private *id;
	unsigned int i;
	u16 first = 0;
	bool differ = false;

	/* 8 draws from 1000 ports: all equal has probability 1e-21. */
	for (i = 0; i < 8; i++) {
		id = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", 0);
		KUNIT_ASSERT_EQ(test, 0, cma_ps_bind_table(pn, id, &pol));
		if (!i)
			first = ps_test_port(id);
		else if (ps_test_port(id) != first)
			differ = true;
		cma_ps_unbind(id);
	}
	KUNIT_EXPECT_TRUE_MSG(test, differ,
			      "eight ephemeral binds all got port %u", first);
}

/* ---- binding and unbinding ---- */

static void ps_test_unbind_frees_port(struct kunit *test)
{
	struct cma_ps_net *pn = ps_test_table(test);
	struct rdma_id_private *a, *b, *c, *never;

	a = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	b = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	c = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	never = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);

	KUNIT_ASSERT_EQ(test, 0, cma_ps_bind_table(pn, a, &ps_test_policy));
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL,
			cma_ps_bind_table(pn, b, &ps_test_policy));

	cma_ps_unbind(a);
	KUNIT_EXPECT_NULL(test, a->bind_list);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, b, &ps_test_policy));

	/* Unbind is idempotent and does not touch the new owner. */
	cma_ps_unbind(a);
	cma_ps_unbind(never);
	KUNIT_EXPECT_NOT_NULL(test, b->bind_list);
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL,
			cma_ps_bind_table(pn, c, &ps_test_policy));
}

static void ps_test_shared_record(struct kunit *test)
{
	struct cma_ps_net *pn = ps_test_table(test);
	struct rdma_id_private *a, *b, *c;

	a = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	b = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	c = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	a->reuseaddr = 1;
	b->reuseaddr = 1;

	KUNIT_ASSERT_EQ(test, 0, cma_ps_bind_table(pn, a, &ps_test_policy));
	KUNIT_ASSERT_EQ(test, 0, cma_ps_bind_table(pn, b, &ps_test_policy));
	KUNIT_EXPECT_PTR_EQ(test, a->bind_list, b->bind_list);

	/* The record lives on with its remaining owner. */
	cma_ps_unbind(a);
	KUNIT_EXPECT_NOT_NULL(test, b->bind_list);
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL,
			cma_ps_bind_table(pn, c, &ps_test_policy));
	cma_ps_unbind(b);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, c, &ps_test_policy));
}

static void ps_test_already_bound(struct kunit *test)
{
	struct cma_ps_net *pn = ps_test_table(test);
	struct rdma_id_private *id;
	void *bind;

	id = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	KUNIT_ASSERT_EQ(test, 0, cma_ps_bind_table(pn, id, &ps_test_policy));
	bind = id->bind_list;
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cma_ps_bind_table(pn, id, &ps_test_policy));
	KUNIT_EXPECT_PTR_EQ(test, bind, id->bind_list);
}

static void ps_test_check_listen_unbound(struct kunit *test)
{
	struct rdma_id_private *id;

	id = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	id->state = RDMA_CM_LISTEN;
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_ps_check_listen(id));
}

static void ps_test_unknown_ps(struct kunit *test)
{
	struct cma_ps_net *pn = ps_test_table(test);
	struct rdma_id_private *id;

	id = ps_test_id(test, 0x0107, "0.0.0.0", PS_TEST_PORT);
	KUNIT_EXPECT_EQ(test, -EPROTONOSUPPORT,
			cma_ps_bind_table(pn, id, &ps_test_policy));
	KUNIT_EXPECT_EQ(test, -EPROTONOSUPPORT, cma_ps_bind(id));
	KUNIT_EXPECT_NULL(test, id->bind_list);

	id = ps_test_id(test, 0, "0.0.0.0", 0);
	KUNIT_EXPECT_EQ(test, -EPROTONOSUPPORT,
			cma_ps_bind_table(pn, id, &ps_test_policy));
	KUNIT_EXPECT_EQ(test, -EPROTONOSUPPORT, cma_ps_bind(id));
	KUNIT_EXPECT_NULL(test, id->bind_list);
}

/* The first port init_net lets anyone bind (ip_unprivileged_port_start). */
static unsigned int ps_test_prot_sock(void)
{
	unsigned int port = 1;

	while (port <= U16_MAX &&
	       inet_port_requires_bind_service(&init_net, port))
		port++;
	return port;
}

static void ps_test_privileged(struct kunit *test)
{
	struct cma_ps_policy nocap = ps_test_policy;
	struct cma_ps_net *pn = ps_test_table(test);
	unsigned int start = ps_test_prot_sock();
	struct rdma_id_private *id;

	if (start <= 1 || start > U16_MAX)
		kunit_skip(test, "no privileged ports (start %u)", start);
	nocap.may_bind_service = false;

	id = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", start - 1);
	KUNIT_EXPECT_EQ(test, -EACCES, cma_ps_bind_table(pn, id, &nocap));
	KUNIT_EXPECT_NULL(test, id->bind_list);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, id, &ps_test_policy));

	id = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", start);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, id, &nocap));

	/* Ephemeral ports need no privilege. */
	id = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", 0);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, id, &nocap));
}

static void ps_test_separate_spaces(struct kunit *test)
{
	static const enum rdma_ucm_port_space spaces[] = {
		RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB, RDMA_PS_IPOIB,
	};
	struct cma_ps_net *pn = ps_test_table(test);
	struct rdma_id_private *id;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(spaces); i++) {
		id = ps_test_id(test, spaces[i], "0.0.0.0", PS_TEST_PORT);
		KUNIT_EXPECT_EQ_MSG(test, 0,
				    cma_ps_bind_table(pn, id, &ps_test_policy),
				    "port space 0x%x", spaces[i]);
	}
	for (i = 0; i < ARRAY_SIZE(spaces); i++) {
		id = ps_test_id(test, spaces[i], "0.0.0.0", PS_TEST_PORT);
		KUNIT_EXPECT_EQ_MSG(test, -EADDRNOTAVAIL,
				    cma_ps_bind_table(pn, id, &ps_test_policy),
				    "port space 0x%x", spaces[i]);
	}
}

/* Two tables stand for two namespaces. */
static void ps_test_separate_tables(struct kunit *test)
{
	struct cma_ps_net *pn1 = ps_test_table(test);
	struct cma_ps_net *pn2 = ps_test_table(test);
	struct rdma_id_private *a, *b, *c;

	a = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	b = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	c = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn1, a, &ps_test_policy));
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn2, b, &ps_test_policy));
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL,
			cma_ps_bind_table(pn2, c, &ps_test_policy));
}

/* What a namespace exit does with what is left in its table. */
static void ps_test_table_leftovers(struct kunit *test)
{
	struct rdma_id_private *a, *b, *c;
	struct cma_ps_net *pn;

	/* A clean table has nothing left. */
	pn = cma_ps_table_alloc();
	KUNIT_ASSERT_NOT_NULL(test, pn);
	a = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, a, &ps_test_policy));
	cma_ps_unbind(a);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_table_free(pn));

	/* A leak is counted, and its owners are detached. */
	pn = cma_ps_table_alloc();
	KUNIT_ASSERT_NOT_NULL(test, pn);
	b = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", PS_TEST_PORT);
	c = ps_test_id(test, RDMA_PS_UDP, "::", 0);
	b->reuseaddr = 1;
	a->reuseaddr = 1;
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, a, &ps_test_policy));
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, b, &ps_test_policy));
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind_table(pn, c, &ps_test_policy));
	KUNIT_EXPECT_EQ(test, 2, cma_ps_table_free(pn));
	KUNIT_EXPECT_NULL(test, a->bind_list);
	KUNIT_EXPECT_NULL(test, b->bind_list);
	KUNIT_EXPECT_NULL(test, c->bind_list);
	KUNIT_EXPECT_TRUE(test, hlist_unhashed(&a->node));
	/* ... so that their unbind is a no-op (also run at cleanup). */
	cma_ps_unbind(b);
}

/* ---- the public entry points on init_net ---- */

static void ps_test_public_init_net(struct kunit *test)
{
	struct rdma_id_private *tcp, *udp, *tcp2;
	int low, high;
	u16 port;

	inet_get_local_port_range(&init_net, &low, &high);

	tcp = ps_test_id(test, RDMA_PS_TCP, "0.0.0.0", 0);
	KUNIT_ASSERT_EQ(test, 0, cma_ps_bind(tcp));
	port = ps_test_port(tcp);
	KUNIT_EXPECT_GE(test, port, low);
	KUNIT_EXPECT_LE(test, port, high);

	udp = ps_test_id(test, RDMA_PS_UDP, "0.0.0.0", port);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind(udp));

	tcp2 = ps_test_id(test, RDMA_PS_TCP, "::", port);
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL, cma_ps_bind(tcp2));
	tcp2->afonly = 1;
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind(tcp2));

	/* rdma_listen() on a reuseaddr id bound alone succeeds. */
	cma_ps_unbind(tcp2);
	cma_ps_unbind(udp);
	cma_ps_unbind(tcp);
	tcp->reuseaddr = 1;
	KUNIT_ASSERT_EQ(test, 0, cma_ps_bind(tcp));
	KUNIT_EXPECT_EQ(test, port, ps_test_port(tcp));
	tcp->state = RDMA_CM_LISTEN;
	KUNIT_EXPECT_EQ(test, 0, cma_ps_check_listen(tcp));
}

/* The kthread running the tests holds every capability. */
static void ps_test_public_privileged(struct kunit *test)
{
	unsigned int start = ps_test_prot_sock();
	struct rdma_id_private *id;

	if (start <= 1 || start > U16_MAX)
		kunit_skip(test, "no privileged ports (start %u)", start);
	id = ps_test_id(test, RDMA_PS_IB, "0.0.0.0", start - 1);
	KUNIT_EXPECT_EQ(test, 0, cma_ps_bind(id));
}

static struct kunit_case cma_ps_test_cases[] = {
	KUNIT_CASE_PARAM(ps_test_conflict, ps_conflict_gen_params),
	KUNIT_CASE(ps_test_ephemeral_unique),
	KUNIT_CASE(ps_test_ephemeral_share),
	KUNIT_CASE(ps_test_ephemeral_exhaustion),
	KUNIT_CASE(ps_test_ephemeral_random),
	KUNIT_CASE(ps_test_unbind_frees_port),
	KUNIT_CASE(ps_test_shared_record),
	KUNIT_CASE(ps_test_already_bound),
	KUNIT_CASE(ps_test_check_listen_unbound),
	KUNIT_CASE(ps_test_unknown_ps),
	KUNIT_CASE(ps_test_privileged),
	KUNIT_CASE(ps_test_separate_spaces),
	KUNIT_CASE(ps_test_separate_tables),
	KUNIT_CASE(ps_test_table_leftovers),
	KUNIT_CASE(ps_test_public_init_net),
	KUNIT_CASE(ps_test_public_privileged),
	{}
};

static struct kunit_suite cma_ps_test_suite = {
	.name = "rdma_cm_ps",
	.test_cases = cma_ps_test_cases,
};

kunit_test_suite(cma_ps_test_suite);

MODULE_DESCRIPTION("KUnit tests of the rdma_cm port spaces");
MODULE_LICENSE("GPL");
