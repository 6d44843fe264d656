/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softib wire format: the IB headers of a packet (IBA 1.x, chapter 9 and
 * 7.7), parsed into host-order fields and built back from them: LRH, GRH,
 * BTH and the extended transport headers of the UD and RC opcodes (DETH,
 * RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH).
 */
#ifndef SOFTIB_WIRE_H
#define SOFTIB_WIRE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <kunit/visibility.h>
#include "softib.h"

#define SOFTIB_LRH_BYTES	8
#define SOFTIB_GRH_BYTES	40
#define SOFTIB_BTH_BYTES	12
#define SOFTIB_DETH_BYTES	8
#define SOFTIB_IMM_BYTES	4
#define SOFTIB_ICRC_BYTES	4
#define SOFTIB_RETH_BYTES	16
#define SOFTIB_AETH_BYTES	4
#define SOFTIB_ATOMIC_BYTES	28
#define SOFTIB_ATOMICACK_BYTES	8
#define SOFTIB_IETH_BYTES	4
/* The most header bytes any packet carries (an RDMA WRITE ONLY with imm). */
#define SOFTIB_MAX_HDR		(SOFTIB_LRH_BYTES + SOFTIB_GRH_BYTES + \
				 SOFTIB_BTH_BYTES + SOFTIB_ATOMIC_BYTES + \
				 SOFTIB_IMM_BYTES)
/* The most header bytes a UD packet carries (LRH GRH BTH DETH ImmDt). */
#define SOFTIB_UD_MAX_HDR	(SOFTIB_LRH_BYTES + SOFTIB_GRH_BYTES + \
				 SOFTIB_BTH_BYTES + SOFTIB_DETH_BYTES + \
				 SOFTIB_IMM_BYTES)

/* LRH LNH: link next header */
#define SOFTIB_LNH_RAW		0
#define SOFTIB_LNH_IP		1
#define SOFTIB_LNH_LOCAL	2	/* BTH follows */
#define SOFTIB_LNH_GLOBAL	3	/* GRH follows */

#define SOFTIB_LVER		0	/* LRH link version */
#define SOFTIB_IPVER		6	/* GRH IP version */
#define SOFTIB_NXTHDR_IBA	0x1b	/* GRH next header: BTH */
#define SOFTIB_TVER		0	/* BTH transport header version */

#define SOFTIB_LID_MCAST_MIN	0xc000
#define SOFTIB_LID_MCAST_MAX	0xfffe
#define SOFTIB_LID_PERMISSIVE	0xffff
#define SOFTIB_QPN_MCAST	0xffffff

/* UD opcodes (transport 011b); RC's (000b) are ib_pack.h's IB_OPCODE_RC_* */
#define SOFTIB_OP_UD_SEND_ONLY		0x64
#define SOFTIB_OP_UD_SEND_ONLY_IMM	0x65

/* Extended headers an opcode carries (softib_op_ext()), in wire order. */
#define SOFTIB_EXT_DETH		BIT(0)
#define SOFTIB_EXT_RETH		BIT(1)
#define SOFTIB_EXT_ATOMIC	BIT(2)
#define SOFTIB_EXT_AETH		BIT(3)
#define SOFTIB_EXT_ATOMICACK	BIT(4)
#define SOFTIB_EXT_IMM		BIT(5)
#define SOFTIB_EXT_IETH		BIT(6)
#define SOFTIB_EXT_PAYLOAD	BIT(7)	/* may carry a payload */
#define SOFTIB_EXT_VALID	BIT(8)	/* an opcode we implement */

/* AETH syndrome (IBA 9.7.5.1): type in bits 7-5, value in bits 4-0 */
#define SOFTIB_AETH_ACK		0x00	/* | credit code */
#define SOFTIB_AETH_RNR		0x20	/* | RNR timer code */
#define SOFTIB_AETH_NAK		0x60	/* | NAK code */
#define SOFTIB_NAK_PSN_SEQ	0x60
#define SOFTIB_NAK_INV_REQ	0x61
#define SOFTIB_NAK_REM_ACCESS	0x62
#define SOFTIB_NAK_REM_OP	0x63
#define SOFTIB_AETH_TYPE_MASK	0xe0
#define SOFTIB_CREDIT_INVALID	0x1f

/* One packet's headers, host order. */
struct softib_hdr {
	/* LRH */
	u8 vl, lver, sl, lnh;
	u16 dlid, slid;
	u16 pktlen;		/* in 4-byte words, LRH through ICRC */
	/* GRH (lnh == SOFTIB_LNH_GLOBAL) */
	u8 ipver, tclass, nxthdr, hop_limit;
	u32 flow_label;
	u16 paylen;		/* bytes after the GRH through the ICRC */
	union ib_gid sgid, dgid;
	/* BTH */
	u8 opcode, padcnt, tver;
	bool se, mig, ackreq;
	u16 pkey;
	u32 dqpn, psn;
	/* DETH */
	u32 qkey, sqpn;
	/* ImmDt (SEND_ONLY_WITH_IMMEDIATE) */
	__be32 imm;
	/* RETH, AtomicETH (va, rkey; swap_add, compare) */
	u64 va;
	u32 rkey;
	u32 dmalen;
	u64 swap_add, compare;
	/* AETH: syndrome << 24 | MSN; AtomicAckETH; IETH */
	u32 aeth;
	u64 atomic_orig;
	u32 inv_rkey;
	/* parse results */
	unsigned int hdr_len;	/* LRH through the last extended header */
	unsigned int payload_len;	/* without the pad */
};

static inline bool softib_lid_is_mcast(u16 lid)
{
	return lid >= SOFTIB_LID_MCAST_MIN && lid <= SOFTIB_LID_MCAST_MAX;
}

u16 softib_op_ext(u8 opcode);

static inline bool softib_op_has_imm(u8 opcode)
{
	return softib_op_ext(opcode) & SOFTIB_EXT_IMM;
}

static inline bool softib_op_is_ud(u8 opcode)
{
	return opcode == SOFTIB_OP_UD_SEND_ONLY ||
	       opcode == SOFTIB_OP_UD_SEND_ONLY_IMM;
}

/* RC opcodes: transport 000b. */
static inline bool softib_op_is_rc(u8 opcode)
{
	return opcode < 0x20;
}

/* 24-bit PSN order: < 0 if a precedes b, 0 if equal, > 0 if it follows. */
static inline int softib_psn_cmp(u32 a, u32 b)
{
	return (int)((a - b) << 8);
}

static inline u32 softib_psn_add(u32 psn, u32 n)
{
	return (psn + n) & 0xffffff;
}

static inline u32 softib_aeth(u8 syndrome, u32 msn)
{
	return (u32)syndrome << 24 | (msn & 0xffffff);
}

static inline u8 softib_aeth_syndrome(u32 aeth)
{
	return aeth >> 24;
}

u8 softib_credit_code(u32 rwqes);

unsigned int softib_hdr_len(const struct softib_hdr *h);
/* ud.c: LRH/GRH towards ah; PktLen, PadCnt, GRH PayLen for len bytes */
void softib_hdr_route(struct softib_port *port, const struct rdma_ah_attr *ah,
		      struct softib_hdr *h);
void softib_hdr_lengths(struct softib_hdr *h, u32 len);

static inline bool softib_pkey_match(u16 a, u16 b)
{
	/* Same key, and not both limited members (IBA 10.9.3). */
	return (a & 0x7fff) && (a & 0x7fff) == (b & 0x7fff) &&
	       ((a | b) & 0x8000);
}

void softib_hdr_build(void *buf, const struct softib_hdr *h);

/*
 * Validate and parse a received packet of len bytes (the carrier may have
 * padded it: the LRH's PktLen is the truth). Returns SOFTIB_DROP_NR for a
 * good packet, else why to drop it.
 */
enum softib_drop softib_hdr_parse(const void *pkt, unsigned int len,
				  struct softib_hdr *h);

void softib_icrc_set(void *pkt, unsigned int len_without_icrc);
bool softib_icrc_ok(const void *pkt, unsigned int len);

#endif /* SOFTIB_WIRE_H */
