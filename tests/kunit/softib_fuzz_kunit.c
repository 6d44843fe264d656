// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded, deterministic fuzzer over softib's receive parsers (see
 * docs/wire-fuzzing.md, "softib"). Four cases, each run once per seed:
 *
 *   fuzz_rx     mutated IB frames through softib_ud_rcv(), the function the
 *               carrier's rx handler calls, on a test device with QP0, QP1,
 *               a UD QP and a multicast group; whatever reaches QP0 or QP1
 *               goes on to softib_process_mad() as ib_mad would hand it over;
 *   fuzz_mad    mutated SMPs and PerfMgt MADs straight into
 *               softib_process_mad() (the SMA's and the PMA's entry);
 *   fuzz_ud_seq sequences of UD packets, too large for the next receive
 *               WQE or not, to the UD QP with WQEs posted (fuzz_ud_seq());
 *               the DMA MR's references return to zero at the end;
 *   fuzz_rc     sequences against an RC QP with MRs (R_Keys of the MRs, 0
 *               and any; READ duplicates, RNR retries), MR references
 *               checked after every frame (fuzz_rc()).
 *
 * The seeds are valid frames and MADs: a LID-routed and a directed-route
 * SubnGet and SubnSet for every attribute the SMA handles, PMA gets and a
 * clear, an SA MAD on QP1, UD sends with and without GRH and ImmDt, a
 * multicast send. The mutations: bit flips, bytes set to boundary values,
 * truncation and extension, LRH PktLen / GRH PayLen / BTH PadCnt edits, a
 * GRH or ImmDt put in or taken out, the payload cut to a boundary length,
 * header fields swapped, field-aware edits (LRH, GRH, BTH, DETH, MAD
 * header, PortInfo octets, PMA selects), splices of two seeds; then, half
 * the time, lengths made to agree again and, three times in four, the ICRC
 * made right, so that mutations get past the link-level checks.
 *
 * What must hold after every input: no splat (the VM runs panic_on_warn,
 * lockdep, kmemleak, DEBUG_OBJECTS); exactly one drop counter moved
 * (reaching a QP's empty receive queue counts as no_rwqe: "accepted"); the
 * skb was freed; the drop reason agrees with softib_hdr_parse() on the same
 * bytes and a parsed packet's headers, payload and pad add up to its
 * PktLen; an accepted packet obeys a model of the receive rules
 * (fz_accept_check()); after every MAD the port's management state is in
 * its ranges and only an authorised SubnSet changed it (M_Key). At the end
 * the counters add up: fed = accepted + dropped, PortRcvPkts, PortRcvErrors.
 *
 * A failure names the seed and the input; insmod softib_fuzz_kunit.ko
 * fz_seed=SEED replays that seed alone (fz_iters=N: frames per seed).
 */
#include "drivers/softib/sma.c"
#include "drivers/softib/pma.c"

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu-refcount.h>
#include <linux/prandom.h>
#include <linux/rbtree.h>

#include "softib_test.h"
#include "softib_sma_test.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static unsigned long fz_seed;
module_param(fz_seed, ulong, 0444);
MODULE_PARM_DESC(fz_seed, "run this seed only (0: the built-in list)");
static unsigned int fz_iters = 3000;
module_param(fz_iters, uint, 0444);
MODULE_PARM_DESC(fz_iters, "frames per seed (fuzz_mad: five times as many MADs)");

static const unsigned long fz_seeds[] = {
	1, 2, 0x5eed, 20261126, 0xdeadbeef, 0x0123456789abcdef,
};

#define FZ_LID		4		/* base LID; LMC 0-2 */
#define FZ_SM_LID	1
#define FZ_MLID		0xc001
#define FZ_UDQPN	0x42
#define FZ_QKEY		0x11223344
#define FZ_PKEY		0x8123		/* P_Key index 1, the UD QP's */
#define FZ_MAD		sizeof(struct ib_mad)
#define FZ_CAP		512		/* the largest frame made */
#define FZ_MAX_SEEDS	48
#define FZ_RESET_EVERY	32		/* inputs between two port resets */

enum { FZ_QP0, FZ_QP1, FZ_QPUD, FZ_NQP };

static const u8 fz_mgid[16] = {
	0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
};

struct fz_seed {
	const char *name;
	u8 *buf;
	unsigned int len;
	int mad_off;		/* offset of the MAD in a frame, or -1 */
};

/* The management state only an authorised SubnSet may change. */
struct fz_snap {
	u32 lid, sm_lid;
	u8 lmc, state, phys_state, mtu, vl_high_limit, init_type_reply;
	u8 link_down_default, op_vls, vlstall_hoqlife, phy_overrun;
	u8 lwe, lse, sm_sl, mkeyprot, subnet_timeout;
	u16 pkeys[SOFTIB_NPKEYS], lease_period, pkey_viol, qkey_viol;
	u8 sl_to_vl[16];
	__be64 guids[SOFTIB_NGUIDS], gid_prefix, mkey;
	u8 vl_arb[4][IB_SMP_DATA_SIZE];
};

struct fz {
	struct kunit *test;
	struct t_sma *t;
	struct softib_port *port;
	unsigned long seed;
	struct rnd_state rnd;
	unsigned int iter;	/* the input being run */
	bool failed;

	struct rvt_qp *qp[FZ_NQP];
	struct rvt_krwq *kwq[FZ_NQP];
	struct rvt_qp_ibdev qp_dev;
	struct rvt_qp __rcu *buckets[2];
	struct rvt_mcast mc;
	struct rvt_mcast_qp mqp;

	struct fz_seed mads[FZ_MAX_SEEDS];	/* 256-byte MADs */
	unsigned int nmads;
	struct fz_seed frames[FZ_MAX_SEEDS];
	unsigned int nframes;
	u8 *in;				/* the input being run */
	struct ib_mad *mad, *out;
	struct fz_snap before, after;	/* the port around one MAD */

	/* tallies */
	u64 fed, accepted, acc_qp[FZ_NQP], acc_mcast;
	u64 drops[SOFTIB_DROP_NR];
	u64 mads_in, replies, consumed, passed, failures, sets_done;
	u64 unauthorised;
};

/* ---- randomness ---------------------------------------------------------- */

static u32 fz_rnd(struct fz *fz, u32 n)
{
	return n ? prandom_u32_state(&fz->rnd) % n : 0;
}

/* An offset in [0, len): two times in three among the first 100 bytes. */
static unsigned int fz_off(struct fz *fz, unsigned int len)
{
	if (len > 100 && fz_rnd(fz, 3))
		return fz_rnd(fz, 100);
	return fz_rnd(fz, len);
}

static const u8 fz_bytes[] = { 0, 0xff, 0x80, 0x7f, 0x01, 0xfe };

/* A boundary value for a byte. */
static u8 fz_byte(struct fz *fz)
{
	return fz_bytes[fz_rnd(fz, ARRAY_SIZE(fz_bytes))];
}

/* ---- failures ------------------------------------------------------------ */

static __printf(2, 3) void fz_fail(struct fz *fz, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (fz->failed)
		return;
	fz->failed = true;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	KUNIT_FAIL(fz->test, "seed %#lx input %u: %pV", fz->seed, fz->iter,
		   &vaf);
	va_end(args);
}

static void fz_dump(struct fz *fz, const char *what, const u8 *p,
		    unsigned int len)
{
	kunit_info(fz->test, "%s (%u bytes):\n", what, len);
	print_hex_dump(KERN_INFO, "    ", DUMP_PREFIX_OFFSET, 16, 1, p, len,
		       false);
}

/* ---- the port ------------------------------------------------------------ */

static void fz_snap(struct softib_port *port, struct fz_snap *s)
{
	struct rvt_ibport *rvp = &port->rvp;

	memset(s, 0, sizeof(*s));
	s->lid = port->lid;
	s->lmc = port->lmc;
	s->state = port->state;
	s->phys_state = port->phys_state;
	s->mtu = port->mtu;
	s->vl_high_limit = port->vl_high_limit;
	s->init_type_reply = port->init_type_reply;
	s->link_down_default = port->link_down_default;
	s->op_vls = port->op_vls;
	s->vlstall_hoqlife = port->vlstall_hoqlife;
	s->phy_overrun = port->phy_overrun_thresholds;
	s->lwe = port->link_width_enabled;
	s->lse = port->link_speed_enabled;
	memcpy(s->pkeys, port->pkeys, sizeof(s->pkeys));
	memcpy(s->sl_to_vl, port->sl_to_vl, sizeof(s->sl_to_vl));
	memcpy(s->guids, port->guids, sizeof(s->guids));
	memcpy(s->vl_arb, port->vl_arb, sizeof(s->vl_arb));
	s->sm_lid = rvp->sm_lid;
	s->sm_sl = rvp->sm_sl;
	s->gid_prefix = rvp->gid_prefix;
	s->mkey = rvp->mkey;
	s->mkeyprot = rvp->mkeyprot;
	s->lease_period = rvp->mkey_lease_period;
	s->subnet_timeout = rvp->subnet_timeout;
	s->pkey_viol = rvp->pkey_violations;
	s->qkey_viol = rvp->qkey_violations;
}

/* Every field within its range, and the states consistent. */
static void fz_port_check(struct fz *fz)
{
	struct softib_port *port = fz->port;
	struct rvt_ibport *rvp = &port->rvp;
	unsigned int i;

	if (port->lid >= SOFTIB_LID_MCAST_MIN ||
	    rvp->sm_lid >= SOFTIB_LID_MCAST_MIN)
		fz_fail(fz, "LID %#x / SM LID %#x not unicast", port->lid,
			rvp->sm_lid);
	if (port->lmc > 7 || rvp->mkeyprot > 3 || rvp->sm_sl > 15 ||
	    rvp->subnet_timeout > 31 || port->init_type_reply > 15)
		fz_fail(fz, "LMC %u, M_KeyProtect %u, SM SL %u, SubnetTimeOut %u, InitTypeReply %u",
			port->lmc, rvp->mkeyprot, rvp->sm_sl,
			rvp->subnet_timeout, port->init_type_reply);
	if (port->state < IB_PORT_DOWN || port->state > IB_PORT_ACTIVE)
		fz_fail(fz, "port state %u", port->state);
	if (port->phys_state != IB_PORT_PHYS_STATE_SLEEP &&
	    port->phys_state != IB_PORT_PHYS_STATE_POLLING &&
	    port->phys_state != IB_PORT_PHYS_STATE_DISABLED &&
	    port->phys_state != IB_PORT_PHYS_STATE_LINK_UP)
		fz_fail(fz, "physical state %u", port->phys_state);
	if (port->state != IB_PORT_DOWN &&
	    (port->phys_state != IB_PORT_PHYS_STATE_LINK_UP || !port->carrier))
		fz_fail(fz, "port state %u without a link (physical state %u)",
			port->state, port->phys_state);
	if (port->mtu < IB_MTU_256 || port->mtu > SOFTIB_MAX_MTU)
		fz_fail(fz, "neighbour MTU %u", port->mtu);
	if (port->op_vls < 1 || port->op_vls > SOFTIB_VL_CAP)
		fz_fail(fz, "OperationalVLs %u", port->op_vls);
	if (port->link_down_default != IB_PORT_PHYS_STATE_SLEEP &&
	    port->link_down_default != IB_PORT_PHYS_STATE_POLLING)
		fz_fail(fz, "LinkDownDefaultState %u", port->link_down_default);
	if (!port->link_width_enabled ||
	    (port->link_width_enabled & ~SOFTIB_WIDTH_SUPPORTED) ||
	    !port->link_speed_enabled ||
	    (port->link_speed_enabled & ~SOFTIB_SPEED_SUPPORTED))
		fz_fail(fz, "LinkWidthEnabled %#x / LinkSpeedEnabled %#x",
			port->link_width_enabled, port->link_speed_enabled);
	for (i = 0; i < ARRAY_SIZE(port->sl_to_vl); i++)
		if (port->sl_to_vl[i] > 15)
			fz_fail(fz, "SL %u to VL %u", i, port->sl_to_vl[i]);
	if (be64_to_cpu(port->guids[0]) != T_PORT_GUID)
		fz_fail(fz, "the port GUID changed to %#llx",
			be64_to_cpu(port->guids[0]));
}

/*
 * The port as an SM leaves it: LID FZ_LID (LMC 0-2), ACTIVE most of the
 * time, M_Key T_MKEY (sometimes none) at a random protect level, P_Key
 * FZ_PKEY at index 1 for the UD QP.
 */
static void fz_reset(struct fz *fz, bool plain)
{
	struct softib_port *port = fz->port;
	struct rvt_ibport *rvp = &port->rvp;
	static const u8 states[] = { IB_PORT_ACTIVE, IB_PORT_ACTIVE,
				     IB_PORT_ACTIVE, IB_PORT_ACTIVE,
				     IB_PORT_ACTIVE, IB_PORT_ACTIVE,
				     IB_PORT_ARMED, IB_PORT_INIT };
	unsigned long flags;

	softib_sma_port_init(port);
	softib_sma_link_change(port, true);
	spin_lock_irqsave(&rvp->lock, flags);
	WRITE_ONCE(port->lid, FZ_LID);
	WRITE_ONCE(port->lmc, plain ? 0 : fz_rnd(fz, 3));
	WRITE_ONCE(port->state, plain ? IB_PORT_ACTIVE :
		   states[fz_rnd(fz, ARRAY_SIZE(states))]);
	WRITE_ONCE(port->pkeys[1], FZ_PKEY);
	rvp->sm_lid = FZ_SM_LID;
	rvp->mkey = plain || fz_rnd(fz, 8) ? cpu_to_be64(T_MKEY) : 0;
	rvp->mkeyprot = plain ? 0 : fz_rnd(fz, 4);
	spin_unlock_irqrestore(&rvp->lock, flags);
	fz->t->nev = 0;
	fz_port_check(fz);
}

/* ---- the test device's QPs and multicast group --------------------------- */

static u8 *fz_alloc(struct fz *fz, size_t len)
{
	u8 *p = kunit_kzalloc(fz->test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(fz->test, p);
	return p;
}

/* A QP of the test device, ready to receive, its receive queue empty. */
static struct rvt_qp *fz_qp(struct fz *fz, int i, enum ib_qp_type type,
			    u32 qpn)
{
	fz->qp[i] = (struct rvt_qp *)fz_alloc(fz, sizeof(*fz->qp[i]));
	fz->kwq[i] = (struct rvt_krwq *)fz_alloc(fz, sizeof(*fz->kwq[i]));
	sib_qp_ready(fz->qp[i], fz->kwq[i], &fz->t->sdev->rdi.ibdev, type,
		     qpn);
	return fz->qp[i];
}

static void fz_device(struct fz *fz)
{
	struct softib_dev *sdev = fz->t->sdev;
	struct rvt_ibport *rvp = &fz->port->rvp;
	struct rvt_qp *ud;

	fz->qp_dev.qp_table_size = ARRAY_SIZE(fz->buckets);
	fz->qp_dev.qp_table_bits = 1;
	fz->qp_dev.qp_table = fz->buckets;
	sdev->rdi.qp_dev = &fz->qp_dev;
	RCU_INIT_POINTER(rvp->qp[0], fz_qp(fz, FZ_QP0, IB_QPT_SMI, 0));
	RCU_INIT_POINTER(rvp->qp[1], fz_qp(fz, FZ_QP1, IB_QPT_GSI, 1));
	ud = fz_qp(fz, FZ_QPUD, IB_QPT_UD, FZ_UDQPN);
	ud->qkey = FZ_QKEY;
	ud->s_pkey_index = 1;
	RCU_INIT_POINTER(fz->buckets[hash_32(FZ_UDQPN, 1)], ud);

	/* the UD QP is attached to one group */
	memcpy(fz->mc.mcast_addr.mgid.raw, fz_mgid, 16);
	fz->mc.mcast_addr.lid = FZ_MLID;
	INIT_LIST_HEAD(&fz->mc.qp_list);
	init_waitqueue_head(&fz->mc.wait);
	fz->mqp.qp = ud;
	list_add_tail(&fz->mqp.list, &fz->mc.qp_list);
	fz->mc.n_attached = 1;
	rvp->mcast_tree = RB_ROOT;
	rb_link_node(&fz->mc.rb_node, NULL, &rvp->mcast_tree.rb_node);
	rb_insert_color(&fz->mc.rb_node, &rvp->mcast_tree);
}

/* ---- seeds --------------------------------------------------------------- */

static struct ib_smp *fz_mad_seed(struct fz *fz, const char *name,
				  u8 mgmt_class, u8 method, __be16 attr,
				  u32 mod)
{
	struct fz_seed *s = &fz->mads[fz->nmads++];
	struct ib_smp *smp;

	s->name = name;
	s->buf = fz_alloc(fz, FZ_MAD);
	s->len = FZ_MAD;
	s->mad_off = 0;
	smp = (struct ib_smp *)s->buf;
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = mgmt_class;
	smp->class_version = mgmt_class == IB_MGMT_CLASS_SUBN_ADM ? 2 : 1;
	smp->method = method;
	smp->tid = cpu_to_be64(0x5eed0000 + fz->nmads);
	smp->attr_id = attr;
	smp->attr_mod = cpu_to_be32(mod);
	if (mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	    mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		smp->mkey = cpu_to_be64(T_MKEY);
	if (mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		/* one hop from the SM's port, arrived */
		smp->hop_cnt = 1;
		smp->hop_ptr = 1;
		smp->dr_slid = IB_LID_PERMISSIVE;
		smp->dr_dlid = IB_LID_PERMISSIVE;
		smp->initial_path[1] = 1;
	}
	return smp;
}

static const struct {
	const char *name;
	__be16 attr;
	u32 mod;
} fz_smp_attrs[] = {
	{ "NodeDescription", IB_SMP_ATTR_NODE_DESC, 0 },
	{ "NodeInfo", IB_SMP_ATTR_NODE_INFO, 0 },
	{ "GUIDInfo", IB_SMP_ATTR_GUID_INFO, 0 },
	{ "PortInfo", IB_SMP_ATTR_PORT_INFO, 0 },
	{ "P_KeyTable", IB_SMP_ATTR_PKEY_TABLE, 0 },
	{ "SLtoVLMappingTable", IB_SMP_ATTR_SL_TO_VL_TABLE, 0 },
	{ "VLArbitrationTable", IB_SMP_ATTR_VL_ARB_TABLE, 1 << 16 },
	{ "SMInfo", IB_SMP_ATTR_SM_INFO, 0 },
};

/* A SubnSet's data: what a Get of the baseline port answers. */
static void fz_set_data(struct fz *fz, struct ib_smp *smp)
{
	struct ib_mad *in = fz->mad;
	size_t size = FZ_MAD;
	u16 pkey_index;
	int res;

	memcpy(in, smp, FZ_MAD);
	in->mad_hdr.method = IB_MGMT_METHOD_GET;
	res = softib_process_mad(&fz->t->sdev->rdi.ibdev, 0, 1, NULL, NULL,
				 in, fz->out, &size, &pkey_index);
	if (!(res & IB_MAD_RESULT_REPLY) || fz->out->mad_hdr.status)
		return;		/* SMInfo: no data */
	memcpy(smp->data, ((struct ib_smp *)fz->out)->data, IB_SMP_DATA_SIZE);
	if (smp->attr_id == IB_SMP_ATTR_PORT_INFO) {
		smp->data[32] &= 0xf0;	/* PortState: no change */
		smp->data[33] &= 0x0f;	/* PortPhysicalState: no change */
	}
}

static void fz_build_mads(struct fz *fz)
{
	static const u8 classes[] = { IB_MGMT_CLASS_SUBN_LID_ROUTED,
				      IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE };
	static const u8 methods[] = { IB_MGMT_METHOD_GET, IB_MGMT_METHOD_SET };
	struct ib_smp *smp;
	unsigned int a, c, m;
	u8 *d;

	for (a = 0; a < ARRAY_SIZE(fz_smp_attrs); a++)
		for (c = 0; c < ARRAY_SIZE(classes); c++)
			for (m = 0; m < ARRAY_SIZE(methods); m++) {
				smp = fz_mad_seed(fz, fz_smp_attrs[a].name,
						  classes[c], methods[m],
						  fz_smp_attrs[a].attr,
						  fz_smp_attrs[a].mod);
				if (methods[m] == IB_MGMT_METHOD_SET)
					fz_set_data(fz, smp);
			}
	/* PerfMgt: PortCounters get and clear, the extended ones, CPI */
	smp = fz_mad_seed(fz, "PortCounters", IB_MGMT_CLASS_PERF_MGMT,
			  IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 0);
	smp->data[1] = 1;
	smp = fz_mad_seed(fz, "PortCounters clear", IB_MGMT_CLASS_PERF_MGMT,
			  IB_MGMT_METHOD_SET, IB_PMA_PORT_COUNTERS, 0);
	d = smp->data;
	d[1] = 1;
	d[2] = 0xff;
	d[3] = 0xff;
	smp = fz_mad_seed(fz, "PortCountersExtended", IB_MGMT_CLASS_PERF_MGMT,
			  IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS_EXT, 0);
	smp->data[1] = 1;
	fz_mad_seed(fz, "PMA ClassPortInfo", IB_MGMT_CLASS_PERF_MGMT,
		    IB_MGMT_METHOD_GET, IB_PMA_CLASS_PORT_INFO, 0);
	/* an SA query (not the SMA's: goes on to ib_mad's agents) */
	fz_mad_seed(fz, "SA NodeRecord", IB_MGMT_CLASS_SUBN_ADM,
		    IB_MGMT_METHOD_GET, cpu_to_be16(0x11), 0);
}

static void fz_frame_seed(struct fz *fz, const char *name,
			  struct softib_hdr *h, const u8 *payload,
			  unsigned int payload_len, bool mad)
{
	struct fz_seed *s = &fz->frames[fz->nframes++];

	s->name = name;
	s->buf = fz_alloc(fz, FZ_CAP);
	s->len = sib_make_data(h, s->buf, payload, payload_len);
	s->mad_off = mad ? softib_hdr_len(h) : -1;
}

static void fz_grh(struct softib_hdr *h, const u8 *dgid)
{
	h->lnh = SOFTIB_LNH_GLOBAL;
	h->ipver = SOFTIB_IPVER;
	h->nxthdr = SOFTIB_NXTHDR_IBA;
	h->hop_limit = 1;
	h->tclass = 0x20;
	h->flow_label = 0x12345;
	h->sgid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	h->sgid.global.interface_id = cpu_to_be64(0x0002c903000000ffULL);
	if (dgid) {
		memcpy(h->dgid.raw, dgid, 16);
	} else {
		h->dgid.global.subnet_prefix =
			cpu_to_be64(0xfe80000000000000ULL);
		h->dgid.global.interface_id = cpu_to_be64(T_PORT_GUID);
	}
}

static void fz_build_frames(struct fz *fz)
{
	struct softib_hdr h;
	unsigned int i;
	u8 *data;

	/* every MAD seed as the SM or a GSI client sends it */
	for (i = 0; i < fz->nmads; i++) {
		const struct ib_smp *smp = (void *)fz->mads[i].buf;
		bool is_smp = smp->mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
			      smp->mgmt_class ==
			      IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
		bool dr = smp->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;

		memset(&h, 0, sizeof(h));
		h.vl = is_smp ? 15 : 0;
		h.lnh = SOFTIB_LNH_LOCAL;
		h.dlid = dr ? SOFTIB_LID_PERMISSIVE : FZ_LID;
		h.slid = dr ? SOFTIB_LID_PERMISSIVE : FZ_SM_LID;
		h.opcode = SOFTIB_OP_UD_SEND_ONLY;
		h.pkey = 0xffff;
		h.dqpn = is_smp ? 0 : 1;
		h.psn = 0x100 + i;
		h.qkey = is_smp ? 0 : IB_QP1_QKEY;
		h.sqpn = is_smp ? 0 : 1;
		/* a PMA query across a router: with a GRH */
		if (smp->mgmt_class == IB_MGMT_CLASS_PERF_MGMT &&
		    smp->method == IB_MGMT_METHOD_GET)
			fz_grh(&h, NULL);
		fz_frame_seed(fz, fz->mads[i].name, &h, fz->mads[i].buf,
			      FZ_MAD, true);
	}

	data = fz_alloc(fz, 256);
	for (i = 0; i < 256; i++)
		data[i] = i;
	/* UD sends to the UD QP: LRH only; GRH and ImmDt; multicast */
	memset(&h, 0, sizeof(h));
	h.lnh = SOFTIB_LNH_LOCAL;
	h.dlid = FZ_LID;
	h.slid = 9;
	h.opcode = SOFTIB_OP_UD_SEND_ONLY;
	h.pkey = FZ_PKEY;
	h.dqpn = FZ_UDQPN;
	h.psn = 7;
	h.qkey = FZ_QKEY;
	h.sqpn = 0x77;
	fz_frame_seed(fz, "UD send", &h, data, 37, false);
	h.opcode = SOFTIB_OP_UD_SEND_ONLY_IMM;
	h.imm = cpu_to_be32(0xfeedf00d);
	h.se = true;
	fz_grh(&h, NULL);
	fz_frame_seed(fz, "UD send with GRH and ImmDt", &h, data, 200, false);
	memset(&h, 0, sizeof(h));
	fz_grh(&h, fz_mgid);
	h.dlid = FZ_MLID;
	h.slid = 9;
	h.opcode = SOFTIB_OP_UD_SEND_ONLY;
	h.pkey = FZ_PKEY & 0x7fff;	/* a limited member's send */
	h.dqpn = SOFTIB_QPN_MCAST;
	h.qkey = FZ_QKEY;
	h.sqpn = 0x78;
	fz_frame_seed(fz, "UD multicast send", &h, data, 100, false);
}

/* ---- mutations ----------------------------------------------------------- */

/* PortInfo octets the SMA reads on a Set */
static const u8 fz_pi_offs[] = {
	0, 7, 8, 15, 16, 17, 18, 19, 26, 27, 29, 32, 33, 34, 35, 36, 38, 41,
	42, 43, 44, 45, 46, 47, 48, 49, 51, 53,
};

/* One field of the MAD at m (mlen bytes of it are there). */
static void fz_mutate_mad_field(struct fz *fz, u8 *m, unsigned int mlen)
{
	static const u8 classes[] = { 0x01, 0x81, 0x03, 0x04, 0x07, 0x00,
				      0xff, 0x06, 0x21 };
	static const u8 methods[] = { 0x01, 0x02, 0x03, 0x05, 0x06, 0x07,
				      0x81, 0x10, 0x7f, 0xff, 0x86 };
	static const u16 attrs[] = { 0x0010, 0x0011, 0x0014, 0x0015, 0x0016,
				     0x0017, 0x0018, 0x0020, 0x0000, 0xffff,
				     0xff10, 0x0012, 0x001d, 0x0001, 0x0002 };
	static const u32 mods[] = { 0, 1, 2, 0x10000, 0x40000, 0x50000,
				    0x10001, 0x10002, 0xffffffff, 0x80000000,
				    0x20, 0xffff };
	unsigned int off, v;

	switch (fz_rnd(fz, 12)) {
	case 0:
		off = 0;
		v = fz_rnd(fz, 2) ? fz_byte(fz) : 1;
		break;
	case 1:
		off = 1;
		v = classes[fz_rnd(fz, ARRAY_SIZE(classes))];
		break;
	case 2:
		off = 2;
		v = fz_byte(fz);
		break;
	case 3:
		off = 3;
		v = methods[fz_rnd(fz, ARRAY_SIZE(methods))];
		break;
	case 4:		/* status, the D bit among it */
		off = 4 + fz_rnd(fz, 2);
		v = fz_byte(fz);
		break;
	case 5:		/* hop pointer, hop count */
		off = 6 + fz_rnd(fz, 2);
		v = fz_rnd(fz, 2) ? fz_rnd(fz, 66) : fz_byte(fz);
		break;
	case 6:
		if (mlen >= 18)
			put_unaligned_be16(attrs[fz_rnd(fz, ARRAY_SIZE(attrs))],
					   m + 16);
		return;
	case 7:
		if (mlen >= 24)
			put_unaligned_be32(fz_rnd(fz, 4) ?
					   mods[fz_rnd(fz, ARRAY_SIZE(mods))] :
					   prandom_u32_state(&fz->rnd), m + 20);
		return;
	case 8:		/* M_Key: the port's, none, all ones, one bit off */
		if (mlen < 32)
			return;
		switch (fz_rnd(fz, 4)) {
		case 0:
			memcpy(m + 24, &fz->port->rvp.mkey, 8);
			break;
		case 1:
			memset(m + 24, 0, 8);
			break;
		case 2:
			memset(m + 24, 0xff, 8);
			break;
		default:
			m[24 + fz_rnd(fz, 8)] ^= 1 << fz_rnd(fz, 8);
			break;
		}
		return;
	case 9:
	case 10:	/* a PortInfo octet */
		off = 64 + fz_pi_offs[fz_rnd(fz, ARRAY_SIZE(fz_pi_offs))];
		v = fz_rnd(fz, 2) ? fz_byte(fz) : fz_rnd(fz, 256);
		break;
	default:	/* PMA: PortSelect, CounterSelect */
		off = 64 + 1 + fz_rnd(fz, 3);
		v = fz_rnd(fz, 2) ? fz_byte(fz) : fz_rnd(fz, 3);
		break;
	}
	if (off < mlen)
		m[off] = v;
}

/* Swap two 2- or 4-byte aligned fields among the first n bytes. */
static void fz_swap(struct fz *fz, u8 *p, unsigned int n)
{
	unsigned int w = fz_rnd(fz, 2) ? 2 : 4, a, b;
	u8 tmp[4];

	if (n < 2 * w)
		return;
	a = fz_rnd(fz, n / w) * w;
	b = fz_rnd(fz, n / w) * w;
	memcpy(tmp, p + a, w);
	memcpy(p + a, p + b, w);
	memcpy(p + b, tmp, w);
}

/* Splice: buf[0, cut) and another seed's bytes from cut2 on. */
static unsigned int fz_splice(struct fz *fz, u8 *buf, unsigned int len,
			      const struct fz_seed *other, unsigned int cap)
{
	unsigned int ca = fz_rnd(fz, len + 1), cb = fz_rnd(fz, other->len + 1);
	unsigned int n;

	if (fz_rnd(fz, 2))
		cb = min(ca, other->len);	/* same offset: a field mix */
	n = min(other->len - cb, cap - ca);
	memcpy(buf + ca, other->buf + cb, n);
	return ca + n;
}

static unsigned int fz_bth(const u8 *buf, unsigned int len)
{
	return len >= 2 && (buf[1] & 3) == SOFTIB_LNH_GLOBAL ?
	       SOFTIB_LRH_BYTES + SOFTIB_GRH_BYTES : SOFTIB_LRH_BYTES;
}

static void fz_put16(u8 *buf, unsigned int len, unsigned int off, u16 v)
{
	if (off + 2 <= len)
		put_unaligned_be16(v, buf + off);
}

static void fz_mutate_frame(struct fz *fz, u8 *buf, unsigned int *lenp)
{
	static const u16 dlids[] = { 0, FZ_LID, FZ_LID + 1, FZ_LID + 3, 0xbfff,
				     0xc000, FZ_MLID, 0xfffe, 0xffff, 5 };
	static const u16 pkeys[] = { 0, 0x7fff, 0xffff, FZ_PKEY,
				     FZ_PKEY & 0x7fff, 0x8000, 0x0001 };
	static const u32 qpns[] = { 0, 1, 2, FZ_UDQPN, 0xffffff, 0x43 };
	static const u32 qkeys[] = { IB_QP1_QKEY, FZ_QKEY, 0, 0xffffffff,
				     0x80000000 };
	static const u8 opcodes[] = { 0x64, 0x65, 0x04, 0x00, 0xff, 0x66,
				      0x63, 0x24 };
	static const u16 paylens[] = { 0, 1, 2, 3, 4, 252, 255, 256, 257,
				       260 };
	unsigned int len = *lenp, ops = 1 + fz_rnd(fz, 4), bth, v, n, pad;
	bool fix = false;

	while (ops--) {
		bth = fz_bth(buf, len);
		switch (fz_rnd(fz, 18)) {
		case 0:		/* bit flip */
			if (len)
				buf[fz_off(fz, len)] ^= 1 << fz_rnd(fz, 8);
			break;
		case 1:		/* a byte to a boundary value */
			if (len)
				buf[fz_off(fz, len)] = fz_byte(fz);
			break;
		case 2:		/* truncation */
			len = fz_rnd(fz, 2) ? fz_rnd(fz, len + 1) :
			      len - min(len, fz_rnd(fz, 9));
			break;
		case 3:		/* extension: carrier padding or garbage */
			v = min(1 + fz_rnd(fz, 64), FZ_CAP - len);
			if (fz_rnd(fz, 2))
				memset(buf + len, 0, v);
			else
				prandom_bytes_state(&fz->rnd, buf + len, v);
			len += v;
			break;
		case 4:		/* LRH PktLen */
			if (len < 6)
				break;
			switch (fz_rnd(fz, 5)) {
			case 0:
				v = fz_rnd(fz, 2) ? 0 : 0x7ff;
				break;
			case 1:
				v = fz_rnd(fz, 8);
				break;
			case 2:
				v = len / 4 + fz_rnd(fz, 3) - 1;
				break;
			default:
				v = fz_rnd(fz, 0x800);
				break;
			}
			buf[4] = (buf[4] & 0xf8) | ((v >> 8) & 7);
			buf[5] = v;
			break;
		case 5:		/* GRH PayLen */
			if (len < 14)
				break;
			v = get_unaligned_be16(buf + 12);
			switch (fz_rnd(fz, 4)) {
			case 0:
				v = fz_rnd(fz, 2) ? 0 : 0xffff;
				break;
			case 1:
				v += fz_rnd(fz, 2) ? 4 : -4;
				break;
			case 2:
				v = len - 48 + fz_rnd(fz, 9) - 4;
				break;
			default:
				v = fz_rnd(fz, 0x10000);
				break;
			}
			fz_put16(buf, len, 12, v);
			break;
		case 6:		/* BTH PadCnt */
			if (len > bth + 1)
				buf[bth + 1] = (buf[bth + 1] & ~0x30) |
					       fz_rnd(fz, 4) << 4;
			break;
		case 7:		/* two header fields swapped */
			fz_swap(fz, buf, min(len, bth + 20 + 32));
			break;
		case 8:		/* splice with another frame */
			len = fz_splice(fz, buf, len,
					&fz->frames[fz_rnd(fz, fz->nframes)],
					FZ_CAP);
			break;
		case 9:		/* LRH: DLID, SLID, VL, LNH, LVer */
			switch (fz_rnd(fz, 5)) {
			case 0:
			case 1:		/* DLID, SLID */
				v = dlids[fz_rnd(fz, ARRAY_SIZE(dlids))];
				fz_put16(buf, len, fz_rnd(fz, 2) ? 2 : 6, v);
				break;
			case 2:
				if (len)
					buf[0] = (fz_rnd(fz, 2) ? 15 :
						  fz_rnd(fz, 16)) << 4 |
						 (buf[0] & 0xf);
				break;
			case 3:
				if (len > 1)
					buf[1] = (buf[1] & ~3) | fz_rnd(fz, 4);
				break;
			default:
				if (len)
					buf[0] = (buf[0] & 0xf0) |
						 fz_rnd(fz, 16);
				break;
			}
			break;
		case 10:	/* GRH: IPVer, NxtHdr, a GID octet */
			if (bth == SOFTIB_LRH_BYTES || len < 48)
				break;
			switch (fz_rnd(fz, 3)) {
			case 0:
				buf[8] = fz_rnd(fz, 16) << 4 | (buf[8] & 0xf);
				break;
			case 1:
				buf[14] = fz_rnd(fz, 2) ? 0x11 : fz_rnd(fz, 256);
				break;
			default:
				buf[16 + fz_rnd(fz, 32)] = fz_rnd(fz, 256);
				break;
			}
			break;
		case 11:	/* BTH: opcode, TVer, P_Key, DestQP */
			if (len < bth + 8)
				break;
			switch (fz_rnd(fz, 4)) {
			case 0:
				v = opcodes[fz_rnd(fz, ARRAY_SIZE(opcodes))];
				buf[bth] = fz_rnd(fz, 2) ? v : fz_rnd(fz, 256);
				break;
			case 1:
				buf[bth + 1] = (buf[bth + 1] & 0xf0) |
					       fz_rnd(fz, 16);
				break;
			case 2:
				v = pkeys[fz_rnd(fz, ARRAY_SIZE(pkeys))];
				fz_put16(buf, len, bth + 2, v);
				break;
			default:
				v = fz_rnd(fz, 4) ?
				    qpns[fz_rnd(fz, ARRAY_SIZE(qpns))] :
				    fz_rnd(fz, 1 << 24);
				put_unaligned_be24(v, buf + bth + 5);
				break;
			}
			break;
		case 12:	/* DETH: Q_Key, SrcQP */
			if (len < bth + 20)
				break;
			v = qkeys[fz_rnd(fz, ARRAY_SIZE(qkeys))];
			if (fz_rnd(fz, 2))
				put_unaligned_be32(v, buf + bth + 12);
			else
				put_unaligned_be24(fz_rnd(fz, 1 << 24),
						   buf + bth + 17);
			break;
		case 13:	/* ImmDt in or out (opcode, 4 bytes) */
			v = bth + SOFTIB_BTH_BYTES + SOFTIB_DETH_BYTES;
			if (len < v)
				break;
			if (buf[bth] == SOFTIB_OP_UD_SEND_ONLY_IMM) {
				buf[bth] = SOFTIB_OP_UD_SEND_ONLY;
				if (len >= v + SOFTIB_IMM_BYTES) {
					len -= SOFTIB_IMM_BYTES;
					memmove(buf + v, buf + v + SOFTIB_IMM_BYTES,
						len - v);
				}
			} else if (len + SOFTIB_IMM_BYTES <= FZ_CAP) {
				buf[bth] = SOFTIB_OP_UD_SEND_ONLY_IMM;
				memmove(buf + v + SOFTIB_IMM_BYTES, buf + v, len - v);
				put_unaligned_be32(0xfeedf00d, buf + v);
				len += SOFTIB_IMM_BYTES;
			}
			break;
		case 14:	/* a GRH in or out (LNH, 40 bytes) */
			if (len < SOFTIB_LRH_BYTES)
				break;
			if (bth > SOFTIB_LRH_BYTES) {
				buf[1] = (buf[1] & ~3) | SOFTIB_LNH_LOCAL;
				if (len >= bth) {
					len -= SOFTIB_GRH_BYTES;
					memmove(buf + SOFTIB_LRH_BYTES, buf + bth,
						len - SOFTIB_LRH_BYTES);
				}
			} else if (len + SOFTIB_GRH_BYTES <= FZ_CAP) {
				buf[1] |= SOFTIB_LNH_GLOBAL;
				memmove(buf + 48, buf + 8, len - 8);
				len += SOFTIB_GRH_BYTES;
				put_unaligned_be32(SOFTIB_IPVER << 28, buf + 8);
				put_unaligned_be16(len - 48, buf + 12);
				buf[14] = SOFTIB_NXTHDR_IBA;
				buf[15] = 1;
				memset(buf + 16, 0, 32);
				if (fz_rnd(fz, 2))
					memcpy(buf + 32, fz_mgid, 16);
			}
			break;
		case 15:	/* payload to a boundary length, pad any */
			v = bth + SOFTIB_BTH_BYTES + SOFTIB_DETH_BYTES;
			if (len > bth && buf[bth] == SOFTIB_OP_UD_SEND_ONLY_IMM)
				v += SOFTIB_IMM_BYTES;
			n = paylens[fz_rnd(fz, ARRAY_SIZE(paylens))];
			pad = fz_rnd(fz, 2) ? -n & 3 : fz_rnd(fz, 4);
			if (len <= bth + 1 ||
			    v + n + pad + SOFTIB_ICRC_BYTES > FZ_CAP)
				break;
			buf[bth + 1] = (buf[bth + 1] & ~0x30) | pad << 4;
			if (v + n + pad + SOFTIB_ICRC_BYTES > len)
				memset(buf + len, 0,
				       v + n + pad + SOFTIB_ICRC_BYTES - len);
			len = v + n + pad + SOFTIB_ICRC_BYTES;
			fix = true;
			break;
		default:	/* a MAD field */
			v = bth + SOFTIB_BTH_BYTES + SOFTIB_DETH_BYTES;
			if (len > bth && buf[bth] == SOFTIB_OP_UD_SEND_ONLY_IMM)
				v += SOFTIB_IMM_BYTES;
			if (len > v)
				fz_mutate_mad_field(fz, buf + v, len - v);
			break;
		}
	}

	/* Half the time the lengths are made to agree again... */
	if ((fix || fz_rnd(fz, 2)) && len >= 6) {
		if (fz_rnd(fz, 2))
			len &= ~3;
		v = min(len / 4, 0x7ffU);
		buf[4] = (buf[4] & 0xf8) | ((v >> 8) & 7);
		buf[5] = v;
		if (fz_bth(buf, len) > SOFTIB_LRH_BYTES && v * 4 >= 48)
			fz_put16(buf, len, 12, v * 4 - 48);
	}
	/* ...and three times in four the ICRC is right for what PktLen says. */
	v = (get_unaligned_be16(buf + 4) & 0x7ff) * 4;
	if (len >= 6 && fz_rnd(fz, 4) && v >= 12 && v <= len)
		softib_icrc_set(buf, v - SOFTIB_ICRC_BYTES);
	*lenp = len;
}

static void fz_mutate_mad(struct fz *fz, u8 *m)
{
	unsigned int ops = 1 + fz_rnd(fz, 4);

	while (ops--) {
		switch (fz_rnd(fz, 8)) {
		case 0:
			m[fz_off(fz, FZ_MAD / 2)] ^= 1 << fz_rnd(fz, 8);
			break;
		case 1:
			m[fz_off(fz, FZ_MAD)] = fz_byte(fz);
			break;
		case 2:
			fz_swap(fz, m, 64);
			break;
		case 3:
			fz_splice(fz, m, FZ_MAD,
				  &fz->mads[fz_rnd(fz, fz->nmads)], FZ_MAD);
			break;
		default:
			fz_mutate_mad_field(fz, m, FZ_MAD);
			break;
		}
	}
}

/* ---- feeding ------------------------------------------------------------- */

static bool fz_is_smp(const struct ib_mad *m)
{
	return m->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	       m->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
}

/*
 * One MAD into softib_process_mad(), and what must hold after it: the
 * result is one of the four, a reply answers the request, and the port's
 * state moved only for an authorised SubnSet (M_Key right, or none, or
 * IB_MAD_IGNORE_MKEY); with the protect bits at 1 a wrong key's Get does
 * not see the M_Key, at 2 and 3 it gets no answer at all.
 */
static void fz_mad(struct fz *fz, int flags, u32 port_num, size_t out_size)
{
	const struct ib_mad *in = fz->mad;
	struct ib_mad *out = fz->out;
	struct softib_port *port = fz->port;
	struct rvt_ibport *rvp = &port->rvp;
	const struct ib_smp *smp = (const void *)in;
	struct fz_snap *before = &fz->before, *after = &fz->after;
	struct ib_wc wc = { .port_num = 1, .slid = FZ_SM_LID };
	bool smp_class = fz_is_smp(in), authorised, may_change;
	bool lease = rvp->mkey_lease_timeout;
	u8 method = in->mad_hdr.method, prot = rvp->mkeyprot;
	size_t size = out_size;
	u16 pkey_index = 0;
	int res;

	fz_snap(port, before);
	authorised = !smp_class || (flags & IB_MAD_IGNORE_MKEY) ||
		     !rvp->mkey || smp->mkey == rvp->mkey;
	may_change = smp_class && authorised && method == IB_MGMT_METHOD_SET;
	fz->t->nev = 0;
	memset(out, 0x5a, sizeof(*out));
	res = softib_process_mad(&fz->t->sdev->rdi.ibdev, flags, port_num, &wc,
				 NULL, in, out, &size, &pkey_index);
	fz->mads_in++;
	if (smp_class && !authorised)
		fz->unauthorised++;

	switch (res) {
	case IB_MAD_RESULT_FAILURE:
		fz->failures++;
		if (port_num == 1 && out_size >= FZ_MAD &&
		    in->mad_hdr.base_version == IB_MGMT_BASE_VERSION)
			fz_fail(fz, "a good MAD failed");
		break;
	case IB_MAD_RESULT_SUCCESS:
		fz->passed++;
		break;
	case IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED:
		fz->consumed++;
		break;
	case IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY:
		fz->replies++;
		if (size != FZ_MAD || out->mad_hdr.method != IB_MGMT_METHOD_GET_RESP ||
		    out->mad_hdr.tid != in->mad_hdr.tid ||
		    out->mad_hdr.attr_id != in->mad_hdr.attr_id ||
		    out->mad_hdr.mgmt_class != in->mad_hdr.mgmt_class)
			fz_fail(fz, "the reply does not answer the request (method %#x)",
				out->mad_hdr.method);
		if (in->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE &&
		    !(out->mad_hdr.status & IB_SMP_DIRECTION))
			fz_fail(fz, "a directed-route reply without the D bit");
		if (may_change && !out->mad_hdr.status)
			fz->sets_done++;
		break;
	default:
		fz_fail(fz, "process_mad returned %#x", res);
		break;
	}

	if (!may_change) {
		fz_snap(port, after);
		if (lease)	/* a lease that ran out drops the protect bits */
			after->mkeyprot = before->mkeyprot;
		if (memcmp(before, after, sizeof(*before)))
			fz_fail(fz, "%s MAD (class %#x method %#x attr %#x) changed the port",
				authorised ? "a non-Set" : "an unauthorised",
				in->mad_hdr.mgmt_class, method,
				be16_to_cpu(in->mad_hdr.attr_id));
		if (fz->t->nev)
			fz_fail(fz, "a MAD that may change nothing raised %u events",
				fz->t->nev);
	}
	if (smp_class && !authorised && !lease && port_num == 1 &&
	    out_size >= FZ_MAD &&
	    in->mad_hdr.base_version == IB_MGMT_BASE_VERSION &&
	    in->mad_hdr.class_version == 1) {
		if (prot >= 2 && (method == IB_MGMT_METHOD_GET ||
				  method == IB_MGMT_METHOD_SET) &&
		    (res & IB_MAD_RESULT_REPLY))
			fz_fail(fz, "protect bits %u: a wrong M_Key was answered",
				prot);
		if (prot == 1 && method == IB_MGMT_METHOD_GET &&
		    in->mad_hdr.attr_id == IB_SMP_ATTR_PORT_INFO &&
		    (res & IB_MAD_RESULT_REPLY) && !out->mad_hdr.status &&
		    memchr_inv(((struct ib_smp *)out)->data, 0, 8))
			fz_fail(fz, "protect bits 1: a wrong M_Key's Get saw the M_Key");
	}
	fz_port_check(fz);
	if (fz->failed)
		fz_dump(fz, "the MAD", (const u8 *)in, FZ_MAD);
}

/* skbs the receive path freed: every fed skb carries this destructor */
static atomic_long_t fz_skbs_freed;

static void fz_skb_destructor(struct sk_buff *skb)
{
	atomic_long_inc(&fz_skbs_freed);
}

/* The frame as an skb: linear, or (one time in four) head and a page frag. */
static struct sk_buff *fz_skb(struct fz *fz, const u8 *buf, unsigned int len)
{
	unsigned int head = len;
	struct sk_buff *skb;
	struct page *page;

	if (len >= 2 && !fz_rnd(fz, 4))
		head = 1 + fz_rnd(fz, len - 1);
	skb = alloc_skb(head, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_put_data(skb, buf, head);
	if (head < len) {
		page = alloc_page(GFP_KERNEL);
		if (!page) {
			kfree_skb(skb);
			return NULL;
		}
		memcpy(page_address(page), buf + head, len - head);
		skb_add_rx_frag(skb, 0, page, 0, len - head, PAGE_SIZE);
	}
	skb->destructor = fz_skb_destructor;
	return skb;
}

static bool fz_parse_reason(enum softib_drop why)
{
	return why == SOFTIB_DROP_SHORT || why == SOFTIB_DROP_ICRC ||
	       why == SOFTIB_DROP_LVER || why == SOFTIB_DROP_OPCODE;
}

/*
 * What softib_hdr_parse() says of the frame must be what the receive path
 * did, and a parsed packet's headers, payload and pad lie inside it.
 */
static void fz_parse_check(struct fz *fz, const u8 *buf, unsigned int len,
			   enum softib_drop why, struct softib_hdr *h,
			   enum softib_drop *parsed)
{
	*parsed = softib_hdr_parse(buf, len, h);
	if (*parsed != SOFTIB_DROP_NR) {
		if (why != *parsed)
			fz_fail(fz, "parse says %d, the receive path counted %d",
				*parsed, why);
		return;
	}
	if (fz_parse_reason(why))
		fz_fail(fz, "a packet that parses was dropped as %d", why);
	/* in 64 bits: a length that wrapped around does not add up */
	if (h->pktlen * 4 > len || h->hdr_len != softib_hdr_len(h) ||
	    (u64)h->hdr_len + h->payload_len + h->padcnt + SOFTIB_ICRC_BYTES !=
	    h->pktlen * 4)
		fz_fail(fz, "parsed lengths: PktLen %u of %u bytes, headers %u, payload %u, pad %u",
			h->pktlen, len, h->hdr_len, h->payload_len, h->padcnt);
	if (h->lnh == SOFTIB_LNH_GLOBAL &&
	    h->paylen != h->pktlen * 4 - SOFTIB_LRH_BYTES - SOFTIB_GRH_BYTES)
		fz_fail(fz, "GRH PayLen %u with PktLen %u", h->paylen,
			h->pktlen);
	/* An opcode softib implements (UD, and RC since the RC transport). */
	if (!softib_op_ext(h->opcode) || h->lver || h->tver)
		fz_fail(fz, "parsed opcode %#x, LVer %u, TVer %u", h->opcode,
			h->lver, h->tver);
}

static bool fz_pkey_ok(u16 a, u16 b)
{
	return (a & 0x7fff) && (a & 0x7fff) == (b & 0x7fff) && ((a | b) & 0x8000);
}

/*
 * A model of the receive rules (IBA 9.6, 10.9, 13.5.3.1, and in-tree
 * qib's checks), held against every packet the receive path accepted;
 * the control seeds check the other way round.
 */
static void fz_accept_check(struct fz *fz, const u8 *buf,
			    const struct softib_hdr *h)
{
	struct softib_port *port = fz->port;
	u16 lid = port->lid, mask = (1U << port->lmc) - 1;
	bool perm = h->dlid == SOFTIB_LID_PERMISSIVE ||
		    h->slid == SOFTIB_LID_PERMISSIVE;
	const u8 *mad = buf + h->hdr_len;
	unsigned int i;
	bool ok, smi, vl15;

	smi = !h->dqpn;
	vl15 = h->vl == 15;
	if (smi != vl15)
		fz_fail(fz, "QP %#x took a packet on VL %u", h->dqpn, h->vl);
	if (softib_lid_is_mcast(h->dlid))
		ok = h->dqpn == SOFTIB_QPN_MCAST && h->dlid == FZ_MLID &&
		     h->lnh == SOFTIB_LNH_GLOBAL &&
		     !memcmp(h->dgid.raw, fz_mgid, 16);
	else if (h->dlid == SOFTIB_LID_PERMISSIVE)
		ok = h->dqpn == 0;
	else
		ok = lid && (h->dlid & ~mask) == lid &&
		     h->dqpn != SOFTIB_QPN_MCAST;
	if (!ok)
		fz_fail(fz, "DLID %#x (LID %#x LMC %u) to QP %#x accepted",
			h->dlid, lid, port->lmc, h->dqpn);
	if (port->state < (h->dqpn ? IB_PORT_ARMED : IB_PORT_INIT))
		fz_fail(fz, "a port in state %u took a packet for QP %#x",
			port->state, h->dqpn);
	if (h->dqpn > 1 &&
	    (h->qkey != FZ_QKEY || !fz_pkey_ok(port->pkeys[1], h->pkey)))
		fz_fail(fz, "the UD QP took Q_Key %#x P_Key %#x", h->qkey,
			h->pkey);
	if (h->dqpn == 1) {
		for (i = 0, ok = false; i < SOFTIB_NPKEYS; i++)
			ok |= fz_pkey_ok(port->pkeys[i], h->pkey);
		if (h->qkey != IB_QP1_QKEY || !ok)
			fz_fail(fz, "QP1 took Q_Key %#x P_Key %#x", h->qkey,
				h->pkey);
	}
	/* 13.5.3.1: QP0 and QP1 take one MAD... */
	if (h->dqpn <= 1 && h->payload_len != FZ_MAD)
		fz_fail(fz, "a MAD packet of %u bytes reached QP%u",
			h->payload_len, h->dqpn);
	/* ...sent as SEND only, without ImmDt */
	if (h->dqpn <= 1 && h->opcode != SOFTIB_OP_UD_SEND_ONLY)
		fz_fail(fz, "opcode %#x (ImmDt) reached QP%u", h->opcode,
			h->dqpn);
	/* the permissive LID: QP0 only, and a LID-routed SMP never */
	if (h->dqpn != 0 && perm)
		fz_fail(fz, "DLID %#x SLID %#x reached QP %#x", h->dlid,
			h->slid, h->dqpn);
	if (h->dqpn == 0 && perm && h->payload_len >= 2 &&
	    mad[1] != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		fz_fail(fz, "an SMP of class %#x with DLID %#x SLID %#x reached QP0",
			mad[1], h->dlid, h->slid);
}

/* What reached QP0 or QP1 goes on to the SMA/PMA, as ib_mad hands it. */
static void fz_deliver_mad(struct fz *fz, const u8 *buf,
			   const struct softib_hdr *h)
{
	/* QP0's and QP1's receive buffers hold a GRH and one MAD */
	if (h->payload_len > FZ_MAD)
		return;
	memset(fz->mad, 0, FZ_MAD);
	memcpy(fz->mad, buf + h->hdr_len, h->payload_len);
	fz_mad(fz, 0, 1, FZ_MAD);
}

/*
 * One frame into softib_ud_rcv(): exactly one drop counter moves (no_rwqe
 * when it reached a QP), the skb is freed, and the parse agrees.
 */
static void fz_rx(struct fz *fz, const u8 *buf, unsigned int len)
{
	struct softib_port *port = fz->port;
	u64 before[SOFTIB_DROP_NR], moved = 0;
	enum softib_drop why = SOFTIB_DROP_NR, parsed;
	long freed = atomic_long_read(&fz_skbs_freed);
	u64 vl15 = port->rvp.n_vl15_dropped;
	struct softib_hdr h;
	struct sk_buff *skb;
	int i;

	for (i = 0; i < SOFTIB_DROP_NR; i++)
		before[i] = softib_drop_count(port, i);
	skb = fz_skb(fz, buf, len);
	KUNIT_ASSERT_NOT_NULL(fz->test, skb);
	sib_rx_skb(fz->t->sdev, skb);
	fz->fed++;
	if (atomic_long_read(&fz_skbs_freed) != freed + 1)
		fz_fail(fz, "the skb was not freed");
	for (i = 0; i < SOFTIB_DROP_NR; i++) {
		u64 d = softib_drop_count(port, i) - before[i];

		if (d) {
			moved += d;
			why = i;
		}
	}
	if (moved != 1) {
		fz_fail(fz, "%llu drop counters moved", moved);
	} else {
		fz->drops[why]++;
		fz_parse_check(fz, buf, len, why, &h, &parsed);
	}
	if (!fz->failed && why == SOFTIB_DROP_NO_RWQE) {
		fz->accepted++;
		if (h.dqpn == SOFTIB_QPN_MCAST)
			fz->acc_mcast++;
		else if (h.dqpn <= 1)
			fz->acc_qp[h.dqpn]++;
		else if (h.dqpn == FZ_UDQPN)
			fz->acc_qp[FZ_QPUD]++;
		else
			fz_fail(fz, "accepted for QP %#x", h.dqpn);
		fz_accept_check(fz, buf, &h);
	}
	/* an SMP that found no receive buffer is a VL15Dropped */
	if (!fz->failed &&
	    port->rvp.n_vl15_dropped - vl15 !=
	    (why == SOFTIB_DROP_NO_RWQE && h.dqpn == 0))
		fz_fail(fz, "VL15Dropped moved by %llu (drop reason %d)",
			port->rvp.n_vl15_dropped - vl15, why);
	if (!fz->failed && why == SOFTIB_DROP_NO_RWQE) {
		if (h.dqpn <= 1)
			fz_deliver_mad(fz, buf, &h);
	}
	if (fz->failed)
		fz_dump(fz, "the frame", buf, len);
}

/* ---- the cases ----------------------------------------------------------- */

static struct fz *fz_new(struct kunit *test)
{
	struct fz *fz = kunit_kzalloc(test, sizeof(*fz), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fz);
	fz->test = test;
	fz->t = test->priv;
	fz->port = fz->t->port;
	fz->seed = *(const unsigned long *)test->param_value;
	prandom_seed_state(&fz->rnd, fz->seed);
	fz->in = fz_alloc(fz, FZ_CAP);
	fz->mad = (struct ib_mad *)fz_alloc(fz, FZ_MAD);
	fz->out = (struct ib_mad *)fz_alloc(fz, FZ_MAD);
	fz_device(fz);
	fz_reset(fz, true);
	fz_build_mads(fz);
	fz_build_frames(fz);
	return fz;
}

/* A seed's M_Key: the port's three times in four (else the seed's own). */
static void fz_seed_mkey(struct fz *fz, u8 *mad, unsigned int len)
{
	const struct ib_mad *m = (const void *)mad;

	if (len >= 32 && fz_is_smp(m) && fz_rnd(fz, 4))
		memcpy(mad + 24, &fz->port->rvp.mkey, 8);
}

static void fz_tally(struct fz *fz, const char *what, s64 ms)
{
	kunit_info(fz->test,
		   "seed %#lx %s: %llu MADs to the SMA/PMA (%llu answered, %llu consumed, %llu passed on, %llu failed; %llu Sets done, %llu with a wrong M_Key) in %lld ms\n",
		   fz->seed, what, fz->mads_in, fz->replies, fz->consumed,
		   fz->passed, fz->failures, fz->sets_done, fz->unauthorised,
		   ms);
}

static void fuzz_rx(struct kunit *test)
{
	struct fz *fz = fz_new(test);
	struct softib_port *port = fz->port;
	const struct fz_seed *s;
	u64 total = 0, parse_drops = 0;
	unsigned int i, len;
	ktime_t start;

	/* Control: every seed as it is reaches its QP. */
	for (i = 0; i < fz->nframes && !fz->failed; i++) {
		fz_reset(fz, true);
		fz->iter = i;
		fz_rx(fz, fz->frames[i].buf, fz->frames[i].len);
		if (fz->drops[SOFTIB_DROP_NO_RWQE] != i + 1)
			fz_fail(fz, "seed frame \"%s\" was not accepted",
				fz->frames[i].name);
	}

	start = ktime_get();
	for (i = 0; i < fz_iters && !fz->failed; i++) {
		if (i % FZ_RESET_EVERY == 0)
			fz_reset(fz, false);
		fz->iter = fz->nframes + i;
		s = &fz->frames[fz_rnd(fz, fz->nframes)];
		memcpy(fz->in, s->buf, s->len);
		len = s->len;
		if (s->mad_off >= 0)
			fz_seed_mkey(fz, fz->in + s->mad_off, len - s->mad_off);
		fz_mutate_frame(fz, fz->in, &len);
		fz_rx(fz, fz->in, len);
	}

	/* The counters add up: fed = accepted + dropped, and as the PMA sees it. */
	for (i = 0; i < SOFTIB_DROP_NR; i++) {
		KUNIT_EXPECT_EQ(test, softib_drop_count(port, i), fz->drops[i]);
		total += fz->drops[i];
		if (fz_parse_reason(i))
			parse_drops += fz->drops[i];
	}
	KUNIT_EXPECT_EQ(test, total, fz->fed);
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_pkts) + parse_drops,
			fz->fed);
	KUNIT_EXPECT_EQ(test, atomic64_read(&port->cnt.rcv_errors),
			parse_drops + fz->drops[SOFTIB_DROP_DLID]);
	kunit_info(test,
		   "seed %#lx rx: %llu frames fed, %llu accepted (QP0 %llu, QP1 %llu, UD %llu, multicast %llu); dropped: short %llu, icrc %llu, lver %llu, dlid %llu, opcode %llu, qp %llu, pkey %llu, qkey %llu, port_down %llu\n",
		   fz->seed, fz->fed, fz->accepted, fz->acc_qp[FZ_QP0],
		   fz->acc_qp[FZ_QP1], fz->acc_qp[FZ_QPUD], fz->acc_mcast,
		   fz->drops[SOFTIB_DROP_SHORT], fz->drops[SOFTIB_DROP_ICRC],
		   fz->drops[SOFTIB_DROP_LVER], fz->drops[SOFTIB_DROP_DLID],
		   fz->drops[SOFTIB_DROP_OPCODE], fz->drops[SOFTIB_DROP_QP],
		   fz->drops[SOFTIB_DROP_PKEY], fz->drops[SOFTIB_DROP_QKEY],
		   fz->drops[SOFTIB_DROP_PORT_DOWN]);
	fz_tally(fz, "rx", ktime_ms_delta(ktime_get(), start));
}

static void fuzz_mad(struct kunit *test)
{
	struct fz *fz = fz_new(test);
	const struct fz_seed *s;
	unsigned int i, port_num;
	size_t out_size;
	ktime_t start;
	int flags;

	/* Control: every seed as it is gets its answer. */
	for (i = 0; i < fz->nmads && !fz->failed; i++) {
		fz_reset(fz, true);
		fz->iter = i;
		memcpy(fz->mad, fz->mads[i].buf, FZ_MAD);
		fz_mad(fz, 0, 1, FZ_MAD);
	}
	KUNIT_EXPECT_EQ(test, fz->failures + fz->consumed, 0);

	start = ktime_get();
	for (i = 0; i < 5 * fz_iters && !fz->failed; i++) {
		if (i % FZ_RESET_EVERY == 0)
			fz_reset(fz, false);
		fz->iter = fz->nmads + i;
		s = &fz->mads[fz_rnd(fz, fz->nmads)];
		memcpy(fz->mad, s->buf, FZ_MAD);
		fz_seed_mkey(fz, (u8 *)fz->mad, FZ_MAD);
		fz_mutate_mad(fz, (u8 *)fz->mad);
		flags = fz_rnd(fz, 16) ? 0 : IB_MAD_IGNORE_MKEY;
		port_num = fz_rnd(fz, 16) ? 1 : fz_rnd(fz, 3);
		out_size = fz_rnd(fz, 32) ? FZ_MAD : fz_rnd(fz, FZ_MAD);
		fz_mad(fz, flags, port_num, out_size);
	}
	fz_tally(fz, "mad", ktime_ms_delta(ktime_get(), start));
}

/* ---- RC: sequences against an RC QP with MRs ------------------------------ */

#define FZ_RCQPN	0x44
#define FZ_RC_PEER	9
#define FZ_RC_PSN	0x200
#define FZ_RC_PMTU	256
#define FZ_NMR		3
#define FZ_SEG		2048		/* each MR: two segments of this */
#define FZ_MR_LEN	(2 * FZ_SEG)
#define FZ_IOVA(k)	(0x100000ULL * ((k) + 1))
#define FZ_NREADS	8
#define FZ_CANARY	1024

/* An MR as rdmavt keeps one (rvt_mregion), of the RC QP's PD. */
struct fz_mr {
	struct rvt_mregion *mr;
	u8 *seg[2];
	u32 old_key;		/* the key before the last re-registration */
};

struct fz_rc {
	struct fz *fz;
	struct rvt_qp *qp;
	struct softib_qp_priv *priv;
	struct rvt_krwq kwq;
	struct rvt_pd pd;
	struct rvt_mregion __rcu *lkeys[4];	/* index: rkey >> 30 */
	struct fz_mr mr[FZ_NMR];
	struct fz_mr dma;	/* rdmavt's DMA MR: what R_Key 0 names */
	u8 *canary;		/* where the VAs of R_Key 0 point */
	struct {
		u32 psn, rkey, len;
		u64 va;
	} reads[FZ_NREADS];	/* READs executed, for their duplicates */
	unsigned int nreads;
	u8 *rnr;		/* the last frame refused with RNR NAK */
	unsigned int rnr_len;
	/* tallies */
	u64 fed, executed, rnr_naks, retries, dups, stale_dups, rkey0;
	u64 drops[SOFTIB_DROP_NR], ulp_ops, drains, pkts_out;
};

static void fz_mr_release(struct percpu_ref *ref)
{
	struct rvt_mregion *mr = container_of(ref, struct rvt_mregion,
					      refcount);

	complete(&mr->comp);
}

static void fz_mr_free(struct fz_mr *m)
{
	if (m->mr) {
		percpu_ref_exit(&m->mr->refcount);
		kfree(m->mr->map[0]);
	}
	kfree(m->mr);
	kfree(m->seg[0]);
	kfree(m->seg[1]);
}

static void fz_rc_free(void *data)
{
	struct fz_rc *rc = data;
	struct softib_dev *sdev = rc->fz->t->sdev;
	int k;

	if (sdev->wq)
		destroy_workqueue(sdev->wq);
	sdev->wq = NULL;
	if (sdev->ndev)
		free_netdev(sdev->ndev);
	sdev->ndev = NULL;
	for (k = 0; k < FZ_NMR; k++)
		fz_mr_free(&rc->mr[k]);
	fz_mr_free(&rc->dma);
	if (rc->qp)
		kfree(rc->qp->s_ack_queue);
	kfree(rc->priv);
	kfree(rc->qp);
}

/* An MR of key (0: the DMA MR) over two segments, published. */
static void fz_mr_init(struct fz_rc *rc, struct fz_mr *m, u32 key, u64 iova)
{
	struct kunit *test = rc->fz->test;
	struct rvt_mregion *mr;

	m->seg[0] = kzalloc(FZ_SEG, GFP_KERNEL);
	m->seg[1] = kzalloc(FZ_SEG, GFP_KERNEL);
	mr = kzalloc(struct_size(mr, map, 1), GFP_KERNEL);
	m->mr = mr;
	if (mr)
		mr->map[0] = kzalloc(sizeof(*mr->map[0]), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, m->seg[0] && m->seg[1] && mr && mr->map[0]);
	init_completion(&mr->comp);
	KUNIT_ASSERT_EQ(test, percpu_ref_init(&mr->refcount, fz_mr_release,
					      PERCPU_REF_INIT_ATOMIC,
					      GFP_KERNEL), 0);
	mr->pd = &rc->pd.ibpd;
	mr->iova = iova;
	mr->length = FZ_MR_LEN;
	mr->lkey = key;
	mr->access_flags = key ? IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			   IB_ACCESS_REMOTE_ATOMIC : IB_ACCESS_LOCAL_WRITE;
	mr->max_segs = 2;
	mr->mapsz = 1;
	mr->map[0]->segs[0].vaddr = m->seg[0];
	mr->map[0]->segs[0].length = FZ_SEG;
	mr->map[0]->segs[1].vaddr = m->seg[1];
	mr->map[0]->segs[1].length = FZ_SEG;
	mr->lkey_published = 1;
	m->old_key = key;
	if (key)
		rcu_assign_pointer(rc->lkeys[key >> 30], mr);
	else
		rcu_assign_pointer(rc->fz->t->sdev->rdi.dma_mr, mr);
}

static long fz_mr_refs(const struct fz_mr *m)
{
	return atomic_long_read(&m->mr->refcount.data->count) - 1;
}

/* The references the QP holds on mr where rdmavt looks for them. */
static long fz_qp_holds(struct rvt_qp *qp, const struct rvt_mregion *mr)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	long n = qp->r_sge.num_sge && qp->r_sge.sge.mr == mr;
	unsigned int i;

	for (i = 0; i < rvt_max_atomic(rdi); i++)
		n += qp->s_ack_queue[i].rdma_sge.mr == mr;
	return n;
}

static void fz_noop_work(struct work_struct *work)
{
}

static void fz_noop_qp(struct rvt_qp *qp)
{
}

static bool fz_noop_sched(struct rvt_qp *qp)
{
	return false;
}

/*
 * The fuzz device gets an RC QP in RTS (QPN FZ_RCQPN, peer LID FZ_RC_PEER,
 * path MTU 256, every remote access, no receive WQE), of a kernel PD,
 * FZ_NMR MRs with all remote rights under keys in slots 1..3 of the lkey
 * table, and rdmavt's DMA MR (the first kernel PD's, R_Key 0). The send
 * engine's packets go to a carrier that is down.
 */
static struct fz_rc *fz_rc_new(struct fz *fz)
{
	struct kunit *test = fz->test;
	struct softib_dev *sdev = fz->t->sdev;
	struct fz_rc *rc = kunit_kzalloc(test, sizeof(*rc), GFP_KERNEL);
	struct rvt_qp __rcu **bucket;
	struct rvt_qp *qp;
	int k;

	KUNIT_ASSERT_NOT_NULL(test, rc);
	rc->fz = fz;
	rc->qp = kzalloc(sizeof(*rc->qp), GFP_KERNEL);
	rc->priv = kzalloc(sizeof(*rc->priv), GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fz_rc_free, rc),
			0);
	KUNIT_ASSERT_NOT_NULL(test, rc->qp);
	KUNIT_ASSERT_NOT_NULL(test, rc->priv);
	sdev->wq = alloc_workqueue("softib_fuzz_rc", 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, sdev->wq);
	sdev->ndev = alloc_etherdev(0);
	KUNIT_ASSERT_NOT_NULL(test, sdev->ndev);
	sdev->rdi.dparms.max_rdma_atomic = 4;
	sdev->rdi.driver_f.notify_error_qp = fz_noop_qp;
	sdev->rdi.driver_f.schedule_send = fz_noop_sched;
	sdev->rdi.lkey_table.table = rc->lkeys;
	sdev->rdi.lkey_table.shift = 30;
	rc->rnr = fz_alloc(fz, FZ_CAP);
	rc->canary = fz_alloc(fz, FZ_CANARY);
	memset(rc->canary, 0x5a, FZ_CANARY);

	qp = rc->qp;
	qp->s_ack_queue = kcalloc(rvt_max_atomic(&sdev->rdi),
				  sizeof(*qp->s_ack_queue), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->s_ack_queue);
	sib_qp_ready(qp, &rc->kwq, &sdev->rdi.ibdev, IB_QPT_RC, FZ_RCQPN);
	spin_lock_init(&qp->s_lock);
	rc->pd.ibpd.device = &sdev->rdi.ibdev;
	qp->ibqp.pd = &rc->pd.ibpd;
	qp->remote_qpn = 0x99;
	qp->remote_ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&qp->remote_ah_attr, FZ_RC_PEER);
	qp->pmtu = FZ_RC_PMTU;
	qp->log_pmtu = ilog2(FZ_RC_PMTU);
	qp->r_psn = FZ_RC_PSN;
	qp->r_state = IB_OPCODE_RC_SEND_LAST;
	qp->qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			      IB_ACCESS_REMOTE_ATOMIC;
	qp->priv = rc->priv;
	rc->priv->qp = qp;
	INIT_WORK(&rc->priv->send_work, fz_noop_work);
	softib_qp_events_init(rc->priv);
	for (k = 0; k < FZ_NMR; k++)
		fz_mr_init(rc, &rc->mr[k], (u32)(k + 1) << 30 | 0x100, FZ_IOVA(k));
	fz_mr_init(rc, &rc->dma, 0, 0);
	/* into the QP table, ahead of whatever shares its bucket */
	bucket = &fz->buckets[hash_32(FZ_RCQPN, 1)];
	RCU_INIT_POINTER(qp->next, rcu_dereference_protected(*bucket, 1));
	rcu_assign_pointer(*bucket, qp);
	return rc;
}

/* The QP's send engine, run as its work item would: packets put out. */
static u64 fz_rc_drain(struct fz_rc *rc)
{
	struct softib_port *port = rc->fz->port;
	u64 before = atomic64_read(&port->cnt.xmit_pkts);

	softib_rc_send(rc->qp);
	flush_workqueue(rc->fz->t->sdev->wq);
	rc->drains++;
	return atomic64_read(&port->cnt.xmit_pkts) - before;
}

/*
 * After every input: R_Key 0 took nothing (the DMA MR unreferenced, the
 * memory its VAs name unchanged), and every MR's references are exactly
 * the ones the QP holds where rdmavt looks (no leak, no double put).
 */
static void fz_rc_check(struct fz_rc *rc)
{
	struct fz *fz = rc->fz;
	int k;

	if (fz_mr_refs(&rc->dma))
		fz_fail(fz, "R_Key 0: the DMA MR has %ld references",
			fz_mr_refs(&rc->dma));
	if (memchr_inv(rc->canary, 0x5a, FZ_CANARY))
		fz_fail(fz, "R_Key 0 wrote kernel memory");
	for (k = 0; k < FZ_NMR; k++)
		if (fz_mr_refs(&rc->mr[k]) !=
		    fz_qp_holds(rc->qp, rc->mr[k].mr))
			fz_fail(fz, "MR %d: %ld references, the QP holds %ld",
				k, fz_mr_refs(&rc->mr[k]),
				fz_qp_holds(rc->qp, rc->mr[k].mr));
}

/* The engine ran dry: no READ answered keeps its MR. */
static void fz_rc_drain_check(struct fz_rc *rc)
{
	struct rvt_qp *qp = rc->qp;
	int k;

	rc->pkts_out += fz_rc_drain(rc);
	if (qp->s_tail_ack_queue != qp->r_head_ack_queue)
		fz_fail(rc->fz, "the engine left s_ack_queue[%u..%u)",
			qp->s_tail_ack_queue, qp->r_head_ack_queue);
	for (k = 0; k < FZ_NMR; k++)
		if (fz_qp_holds(qp, rc->mr[k].mr) > (qp->r_sge.num_sge &&
						     qp->r_sge.sge.mr ==
						     rc->mr[k].mr))
			fz_fail(rc->fz, "MR %d: answered READs still hold it",
				k);
}

/* Is key an R_Key the responder must take for len bytes at va now? */
static bool fz_rc_key_live(struct fz_rc *rc, u32 key)
{
	int k;

	for (k = 0; k < FZ_NMR; k++) {
		const struct rvt_mregion *mr = rc->mr[k].mr;

		if (key && mr->lkey == key && mr->lkey_published &&
		    !atomic_read(&mr->lkey_invalid))
			return true;
	}
	return false;
}

/* One RC frame through softib_ud_rcv(): the drop reason, or NR. */
static enum softib_drop fz_rc_rx(struct fz_rc *rc, const u8 *buf,
				 unsigned int len)
{
	struct fz *fz = rc->fz;
	struct softib_port *port = fz->port;
	long freed = atomic_long_read(&fz_skbs_freed);
	enum softib_drop why = SOFTIB_DROP_NR;
	u64 before[SOFTIB_DROP_NR], moved = 0;
	struct sk_buff *skb;
	int i;

	for (i = 0; i < SOFTIB_DROP_NR; i++)
		before[i] = softib_drop_count(port, i);
	skb = fz_skb(fz, buf, len);
	KUNIT_ASSERT_NOT_NULL(fz->test, skb);
	sib_rx_skb(fz->t->sdev, skb);
	rc->fed++;
	if (atomic_long_read(&fz_skbs_freed) != freed + 1)
		fz_fail(fz, "the skb was not freed");
	for (i = 0; i < SOFTIB_DROP_NR; i++) {
		u64 d = softib_drop_count(port, i) - before[i];

		if (d) {
			moved += d;
			why = i;
		}
	}
	if (moved > 1)
		fz_fail(fz, "%llu drop counters moved", moved);
	if (why == SOFTIB_DROP_NR)
		rc->executed++;
	else
		rc->drops[why]++;
	fz_rc_check(rc);
	if (fz->failed)
		fz_dump(fz, "the frame", buf, len);
	return why;
}

/* An RC request to the QP; payload bytes of a pattern. */
static unsigned int fz_rc_frame(struct fz_rc *rc, u8 *buf, u8 opcode, u32 psn,
				u64 va, u32 rkey, u32 dmalen, u32 payload)
{
	struct fz *fz = rc->fz;
	struct softib_hdr h = {
		.lnh = SOFTIB_LNH_LOCAL, .dlid = FZ_LID, .slid = FZ_RC_PEER,
		.opcode = opcode, .pkey = 0xffff, .dqpn = FZ_RCQPN,
		.psn = psn & 0xffffff, .ackreq = fz_rnd(fz, 2),
		.va = va, .rkey = rkey, .dmalen = dmalen,
		.swap_add = fz_rnd(fz, 4), .compare = 0,
		.imm = cpu_to_be32(0xf00d), .inv_rkey = fz_rnd(fz, 2) ? rkey : 0,
	};

	return sib_make(&h, buf, payload);
}

/* An R_Key: a live MR's, 0, an MR's old key, or anything. */
static u32 fz_rc_rkey(struct fz_rc *rc, int *k)
{
	struct fz *fz = rc->fz;

	*k = fz_rnd(fz, FZ_NMR);
	switch (fz_rnd(fz, 16)) {
	case 0:
	case 1:
	case 2:
		return 0;
	case 3:
		return rc->mr[*k].old_key;
	case 4:
		return prandom_u32_state(&fz->rnd);
	default:
		return rc->mr[*k].mr->lkey;
	}
}

/* A VA for len bytes under MR k (R_Key 0: into the canary). */
static u64 fz_rc_va(struct fz_rc *rc, u32 rkey, int k, u32 len, bool atomic)
{
	struct fz *fz = rc->fz;
	u64 va;

	if (!rkey)
		return (u64)(uintptr_t)rc->canary +
		       (atomic ? 8 * fz_rnd(fz, 8) : fz_rnd(fz, 64));
	switch (fz_rnd(fz, 8)) {
	case 0:		/* before or past the MR */
		return FZ_IOVA(k) + (fz_rnd(fz, 2) ? -8ULL : FZ_MR_LEN - 4);
	case 1:		/* across the two segments */
		va = FZ_IOVA(k) + FZ_SEG - 8;
		break;
	default:
		va = FZ_IOVA(k) + fz_rnd(fz, FZ_MR_LEN - min(len, FZ_MR_LEN) + 1);
		break;
	}
	return atomic ? va & ~7ULL : va;
}

static const u32 fz_rc_lens[] = {
	0, 1, 8, FZ_RC_PMTU - 1, FZ_RC_PMTU, FZ_RC_PMTU + 1, 3 * FZ_RC_PMTU,
	FZ_SEG, FZ_MR_LEN, FZ_MR_LEN + 1,
};

/* The ULP: invalidate an MR, or register it again under its next key. */
static void fz_rc_ulp(struct fz_rc *rc)
{
	struct fz_mr *m = &rc->mr[fz_rnd(rc->fz, FZ_NMR)];
	struct rvt_mregion *mr = m->mr;

	rc->ulp_ops++;
	if (fz_rnd(rc->fz, 2) && !atomic_read(&mr->lkey_invalid)) {
		atomic_set(&mr->lkey_invalid, 1);
		return;
	}
	m->old_key = mr->lkey;
	mr->lkey = (mr->lkey & ~0xffU) | ((mr->lkey + 1) & 0xff);
	atomic_set(&mr->lkey_invalid, 0);
}

/* A new request in sequence, its R_Key, VA and length drawn. */
static unsigned int fz_rc_request(struct fz_rc *rc, u8 *buf, u32 psn)
{
	static const u8 ops[] = {
		IB_OPCODE_RC_SEND_ONLY, IB_OPCODE_RC_RDMA_WRITE_ONLY,
		IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
		IB_OPCODE_RC_RDMA_WRITE_FIRST, IB_OPCODE_RC_RDMA_READ_REQUEST,
		IB_OPCODE_RC_FETCH_ADD, IB_OPCODE_RC_COMPARE_SWAP,
	};
	struct fz *fz = rc->fz;
	u8 op = ops[fz_rnd(fz, ARRAY_SIZE(ops))];
	u32 len = fz_rc_lens[fz_rnd(fz, ARRAY_SIZE(fz_rc_lens))], pay = 0;
	bool atomic = false;
	u32 rkey;
	u64 va;
	int k;

	rkey = fz_rc_rkey(rc, &k);
	switch (op) {
	case IB_OPCODE_RC_SEND_ONLY:
		pay = min_t(u32, len, FZ_RC_PMTU);
		break;
	case IB_OPCODE_RC_RDMA_WRITE_ONLY:
	case IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE:
		len = min_t(u32, len, FZ_RC_PMTU);
		pay = len;
		break;
	case IB_OPCODE_RC_RDMA_WRITE_FIRST:
		len = max_t(u32, len, FZ_RC_PMTU + 1);
		pay = FZ_RC_PMTU;
		break;
	case IB_OPCODE_RC_FETCH_ADD:
	case IB_OPCODE_RC_COMPARE_SWAP:
		atomic = true;
		len = 8;
		break;
	}
	va = fz_rc_va(rc, rkey, k, len, atomic);
	rc->rkey0 += !rkey;
	return fz_rc_frame(rc, buf, op, psn, va, rkey, atomic ? 0 : len, pay);
}

/*
 * A duplicate of a READ executed before: from one of its PSNs, the RETH
 * advanced to it (or, one time in four, wrong by a packet). What was owed
 * is sent first; a duplicate whose R_Key is not live any more (the ULP
 * invalidated or re-keyed the MR since) must get no answer at all.
 */
static void fz_rc_dup(struct fz_rc *rc, u8 *buf)
{
	struct fz *fz = rc->fz;
	typeof(rc->reads[0]) *rd = &rc->reads[fz_rnd(fz, rc->nreads)];
	u32 npkts = rd->len ? DIV_ROUND_UP(rd->len, FZ_RC_PMTU) : 1;
	u32 j = fz_rnd(fz, npkts), len;
	enum softib_drop why;
	unsigned int n;
	bool stale;
	u64 va;

	va = rd->va + (u64)j * FZ_RC_PMTU;
	len = rd->len - min(rd->len, j * FZ_RC_PMTU);
	if (!fz_rnd(fz, 4))
		va += fz_rnd(fz, 2) ? FZ_RC_PMTU : -FZ_RC_PMTU;
	n = fz_rc_frame(rc, buf, IB_OPCODE_RC_RDMA_READ_REQUEST, rd->psn + j,
			va, rd->rkey, len, 0);
	stale = len && !fz_rc_key_live(rc, rd->rkey);
	fz_rc_drain_check(rc);
	why = fz_rc_rx(rc, buf, n);
	rc->dups++;
	if (!stale)
		return;
	rc->stale_dups++;
	if (fz_rc_drain(rc))
		fz_fail(fz, "a stale duplicate READ was answered (drop %d)",
			why);
}

/* The frame that got the last RNR NAK, again (the requester's retry). */
static void fz_rc_retry(struct fz_rc *rc, u8 *buf)
{
	memcpy(buf, rc->rnr, rc->rnr_len);
	rc->retries++;
	if (fz_rc_rx(rc, buf, rc->rnr_len) != SOFTIB_DROP_RNR)
		rc->rnr_len = 0;
}

/* A READ the QP executed: remembered for its duplicates. */
static void fz_rc_remember(struct fz_rc *rc, const u8 *buf, unsigned int n)
{
	struct softib_hdr h;
	unsigned int j;

	if (softib_hdr_parse(buf, n, &h) != SOFTIB_DROP_NR ||
	    h.opcode != IB_OPCODE_RC_RDMA_READ_REQUEST || h.dqpn != FZ_RCQPN)
		return;
	j = rc->nreads < FZ_NREADS ? rc->nreads++ :
	    fz_rnd(rc->fz, FZ_NREADS);
	rc->reads[j].psn = h.psn;
	rc->reads[j].va = h.va;
	rc->reads[j].rkey = h.rkey;
	rc->reads[j].len = h.dmalen;
}

/*
 * One step of a sequence: continue the WRITE in progress, a new request
 * (SEND, WRITE with and without immediate, a multi-packet WRITE, READ,
 * atomics), a duplicate of a READ executed before, the retry of a frame
 * that got an RNR NAK, the ULP invalidating or re-keying an MR, or the
 * send engine running; a quarter of the frames mutated as fuzz_rx
 * mutates them.
 */
static void fz_rc_step(struct fz_rc *rc, u8 *buf)
{
	struct fz *fz = rc->fz;
	struct rvt_qp *qp = rc->qp;
	bool in_write = qp->r_state == IB_OPCODE_RC_RDMA_WRITE_FIRST ||
			qp->r_state == IB_OPCODE_RC_RDMA_WRITE_MIDDLE;
	u32 r = fz_rnd(fz, 20), left;
	enum softib_drop why;
	unsigned int n;
	u8 op;

	if (r >= 12 && r < 15 && rc->nreads) {
		fz_rc_dup(rc, buf);
		return;
	}
	if (r >= 15 && r < 17 && rc->rnr_len) {
		fz_rc_retry(rc, buf);
		return;
	}
	if (r == 17) {
		fz_rc_ulp(rc);
		fz_rc_check(rc);
		return;
	}
	if (r >= 18) {
		fz_rc_drain_check(rc);
		return;
	}
	if (in_write && r < 8) {
		left = qp->r_len - qp->r_rcv_len;
		op = left > FZ_RC_PMTU ? IB_OPCODE_RC_RDMA_WRITE_MIDDLE :
		     fz_rnd(fz, 2) ? IB_OPCODE_RC_RDMA_WRITE_LAST :
		     IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE;
		n = fz_rc_frame(rc, buf, op, qp->r_psn, 0, 0, 0,
				min_t(u32, left, FZ_RC_PMTU));
	} else {
		n = fz_rc_request(rc, buf, qp->r_psn);
	}
	if (!fz_rnd(fz, 4))
		fz_mutate_frame(fz, buf, &n);
	why = fz_rc_rx(rc, buf, n);
	if (why == SOFTIB_DROP_RNR) {
		rc->rnr_naks++;
		memcpy(rc->rnr, buf, n);
		rc->rnr_len = n;
	} else if (why == SOFTIB_DROP_NR) {
		fz_rc_remember(rc, buf, n);
	}
}

/*
 * RC sequences against an RC QP with MRs (see fz_rc_step()). After every
 * input the checks of fz_rc_check(); after the engine ran, no READ
 * answered holds its MR; a duplicate READ under an R_Key that is not live
 * is not answered. At the end, the engine run dry and the QP moved to
 * error as rdmavt does it (rvt_error_qp() gives back what the QP holds):
 * every MR's references are back to none.
 */
static void fuzz_rc(struct kunit *test)
{
	struct fz *fz = fz_new(test);
	struct fz_rc *rc = fz_rc_new(fz);
	u8 *buf = fz_alloc(fz, FZ_CAP);
	unsigned long flags;
	unsigned int i;
	ktime_t start = ktime_get();
	int k;

	for (i = 0; i < fz_iters && !fz->failed; i++) {
		fz->iter = i;
		fz_rc_step(rc, buf);
	}
	if (!fz->failed)
		fz_rc_drain_check(rc);
	spin_lock_irqsave(&rc->qp->r_lock, flags);
	spin_lock(&rc->qp->s_lock);
	rvt_error_qp(rc->qp, IB_WC_WR_FLUSH_ERR);
	spin_unlock(&rc->qp->s_lock);
	spin_unlock_irqrestore(&rc->qp->r_lock, flags);
	for (k = 0; k < FZ_NMR; k++)
		KUNIT_EXPECT_EQ_MSG(test, fz_mr_refs(&rc->mr[k]), 0,
				    "seed %#lx: MR %d", fz->seed, k);
	KUNIT_EXPECT_EQ(test, fz_mr_refs(&rc->dma), 0);
	KUNIT_EXPECT_GT(test, rc->executed, 0);
	KUNIT_EXPECT_GT(test, rc->rnr_naks, 0);
	KUNIT_EXPECT_GT(test, rc->drops[SOFTIB_DROP_RKEY], 0);
	kunit_info(test,
		   "seed %#lx rc: %llu frames (%llu executed; rkey %llu, rnr %llu, dup %llu, len %llu, opseq %llu, psn %llu), %llu with R_Key 0, %llu RNR NAKs and %llu retries, %llu duplicate READs (%llu stale), %llu MR invalidations/re-keys, %llu engine runs sent %llu packets, in %lld ms\n",
		   fz->seed, rc->fed, rc->executed,
		   rc->drops[SOFTIB_DROP_RKEY], rc->drops[SOFTIB_DROP_RNR],
		   rc->drops[SOFTIB_DROP_DUP], rc->drops[SOFTIB_DROP_LEN],
		   rc->drops[SOFTIB_DROP_OPSEQ], rc->drops[SOFTIB_DROP_PSN],
		   rc->rkey0, rc->rnr_naks, rc->retries, rc->dups,
		   rc->stale_dups, rc->ulp_ops, rc->drains, rc->pkts_out,
		   ktime_ms_delta(ktime_get(), start));
}

/* ---- UD sequences: packets too large for the next WQE, then others ----- */

#define FZ_SEQ_BUF	2048		/* the largest frame fuzz_ud_seq makes */

/* What the receive path must do with one packet of a UD sequence. */
struct fz_seq {
	struct sib_rq *rq;
	u8 *buf;
	long base;			/* the DMA MR's references at rest */
	u64 completed;			/* WQEs received into (wr_id order) */
	bool held;			/* the next WQE is kept by the QP */
	/* tallies */
	u64 frames, received, oversized, early, empty, run, longest_run;
};

/* The length of the WQE the next packet goes to (0: none left). */
static u32 fz_seq_next_len(struct fz_seq *q)
{
	struct sib_rq *rq = q->rq;

	if (q->completed == rq->posted)
		return 0;
	return rq->len[q->completed % (SIB_RQ_MAX + 1)];
}

/* Post WQEs of lengths around what packets carry (never below a GRH). */
static void fz_seq_post(struct fz *fz, struct fz_seq *q)
{
	static const u32 lens[] = { 40, 41, 44, 296, 297, 552, 1000, 1024 };
	unsigned int n = fz_rnd(fz, 6);

	while (n-- && q->rq->posted - q->completed < SIB_RQ_MAX)
		sib_rq_post(q->rq, fz_rnd(fz, 2) ?
			    lens[fz_rnd(fz, ARRAY_SIZE(lens))] :
			    40 + fz_rnd(fz, SIB_RQ_BUF - 40 + 1));
}

/*
 * One packet to the UD QP: its payload length drawn around the next WQE's
 * (exactly filling it, one byte over, far over, less), unicast or to the
 * group, with or without GRH and ImmDt; one time in eight a Q_Key or a
 * P_Key it must be refused for before any WQE.
 */
static void fz_seq_one(struct fz *fz, struct fz_seq *q)
{
	u32 wlen = fz_seq_next_len(q), room, plen, slot;
	enum softib_drop want = SOFTIB_DROP_NR, why = SOFTIB_DROP_NR;
	struct softib_port *port = fz->port;
	u64 before[SOFTIB_DROP_NR], moved = 0;
	struct sk_buff *skb;
	struct softib_hdr h;
	struct ib_wc wc;
	unsigned int i, len, bad = fz_rnd(fz, 8) ? 0 : 1 + fz_rnd(fz, 2);

	memset(&h, 0, sizeof(h));
	h.lnh = SOFTIB_LNH_LOCAL;
	h.dlid = FZ_LID;
	h.slid = 9;
	h.opcode = SOFTIB_OP_UD_SEND_ONLY;
	h.pkey = fz_rnd(fz, 2) ? FZ_PKEY : FZ_PKEY & 0x7fff;
	h.dqpn = FZ_UDQPN;
	h.psn = fz->iter;
	h.qkey = FZ_QKEY;
	h.sqpn = 0x77;
	if (fz_rnd(fz, 3) == 0) {
		h.opcode = SOFTIB_OP_UD_SEND_ONLY_IMM;
		h.imm = cpu_to_be32(fz->iter);
	}
	switch (fz_rnd(fz, 3)) {
	case 0:
		break;
	case 1:
		fz_grh(&h, NULL);
		break;
	default:
		fz_grh(&h, fz_mgid);
		h.dlid = FZ_MLID;
		h.dqpn = SOFTIB_QPN_MCAST;
		break;
	}
	if (bad == 1) {
		h.qkey = FZ_QKEY ^ 0x100;
		want = SOFTIB_DROP_QKEY;
	} else if (bad == 2) {
		h.pkey = 0x1234;
		want = SOFTIB_DROP_PKEY;
	}

	room = wlen > SOFTIB_GRH_BYTES ? wlen - SOFTIB_GRH_BYTES : 0;
	switch (wlen ? fz_rnd(fz, 6) : 5) {
	case 0:
		plen = room;
		break;
	case 1:
		plen = room + 1;
		break;
	case 2:
		plen = room + 1 + fz_rnd(fz, 512);
		break;
	case 3:
		plen = room - min(room, fz_rnd(fz, 64));
		break;
	case 4:
		plen = fz_rnd(fz, room + 1);
		break;
	default:
		plen = fz_rnd(fz, SIB_RQ_BUF + 200);
		break;
	}
	len = sib_make_data(&h, q->buf, NULL, plen);
	if (want == SOFTIB_DROP_NR) {
		if (!wlen)
			want = SOFTIB_DROP_NO_RWQE;
		else if (plen + SOFTIB_GRH_BYTES > wlen)
			want = SOFTIB_DROP_NO_RWQE;
	}

	for (i = 0; i < SOFTIB_DROP_NR; i++)
		before[i] = softib_drop_count(port, i);
	skb = fz_skb(fz, q->buf, len);
	KUNIT_ASSERT_NOT_NULL(fz->test, skb);
	sib_rx_skb(fz->t->sdev, skb);
	q->frames++;
	for (i = 0; i < SOFTIB_DROP_NR; i++) {
		u64 d = softib_drop_count(port, i) - before[i];

		if (d) {
			moved += d;
			why = i;
		}
	}
	if (moved > 1 || why != want)
		fz_fail(fz, "a %u-byte payload (next WQE %u bytes%s) was dropped as %d, not %d",
			plen, wlen, q->held ? ", kept" : "", why, want);

	if (want == SOFTIB_DROP_NR) {
		/* received into the next WQE, in order */
		slot = q->completed % (SIB_RQ_MAX + 1);
		if (!sib_rq_poll(q->rq, &wc)) {
			fz_fail(fz, "a %u-byte payload fit WQE %llu (%u bytes), not received",
				plen, q->completed, wlen);
		} else if (wc.wr_id != q->completed ||
			   wc.status != IB_WC_SUCCESS ||
			   wc.byte_len != plen + SOFTIB_GRH_BYTES ||
			   memcmp(q->rq->buf + slot * SIB_RQ_BUF +
				  SOFTIB_GRH_BYTES, q->buf + softib_hdr_len(&h),
				  plen)) {
			fz_fail(fz, "WQE %llu completed as wr_id %llu status %d, %u bytes of %u",
				q->completed, wc.wr_id, wc.status, wc.byte_len,
				plen + SOFTIB_GRH_BYTES);
		}
		q->completed++;
		q->held = false;
		q->received++;
		q->run = 0;
	} else if (want == SOFTIB_DROP_NO_RWQE && wlen) {
		q->held = true;
		q->oversized++;
		q->longest_run = max(q->longest_run, ++q->run);
	} else if (want == SOFTIB_DROP_NO_RWQE) {
		q->empty++;
	} else {
		q->early++;
	}
	if (sib_rq_poll(q->rq, &wc))
		fz_fail(fz, "a completion (wr_id %llu status %d) for a dropped packet",
			wc.wr_id, wc.status);
	if (sib_mr_refs(q->rq) != q->base + q->held)
		fz_fail(fz, "the DMA MR has %ld references, not %ld (%s)",
			sib_mr_refs(q->rq), q->base + q->held,
			q->held ? "a WQE kept" : "none kept");
	if (fz->failed)
		fz_dump(fz, "the frame", q->buf, len);
}

/*
 * fuzz_ud_seq: sequences of UD packets to a UD QP whose receive queue
 * holds WQEs on rdmavt's DMA MR (its references counted, see
 * softib_test.h): packets too large for the next WQE and packets that fit
 * follow each other in any order. A packet too large is dropped as
 * no_rwqe and costs no WQE (the QP keeps it for the next packet); one that
 * fits is received into the next WQE, in order, whole; one refused earlier
 * touches no WQE; and the MR's references are the base plus one while a
 * WQE is kept. At the end the QP fails, as a reset or a destroy starts
 * (rvt_error_qp()): every WQE left completes, flushed, the kept one first,
 * and the references return to zero when the MR goes.
 */
static void fuzz_ud_seq(struct kunit *test)
{
	struct fz *fz = fz_new(test);
	struct fz_seq *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	struct ib_wc wc;
	unsigned int i;
	u64 left;

	KUNIT_ASSERT_NOT_NULL(test, q);
	q->buf = fz_alloc(fz, FZ_SEQ_BUF);
	q->rq = sib_rq_init(test, fz->t->sdev, fz->qp[FZ_QPUD]);
	q->base = sib_mr_refs(q->rq);
	KUNIT_EXPECT_EQ(test, q->base, 1L);
	fz_reset(fz, true);
	for (i = 0; i < fz_iters && !fz->failed; i++) {
		fz->iter = i;
		if (q->rq->posted - q->completed < 2 || !fz_rnd(fz, 8))
			fz_seq_post(fz, q);
		fz_seq_one(fz, q);
	}

	/* the QP fails: what is left completes, and the references go */
	left = q->rq->posted - q->completed;
	sib_rq_fail(q->rq);
	for (i = 0; i < left; i++) {
		if (!sib_rq_poll(q->rq, &wc) || wc.wr_id != q->completed + i ||
		    wc.status != IB_WC_WR_FLUSH_ERR) {
			KUNIT_FAIL(test, "seed %#lx: WQE %llu of %llu left not flushed",
				   fz->seed, q->completed + i, left);
			break;
		}
	}
	KUNIT_EXPECT_FALSE(test, sib_rq_poll(q->rq, &wc));
	KUNIT_EXPECT_EQ(test, sib_mr_refs(q->rq), q->base);
	KUNIT_EXPECT_TRUE_MSG(test, sib_rq_mr_kill(q->rq),
			      "the DMA MR's references did not return to zero");
	kunit_info(test,
		   "seed %#lx ud_seq: %llu packets: %llu received, %llu too large for the next WQE (at most %llu in a row), %llu with no WQE posted, %llu refused before a WQE; %llu WQEs flushed at the end\n",
		   fz->seed, q->frames, q->received, q->oversized,
		   q->longest_run, q->empty, q->early, left);
}

static const void *fz_gen_params(const void *prev, char *desc)
{
	const unsigned long *p = prev;

	if (fz_seed) {
		if (prev)
			return NULL;
		p = &fz_seed;
	} else {
		p = prev ? p + 1 : fz_seeds;
		if (p == fz_seeds + ARRAY_SIZE(fz_seeds))
			return NULL;
	}
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seed %#lx", *p);
	return p;
}

static struct kunit_case softib_fuzz_cases[] = {
	KUNIT_CASE_PARAM(fuzz_rx, fz_gen_params),
	KUNIT_CASE_PARAM(fuzz_mad, fz_gen_params),
	KUNIT_CASE_PARAM(fuzz_rc, fz_gen_params),
	KUNIT_CASE_PARAM(fuzz_ud_seq, fz_gen_params),
	{}
};

static struct kunit_suite softib_fuzz_suite = {
	.name = "softib_fuzz",
	.init = t_init,
	.exit = t_exit,
	.test_cases = softib_fuzz_cases,
};

kunit_test_suite(softib_fuzz_suite);

MODULE_DESCRIPTION("A seeded fuzzer over softib's receive path, SMA and PMA");
MODULE_LICENSE("GPL");
