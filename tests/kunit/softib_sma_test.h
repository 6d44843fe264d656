/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SMA test harness shared by softib_sma_kunit.c and
 * softib_fuzz_kunit.c: a softib_dev that is never registered, its port
 * reset by softib_sma_port_init(), and a static stub that catches the port
 * events the SMA raises (and notices one raised under the port lock).
 * Include it after drivers/softib/sma.c (the stub needs softib_sma_event).
 */
#ifndef SOFTIB_SMA_TEST_H
#define SOFTIB_SMA_TEST_H

#include <kunit/static_stub.h>
#include <kunit/test.h>

#define T_NODE_GUID	0x0002c90300a1b2c3ULL
#define T_PORT_GUID	0x0002c90300a1b2c4ULL
#define T_MKEY		0x1122334455667788ULL

struct t_sma {
	struct softib_dev *sdev;
	struct softib_port *port;
	enum ib_event_type ev[32];
	unsigned int nev;
	bool ev_locked;			/* an event came with rvp.lock held */
	int res;			/* the last IB_MAD_RESULT_* */
	struct ib_mad out;		/* the last reply */
};

static inline void t_event(struct softib_port *port, enum ib_event_type type)
{
	struct kunit *test = kunit_get_current_test();
	struct t_sma *t = test->priv;

	/* single-threaded: a failed trylock means the driver holds it */
	if (spin_trylock(&port->rvp.lock))
		spin_unlock(&port->rvp.lock);
	else
		t->ev_locked = true;
	if (t->nev < ARRAY_SIZE(t->ev))
		t->ev[t->nev++] = type;
}

/* A trap the test raised must not outlive it (its work is on system_wq). */
static inline void t_trap_stop(void *port)
{
	softib_trap_stop(port);
}

static inline int t_init(struct kunit *test)
{
	struct t_sma *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->sdev = kunit_kzalloc(test, sizeof(*t->sdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->sdev);
	t->port = &t->sdev->port;
	t->port->sdev = t->sdev;
	t->port->guids[0] = cpu_to_be64(T_PORT_GUID);
	t->sdev->rdi.ibdev.node_guid = cpu_to_be64(T_NODE_GUID);
	strscpy(t->sdev->rdi.ibdev.node_desc, "softib test node",
		sizeof(t->sdev->rdi.ibdev.node_desc));
	softib_sma_port_init(t->port);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, t_trap_stop,
							t->port), 0);
	test->priv = t;
	kunit_activate_static_stub(test, softib_sma_event, t_event);
	return 0;
}

static inline void t_exit(struct kunit *test)
{
	struct t_sma *t = test->priv;

	/* events leave the driver with the port lock dropped, always */
	KUNIT_EXPECT_FALSE(test, t->ev_locked);
}

#endif /* SOFTIB_SMA_TEST_H */
