// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the CM reply timeout and retry count (rdma_cm/cm_timers.c):
 * the values a port's configfs files take, and which value an id gets (its
 * port's if set, else its namespace's, else in-tree's defaults). The
 * namespace cases set init_net's values and put them back when the test
 * ends; fake ids and devices, no connection.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <net/net_namespace.h>

#include <openrdma/rdma_cm_timers.h>

#include "rdma_cm/cma_priv.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct timer_parse_case {
	const char	*in;
	u8		max;
	int		want;	/* a value, CMA_CM_UNSET, or -EINVAL */
};

static const struct timer_parse_case timer_parse_cases[] = {
	{ "20\n", CMA_CM_TIMEOUT_MAX, 20 },
	{ "0", CMA_CM_TIMEOUT_MAX, 0 },
	{ "31", CMA_CM_TIMEOUT_MAX, 31 },
	{ "32", CMA_CM_TIMEOUT_MAX, -EINVAL },
	{ "-1\n", CMA_CM_TIMEOUT_MAX, CMA_CM_UNSET },
	{ "-2", CMA_CM_TIMEOUT_MAX, -EINVAL },
	{ "15", CMA_CM_RETRIES_MAX, 15 },
	{ "16", CMA_CM_RETRIES_MAX, -EINVAL },
	{ "255", CMA_CM_RETRIES_MAX, -EINVAL },
	{ "0x3", CMA_CM_RETRIES_MAX, 3 },
	{ "", CMA_CM_RETRIES_MAX, -EINVAL },
	{ "seven", CMA_CM_RETRIES_MAX, -EINVAL },
	{ "4294967297", CMA_CM_TIMEOUT_MAX, -EINVAL },
};

static void timer_parse_desc(const struct timer_parse_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "'%.*s' max %u",
		 (int)strcspn(c->in, "\n"), c->in, c->max);
}

KUNIT_ARRAY_PARAM(timer_parse, timer_parse_cases, timer_parse_desc);

static void cmt_test_parse(struct kunit *test)
{
	const struct timer_parse_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, cma_cm_timer_parse(c->in, c->max), c->want);
}

struct net_vals {
	u8 timeout, retries;
};

static void cmt_restore_net(void *arg)
{
	struct net_vals *v = arg;

	cma_cm_timers_set_net(&init_net, v->timeout, v->retries);
}

/* init_net's values set to @timeout/@retries until the test ends. */
static void cmt_set_init_net(struct kunit *test, u8 timeout, u8 retries)
{
	struct rdma_id_private *probe = kunit_kzalloc(test, sizeof(*probe), GFP_KERNEL);
	struct net_vals *v = kunit_kzalloc(test, sizeof(*v), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, probe);
	KUNIT_ASSERT_NOT_NULL(test, v);
	probe->id.route.addr.dev_addr.net = &init_net;
	v->timeout = cma_cm_response_timeout(probe);
	v->retries = cma_cm_max_retries(probe);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, cmt_restore_net, v));
	cma_cm_timers_set_net(&init_net, timeout, retries);
}

/* A fake id on port 1 of a fake two-port device, in init_net. */
static struct rdma_id_private *cmt_id(struct kunit *test)
{
	struct rdma_id_private *id_priv;
	struct cma_device *cma_dev;
	struct ib_device *dev;
	u32 p;

	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	cma_dev = kunit_kzalloc(test, struct_size(cma_dev, port_cfg, 2), GFP_KERNEL);
	id_priv = kunit_kzalloc(test, sizeof(*id_priv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, cma_dev);
	KUNIT_ASSERT_NOT_NULL(test, id_priv);
	dev->phys_port_cnt = 2;
	cma_dev->device = dev;
	for (p = 0; p < 2; p++) {
		cma_dev->port_cfg[p].cm_response_timeout = CMA_CM_UNSET;
		cma_dev->port_cfg[p].cm_max_retries = CMA_CM_UNSET;
	}
	id_priv->cma_dev = cma_dev;
	id_priv->id.device = dev;
	id_priv->id.port_num = 1;
	id_priv->id.route.addr.dev_addr.net = &init_net;
	return id_priv;
}

/* Nobody set anything: in-tree's 20 and 15. */
static void cmt_test_defaults(struct kunit *test)
{
	struct rdma_id_private *id_priv = cmt_id(test);
	struct rdma_id_private *none = kunit_kzalloc(test, sizeof(*none), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, none);
	cmt_set_init_net(test, CMA_CM_DEFAULT_TIMEOUT, CMA_CM_DEFAULT_RETRIES);
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(id_priv), 20);
	KUNIT_EXPECT_EQ(test, cma_cm_max_retries(id_priv), 15);
	/* No device and no namespace yet: the defaults too. */
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(none), 20);
	KUNIT_EXPECT_EQ(test, cma_cm_max_retries(none), 15);
}

/* The namespace's values apply to a port that set none. */
static void cmt_test_namespace(struct kunit *test)
{
	struct rdma_id_private *id_priv = cmt_id(test);

	cmt_set_init_net(test, 14, 2);
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(id_priv), 14);
	KUNIT_EXPECT_EQ(test, cma_cm_max_retries(id_priv), 2);
}

/* A port's values win over the namespace's, each on its own; -1 undoes. */
static void cmt_test_port(struct kunit *test)
{
	struct rdma_id_private *id_priv = cmt_id(test);
	struct cma_port_cfg *cfg = &id_priv->cma_dev->port_cfg[0];

	cmt_set_init_net(test, 14, 2);
	cfg->cm_response_timeout = 12;
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(id_priv), 12);
	KUNIT_EXPECT_EQ(test, cma_cm_max_retries(id_priv), 2);
	cfg->cm_max_retries = 0;
	KUNIT_EXPECT_EQ(test, cma_cm_max_retries(id_priv), 0);
	/* Port 2's settings are not port 1's. */
	id_priv->cma_dev->port_cfg[1].cm_response_timeout = 25;
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(id_priv), 12);
	id_priv->id.port_num = 2;
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(id_priv), 25);
	KUNIT_EXPECT_EQ(test, cma_cm_max_retries(id_priv), 2);
	/* A port number the device does not have: the namespace's. */
	id_priv->id.port_num = 3;
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(id_priv), 14);
	id_priv->id.port_num = 1;
	cfg->cm_response_timeout = cma_cm_timer_parse("-1", CMA_CM_TIMEOUT_MAX);
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(id_priv), 14);
}

/*
 * A ULP's own values (orcm_rdma_set_cm_timers()) win over the port's and
 * the namespace's, each on its own; -1 gives them back; a value out of
 * range is refused and changes nothing.
 */
static void cmt_test_ulp(struct kunit *test)
{
	struct rdma_id_private *id_priv = cmt_id(test);
	struct cma_port_cfg *cfg = &id_priv->cma_dev->port_cfg[0];
	struct rdma_cm_id *id = &id_priv->id;

	cmt_set_init_net(test, 14, 2);
	cfg->cm_response_timeout = 12;
	KUNIT_EXPECT_EQ(test, orcm_rdma_set_cm_timers(id, 0, 15), 0);
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(id_priv), 0);
	KUNIT_EXPECT_EQ(test, cma_cm_max_retries(id_priv), 15);
	KUNIT_EXPECT_EQ(test, orcm_rdma_set_cm_timers(id, 31, ORCM_CM_TIMER_DEFAULT), 0);
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(id_priv), 31);
	KUNIT_EXPECT_EQ(test, cma_cm_max_retries(id_priv), 2);	/* the namespace's */
	KUNIT_EXPECT_EQ(test, orcm_rdma_set_cm_timers(id, 32, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, orcm_rdma_set_cm_timers(id, 3, 16), -EINVAL);
	KUNIT_EXPECT_EQ(test, orcm_rdma_set_cm_timers(id, -2, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, orcm_rdma_set_cm_timers(id, 1, -2), -EINVAL);
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(id_priv), 31);
	KUNIT_EXPECT_EQ(test, cma_cm_max_retries(id_priv), 2);
	KUNIT_EXPECT_EQ(test, orcm_rdma_set_cm_timers(id, ORCM_CM_TIMER_DEFAULT,
						      ORCM_CM_TIMER_DEFAULT), 0);
	KUNIT_EXPECT_EQ(test, cma_cm_response_timeout(id_priv), 12);	/* the port's */
	KUNIT_EXPECT_EQ(test, cma_cm_max_retries(id_priv), 2);
}

static struct kunit_case cma_timers_cases[] = {
	KUNIT_CASE_PARAM(cmt_test_parse, timer_parse_gen_params),
	KUNIT_CASE(cmt_test_defaults),
	KUNIT_CASE(cmt_test_namespace),
	KUNIT_CASE(cmt_test_port),
	KUNIT_CASE(cmt_test_ulp),
	{}
};

static struct kunit_suite cma_timers_suite = {
	.name = "cma_timers",
	.test_cases = cma_timers_cases,
};

kunit_test_suite(cma_timers_suite);

MODULE_DESCRIPTION("KUnit tests of rdma_cm's CM reply timeout and retries");
MODULE_LICENSE("GPL");
