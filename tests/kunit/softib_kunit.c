// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for softib's packet path: the ICRC (a vector computed outside
 * the kernel from the IBA rule with Python's zlib.crc32, see
 * tests/e2e/softib-rawsend.py), a build/parse round trip of every LRH, GRH,
 * BTH and DETH field, and the receive validation: each bad packet is
 * dropped under its own reason and never reaches a QP.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include "softib_test.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/*
 * LRH (VL 0, LVer 0, SL 0, LNH BTH, DLID 5, PktLen 10, SLID 7), BTH (UD
 * SEND only, P_Key ffff, QP 1, PSN 123456), DETH (Q_Key 80010000, SQP 42),
 * "softib!!"; ICRC 0xb977aa50, sent as 50 aa 77 b9.
 */
static const u8 sib_vec[] = {
	0x00, 0x02, 0x00, 0x05, 0x00, 0x0a, 0x00, 0x07,
	0x64, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x12, 0x34, 0x56,
	0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x42,
	's', 'o', 'f', 't', 'i', 'b', '!', '!',
};

static void sib_icrc_vector(struct kunit *test)
{
	u8 pkt[sizeof(sib_vec) + 4];

	KUNIT_EXPECT_EQ(test, softib_icrc(sib_vec, sizeof(sib_vec)),
			0xb977aa50U);
	memcpy(pkt, sib_vec, sizeof(sib_vec));
	softib_icrc_set(pkt, sizeof(sib_vec));
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(pkt + sizeof(sib_vec)),
			0xb977aa50U);
	KUNIT_EXPECT_TRUE(test, softib_icrc_ok(pkt, sizeof(pkt)));
}

/* The variant fields do not count; the invariant ones do. */
static void sib_icrc_variant(struct kunit *test)
{
	u8 pkt[sizeof(sib_vec)];

	memcpy(pkt, sib_vec, sizeof(pkt));
	pkt[0] |= 0xa0;			/* VL 10 */
	pkt[8 + 4] = 0x5c;		/* BTH resv8a */
	KUNIT_EXPECT_EQ(test, softib_icrc(pkt, sizeof(pkt)), 0xb977aa50U);
	pkt[0] |= 0x01;			/* LVer: invariant */
	KUNIT_EXPECT_NE(test, softib_icrc(pkt, sizeof(pkt)), 0xb977aa50U);
	memcpy(pkt, sib_vec, sizeof(pkt));
	pkt[3] = 0x06;			/* DLID */
	KUNIT_EXPECT_NE(test, softib_icrc(pkt, sizeof(pkt)), 0xb977aa50U);
	memcpy(pkt, sib_vec, sizeof(pkt));
	pkt[sizeof(pkt) - 1] ^= 1;	/* payload */
	KUNIT_EXPECT_NE(test, softib_icrc(pkt, sizeof(pkt)), 0xb977aa50U);
}

/* A GRH packet: traffic class, flow label and hop limit are variant. */
static void sib_icrc_grh_variant(struct kunit *test)
{
	struct softib_hdr h = {
		.lnh = SOFTIB_LNH_GLOBAL, .ipver = 6, .nxthdr = 0x1b,
		.opcode = SOFTIB_OP_UD_SEND_ONLY, .pkey = 0xffff,
		.dlid = 0xc001, .dqpn = 0xffffff, .qkey = 7,
	};
	u8 a[128] = {}, b[128] = {};
	unsigned int len;

	len = softib_hdr_len(&h);
	softib_hdr_build(a, &h);
	h.tclass = 0xab;
	h.flow_label = 0x12345;
	h.hop_limit = 9;
	softib_hdr_build(b, &h);
	KUNIT_EXPECT_NE(test, memcmp(a, b, len), 0);
	KUNIT_EXPECT_EQ(test, softib_icrc(a, len), softib_icrc(b, len));
	h.dgid.raw[15] = 1;		/* invariant */
	softib_hdr_build(b, &h);
	KUNIT_EXPECT_NE(test, softib_icrc(a, len), softib_icrc(b, len));
}

/* ---- round trip --------------------------------------------------------- */

static void sib_expect_same(struct kunit *test, const struct softib_hdr *a,
			    const struct softib_hdr *b)
{
	KUNIT_EXPECT_EQ(test, a->vl, b->vl);
	KUNIT_EXPECT_EQ(test, a->lver, b->lver);
	KUNIT_EXPECT_EQ(test, a->sl, b->sl);
	KUNIT_EXPECT_EQ(test, a->lnh, b->lnh);
	KUNIT_EXPECT_EQ(test, a->dlid, b->dlid);
	KUNIT_EXPECT_EQ(test, a->slid, b->slid);
	KUNIT_EXPECT_EQ(test, a->pktlen, b->pktlen);
	KUNIT_EXPECT_EQ(test, a->ipver, b->ipver);
	KUNIT_EXPECT_EQ(test, a->tclass, b->tclass);
	KUNIT_EXPECT_EQ(test, a->flow_label, b->flow_label);
	KUNIT_EXPECT_EQ(test, a->paylen, b->paylen);
	KUNIT_EXPECT_EQ(test, a->nxthdr, b->nxthdr);
	KUNIT_EXPECT_EQ(test, a->hop_limit, b->hop_limit);
	KUNIT_EXPECT_MEMEQ(test, a->sgid.raw, b->sgid.raw, 16);
	KUNIT_EXPECT_MEMEQ(test, a->dgid.raw, b->dgid.raw, 16);
	KUNIT_EXPECT_EQ(test, a->opcode, b->opcode);
	KUNIT_EXPECT_EQ(test, a->se, b->se);
	KUNIT_EXPECT_EQ(test, a->mig, b->mig);
	KUNIT_EXPECT_EQ(test, a->padcnt, b->padcnt);
	KUNIT_EXPECT_EQ(test, a->tver, b->tver);
	KUNIT_EXPECT_EQ(test, a->pkey, b->pkey);
	KUNIT_EXPECT_EQ(test, a->dqpn, b->dqpn);
	KUNIT_EXPECT_EQ(test, a->ackreq, b->ackreq);
	KUNIT_EXPECT_EQ(test, a->psn, b->psn);
	KUNIT_EXPECT_EQ(test, a->qkey, b->qkey);
	KUNIT_EXPECT_EQ(test, a->sqpn, b->sqpn);
	KUNIT_EXPECT_EQ(test, a->imm, b->imm);
}

/* Every field at a value no other field has, in both LNH forms, ± ImmDt. */
static void sib_roundtrip(struct kunit *test)
{
	static const u8 lnhs[] = { SOFTIB_LNH_LOCAL, SOFTIB_LNH_GLOBAL };
	static const u8 ops[] = { SOFTIB_OP_UD_SEND_ONLY,
				  SOFTIB_OP_UD_SEND_ONLY_IMM };
	struct softib_hdr h, p;
	unsigned int i, j, k, bytes;
	u8 *buf;

	buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(lnhs); i++)
		for (j = 0; j < ARRAY_SIZE(ops); j++)
			for (k = 0; k < 4; k++) {
				memset(&h, 0, sizeof(h));
				h.vl = 0xd;
				h.sl = 0x9;
				h.lnh = lnhs[i];
				h.dlid = 0xbeef;
				h.slid = 0x1234;
				if (h.lnh == SOFTIB_LNH_GLOBAL) {
					h.ipver = SOFTIB_IPVER;
					h.tclass = 0xa5;
					h.flow_label = 0xfedcb;
					h.nxthdr = SOFTIB_NXTHDR_IBA;
					h.hop_limit = 0x3c;
					memset(h.sgid.raw, 0x11, 16);
					h.sgid.raw[0] = 0xfe;
					memset(h.dgid.raw, 0x22, 16);
					h.dgid.raw[15] = 0x99;
				}
				h.opcode = ops[j];
				h.se = k & 1;
				h.mig = !(k & 1);
				h.ackreq = k & 2;
				h.pkey = 0x8abc;
				h.dqpn = 0xc0ffee;
				h.psn = 0x7a5a5a;
				h.qkey = 0x80010000 | k;
				h.sqpn = 0x654321;
				if (softib_op_has_imm(h.opcode))
					h.imm = cpu_to_be32(0xdeadbeef);
				bytes = sib_make(&h, buf, 61 + k);
				KUNIT_ASSERT_EQ(test,
						softib_hdr_parse(buf, bytes, &p),
						SOFTIB_DROP_NR);
				sib_expect_same(test, &h, &p);
				KUNIT_EXPECT_EQ(test, p.hdr_len, softib_hdr_len(&h));
				KUNIT_EXPECT_EQ(test, p.payload_len, 61 + k);
				KUNIT_EXPECT_EQ(test, buf[p.hdr_len], 0xa0);
				/* Carrier padding after the packet is ignored. */
				KUNIT_EXPECT_EQ(test,
						softib_hdr_parse(buf, bytes + 20, &p),
						SOFTIB_DROP_NR);
				KUNIT_EXPECT_EQ(test, p.payload_len, 61 + k);
			}
}

/* ---- receive validation -------------------------------------------------- */

#define SIB_LID		5

struct sib_rx {
	struct softib_dev *sdev;
	struct rvt_qp *qp1;
	struct rvt_qp_ibdev qp_dev;	/* an empty QPN hash of two buckets */
	struct rvt_qp __rcu *qp_buckets[2];
};

static void sib_rx_free(void *data)
{
	struct sib_rx *rx = data;

	kfree(rx->qp1);
	kfree(rx->sdev);
}

/*
 * A device with just what the receive path reads: port 1 ACTIVE at LID 5,
 * the full default P_Key, and a GSI QP1 in RESET. A packet that passes every
 * check (for QP1: one 256-byte MAD) reaches QP1 and is dropped there as
 * SOFTIB_DROP_QP (not ready to receive): that count is how a test sees
 * "delivered".
 */
static struct softib_port *sib_rx_port(struct kunit *test)
{
	struct softib_port *port;
	struct sib_rx *rx;

	rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rx);
	rx->sdev = kzalloc(sizeof(*rx->sdev), GFP_KERNEL);
	rx->qp1 = kzalloc(sizeof(*rx->qp1), GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sib_rx_free, rx),
			0);
	KUNIT_ASSERT_NOT_NULL(test, rx->sdev);
	KUNIT_ASSERT_NOT_NULL(test, rx->qp1);
	rx->qp_dev.qp_table_size = ARRAY_SIZE(rx->qp_buckets);
	rx->qp_dev.qp_table_bits = 1;
	rx->qp_dev.qp_table = rx->qp_buckets;
	rx->sdev->rdi.qp_dev = &rx->qp_dev;
	spin_lock_init(&rx->qp1->r_lock);
	rx->qp1->ibqp.qp_type = IB_QPT_GSI;
	rx->qp1->ibqp.qp_num = 1;
	rx->qp1->state = IB_QPS_RESET;
	port = &rx->sdev->port;
	port->sdev = rx->sdev;
	port->port_num = 1;
	port->lid = SIB_LID;
	port->state = IB_PORT_ACTIVE;
	port->pkeys[0] = 0xffff;
	spin_lock_init(&port->rvp.lock);
	port->rvp.mcast_tree = RB_ROOT;
	RCU_INIT_POINTER(port->rvp.qp[1], rx->qp1);
	return port;
}

/* A good UD packet to QP1 at our LID (sib_vec with room for the ICRC). */
static struct softib_hdr sib_good_hdr(void)
{
	struct softib_hdr h = {
		.lnh = SOFTIB_LNH_LOCAL, .dlid = SIB_LID, .slid = 7,
		.opcode = SOFTIB_OP_UD_SEND_ONLY, .pkey = 0xffff, .dqpn = 1,
		.psn = 1, .qkey = IB_QP1_QKEY, .sqpn = 0x42,
	};
	return h;
}

/* Runs one packet through softib_ud_rcv(): which counters moved. */
static void sib_rx_one(struct kunit *test, struct softib_port *port,
		       const u8 *pkt, unsigned int len, enum softib_drop why)
{
	u64 before[SOFTIB_DROP_NR];
	struct sk_buff *skb;
	int i;

	for (i = 0; i < SOFTIB_DROP_NR; i++)
		before[i] = softib_drop_count(port, i);
	skb = alloc_skb(len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_data(skb, pkt, len);
	sib_rx_skb(port->sdev, skb);
	for (i = 0; i < SOFTIB_DROP_NR; i++)
		KUNIT_EXPECT_EQ_MSG(test, softib_drop_count(port, i) - before[i],
				    (u64)(i == why), "reason %d (expected %d)",
				    i, why);
}

static void sib_rx_checks(struct kunit *test)
{
	struct softib_port *port = sib_rx_port(test);
	struct softib_hdr h;
	unsigned int len;
	u8 *buf;

	buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* The control: a good packet gets all the way to QP1. */
	h = sib_good_hdr();
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_QP);
	/* So does one to the LMC range of our LID (base 4, LMC 2: 4..7). */
	port->lid = 4;
	port->lmc = 2;
	h = sib_good_hdr();
	h.dlid = 7;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_QP);
	h.dlid = 8;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_DLID);
	port->lid = SIB_LID;
	port->lmc = 0;

	/* Shorter than its headers; shorter than its LRH says. */
	h = sib_good_hdr();
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, 16, SOFTIB_DROP_SHORT);
	sib_rx_one(test, port, buf, len - 4, SOFTIB_DROP_SHORT);
	/* A pad count larger than the payload. */
	h = sib_good_hdr();
	len = sib_make(&h, buf, 0);
	buf[9] |= 0x30;
	softib_icrc_set(buf, len - 4);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_SHORT);

	/* Bad ICRC */
	h = sib_good_hdr();
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	buf[len - 1] ^= 0x80;
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_ICRC);

	/* LVer 1; LNH raw; GRH with a bad next header; TVer 1 */
	h = sib_good_hdr();
	h.lver = 1;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_LVER);
	h = sib_good_hdr();
	h.lnh = SOFTIB_LNH_RAW;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_LVER);
	h = sib_good_hdr();
	h.lnh = SOFTIB_LNH_GLOBAL;
	h.ipver = SOFTIB_IPVER;
	h.nxthdr = 0x11;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_LVER);
	h = sib_good_hdr();
	h.tver = 1;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_LVER);

	/* Unknown opcode (RC space, reserved) with a good ICRC */
	h = sib_good_hdr();
	h.opcode = 0x1f;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_OPCODE);

	/* DLID not ours; permissive DLID to a QP other than QP0 */
	h = sib_good_hdr();
	h.dlid = SIB_LID + 1;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_DLID);
	h = sib_good_hdr();
	h.dlid = SOFTIB_LID_PERMISSIVE;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_DLID);

	/* P_Key not in the table; QP1 on VL15 */
	h = sib_good_hdr();
	h.pkey = 0x1234;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_PKEY);
	h = sib_good_hdr();
	h.vl = 15;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_QP);

	/* Q_Key: QP1 takes only IB_QP1_QKEY */
	h = sib_good_hdr();
	h.qkey = 0x1234;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_QKEY);

	/* No such QP */
	h = sib_good_hdr();
	h.dqpn = 0x77;
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_QP);

	/* A port in INIT takes SMPs only. */
	port->state = IB_PORT_INIT;
	h = sib_good_hdr();
	len = sib_make(&h, buf, IB_MGMT_MAD_SIZE);
	sib_rx_one(test, port, buf, len, SOFTIB_DROP_PORT_DOWN);

	KUNIT_EXPECT_EQ(test, port->rvp.pkey_violations, 1);
	KUNIT_EXPECT_EQ(test, port->rvp.qkey_violations, 1);
}

/* ---- QP0 and QP1: MAD packets ---------------------------------------------- */

/*
 * sib_rx_port() with QP0 and QP1 ready to receive and no receive WQE
 * posted: a packet that reaches either is counted as no_rwqe.
 */
static struct softib_port *sib_rx_port_ready(struct kunit *test)
{
	struct softib_port *port = sib_rx_port(test);
	struct ib_device *ibdev = &port->sdev->rdi.ibdev;
	static const enum ib_qp_type types[] = { IB_QPT_SMI, IB_QPT_GSI };
	struct rvt_krwq *kwq;
	struct rvt_qp *qp;
	int i;

	for (i = 0; i < 2; i++) {
		qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
		kwq = kunit_kzalloc(test, sizeof(*kwq), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, qp);
		KUNIT_ASSERT_NOT_NULL(test, kwq);
		sib_qp_ready(qp, kwq, ibdev, types[i], i);
		RCU_INIT_POINTER(port->rvp.qp[i], qp);
	}
	return port;
}

/* A LID-routed SMP to our LID, on VL15. */
static struct softib_hdr sib_smp_hdr(void)
{
	struct softib_hdr h = sib_good_hdr();

	h.vl = 15;
	h.dqpn = 0;
	h.qkey = 0;
	h.sqpn = 0;
	return h;
}

/* A packet of h's headers carrying a zeroed MAD of this class. */
static unsigned int sib_make_mad(struct softib_hdr *h, u8 *buf, u8 mgmt_class,
				 unsigned int len)
{
	u8 mad[IB_MGMT_MAD_SIZE + 8] = {};

	mad[0] = IB_MGMT_BASE_VERSION;
	mad[1] = mgmt_class;
	mad[2] = 1;
	mad[3] = IB_MGMT_METHOD_GET;
	return sib_make_data(h, buf, mad, len);
}

/* One packet of h's headers and a MAD of this class: where it must end. */
static void sib_rx_mad(struct kunit *test, struct softib_port *port,
		       struct softib_hdr h, u8 mgmt_class, unsigned int mad_len,
		       enum softib_drop why)
{
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	sib_rx_one(test, port, buf, sib_make_mad(&h, buf, mgmt_class, mad_len),
		   why);
}

/*
 * An SMP that finds no receive buffer on QP0 counts in the PMA's
 * VL15Dropped (IBA 16.1.3.5; qib does the same); a GMP on QP1 does not.
 */
static void sib_rx_vl15_dropped(struct kunit *test)
{
	struct softib_port *port = sib_rx_port_ready(test);

	sib_rx_mad(test, port, sib_smp_hdr(), IB_MGMT_CLASS_SUBN_LID_ROUTED,
		   IB_MGMT_MAD_SIZE, SOFTIB_DROP_NO_RWQE);
	KUNIT_EXPECT_EQ(test, port->rvp.n_vl15_dropped, 1);
	sib_rx_mad(test, port, sib_good_hdr(), IB_MGMT_CLASS_SUBN_ADM,
		   IB_MGMT_MAD_SIZE, SOFTIB_DROP_NO_RWQE);
	KUNIT_EXPECT_EQ(test, port->rvp.n_vl15_dropped, 1);
}

/* IBA 13.5.3.1: a packet to QP0 or QP1 carries one 256-byte MAD, no more or less. */
static void sib_rx_mad_len(struct kunit *test)
{
	static const unsigned int lens[] = { 0, 24, 252, 255, 257, 260, 264 };
	struct softib_port *port = sib_rx_port_ready(test);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		sib_rx_mad(test, port, sib_smp_hdr(),
			   IB_MGMT_CLASS_SUBN_LID_ROUTED, lens[i],
			   SOFTIB_DROP_MAD);
		sib_rx_mad(test, port, sib_good_hdr(), IB_MGMT_CLASS_SUBN_ADM,
			   lens[i], SOFTIB_DROP_MAD);
	}
	/* the controls: exactly one MAD reaches the QP */
	sib_rx_mad(test, port, sib_smp_hdr(), IB_MGMT_CLASS_SUBN_LID_ROUTED,
		   IB_MGMT_MAD_SIZE, SOFTIB_DROP_NO_RWQE);
	sib_rx_mad(test, port, sib_good_hdr(), IB_MGMT_CLASS_SUBN_ADM,
		   IB_MGMT_MAD_SIZE, SOFTIB_DROP_NO_RWQE);
}

/* ... sent as SEND only: a MAD with ImmDt is no MAD (13.5.3.1, as qib). */
static void sib_rx_mad_imm(struct kunit *test)
{
	struct softib_port *port = sib_rx_port_ready(test);
	struct softib_hdr h;

	h = sib_smp_hdr();
	h.opcode = SOFTIB_OP_UD_SEND_ONLY_IMM;
	h.imm = cpu_to_be32(1);
	sib_rx_mad(test, port, h, IB_MGMT_CLASS_SUBN_LID_ROUTED,
		   IB_MGMT_MAD_SIZE, SOFTIB_DROP_MAD);
	h = sib_good_hdr();
	h.opcode = SOFTIB_OP_UD_SEND_ONLY_IMM;
	sib_rx_mad(test, port, h, IB_MGMT_CLASS_SUBN_ADM, IB_MGMT_MAD_SIZE,
		   SOFTIB_DROP_MAD);
}

/*
 * The permissive LID, as DLID or SLID, belongs to QP0, and there to
 * directed-route SMPs only (IBA 9.6.1.4.1; qib drops the rest).
 */
static void sib_rx_permissive(struct kunit *test)
{
	struct softib_port *port = sib_rx_port_ready(test);
	struct softib_hdr to_perm = sib_smp_hdr(), from_perm = sib_smp_hdr();
	struct softib_hdr h = sib_good_hdr();

	to_perm.dlid = SOFTIB_LID_PERMISSIVE;
	from_perm.slid = SOFTIB_LID_PERMISSIVE;
	/* a GMP from the permissive SLID */
	h.slid = SOFTIB_LID_PERMISSIVE;
	sib_rx_mad(test, port, h, IB_MGMT_CLASS_SUBN_ADM, IB_MGMT_MAD_SIZE,
		   SOFTIB_DROP_DLID);
	/* LID-routed SMPs to or from the permissive LID */
	sib_rx_mad(test, port, to_perm, IB_MGMT_CLASS_SUBN_LID_ROUTED,
		   IB_MGMT_MAD_SIZE, SOFTIB_DROP_MAD);
	sib_rx_mad(test, port, from_perm, IB_MGMT_CLASS_SUBN_LID_ROUTED,
		   IB_MGMT_MAD_SIZE, SOFTIB_DROP_MAD);
	/* the controls: directed-route SMPs take it either way */
	sib_rx_mad(test, port, to_perm, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE,
		   IB_MGMT_MAD_SIZE, SOFTIB_DROP_NO_RWQE);
	sib_rx_mad(test, port, from_perm, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE,
		   IB_MGMT_MAD_SIZE, SOFTIB_DROP_NO_RWQE);
}

/* ---- UD: a packet too large for the receive WQE ------------------------- */

#define SIB_UDQPN	0x42
#define SIB_QKEY	0x0b1b
#define SIB_NWQE	4
#define SIB_WQE_LEN	(SOFTIB_GRH_BYTES + 256)	/* 40 + 256 bytes */

static const u8 sib_mgid[16] = {
	0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	0xff, 0xff,
};

/* How the oversized frames and the normal one reach the UD QP. */
struct sib_big {
	const char *name;
	bool grh, imm, mcast;
};

static const struct sib_big sib_bigs[] = {
	{ "unicast" },
	{ "unicast, GRH and ImmDt", true, true },
	{ "multicast", true, false, true },
};

static void sib_big_desc(const struct sib_big *b, char *desc)
{
	strscpy(desc, b->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sib_big, sib_bigs, sib_big_desc);

struct sib_ud {
	struct softib_port *port;
	struct rvt_qp *qp;
	struct sib_rq *rq;
	struct rvt_qp_ibdev qp_dev;
	struct rvt_qp __rcu *buckets[2];
	struct rvt_mcast mc;
	struct rvt_mcast_qp mqp;
	u8 buf[2048];
};

static void sib_ud_unlink(void *data)
{
	struct sib_ud *u = data;

	rb_erase(&u->mc.rb_node, &u->port->rvp.mcast_tree);
}

/*
 * sib_rx_port() with a UD QP (QPN SIB_UDQPN, Q_Key SIB_QKEY, P_Key index
 * 0) in RTS whose receive queue holds SIB_NWQE WQEs of SIB_WQE_LEN bytes,
 * attached to the multicast group sib_mgid at LID 0xc001.
 */
static struct sib_ud *sib_ud_setup(struct kunit *test)
{
	struct sib_ud *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	struct rvt_ibport *rvp;
	struct rvt_krwq *kwq;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, u);
	u->port = sib_rx_port(test);
	rvp = &u->port->rvp;
	u->qp = kunit_kzalloc(test, sizeof(*u->qp), GFP_KERNEL);
	kwq = kunit_kzalloc(test, sizeof(*kwq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u->qp);
	KUNIT_ASSERT_NOT_NULL(test, kwq);
	sib_qp_ready(u->qp, kwq, &u->port->sdev->rdi.ibdev, IB_QPT_UD,
		     SIB_UDQPN);
	u->qp->qkey = SIB_QKEY;
	u->rq = sib_rq_init(test, u->port->sdev, u->qp);
	for (i = 0; i < SIB_NWQE; i++)
		sib_rq_post(u->rq, SIB_WQE_LEN);

	u->qp_dev.qp_table_size = ARRAY_SIZE(u->buckets);
	u->qp_dev.qp_table_bits = 1;
	u->qp_dev.qp_table = u->buckets;
	u->port->sdev->rdi.qp_dev = &u->qp_dev;
	RCU_INIT_POINTER(u->buckets[hash_32(SIB_UDQPN, 1)], u->qp);

	memcpy(u->mc.mcast_addr.mgid.raw, sib_mgid, 16);
	u->mc.mcast_addr.lid = 0xc001;
	INIT_LIST_HEAD(&u->mc.qp_list);
	init_waitqueue_head(&u->mc.wait);
	u->mqp.qp = u->qp;
	list_add_tail(&u->mqp.list, &u->mc.qp_list);
	u->mc.n_attached = 1;
	rb_link_node(&u->mc.rb_node, NULL, &rvp->mcast_tree.rb_node);
	rb_insert_color(&u->mc.rb_node, &rvp->mcast_tree);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sib_ud_unlink,
							u), 0);
	return u;
}

/*
 * A frame to the UD QP as b says, with payload_len bytes in u->buf; its
 * length (and where its payload starts in *hl, if hl).
 */
static unsigned int sib_ud_frame(struct sib_ud *u, const struct sib_big *b,
				 unsigned int payload_len, unsigned int *hl)
{
	struct softib_hdr h = {
		.lnh = SOFTIB_LNH_LOCAL, .dlid = SIB_LID, .slid = 7,
		.opcode = SOFTIB_OP_UD_SEND_ONLY, .pkey = 0xffff,
		.dqpn = SIB_UDQPN, .qkey = SIB_QKEY, .sqpn = 0x77,
	};

	if (b->grh) {
		h.lnh = SOFTIB_LNH_GLOBAL;
		h.ipver = SOFTIB_IPVER;
		h.nxthdr = SOFTIB_NXTHDR_IBA;
		h.hop_limit = 1;
		h.dgid.global.subnet_prefix =
			cpu_to_be64(0xfe80000000000000ULL);
	}
	if (b->imm) {
		h.opcode = SOFTIB_OP_UD_SEND_ONLY_IMM;
		h.imm = cpu_to_be32(0xfeedf00d);
	}
	if (b->mcast) {
		h.dlid = 0xc001;
		h.dqpn = SOFTIB_QPN_MCAST;
		memcpy(h.dgid.raw, sib_mgid, 16);
	}
	if (hl)
		*hl = softib_hdr_len(&h);
	return sib_make(&h, u->buf, payload_len);
}

/*
 * More packets too large for the WQE than the QP has WQEs, then normal
 * ones: the oversized ones cost no WQE (each is dropped as no_rwqe, the
 * first WQE is kept for the next packet), every normal one is received
 * in order, and the DMA MR's references are back where they started after
 * each completion. Then one more oversized packet, and the QP fails: the
 * WQE it kept completes with the error, the rest are flushed, and the last
 * reference goes when the MR does. (Before the fix each oversized packet
 * took a WQE, leaked its MR reference and completed nothing.)
 */
static void sib_rx_oversize(struct kunit *test)
{
	const struct sib_big *b = test->param_value;
	struct sib_ud *u = sib_ud_setup(test);
	struct sib_rq *rq = u->rq;
	long base = sib_mr_refs(rq);
	unsigned int i, len, hl;
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, base, 1L);
	for (i = 0; i < 3 * SIB_NWQE; i++) {
		len = sib_ud_frame(u, b, SIB_WQE_LEN - SOFTIB_GRH_BYTES + 1 +
				   i * 100, NULL);
		sib_rx_one(test, u->port, u->buf, len, SOFTIB_DROP_NO_RWQE);
		KUNIT_EXPECT_FALSE(test, sib_rq_poll(rq, &wc));
		/* the one WQE it holds for the next packet */
		KUNIT_EXPECT_EQ(test, sib_mr_refs(rq), base + 1);
	}
	for (i = 0; i < SIB_NWQE; i++) {
		/* the largest that fits, then smaller ones */
		len = sib_ud_frame(u, b, SIB_WQE_LEN - SOFTIB_GRH_BYTES - i,
				   &hl);
		sib_rx_one(test, u->port, u->buf, len, SOFTIB_DROP_NR);
		KUNIT_ASSERT_TRUE_MSG(test, sib_rq_poll(rq, &wc),
				      "normal packet %u not received", i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
		KUNIT_EXPECT_EQ(test, wc.byte_len, SIB_WQE_LEN - i);
		KUNIT_EXPECT_EQ(test, !!(wc.wc_flags & IB_WC_GRH), b->grh);
		KUNIT_EXPECT_EQ(test, !!(wc.wc_flags & IB_WC_WITH_IMM), b->imm);
		KUNIT_EXPECT_MEMEQ(test, sib_rq_buf(rq, &wc) + SOFTIB_GRH_BYTES,
				   u->buf + hl, SIB_WQE_LEN - SOFTIB_GRH_BYTES - i);
		if (b->grh)
			KUNIT_EXPECT_MEMEQ(test, sib_rq_buf(rq, &wc),
					   u->buf + SOFTIB_LRH_BYTES,
					   SOFTIB_GRH_BYTES);
		KUNIT_EXPECT_EQ(test, sib_mr_refs(rq), base);
	}
	/* the queue is empty now, and only now */
	len = sib_ud_frame(u, b, 8, NULL);
	sib_rx_one(test, u->port, u->buf, len, SOFTIB_DROP_NO_RWQE);
	KUNIT_EXPECT_EQ(test, sib_mr_refs(rq), base);

	/* one kept WQE, then the QP fails: completed, the rest flushed */
	for (i = 0; i < SIB_NWQE; i++)
		sib_rq_post(rq, SIB_WQE_LEN);
	len = sib_ud_frame(u, b, SIB_WQE_LEN, NULL);
	sib_rx_one(test, u->port, u->buf, len, SOFTIB_DROP_NO_RWQE);
	KUNIT_EXPECT_EQ(test, sib_mr_refs(rq), base + 1);
	sib_rq_fail(rq);
	for (i = 0; i < SIB_NWQE; i++) {
		KUNIT_ASSERT_TRUE(test, sib_rq_poll(rq, &wc));
		KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)SIB_NWQE + i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	}
	KUNIT_EXPECT_FALSE(test, sib_rq_poll(rq, &wc));
	KUNIT_EXPECT_EQ(test, sib_mr_refs(rq), base);
	KUNIT_EXPECT_TRUE(test, sib_rq_mr_kill(rq));
}

static struct kunit_case sib_cases[] = {
	KUNIT_CASE(sib_icrc_vector),
	KUNIT_CASE(sib_icrc_variant),
	KUNIT_CASE(sib_icrc_grh_variant),
	KUNIT_CASE(sib_roundtrip),
	KUNIT_CASE(sib_rx_checks),
	KUNIT_CASE(sib_rx_vl15_dropped),
	KUNIT_CASE(sib_rx_mad_len),
	KUNIT_CASE(sib_rx_mad_imm),
	KUNIT_CASE(sib_rx_permissive),
	KUNIT_CASE_PARAM(sib_rx_oversize, sib_big_gen_params),
	{}
};

static struct kunit_suite sib_suite = {
	.name = "softib",
	.test_cases = sib_cases,
};

kunit_test_suite(sib_suite);

MODULE_DESCRIPTION("KUnit tests for softib's packet codecs and receive checks");
MODULE_LICENSE("GPL");
