// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the softib subnet and performance management agents
 * (drivers/softib/sma.c, pma.c). They are compiled into this module (the
 * agents need nothing of softib.ko but struct softib_dev), on a device that
 * is never registered: MADs go through softib_process_mad() as ib_mad would
 * hand them over, and the port events it raises are caught by a static
 * stub instead of going to ib_core. Attribute layouts are checked at the
 * octet offsets of IBA vol 1 14.2.5 and 16.1.3, not through the structs.
 */
#include "drivers/softib/sma.c"
#include "drivers/softib/pma.c"

#include <kunit/test.h>
#include <linux/module.h>

#include "softib_sma_test.h"

static unsigned int t_count(struct t_sma *t, enum ib_event_type type)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->nev; i++)
		n += t->ev[i] == type;
	return n;
}

/* Send one MAD; returns the reply's status without the D bit. */
static u16 t_mad(struct kunit *test, u8 mgmt_class, u8 method, __be16 attr,
		 u32 mod, const void *data, size_t len, u64 mkey, int flags)
{
	struct t_sma *t = test->priv;
	struct ib_smp *in = kunit_kzalloc(test, sizeof(struct ib_mad),
					  GFP_KERNEL);
	struct ib_wc wc = { .port_num = 1 };
	size_t size = sizeof(struct ib_mad);
	u16 pkey_index = 0;

	KUNIT_ASSERT_NOT_NULL(test, in);
	in->base_version = IB_MGMT_BASE_VERSION;
	in->mgmt_class = mgmt_class;
	in->class_version = 1;
	in->method = method;
	in->tid = cpu_to_be64(0xabcdef);
	in->attr_id = attr;
	in->attr_mod = cpu_to_be32(mod);
	in->mkey = cpu_to_be64(mkey);
	if (mgmt_class == IB_MGMT_CLASS_PERF_MGMT)
		memcpy(((struct ib_pma_mad *)in)->data, data, len);
	else if (data)
		memcpy(in->data, data, len);
	memset(&t->out, 0x5a, sizeof(t->out));
	t->res = softib_process_mad(&t->sdev->rdi.ibdev, flags, 1, &wc, NULL,
				    (struct ib_mad *)in, &t->out, &size,
				    &pkey_index);
	if (!(t->res & IB_MAD_RESULT_REPLY))
		return 0xffff;
	KUNIT_EXPECT_EQ(test, t->out.mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, t->out.mad_hdr.tid, in->tid);
	KUNIT_EXPECT_EQ(test, t->out.mad_hdr.attr_id, attr);
	return be16_to_cpu(t->out.mad_hdr.status) & 0x7fff;
}

static u16 t_get(struct kunit *test, __be16 attr, u32 mod)
{
	return t_mad(test, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		     attr, mod, NULL, 0, 0, 0);
}

static u16 t_set(struct kunit *test, __be16 attr, u32 mod, const u8 *data)
{
	return t_mad(test, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_SET,
		     attr, mod, data, IB_SMP_DATA_SIZE, 0, 0);
}

static u8 *t_data(struct t_sma *t)
{
	return ((struct ib_smp *)&t->out)->data;
}

/* The port's PortInfo, fetched with a Get, for a Set to modify. */
static u8 *t_port_info(struct kunit *test)
{
	struct t_sma *t = test->priv;
	u8 *pi = kunit_kzalloc(test, IB_SMP_DATA_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pi);
	KUNIT_ASSERT_EQ(test, t_get(test, IB_SMP_ATTR_PORT_INFO, 0), 0);
	memcpy(pi, t_data(t), IB_SMP_DATA_SIZE);
	pi[32] &= 0xf0;		/* PortState: no change */
	pi[33] &= 0x0f;		/* PortPhysicalState: no change */
	return pi;
}

static u16 t_set_state(struct kunit *test, u8 state)
{
	u8 *pi = t_port_info(test);

	pi[32] = (pi[32] & 0xf0) | state;
	return t_set(test, IB_SMP_ATTR_PORT_INFO, 0, pi);
}

static u8 t_state(struct t_sma *t)
{
	return t->port->state;
}

/* ---- Get layouts --------------------------------------------------------- */

static void sma_node_info(struct kunit *test)
{
	struct t_sma *t = test->priv;
	u8 *d;

	KUNIT_ASSERT_EQ(test, t_get(test, IB_SMP_ATTR_NODE_INFO, 0), 0);
	d = t_data(t);
	KUNIT_EXPECT_EQ(test, d[0], 1);		/* BaseVersion */
	KUNIT_EXPECT_EQ(test, d[1], 1);		/* ClassVersion */
	KUNIT_EXPECT_EQ(test, d[2], 1);		/* NodeType: CA */
	KUNIT_EXPECT_EQ(test, d[3], 1);		/* NumPorts */
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 4), T_NODE_GUID);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 12), T_NODE_GUID);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 20), T_PORT_GUID);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 28), SOFTIB_NPKEYS);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 30), SOFTIB_DEVICE_ID);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 32), SOFTIB_HW_REV);
	KUNIT_EXPECT_EQ(test, d[36], 1);	/* LocalPortNum */
	KUNIT_EXPECT_EQ(test, get_unaligned_be24(d + 37), 0x025342);
	/* a system image GUID of its own, when the device has one */
	t->sdev->rdi.ibdev.attrs.sys_image_guid = cpu_to_be64(42);
	KUNIT_ASSERT_EQ(test, t_get(test, IB_SMP_ATTR_NODE_INFO, 0), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(t_data(t) + 4), 42);
}

static void sma_node_desc(struct kunit *test)
{
	struct t_sma *t = test->priv;

	KUNIT_ASSERT_EQ(test, t_get(test, IB_SMP_ATTR_NODE_DESC, 0), 0);
	KUNIT_EXPECT_STREQ(test, (char *)t_data(t), "softib test node");
	KUNIT_EXPECT_EQ(test, t_get(test, IB_SMP_ATTR_NODE_DESC, 1),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
}

static void sma_port_info_layout(struct kunit *test)
{
	struct t_sma *t = test->priv;
	u8 *d;

	softib_sma_link_change(t->port, true);
	t->port->rvp.port_cap_flags |= IB_PORT_CM_SUP;
	t->port->rvp.pkey_violations = 0x1234;
	t->port->rvp.qkey_violations = 0x4321;
	KUNIT_ASSERT_EQ(test, t_get(test, IB_SMP_ATTR_PORT_INFO, 1), 0);
	d = t_data(t);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 0), 0);	/* M_Key */
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 8), 0xfe80000000000000);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 16), 0);	/* LID */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 18), 0);	/* SM LID */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 20),
			IB_PORT_CM_SUP | IB_PORT_CLIENT_REG_SUP |
			IB_PORT_SYS_IMAGE_GUID_SUP);
	KUNIT_EXPECT_EQ(test, d[28], 1);	/* LocalPortNum */
	KUNIT_EXPECT_EQ(test, d[29], 3);	/* LinkWidthEnabled 1X 4X */
	KUNIT_EXPECT_EQ(test, d[30], 3);	/* LinkWidthSupported */
	KUNIT_EXPECT_EQ(test, d[31], 2);	/* LinkWidthActive 4X */
	KUNIT_EXPECT_EQ(test, d[32], 0x72);	/* SDR-QDR, INIT */
	KUNIT_EXPECT_EQ(test, d[33], 0x52);	/* LinkUp, default Polling */
	KUNIT_EXPECT_EQ(test, d[34], 0);	/* protect bits, LMC */
	KUNIT_EXPECT_EQ(test, d[35], 0x47);	/* QDR active, all enabled */
	KUNIT_EXPECT_EQ(test, d[36], 0x50);	/* NeighborMTU 4096, SM SL */
	KUNIT_EXPECT_EQ(test, d[37], 0x10);	/* VLCap VL0 */
	KUNIT_EXPECT_EQ(test, d[41], 0x05);	/* MTUCap 4096 */
	KUNIT_EXPECT_EQ(test, d[43] >> 4, 1);	/* OperationalVLs */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 46), 0x1234);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 48), 0x4321);
	KUNIT_EXPECT_EQ(test, d[50], 1);	/* GUIDCap */
	KUNIT_EXPECT_EQ(test, d[52] & 0x1f, 18);	/* RespTimeValue */
	/* port 2 does not exist */
	KUNIT_EXPECT_EQ(test, t_get(test, IB_SMP_ATTR_PORT_INFO, 2),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
}

static void sma_guid_info(struct kunit *test)
{
	struct t_sma *t = test->priv;
	u8 zero[IB_SMP_DATA_SIZE] = {};

	KUNIT_ASSERT_EQ(test, t_get(test, IB_SMP_ATTR_GUID_INFO, 0), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(t_data(t)), T_PORT_GUID);
	KUNIT_EXPECT_MEMEQ(test, t_data(t) + 8, zero, sizeof(zero) - 8);
	KUNIT_EXPECT_EQ(test, t_get(test, IB_SMP_ATTR_GUID_INFO, 1),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	/* entry 0 is the port GUID: a Set leaves it */
	memset(zero, 0xee, sizeof(zero));
	KUNIT_EXPECT_EQ(test, t_set(test, IB_SMP_ATTR_GUID_INFO, 0, zero), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(t_data(t)), T_PORT_GUID);
}

static void sma_pkey_table(struct kunit *test)
{
	struct t_sma *t = test->priv;
	u8 blk[IB_SMP_DATA_SIZE] = {};
	unsigned int i;

	KUNIT_ASSERT_EQ(test, t_get(test, IB_SMP_ATTR_PKEY_TABLE, 0), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t_data(t)), 0xffff);
	for (i = 1; i < 32; i++)
		KUNIT_EXPECT_EQ(test, get_unaligned_be16(t_data(t) + 2 * i), 0);

	put_unaligned_be16(0xffff, blk);
	put_unaligned_be16(0x8001, blk + 2);
	put_unaligned_be16(0x7fff, blk + 2 * 15);
	put_unaligned_be16(0x1234, blk + 2 * 16);	/* past the table */
	KUNIT_ASSERT_EQ(test, t_set(test, IB_SMP_ATTR_PKEY_TABLE, 0, blk), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t_data(t) + 2), 0x8001);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t_data(t) + 30), 0x7fff);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t_data(t) + 32), 0);
	KUNIT_EXPECT_EQ(test, t->port->pkeys[1], 0x8001);
	KUNIT_EXPECT_EQ(test, t_count(t, IB_EVENT_PKEY_CHANGE), 1);
	/* the same table again: no change, no event */
	KUNIT_ASSERT_EQ(test, t_set(test, IB_SMP_ATTR_PKEY_TABLE, 0, blk), 0);
	KUNIT_EXPECT_EQ(test, t_count(t, IB_EVENT_PKEY_CHANGE), 1);
	KUNIT_EXPECT_EQ(test, t_set(test, IB_SMP_ATTR_PKEY_TABLE, 1, blk),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	KUNIT_EXPECT_EQ(test, t_count(t, IB_EVENT_PKEY_CHANGE), 1);
}

static void sma_sl_to_vl(struct kunit *test)
{
	struct t_sma *t = test->priv;
	u8 map[IB_SMP_DATA_SIZE] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
				     0xcd, 0xef };

	KUNIT_ASSERT_EQ(test, t_get(test, IB_SMP_ATTR_SL_TO_VL_TABLE, 0), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(t_data(t)), 0);
	KUNIT_ASSERT_EQ(test, t_set(test, IB_SMP_ATTR_SL_TO_VL_TABLE, 0, map),
			0);
	KUNIT_EXPECT_MEMEQ(test, t_data(t), map, 8);
	KUNIT_EXPECT_EQ(test, t->port->sl_to_vl[0], 0);
	KUNIT_EXPECT_EQ(test, t->port->sl_to_vl[1], 1);
	KUNIT_EXPECT_EQ(test, t->port->sl_to_vl[15], 15);
}

static void sma_vl_arb(struct kunit *test)
{
	struct t_sma *t = test->priv;
	u8 blk[IB_SMP_DATA_SIZE];
	u32 b;

	for (b = 1; b <= 4; b++) {
		memset(blk, b, sizeof(blk));
		KUNIT_EXPECT_EQ(test, t_set(test, IB_SMP_ATTR_VL_ARB_TABLE,
					    b << 16, blk), 0);
	}
	for (b = 1; b <= 4; b++) {
		memset(blk, b, sizeof(blk));
		KUNIT_EXPECT_EQ(test, t_get(test, IB_SMP_ATTR_VL_ARB_TABLE,
					    b << 16 | 1), 0);
		KUNIT_EXPECT_MEMEQ(test, t_data(t), blk, sizeof(blk));
	}
	KUNIT_EXPECT_EQ(test, t_get(test, IB_SMP_ATTR_VL_ARB_TABLE, 0),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	KUNIT_EXPECT_EQ(test, t_get(test, IB_SMP_ATTR_VL_ARB_TABLE, 5 << 16),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
}

/* ---- methods, unknown and read-only attributes ---------------------------- */

struct t_status_case {
	const char *name;
	u8 mgmt_class, method, class_version;
	__be16 attr;
	u32 cap;		/* added to the port's capability mask */
	int res;		/* IB_MAD_RESULT_* expected */
	u16 status;		/* with a reply */
};

#define T_REPLY	(IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY)
#define T_EATEN	(IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED)
#define T_LR	IB_MGMT_CLASS_SUBN_LID_ROUTED
#define T_DR	IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE
#define T_PERF	IB_MGMT_CLASS_PERF_MGMT

static const struct t_status_case t_status_cases[] = {
	{ "get lft (a switch's)", T_LR, IB_MGMT_METHOD_GET, 1,
	  IB_SMP_ATTR_LINEAR_FORWARD_TABLE, 0, T_REPLY, 0x0c },
	{ "get vendor attribute", T_DR, IB_MGMT_METHOD_GET, 1,
	  cpu_to_be16(0xff10), 0, T_REPLY, 0x0c },
	{ "set node info", T_LR, IB_MGMT_METHOD_SET, 1,
	  IB_SMP_ATTR_NODE_INFO, 0, T_REPLY, 0x0c },
	{ "set node description", T_DR, IB_MGMT_METHOD_SET, 1,
	  IB_SMP_ATTR_NODE_DESC, 0, T_REPLY, 0x0c },
	{ "method send", T_LR, IB_MGMT_METHOD_SEND, 1,
	  IB_SMP_ATTR_NODE_INFO, 0, T_REPLY, 0x08 },
	{ "method 0x10", T_DR, 0x10, 1, IB_SMP_ATTR_NODE_INFO, 0, T_REPLY,
	  0x08 },
	{ "class version 2", T_LR, IB_MGMT_METHOD_GET, 2,
	  IB_SMP_ATTR_NODE_INFO, 0, T_REPLY, 0x04 },
	{ "getresp goes on", T_DR, IB_MGMT_METHOD_GET_RESP, 1,
	  IB_SMP_ATTR_NODE_INFO, 0, IB_MAD_RESULT_SUCCESS },
	{ "trap goes on", T_LR, IB_MGMT_METHOD_TRAP, 1, IB_SMP_ATTR_NOTICE,
	  0, IB_MAD_RESULT_SUCCESS },
	{ "trap repress eaten", T_LR, IB_MGMT_METHOD_TRAP_REPRESS, 1,
	  IB_SMP_ATTR_NOTICE, 0, T_EATEN },
	{ "sminfo, no sm", T_DR, IB_MGMT_METHOD_GET, 1, IB_SMP_ATTR_SM_INFO,
	  0, T_REPLY, 0x0c },
	{ "sminfo to the sm", T_DR, IB_MGMT_METHOD_GET, 1,
	  IB_SMP_ATTR_SM_INFO, IB_PORT_SM, IB_MAD_RESULT_SUCCESS },
	{ "sminfo, sm disabled", T_LR, IB_MGMT_METHOD_SET, 1,
	  IB_SMP_ATTR_SM_INFO, IB_PORT_SM_DISABLED, T_EATEN },
	{ "sa response goes on", IB_MGMT_CLASS_SUBN_ADM,
	  IB_MGMT_METHOD_GET_RESP, 2, cpu_to_be16(0x35), 0,
	  IB_MAD_RESULT_SUCCESS },
	{ "cm goes on", IB_MGMT_CLASS_CM, IB_MGMT_METHOD_SEND, 2,
	  cpu_to_be16(0x10), 0, IB_MAD_RESULT_SUCCESS },
	{ "pma samples control", T_PERF, IB_MGMT_METHOD_GET, 1,
	  IB_PMA_PORT_SAMPLES_CONTROL, 0, T_REPLY, 0x0c },
	{ "pma set class port info", T_PERF, IB_MGMT_METHOD_SET, 1,
	  IB_PMA_CLASS_PORT_INFO, 0, T_REPLY, 0x0c },
	{ "pma method send", T_PERF, IB_MGMT_METHOD_SEND, 1,
	  IB_PMA_PORT_COUNTERS, 0, T_REPLY, 0x08 },
	{ "pma class version 2", T_PERF, IB_MGMT_METHOD_GET, 2,
	  IB_PMA_PORT_COUNTERS, 0, T_REPLY, 0x04 },
	{ "pma getresp goes on", T_PERF, IB_MGMT_METHOD_GET_RESP, 1,
	  IB_PMA_PORT_COUNTERS, 0, IB_MAD_RESULT_SUCCESS },
};

static void t_status_desc(const struct t_status_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_status, t_status_cases, t_status_desc);

static void sma_status(struct kunit *test)
{
	const struct t_status_case *c = test->param_value;
	struct t_sma *t = test->priv;
	struct ib_smp *in = kunit_kzalloc(test, sizeof(struct ib_mad),
					  GFP_KERNEL);
	size_t size = sizeof(struct ib_mad);
	u16 pkey_index = 0;
	int res;

	KUNIT_ASSERT_NOT_NULL(test, in);
	t->port->rvp.port_cap_flags |= c->cap;
	in->base_version = IB_MGMT_BASE_VERSION;
	in->mgmt_class = c->mgmt_class;
	in->class_version = c->class_version;
	in->method = c->method;
	in->attr_id = c->attr;
	in->hop_cnt = 1;
	res = softib_process_mad(&t->sdev->rdi.ibdev, 0, 1, NULL, NULL,
				 (struct ib_mad *)in, &t->out, &size,
				 &pkey_index);
	KUNIT_ASSERT_EQ(test, res, c->res);
	if (!(res & IB_MAD_RESULT_REPLY))
		return;
	KUNIT_EXPECT_EQ(test, t->out.mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(t->out.mad_hdr.status) & 0x7fff,
			c->status);
	/* a directed-route reply has the D bit set */
	KUNIT_EXPECT_EQ(test, !!(t->out.mad_hdr.status & IB_SMP_DIRECTION),
			c->mgmt_class == T_DR);
}

/* ---- PortInfo Set: port state ------------------------------------------ */

struct t_state_case {
	const char *name;
	u8 from;		/* reached by the legal path first */
	bool carrier;
	u8 set;
	u16 status;
	u8 to;
	enum ib_event_type ev;	/* expected once; 0: none */
};

static const struct t_state_case t_state_cases[] = {
	{ "init nop", IB_PORT_INIT, true, IB_PORT_NOP, 0, IB_PORT_INIT },
	{ "init to armed", IB_PORT_INIT, true, IB_PORT_ARMED, 0,
	  IB_PORT_ARMED },
	{ "init to active refused", IB_PORT_INIT, true, IB_PORT_ACTIVE, 0x1c,
	  IB_PORT_INIT },
	{ "init to init refused", IB_PORT_INIT, true, IB_PORT_INIT, 0x1c,
	  IB_PORT_INIT },
	{ "armed to armed", IB_PORT_ARMED, true, IB_PORT_ARMED, 0,
	  IB_PORT_ARMED },
	{ "armed to active", IB_PORT_ARMED, true, IB_PORT_ACTIVE, 0,
	  IB_PORT_ACTIVE, IB_EVENT_PORT_ACTIVE },
	{ "active to active", IB_PORT_ACTIVE, true, IB_PORT_ACTIVE, 0,
	  IB_PORT_ACTIVE },
	{ "active to armed refused", IB_PORT_ACTIVE, true, IB_PORT_ARMED,
	  0x1c, IB_PORT_ACTIVE },
	{ "active to down retrains", IB_PORT_ACTIVE, true, IB_PORT_DOWN, 0,
	  IB_PORT_INIT, IB_EVENT_PORT_ERR },
	{ "armed to down retrains", IB_PORT_ARMED, true, IB_PORT_DOWN, 0,
	  IB_PORT_INIT },
	{ "state 5 refused", IB_PORT_ARMED, true, 5, 0x1c, IB_PORT_ARMED },
	{ "no carrier: armed refused", IB_PORT_DOWN, false, IB_PORT_ARMED,
	  0x1c, IB_PORT_DOWN },
	{ "no carrier: down", IB_PORT_DOWN, false, IB_PORT_DOWN, 0,
	  IB_PORT_DOWN },
};

static void t_state_desc(const struct t_state_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_state, t_state_cases, t_state_desc);

static void sma_port_state(struct kunit *test)
{
	const struct t_state_case *c = test->param_value;
	struct t_sma *t = test->priv;
	u8 s;

	softib_sma_link_change(t->port, c->carrier);
	for (s = IB_PORT_ARMED; c->carrier && s <= c->from; s++)
		KUNIT_ASSERT_EQ(test, t_set_state(test, s), 0);
	KUNIT_ASSERT_EQ(test, t_state(t), c->from);
	t->nev = 0;
	KUNIT_EXPECT_EQ(test, t_set_state(test, c->set), c->status);
	KUNIT_EXPECT_EQ(test, t_state(t), c->to);
	KUNIT_EXPECT_EQ(test, t_data(t)[32] & 0xf, c->to);	/* the reply */
	if (c->ev) {
		KUNIT_EXPECT_EQ(test, t->nev, 1);
		KUNIT_EXPECT_EQ(test, t_count(t, c->ev), 1);
	} else {
		KUNIT_EXPECT_EQ(test, t->nev, 0);
	}
}

/* ---- PortInfo Set: fields and events ------------------------------------ */

struct t_field_case {
	const char *name;
	unsigned int off;	/* octet of PortInfo */
	u8 mask, value;		/* bits of that octet, and what to set */
	u16 status;
	enum ib_event_type ev;	/* expected once; 0: none */
};

static const struct t_field_case t_field_cases[] = {
	{ "lid", 17, 0xff, 0x07, 0, IB_EVENT_LID_CHANGE },
	{ "lid multicast refused", 16, 0xff, 0xc0, 0x1c },
	{ "lmc", 34, 0x07, 0x02, 0, IB_EVENT_LID_CHANGE },
	{ "sm lid", 19, 0xff, 0x01, 0, IB_EVENT_SM_CHANGE },
	{ "sm lid 0xff00 refused", 18, 0xff, 0xff, 0x1c },
	{ "sm sl", 36, 0x0f, 0x03, 0, IB_EVENT_SM_CHANGE },
	{ "gid prefix", 0 + 8, 0xff, 0xfc, 0, IB_EVENT_GID_CHANGE },
	{ "client reregister", 51, 0x80, 0x80, 0,
	  IB_EVENT_CLIENT_REREGISTER },
	{ "neighbor mtu 2048", 36, 0xf0, IB_MTU_2048 << 4, 0 },
	{ "neighbor mtu above max refused", 36, 0xf0, 6 << 4, 0x1c },
	{ "neighbor mtu 0 refused", 36, 0xf0, 0, 0x1c },
	{ "operational vls 2 refused", 43, 0xf0, 2 << 4, 0x1c },
	{ "width enabled 12x refused", 29, 0xff, 4, 0x1c },
	{ "width enabled 1x", 29, 0xff, 1, 0 },
	{ "speed enabled sdr", 35, 0x0f, 1, 0 },
	{ "speed enabled 8 refused", 35, 0x0f, 8, 0x1c },
	{ "link down default 3 refused", 33, 0x0f, 3, 0x1c },
	{ "subnet timeout", 51, 0x1f, 18, 0 },
	{ "vl high limit", 38, 0xff, 4, 0 },
	{ "m_key lease", 27, 0xff, 60, 0 },
};

static void t_field_desc(const struct t_field_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_field, t_field_cases, t_field_desc);

static void sma_port_field(struct kunit *test)
{
	const struct t_field_case *c = test->param_value;
	struct t_sma *t = test->priv;
	u8 *pi, *before;

	softib_sma_link_change(t->port, true);
	before = t_port_info(test);
	pi = t_port_info(test);
	pi[c->off] = (pi[c->off] & ~c->mask) | c->value;
	/* refused or not, the Set is one: the LID of a refused one stays */
	if (c->off != 16 && c->off != 17)
		put_unaligned_be16(0x0042, pi + 16);
	t->nev = 0;
	KUNIT_ASSERT_EQ(test, t_set(test, IB_SMP_ATTR_PORT_INFO, 0, pi),
			c->status);
	if (c->status) {
		KUNIT_EXPECT_MEMEQ(test, t_data(t) + 16, before + 16, 2);
		KUNIT_EXPECT_EQ(test, t->port->lid, 0);
		KUNIT_EXPECT_EQ(test, t->nev, 0);
		return;
	}
	/* the reply (and a new Get) show the value */
	if (c->off != 51 || c->mask != 0x80)
		KUNIT_EXPECT_EQ(test, t_data(t)[c->off] & c->mask, c->value);
	else
		KUNIT_EXPECT_EQ(test, t_data(t)[c->off] & 0x80, 0);
	if (c->ev)
		KUNIT_EXPECT_EQ(test, t_count(t, c->ev), 1);
	/* the same Set again changes nothing more */
	t->nev = 0;
	pi[51] &= ~0x80;
	KUNIT_ASSERT_EQ(test, t_set(test, IB_SMP_ATTR_PORT_INFO, 0, pi), 0);
	KUNIT_EXPECT_EQ(test, t->nev, 0);
}

/* The fields rdmavt reports through query_port are the ones set. */
static void sma_port_rvp(struct kunit *test)
{
	struct t_sma *t = test->priv;
	struct rvt_ibport *rvp = &t->port->rvp;
	u8 *pi;

	softib_sma_link_change(t->port, true);
	pi = t_port_info(test);
	put_unaligned_be16(0x0011, pi + 16);	/* LID */
	put_unaligned_be16(0x0022, pi + 18);	/* SM LID */
	pi[36] = IB_MTU_1024 << 4 | 5;		/* MTU, SM SL */
	put_unaligned_be64(0xfe80000000001234ULL, pi + 8);
	pi[51] = 0x80 | 17;			/* rereg, subnet timeout */
	KUNIT_ASSERT_EQ(test, t_set(test, IB_SMP_ATTR_PORT_INFO, 0, pi), 0);
	KUNIT_EXPECT_EQ(test, t->port->lid, 0x11);
	KUNIT_EXPECT_EQ(test, rvp->sm_lid, 0x22);
	KUNIT_EXPECT_EQ(test, rvp->sm_sl, 5);
	KUNIT_EXPECT_EQ(test, t->port->mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(rvp->gid_prefix),
			0xfe80000000001234ULL);
	KUNIT_EXPECT_EQ(test, rvp->subnet_timeout, 17);
	KUNIT_EXPECT_EQ(test, t_count(t, IB_EVENT_LID_CHANGE), 1);
	KUNIT_EXPECT_EQ(test, t_count(t, IB_EVENT_SM_CHANGE), 1);
	KUNIT_EXPECT_EQ(test, t_count(t, IB_EVENT_GID_CHANGE), 1);
	KUNIT_EXPECT_EQ(test, t_count(t, IB_EVENT_CLIENT_REREGISTER), 1);
	/* the P_Key/Q_Key violation counters are writable (cleared by SMs) */
	rvp->pkey_violations = 9;
	pi = t_port_info(test);
	put_unaligned_be16(0, pi + 46);
	KUNIT_ASSERT_EQ(test, t_set(test, IB_SMP_ATTR_PORT_INFO, 0, pi), 0);
	KUNIT_EXPECT_EQ(test, rvp->pkey_violations, 0);
}

/* PortPhysicalState Disabled takes the port down until Polling. */
static void sma_port_disable(struct kunit *test)
{
	struct t_sma *t = test->priv;
	u8 *pi;

	softib_sma_link_change(t->port, true);
	pi = t_port_info(test);
	pi[33] = IB_PORT_PHYS_STATE_DISABLED << 4 | (pi[33] & 0xf);
	KUNIT_ASSERT_EQ(test, t_set(test, IB_SMP_ATTR_PORT_INFO, 0, pi), 0);
	KUNIT_EXPECT_EQ(test, t_state(t), IB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, t->port->phys_state, IB_PORT_PHYS_STATE_DISABLED);
	/* the carrier coming back does not undo it */
	softib_sma_link_change(t->port, true);
	KUNIT_EXPECT_EQ(test, t_state(t), IB_PORT_DOWN);
	pi[33] = IB_PORT_PHYS_STATE_POLLING << 4 | (pi[33] & 0xf);
	KUNIT_ASSERT_EQ(test, t_set(test, IB_SMP_ATTR_PORT_INFO, 0, pi), 0);
	KUNIT_EXPECT_EQ(test, t_state(t), IB_PORT_INIT);
	KUNIT_EXPECT_EQ(test, t->port->phys_state, IB_PORT_PHYS_STATE_LINK_UP);
}

/* ---- the carrier ---------------------------------------------------------- */

static void sma_link_change(struct kunit *test)
{
	struct t_sma *t = test->priv;

	KUNIT_EXPECT_EQ(test, t_state(t), IB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, t->port->phys_state, IB_PORT_PHYS_STATE_POLLING);
	softib_sma_link_change(t->port, true);
	KUNIT_EXPECT_EQ(test, t_state(t), IB_PORT_INIT);
	KUNIT_EXPECT_EQ(test, t->port->phys_state, IB_PORT_PHYS_STATE_LINK_UP);
	KUNIT_EXPECT_EQ(test, t->nev, 0);
	KUNIT_ASSERT_EQ(test, t_set_state(test, IB_PORT_ARMED), 0);
	KUNIT_ASSERT_EQ(test, t_set_state(test, IB_PORT_ACTIVE), 0);
	KUNIT_EXPECT_EQ(test, t_count(t, IB_EVENT_PORT_ACTIVE), 1);
	t->port->lid = 0x42;
	softib_sma_link_change(t->port, false);
	KUNIT_EXPECT_EQ(test, t_state(t), IB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, t->port->phys_state, IB_PORT_PHYS_STATE_POLLING);
	KUNIT_EXPECT_EQ(test, t_count(t, IB_EVENT_PORT_ERR), 1);
	KUNIT_EXPECT_EQ(test, t->port->lid, 0x42);	/* the LID stays */
	KUNIT_EXPECT_EQ(test, t->port->link_downed, 1);
	/* down again: nothing new */
	softib_sma_link_change(t->port, false);
	KUNIT_EXPECT_EQ(test, t_count(t, IB_EVENT_PORT_ERR), 1);
	KUNIT_EXPECT_EQ(test, t->port->link_downed, 1);
	softib_sma_link_change(t->port, true);
	KUNIT_EXPECT_EQ(test, t_state(t), IB_PORT_INIT);
}

/* ---- M_Key ------------------------------------------------------------ */

struct t_mkey_case {
	const char *name;
	u8 prot;		/* M_KeyProtectBits */
	u8 method;
	u64 key;		/* in the SMP */
	int flags;		/* mad_flags */
	bool answered;
	bool key_shown;		/* PortInfo:M_Key in a Get's reply */
	u16 violations;
};

static const struct t_mkey_case t_mkey_cases[] = {
	{ "prot 0 get wrong key", 0, IB_MGMT_METHOD_GET, 1, 0, true, true },
	{ "prot 1 get wrong key", 1, IB_MGMT_METHOD_GET, 1, 0, true, false },
	{ "prot 1 get right key", 1, IB_MGMT_METHOD_GET, T_MKEY, 0, true,
	  true },
	{ "prot 2 get wrong key", 2, IB_MGMT_METHOD_GET, 1, 0, false, false,
	  1 },
	{ "prot 3 get wrong key", 3, IB_MGMT_METHOD_GET, 0, 0, false, false,
	  1 },
	{ "prot 2 get right key", 2, IB_MGMT_METHOD_GET, T_MKEY, 0, true,
	  true },
	{ "prot 0 set wrong key", 0, IB_MGMT_METHOD_SET, 1, 0, false, false,
	  1 },
	{ "prot 1 set wrong key", 1, IB_MGMT_METHOD_SET, 0, 0, false, false,
	  1 },
	{ "prot 1 set right key", 1, IB_MGMT_METHOD_SET, T_MKEY, 0, true,
	  true },
	{ "prot 3 set ignore mkey", 3, IB_MGMT_METHOD_SET, 7,
	  IB_MAD_IGNORE_MKEY, true, true },
	{ "prot 0 trap repress wrong key", 0, IB_MGMT_METHOD_TRAP_REPRESS, 1,
	  0, false, false, 1 },
};

static void t_mkey_desc(const struct t_mkey_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_mkey, t_mkey_cases, t_mkey_desc);

static void sma_mkey(struct kunit *test)
{
	const struct t_mkey_case *c = test->param_value;
	struct t_sma *t = test->priv;
	u8 *pi;
	u16 st;

	/* an SM takes the port: M_Key, protect bits, a 60 s lease */
	pi = t_port_info(test);
	put_unaligned_be64(T_MKEY, pi);
	put_unaligned_be16(60, pi + 26);
	pi[34] = c->prot << 6;
	KUNIT_ASSERT_EQ(test, t_set(test, IB_SMP_ATTR_PORT_INFO, 0, pi), 0);

	st = t_mad(test, T_LR, c->method, IB_SMP_ATTR_PORT_INFO, 0, pi,
		   IB_SMP_DATA_SIZE, c->key, c->flags);
	if (c->answered) {
		KUNIT_EXPECT_EQ(test, t->res, T_REPLY);
		KUNIT_EXPECT_EQ(test, st, 0);
		KUNIT_EXPECT_EQ(test, get_unaligned_be64(t_data(t)),
				c->key_shown ? T_MKEY : 0);
	} else {
		KUNIT_EXPECT_EQ(test, t->res, T_EATEN);
		/* the lease runs */
		KUNIT_EXPECT_NE(test, t->port->rvp.mkey_lease_timeout, 0);
	}
	KUNIT_EXPECT_EQ(test, t->port->rvp.mkey_violations, c->violations);
}

/* When the lease runs out the protect bits fall to 0; a right key stops it. */
static void sma_mkey_lease(struct kunit *test)
{
	struct t_sma *t = test->priv;
	struct rvt_ibport *rvp = &t->port->rvp;
	u8 *pi;

	pi = t_port_info(test);
	put_unaligned_be64(T_MKEY, pi);
	put_unaligned_be16(1, pi + 26);
	pi[34] = 2 << 6;
	KUNIT_ASSERT_EQ(test, t_set(test, IB_SMP_ATTR_PORT_INFO, 0, pi), 0);
	t_mad(test, T_LR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0, NULL,
	      0, 5, 0);
	KUNIT_ASSERT_EQ(test, t->res, T_EATEN);
	KUNIT_ASSERT_NE(test, rvp->mkey_lease_timeout, 0);
	/* a right key stops the lease */
	t_mad(test, T_LR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0, NULL,
	      0, T_MKEY, 0);
	KUNIT_EXPECT_EQ(test, t->res, T_REPLY);
	KUNIT_EXPECT_EQ(test, rvp->mkey_lease_timeout, 0);
	/* a wrong one starts it again; let it run out */
	t_mad(test, T_LR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0, NULL,
	      0, 5, 0);
	KUNIT_ASSERT_NE(test, rvp->mkey_lease_timeout, 0);
	rvp->mkey_lease_timeout = jiffies - 1;
	t_mad(test, T_LR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 0, NULL,
	      0, 5, 0);
	KUNIT_EXPECT_EQ(test, t->res, T_REPLY);
	KUNIT_EXPECT_EQ(test, t_data(t)[34] >> 6, 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t_data(t) + 44), 2);
	/* with M_Key 0 nothing is checked */
	rvp->mkey = 0;
	rvp->mkeyprot = 3;
	t_mad(test, T_LR, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0, NULL,
	      0, 5, 0);
	KUNIT_EXPECT_EQ(test, t->res, T_REPLY);
}

/* ---- PMA ------------------------------------------------------------------ */

static u16 t_pma(struct kunit *test, u8 method, __be16 attr, u8 port,
		 __be16 select)
{
	u8 req[40] = {};

	req[1] = port;
	memcpy(req + 2, &select, 2);
	return t_mad(test, T_PERF, method, attr, 0, req, sizeof(req), 0, 0);
}

static u8 *t_pma_data(struct t_sma *t)
{
	return ((struct ib_pma_mad *)&t->out)->data;
}

static void pma_class_port_info(struct kunit *test)
{
	struct t_sma *t = test->priv;
	u8 *d;

	KUNIT_ASSERT_EQ(test, t_pma(test, IB_MGMT_METHOD_GET,
				    IB_PMA_CLASS_PORT_INFO, 0, 0), 0);
	d = t_pma_data(t);
	KUNIT_EXPECT_EQ(test, d[0], 1);
	KUNIT_EXPECT_EQ(test, d[1], 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 2), 1 << 9);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 4) & 0x1f, 18);
}

static void pma_counters(struct kunit *test)
{
	struct t_sma *t = test->priv;
	struct softib_counters *cnt = &t->port->cnt;
	u8 *d;

	atomic64_set(&cnt->xmit_data, 0x100000005ULL);	/* past 32 bits */
	atomic64_set(&cnt->rcv_data, 1000);
	atomic64_set(&cnt->xmit_pkts, 0xffffffffULL);
	atomic64_set(&cnt->rcv_pkts, 77);
	atomic64_set(&cnt->rcv_errors, 0x12345);		/* past 16 bits */
	atomic64_set(&cnt->xmit_discards, 3);
	softib_sma_link_change(t->port, true);
	softib_sma_link_change(t->port, false);

	KUNIT_ASSERT_EQ(test, t_pma(test, IB_MGMT_METHOD_GET,
				    IB_PMA_PORT_COUNTERS, 1, 0), 0);
	d = t_pma_data(t);
	KUNIT_EXPECT_EQ(test, d[1], 1);				/* PortSelect */
	KUNIT_EXPECT_EQ(test, d[7], 1);				/* LinkDowned */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 8), 0xffff);	/* RcvErr */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 14), 3);	/* XmitDisc */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 24), 0xffffffff);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 28), 1000);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 32), 0xffffffff);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 36), 77);

	/* Set clears the selected ones only */
	KUNIT_ASSERT_EQ(test, t_pma(test, IB_MGMT_METHOD_SET,
				    IB_PMA_PORT_COUNTERS, 1,
				    IB_PMA_SEL_PORT_XMIT_DATA |
				    IB_PMA_SEL_PORT_RCV_ERRORS |
				    IB_PMA_SEL_LINK_DOWNED), 0);
	d = t_pma_data(t);
	KUNIT_EXPECT_EQ(test, d[7], 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 8), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 24), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 28), 1000);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 14), 3);
	/* and they count on from there */
	atomic64_add(10, &cnt->xmit_data);
	KUNIT_ASSERT_EQ(test, t_pma(test, IB_MGMT_METHOD_GET,
				    IB_PMA_PORT_COUNTERS, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(t_pma_data(t) + 24), 10);

	/* the extended counters are 64-bit and were not cleared */
	KUNIT_ASSERT_EQ(test, t_pma(test, IB_MGMT_METHOD_GET,
				    IB_PMA_PORT_COUNTERS_EXT, 1, 0), 0);
	d = t_pma_data(t);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 8), 0x10000000fULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 16), 1000);

	/* a port that is not there */
	KUNIT_EXPECT_EQ(test, t_pma(test, IB_MGMT_METHOD_GET,
				    IB_PMA_PORT_COUNTERS, 2, 0), 0x1c);
	KUNIT_EXPECT_EQ(test, t_pma(test, IB_MGMT_METHOD_SET,
				    IB_PMA_PORT_COUNTERS_EXT, 2,
				    cpu_to_be16(0xff)), 0x1c);
}

static void pma_counters_ext(struct kunit *test)
{
	struct t_sma *t = test->priv;
	struct softib_counters *cnt = &t->port->cnt;
	u8 *d;

	atomic64_set(&cnt->xmit_data, 0x123456789aULL);
	atomic64_set(&cnt->xmit_pkts, 100);
	atomic64_set(&cnt->xmit_mcast_pkts, 30);
	atomic64_set(&cnt->rcv_pkts, 50);
	atomic64_set(&cnt->rcv_mcast_pkts, 5);
	KUNIT_ASSERT_EQ(test, t_pma(test, IB_MGMT_METHOD_GET,
				    IB_PMA_PORT_COUNTERS_EXT, 1, 0), 0);
	d = t_pma_data(t);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 8), 0x123456789aULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 24), 100);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 32), 50);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 40), 70);	/* uni xmit */
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 48), 45);	/* uni rcv */
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 56), 30);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 64), 5);

	KUNIT_ASSERT_EQ(test, t_pma(test, IB_MGMT_METHOD_SET,
				    IB_PMA_PORT_COUNTERS_EXT, 1,
				    IB_PMA_SELX_PORT_XMIT_DATA |
				    IB_PMA_SELX_PORT_MULTI_XMIT_PACKETS), 0);
	d = t_pma_data(t);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 8), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 24), 100);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(d + 56), 0);
	/* PortCounters' own view was not cleared */
	KUNIT_ASSERT_EQ(test, t_pma(test, IB_MGMT_METHOD_GET,
				    IB_PMA_PORT_COUNTERS, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(t_pma_data(t) + 24),
			0xffffffff);
}

static struct kunit_case softib_sma_cases[] = {
	KUNIT_CASE(sma_node_info),
	KUNIT_CASE(sma_node_desc),
	KUNIT_CASE(sma_port_info_layout),
	KUNIT_CASE(sma_guid_info),
	KUNIT_CASE(sma_pkey_table),
	KUNIT_CASE(sma_sl_to_vl),
	KUNIT_CASE(sma_vl_arb),
	KUNIT_CASE_PARAM(sma_status, t_status_gen_params),
	KUNIT_CASE_PARAM(sma_port_state, t_state_gen_params),
	KUNIT_CASE_PARAM(sma_port_field, t_field_gen_params),
	KUNIT_CASE(sma_port_rvp),
	KUNIT_CASE(sma_port_disable),
	KUNIT_CASE(sma_link_change),
	KUNIT_CASE_PARAM(sma_mkey, t_mkey_gen_params),
	KUNIT_CASE(sma_mkey_lease),
	KUNIT_CASE(pma_class_port_info),
	KUNIT_CASE(pma_counters),
	KUNIT_CASE(pma_counters_ext),
	{}
};

static struct kunit_suite softib_sma_suite = {
	.name = "softib_sma",
	.init = t_init,
	.exit = t_exit,
	.test_cases = softib_sma_cases,
};

kunit_test_suite(softib_sma_suite);

MODULE_DESCRIPTION("KUnit tests for the softib SMA and PMA");
MODULE_LICENSE("GPL");
