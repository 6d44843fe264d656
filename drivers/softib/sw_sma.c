// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the subnet management agent of a switch (IBA vol 1 14.2.5), what
 * a switch's firmware answers on its management port 0: NodeDescription,
 * NodeInfo, SwitchInfo, GUIDInfo, PortInfo (port 0 and each external port),
 * P_KeyTable, SLtoVLMappingTable, VLArbitrationTable and the linear and
 * multicast forwarding tables. sw_fwd.c hands it every SMP addressed to the
 * switch (directed route or LID routed); it turns the MAD into its GetResp
 * in place. It runs in the receive softirq under sw->lock.
 *
 * The switch has a base port 0 (EnhancedPort0 0): port 0 always reads
 * ACTIVE and holds the LID, the M_Key and the SM's LID; the external ports
 * have only link state, MTU and VL fields (their LID reads 0).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/unaligned.h>
#include <rdma/ib_mad.h>

#include "sw.h"

#define SW_PKEYS_PER_BLOCK	32
#define SW_MFT_PER_BLOCK	32	/* MLIDs of one MFT block */
#define SW_MFT_PORTS		16	/* ports of one MFT position */
#define SW_LFT_PER_BLOCK	IB_SMP_DATA_SIZE
#define SW_PORT_CAPS		(IB_PORT_SYS_IMAGE_GUID_SUP | \
				 IB_PORT_SL_MAP_SUP)

/* SwitchInfo, by octet (IBA 14.2.5.4) */
#define SI_LFT_CAP		0
#define SI_RFT_CAP		2
#define SI_MFT_CAP		4
#define SI_LFT_TOP		6
#define SI_DEF_PORT		8
#define SI_DEF_MC_PRIMARY	9
#define SI_DEF_MC_NOT_PRIMARY	10
#define SI_LIFE_STATE		11	/* LifeTime 7:3, PortStateChange 2 */
#define SI_LIDS_PER_PORT	12
#define SI_PART_ENF_CAP		14
#define SI_PSC			BIT(2)

/* One SMP being answered. */
struct sw_ctx {
	struct softib_sw *sw;
	u32 mod;
	u8 in_port;
	bool hide_mkey;
};

/* M_Key check, of port 0's key: it guards the whole switch (14.2.4). */
static bool sw_mkey_ok(struct softib_sw *sw, const struct ib_smp *smp,
		       bool *hide_mkey)
{
	struct softib_mkey_ref m = {
		.key = sw->mkey,
		.lease_period = sw->mkey_lease_period,
		.prot = &sw->mkeyprot,
		.lease_timeout = &sw->mkey_lease_timeout,
		.violations = &sw->mkey_violations,
	};

	lockdep_assert_held(&sw->lock);
	return softib_mkey_check(&m, smp, false, hide_mkey);
}

/* ---- Get ---------------------------------------------------------------- */

static u16 sw_get_node_desc(struct sw_ctx *c, u8 *data)
{
	if (c->mod)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memcpy(data, c->sw->desc, IB_SMP_DATA_SIZE);
	return 0;
}

static u16 sw_get_node_info(struct sw_ctx *c, u8 *data)
{
	struct ib_node_info *ni = (struct ib_node_info *)data;

	if (c->mod)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = 1;
	ni->node_type = RDMA_NODE_IB_SWITCH;
	ni->num_ports = c->sw->nports;
	ni->sys_guid = c->sw->guid;
	ni->node_guid = c->sw->guid;
	ni->port_guid = c->sw->guid;
	ni->partition_cap = cpu_to_be16(SOFTIB_NPKEYS);
	ni->device_id = cpu_to_be16(SOFTIB_SW_DEVICE_ID);
	ni->revision = cpu_to_be32(SOFTIB_HW_REV);
	ni->local_port_num = c->in_port;
	put_unaligned_be24(SOFTIB_VENDOR_ID, ni->vendor_id);
	return 0;
}

static u16 sw_get_switch_info(struct sw_ctx *c, u8 *d)
{
	struct softib_sw *sw = c->sw;

	if (c->mod)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	put_unaligned_be16(SOFTIB_SW_LFT_CAP, d + SI_LFT_CAP);
	put_unaligned_be16(0, d + SI_RFT_CAP);
	put_unaligned_be16(SOFTIB_SW_MFT_CAP, d + SI_MFT_CAP);
	put_unaligned_be16(sw->lft_top, d + SI_LFT_TOP);
	d[SI_DEF_PORT] = sw->default_port;
	d[SI_DEF_MC_PRIMARY] = sw->default_mcast_primary;
	d[SI_DEF_MC_NOT_PRIMARY] = sw->default_mcast_not_primary;
	d[SI_LIFE_STATE] = sw->life_time << 3 | (sw->psc ? SI_PSC : 0);
	put_unaligned_be16(0, d + SI_LIDS_PER_PORT);
	put_unaligned_be16(0, d + SI_PART_ENF_CAP);
	return 0;
}

static u16 sw_get_guid_info(struct sw_ctx *c, u8 *data)
{
	if (c->mod)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memcpy(data, &c->sw->guid, sizeof(c->sw->guid));
	return 0;
}

/* PortInfo's modifier is the port, 0 being the management port itself. */
static struct softib_sw_port *sw_pi_port(struct sw_ctx *c)
{
	return c->mod <= c->sw->nports ? &c->sw->port[c->mod] : NULL;
}

static void sw_get_port0(struct sw_ctx *c, struct ib_port_info *pi)
{
	struct softib_sw *sw = c->sw;

	pi->mkey = c->hide_mkey ? 0 : sw->mkey;
	pi->gid_prefix = sw->gid_prefix;
	pi->lid = cpu_to_be16(sw->lid);
	pi->sm_lid = cpu_to_be16(sw->sm_lid);
	pi->cap_mask = cpu_to_be32(SW_PORT_CAPS);
	pi->mkey_lease_period = cpu_to_be16(sw->mkey_lease_period);
	/* opensm ignores a base port 0 that is not ACTIVE: it always is */
	pi->linkspeed_portstate = SOFTIB_SPEED_SUPPORTED << 4 | IB_PORT_ACTIVE;
	pi->portphysstate_linkdown = IB_PORT_PHYS_STATE_LINK_UP << 4 |
				     IB_PORT_PHYS_STATE_POLLING;
	pi->mkeyprot_resv_lmc = sw->mkeyprot << 6 | sw->lmc;
	pi->neighbormtu_mastersmsl = SOFTIB_MAX_MTU << 4 | sw->sm_sl;
	pi->inittypereply_mtucap = SOFTIB_MAX_MTU;
	pi->operationalvl_pei_peo_fpi_fpo = SOFTIB_VL_CAP << 4;
	pi->mkey_violations = cpu_to_be16(sw->mkey_violations);
	pi->guid_cap = 1;
	pi->clientrereg_resv_subnetto = sw->subnet_timeout & 0x1f;
	pi->resv_resptimevalue = SOFTIB_RESP_TIME;
}

static u16 sw_get_port_info(struct sw_ctx *c, u8 *data)
{
	struct ib_port_info *pi = (struct ib_port_info *)data;
	struct softib_sw_port *p = sw_pi_port(c);
	struct net_device *ndev;
	u8 mtu_cap = IB_MTU_256;

	lockdep_assert_held(&c->sw->lock);
	if (!p)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	pi->local_port_num = c->in_port;
	pi->link_width_supported = SOFTIB_WIDTH_SUPPORTED;
	pi->link_width_active = SOFTIB_LINK_WIDTH;
	pi->vlcap_inittype = SOFTIB_VL_CAP << 4;
	pi->vl_arb_high_cap = SOFTIB_VL_ARB_CAP;
	pi->vl_arb_low_cap = SOFTIB_VL_ARB_CAP;
	if (!p->num) {
		pi->link_width_enabled = SOFTIB_WIDTH_SUPPORTED;
		pi->linkspeedactive_enabled = SOFTIB_LINK_SPEED << 4 |
					      SOFTIB_SPEED_SUPPORTED;
		sw_get_port0(c, pi);
		return 0;
	}
	rcu_read_lock();
	ndev = rcu_dereference(p->ndev);
	if (ndev)
		mtu_cap = softib_ndev_mtu(ndev);
	rcu_read_unlock();
	pi->link_width_enabled = p->link_width_enabled;
	pi->linkspeed_portstate = SOFTIB_SPEED_SUPPORTED << 4 | p->state;
	pi->portphysstate_linkdown = p->phys_state << 4 | p->link_down_default;
	pi->linkspeedactive_enabled = SOFTIB_LINK_SPEED << 4 |
				      p->link_speed_enabled;
	pi->neighbormtu_mastersmsl = p->mtu << 4;
	pi->vl_high_limit = p->vl_high_limit;
	pi->inittypereply_mtucap = mtu_cap;
	pi->vlstallcnt_hoqlife = p->vlstall_hoqlife;
	pi->operationalvl_pei_peo_fpi_fpo = p->op_vls << 4;
	pi->localphyerrors_overrunerrors = p->phy_overrun_thresholds;
	pi->resv_resptimevalue = SOFTIB_RESP_TIME;
	return 0;
}

/* P_KeyTable: modifier port << 16 | block; every port shows port 0's. */
static u16 sw_get_pkey_table(struct sw_ctx *c, u8 *data)
{
	__be16 *p = (__be16 *)data;
	unsigned int i;

	if ((c->mod >> 16) > c->sw->nports || (c->mod & 0xffff))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	for (i = 0; i < SOFTIB_NPKEYS; i++)
		p[i] = cpu_to_be16(c->sw->pkeys[i]);
	return 0;
}

/* SLtoVLMappingTable: modifier in << 8 | out (ports 0..nports). */
static u8 *sw_sl2vl_row(struct sw_ctx *c)
{
	u32 in = (c->mod >> 8) & 0xff, out = c->mod & 0xff;
	u32 n = c->sw->nports + 1;

	if ((c->mod >> 16) || in >= n || out >= n)
		return NULL;
	return c->sw->sl2vl + (in * n + out) * 8;
}

static u16 sw_get_sl2vl(struct sw_ctx *c, u8 *data)
{
	u8 *row = sw_sl2vl_row(c);

	if (!row)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memcpy(data, row, 8);
	return 0;
}

/* VLArbitrationTable: modifier block (1-4) << 16 | port (1..nports). */
static u8 *sw_vl_arb(struct sw_ctx *c)
{
	u32 block = c->mod >> 16, port = c->mod & 0xffff;

	if (block < 1 || block > 4 || port < 1 || port > c->sw->nports)
		return NULL;
	return c->sw->port[port].vl_arb[block - 1];
}

static u16 sw_get_vl_arb(struct sw_ctx *c, u8 *data)
{
	u8 *t = sw_vl_arb(c);

	if (!t)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memcpy(data, t, IB_SMP_DATA_SIZE);
	return 0;
}

static bool sw_lft_block_ok(struct sw_ctx *c)
{
	return c->mod < SOFTIB_SW_LFT_CAP / SW_LFT_PER_BLOCK;
}

static u16 sw_get_lft(struct sw_ctx *c, u8 *data)
{
	if (!sw_lft_block_ok(c))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memcpy(data, c->sw->lft + c->mod * SW_LFT_PER_BLOCK, SW_LFT_PER_BLOCK);
	return 0;
}

/* MFT: modifier position (bits 31-28, 16 ports each) | block (bits 8-0). */
static bool sw_mft_mod_ok(struct sw_ctx *c)
{
	u32 pos = c->mod >> 28, block = c->mod & 0x1ff;

	return !(c->mod & 0x0ffffe00) && pos * SW_MFT_PORTS <= c->sw->nports &&
	       block < SOFTIB_SW_MFT_CAP / SW_MFT_PER_BLOCK;
}

static u16 sw_get_mft(struct sw_ctx *c, u8 *data)
{
	u32 pos = c->mod >> 28, block = c->mod & 0x1ff, i;
	const u64 *m;

	if (!sw_mft_mod_ok(c))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	m = c->sw->mft + block * SW_MFT_PER_BLOCK;
	for (i = 0; i < SW_MFT_PER_BLOCK; i++)
		put_unaligned_be16(m[i] >> (pos * SW_MFT_PORTS),
				   data + 2 * i);
	return 0;
}

/* ---- Set (every check before any change: a refused Set is a no-op) ------ */

static u16 sw_set_switch_info(struct sw_ctx *c, const u8 *d)
{
	struct softib_sw *sw = c->sw;
	u16 top = get_unaligned_be16(d + SI_LFT_TOP);

	if (c->mod)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	if (top >= SOFTIB_SW_LFT_CAP ||
	    d[SI_DEF_PORT] > sw->nports)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	WRITE_ONCE(sw->lft_top, top);
	sw->default_port = d[SI_DEF_PORT];
	sw->default_mcast_primary = d[SI_DEF_MC_PRIMARY];
	sw->default_mcast_not_primary = d[SI_DEF_MC_NOT_PRIMARY];
	sw->life_time = d[SI_LIFE_STATE] >> 3;
	/* PortStateChange: writing 1 clears it, 0 leaves it */
	if (d[SI_LIFE_STATE] & SI_PSC)
		sw->psc = false;
	return 0;
}

static u16 sw_set_port0(struct sw_ctx *c, const struct ib_port_info *pi)
{
	struct softib_sw *sw = c->sw;
	u16 lid = be16_to_cpu(pi->lid), sm_lid = be16_to_cpu(pi->sm_lid);

	if (!softib_ucast_lid_ok(lid, sw->lid) ||
	    !softib_ucast_lid_ok(sm_lid, sw->sm_lid))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	WRITE_ONCE(sw->lid, lid);
	sw->lmc = pi->mkeyprot_resv_lmc & 7;
	sw->sm_lid = sm_lid;
	sw->sm_sl = pi->neighbormtu_mastersmsl & 0xf;
	sw->gid_prefix = pi->gid_prefix;
	sw->mkey = pi->mkey;
	sw->mkeyprot = pi->mkeyprot_resv_lmc >> 6;
	sw->mkey_lease_period = be16_to_cpu(pi->mkey_lease_period);
	sw->mkey_violations = be16_to_cpu(pi->mkey_violations);
	sw->subnet_timeout = pi->clientrereg_resv_subnetto & 0x1f;
	return 0;
}

static u16 sw_pi_check(struct softib_sw_port *p, const struct ib_port_info *pi)
{
	u8 state = pi->linkspeed_portstate & 0xf;
	u8 ldd = pi->portphysstate_linkdown & 0xf;
	u8 mtu = pi->neighbormtu_mastersmsl >> 4;
	u8 opvls = pi->operationalvl_pei_peo_fpi_fpo >> 4;

	if (!softib_enable_ok(pi->link_width_enabled, 0xff,
			      SOFTIB_WIDTH_SUPPORTED) ||
	    !softib_enable_ok(pi->linkspeedactive_enabled & 0xf, 0xf,
			      SOFTIB_SPEED_SUPPORTED))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	/* PortPhysicalState: Polling and Disabled act, the rest keep */
	if ((mtu && (mtu < IB_MTU_256 || mtu > SOFTIB_MAX_MTU)) ||
	    opvls > SOFTIB_VL_CAP || ldd > IB_PORT_PHYS_STATE_POLLING)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	switch (state) {
	case IB_PORT_NOP:
	case IB_PORT_DOWN:
		return 0;
	case IB_PORT_ARMED:
		return p->state == IB_PORT_INIT || p->state == IB_PORT_ARMED ?
		       0 : IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	case IB_PORT_ACTIVE:
		return p->state == IB_PORT_ARMED || p->state == IB_PORT_ACTIVE ?
		       0 : IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	default:
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	}
}

/*
 * An external port: its LID, SM LID, M_Key and GID prefix fields are
 * port 0's business and are ignored (IBA 14.2.5.6, switch external ports).
 */
static u16 sw_set_port_info(struct sw_ctx *c, const u8 *data)
{
	const struct ib_port_info *pi = (const struct ib_port_info *)data;
	struct softib_sw_port *p = sw_pi_port(c);
	u8 state = pi->linkspeed_portstate & 0xf;
	u8 phys = pi->portphysstate_linkdown >> 4;
	u8 ldd = pi->portphysstate_linkdown & 0xf;
	u8 mtu = pi->neighbormtu_mastersmsl >> 4;
	u8 opvls = pi->operationalvl_pei_peo_fpi_fpo >> 4;
	u16 status;

	lockdep_assert_held(&c->sw->lock);
	if (!p)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	if (!p->num)
		return sw_set_port0(c, pi);
	status = sw_pi_check(p, pi);
	if (status)
		return status;
	p->link_width_enabled = softib_enable_new(pi->link_width_enabled, 0xff,
						  SOFTIB_WIDTH_SUPPORTED,
						  p->link_width_enabled);
	p->link_speed_enabled =
		softib_enable_new(pi->linkspeedactive_enabled & 0xf, 0xf,
				  SOFTIB_SPEED_SUPPORTED, p->link_speed_enabled);
	if (mtu)
		WRITE_ONCE(p->mtu, mtu);
	if (opvls)
		p->op_vls = opvls;
	if (ldd)
		p->link_down_default = ldd;
	p->vl_high_limit = pi->vl_high_limit;
	p->vlstall_hoqlife = pi->vlstallcnt_hoqlife;
	p->phy_overrun_thresholds = pi->localphyerrors_overrunerrors;

	if (phys == IB_PORT_PHYS_STATE_DISABLED) {
		WRITE_ONCE(p->phys_state, phys);
		softib_sw_link_train(p);
	} else if (phys == IB_PORT_PHYS_STATE_POLLING ||
		   state == IB_PORT_DOWN) {
		/* retrain: the link comes back to INIT if it has a carrier */
		WRITE_ONCE(p->phys_state, IB_PORT_PHYS_STATE_POLLING);
		WRITE_ONCE(p->state, IB_PORT_DOWN);
		softib_sw_link_train(p);
	} else if (state == IB_PORT_ARMED || state == IB_PORT_ACTIVE) {
		WRITE_ONCE(p->state, state);
	}
	return 0;
}

static u16 sw_set_pkey_table(struct sw_ctx *c, const u8 *data)
{
	const __be16 *p = (const __be16 *)data;
	unsigned int i;

	/* port 0's table only: the external ports enforce nothing */
	if (c->mod)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	for (i = 0; i < SOFTIB_NPKEYS; i++)
		c->sw->pkeys[i] = be16_to_cpu(p[i]);
	return 0;
}

static u16 sw_set_sl2vl(struct sw_ctx *c, const u8 *data)
{
	u8 *row = sw_sl2vl_row(c);
	unsigned int i;

	if (!row)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	/* VL0 or VL15 (drop): the only VLs a VLCap of 1 leaves */
	for (i = 0; i < 8; i++) {
		u8 hi = data[i] >> 4, lo = data[i] & 0xf;

		if ((hi && hi != 15) || (lo && lo != 15))
			return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	}
	memcpy(row, data, 8);
	return 0;
}

static u16 sw_set_vl_arb(struct sw_ctx *c, const u8 *data)
{
	u8 *t = sw_vl_arb(c);

	if (!t)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memcpy(t, data, IB_SMP_DATA_SIZE);
	return 0;
}

static u16 sw_set_lft(struct sw_ctx *c, const u8 *data)
{
	u8 *lft = c->sw->lft;
	unsigned int i;

	if (!sw_lft_block_ok(c))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	for (i = 0; i < SW_LFT_PER_BLOCK; i++)
		WRITE_ONCE(lft[c->mod * SW_LFT_PER_BLOCK + i], data[i]);
	return 0;
}

static u16 sw_set_mft(struct sw_ctx *c, const u8 *data)
{
	u32 pos = c->mod >> 28, block = c->mod & 0x1ff, i;
	u64 keep = ~((u64)0xffff << (pos * SW_MFT_PORTS));
	u64 *m;

	if (!sw_mft_mod_ok(c))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	m = c->sw->mft + block * SW_MFT_PER_BLOCK;
	for (i = 0; i < SW_MFT_PER_BLOCK; i++) {
		u64 bits = (u64)get_unaligned_be16(data + 2 * i) <<
			   (pos * SW_MFT_PORTS);

		/* ports the switch does not have never get a copy */
		bits &= GENMASK_ULL(c->sw->nports, 0);
		WRITE_ONCE(m[i], (m[i] & keep) | bits);
	}
	return 0;
}

/* ---- dispatch ---------------------------------------------------------- */

struct sw_attr {
	__be16 id;
	u16 (*get)(struct sw_ctx *c, u8 *data);
	u16 (*set)(struct sw_ctx *c, const u8 *data);	/* NULL: read-only */
};

static const struct sw_attr sw_attrs[] = {
	{ IB_SMP_ATTR_NODE_DESC, sw_get_node_desc, NULL },
	{ IB_SMP_ATTR_NODE_INFO, sw_get_node_info, NULL },
	{ IB_SMP_ATTR_SWITCH_INFO, sw_get_switch_info, sw_set_switch_info },
	{ IB_SMP_ATTR_GUID_INFO, sw_get_guid_info, NULL },
	{ IB_SMP_ATTR_PORT_INFO, sw_get_port_info, sw_set_port_info },
	{ IB_SMP_ATTR_PKEY_TABLE, sw_get_pkey_table, sw_set_pkey_table },
	{ IB_SMP_ATTR_SL_TO_VL_TABLE, sw_get_sl2vl, sw_set_sl2vl },
	{ IB_SMP_ATTR_VL_ARB_TABLE, sw_get_vl_arb, sw_set_vl_arb },
	{ IB_SMP_ATTR_LINEAR_FORWARD_TABLE, sw_get_lft, sw_set_lft },
	{ IB_SMP_ATTR_MCAST_FORWARD_TABLE, sw_get_mft, sw_set_mft },
};

static bool sw_reply(struct ib_smp *smp, u16 status)
{
	smp->method = IB_MGMT_METHOD_GET_RESP;
	smp->status = cpu_to_be16(status);
	if (smp->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		smp->status |= IB_SMP_DIRECTION;
	return true;
}

/**
 * softib_sw_sma - answer one SMP addressed to the switch
 * @sw: the switch
 * @in_port: the port it arrived on (NodeInfo and PortInfo report it)
 * @smp: the MAD, turned into its GetResp in place
 *
 * Return: true if @smp is now the response to send back; false if nothing
 * goes back (a response, a trap, an SMP refused by the M_Key).
 */
bool softib_sw_sma(struct softib_sw *sw, u8 in_port, struct ib_smp *smp)
{
	struct sw_ctx c = {
		.sw = sw, .mod = be32_to_cpu(smp->attr_mod), .in_port = in_port,
	};
	u8 req[IB_SMP_DATA_SIZE];
	const struct sw_attr *a = NULL;
	unsigned int i;
	u16 status;

	if (smp->method != IB_MGMT_METHOD_GET &&
	    smp->method != IB_MGMT_METHOD_SET) {
		if (smp->method & IB_MGMT_METHOD_RESP ||
		    smp->method == IB_MGMT_METHOD_TRAP ||
		    smp->method == IB_MGMT_METHOD_TRAP_REPRESS)
			return false;
		return sw_reply(smp, IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD);
	}
	if (smp->base_version != IB_MGMT_BASE_VERSION ||
	    smp->class_version != 1)
		return sw_reply(smp, IB_MGMT_MAD_STATUS_BAD_VERSION);

	spin_lock_bh(&sw->lock);
	if (!sw_mkey_ok(sw, smp, &c.hide_mkey)) {
		spin_unlock_bh(&sw->lock);
		return false;
	}
	for (i = 0; i < ARRAY_SIZE(sw_attrs); i++)
		if (sw_attrs[i].id == smp->attr_id)
			a = &sw_attrs[i];
	if (!a || (smp->method == IB_MGMT_METHOD_SET && !a->set)) {
		spin_unlock_bh(&sw->lock);
		return sw_reply(smp,
				IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	}
	memcpy(req, smp->data, sizeof(req));
	memset(smp->data, 0, sizeof(smp->data));
	status = smp->method == IB_MGMT_METHOD_SET ? a->set(&c, req) : 0;
	/* the answer is the attribute as it is now */
	status = a->get(&c, smp->data) ?: status;
	spin_unlock_bh(&sw->lock);
	return sw_reply(smp, status);
}

/* A port's PortInfo after a reset (not bound: DOWN, Polling). */
void softib_sw_port_reset(struct softib_sw_port *p)
{
	p->carrier = false;
	p->state = IB_PORT_DOWN;
	p->phys_state = IB_PORT_PHYS_STATE_POLLING;
	p->link_down_default = IB_PORT_PHYS_STATE_POLLING;
	p->mtu = SOFTIB_MAX_MTU;
	p->op_vls = SOFTIB_VL_CAP;
	p->vl_high_limit = 0;
	p->vlstall_hoqlife = 0;
	p->phy_overrun_thresholds = 0;
	p->link_width_enabled = SOFTIB_WIDTH_SUPPORTED;
	p->link_speed_enabled = SOFTIB_SPEED_SUPPORTED;
	memset(p->vl_arb, 0, sizeof(p->vl_arb));
}
