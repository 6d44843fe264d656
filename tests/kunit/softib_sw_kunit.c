// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for softib's switch node (drivers/softib/sw*.c), compiled
 * into this module on a switch that is never made visible (no sysfs, no
 * netdevs): packets go in through softib_sw_rcv() as the receive path hands
 * them over, and what the switch sends out of a port is caught by a static
 * stub of sw_xmit(). Directed-route SMPs are checked against every branch
 * of IBA vol 1 C14-9 and C14-13 that a switch takes; the SMA's attributes
 * at the octet offsets of 14.2.5; the LFT and MFT data path; forwarding
 * loops, which the hop count in the BTH ends; node_desc writes of any
 * length; a netdev claimed by a CA (even one not yet live) refused to a
 * port and the other way round; and a fuzzer feeds mutated frames, each of
 * which must be forwarded or counted.
 */
#include "drivers/softib/sma.c"
#include "drivers/softib/pma.c"
#include "drivers/softib/sw.c"
#include "drivers/softib/sw_sma.c"
#include "drivers/softib/sw_fwd.c"

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prandom.h>

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define T_PORTS		8
#define T_SMP_BYTES	(SW_SMP_BYTES)
#define T_DATA_BYTES	(SW_SMP_HDR + 64 + SOFTIB_ICRC_BYTES)
#define T_MAX_OUT	16

struct t_sw {
	struct softib_sw *sw;
	unsigned int nout;
	u8 out[T_MAX_OUT];		/* the ports packets left by */
	u8 pkt[T_MAX_OUT][T_SMP_BYTES];	/* their first bytes */
	/* t_loop(): packets sent are queued here (cb[0]: the port) */
	bool keep;
	struct sk_buff_head sent;
};

static void t_xmit(struct softib_sw_port *from, struct softib_sw_port *q,
		   struct sk_buff *skb, bool vl15)
{
	struct t_sw *t = kunit_get_current_test()->priv;
	u8 state = READ_ONCE(q->state);

	/* the real one's port-state rule, without a netdev */
	if (state == IB_PORT_DOWN || (!vl15 && state != IB_PORT_ACTIVE)) {
		softib_sw_drop(from, SOFTIB_SW_DROP_STATE);
	} else if (t->keep) {
		skb->cb[0] = q->num;
		skb_queue_tail(&t->sent, skb);
		return;
	} else if (t->nout < T_MAX_OUT) {
		t->out[t->nout] = q->num;
		memcpy(t->pkt[t->nout], skb->data,
		       min_t(unsigned int, skb->len, T_SMP_BYTES));
		t->nout++;
	}
	kfree_skb(skb);
}

static void t_free(void *sw)
{
	softib_sw_free(sw);
}

static int t_init(struct kunit *test)
{
	struct t_sw *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->sw = softib_sw_alloc(T_PORTS, 7);
	KUNIT_ASSERT_NOT_NULL(test, t->sw);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, t_free, t->sw),
			0);
	for (i = 1; i <= T_PORTS; i++) {
		t->sw->port[i].state = IB_PORT_ACTIVE;
		t->sw->port[i].carrier = true;
		t->sw->port[i].phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	}
	skb_queue_head_init(&t->sent);
	test->priv = t;
	kunit_activate_static_stub(test, sw_xmit, t_xmit);
	return 0;
}

static void t_exit(struct kunit *test)
{
	struct t_sw *t = test->priv;

	skb_queue_purge(&t->sent);
}

static u64 t_drops(struct t_sw *t, enum softib_sw_drop why)
{
	u64 n = 0;
	unsigned int i;

	for (i = 1; i <= T_PORTS; i++)
		n += atomic64_read(&t->sw->port[i].drops[why]);
	return n;
}

static u64 t_all_drops(struct t_sw *t)
{
	u64 n = 0;
	unsigned int r;

	for (r = 0; r < SOFTIB_SW_DROP_NR; r++)
		n += t_drops(t, r);
	return n;
}

/*
 * A UD SEND ONLY packet of bytes (headers through ICRC): LRH (vl, no GRH),
 * BTH (P_Key 0xffff, dqpn), a zero DETH, the payload (zero, or pay).
 */
static struct sk_buff *t_skb(struct kunit *test, u8 vl, u16 dlid, u16 slid,
			     unsigned int bytes, u32 dqpn, const void *pay,
			     unsigned int pay_len)
{
	struct sk_buff *skb = alloc_skb(bytes + 64, GFP_KERNEL);
	u8 *p;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 32);
	p = skb_put_zero(skb, bytes);
	p[0] = vl << 4;
	p[1] = SOFTIB_LNH_LOCAL;
	put_unaligned_be16(dlid, p + 2);
	put_unaligned_be16(bytes / 4, p + 4);
	put_unaligned_be16(slid, p + 6);
	p[8] = SOFTIB_OP_UD_SEND_ONLY;
	put_unaligned_be16(0xffff, p + 10);
	put_unaligned_be32(dqpn, p + 12);
	if (pay)
		memcpy(p + SW_SMP_HDR, pay, pay_len);
	softib_icrc_set(p, bytes - SOFTIB_ICRC_BYTES);
	return skb;
}

/* An SMP packet: VL15, to QP0, one MAD. */
static struct sk_buff *t_smp_skb(struct kunit *test, u16 dlid, u16 slid,
				 const struct ib_smp *smp)
{
	return t_skb(test, 15, dlid, slid, T_SMP_BYTES, 0, smp, sizeof(*smp));
}

/* A UD data packet of 64 bytes from slid to dlid on VL0. */
static struct sk_buff *t_data_skb(struct kunit *test, u16 dlid, u16 slid)
{
	return t_skb(test, 0, dlid, slid, T_DATA_BYTES,
		     softib_lid_is_mcast(dlid) ? SOFTIB_QPN_MCAST : 5, NULL, 0);
}

static void t_dr_smp(struct ib_smp *smp, u8 method, __be16 attr, u8 hc,
		     u8 hp)
{
	memset(smp, 0, sizeof(*smp));
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	smp->class_version = 1;
	smp->method = method;
	smp->attr_id = attr;
	smp->hop_cnt = hc;
	smp->hop_ptr = hp;
	smp->dr_slid = IB_LID_PERMISSIVE;
	smp->dr_dlid = IB_LID_PERMISSIVE;
}

static struct ib_smp *t_out_smp(struct t_sw *t, unsigned int i)
{
	return (struct ib_smp *)(t->pkt[i] + SW_SMP_HDR);
}

static void t_rcv(struct t_sw *t, unsigned int port, struct sk_buff *skb)
{
	rcu_read_lock();
	softib_sw_rcv(&t->sw->port[port], skb);
	rcu_read_unlock();
}

/* C14-9:3: the switch is the end of the path; its SMA answers. */
static void sw_dr_to_switch(struct kunit *test)
{
	struct t_sw *t = test->priv;
	struct ib_smp smp, *r;
	const u8 *ni;

	t_dr_smp(&smp, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 1, 1);
	smp.initial_path[1] = 1;
	t_rcv(t, 3, t_smp_skb(test, 0xffff, 0xffff, &smp));
	KUNIT_ASSERT_EQ(test, t->nout, 1U);
	KUNIT_EXPECT_EQ(test, t->out[0], 3);
	r = t_out_smp(t, 0);
	KUNIT_EXPECT_EQ(test, r->method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, r->status, IB_SMP_DIRECTION);
	KUNIT_EXPECT_EQ(test, r->hop_ptr, 1);
	KUNIT_EXPECT_EQ(test, r->return_path[1], 3);
	ni = r->data;
	KUNIT_EXPECT_EQ(test, ni[2], RDMA_NODE_IB_SWITCH);	/* NodeType */
	KUNIT_EXPECT_EQ(test, ni[3], T_PORTS);			/* NumPorts */
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(ni + 12),
			be64_to_cpu(t->sw->guid));		/* NodeGUID */
	KUNIT_EXPECT_EQ(test, ni[36], 3);			/* LocalPortNum */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t->pkt[0] + 2), 0xffff);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t->pkt[0] + 6), 0xffff);
	KUNIT_EXPECT_TRUE(test, softib_icrc_ok(t->pkt[0], T_SMP_BYTES));
}

/* C14-9:2 and C14-13:2: relayed on, out and back, with a fresh ICRC. */
static void sw_dr_relay(struct kunit *test)
{
	struct t_sw *t = test->priv;
	struct ib_smp smp, *r;

	t_dr_smp(&smp, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 3, 1);
	smp.initial_path[1] = 1;
	smp.initial_path[2] = 5;
	smp.initial_path[3] = 1;
	t_rcv(t, 2, t_smp_skb(test, 0xffff, 0xffff, &smp));
	KUNIT_ASSERT_EQ(test, t->nout, 1U);
	KUNIT_EXPECT_EQ(test, t->out[0], 5);
	r = t_out_smp(t, 0);
	KUNIT_EXPECT_EQ(test, r->hop_ptr, 2);
	KUNIT_EXPECT_EQ(test, r->return_path[1], 2);
	KUNIT_EXPECT_EQ(test, r->method, IB_MGMT_METHOD_GET);
	KUNIT_EXPECT_TRUE(test, softib_icrc_ok(t->pkt[0], T_SMP_BYTES));

	/* the answer from the far end comes back with hp == hc - 1 + 1 */
	t_dr_smp(&smp, IB_MGMT_METHOD_GET_RESP, IB_SMP_ATTR_NODE_INFO, 3, 2);
	smp.status = IB_SMP_DIRECTION;
	smp.return_path[1] = 2;
	t_rcv(t, 5, t_smp_skb(test, 0xffff, 0xffff, &smp));
	KUNIT_ASSERT_EQ(test, t->nout, 2U);
	KUNIT_EXPECT_EQ(test, t->out[1], 2);
	KUNIT_EXPECT_EQ(test, t_out_smp(t, 1)->hop_ptr, 1);
	KUNIT_EXPECT_TRUE(test, softib_icrc_ok(t->pkt[1], T_SMP_BYTES));
}

/* SMPs a switch must discard (C14-6, C14-9:5, C14-13:3/5), and bad ones. */
struct t_dr_bad {
	const char *name;
	u8 hc, hp;
	bool returning;
	u8 next;		/* initial_path[hp + 1] or return_path[hp - 1] */
	bool dlid_not_permissive, bad_icrc;
};

static const struct t_dr_bad t_dr_bads[] = {
	{ "hop pointer 0", 1, 0, false, 1 },
	{ "hop count 64", 64, 1, false, 1 },
	{ "hop pointer past the count", 2, 4, false, 1 },
	{ "next port 0", 2, 1, false, 0 },
	{ "next port past the switch", 2, 1, false, T_PORTS + 1 },
	{ "returning to an SM here", 2, 1, true, 1 },
	{ "returning, hop pointer past the count", 2, 3, true, 1 },
	{ "returning to port 0", 2, 2, true, 0 },
	{ "LID-routed tail", 1, 1, false, 1, true },
	{ "bad ICRC", 1, 1, false, 1, false, true },
};

static void t_dr_bad_desc(const struct t_dr_bad *b, char *desc)
{
	strscpy(desc, b->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_dr_bad, t_dr_bads, t_dr_bad_desc);

static void sw_dr_discard(struct kunit *test)
{
	const struct t_dr_bad *b = test->param_value;
	struct t_sw *t = test->priv;
	struct ib_smp smp;
	struct sk_buff *skb;

	t_dr_smp(&smp, b->returning ? IB_MGMT_METHOD_GET_RESP :
		 IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, b->hc, b->hp);
	if (b->returning) {
		smp.status = IB_SMP_DIRECTION;
		if (b->hp >= 1 && b->hp <= IB_SMP_MAX_PATH_HOPS)
			smp.return_path[b->hp - 1] = b->next;
	} else if (b->hp + 1 < IB_SMP_MAX_PATH_HOPS) {
		smp.initial_path[b->hp + 1] = b->next;
	}
	if (b->dlid_not_permissive)
		smp.dr_dlid = cpu_to_be16(9);
	skb = t_smp_skb(test, 0xffff, 0xffff, &smp);
	if (b->bad_icrc)
		skb->data[T_SMP_BYTES - 1] ^= 1;
	t_rcv(t, 2, skb);
	KUNIT_EXPECT_EQ(test, t->nout, 0U);
	KUNIT_EXPECT_EQ(test, t_drops(t, SOFTIB_SW_DROP_SMP) +
			t_drops(t, SOFTIB_SW_DROP_ICRC), 1ULL);
}

/* One SMP to the SMA (directed route, one hop, in on port 1). */
static u16 t_sma(struct kunit *test, u8 method, __be16 attr, u32 mod,
		 const u8 *data, u8 *reply)
{
	struct t_sw *t = test->priv;
	struct ib_smp smp;
	unsigned int n = t->nout;

	t_dr_smp(&smp, method, attr, 1, 1);
	smp.attr_mod = cpu_to_be32(mod);
	if (data)
		memcpy(smp.data, data, IB_SMP_DATA_SIZE);
	t_rcv(t, 1, t_smp_skb(test, 0xffff, 0xffff, &smp));
	KUNIT_ASSERT_EQ(test, t->nout, n + 1);
	if (reply)
		memcpy(reply, t_out_smp(t, n)->data, IB_SMP_DATA_SIZE);
	t->nout = 0;
	return be16_to_cpu(t_out_smp(t, n)->status) & 0x7fff;
}

static void sw_sma_switch_info(struct kunit *test)
{
	struct t_sw *t = test->priv;
	u8 d[IB_SMP_DATA_SIZE], r[IB_SMP_DATA_SIZE];

	KUNIT_ASSERT_EQ(test, t_sma(test, IB_MGMT_METHOD_GET,
				    IB_SMP_ATTR_SWITCH_INFO, 0, NULL, r), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(r + 0), SOFTIB_SW_LFT_CAP);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(r + 4), SOFTIB_SW_MFT_CAP);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(r + 6), 0);
	KUNIT_EXPECT_EQ(test, r[16] & 0x08, 0);	/* no EnhancedPort0 */

	/* LinearFDBTop and LifeTimeValue are the SM's; PSC clears on 1 */
	t->sw->psc = true;
	memcpy(d, r, sizeof(d));
	put_unaligned_be16(40, d + 6);
	d[11] = 0x12 << 3;		/* PSC written 0: stays */
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_SWITCH_INFO, 0, d, r), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(r + 6), 40);
	KUNIT_EXPECT_EQ(test, r[11], 0x12 << 3 | 0x04);
	d[11] |= 0x04;
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_SWITCH_INFO, 0, d, r), 0);
	KUNIT_EXPECT_EQ(test, r[11] & 0x04, 0);
	KUNIT_EXPECT_FALSE(test, t->sw->psc);

	/* a top at or past the capacity: refused, nothing changed */
	put_unaligned_be16(SOFTIB_SW_LFT_CAP, d + 6);
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_SWITCH_INFO, 0, d, r),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(r + 6), 40);
}

static void sw_sma_port_info(struct kunit *test)
{
	struct t_sw *t = test->priv;
	u8 d[IB_SMP_DATA_SIZE], r[IB_SMP_DATA_SIZE];

	/* port 0: the LID lives here, and it always reads ACTIVE */
	KUNIT_ASSERT_EQ(test, t_sma(test, IB_MGMT_METHOD_GET,
				    IB_SMP_ATTR_PORT_INFO, 0, NULL, r), 0);
	KUNIT_EXPECT_EQ(test, r[32] & 0xf, IB_PORT_ACTIVE);
	memcpy(d, r, sizeof(d));
	put_unaligned_be16(0x21, d + 16);	/* LID */
	put_unaligned_be16(0x1, d + 18);	/* MasterSMLID */
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_PORT_INFO, 0, d, r), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(r + 16), 0x21);
	KUNIT_EXPECT_EQ(test, t->sw->lid, 0x21);

	/* an external port: a LID set there is ignored; INIT -> ARMED only */
	t->sw->port[4].state = IB_PORT_INIT;
	KUNIT_ASSERT_EQ(test, t_sma(test, IB_MGMT_METHOD_GET,
				    IB_SMP_ATTR_PORT_INFO, 4, NULL, r), 0);
	KUNIT_EXPECT_EQ(test, r[32] & 0xf, IB_PORT_INIT);
	KUNIT_EXPECT_EQ(test, r[28], 1);	/* LocalPortNum: the arrival */
	memcpy(d, r, sizeof(d));
	put_unaligned_be16(0x99, d + 16);
	d[32] = (d[32] & 0xf0) | IB_PORT_ACTIVE;
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_PORT_INFO, 4, d, r),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	KUNIT_EXPECT_EQ(test, t->sw->port[4].state, IB_PORT_INIT);
	d[32] = (d[32] & 0xf0) | IB_PORT_ARMED;
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_PORT_INFO, 4, d, r), 0);
	KUNIT_EXPECT_EQ(test, t->sw->port[4].state, IB_PORT_ARMED);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(r + 16), 0);
	KUNIT_EXPECT_EQ(test, t->sw->lid, 0x21);
	/* DOWN retrains: with its carrier the port comes back to INIT */
	d[32] = (d[32] & 0xf0) | IB_PORT_DOWN;
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_PORT_INFO, 4, d, r), 0);
	KUNIT_EXPECT_EQ(test, t->sw->port[4].state, IB_PORT_INIT);
	KUNIT_EXPECT_FALSE(test, t->sw->psc);	/* a Set never sets PSC */

	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_GET,
				    IB_SMP_ATTR_PORT_INFO, T_PORTS + 1, NULL,
				    r), IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
}

static void sw_sma_fdb(struct kunit *test)
{
	struct t_sw *t = test->priv;
	u8 d[IB_SMP_DATA_SIZE], r[IB_SMP_DATA_SIZE];
	unsigned int i;

	/* LFT block 1: LIDs 64..127 */
	for (i = 0; i < sizeof(d); i++)
		d[i] = i % (T_PORTS + 1);
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_LINEAR_FORWARD_TABLE, 1, d, r),
			0);
	KUNIT_EXPECT_MEMEQ(test, r, d, sizeof(d));
	KUNIT_EXPECT_EQ(test, t->sw->lft[64 + 5], 5);
	KUNIT_EXPECT_EQ(test, t->sw->lft[5], SOFTIB_SW_LFT_NONE);
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_GET,
				    IB_SMP_ATTR_LINEAR_FORWARD_TABLE,
				    SOFTIB_SW_LFT_CAP / 64, NULL, r),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);

	/* MFT block 2, position 0: MLID 0xc040 gets ports 1, 3, 9 (none) */
	memset(d, 0, sizeof(d));
	put_unaligned_be16(BIT(1) | BIT(3) | BIT(9), d);
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_MCAST_FORWARD_TABLE, 2, d, r),
			0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(r), BIT(1) | BIT(3));
	KUNIT_EXPECT_EQ(test, t->sw->mft[64], BIT_ULL(1) | BIT_ULL(3));
	/* position 1 is ports 16-31: past an 8-port switch */
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_MCAST_FORWARD_TABLE,
				    1U << 28 | 2, d, r),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_GET,
				    IB_SMP_ATTR_MCAST_FORWARD_TABLE,
				    SOFTIB_SW_MFT_CAP / 32, NULL, r),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
}

static void sw_sma_refused(struct kunit *test)
{
	struct t_sw *t = test->priv;
	u8 d[IB_SMP_DATA_SIZE] = {}, r[IB_SMP_DATA_SIZE];
	struct ib_smp smp;

	/* a class version the SMA does not speak */
	t_dr_smp(&smp, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 1, 1);
	smp.class_version = 2;
	t_rcv(t, 1, t_smp_skb(test, 0xffff, 0xffff, &smp));
	KUNIT_ASSERT_EQ(test, t->nout, 1U);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(t_out_smp(t, 0)->status) & 0x7fff,
			IB_MGMT_MAD_STATUS_BAD_VERSION);
	t->nout = 0;

	/* read-only and unknown attributes, a bad method */
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_NODE_DESC, 0, d, r),
			IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_NODE_INFO, 0, d, r),
			IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_GET,
				    IB_SMP_ATTR_SM_INFO, 0, NULL, r),
			IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_GET,
				    cpu_to_be16(0xff77), 0, NULL, r),
			IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SEND,
				    IB_SMP_ATTR_NODE_INFO, 0, NULL,
				    r), IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD);
	/* an SL2VL entry other than VL0 or VL15 on a VLCap-1 switch */
	memset(d, 0x10, 8);
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_SL_TO_VL_TABLE, 1 << 8 | 2, d,
				    r), IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	memset(d, 0xf0, 8);
	KUNIT_EXPECT_EQ(test, t_sma(test, IB_MGMT_METHOD_SET,
				    IB_SMP_ATTR_SL_TO_VL_TABLE, 1 << 8 | 2, d,
				    r), 0);
	KUNIT_EXPECT_EQ(test, r[0], 0xf0);
}

/* With an M_Key at protect level 2: a Get without it gets no answer. */
static void sw_sma_mkey(struct kunit *test)
{
	struct t_sw *t = test->priv;
	struct ib_smp smp;

	t->sw->mkey = cpu_to_be64(0x1234);
	t->sw->mkeyprot = 2;
	t_dr_smp(&smp, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 1, 1);
	t_rcv(t, 1, t_smp_skb(test, 0xffff, 0xffff, &smp));
	KUNIT_EXPECT_EQ(test, t->nout, 0U);
	KUNIT_EXPECT_EQ(test, t->sw->mkey_violations, 1);
	smp.mkey = cpu_to_be64(0x1234);
	t_rcv(t, 1, t_smp_skb(test, 0xffff, 0xffff, &smp));
	KUNIT_EXPECT_EQ(test, t->nout, 1U);
}

/* A LID-routed SMP to the switch's LID: answered towards its SLID. */
static void sw_lid_routed_smp(struct kunit *test)
{
	struct t_sw *t = test->priv;
	struct ib_smp smp;

	t->sw->lid = 2;
	t->sw->lft_top = 10;
	t->sw->lft[7] = 6;
	t_dr_smp(&smp, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0, 0);
	smp.mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	t_rcv(t, 3, t_smp_skb(test, 2, 7, &smp));
	KUNIT_ASSERT_EQ(test, t->nout, 1U);
	KUNIT_EXPECT_EQ(test, t->out[0], 6);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t->pkt[0] + 2), 7);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t->pkt[0] + 6), 2);
	KUNIT_EXPECT_EQ(test, t_out_smp(t, 0)->status, 0);
	KUNIT_EXPECT_TRUE(test, softib_icrc_ok(t->pkt[0], T_SMP_BYTES));
	/* a directed-route class to a LID, or the permissive SLID: dropped */
	smp.mgmt_class = IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	t_rcv(t, 3, t_smp_skb(test, 2, 7, &smp));
	smp.mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	t_rcv(t, 3, t_smp_skb(test, 2, 0xffff, &smp));
	KUNIT_EXPECT_EQ(test, t->nout, 1U);
	KUNIT_EXPECT_EQ(test, t_drops(t, SOFTIB_SW_DROP_SMP), 2ULL);
}

static void sw_fwd_unicast(struct kunit *test)
{
	struct t_sw *t = test->priv;
	u8 *lft = t->sw->lft;

	t->sw->lft_top = 20;
	lft[10] = 5;
	lft[11] = 2;
	lft[12] = 4;
	lft[30] = 5;
	u8 want[T_DATA_BYTES];
	struct sk_buff *skb;

	skb = t_data_skb(test, 10, 11);
	memcpy(want, skb->data, sizeof(want));
	want[SOFTIB_LRH_BYTES + SW_BTH_HOPS] = 1;	/* one switch passed */
	t_rcv(t, 2, skb);				/* to port 5 */
	KUNIT_ASSERT_EQ(test, t->nout, 1U);
	KUNIT_EXPECT_EQ(test, t->out[0], 5);
	KUNIT_EXPECT_MEMEQ(test, t->pkt[0], want, sizeof(want));
	KUNIT_EXPECT_TRUE(test, softib_icrc_ok(t->pkt[0], T_DATA_BYTES));
	t_rcv(t, 2, t_data_skb(test, 11, 10));		/* back out of 2 */
	t_rcv(t, 2, t_data_skb(test, 13, 10));		/* no entry */
	t_rcv(t, 2, t_data_skb(test, 30, 10));		/* above the top */
	KUNIT_EXPECT_EQ(test, t->nout, 1U);
	KUNIT_EXPECT_EQ(test, t_drops(t, SOFTIB_SW_DROP_LOOP), 1ULL);
	KUNIT_EXPECT_EQ(test, t_drops(t, SOFTIB_SW_DROP_LID), 2ULL);
	/* data needs an ACTIVE output and an ARMED or ACTIVE input */
	t->sw->port[4].state = IB_PORT_INIT;
	t_rcv(t, 2, t_data_skb(test, 12, 10));
	t->sw->port[2].state = IB_PORT_INIT;
	t_rcv(t, 2, t_data_skb(test, 10, 11));
	KUNIT_EXPECT_EQ(test, t->nout, 1U);
	KUNIT_EXPECT_EQ(test, t_drops(t, SOFTIB_SW_DROP_STATE), 2ULL);
	/* the permissive LID is VL15's alone */
	t->sw->port[2].state = IB_PORT_ACTIVE;
	t_rcv(t, 2, t_data_skb(test, 0xffff, 10));
	KUNIT_EXPECT_EQ(test, t_drops(t, SOFTIB_SW_DROP_LID), 3ULL);
}

static void sw_fwd_multicast(struct kunit *test)
{
	struct t_sw *t = test->priv;

	t->sw->mft[3] = BIT_ULL(0) | BIT_ULL(1) | BIT_ULL(3) | BIT_ULL(5);
	t_rcv(t, 3, t_data_skb(test, 0xc003, 10));
	KUNIT_ASSERT_EQ(test, t->nout, 2U);	/* not 0, not the arrival 3 */
	KUNIT_EXPECT_EQ(test, t->out[0], 1);
	KUNIT_EXPECT_EQ(test, t->out[1], 5);
	KUNIT_EXPECT_MEMEQ(test, t->pkt[0], t->pkt[1], T_DATA_BYTES);
	t_rcv(t, 3, t_data_skb(test, 0xc004, 10));	/* empty mask */
	t_rcv(t, 3, t_data_skb(test, 0xc000 + SOFTIB_SW_MFT_CAP, 10));
	KUNIT_EXPECT_EQ(test, t->nout, 2U);
	KUNIT_EXPECT_EQ(test, t_drops(t, SOFTIB_SW_DROP_LID), 2ULL);
}

/* Frames too short for their headers, or lying about their length. */
static void sw_rcv_short(struct kunit *test)
{
	struct t_sw *t = test->priv;
	struct sk_buff *skb;

	skb = t_data_skb(test, 10, 11);
	skb_trim(skb, 16);
	t_rcv(t, 2, skb);
	skb = t_data_skb(test, 10, 11);
	put_unaligned_be16(T_DATA_BYTES / 4 + 1, skb->data + 4);
	t_rcv(t, 2, skb);
	skb = t_data_skb(test, 10, 11);
	skb->data[0] |= 1;			/* LVer 1 */
	t_rcv(t, 2, skb);
	skb = t_data_skb(test, 10, 11);
	skb->data[1] &= ~3;			/* LNH raw */
	t_rcv(t, 2, skb);
	KUNIT_EXPECT_EQ(test, t->nout, 0U);
	KUNIT_EXPECT_EQ(test, t_drops(t, SOFTIB_SW_DROP_SHORT), 4ULL);
}

/*
 * Forwarding loops: what leaves port 5 (and 6) comes back in on port 2, as
 * if the two ports were the ends of one veth pair, and the LFT or MFT sends
 * it out again. Every pass counts a hop in the BTH (its ICRC stays good);
 * the pass after SOFTIB_SW_HOP_LIMIT drops it as hop_limit. A multicast
 * loop through two ports doubles the packets at every hop: 2^limit of them
 * die at the limit.
 */
struct t_loop {
	const char *name;
	bool grh, vl15, mcast;
	u64 mask;		/* the MFT entry of a multicast loop */
};

static const struct t_loop t_loops[] = {
	{ "unicast" },
	{ "unicast, GRH", true },
	{ "LID-routed SMP", false, true },
	{ "multicast", false, false, true, BIT_ULL(2) | BIT_ULL(5) },
	{ "multicast, doubling", true, false, true,
	  BIT_ULL(2) | BIT_ULL(5) | BIT_ULL(6) },
};

static void t_loop_desc(const struct t_loop *l, char *desc)
{
	strscpy(desc, l->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_loop, t_loops, t_loop_desc);

#define T_LOOP_MAX	4096	/* passes before the test calls it endless */

static void sw_fwd_loop(struct kunit *test)
{
	const struct t_loop *lp = test->param_value;
	struct t_sw *t = test->priv;
	unsigned int bth = SOFTIB_LRH_BYTES, passes = 0, i, copies = 1;
	u64 want_tx = 0, hop_drops, n;
	struct sk_buff *skb;
	struct ib_smp smp;
	u8 *orig;

	t->sw->lft_top = 20;
	t->sw->lft[10] = 5;
	t->sw->mft[1] = lp->mask;
	if (lp->vl15) {
		t_dr_smp(&smp, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0, 0);
		smp.mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
		skb = t_smp_skb(test, 10, 7, &smp);
	} else {
		skb = t_data_skb(test, lp->mcast ? 0xc001 : 10, 11);
	}
	if (lp->grh) {
		/* LNH GRH: 40 bytes of GRH (IPVer 6, next header BTH) */
		KUNIT_ASSERT_EQ(test, pskb_expand_head(skb, 0, SOFTIB_GRH_BYTES,
						       GFP_KERNEL), 0);
		skb_put_zero(skb, SOFTIB_GRH_BYTES);
		memmove(skb->data + SOFTIB_LRH_BYTES + SOFTIB_GRH_BYTES,
			skb->data + SOFTIB_LRH_BYTES,
			skb->len - SOFTIB_LRH_BYTES - SOFTIB_GRH_BYTES);
		memset(skb->data + SOFTIB_LRH_BYTES, 0, SOFTIB_GRH_BYTES);
		skb->data[SOFTIB_LRH_BYTES] = SOFTIB_IPVER << 4;
		put_unaligned_be16(skb->len - SOFTIB_LRH_BYTES -
				   SOFTIB_GRH_BYTES, skb->data + 12);
		skb->data[14] = SOFTIB_NXTHDR_IBA;
		skb->data[1] = SOFTIB_LNH_GLOBAL;
		put_unaligned_be16(skb->len / 4, skb->data + 4);
		softib_icrc_set(skb->data, skb->len - SOFTIB_ICRC_BYTES);
		bth += SOFTIB_GRH_BYTES;
	}
	orig = kunit_kmalloc(test, skb->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, orig);
	memcpy(orig, skb->data, skb->len);
	n = skb->len;

	t->keep = true;
	t_rcv(t, 2, skb);
	while ((skb = skb_dequeue(&t->sent))) {
		u8 hops = skb->data[bth + SW_BTH_HOPS];

		if (++passes > T_LOOP_MAX) {
			kfree_skb(skb);
			KUNIT_FAIL(test, "still looping after %u passes", passes);
			break;
		}
		/* the hop count is all that changed, and the ICRC holds */
		KUNIT_ASSERT_EQ(test, skb->len, n);
		KUNIT_EXPECT_GE(test, hops, 1);
		KUNIT_EXPECT_LE(test, hops, SOFTIB_SW_HOP_LIMIT);
		orig[bth + SW_BTH_HOPS] = hops;
		KUNIT_EXPECT_MEMEQ(test, skb->data, orig, n);
		KUNIT_EXPECT_TRUE(test, softib_icrc_ok(skb->data, skb->len));
		KUNIT_EXPECT_NE(test, skb->cb[0], 2);
		t_rcv(t, 2, skb);	/* back in on port 2 */
	}
	skb_queue_purge(&t->sent);

	if (lp->mcast)
		copies = hweight64(lp->mask) - 1;	/* not the arrival port */
	for (i = 0, n = 1; i < SOFTIB_SW_HOP_LIMIT; i++) {
		n *= copies;
		want_tx += n;
	}
	hop_drops = t_drops(t, SOFTIB_SW_DROP_HOPS);
	KUNIT_EXPECT_EQ(test, (u64)passes, want_tx);
	KUNIT_EXPECT_EQ(test, hop_drops, n);
	KUNIT_EXPECT_EQ(test, t_all_drops(t), hop_drops);
}

/* ---- sysfs: node_desc ---------------------------------------------------- */

/* A write of lead spaces, len characters, trail newlines. */
struct t_desc {
	const char *name;
	unsigned int lead, len, trail;
};

static const struct t_desc t_descs[] = {
	{ "63 bytes", 0, 63, 0 },
	{ "64 bytes", 0, 64, 0 },
	{ "64 bytes and a newline", 0, 64, 1 },
	{ "65 bytes", 0, 65, 0 },
	{ "100 bytes and a newline", 0, 100, 1 },
	{ "a page", 0, PAGE_SIZE - 1, 0 },
	{ "whitespace around", 3, 10, 2 },
	{ "whitespace only", 70, 0, 1 },
	{ "nothing", 0, 0, 0 },
};

static void t_desc_desc(const struct t_desc *d, char *desc)
{
	strscpy(desc, d->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_desc, t_descs, t_desc_desc);

static void t_free_page(void *page)
{
	free_page((unsigned long)page);
}

/*
 * What root writes to node_desc, as kernfs hands it over (count bytes and
 * a NUL), becomes the NodeDescription: without the whitespace around it,
 * its first 64 bytes, the rest zero; show prints it back. (A write of 64
 * bytes or more once made the store read past its 64-byte stack copy.)
 */
static void sw_node_desc(struct kunit *test)
{
	const struct t_desc *d = test->param_value;
	struct t_sw *t = test->priv;
	size_t count = d->lead + d->len + d->trail, keep;
	u8 want[IB_DEVICE_NODE_DESC_MAX] = {};
	char *buf, *page;
	unsigned int i;

	buf = kunit_kzalloc(test, count + 1, GFP_KERNEL);
	page = (char *)get_zeroed_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, t_free_page,
							page), 0);
	memset(buf, ' ', d->lead);
	for (i = 0; i < d->len; i++)
		buf[d->lead + i] = 'A' + i % 26;
	memset(buf + d->lead + d->len, '\n', d->trail);
	keep = min_t(size_t, d->len, sizeof(want));
	memcpy(want, buf + d->lead, keep);

	KUNIT_EXPECT_EQ(test, node_desc_store(&t->sw->dev, NULL, buf, count),
			(ssize_t)count);
	KUNIT_EXPECT_MEMEQ(test, t->sw->desc, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, node_desc_show(&t->sw->dev, NULL, page),
			(ssize_t)keep + 1);
	KUNIT_EXPECT_MEMEQ(test, page, want, keep);
	KUNIT_EXPECT_EQ(test, page[keep], '\n');
}

/* ---- one netdev, one user: CAs and switch ports --------------------------- */

static netdev_tx_t t_ndo_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops t_ndo = {
	.ndo_start_xmit = t_ndo_xmit,
};

static void t_netdev_free(void *ndev)
{
	unregister_netdev(ndev);
	free_netdev(ndev);
}

/* A registered Ethernet netdev of nobody's, down. */
static struct net_device *t_netdev(struct kunit *test)
{
	struct net_device *ndev;

	ndev = alloc_netdev(0, "sibkt%d", NET_NAME_ENUM, ether_setup);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	ndev->netdev_ops = &t_ndo;
	eth_hw_addr_random(ndev);
	if (register_netdev(ndev)) {
		free_netdev(ndev);
		KUNIT_FAIL_AND_ABORT(test, "register_netdev");
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, t_netdev_free,
							ndev), 0);
	return ndev;
}

/* Unbind every port of the test's switch (before its netdevs go). */
static void t_unbind_all(void *sw_)
{
	struct softib_sw *sw = sw_;
	unsigned int i;

	mutex_lock(&softib_sw_lock);
	for (i = 1; i <= sw->nports; i++)
		softib_sw_unbind(&sw->port[i]);
	mutex_unlock(&softib_sw_lock);
}

/* A CA as `rdma link add` makes it, up to its claim: never registered. */
struct t_ca {
	struct softib_dev *sdev;
	bool claimed;
};

static void t_ca_free(void *data)
{
	struct t_ca *ca = data;

	if (ca->claimed)
		softib_ca_unclaim(ca->sdev);
	kfree(ca->sdev);
}

static struct t_ca *t_ca_new(struct kunit *test, struct net_device *ndev)
{
	struct t_ca *ca = kunit_kzalloc(test, sizeof(*ca), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ca);
	ca->sdev = kzalloc(sizeof(*ca->sdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ca->sdev);
	INIT_LIST_HEAD(&ca->sdev->list);
	ca->sdev->ndev = ndev;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, t_ca_free, ca),
			0);
	return ca;
}

static int t_ca_claim(struct t_ca *ca)
{
	int ret = softib_ca_claim(ca->sdev);

	ca->claimed = !ret;
	return ret;
}

static void t_ca_unclaim(struct t_ca *ca)
{
	softib_ca_unclaim(ca->sdev);
	ca->claimed = false;
}

static bool t_bound(struct softib_sw_port *p)
{
	return rcu_access_pointer(p->ndev);
}

/*
 * A CA being created holds its carrier from the start (on softib_list, not
 * live yet: a bind once looked for live CAs only and took the netdev from
 * under `rdma link add`); a bound port holds its netdev against CAs and
 * every other port.
 */
static void sw_bind_claim(struct kunit *test)
{
	struct t_sw *t = test->priv;
	struct net_device *ndev = t_netdev(test);
	struct t_ca *ca = t_ca_new(test, ndev), *ca2 = t_ca_new(test, ndev);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, t_unbind_all,
							t->sw), 0);
	KUNIT_ASSERT_EQ(test, t_ca_claim(ca), 0);
	KUNIT_EXPECT_EQ(test, t_ca_claim(ca2), -EEXIST);
	KUNIT_EXPECT_EQ(test, softib_sw_bind(t->sw, 1, ndev->name), -EBUSY);
	KUNIT_EXPECT_FALSE(test, t_bound(&t->sw->port[1]));
	t_ca_unclaim(ca);

	KUNIT_ASSERT_EQ(test, softib_sw_bind(t->sw, 1, ndev->name), 0);
	KUNIT_EXPECT_TRUE(test, t_bound(&t->sw->port[1]));
	KUNIT_EXPECT_EQ(test, t_ca_claim(ca), -EBUSY);
	KUNIT_EXPECT_EQ(test, softib_sw_bind(t->sw, 2, ndev->name), -EBUSY);
	KUNIT_EXPECT_FALSE(test, t_bound(&t->sw->port[2]));

	/* unbound, it is free again */
	mutex_lock(&softib_sw_lock);
	softib_sw_unbind(&t->sw->port[1]);
	mutex_unlock(&softib_sw_lock);
	KUNIT_EXPECT_EQ(test, t_ca_claim(ca), 0);
	t_ca_unclaim(ca);
	KUNIT_EXPECT_EQ(test, softib_sw_bind(t->sw, 2, ndev->name), 0);
}

/* sw_bind_race: `rdma link add`'s claim, again and again, on a thread */
struct t_race {
	struct t_ca *ca;
	atomic_t holders;	/* CA and port holding the netdev at once */
	atomic_t both;		/* times both held it */
	atomic_t ca_wins;
	bool stop;
	struct completion done;
};

static int t_race_ca(void *data)
{
	struct t_race *r = data;

	while (!READ_ONCE(r->stop)) {
		if (softib_ca_claim(r->ca->sdev)) {
			usleep_range(10, 50);
			continue;
		}
		if (atomic_inc_return(&r->holders) > 1)
			atomic_inc(&r->both);
		atomic_inc(&r->ca_wins);
		usleep_range(20, 40);
		atomic_dec(&r->holders);
		softib_ca_unclaim(r->ca->sdev);
	}
	complete(&r->done);
	return 0;
}

/*
 * A CA's claim and a port's bind racing for one netdev for a second: never
 * both at once. (It cannot show the race of old, whose window was a few
 * instructions wide; sw_bind_claim shows the claim it missed.)
 */
static void sw_bind_race(struct kunit *test)
{
	struct t_sw *t = test->priv;
	struct net_device *ndev = t_netdev(test);
	struct softib_sw_port *p = &t->sw->port[1];
	struct t_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned long end = jiffies + HZ;
	struct task_struct *task;
	unsigned int port_wins = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->ca = t_ca_new(test, ndev);
	init_completion(&r->done);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, t_unbind_all,
							t->sw), 0);
	task = kthread_run(t_race_ca, r, "sibkt_race");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	while (time_before(jiffies, end)) {
		if (softib_sw_bind(t->sw, 1, ndev->name)) {
			usleep_range(10, 50);
			continue;
		}
		if (atomic_inc_return(&r->holders) > 1)
			atomic_inc(&r->both);
		port_wins++;
		usleep_range(20, 40);
		atomic_dec(&r->holders);
		mutex_lock(&softib_sw_lock);
		softib_sw_unbind(p);
		mutex_unlock(&softib_sw_lock);
	}
	WRITE_ONCE(r->stop, true);
	wait_for_completion(&r->done);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->both), 0);
	kunit_info(test, "port won %u binds, the CA %d claims\n", port_wins,
		   atomic_read(&r->ca_wins));
}

/* The fuzzer: mutated SMPs and data frames; each forwarded or counted. */
static const u64 t_seeds[] = { 0x1, 0x5eed, 0xdeadbeef, 0x123456789abcdefULL };

static void t_seed_desc(const u64 *s, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seed %#llx", *s);
}

KUNIT_ARRAY_PARAM(t_seed, t_seeds, t_seed_desc);

static void sw_fuzz(struct kunit *test)
{
	struct t_sw *t = test->priv;
	struct rnd_state rnd;
	unsigned int i, k;

	prandom_seed_state(&rnd, *(const u64 *)test->param_value);
	t->sw->lid = 2;
	t->sw->lft_top = 63;
	for (i = 0; i < 64; i++)
		t->sw->lft[i] = prandom_u32_state(&rnd) % (T_PORTS + 2);
	for (i = 0; i < 64; i++)
		t->sw->mft[i] = prandom_u32_state(&rnd) & 0x1ff;
	for (i = 0; i < 3000; i++) {
		u32 r = prandom_u32_state(&rnd);
		struct sk_buff *skb;
		struct ib_smp smp;
		u64 before = t_all_drops(t);
		unsigned int len;

		if (r & 1) {
			t_dr_smp(&smp, r & 2 ? IB_MGMT_METHOD_GET :
				 IB_MGMT_METHOD_SET, cpu_to_be16(r >> 16 & 0x1f),
				 prandom_u32_state(&rnd) % 66,
				 prandom_u32_state(&rnd) % 66);
			if (r & 4)
				smp.status = IB_SMP_DIRECTION;
			prandom_bytes_state(&rnd, smp.initial_path, 64);
			prandom_bytes_state(&rnd, smp.return_path, 64);
			prandom_bytes_state(&rnd, smp.data, 32);
			smp.attr_mod = cpu_to_be32(prandom_u32_state(&rnd) &
						   0x3000ffff);
			skb = t_smp_skb(test, r & 8 ? 0xffff : r % 70, 7, &smp);
		} else {
			skb = t_data_skb(test, r & 8 ? 0xc000 + r % 70 : r % 70,
					 9);
		}
		/* then a few random bytes of the headers, perhaps the length */
		for (k = prandom_u32_state(&rnd) % 4; k; k--)
			skb->data[prandom_u32_state(&rnd) % 40] =
				prandom_u32_state(&rnd);
		if (r & 16 && !(r & 32))
			softib_icrc_set(skb->data, skb->len - 4);
		len = skb->len;
		if (r & 64)
			skb_trim(skb, prandom_u32_state(&rnd) % len);
		t->nout = 0;
		t_rcv(t, 1 + r % T_PORTS, skb);
		KUNIT_ASSERT_TRUE_MSG(test, t->nout || t_all_drops(t) > before,
				      "frame %u neither sent nor dropped", i);
	}
}

static struct kunit_case softib_sw_cases[] = {
	KUNIT_CASE(sw_dr_to_switch),
	KUNIT_CASE(sw_dr_relay),
	KUNIT_CASE_PARAM(sw_dr_discard, t_dr_bad_gen_params),
	KUNIT_CASE(sw_sma_switch_info),
	KUNIT_CASE(sw_sma_port_info),
	KUNIT_CASE(sw_sma_fdb),
	KUNIT_CASE(sw_sma_refused),
	KUNIT_CASE(sw_sma_mkey),
	KUNIT_CASE(sw_lid_routed_smp),
	KUNIT_CASE(sw_fwd_unicast),
	KUNIT_CASE(sw_fwd_multicast),
	KUNIT_CASE(sw_rcv_short),
	KUNIT_CASE_PARAM(sw_fwd_loop, t_loop_gen_params),
	KUNIT_CASE_PARAM(sw_node_desc, t_desc_gen_params),
	KUNIT_CASE(sw_bind_claim),
	KUNIT_CASE(sw_bind_race),
	KUNIT_CASE_PARAM(sw_fuzz, t_seed_gen_params),
	{}
};

static struct kunit_suite softib_sw_suite = {
	.name = "softib_sw",
	.init = t_init,
	.exit = t_exit,
	.test_cases = softib_sw_cases,
};

kunit_test_suite(softib_sw_suite);

MODULE_DESCRIPTION("KUnit tests for softib's switch node");
MODULE_LICENSE("GPL");
