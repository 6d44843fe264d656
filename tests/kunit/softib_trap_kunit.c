// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the traps of the softib SMA (drivers/softib/sma.c): the
 * SubnTrap(Notice) SMP octet by octet (IBA vol 1 14.2.5.1), when a trap is
 * raised and when not (no LID, no SM LID, link down), the resends and
 * their end (a SubnTrapRepress of the trap's TID, or the last send), and
 * the counters. sma.c is compiled into this module; two static stubs
 * catch the work's scheduling and the post to ib_mad, so the tests run
 * the work themselves (softib_trap_run()) and see every SMP that would
 * leave.
 */
#include "drivers/softib/sma.c"
#include "drivers/softib/pma.c"

#include <kunit/test.h>
#include <linux/module.h>

#include "softib_sma_test.h"

#define T_LID		0x1234
#define T_SM_LID	0x0042
#define T_SM_SL		5
#define T_CAPS		0x0251084aU

/* What the stubs saw; one test runs at a time. */
struct t_trap {
	unsigned int kicks;
	unsigned long delay;		/* of the last kick */
	unsigned int posts;
	struct ib_smp smp;		/* the last one posted */
	u16 dlid;
	u8 sl;
};

static struct t_trap *t_cur;

static void t_kick(struct softib_port *port, unsigned long delay)
{
	lockdep_assert_held(&port->trap.lock);
	t_cur->kicks++;
	t_cur->delay = delay;
}

static int t_post(struct softib_port *port, struct ib_mad_agent *agent,
		  const struct ib_smp *smp, u16 dlid, u8 sl)
{
	/* the post runs with no lock of the port held */
	if (spin_trylock(&port->trap.lock))
		spin_unlock(&port->trap.lock);
	else
		KUNIT_FAIL(kunit_get_current_test(), "posted under trap.lock");
	KUNIT_EXPECT_NULL(kunit_get_current_test(), agent);
	t_cur->posts++;
	t_cur->smp = *smp;
	t_cur->dlid = dlid;
	t_cur->sl = sl;
	return 0;
}

static void t_cur_clear(void *unused)
{
	t_cur = NULL;
}

/* A port an SM configured: LID, SM LID and SL, subnet timeout 18 (~1 s). */
static void t_port_managed(struct softib_port *port, u8 state)
{
	unsigned long flags;

	spin_lock_irqsave(&port->rvp.lock, flags);
	port->lid = T_LID;
	port->rvp.sm_lid = T_SM_LID;
	port->rvp.sm_sl = T_SM_SL;
	port->rvp.subnet_timeout = 18;
	port->rvp.port_cap_flags = T_CAPS;
	port->rvp.mkey = cpu_to_be64(T_MKEY);
	port->carrier = state != IB_PORT_DOWN;
	port->phys_state = state != IB_PORT_DOWN ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_POLLING;
	port->state = state;
	spin_unlock_irqrestore(&port->rvp.lock, flags);
}

static int t_trap_init(struct kunit *test)
{
	struct t_sma *t;
	int ret;

	ret = t_init(test);
	if (ret)
		return ret;
	t = test->priv;
	t_cur = kunit_kzalloc(test, sizeof(*t_cur), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t_cur);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, t_cur_clear,
							NULL), 0);
	kunit_activate_static_stub(test, softib_trap_kick, t_kick);
	kunit_activate_static_stub(test, softib_trap_post, t_post);
	t_port_managed(t->port, IB_PORT_ACTIVE);
	return 0;
}

static struct softib_trap_stats t_stats(struct kunit *test, bool *pending)
{
	struct t_sma *t = test->priv;
	struct softib_trap_stats st;
	bool p;

	softib_trap_stats(t->port, &st, pending ?: &p);
	return st;
}

/* A SubnTrapRepress from the SM as opensm answers: the trap's header. */
static int t_repress(struct kunit *test, __be64 tid)
{
	struct t_sma *t = test->priv;
	struct ib_smp *in = kunit_kzalloc(test, sizeof(struct ib_mad),
					  GFP_KERNEL);
	struct ib_wc wc = { .port_num = 1 };
	size_t size = sizeof(struct ib_mad);
	u16 pkey_index = 0;

	KUNIT_ASSERT_NOT_NULL(test, in);
	*in = t_cur->smp;
	in->method = IB_MGMT_METHOD_TRAP_REPRESS;
	in->tid = tid;
	return softib_process_mad(&t->sdev->rdi.ibdev, 0, 1, &wc, NULL,
				  (struct ib_mad *)in, &t->out, &size,
				  &pkey_index);
}

/* ---- the Notice ---------------------------------------------------------- */

struct t_enc_case {
	const char *name;
	u16 number;
	u8 type;			/* octet 0: IsGeneric and Type */
};

static const struct t_enc_case t_enc_cases[] = {
	{ "trap 128 link state", 128, 0x81 },	/* generic, urgent */
	{ "trap 144 capability mask", 144, 0x84 }, /* generic, informational */
};

KUNIT_ARRAY_PARAM_DESC(t_enc, t_enc_cases, name);

/* Every octet of the SMP, at the offsets of IBA 13.4.3 and 14.2.5.1. */
static void trap_encoding(struct kunit *test)
{
	const struct t_enc_case *c = test->param_value;
	struct t_sma *t = test->priv;
	const u8 *m, *d;
	unsigned int i;

	softib_trap_raise(t->port, c->number);
	KUNIT_ASSERT_EQ(test, t_cur->kicks, 1);
	KUNIT_EXPECT_EQ(test, t_cur->delay, 0);	/* sent at once */
	softib_trap_run(t->port);
	KUNIT_ASSERT_EQ(test, t_cur->posts, 1);
	KUNIT_EXPECT_EQ(test, t_cur->dlid, T_SM_LID);
	KUNIT_EXPECT_EQ(test, t_cur->sl, T_SM_SL);
	m = (const u8 *)&t_cur->smp;
	d = m + 64;
	/* MAD header */
	KUNIT_EXPECT_EQ(test, m[0], 1);		/* BaseVersion */
	KUNIT_EXPECT_EQ(test, m[1], 0x01);	/* MgmtClass: LID routed */
	KUNIT_EXPECT_EQ(test, m[2], 1);		/* ClassVersion */
	KUNIT_EXPECT_EQ(test, m[3], 0x05);	/* Method: SubnTrap */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(m + 4), 0); /* Status */
	KUNIT_EXPECT_EQ(test, m[6], 0);		/* HopPointer */
	KUNIT_EXPECT_EQ(test, m[7], 0);		/* HopCount */
	/* TransactionID: ib_mad's hi_tid (no agent here: 0), then 1, 2... */
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(m + 8), 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(m + 16), 0x0002); /* Notice */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(m + 18), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(m + 20), 0); /* AttrMod */
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(m + 24), T_MKEY);
	/* DrSLID, DrDLID, reserved: 0 in a LID-routed SMP */
	for (i = 32; i < 64; i++)
		KUNIT_EXPECT_EQ_MSG(test, m[i], 0, "header octet %u", i);
	/* Notice */
	KUNIT_EXPECT_EQ(test, d[0], c->type);
	KUNIT_EXPECT_EQ(test, get_unaligned_be24(d + 1), 1); /* producer CA */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 4), c->number);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 6), T_LID); /* Issuer */
	/* NoticeToggle, NoticeCount: 0 in a trap */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 8), 0);
	if (c->number == 128) {
		KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 10), T_LID);
		for (i = 12; i < 64; i++)
			KUNIT_EXPECT_EQ_MSG(test, d[i], 0, "octet %u", i);
	} else {
		KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 10), 0);
		KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 12), T_LID);
		KUNIT_EXPECT_EQ(test, d[14], 0);
		KUNIT_EXPECT_EQ(test, d[15], 0);	/* no other changes */
		KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 16), T_CAPS);
		KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 20), 0); /* flags */
		KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 22), 0); /* mask2 */
		for (i = 24; i < 64; i++)
			KUNIT_EXPECT_EQ_MSG(test, d[i], 0, "octet %u", i);
	}
	KUNIT_EXPECT_EQ(test, t_stats(test, NULL).sent, 1);
}

/* ---- when a trap goes, and when not ------------------------------------- */

struct t_gate_case {
	const char *name;
	u16 lid;
	u16 sm_lid;
	u8 state;
	bool sent;
};

static const struct t_gate_case t_gate_cases[] = {
	{ "active", T_LID, T_SM_LID, IB_PORT_ACTIVE, true },
	{ "armed", T_LID, T_SM_LID, IB_PORT_ARMED, true },
	{ "init (link up, before the SM)", T_LID, T_SM_LID, IB_PORT_INIT,
	  true },
	{ "no sm lid", T_LID, 0, IB_PORT_ACTIVE, false },
	{ "no lid", 0, T_SM_LID, IB_PORT_INIT, false },
	{ "link down", T_LID, T_SM_LID, IB_PORT_DOWN, false },
};

KUNIT_ARRAY_PARAM_DESC(t_gate, t_gate_cases, name);

static void trap_gate(struct kunit *test)
{
	const struct t_gate_case *c = test->param_value;
	struct t_sma *t = test->priv;
	struct softib_trap_stats st;
	bool pending;

	t_port_managed(t->port, c->state);
	t->port->lid = c->lid;
	t->port->rvp.sm_lid = c->sm_lid;
	softib_trap_raise(t->port, 144);
	softib_trap_run(t->port);
	st = t_stats(test, &pending);
	KUNIT_EXPECT_EQ(test, t_cur->posts, c->sent ? 1 : 0);
	KUNIT_EXPECT_EQ(test, t_cur->kicks, c->sent ? 2 : 0);
	KUNIT_EXPECT_EQ(test, pending, c->sent);
	KUNIT_EXPECT_EQ(test, st.sent, c->sent ? 1 : 0);
	KUNIT_EXPECT_EQ(test, st.dropped, c->sent ? 0 : 1);
}

/* The SM LID went while the trap waited: the next resend is dropped. */
static void trap_sm_gone(struct kunit *test)
{
	struct t_sma *t = test->priv;
	bool pending;

	softib_trap_raise(t->port, 128);
	softib_trap_run(t->port);
	t->port->rvp.sm_lid = 0;
	softib_trap_run(t->port);
	KUNIT_EXPECT_EQ(test, t_cur->posts, 1);
	KUNIT_EXPECT_EQ(test, t_stats(test, &pending).dropped, 1);
	KUNIT_EXPECT_FALSE(test, pending);
}

/* ---- resends and their end ---------------------------------------------- */

/* A wrong TID changes nothing; the trap's own stops the resends. */
static void trap_repress(struct kunit *test)
{
	struct t_sma *t = test->priv;
	struct softib_trap_stats st;
	__be64 tid;
	bool pending;
	int res;

	softib_trap_raise(t->port, 128);
	softib_trap_run(t->port);
	KUNIT_ASSERT_EQ(test, t_cur->posts, 1);
	/* the resend in 4.096 us << 18 = 1.07 s */
	KUNIT_EXPECT_EQ(test, t_cur->delay, msecs_to_jiffies(1073));
	tid = t_cur->smp.tid;

	res = t_repress(test, cpu_to_be64(be64_to_cpu(tid) + 1));
	KUNIT_EXPECT_EQ(test, res,
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED);
	st = t_stats(test, &pending);
	KUNIT_EXPECT_EQ(test, st.stale, 1);
	KUNIT_EXPECT_EQ(test, st.repressed, 0);
	KUNIT_EXPECT_TRUE(test, pending);
	softib_trap_run(t->port);
	KUNIT_EXPECT_EQ(test, t_cur->posts, 2);		/* resent */
	KUNIT_EXPECT_EQ(test, t_cur->smp.tid, tid);	/* the same TID */

	res = t_repress(test, tid);
	KUNIT_EXPECT_EQ(test, res,
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED);
	st = t_stats(test, &pending);
	KUNIT_EXPECT_EQ(test, st.repressed, 1);
	KUNIT_EXPECT_FALSE(test, pending);
	softib_trap_run(t->port);			/* the queued resend */
	KUNIT_EXPECT_EQ(test, t_cur->posts, 2);
	/* a second repress of it matches nothing any more */
	t_repress(test, tid);
	st = t_stats(test, NULL);
	KUNIT_EXPECT_EQ(test, st.stale, 2);
	KUNIT_EXPECT_EQ(test, st.repressed, 1);
	KUNIT_EXPECT_EQ(test, st.sent, 2);
	KUNIT_EXPECT_EQ(test, st.timed_out, 0);
}

/* A repress with the wrong M_Key is refused before it is matched. */
static void trap_repress_mkey(struct kunit *test)
{
	struct t_sma *t = test->priv;
	bool pending;

	t->port->rvp.mkeyprot = 1;
	softib_trap_raise(t->port, 128);
	softib_trap_run(t->port);
	t_cur->smp.mkey = cpu_to_be64(T_MKEY + 1);
	t_repress(test, t_cur->smp.tid);
	KUNIT_EXPECT_EQ(test, t_stats(test, &pending).repressed, 0);
	KUNIT_EXPECT_TRUE(test, pending);
	KUNIT_EXPECT_EQ(test, t->port->rvp.mkey_violations, 1);
}

/* Unanswered: SOFTIB_TRAP_SENDS sends, then the trap is given up. */
static void trap_timeout(struct kunit *test)
{
	struct t_sma *t = test->priv;
	struct softib_trap_stats st;
	unsigned int i;
	bool pending;

	softib_trap_raise(t->port, 128);
	for (i = 0; i < SOFTIB_TRAP_SENDS + 3; i++)
		softib_trap_run(t->port);
	st = t_stats(test, &pending);
	KUNIT_EXPECT_EQ(test, t_cur->posts, SOFTIB_TRAP_SENDS);
	KUNIT_EXPECT_EQ(test, st.sent, SOFTIB_TRAP_SENDS);
	KUNIT_EXPECT_EQ(test, st.timed_out, 1);
	KUNIT_EXPECT_FALSE(test, pending);
	/* raise + one kick per send; none after the last */
	KUNIT_EXPECT_EQ(test, t_cur->kicks, 1 + SOFTIB_TRAP_SENDS);
}

/* A newer trap takes the slot, with a new TID. */
static void trap_replaced(struct kunit *test)
{
	struct t_sma *t = test->priv;
	__be64 tid;

	softib_trap_raise(t->port, 128);
	softib_trap_run(t->port);
	tid = t_cur->smp.tid;
	softib_trap_raise(t->port, 144);
	softib_trap_run(t->port);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&t_cur->smp.data[4]), 144);
	KUNIT_EXPECT_NE(test, t_cur->smp.tid, tid);
	KUNIT_EXPECT_EQ(test, t_stats(test, NULL).replaced, 1);
	/* the old TID represses nothing */
	t_repress(test, tid);
	KUNIT_EXPECT_EQ(test, t_stats(test, NULL).stale, 1);
}

/* Stopped (device removal): nothing is queued or sent any more. */
static void trap_stopped(struct kunit *test)
{
	struct t_sma *t = test->priv;
	bool pending;

	softib_trap_raise(t->port, 128);
	softib_trap_stop(t->port);
	softib_trap_run(t->port);
	softib_trap_raise(t->port, 144);
	KUNIT_EXPECT_EQ(test, t_cur->posts, 0);
	KUNIT_EXPECT_EQ(test, t_cur->kicks, 1);
	t_stats(test, &pending);
	KUNIT_EXPECT_FALSE(test, pending);
}

/* ---- what raises them ----------------------------------------------------- */

/* The carrier back (DOWN -> INIT): trap 128. Going down: none. */
static void trap_link_change(struct kunit *test)
{
	struct t_sma *t = test->priv;

	softib_sma_link_change(t->port, false);
	KUNIT_EXPECT_EQ(test, t->port->state, IB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, t_cur->kicks, 0);
	softib_sma_link_change(t->port, true);
	KUNIT_EXPECT_EQ(test, t->port->state, IB_PORT_INIT);
	KUNIT_ASSERT_EQ(test, t_cur->kicks, 1);
	softib_trap_run(t->port);
	KUNIT_ASSERT_EQ(test, t_cur->posts, 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&t_cur->smp.data[4]), 128);
	/* a carrier event that changes nothing raises nothing */
	softib_sma_link_change(t->port, true);
	KUNIT_EXPECT_EQ(test, t_cur->kicks, 2);	/* only the resend's */
}

/* ib_modify_port changed the CapabilityMask: trap 144 with the new one. */
static void trap_cap_mask(struct kunit *test)
{
	struct t_sma *t = test->priv;

	t->port->rvp.port_cap_flags |= IB_PORT_SM;
	softib_sma_cap_mask_chg(t->port);
	softib_trap_run(t->port);
	KUNIT_ASSERT_EQ(test, t_cur->posts, 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&t_cur->smp.data[4]), 144);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&t_cur->smp.data[16]),
			T_CAPS | IB_PORT_SM);
	/* the same mask again (rdmavt calls for any named bit): no trap */
	softib_sma_cap_mask_chg(t->port);
	KUNIT_EXPECT_EQ(test, t_cur->kicks, 2);	/* the raise's, the resend's */
	KUNIT_EXPECT_EQ(test, t_stats(test, NULL).replaced, 0);
}

static struct kunit_case softib_trap_cases[] = {
	KUNIT_CASE_PARAM(trap_encoding, t_enc_gen_params),
	KUNIT_CASE_PARAM(trap_gate, t_gate_gen_params),
	KUNIT_CASE(trap_sm_gone),
	KUNIT_CASE(trap_repress),
	KUNIT_CASE(trap_repress_mkey),
	KUNIT_CASE(trap_timeout),
	KUNIT_CASE(trap_replaced),
	KUNIT_CASE(trap_stopped),
	KUNIT_CASE(trap_link_change),
	KUNIT_CASE(trap_cap_mask),
	{}
};

static struct kunit_suite softib_trap_suite = {
	.name = "softib_trap",
	.init = t_trap_init,
	.exit = t_exit,
	.test_cases = softib_trap_cases,
};

kunit_test_suite(softib_trap_suite);

MODULE_DESCRIPTION("KUnit tests for the traps of the softib SMA");
MODULE_LICENSE("GPL");
