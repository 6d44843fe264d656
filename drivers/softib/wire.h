/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softib wire format: the IB headers of a packet (IBA 1.x, chapter 9 and
 * 7.7), parsed into host-order fields and built back from them. Only the
 * headers the UD engine needs so far: LRH, GRH, BTH, DETH, ImmDt.
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

/* UD opcodes (transport 011b) */
#define SOFTIB_OP_UD_SEND_ONLY		0x64
#define SOFTIB_OP_UD_SEND_ONLY_IMM	0x65

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
	/* parse results */
	unsigned int hdr_len;	/* LRH through the last extended header */
	unsigned int payload_len;	/* without the pad */
};

static inline bool softib_lid_is_mcast(u16 lid)
{
	return lid >= SOFTIB_LID_MCAST_MIN && lid <= SOFTIB_LID_MCAST_MAX;
}

static inline bool softib_op_has_imm(u8 opcode)
{
	return opcode == SOFTIB_OP_UD_SEND_ONLY_IMM;
}

static inline bool softib_op_is_ud(u8 opcode)
{
	return opcode == SOFTIB_OP_UD_SEND_ONLY ||
	       opcode == SOFTIB_OP_UD_SEND_ONLY_IMM;
}

unsigned int softib_hdr_len(const struct softib_hdr *h);
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
