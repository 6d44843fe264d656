// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of rdma_cm's InfiniBand path record cache
 * (rdma_cm/path_cache.c), with the SA replaced by the test: queries are
 * recorded, and the test answers them (or refuses to start them). Ids are
 * made with rdma_create_id() and put in ROUTE_QUERY by hand, as
 * rdma_resolve_route() does, on a device pointer that is only a key.
 *
 * - concurrent misses of one key are one query; its answer reaches every
 *   waiter; a later resolution is a hit, with no query;
 * - another destination, P_Key or service id is another key;
 * - a port event (invalidate) drops the port's records, also one whose
 *   query is in flight (its waiters still get the answer; it is not kept);
 * - an error answer reaches every waiter as ROUTE_ERROR and is not kept;
 * - a waiter that stops (the id's destroy) gets nothing, the others do;
 * - so does one whose id got DEVICE_REMOVAL first: its destroy does not
 *   wait for the answer;
 * - an event queued for the next step while the handler of the previous
 *   one still runs does not change the event that handler reads;
 * - a query that cannot start fails its caller without an event and the
 *   ids that waited on it with ROUTE_ERROR;
 * - a lifetime of 0 is no cache: every resolution queries;
 * - an entry past its lifetime is asked for again;
 * - bounds: at the global cap the oldest record makes room; at a device's
 *   cap the device's oldest does, and other devices keep theirs; with the
 *   caps full of queries in flight, a miss queries without caching;
 * - the clock frees an expired record without a lookup of its key;
 * - a waiter that joined a query in flight with a shorter timeout gets
 *   ROUTE_ERROR -ETIMEDOUT at its own deadline; one with the same timeout
 *   gets the query's answer; one with a longer timeout gets a query of
 *   its own, which takes the key;
 * - a connect through a cached record that fails (REJ, REQ timeout) drops
 *   the record: the next resolution queries the SA; a path the caller set
 *   by hand drops nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "rdma_cm/cma_priv.h"
#include "rdma_cm/ib.h"
#include "rdma_cm/path_cache.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define PC_MAX_Q	8

/* The fake SA: queries started, and what the next start returns. */
static struct {
	int		n;
	cma_pc_done_fn	done[PC_MAX_Q];
	void		*ctx[PC_MAX_Q];
	struct sa_path_rec q[PC_MAX_Q];
	int		start_ret;
} pc_sa;

static int pc_query(struct ib_device *device, u32 port,
		    struct sa_path_rec *query, ib_sa_comp_mask mask,
		    unsigned long timeout_ms, cma_pc_done_fn done,
		    void *context)
{
	if (pc_sa.start_ret)
		return pc_sa.start_ret;
	if (pc_sa.n < PC_MAX_Q) {
		pc_sa.done[pc_sa.n] = done;
		pc_sa.ctx[pc_sa.n] = context;
		pc_sa.q[pc_sa.n] = *query;
	}
	pc_sa.n++;
	return pc_sa.n;
}

/* Answer query @i: the path it asked for, with DLID @dlid; or @status. */
static void pc_answer(int i, int status, u16 dlid)
{
	struct sa_path_rec rec = pc_sa.q[i];

	rec.ib.dlid = cpu_to_be16(dlid);
	pc_sa.done[i](status, status ? NULL : &rec, status ? 0 : 1,
		      pc_sa.ctx[i]);
}

struct pc_ctx {
	atomic_t	resolved;
	atomic_t	errors;
	int		status;
};

static int pc_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct pc_ctx *c = id->context;

	if (ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED) {
		atomic_inc(&c->resolved);
	} else if (ev->event == RDMA_CM_EVENT_ROUTE_ERROR) {
		c->status = ev->status;
		atomic_inc(&c->errors);
	}
	return 0;
}

static void pc_destroy(void *data)
{
	struct rdma_id_private *id_priv = data;

	/* No real device: nothing of the destroy path may look at it. */
	cma_pc_cancel(id_priv);
	id_priv->id.device = NULL;
	WRITE_ONCE(id_priv->state, RDMA_CM_IDLE);
	rdma_destroy_id(&id_priv->id);
}

static struct ib_device *pc_dev(struct kunit *test)
{
	return (struct ib_device *)test;	/* a key, never dereferenced */
}

/* An id in ROUTE_QUERY on port 1 of the test's device, its route ready. */
static struct rdma_id_private *pc_id(struct kunit *test, struct pc_ctx *c)
{
	struct rdma_id_private *id_priv;
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, pc_handler, c, RDMA_PS_UDP, IB_QPT_UD);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	id_priv = to_id_priv(id);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, pc_destroy, id_priv));
	id->route.path_rec = kzalloc(sizeof(*id->route.path_rec), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, id->route.path_rec);
	id->device = pc_dev(test);
	id->port_num = 1;
	WRITE_ONCE(id_priv->state, RDMA_CM_ROUTE_QUERY);
	return id_priv;
}

static void pc_query_rec(struct sa_path_rec *q, u8 dgid_last, u16 pkey,
			 u64 sid)
{
	memset(q, 0, sizeof(*q));
	q->rec_type = SA_PATH_REC_TYPE_IB;
	q->sgid.raw[15] = 1;
	q->dgid.raw[15] = dgid_last;
	q->pkey = cpu_to_be16(pkey);
	q->service_id = cpu_to_be64(sid);
}

#define PC_MASK	(IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID | \
		 IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_SERVICE_ID)

static int pc_resolve_t(struct rdma_id_private *id_priv, u8 dgid_last,
			unsigned long timeout_ms)
{
	struct sa_path_rec q;

	pc_query_rec(&q, dgid_last, 0xffff, 0x10000);
	return cma_pc_resolve(id_priv, &q, PC_MASK, timeout_ms);
}

static int pc_resolve(struct rdma_id_private *id_priv, u8 dgid_last)
{
	return pc_resolve_t(id_priv, dgid_last, 1000);
}

static void pc_wait(struct kunit *test, atomic_t *v, int n)
{
	int i;

	for (i = 0; i < 100 && atomic_read(v) < n; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(v), n);
}

static void pc_restore(void *unused)
{
	cma_pc_invalidate(NULL, 0);
	cma_pc_test_hooks(NULL, 300000);
	cma_pc_test_caps(4096, 1024);
}

static int pc_init(struct kunit *test)
{
	memset(&pc_sa, 0, sizeof(pc_sa));
	cma_pc_test_hooks(pc_query, 300000);
	cma_pc_test_caps(4096, 1024);
	return kunit_add_action_or_reset(test, pc_restore, NULL);
}

/* Three at once, one query; then a hit without one. */
static void pc_coalesce_then_hit(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rdma_id_private *a = pc_id(test, c), *b = pc_id(test, c);
	struct rdma_id_private *d = pc_id(test, c), *e = pc_id(test, c);
	struct cma_pc_stats s0, s1;

	cma_pc_read_stats(&s0);
	KUNIT_ASSERT_EQ(test, pc_resolve(a, 2), 0);
	KUNIT_ASSERT_EQ(test, pc_resolve(b, 2), 0);
	KUNIT_ASSERT_EQ(test, pc_resolve(d, 2), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->resolved), 0);
	pc_answer(0, 0, 7);
	pc_wait(test, &c->resolved, 3);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(b->id.route.path_rec[0].ib.dlid), 7);
	KUNIT_EXPECT_EQ(test, b->id.route.num_pri_alt_paths, 1);

	KUNIT_ASSERT_EQ(test, pc_resolve(e, 2), 0);
	pc_wait(test, &c->resolved, 4);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 1);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(e->id.route.path_rec[0].ib.dlid), 7);
	cma_pc_read_stats(&s1);
	KUNIT_EXPECT_EQ(test, s1.misses - s0.misses, 1);
	KUNIT_EXPECT_EQ(test, s1.coalesced - s0.coalesced, 2);
	KUNIT_EXPECT_EQ(test, s1.hits - s0.hits, 1);
}

/* Each field of the key makes another record. */
static void pc_keys(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct sa_path_rec q;
	int i;

	for (i = 0; i < 4; i++) {
		struct rdma_id_private *id = pc_id(test, c);

		pc_query_rec(&q, 2 + (i == 1), i == 2 ? 0x8001 : 0xffff,
			     i == 3 ? 0x10001 : 0x10000);
		KUNIT_ASSERT_EQ(test, cma_pc_resolve(id, &q, PC_MASK, 1000), 0);
	}
	KUNIT_EXPECT_EQ(test, pc_sa.n, 4);
	for (i = 0; i < 4; i++)
		pc_answer(i, 0, 10 + i);
	pc_wait(test, &c->resolved, 4);
}

/* A port event: gone, also while its query is in flight. */
static void pc_invalidate(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	pc_answer(0, 0, 7);
	pc_wait(test, &c->resolved, 1);
	cma_pc_invalidate(pc_dev(test), 2);	/* another port: kept */
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 1);
	pc_wait(test, &c->resolved, 2);

	cma_pc_invalidate(pc_dev(test), 1);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 2);
	cma_pc_invalidate(pc_dev(test), 1);	/* in flight */
	pc_answer(1, 0, 8);
	pc_wait(test, &c->resolved, 3);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 3);
	pc_answer(2, 0, 9);
	pc_wait(test, &c->resolved, 4);
}

/* An error answer: ROUTE_ERROR for all, nothing kept. */
static void pc_error(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	pc_answer(0, -ETIMEDOUT, 0);
	pc_wait(test, &c->errors, 2);
	KUNIT_EXPECT_EQ(test, c->status, -ETIMEDOUT);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 2);
	pc_answer(1, 0, 7);
	pc_wait(test, &c->resolved, 1);
}

/* A waiter that stops gets nothing; the others get the answer. */
static void pc_cancel(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct pc_ctx *gone = kunit_kzalloc(test, sizeof(*gone), GFP_KERNEL);
	struct rdma_id_private *a = pc_id(test, gone);

	KUNIT_ASSERT_EQ(test, pc_resolve(a, 2), 0);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	cma_pc_cancel(a);
	KUNIT_EXPECT_NULL(test, a->query);
	pc_answer(0, 0, 7);
	pc_wait(test, &c->resolved, 1);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&gone->resolved), 0);
}

/* rdma_destroy_id() in a kthread, so that a destroy that waits cannot hang. */
struct pc_destroy_call {
	struct rdma_cm_id	*id;
	struct completion	done;
};

static int pc_destroy_fn(void *data)
{
	struct pc_destroy_call *d = data;

	rdma_destroy_id(d->id);
	complete(&d->done);
	return 0;
}

/*
 * DEVICE_REMOVAL came while the id waited for its path, and the consumer
 * destroys it (rdma_ucm, from its close work): the destroy stops waiting
 * on the query as from ROUTE_QUERY. Waiting for the SA's answer or the
 * route timeout would hold the device's removal that long.
 */
static void pc_removal_destroy(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rdma_id_private *a = pc_id(test, c);
	struct pc_destroy_call *d;
	struct task_struct *t;
	bool done;

	KUNIT_ASSERT_EQ(test, pc_resolve(a, 2), 0);
	KUNIT_ASSERT_NOT_NULL(test, a->query);
	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	d->id = &a->id;
	init_completion(&d->done);

	/* As cma_send_device_removal() leaves it; no real device behind. */
	WRITE_ONCE(a->state, RDMA_CM_DEVICE_REMOVAL);
	a->id.device = NULL;
	kunit_remove_action(test, pc_destroy, a);
	t = kthread_run(pc_destroy_fn, d, "pc_destroy");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	done = wait_for_completion_timeout(&d->done, 2 * HZ);
	if (!done) {
		/* Let the destroy finish: answer the query it waits for. */
		pc_answer(0, 0, 7);
		wait_for_completion(&d->done);
	}
	KUNIT_EXPECT_TRUE_MSG(test, done, "the destroy waited for the SA");
	if (done)
		pc_answer(0, 0, 7);	/* to no waiter: nothing delivered */
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->resolved) +
			atomic_read(&c->errors), 0);
}

/* A handler that waits in its first call, then notes what its event says. */
struct pc_slow {
	struct completion	entered, go;
	atomic_t		calls;
	enum rdma_cm_event_type	first, first_later, second;
};

static int pc_slow_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct pc_slow *s = id->context;

	if (atomic_read(&s->calls) == 0) {
		s->first = ev->event;
		complete(&s->entered);
		/* Bounded: a test that gave up must not hang cma_wq. */
		wait_for_completion_timeout(&s->go, 5 * HZ);
		s->first_later = ev->event;
	} else {
		s->second = ev->event;
	}
	atomic_inc(&s->calls);
	return 0;
}

/*
 * The next step's event is queued while the handler of the previous one
 * runs (as when a consumer resolves the route from its AF_IB
 * ADDR_RESOLVED handler and the path is cached): the running handler's
 * event must not change under it, and the next one still comes.
 */
static void pc_event_stable(struct kunit *test)
{
	struct pc_slow *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct rdma_id_private *a;
	struct rdma_cm_id *id;

	KUNIT_ASSERT_NOT_NULL(test, s);
	init_completion(&s->entered);
	init_completion(&s->go);
	id = rdma_create_id(&init_net, pc_slow_handler, s, RDMA_PS_UDP,
			    IB_QPT_UD);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	a = to_id_priv(id);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, pc_destroy, a));
	id->route.path_rec = kzalloc(sizeof(*id->route.path_rec), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, id->route.path_rec);
	id->device = pc_dev(test);
	id->port_num = 1;
	WRITE_ONCE(a->state, RDMA_CM_ROUTE_QUERY);

	/* ROUTE_RESOLVED, from cma_wq: its handler waits. */
	KUNIT_ASSERT_EQ(test, pc_resolve(a, 2), 0);
	pc_answer(0, 0, 7);
	if (!wait_for_completion_timeout(&s->entered, 2 * HZ)) {
		complete(&s->go);
		KUNIT_FAIL_AND_ABORT(test, "no ROUTE_RESOLVED");
	}
	/* Meanwhile the next step starts, and fails: ROUTE_ERROR. */
	WRITE_ONCE(a->state, RDMA_CM_ROUTE_QUERY);
	KUNIT_EXPECT_EQ(test, pc_resolve(a, 3), 0);
	pc_answer(1, -ETIMEDOUT, 0);
	complete(&s->go);

	pc_wait(test, &s->calls, 2);
	KUNIT_EXPECT_EQ(test, s->first, RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, s->first_later, RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, s->second, RDMA_CM_EVENT_ROUTE_ERROR);
}

/* Not started: the caller's error, the waiters' ROUTE_ERROR. */
static void pc_start_fails(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rdma_id_private *a = pc_id(test, c);

	pc_sa.start_ret = -ENOMEM;
	KUNIT_EXPECT_EQ(test, pc_resolve(a, 2), -ENOMEM);
	KUNIT_EXPECT_NULL(test, a->query);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->resolved) +
			atomic_read(&c->errors), 0);
	pc_sa.start_ret = 0;
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 1);
	pc_answer(0, 0, 7);
	pc_wait(test, &c->resolved, 1);
}

/* A lifetime of 0: no cache, one query per resolution; and expiry. */
static void pc_ttl(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	cma_pc_test_hooks(pc_query, 0);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 2);
	pc_answer(0, 0, 7);
	pc_answer(1, 0, 7);
	pc_wait(test, &c->resolved, 2);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 3);
	pc_answer(2, 0, 7);
	pc_wait(test, &c->resolved, 3);

	cma_pc_test_hooks(pc_query, 20);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 3), 0);
	pc_answer(3, 0, 7);
	pc_wait(test, &c->resolved, 4);
	msleep(60);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 3), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 5);
	pc_answer(4, 0, 7);
	pc_wait(test, &c->resolved, 5);
}

/* Resolve @dgid_last on @id_priv (a miss), answer query @i and wait. */
static void pc_keep(struct kunit *test, struct pc_ctx *c,
		    struct rdma_id_private *id_priv, u8 dgid_last, int i)
{
	int n = atomic_read(&c->resolved);

	KUNIT_ASSERT_EQ(test, pc_resolve(id_priv, dgid_last), 0);
	KUNIT_ASSERT_EQ(test, pc_sa.n, i + 1);
	pc_answer(i, 0, 10 + i);
	pc_wait(test, &c->resolved, n + 1);
}

/* The global cap: the oldest record makes room for a new key. */
static void pc_cap_evicts_oldest(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct cma_pc_stats s0, s1;

	cma_pc_read_stats(&s0);
	KUNIT_ASSERT_EQ(test, s0.entries, 0);
	cma_pc_test_caps(2, 1024);
	pc_keep(test, c, pc_id(test, c), 2, 0);
	pc_keep(test, c, pc_id(test, c), 3, 1);
	pc_keep(test, c, pc_id(test, c), 4, 2);	/* 2 goes */
	cma_pc_read_stats(&s1);
	KUNIT_EXPECT_EQ(test, s1.entries, 2);
	KUNIT_EXPECT_EQ(test, s1.evicted - s0.evicted, 1);

	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 3), 0);	/* hit */
	pc_wait(test, &c->resolved, 4);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 3);
	pc_keep(test, c, pc_id(test, c), 2, 3);	/* asked again; 3 goes */
	cma_pc_read_stats(&s1);
	KUNIT_EXPECT_EQ(test, s1.entries, 2);
	KUNIT_EXPECT_EQ(test, s1.evicted - s0.evicted, 2);
	KUNIT_EXPECT_EQ(test, s1.hits - s0.hits, 1);
}

/* A device's cap: its oldest record goes, another device's stays. */
static void pc_cap_per_device(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rdma_id_private *other;
	struct cma_pc_stats s0, s1;

	cma_pc_read_stats(&s0);
	cma_pc_test_caps(4096, 1);
	pc_keep(test, c, pc_id(test, c), 2, 0);
	other = pc_id(test, c);
	other->id.device = (struct ib_device *)c;	/* another key */
	pc_keep(test, c, other, 2, 1);
	cma_pc_read_stats(&s1);
	KUNIT_EXPECT_EQ(test, s1.entries, 2);
	KUNIT_EXPECT_EQ(test, s1.evicted, s0.evicted);

	pc_keep(test, c, pc_id(test, c), 3, 2);	/* the first device's 2 goes */
	cma_pc_read_stats(&s1);
	KUNIT_EXPECT_EQ(test, s1.entries, 2);
	KUNIT_EXPECT_EQ(test, s1.evicted - s0.evicted, 1);
	other = pc_id(test, c);
	other->id.device = (struct ib_device *)c;
	KUNIT_ASSERT_EQ(test, pc_resolve(other, 2), 0);	/* still a hit */
	pc_wait(test, &c->resolved, 4);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 3);
}

/* Caps full of queries in flight: a miss queries without caching. */
static void pc_cap_full_uncached(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct cma_pc_stats s0, s1;

	cma_pc_read_stats(&s0);
	cma_pc_test_caps(1, 1024);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 2), 0);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 3), 0);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 3), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 3);	/* 3 is not coalesced */
	cma_pc_read_stats(&s1);
	KUNIT_EXPECT_EQ(test, s1.entries, 1);
	KUNIT_EXPECT_EQ(test, s1.uncached - s0.uncached, 2);
	pc_answer(0, 0, 7);
	pc_answer(1, 0, 8);
	pc_answer(2, 0, 8);
	pc_wait(test, &c->resolved, 3);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, c), 3), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 4);	/* 3 was not kept */
	pc_answer(3, 0, 8);
	pc_wait(test, &c->resolved, 4);
}

/* The clock frees an expired record that nobody looks up again. */
static void pc_reaper(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct cma_pc_stats s0, s1;
	int i;

	cma_pc_read_stats(&s0);
	cma_pc_test_hooks(pc_query, 300);
	pc_keep(test, c, pc_id(test, c), 2, 0);
	pc_keep(test, c, pc_id(test, c), 3, 1);
	/*
	 * Both kept: each is still there or already reaped (a loaded
	 * machine may take longer than the TTL between the two; a CI run
	 * did with 50 ms). No lookup follows, so only the clock expires.
	 */
	cma_pc_read_stats(&s1);
	KUNIT_EXPECT_EQ(test, s1.entries + (s1.expired - s0.expired), 2);
	/* The clock's own delayed work, not a test call. */
	for (i = 0; i < 200 && s1.entries; i++) {
		msleep(25);
		cma_pc_read_stats(&s1);
	}
	KUNIT_EXPECT_EQ(test, s1.entries, 0);
	KUNIT_EXPECT_EQ(test, s1.expired - s0.expired, 2);
	KUNIT_EXPECT_EQ(test, s1.misses - s0.misses, 2);
	KUNIT_EXPECT_EQ(test, s1.hits, s0.hits);
}

/*
 * Waiters with their own deadlines. The first asks with 10 s; one that
 * joins with 50 ms gets ROUTE_ERROR -ETIMEDOUT then; one with the same
 * 10 s waits for the query; one with 20 s is not made to give up when the
 * 10 s query does: its own query takes the key.
 */
static void pc_waiter_deadline(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct pc_ctx *quick = kunit_kzalloc(test, sizeof(*quick), GFP_KERNEL);
	struct pc_ctx *slow = kunit_kzalloc(test, sizeof(*slow), GFP_KERNEL);
	struct rdma_id_private *b = pc_id(test, quick);
	struct cma_pc_stats s0, s1;
	unsigned long t0;

	cma_pc_read_stats(&s0);
	KUNIT_ASSERT_EQ(test, pc_resolve_t(pc_id(test, c), 2, 10000), 0);
	t0 = jiffies;
	KUNIT_ASSERT_EQ(test, pc_resolve_t(b, 2, 50), 0);
	KUNIT_ASSERT_EQ(test, pc_resolve_t(pc_id(test, c), 2, 10000), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 1);
	pc_wait(test, &quick->errors, 1);
	KUNIT_EXPECT_EQ(test, quick->status, -ETIMEDOUT);
	KUNIT_EXPECT_NULL(test, b->query);
	/* Its own 50 ms, not the first asker's 10 s. */
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - t0), 3000);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->resolved) +
			atomic_read(&c->errors), 0);

	KUNIT_ASSERT_EQ(test, pc_resolve_t(pc_id(test, slow), 2, 20000), 0);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 2);
	pc_answer(0, -ETIMEDOUT, 0);
	pc_wait(test, &c->errors, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&slow->resolved) +
			atomic_read(&slow->errors), 0);
	pc_answer(1, 0, 7);
	pc_wait(test, &slow->resolved, 1);
	KUNIT_ASSERT_EQ(test, pc_resolve(pc_id(test, slow), 2), 0);	/* kept */
	pc_wait(test, &slow->resolved, 2);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 2);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&quick->resolved), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&quick->errors), 1);
	cma_pc_read_stats(&s1);
	KUNIT_EXPECT_EQ(test, s1.timed_out - s0.timed_out, 1);
}

/* Send @event (a REJ or a REQ timeout) to connecting @id_priv. */
static void pc_connect_fails(struct kunit *test, struct rdma_id_private *id_priv,
			     enum ib_cm_event_type event)
{
	struct ib_cm_event ev = { .event = event };
	struct ib_cm_id cm_id = { .context = id_priv };

	if (event == IB_CM_REJ_RECEIVED)
		ev.param.rej_rcvd.reason = IB_CM_REJ_INVALID_SERVICE_ID;
	WRITE_ONCE(id_priv->state, RDMA_CM_CONNECT);
	KUNIT_EXPECT_EQ(test, cma_ib_handler(&cm_id, &ev), 0);
}

/*
 * A connect through a cached record fails: the record goes, and the next
 * resolution asks the SA (a remote port that moved is found again).
 */
static void pc_conn_failed(struct kunit *test)
{
	struct pc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rdma_id_private *a = pc_id(test, c), *b = pc_id(test, c);
	struct rdma_id_private *d = pc_id(test, c);
	struct cma_pc_stats s0, s1;
	struct sa_path_rec q;

	cma_pc_read_stats(&s0);
	pc_keep(test, c, a, 2, 0);
	KUNIT_EXPECT_TRUE(test, a->pc_route);
	/* Another service id to the same port: dropped with it. */
	pc_query_rec(&q, 2, 0xffff, 0x20000);
	KUNIT_ASSERT_EQ(test, cma_pc_resolve(b, &q, PC_MASK, 1000), 0);
	pc_answer(1, 0, 11);
	pc_wait(test, &c->resolved, 2);
	pc_keep(test, c, d, 3, 2);		/* another destination: kept */
	cma_pc_read_stats(&s1);
	KUNIT_EXPECT_EQ(test, s1.entries, 3);

	pc_connect_fails(test, a, IB_CM_REJ_RECEIVED);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->errors), 0);
	cma_pc_read_stats(&s1);
	KUNIT_EXPECT_EQ(test, s1.entries, 1);
	KUNIT_EXPECT_EQ(test, s1.failed - s0.failed, 2);
	pc_keep(test, c, pc_id(test, c), 2, 3);	/* asked again */

	/* A REQ that timed out: the same. */
	a = pc_id(test, c);
	KUNIT_ASSERT_EQ(test, pc_resolve(a, 2), 0);	/* a hit */
	pc_wait(test, &c->resolved, 5);
	KUNIT_EXPECT_EQ(test, pc_sa.n, 4);
	KUNIT_EXPECT_TRUE(test, a->pc_route);
	pc_connect_fails(test, a, IB_CM_REQ_ERROR);
	pc_keep(test, c, pc_id(test, c), 2, 4);	/* asked again */

	/* A path the caller set by hand: nothing of the cache goes. */
	a->pc_route = false;
	pc_connect_fails(test, a, IB_CM_REJ_RECEIVED);
	cma_pc_read_stats(&s1);
	KUNIT_EXPECT_EQ(test, s1.entries, 2);
	KUNIT_EXPECT_EQ(test, s1.failed - s0.failed, 3);
}

static struct kunit_case cma_pc_cases[] = {
	KUNIT_CASE(pc_coalesce_then_hit),
	KUNIT_CASE(pc_keys),
	KUNIT_CASE(pc_invalidate),
	KUNIT_CASE(pc_error),
	KUNIT_CASE(pc_cancel),
	KUNIT_CASE(pc_removal_destroy),
	KUNIT_CASE(pc_event_stable),
	KUNIT_CASE(pc_start_fails),
	KUNIT_CASE(pc_ttl),
	KUNIT_CASE(pc_cap_evicts_oldest),
	KUNIT_CASE(pc_cap_per_device),
	KUNIT_CASE(pc_cap_full_uncached),
	KUNIT_CASE(pc_reaper),
	KUNIT_CASE(pc_waiter_deadline),
	KUNIT_CASE(pc_conn_failed),
	{}
};

static struct kunit_suite cma_pc_suite = {
	.name = "rdma_cm_path_cache",
	.init = pc_init,
	.test_cases = cma_pc_cases,
};

kunit_test_suite(cma_pc_suite);

MODULE_DESCRIPTION("KUnit tests of rdma_cm's path record cache");
MODULE_LICENSE("GPL");
