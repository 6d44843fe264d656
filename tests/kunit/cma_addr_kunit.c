// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the connection manager's IP address resolver
 * (rdma_cm/addr.c) and address helpers (rdma_cm/addr_util.c).
 *
 * Suites:
 * - cma_addr_util: the address helpers, from tables.
 * - cma_addr_resolve: init_net only: loopback resolution (lo is brought up
 *   if it is down, and put back), route and argument errors, cancellation,
 *   many requests at once, the retry/deadline arithmetic, translation.
 * - cma_addr_nd: a test Ethernet netdev whose transmit drops every packet
 *   (so no neighbour ever answers), with IPv6 DAD off so its link-local
 *   address is usable at once: the deadline, cancel while waiting, and a
 *   neighbour made valid by hand (neigh_update) completing the request
 *   through the netevent notifier.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <kunit/resource.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ipv6_stubs.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <rdma/ib.h>

#include "rdma_cm/cma_priv.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define KT_WAIT_MS	5000

/* ---- sockaddr construction ---- */

static void kt_sa(struct kunit *test, struct sockaddr_storage *ss, int family,
		  const char *addr, u16 port, u32 scope)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_ib *sib = (struct sockaddr_ib *)ss;

	memset(ss, 0, sizeof(*ss));
	ss->ss_family = family;
	switch (family) {
	case AF_INET:
		KUNIT_ASSERT_EQ(test, in4_pton(addr, -1, (u8 *)&s4->sin_addr,
					       -1, NULL), 1);
		s4->sin_port = htons(port);
		break;
	case AF_INET6:
		KUNIT_ASSERT_EQ(test, in6_pton(addr, -1, s6->sin6_addr.s6_addr,
					       -1, NULL), 1);
		s6->sin6_port = htons(port);
		s6->sin6_scope_id = scope;
		break;
	case AF_IB:
		KUNIT_ASSERT_EQ(test, in6_pton(addr, -1, (u8 *)&sib->sib_addr,
					       -1, NULL), 1);
		sib->sib_sid = cpu_to_be64(((u64)RDMA_PS_TCP << 16) | port);
		sib->sib_sid_mask = cpu_to_be64(U64_MAX);
		break;
	default:
		break;
	}
}

static struct sockaddr *sa(struct sockaddr_storage *ss)
{
	return (struct sockaddr *)ss;
}

/* ==== cma_addr_util ==== */

struct kt_class_case {
	const char	*name;
	int		family;
	const char	*addr;
	bool		any;
	bool		loopback;
	bool		zero;
	int		len;
};

static const struct kt_class_case kt_class_cases[] = {
	{ "v4 any", AF_INET, "0.0.0.0", true, false, true, 16 },
	{ "v4 0.1.2.3 is not any", AF_INET, "0.1.2.3", false, false, false, 16 },
	{ "v4 loopback", AF_INET, "127.0.0.1", false, true, false, 16 },
	{ "v4 loopback net", AF_INET, "127.255.0.9", false, true, false, 16 },
	{ "v4 unicast", AF_INET, "198.18.0.1", false, false, false, 16 },
	{ "v6 any", AF_INET6, "::", true, false, true, 28 },
	{ "v6 loopback", AF_INET6, "::1", false, true, false, 28 },
	{ "v6 link-local", AF_INET6, "fe80::1", false, false, false, 28 },
	{ "v6 v4-mapped loopback", AF_INET6, "::ffff:127.0.0.1",
	  false, false, false, 28 },
	{ "v6 global", AF_INET6, "2001:db8::1", false, false, false, 28 },
	{ "ib any", AF_IB, "::", true, false, true,
	  sizeof(struct sockaddr_ib) },
	{ "ib loopback", AF_IB, "::1", false, true, false,
	  sizeof(struct sockaddr_ib) },
	{ "ib gid", AF_IB, "fe80::2:c903:1", false, false, false,
	  sizeof(struct sockaddr_ib) },
	{ "unspec", AF_UNSPEC, NULL, false, false, true, 0 },
	{ "unknown family", AF_PACKET, NULL, false, false, false, 0 },
};

static void kt_class_desc(const struct kt_class_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_class, kt_class_cases, kt_class_desc);

static void cma_addr_class_test(struct kunit *test)
{
	const struct kt_class_case *c = test->param_value;
	struct sockaddr_storage ss;

	kt_sa(test, &ss, c->family, c->addr, 0, 0);
	KUNIT_EXPECT_EQ(test, cma_any_addr(sa(&ss)), c->any);
	KUNIT_EXPECT_EQ(test, cma_loopback_addr(sa(&ss)), c->loopback);
	KUNIT_EXPECT_EQ(test, cma_zero_addr(sa(&ss)), c->zero);
	KUNIT_EXPECT_EQ(test, cma_addr_len(sa(&ss)), c->len);
}

struct kt_cmp_case {
	const char	*name;
	int		fa;
	const char	*a;
	u16		pa;
	u32		sa;
	int		fb;
	const char	*b;
	u16		pb;
	u32		sb;
	bool		equal;
};

static const struct kt_cmp_case kt_cmp_cases[] = {
	{ "v4 same, ports differ", AF_INET, "198.18.0.1", 1, 0,
	  AF_INET, "198.18.0.1", 2, 0, true },
	{ "v4 differ", AF_INET, "198.18.0.1", 1, 0,
	  AF_INET, "198.18.0.2", 1, 0, false },
	{ "v4 vs v6", AF_INET, "0.0.0.0", 0, 0, AF_INET6, "::", 0, 0, false },
	{ "v4 vs unspec", AF_INET, "0.0.0.0", 0, 0,
	  AF_UNSPEC, NULL, 0, 0, false },
	{ "v6 same, ports differ", AF_INET6, "2001:db8::1", 1, 0,
	  AF_INET6, "2001:db8::1", 9, 0, true },
	{ "v6 global ignores scope", AF_INET6, "2001:db8::1", 0, 3,
	  AF_INET6, "2001:db8::1", 0, 4, true },
	{ "v6 differ", AF_INET6, "2001:db8::1", 0, 0,
	  AF_INET6, "2001:db8::2", 0, 0, false },
	{ "v6 link-local same scope", AF_INET6, "fe80::1", 0, 3,
	  AF_INET6, "fe80::1", 0, 3, true },
	{ "v6 link-local other scope", AF_INET6, "fe80::1", 0, 3,
	  AF_INET6, "fe80::1", 0, 4, false },
	{ "v6 mc link-local other scope", AF_INET6, "ff02::1", 0, 3,
	  AF_INET6, "ff02::1", 0, 4, false },
	{ "ib same", AF_IB, "fe80::1", 1, 0, AF_IB, "fe80::1", 2, 0, true },
	{ "ib differ", AF_IB, "fe80::1", 1, 0, AF_IB, "fe80::2", 1, 0, false },
	{ "unspec both", AF_UNSPEC, NULL, 0, 0, AF_UNSPEC, NULL, 0, 0, true },
};

static void kt_cmp_desc(const struct kt_cmp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_cmp, kt_cmp_cases, kt_cmp_desc);

static void cma_addr_cmp_test(struct kunit *test)
{
	const struct kt_cmp_case *c = test->param_value;
	struct sockaddr_storage a, b;

	kt_sa(test, &a, c->fa, c->a, c->pa, c->sa);
	kt_sa(test, &b, c->fb, c->b, c->pb, c->sb);
	KUNIT_EXPECT_EQ(test, cma_addr_cmp(sa(&a), sa(&b)) == 0, c->equal);
	KUNIT_EXPECT_EQ(test, cma_addr_cmp(sa(&b), sa(&a)) == 0, c->equal);
}

struct kt_port_case {
	const char	*name;
	int		family;
	const char	*addr;
	bool		has_port;
};

static const struct kt_port_case kt_port_cases[] = {
	{ "v4", AF_INET, "198.18.0.1", true },
	{ "v6", AF_INET6, "2001:db8::1", true },
	{ "ib", AF_IB, "fe80::1", true },
	{ "unspec", AF_UNSPEC, NULL, false },
};

static void kt_port_desc(const struct kt_port_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_port, kt_port_cases, kt_port_desc);

static void cma_addr_port_test(struct kunit *test)
{
	const struct kt_port_case *c = test->param_value;
	struct sockaddr_storage ss, orig;

	kt_sa(test, &ss, c->family, c->addr, 4791, 0);
	KUNIT_EXPECT_EQ(test, ntohs(cma_port(sa(&ss))),
			c->has_port ? 4791 : 0);

	orig = ss;
	cma_set_port(sa(&ss), htons(18515));
	KUNIT_EXPECT_EQ(test, ntohs(cma_port(sa(&ss))),
			c->has_port ? 18515 : 0);
	/* The address itself is unchanged. */
	KUNIT_EXPECT_EQ(test, cma_addr_cmp(sa(&ss), sa(&orig)), 0);
	if (c->family == AF_IB) {
		struct sockaddr_ib *sib = (struct sockaddr_ib *)&ss;

		/* The port space above the port bits is kept. */
		KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid),
				((u64)RDMA_PS_TCP << 16) | 18515);
		KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid_mask), U64_MAX);
	}
	if (!c->has_port)
		KUNIT_EXPECT_EQ(test, memcmp(&ss, &orig, sizeof(ss)), 0);
}

static struct kunit_case cma_addr_util_cases[] = {
	KUNIT_CASE_PARAM(cma_addr_class_test, kt_class_gen_params),
	KUNIT_CASE_PARAM(cma_addr_cmp_test, kt_cmp_gen_params),
	KUNIT_CASE_PARAM(cma_addr_port_test, kt_port_gen_params),
	{}
};

static struct kunit_suite cma_addr_util_suite = {
	.name = "cma_addr_util",
	.test_cases = cma_addr_util_cases,
};

/* ==== resolver fixtures ==== */

struct kt_req {
	struct cma_addr_req	req;
	struct sockaddr_storage	src;
	struct sockaddr_storage	dst;
	struct rdma_dev_addr	dev_addr;
	struct completion	done;
	atomic_t		calls;
	int			status;
	bool			from_work;	/* done() ran in req's work */
	bool			cancel_in_done;
	bool			cancelled;	/* set after cancel returned */
	atomic_t		late;		/* done() after cancel returned */
};

static void kt_done(struct cma_addr_req *req, int status)
{
	struct kt_req *kr = container_of(req, struct kt_req, req);

	kr->status = status;
	kr->from_work = current_work() == &req->work.work;
	if (READ_ONCE(kr->cancelled))
		atomic_inc(&kr->late);
	if (kr->cancel_in_done)
		cma_addr_cancel(req);	/* must not deadlock */
	atomic_inc(&kr->calls);
	complete(&kr->done);		/* last access */
}

static void kt_req_cancel(void *ctx)
{
	cma_addr_cancel(ctx);
}

/* A zeroed request in test-managed memory, cancelled before it is freed. */
static struct kt_req *kt_req_new(struct kunit *test, struct net *net)
{
	struct kt_req *kr;

	kr = kunit_kzalloc(test, sizeof(*kr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kr);
	init_completion(&kr->done);
	kr->dev_addr.net = net;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kt_req_cancel,
							&kr->req), 0);
	return kr;
}

static int kt_resolve(struct kt_req *kr, unsigned long timeout_ms)
{
	return cma_addr_resolve(&kr->req, sa(&kr->src), sa(&kr->dst),
				&kr->dev_addr, timeout_ms, kt_done);
}

static bool kt_wait(struct kt_req *kr, unsigned int ms)
{
	return wait_for_completion_timeout(&kr->done, msecs_to_jiffies(ms));
}

static bool kt_zero_ha(const unsigned char *ha, unsigned int from)
{
	return !memchr_inv(ha + from, 0, MAX_ADDR_LEN - from);
}

/* ==== cma_addr_resolve (init_net) ==== */

static bool kt_lo_was_down;

static int cma_addr_resolve_suite_init(struct kunit_suite *suite)
{
	struct net_device *lo = init_net.loopback_dev;
	int ret = 0;

	rtnl_lock();
	if (!(lo->flags & IFF_UP)) {
		ret = dev_change_flags(lo, lo->flags | IFF_UP, NULL);
		kt_lo_was_down = !ret;
	}
	rtnl_unlock();
	return ret;
}

static void cma_addr_resolve_suite_exit(struct kunit_suite *suite)
{
	struct net_device *lo = init_net.loopback_dev;

	if (!kt_lo_was_down)
		return;
	rtnl_lock();
	dev_change_flags(lo, lo->flags & ~IFF_UP, NULL);
	rtnl_unlock();
	kt_lo_was_down = false;
}

static void kt_need_v6_lo(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_IPV6) ||
	    !ipv6_chk_addr(&init_net, &in6addr_loopback, NULL, 0))
		kunit_skip(test, "no ::1 in init_net");
}

struct kt_lo_case {
	const char	*name;
	int		src_family;	/* 0: AF_UNSPEC source */
	const char	*src;		/* NULL: any */
	int		dst_family;
	const char	*dst;
	const char	*want_src;
};

static const struct kt_lo_case kt_lo_cases[] = {
	{ "v4 127.0.0.1", AF_INET, NULL, AF_INET, "127.0.0.1", "127.0.0.1" },
	{ "v4 127.0.0.2", AF_INET, NULL, AF_INET, "127.0.0.2", "127.0.0.1" },
	{ "v4 any dst", AF_INET, NULL, AF_INET, "0.0.0.0", "127.0.0.1" },
	{ "v4 unspec src", AF_UNSPEC, NULL, AF_INET, "127.0.0.1", "127.0.0.1" },
	{ "v4 given src", AF_INET, "127.0.0.1", AF_INET, "127.0.0.1",
	  "127.0.0.1" },
	{ "v6 ::1", AF_INET6, NULL, AF_INET6, "::1", "::1" },
	{ "v6 any dst", AF_INET6, NULL, AF_INET6, "::", "::1" },
	{ "v6 unspec src", AF_UNSPEC, NULL, AF_INET6, "::1", "::1" },
	{ "v6 given src", AF_INET6, "::1", AF_INET6, "::1", "::1" },
};

static void kt_lo_desc(const struct kt_lo_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_lo, kt_lo_cases, kt_lo_desc);

static void cma_addr_loopback_test(struct kunit *test)
{
	const struct kt_lo_case *c = test->param_value;
	struct net_device *lo = init_net.loopback_dev;
	struct sockaddr_storage want;
	struct kt_req *kr;

	if (c->dst_family == AF_INET6)
		kt_need_v6_lo(test);
	kr = kt_req_new(test, &init_net);
	if (c->src_family == AF_UNSPEC)
		memset(&kr->src, 0, sizeof(kr->src));
	else
		kt_sa(test, &kr->src, c->src_family,
		      c->src ? c->src : (c->src_family == AF_INET ? "0.0.0.0" : "::"),
		      4242, 0);
	if (c->src_family == AF_UNSPEC)
		((struct sockaddr_in *)&kr->src)->sin_port = htons(4242);
	kt_sa(test, &kr->dst, c->dst_family, c->dst, 7471, 0);
	kt_sa(test, &want, c->dst_family, c->want_src, 4242, 0);
	kr->dev_addr.transport = RDMA_TRANSPORT_IWARP;

	KUNIT_ASSERT_EQ(test, kt_resolve(kr, 2000), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(kr, KT_WAIT_MS));
	KUNIT_EXPECT_EQ(test, kr->status, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->calls), 1);
	KUNIT_EXPECT_TRUE(test, kr->from_work);
	KUNIT_EXPECT_FALSE(test, cma_addr_req_pending(&kr->req));

	KUNIT_EXPECT_EQ(test, kr->dev_addr.bound_dev_if, lo->ifindex);
	KUNIT_EXPECT_EQ(test, kr->dev_addr.dev_type, ARPHRD_LOOPBACK);
	KUNIT_EXPECT_EQ(test, memcmp(kr->dev_addr.dst_dev_addr,
				     kr->dev_addr.src_dev_addr, MAX_ADDR_LEN), 0);
	KUNIT_EXPECT_EQ(test, kr->dev_addr.network, RDMA_NETWORK_IB);
	KUNIT_EXPECT_GT(test, kr->dev_addr.hoplimit, 0);
	KUNIT_EXPECT_EQ(test, kr->dev_addr.transport, RDMA_TRANSPORT_IWARP);
	KUNIT_EXPECT_PTR_EQ(test, kr->dev_addr.net, &init_net);

	/* The selected source, with the caller's port. */
	KUNIT_EXPECT_EQ(test, kr->src.ss_family, c->dst_family);
	KUNIT_EXPECT_EQ(test, cma_addr_cmp(sa(&kr->src), sa(&want)), 0);
	KUNIT_EXPECT_EQ(test, ntohs(cma_port(sa(&kr->src))), 4242);
}

static int kt_route_err4(const struct sockaddr_in *dst)
{
	struct flowi4 fl4 = { .daddr = dst->sin_addr.s_addr };
	struct rtable *rt;

	rt = ip_route_output_key(&init_net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	ip_rt_put(rt);
	return 0;
}

static int kt_route_err6(const struct sockaddr_in6 *dst)
{
	struct flowi6 fl6 = { .daddr = dst->sin6_addr };
	struct dst_entry *d;

	d = ipv6_stub->ipv6_dst_lookup_flow(&init_net, NULL, &fl6, NULL);
	if (IS_ERR(d))
		return PTR_ERR(d);
	dst_release(d);
	return 0;
}

/* The route lookup's own answer for @dst in init_net: 0 if routable. */
static int kt_route_err(struct sockaddr_storage *dst)
{
	if (dst->ss_family == AF_INET)
		return kt_route_err4((struct sockaddr_in *)dst);
	return kt_route_err6((struct sockaddr_in6 *)dst);
}

struct kt_unreach_case {
	const char	*name;
	int		family;
	const char	*dst;
};

static const struct kt_unreach_case kt_unreach_cases[] = {
	{ "v4 198.19.255.1", AF_INET, "198.19.255.1" },
	{ "v6 2001:db8::1", AF_INET6, "2001:db8::1" },
};

static void kt_unreach_desc(const struct kt_unreach_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_unreach, kt_unreach_cases, kt_unreach_desc);

/* No route: the route's error, synchronously, and done() never runs. */
static void cma_addr_unreachable_test(struct kunit *test)
{
	const struct kt_unreach_case *c = test->param_value;
	struct kt_req *kr;
	int err;

	if (c->family == AF_INET6)
		kt_need_v6_lo(test);
	kr = kt_req_new(test, &init_net);
	kt_sa(test, &kr->src, c->family, c->family == AF_INET ? "0.0.0.0" : "::", 0, 0);
	kt_sa(test, &kr->dst, c->family, c->dst, 1, 0);
	err = kt_route_err(&kr->dst);
	if (!err)
		kunit_skip(test, "%s is routable in this system", c->dst);

	KUNIT_EXPECT_EQ(test, kt_resolve(kr, 1000), err);
	KUNIT_EXPECT_LT(test, err, 0);
	KUNIT_EXPECT_FALSE(test, cma_addr_req_pending(&kr->req));
	KUNIT_EXPECT_FALSE(test, kt_wait(kr, 100));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->calls), 0);
	/* Nothing was written. */
	KUNIT_EXPECT_TRUE(test, cma_any_addr(sa(&kr->src)));
	KUNIT_EXPECT_EQ(test, kr->dev_addr.bound_dev_if, 0);
}

struct kt_arg_case {
	const char	*name;
	int		src_family;
	const char	*src;
	u32		src_scope;
	int		dst_family;
	const char	*dst;
	u32		dst_scope;
	int		bound_dev_if;
	bool		no_net;
	int		err;
};

static const struct kt_arg_case kt_arg_cases[] = {
	{ "dst unspec", AF_INET, "0.0.0.0", 0, AF_UNSPEC, NULL, 0, 0, false,
	  -EAFNOSUPPORT },
	/*
	 * In-tree's rdma_resolve_ip() would read AF_IB as IPv6; its rdma_cm
	 * never hands it one. The API's side: bad-family-af-ib, a documented
	 * deviation (tests/parity/deviations).
	 */
	{ "dst AF_IB", AF_IB, "::", 0, AF_IB, "::1", 0, 0, false,
	  -EAFNOSUPPORT },
	{ "v6 any src, v4 dst", AF_INET6, "::", 0, AF_INET, "127.0.0.1", 0, 0,
	  false, -EINVAL },
	{ "v4 src, v6 dst", AF_INET, "127.0.0.1", 0, AF_INET6, "::1", 0, 0,
	  false, -EINVAL },
	{ "v4 src not local", AF_INET, "198.19.255.2", 0, AF_INET, "127.0.0.1",
	  0, 0, false, -EADDRNOTAVAIL },
	{ "v6 src not local", AF_INET6, "2001:db8::2", 0, AF_INET6, "::1", 0, 0,
	  false, -EADDRNOTAVAIL },
	{ "v6 link-local dst, no scope", AF_INET6, "::", 0, AF_INET6, "fe80::1",
	  0, 0, false, -EINVAL },
	{ "v6 link-local dst, scope vs bound", AF_INET6, "::", 0, AF_INET6,
	  "fe80::1", 1, 2, false, -EINVAL },
	{ "v6 link-local src, no scope", AF_INET6, "fe80::1", 0, AF_INET6,
	  "::1", 0, 0, false, -EINVAL },
	{ "no namespace", AF_INET, "0.0.0.0", 0, AF_INET, "127.0.0.1", 0, 0,
	  true, -EINVAL },
	{ "bound to no device", AF_INET, "0.0.0.0", 0, AF_INET, "127.0.0.1",
	  0, 0x7ffffff0, false, -ENODEV },
};

static void kt_arg_desc(const struct kt_arg_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_arg, kt_arg_cases, kt_arg_desc);

/* Bad arguments fail synchronously, and the request is not started. */
static void cma_addr_args_test(struct kunit *test)
{
	const struct kt_arg_case *c = test->param_value;
	struct kt_req *kr;

	if (c->src_family == AF_INET6 || c->dst_family == AF_INET6)
		kt_need_v6_lo(test);
	kr = kt_req_new(test, c->no_net ? NULL : &init_net);
	kt_sa(test, &kr->src, c->src_family, c->src, 0, c->src_scope);
	kt_sa(test, &kr->dst, c->dst_family, c->dst, 1, c->dst_scope);
	kr->dev_addr.bound_dev_if = c->bound_dev_if;

	KUNIT_EXPECT_EQ(test, kt_resolve(kr, 1000), c->err);
	KUNIT_EXPECT_FALSE(test, cma_addr_req_pending(&kr->req));
	/* A request that failed to start cancels as a no-op. */
	cma_addr_cancel(&kr->req);
	KUNIT_EXPECT_FALSE(test, kt_wait(kr, 50));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->calls), 0);
	KUNIT_EXPECT_EQ(test, kr->dev_addr.bound_dev_if, c->bound_dev_if);
}

static void cma_addr_cancel_never_started_test(struct kunit *test)
{
	struct kt_req *kr = kt_req_new(test, &init_net);

	cma_addr_cancel(&kr->req);
	cma_addr_cancel(&kr->req);
	KUNIT_EXPECT_FALSE(test, cma_addr_req_pending(&kr->req));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->calls), 0);
}

static void cma_addr_cancel_after_done_test(struct kunit *test)
{
	struct kt_req *kr = kt_req_new(test, &init_net);

	kt_sa(test, &kr->src, AF_INET, "0.0.0.0", 0, 0);
	kt_sa(test, &kr->dst, AF_INET, "127.0.0.1", 1, 0);
	KUNIT_ASSERT_EQ(test, kt_resolve(kr, 1000), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(kr, KT_WAIT_MS));
	cma_addr_cancel(&kr->req);
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->calls), 1);
	KUNIT_EXPECT_EQ(test, kr->status, 0);

	/* And the request can be used again. */
	reinit_completion(&kr->done);
	kt_sa(test, &kr->src, AF_INET, "0.0.0.0", 0, 0);
	KUNIT_ASSERT_EQ(test, kt_resolve(kr, 1000), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(kr, KT_WAIT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->calls), 2);
}

/* done() may cancel its own request (e.g. the id is destroyed in it). */
static void cma_addr_cancel_in_done_test(struct kunit *test)
{
	struct kt_req *kr = kt_req_new(test, &init_net);

	kr->cancel_in_done = true;
	kt_sa(test, &kr->src, AF_INET, "0.0.0.0", 0, 0);
	kt_sa(test, &kr->dst, AF_INET, "127.0.0.1", 1, 0);
	KUNIT_ASSERT_EQ(test, kt_resolve(kr, 1000), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(kr, KT_WAIT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->calls), 1);
	KUNIT_EXPECT_FALSE(test, cma_addr_req_pending(&kr->req));
}

/*
 * Cancel right after starting, racing the work: afterwards done() never
 * runs, whether or not it ran before cancel returned.
 */
static void cma_addr_cancel_race_test(struct kunit *test)
{
	struct kt_req *kr = kt_req_new(test, &init_net);
	int i, calls = 0;

	for (i = 0; i < 500; i++) {
		/* No done() since the last cancel returned. */
		KUNIT_ASSERT_EQ(test, atomic_read(&kr->calls), calls);
		WRITE_ONCE(kr->cancelled, false);
		kt_sa(test, &kr->src, AF_INET, "0.0.0.0", 0, 0);
		kt_sa(test, &kr->dst, AF_INET, "127.0.0.1", 1, 0);
		KUNIT_ASSERT_EQ(test, kt_resolve(kr, 1000), 0);
		/* Cancel at once, after a busy wait, or after letting it run. */
		if (i % 3 == 1)
			udelay(i % 50);
		else if (i % 3 == 2)
			usleep_range(i % 50, i % 50 + 10);
		cma_addr_cancel(&kr->req);
		WRITE_ONCE(kr->cancelled, true);
		calls = atomic_read(&kr->calls);
		KUNIT_ASSERT_FALSE(test, cma_addr_req_pending(&kr->req));
	}
	msleep(100);
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->late), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->calls), calls);
	kunit_info(test, "done() ran for %d of 500 cancelled requests\n", calls);
}

#define KT_MANY	1000

/* Many requests at once all complete. */
static void cma_addr_many_test(struct kunit *test)
{
	struct kt_req **krs;
	int i, ok = 0, done = 0;

	krs = kunit_kcalloc(test, KT_MANY, sizeof(*krs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, krs);
	for (i = 0; i < KT_MANY; i++) {
		krs[i] = kt_req_new(test, &init_net);
		kt_sa(test, &krs[i]->src, AF_INET, "0.0.0.0", i, 0);
		kt_sa(test, &krs[i]->dst, AF_INET, "127.0.0.1", 1, 0);
	}
	for (i = 0; i < KT_MANY; i++)
		KUNIT_ASSERT_EQ(test, kt_resolve(krs[i], 5000), 0);
	for (i = 0; i < KT_MANY; i++) {
		if (!kt_wait(krs[i], KT_WAIT_MS))
			continue;
		done++;
		if (!krs[i]->status && ntohs(cma_port(sa(&krs[i]->src))) == i)
			ok++;
	}
	KUNIT_EXPECT_EQ(test, done, KT_MANY);
	KUNIT_EXPECT_EQ(test, ok, KT_MANY);
}

struct kt_delay_case {
	const char	*name;
	unsigned long	now;
	long		deadline;	/* relative to now, jiffies */
	unsigned int	interval_ms;
	long		want;		/* jiffies; -1: msecs_to_jiffies(interval) */
	unsigned int	next_ms;
};

static const struct kt_delay_case kt_delay_cases[] = {
	{ "first", 1000, 100000, 50, -1, 100 },
	{ "doubles", 1000, 100000, 400, -1, 800 },
	{ "capped", 1000, 100000, 800, -1, 1000 },
	{ "stays capped", 1000, 100000, 1000, -1, 1000 },
	{ "deadline first", 1000, 3, 1000, 3, 1000 },
	{ "at deadline", 1000, 0, 50, 0, 100 },
	{ "past deadline", 1000, -5, 50, 0, 100 },
	{ "jiffies wrap", ULONG_MAX - 2, 10, 1000, 10, 1000 },
	{ "below minimum", 1000, 100000, 0, 0, 50 },
};

static void kt_delay_desc(const struct kt_delay_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_delay, kt_delay_cases, kt_delay_desc);

static void cma_addr_retry_delay_test(struct kunit *test)
{
	const struct kt_delay_case *c = test->param_value;
	unsigned int interval = c->interval_ms;
	unsigned long want;

	want = c->want < 0 ? msecs_to_jiffies(c->interval_ms) : c->want;
	KUNIT_EXPECT_EQ(test, cma_addr_retry_delay(c->now, c->now + c->deadline,
						   &interval), want);
	KUNIT_EXPECT_EQ(test, interval, c->next_ms);
}

struct kt_xlate_case {
	const char	*name;
	int		family;
	const char	*addr;
	u32		scope;
	int		bound_dev_if;
	int		err;
};

static const struct kt_xlate_case kt_xlate_cases[] = {
	{ "v4 127.0.0.1", AF_INET, "127.0.0.1", 0, 0, 0 },
	{ "v4 127.0.0.1, bound lo", AF_INET, "127.0.0.1", 0, 1, 0 },
	{ "v4 not local", AF_INET, "198.19.255.1", 0, 0, -EADDRNOTAVAIL },
	{ "v4 any", AF_INET, "0.0.0.0", 0, 0, -EADDRNOTAVAIL },
	{ "v6 ::1", AF_INET6, "::1", 0, 0, 0 },
	{ "v6 not local", AF_INET6, "2001:db8::7", 0, 0, -EADDRNOTAVAIL },
	{ "v6 link-local, no scope", AF_INET6, "fe80::1", 0, 0, -EINVAL },
	{ "unspec", AF_UNSPEC, NULL, 0, 0, -EAFNOSUPPORT },
	{ "bound to no device", AF_INET, "127.0.0.1", 0, 0x7ffffff0, -ENODEV },
};

static void kt_xlate_desc(const struct kt_xlate_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_xlate, kt_xlate_cases, kt_xlate_desc);

static void cma_addr_translate_test(struct kunit *test)
{
	const struct kt_xlate_case *c = test->param_value;
	struct rdma_dev_addr dev_addr = { .net = &init_net };
	struct sockaddr_storage ss;
	int ret;

	if (c->family == AF_INET6)
		kt_need_v6_lo(test);
	kt_sa(test, &ss, c->family, c->addr, 0, c->scope);
	dev_addr.bound_dev_if = c->bound_dev_if;
	memset(dev_addr.src_dev_addr, 0xa5, MAX_ADDR_LEN);

	ret = cma_addr_translate(sa(&ss), &dev_addr);
	KUNIT_EXPECT_EQ(test, ret, c->err);
	if (ret) {
		KUNIT_EXPECT_EQ(test, dev_addr.bound_dev_if, c->bound_dev_if);
		return;
	}
	KUNIT_EXPECT_EQ(test, dev_addr.bound_dev_if,
			init_net.loopback_dev->ifindex);
	KUNIT_EXPECT_EQ(test, dev_addr.dev_type, ARPHRD_LOOPBACK);
	/* lo's hardware address is 6 zero bytes; the rest is cleared. */
	KUNIT_EXPECT_TRUE(test, kt_zero_ha(dev_addr.src_dev_addr, 0));
}

static struct kunit_case cma_addr_resolve_cases[] = {
	KUNIT_CASE_PARAM(cma_addr_loopback_test, kt_lo_gen_params),
	KUNIT_CASE_PARAM(cma_addr_unreachable_test, kt_unreach_gen_params),
	KUNIT_CASE_PARAM(cma_addr_args_test, kt_arg_gen_params),
	KUNIT_CASE(cma_addr_cancel_never_started_test),
	KUNIT_CASE(cma_addr_cancel_after_done_test),
	KUNIT_CASE(cma_addr_cancel_in_done_test),
	KUNIT_CASE(cma_addr_cancel_race_test),
	KUNIT_CASE(cma_addr_many_test),
	KUNIT_CASE_PARAM(cma_addr_retry_delay_test, kt_delay_gen_params),
	KUNIT_CASE_PARAM(cma_addr_translate_test, kt_xlate_gen_params),
	{}
};

static struct kunit_suite cma_addr_resolve_suite = {
	.name = "cma_addr_resolve",
	.suite_init = cma_addr_resolve_suite_init,
	.suite_exit = cma_addr_resolve_suite_exit,
	.test_cases = cma_addr_resolve_cases,
};

/* ==== cma_addr_nd: a netdev where nobody answers ==== */

static struct net_device *kt_ndev;
static struct in6_addr kt_ll;		/* kt_ndev's link-local address */
static atomic_t kt_tx;			/* packets kt_ndev dropped */

static netdev_tx_t kt_xmit(struct sk_buff *skb, struct net_device *dev)
{
	atomic_inc(&kt_tx);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops kt_ndev_ops = {
	.ndo_start_xmit = kt_xmit,
};

static int cma_addr_nd_suite_init(struct kunit_suite *suite)
{
	struct net_device *dev;
	struct inet6_dev *idev;
	int i, ret;

	if (!IS_ENABLED(CONFIG_IPV6))
		return -EOPNOTSUPP;
	dev = alloc_etherdev(0);
	if (!dev)
		return -ENOMEM;
	dev->netdev_ops = &kt_ndev_ops;
	eth_hw_addr_random(dev);
	strscpy(dev->name, "cmakt%d", IFNAMSIZ);

	rtnl_lock();
	ret = register_netdevice(dev);
	if (ret) {
		rtnl_unlock();
		free_netdev(dev);
		return ret;
	}
	kt_ndev = dev;
	/*
	 * An EUI-64 link-local address without DAD: usable as soon as the
	 * link is up.
	 */
	idev = __in6_dev_get(dev);
	if (idev) {
		WRITE_ONCE(idev->cnf.accept_dad, 0);
		WRITE_ONCE(idev->cnf.addr_gen_mode, IN6_ADDR_GEN_MODE_EUI64);
	}
	ret = dev_open(dev, NULL);
	rtnl_unlock();
	if (ret)
		return ret;	/* suite_exit unregisters */

	memset(&kt_ll, 0, sizeof(kt_ll));
	kt_ll.s6_addr32[0] = htonl(0xfe800000);
	addrconf_addr_eui48(&kt_ll.s6_addr[8], dev->dev_addr);
	for (i = 0; i < 150; i++) {
		if (ipv6_chk_addr(&init_net, &kt_ll, dev, 1))
			return 0;
		msleep(20);
	}
	return -ETIMEDOUT;
}

static void cma_addr_nd_suite_exit(struct kunit_suite *suite)
{
	if (!kt_ndev)
		return;
	unregister_netdev(kt_ndev);
	free_netdev(kt_ndev);
	kt_ndev = NULL;
}

/* A request from kt_ndev's link-local address to fe80::@host%kt_ndev. */
static struct kt_req *kt_nd_req(struct kunit *test, const char *dst, u16 port)
{
	struct kt_req *kr = kt_req_new(test, &init_net);

	kt_sa(test, &kr->src, AF_INET6, "::", port, 0);
	kt_sa(test, &kr->dst, AF_INET6, dst, 1, kt_ndev->ifindex);
	return kr;
}

/* Nobody answers: -ETIMEDOUT at the deadline, after soliciting. */
static void cma_addr_timeout_test(struct kunit *test)
{
	struct kt_req *kr = kt_nd_req(test, "fe80::c:2", 0);
	int tx = atomic_read(&kt_tx);
	unsigned long start = jiffies;
	unsigned int elapsed;

	KUNIT_ASSERT_EQ(test, kt_resolve(kr, 300), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(kr, KT_WAIT_MS));
	elapsed = jiffies_to_msecs(jiffies - start);
	KUNIT_EXPECT_EQ(test, kr->status, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->calls), 1);
	KUNIT_EXPECT_GE(test, elapsed, 300 - jiffies_to_msecs(2));
	KUNIT_EXPECT_LT(test, elapsed, 3000);
	KUNIT_EXPECT_GT(test, atomic_read(&kt_tx), tx);	/* solicited */
	/* Nothing was written on failure. */
	KUNIT_EXPECT_TRUE(test, cma_any_addr(sa(&kr->src)));
	KUNIT_EXPECT_EQ(test, kr->dev_addr.bound_dev_if, 0);
}

/* Cancel while waiting for the neighbour: done() never runs. */
static void cma_addr_cancel_pending_test(struct kunit *test)
{
	struct kt_req *kr = kt_nd_req(test, "fe80::c:3", 0);

	KUNIT_ASSERT_EQ(test, kt_resolve(kr, 10000), 0);
	msleep(200);
	KUNIT_EXPECT_TRUE(test, cma_addr_req_pending(&kr->req));
	KUNIT_EXPECT_EQ(test, kt_resolve(kr, 10000), -EBUSY);
	cma_addr_cancel(&kr->req);
	WRITE_ONCE(kr->cancelled, true);
	KUNIT_EXPECT_FALSE(test, cma_addr_req_pending(&kr->req));
	KUNIT_EXPECT_FALSE(test, kt_wait(kr, 300));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->calls), 0);
	KUNIT_EXPECT_TRUE(test, cma_any_addr(sa(&kr->src)));
}

static void kt_expect_nd_result(struct kunit *test, struct kt_req *kr,
				const u8 *mac, u16 port)
{
	struct rdma_dev_addr *da = &kr->dev_addr;
	struct sockaddr_in6 *src6 = (struct sockaddr_in6 *)&kr->src;

	KUNIT_EXPECT_EQ(test, kr->status, 0);
	KUNIT_EXPECT_TRUE(test, kr->from_work);
	KUNIT_EXPECT_EQ(test, da->bound_dev_if, kt_ndev->ifindex);
	KUNIT_EXPECT_EQ(test, da->dev_type, ARPHRD_ETHER);
	KUNIT_EXPECT_EQ(test, memcmp(da->dst_dev_addr, mac, ETH_ALEN), 0);
	KUNIT_EXPECT_TRUE(test, kt_zero_ha(da->dst_dev_addr, ETH_ALEN));
	KUNIT_EXPECT_EQ(test, memcmp(da->src_dev_addr, kt_ndev->dev_addr,
				     ETH_ALEN), 0);
	KUNIT_EXPECT_TRUE(test, kt_zero_ha(da->src_dev_addr, ETH_ALEN));
	KUNIT_EXPECT_TRUE(test, is_broadcast_ether_addr(da->broadcast));
	KUNIT_EXPECT_EQ(test, da->network, RDMA_NETWORK_IB);
	KUNIT_EXPECT_GT(test, da->hoplimit, 0);
	KUNIT_EXPECT_EQ(test, src6->sin6_family, AF_INET6);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&src6->sin6_addr, &kt_ll));
	KUNIT_EXPECT_EQ(test, src6->sin6_scope_id, kt_ndev->ifindex);
	KUNIT_EXPECT_EQ(test, ntohs(src6->sin6_port), port);
}

/*
 * The neighbour becomes valid while the request waits: the netevent kicks
 * the request at once (the fallback retry would come ~350 ms later), and
 * a second request finds the valid neighbour and completes from the work.
 */
static void cma_addr_neigh_update_test(struct kunit *test)
{
	static const u8 mac[ETH_ALEN] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30 };
	struct kt_req *kr = kt_nd_req(test, "fe80::c:4", 7);
	struct kt_req *kr2 = kt_nd_req(test, "fe80::c:4", 8);
	struct sockaddr_in6 *dst6 = (struct sockaddr_in6 *)&kr->dst;
	struct neighbour *n;
	unsigned long t;

	KUNIT_ASSERT_EQ(test, kt_resolve(kr, 10000), 0);
	msleep(400);
	KUNIT_ASSERT_TRUE(test, cma_addr_req_pending(&kr->req));

	n = neigh_lookup(ipv6_stub->nd_tbl, &dst6->sin6_addr, kt_ndev);
	KUNIT_ASSERT_NOT_NULL(test, n);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(n->nud_state) & NUD_VALID);
	t = jiffies;
	neigh_update(n, mac, NUD_REACHABLE,
		     NEIGH_UPDATE_F_OVERRIDE | NEIGH_UPDATE_F_ADMIN, 0);
	neigh_release(n);

	KUNIT_ASSERT_TRUE(test, kt_wait(kr, KT_WAIT_MS));
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - t), 250);
	kt_expect_nd_result(test, kr, mac, 7);

	KUNIT_ASSERT_EQ(test, kt_resolve(kr2, 10000), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait(kr2, KT_WAIT_MS));
	kt_expect_nd_result(test, kr2, mac, 8);
}

static void cma_addr_translate_ll_test(struct kunit *test)
{
	struct rdma_dev_addr dev_addr = { .net = &init_net };
	struct sockaddr_in6 s6 = {
		.sin6_family = AF_INET6,
		.sin6_addr = kt_ll,
		.sin6_scope_id = kt_ndev->ifindex,
	};

	KUNIT_ASSERT_EQ(test, cma_addr_translate((struct sockaddr *)&s6,
						 &dev_addr), 0);
	KUNIT_EXPECT_EQ(test, dev_addr.bound_dev_if, kt_ndev->ifindex);
	KUNIT_EXPECT_EQ(test, dev_addr.dev_type, ARPHRD_ETHER);
	KUNIT_EXPECT_EQ(test, memcmp(dev_addr.src_dev_addr, kt_ndev->dev_addr,
				     ETH_ALEN), 0);
	KUNIT_EXPECT_TRUE(test, is_broadcast_ether_addr(dev_addr.broadcast));

	/* On another interface it is not local. */
	memset(&dev_addr, 0, sizeof(dev_addr));
	dev_addr.net = &init_net;
	s6.sin6_scope_id = init_net.loopback_dev->ifindex;
	KUNIT_EXPECT_EQ(test, cma_addr_translate((struct sockaddr *)&s6,
						 &dev_addr), -EADDRNOTAVAIL);

	/* The scope may come from bound_dev_if. */
	s6.sin6_scope_id = 0;
	dev_addr.bound_dev_if = kt_ndev->ifindex;
	KUNIT_EXPECT_EQ(test, cma_addr_translate((struct sockaddr *)&s6,
						 &dev_addr), 0);
	KUNIT_EXPECT_EQ(test, dev_addr.dev_type, ARPHRD_ETHER);
}

static struct kunit_case cma_addr_nd_cases[] = {
	KUNIT_CASE_SLOW(cma_addr_timeout_test),
	KUNIT_CASE_SLOW(cma_addr_cancel_pending_test),
	KUNIT_CASE_SLOW(cma_addr_neigh_update_test),
	KUNIT_CASE(cma_addr_translate_ll_test),
	{}
};

static struct kunit_suite cma_addr_nd_suite = {
	.name = "cma_addr_nd",
	.suite_init = cma_addr_nd_suite_init,
	.suite_exit = cma_addr_nd_suite_exit,
	.test_cases = cma_addr_nd_cases,
};

kunit_test_suites(&cma_addr_util_suite, &cma_addr_resolve_suite,
		  &cma_addr_nd_suite);

MODULE_DESCRIPTION("KUnit tests of the rdma_cm IP address resolver");
MODULE_LICENSE("GPL");
