// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of rdma_cm's multicast group mapping (rdma_cm/mcast.c,
 * mcast_ib.c): the MGID of an IP group for RoCE v1 and v2, and on native
 * InfiniBand (RFC 4391's IPoIB mapping with the IPoIB broadcast address's
 * scope and P_Key, the rdma_cm signature for RDMA_PS_UDP).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/if_infiniband.h>
#include <linux/inet.h>
#include <linux/string.h>

#include "rdma_cm/mcast.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct mgid_case {
	const char *name;
	const char *group;		/* IPv4 or IPv6 text */
	enum ib_gid_type gid_type;
	const char *mgid;		/* expected, IPv6 text */
};

static const struct mgid_case mgid_cases[] = {
	{ "v2-ipv4", "239.1.2.3", IB_GID_TYPE_ROCE_UDP_ENCAP, "::ffff:239.1.2.3" },
	{ "v2-ipv4-allhosts", "224.0.0.1", IB_GID_TYPE_ROCE_UDP_ENCAP, "::ffff:224.0.0.1" },
	{ "v1-ipv4", "239.1.2.3", IB_GID_TYPE_ROCE, "ff0e::ffff:239.1.2.3" },
	{ "v2-ipv6", "ff0e::1:2", IB_GID_TYPE_ROCE_UDP_ENCAP, "ff0e::1:2" },
	{ "v1-ipv6", "ff12::8000:1", IB_GID_TYPE_ROCE, "ff12::8000:1" },
};

static void mgid_case_desc(const struct mgid_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mgid, mgid_cases, mgid_case_desc);

static void parse_group(struct kunit *test, const char *group,
			struct sockaddr_storage *ss)
{
	if (strchr(group, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		KUNIT_ASSERT_EQ(test, in6_pton(group, -1, s6->sin6_addr.s6_addr,
					       -1, NULL), 1);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		KUNIT_ASSERT_EQ(test, in4_pton(group, -1,
					       (u8 *)&s4->sin_addr.s_addr, -1,
					       NULL), 1);
	}
}

static void cma_mc_mgid_test(struct kunit *test)
{
	const struct mgid_case *c = test->param_value;
	struct sockaddr_storage ss = {};
	struct in6_addr want;
	union ib_gid mgid;

	parse_group(test, c->group, &ss);
	KUNIT_ASSERT_EQ(test, in6_pton(c->mgid, -1, want.s6_addr, -1, NULL), 1);

	memset(&mgid, 0xa5, sizeof(mgid));
	cma_mc_mgid((struct sockaddr *)&ss, c->gid_type, &mgid);
	KUNIT_EXPECT_MEMEQ(test, mgid.raw, want.s6_addr, sizeof(want));
}

/*
 * Native IB. The first expectation is what the in-tree CM joined for
 * `mckey -m 239.3.0.1` over softib (tests/e2e/softib-cm.sh, stock VM:
 * "joined dgid: ff12:4001:ffff::f03:1"); the others follow RFC 4391
 * (ff1<scope>:401b:<P_Key>::<low 28 bits of the IPv4 group>) and its IPv6
 * form (ff1<scope>:601b:<P_Key> and the group's low 80 bits).
 */
struct ib_mgid_case {
	const char *name;
	const char *group;
	u8 scope;			/* the broadcast address's */
	u16 pkey;
	bool cm_signature;		/* RDMA_PS_UDP */
	const char *mgid;
};

static const struct ib_mgid_case ib_mgid_cases[] = {
	{ "ipv4-udp", "239.3.0.1", 2, 0xffff, true, "ff12:4001:ffff::f03:1" },
	{ "ipv4-ipoib", "239.3.0.1", 2, 0xffff, false, "ff12:401b:ffff::f03:1" },
	{ "ipv4-scope5-pkey8001", "224.1.2.3", 5, 0x8001, false,
	  "ff15:401b:8001::1:203" },
	{ "ipv6-udp", "ff05::1:3", 2, 0xffff, true, "ff12:6001:ffff::1:3" },
	{ "ipv6-ipoib", "ff02::1", 2, 0x7fff, false, "ff12:601b:7fff::1" },
	{ "sa-assigned", "ff12:a01b:ffff::abcd", 2, 0xffff, true,
	  "ff12:a01b:ffff::abcd" },
};

static void ib_mgid_case_desc(const struct ib_mgid_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ib_mgid, ib_mgid_cases, ib_mgid_case_desc);

static void cma_mc_ib_mgid_test(struct kunit *test)
{
	const struct ib_mgid_case *c = test->param_value;
	/* An IPoIB broadcast address: QPN ffffff, ff1<scope>:401b:<P_Key>::ffff:ffff */
	u8 bcast[INFINIBAND_ALEN] = { 0x00, 0xff, 0xff, 0xff, 0xff, 0x10,
				      0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0,
				      0xff, 0xff, 0xff, 0xff };
	struct sockaddr_storage ss = {};
	struct in6_addr want;
	union ib_gid mgid;

	bcast[5] |= c->scope;
	bcast[8] = c->pkey >> 8;
	bcast[9] = c->pkey & 0xff;
	parse_group(test, c->group, &ss);
	KUNIT_ASSERT_EQ(test, in6_pton(c->mgid, -1, want.s6_addr, -1, NULL), 1);
	memset(&mgid, 0xa5, sizeof(mgid));
	cma_mc_ib_mgid((struct sockaddr *)&ss, bcast, c->cm_signature, &mgid);
	KUNIT_EXPECT_MEMEQ(test, mgid.raw, want.s6_addr, sizeof(want));
}

/*
 * A leave names its join by address: the join made with that very address
 * pointer wins over an earlier join of the same group (rdma_ucm leaves by
 * a pointer into the object it frees next), else the first of the group.
 */
static void cma_mc_pick_test(struct kunit *test)
{
	struct sockaddr_storage g1 = {}, g2 = {}, g3 = {}, other_ptr = {};
	struct cma_mc *a, *b, *c;
	LIST_HEAD(list);

	parse_group(test, "239.1.2.3", &g1);
	parse_group(test, "239.1.2.3", &g2);	/* same group, other pointer */
	parse_group(test, "ff0e::1", &g3);
	parse_group(test, "239.1.2.3", &other_ptr);

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, c);
	a->addr = g1;
	a->join_addr = &g1;
	b->addr = g2;
	b->join_addr = &g2;
	c->addr = g3;
	c->join_addr = &g3;
	list_add_tail(&a->list, &list);
	list_add_tail(&b->list, &list);
	list_add_tail(&c->list, &list);

	/* The second join of the group, by its own pointer: that one. */
	KUNIT_EXPECT_PTR_EQ(test, cma_mc_pick(&list, (struct sockaddr *)&g2), b);
	KUNIT_EXPECT_PTR_EQ(test, cma_mc_pick(&list, (struct sockaddr *)&g1), a);
	/* Another pointer to an equal address: the first join, as in-tree. */
	KUNIT_EXPECT_PTR_EQ(test, cma_mc_pick(&list, (struct sockaddr *)&other_ptr), a);
	KUNIT_EXPECT_PTR_EQ(test, cma_mc_pick(&list, (struct sockaddr *)&g3), c);
	/* A pointer that joined, now holding another group: not that join. */
	parse_group(test, "239.9.9.9", &g1);
	KUNIT_EXPECT_NULL(test, cma_mc_pick(&list, (struct sockaddr *)&g1));
	/* Once the first is gone, the second is the first of the group. */
	list_del(&a->list);
	KUNIT_EXPECT_PTR_EQ(test, cma_mc_pick(&list, (struct sockaddr *)&other_ptr), b);
}

static struct kunit_case cma_mcast_cases[] = {
	KUNIT_CASE_PARAM(cma_mc_mgid_test, mgid_gen_params),
	KUNIT_CASE_PARAM(cma_mc_ib_mgid_test, ib_mgid_gen_params),
	KUNIT_CASE(cma_mc_pick_test),
	{}
};

static struct kunit_suite cma_mcast_suite = {
	.name = "rdma_cm_mcast",
	.test_cases = cma_mcast_cases,
};

kunit_test_suite(cma_mcast_suite);

MODULE_DESCRIPTION("KUnit tests of rdma_cm multicast");
MODULE_LICENSE("GPL");
