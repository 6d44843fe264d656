// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of rdma_cm's multicast group mapping (rdma_cm/mcast.c): the
 * MGID of an IP group for RoCE v1 and v2.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
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

static void cma_mc_mgid_test(struct kunit *test)
{
	const struct mgid_case *c = test->param_value;
	struct sockaddr_storage ss = {};
	struct in6_addr want;
	union ib_gid mgid;

	if (strchr(c->group, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		KUNIT_ASSERT_EQ(test, in6_pton(c->group, -1, s6->sin6_addr.s6_addr,
					       -1, NULL), 1);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		KUNIT_ASSERT_EQ(test, in4_pton(c->group, -1,
					       (u8 *)&s4->sin_addr.s_addr, -1,
					       NULL), 1);
	}
	KUNIT_ASSERT_EQ(test, in6_pton(c->mgid, -1, want.s6_addr, -1, NULL), 1);

	memset(&mgid, 0xa5, sizeof(mgid));
	cma_mc_mgid((struct sockaddr *)&ss, c->gid_type, &mgid);
	KUNIT_EXPECT_MEMEQ(test, mgid.raw, want.s6_addr, sizeof(want));
}

static struct kunit_case cma_mcast_cases[] = {
	KUNIT_CASE_PARAM(cma_mc_mgid_test, mgid_gen_params),
	{}
};

static struct kunit_suite cma_mcast_suite = {
	.name = "rdma_cm_mcast",
	.test_cases = cma_mcast_cases,
};

kunit_test_suite(cma_mcast_suite);

MODULE_DESCRIPTION("KUnit tests of rdma_cm multicast");
MODULE_LICENSE("GPL");
