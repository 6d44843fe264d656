// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the rdma_cm core: id states and the errors of calls made
 * in the wrong state, bad addresses and arguments, event translation from
 * iw_cm, private data limits, and destroy racing with resolution.
 *
 * These run without any RDMA device: what needs one is covered end to end
 * (tests/e2e).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <net/net_namespace.h>

#include "rdma_cm/cma_priv.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* What a test's event handler saw. */
struct cmt_events {
	atomic_t count;
	enum rdma_cm_event_type last;
	int last_status;
	u8 last_pd_len;
	int ret;		/* what the handler returns */
};

static int cmt_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cmt_events *evs = id->context;

	evs->last = ev->event;
	evs->last_status = ev->status;
	evs->last_pd_len = ev->param.conn.private_data_len;
	atomic_inc(&evs->count);
	return evs->ret;
}

static void cmt_destroy_action(void *id)
{
	rdma_destroy_id(id);
}

static struct rdma_cm_id *cmt_create(struct kunit *test, struct cmt_events *evs,
				     enum rdma_ucm_port_space ps,
				     enum ib_qp_type qpt)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, cmt_handler, evs, ps, qpt);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, cmt_destroy_action, id));
	return id;
}

static struct sockaddr_in cmt_sin(const char *ip, u16 port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_addr.s_addr = in_aton(ip);
	sin.sin_port = htons(port);
	return sin;
}

static void cmt_create_destroy(struct kunit *test)
{
	struct cmt_events evs = {};
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, cmt_handler, &evs, RDMA_PS_TCP,
			    IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(id)), RDMA_CM_IDLE);
	KUNIT_EXPECT_PTR_EQ(test, id->device, NULL);
	KUNIT_EXPECT_EQ(test, id->ps, RDMA_PS_TCP);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, atomic_read(&evs.count), 0);
}

/* Calls that are only valid in another state fail with -EINVAL. */
static void cmt_wrong_state(struct kunit *test)
{
	struct rdma_conn_param param = {};
	struct cmt_events evs = {};
	struct rdma_cm_id *id;
	struct ib_qp_attr attr;
	int mask;

	id = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, rdma_resolve_route(id, 1000), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_connect(id, &param), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_connect(id, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_reject(id, NULL, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(id), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_notify(id, IB_EVENT_COMM_EST), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_init_qp_attr(id, &attr, &mask), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_join_multicast(id, NULL, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_create_qp(id, NULL, NULL), -EINVAL);
	rdma_lock_handler(id);
	KUNIT_EXPECT_EQ(test, rdma_accept(id, &param), -EINVAL);
	rdma_unlock_handler(id);
	/* Nothing changed the state or reached the handler. */
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(id)), RDMA_CM_IDLE);
	KUNIT_EXPECT_EQ(test, atomic_read(&evs.count), 0);
}

struct cmt_bind_case {
	const char *name;
	sa_family_t family;
	const char *ip;		/* NULL: any */
	int expect;
};

static const struct cmt_bind_case cmt_bind_cases[] = {
	{ "unspec family", AF_UNSPEC, NULL, -EAFNOSUPPORT },
	/*
	 * As in-tree: the zero GID with a zero service id mask takes the id's
	 * own port space (rdma_cm/afib.c) and an ephemeral port.
	 */
	{ "AF_IB", AF_IB, NULL, 0 },
	{ "ipv4 any", AF_INET, NULL, 0 },
	{ "ipv4 not local", AF_INET, "198.18.200.1", -EADDRNOTAVAIL },
	/*
	 * As in-tree, a loopback address binds no device (it listens on
	 * every device; a loopback destination takes the first active one).
	 */
	{ "ipv4 loopback", AF_INET, "127.0.0.1", 0 },
	{ "ipv6 any", AF_INET6, NULL, 0 },
};

static void cmt_bind_case_desc(const struct cmt_bind_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cmt_bind, cmt_bind_cases, cmt_bind_case_desc);

static void cmt_bind(struct kunit *test)
{
	const struct cmt_bind_case *c = test->param_value;
	struct sockaddr_storage ss = { .ss_family = c->family };
	struct cmt_events evs = {};
	struct rdma_cm_id *id;
	int ret;

	if (c->family == AF_INET && c->ip) {
		struct sockaddr_in sin = cmt_sin(c->ip, 0);

		memcpy(&ss, &sin, sizeof(sin));
	}
	id = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	KUNIT_EXPECT_EQ(test, ret, c->expect);
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(id)),
			ret ? RDMA_CM_IDLE : RDMA_CM_ADDR_BOUND);
	if (!ret) {
		/* An ephemeral port was assigned. */
		KUNIT_EXPECT_NE(test, cma_port(cma_src_addr(to_id_priv(id))), 0);
		/* A second bind is a state error. */
		KUNIT_EXPECT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&ss),
				-EINVAL);
	}
}

/* Port conflicts through the public calls. */
static void cmt_bind_conflict(struct kunit *test)
{
	struct sockaddr_in any = cmt_sin("0.0.0.0", 0);
	struct cmt_events evs = {};
	struct rdma_cm_id *a, *b, *c;

	a = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	b = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	c = cmt_create(test, &evs, RDMA_PS_UDP, IB_QPT_UD);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(a, (struct sockaddr *)&any), 0);
	any.sin_port = cma_port(cma_src_addr(to_id_priv(a)));
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(b, (struct sockaddr *)&any),
			-EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(b)), RDMA_CM_IDLE);
	/* Another port space is another port. */
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(c, (struct sockaddr *)&any), 0);
}

static void cmt_reuseaddr_listen(struct kunit *test)
{
	struct sockaddr_in any = cmt_sin("0.0.0.0", 0);
	struct cmt_events evs = {};
	struct rdma_cm_id *a, *b;

	a = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	b = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, rdma_set_reuseaddr(a, 1), 0);
	KUNIT_ASSERT_EQ(test, rdma_set_reuseaddr(b, 1), 0);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(a, (struct sockaddr *)&any), 0);
	any.sin_port = cma_port(cma_src_addr(to_id_priv(a)));
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(b, (struct sockaddr *)&any), 0);
	/* Sharing the port, neither may listen on it. */
	KUNIT_EXPECT_EQ(test, rdma_listen(a, 4), -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(a)), RDMA_CM_ADDR_BOUND);
	rdma_destroy_id(b);
	kunit_remove_action(test, cmt_destroy_action, b);
	KUNIT_EXPECT_EQ(test, rdma_listen(a, 4), 0);
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(a)), RDMA_CM_LISTEN);
	/* Options that must be set before listening. */
	KUNIT_EXPECT_EQ(test, rdma_set_reuseaddr(a, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_set_afonly(a, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_listen(a, 4), -EINVAL);
}

/* A wildcard listen with no device listens (for devices added later). */
static void cmt_listen_idle(struct kunit *test)
{
	struct cmt_events evs = {};
	struct rdma_cm_id *id;

	id = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, rdma_listen(id, 0), 0);
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(id)), RDMA_CM_LISTEN);
	KUNIT_EXPECT_EQ(test, cma_src_addr(to_id_priv(id))->sa_family, AF_INET);
	KUNIT_EXPECT_NE(test, cma_port(cma_src_addr(to_id_priv(id))), 0);
}

static void cmt_options(struct kunit *test)
{
	struct cmt_events evs = {};
	struct rdma_cm_id *rc, *ud;

	rc = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	ud = cmt_create(test, &evs, RDMA_PS_UDP, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, rdma_set_ack_timeout(rc, 14), 0);
	KUNIT_EXPECT_EQ(test, rdma_set_ack_timeout(ud, 14), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_set_min_rnr_timer(rc, 12), 0);
	KUNIT_EXPECT_EQ(test, rdma_set_min_rnr_timer(rc, 32), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_set_min_rnr_timer(ud, 12), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_set_afonly(rc, 1), 0);
	rdma_set_service_type(rc, 0x20);
	KUNIT_EXPECT_EQ(test, to_id_priv(rc)->tos, 0x20);
	KUNIT_EXPECT_TRUE(test, to_id_priv(rc)->tos_set);
	KUNIT_EXPECT_EQ(test, rdma_set_ib_path(rc, NULL), -EINVAL);
}

static void cmt_resolve_bad_args(struct kunit *test)
{
	struct sockaddr_in dst = cmt_sin("198.18.0.2", 7471);
	struct sockaddr_in6 src6 = { .sin6_family = AF_INET6 };
	struct sockaddr_storage unspec = {};
	struct cmt_events evs = {};
	struct rdma_cm_id *id;

	id = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&unspec,
						1000), -EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, (struct sockaddr *)&src6,
						(struct sockaddr *)&dst, 1000),
			-EINVAL);
	/*
	 * As in-tree (parity scenario resolve-src-v6-dst-v4): the id is bound
	 * to the source first, and the family mismatch leaves it bound.
	 */
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(id)), RDMA_CM_ADDR_BOUND);
	KUNIT_EXPECT_EQ(test, atomic_read(&evs.count), 0);
}

/* Poll for @n events; resolution completes on a workqueue. */
static bool cmt_wait_events(struct cmt_events *evs, int n)
{
	int i;

	for (i = 0; i < 500 && atomic_read(&evs->count) < n; i++)
		usleep_range(10000, 20000);
	return atomic_read(&evs->count) >= n;
}

/*
 * 127.0.0.1 resolves (loopback), but no RDMA device sits on lo: the
 * consumer gets ADDR_ERROR and the id is back in ADDR_BOUND.
 */
static void cmt_resolve_no_device(struct kunit *test)
{
	struct sockaddr_in dst = cmt_sin("127.0.0.1", 7471);
	struct cmt_events evs = {};
	struct rdma_cm_id *id;

	id = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 2000),
			0);
	KUNIT_ASSERT_TRUE(test, cmt_wait_events(&evs, 1));
	KUNIT_EXPECT_EQ(test, evs.last, RDMA_CM_EVENT_ADDR_ERROR);
	KUNIT_EXPECT_EQ(test, evs.last_status, -ENODEV);
	KUNIT_EXPECT_EQ(test, cma_state(to_id_priv(id)), RDMA_CM_ADDR_BOUND);
	/* The route resolver picked the source address. */
	KUNIT_EXPECT_EQ(test,
			((struct sockaddr_in *)cma_src_addr(to_id_priv(id)))->sin_addr.s_addr,
			in_aton("127.0.0.1"));
}

/* A handler that returns non-zero has the CM destroy the id. */
static void cmt_handler_destroys(struct kunit *test)
{
	struct sockaddr_in dst = cmt_sin("127.0.0.1", 7471);
	struct cmt_events evs = { .ret = -1 };
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, cmt_handler, &evs, RDMA_PS_TCP,
			    IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 2000),
			0);
	/* No rdma_destroy_id(): the CM does it; kmemleak checks. */
	KUNIT_ASSERT_TRUE(test, cmt_wait_events(&evs, 1));
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&evs.count), 1);
}

/*
 * Destroy at every point of a resolution in flight: nothing is delivered
 * after rdma_destroy_id() returns, nothing leaks or splats.
 */
static void cmt_destroy_races_resolve(struct kunit *test)
{
	struct sockaddr_in dst = cmt_sin("127.0.0.1", 7471);
	struct cmt_events *evs;
	int i, seen;

	evs = kunit_kcalloc(test, 200, sizeof(*evs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, evs);
	for (i = 0; i < 200; i++) {
		struct rdma_cm_id *id;

		id = rdma_create_id(&init_net, cmt_handler, &evs[i],
				    RDMA_PS_TCP, IB_QPT_RC);
		KUNIT_ASSERT_FALSE(test, IS_ERR(id));
		KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
							(struct sockaddr *)&dst,
							2000), 0);
		if (i % 4)
			udelay(i * 5);
		rdma_destroy_id(id);
		seen = atomic_read(&evs[i].count);
		KUNIT_EXPECT_LE(test, seen, 1);
		evs[i].ret = seen;	/* remember */
	}
	msleep(50);
	for (i = 0; i < 200; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&evs[i].count), evs[i].ret);
}

struct cmt_iw_case {
	const char *name;
	enum iw_cm_event_type iw_event;
	int status;
	enum rdma_cm_event_type expect;
	enum rdma_cm_state state_after;
};

static const struct cmt_iw_case cmt_iw_cases[] = {
	{ "reply ok", IW_CM_EVENT_CONNECT_REPLY, 0,
	  RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_CONNECT },
	{ "reply refused", IW_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED,
	  RDMA_CM_EVENT_REJECTED, RDMA_CM_CONNECT },
	{ "reply reset", IW_CM_EVENT_CONNECT_REPLY, -ECONNRESET,
	  RDMA_CM_EVENT_REJECTED, RDMA_CM_CONNECT },
	{ "reply timeout", IW_CM_EVENT_CONNECT_REPLY, -ETIMEDOUT,
	  RDMA_CM_EVENT_UNREACHABLE, RDMA_CM_CONNECT },
	{ "reply other error", IW_CM_EVENT_CONNECT_REPLY, -EIO,
	  RDMA_CM_EVENT_CONNECT_ERROR, RDMA_CM_CONNECT },
	{ "established", IW_CM_EVENT_ESTABLISHED, 0,
	  RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_CONNECT },
	/* In-tree leaves an iWARP id in CONNECT after CLOSE. */
	{ "close", IW_CM_EVENT_CLOSE, 0,
	  RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_CONNECT },
};

static void cmt_iw_case_desc(const struct cmt_iw_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cmt_iw_event, cmt_iw_cases, cmt_iw_case_desc);

/* iw_cm events become the rdma_cm events ULPs have always seen. */
static void cmt_iw_event(struct kunit *test)
{
	const struct cmt_iw_case *c = test->param_value;
	struct cmt_events evs = {};
	struct rdma_id_private *id_priv;
	struct iw_cm_event *iw_ev;
	struct iw_cm_id *iw_id;
	struct rdma_cm_id *id;
	u8 pd[8] = {};

	iw_ev = kunit_kzalloc(test, sizeof(*iw_ev), GFP_KERNEL);
	iw_id = kunit_kzalloc(test, sizeof(*iw_id), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, iw_ev);
	KUNIT_ASSERT_NOT_NULL(test, iw_id);
	id = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	id_priv = to_id_priv(id);
	id_priv->state = RDMA_CM_CONNECT;
	iw_id->context = id_priv;
	iw_ev->event = c->iw_event;
	iw_ev->status = c->status;
	iw_ev->private_data = pd;
	iw_ev->private_data_len = sizeof(pd);
	iw_ev->local_addr.ss_family = AF_INET;
	iw_ev->remote_addr.ss_family = AF_INET;

	KUNIT_EXPECT_EQ(test, cma_iw_handler(iw_id, iw_ev), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&evs.count), 1);
	KUNIT_EXPECT_EQ(test, evs.last, c->expect);
	KUNIT_EXPECT_EQ(test, evs.last_status, c->status);
	KUNIT_EXPECT_EQ(test, evs.last_pd_len, sizeof(pd));
	KUNIT_EXPECT_EQ(test, cma_state(id_priv), c->state_after);
	id_priv->state = RDMA_CM_IDLE;
}

/* Events that reach an id that is not connecting are dropped. */
static void cmt_iw_event_wrong_state(struct kunit *test)
{
	struct cmt_events evs = {};
	struct iw_cm_event *iw_ev;
	struct iw_cm_id *iw_id;
	struct rdma_cm_id *id;

	iw_ev = kunit_kzalloc(test, sizeof(*iw_ev), GFP_KERNEL);
	iw_id = kunit_kzalloc(test, sizeof(*iw_id), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, iw_ev);
	KUNIT_ASSERT_NOT_NULL(test, iw_id);
	id = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	iw_id->context = to_id_priv(id);
	iw_ev->event = IW_CM_EVENT_ESTABLISHED;
	KUNIT_EXPECT_EQ(test, cma_iw_handler(iw_id, iw_ev), 0);
	iw_ev->event = IW_CM_EVENT_DISCONNECT;
	to_id_priv(id)->state = RDMA_CM_CONNECT;
	KUNIT_EXPECT_EQ(test, cma_iw_handler(iw_id, iw_ev), 0);
	to_id_priv(id)->state = RDMA_CM_IDLE;
	KUNIT_EXPECT_EQ(test, atomic_read(&evs.count), 0);
}

struct cmt_pd_case {
	const char *name;
	bool iwarp;
	enum cma_pd_op op;
	int max;
};

static const struct cmt_pd_case cmt_pd_cases[] = {
	{ "ib connect (REQ 92 - 36 header)", false, CMA_PD_CONNECT, 56 },
	{ "ib accept (REP)", false, CMA_PD_ACCEPT, 196 },
	{ "ib reject (REJ)", false, CMA_PD_REJECT, 148 },
	{ "iwarp connect (MPA)", true, CMA_PD_CONNECT, 512 },
	{ "iwarp accept (MPA)", true, CMA_PD_ACCEPT, 512 },
	{ "iwarp reject (MPA)", true, CMA_PD_REJECT, 512 },
};

static void cmt_pd_case_desc(const struct cmt_pd_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cmt_pd, cmt_pd_cases, cmt_pd_case_desc);

static void cmt_private_data_max(struct kunit *test)
{
	const struct cmt_pd_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, cma_private_data_max(c->iwarp, c->op), c->max);
}

static void cmt_service_id(struct kunit *test)
{
	struct sockaddr_in sin = cmt_sin("198.18.0.1", 7471);
	struct cmt_events evs = {};
	struct sockaddr *sa = (struct sockaddr *)&sin;
	struct rdma_cm_id *tcp, *ib;

	tcp = cmt_create(test, &evs, RDMA_PS_TCP, IB_QPT_RC);
	ib = cmt_create(test, &evs, RDMA_PS_IB, IB_QPT_RC);

	KUNIT_EXPECT_EQ(test, be64_to_cpu(rdma_get_service_id(tcp, sa)),
			RDMA_IB_IP_PS_TCP | 7471);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(rdma_get_service_id(ib, sa)),
			RDMA_IB_IP_PS_IB | 7471);
}

static void cmt_event_msg(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, rdma_event_msg(RDMA_CM_EVENT_ESTABLISHED),
			   "established");
	KUNIT_EXPECT_STREQ(test, rdma_event_msg(RDMA_CM_EVENT_TIMEWAIT_EXIT),
			   "timewait exit");
	KUNIT_EXPECT_STREQ(test, rdma_event_msg(1000), "unrecognized event");
	KUNIT_EXPECT_STREQ(test, rdma_event_msg(-1), "unrecognized event");
}

static struct kunit_case rdma_cm_test_cases[] = {
	KUNIT_CASE(cmt_create_destroy),
	KUNIT_CASE(cmt_wrong_state),
	KUNIT_CASE_PARAM(cmt_bind, cmt_bind_gen_params),
	KUNIT_CASE(cmt_bind_conflict),
	KUNIT_CASE(cmt_reuseaddr_listen),
	KUNIT_CASE(cmt_listen_idle),
	KUNIT_CASE(cmt_options),
	KUNIT_CASE(cmt_resolve_bad_args),
	KUNIT_CASE(cmt_resolve_no_device),
	KUNIT_CASE(cmt_handler_destroys),
	KUNIT_CASE(cmt_destroy_races_resolve),
	KUNIT_CASE_PARAM(cmt_iw_event, cmt_iw_event_gen_params),
	KUNIT_CASE(cmt_iw_event_wrong_state),
	KUNIT_CASE_PARAM(cmt_private_data_max, cmt_pd_gen_params),
	KUNIT_CASE(cmt_service_id),
	KUNIT_CASE(cmt_event_msg),
	{}
};

static struct kunit_suite rdma_cm_test_suite = {
	.name = "rdma_cm_core",
	.test_cases = rdma_cm_test_cases,
};

kunit_test_suite(rdma_cm_test_suite);

MODULE_DESCRIPTION("openrdma-cm: KUnit tests of the rdma_cm core");
MODULE_LICENSE("GPL");
