// SPDX-License-Identifier: GPL-2.0
/*
 * softib: build and parse the IB headers of a packet (LRH, GRH, BTH and
 * the extended transport headers of UD and RC), IBA 1.x chapters 7.7 and
 * 9.2-9.3. Big-endian on the wire.
 */
#include <linux/unaligned.h>
#include <rdma/ib_pack.h>
#include "softib.h"
#include "wire.h"

#define P	SOFTIB_EXT_PAYLOAD
#define V	SOFTIB_EXT_VALID

/* IBA table 38, for the opcodes softib implements (UD and RC). */
static const u16 softib_op_table[256] = {
	[IB_OPCODE_RC_SEND_FIRST] = V | P,
	[IB_OPCODE_RC_SEND_MIDDLE] = V | P,
	[IB_OPCODE_RC_SEND_LAST] = V | P,
	[IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE] = V | P | SOFTIB_EXT_IMM,
	[IB_OPCODE_RC_SEND_ONLY] = V | P,
	[IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE] = V | P | SOFTIB_EXT_IMM,
	[IB_OPCODE_RC_RDMA_WRITE_FIRST] = V | P | SOFTIB_EXT_RETH,
	[IB_OPCODE_RC_RDMA_WRITE_MIDDLE] = V | P,
	[IB_OPCODE_RC_RDMA_WRITE_LAST] = V | P,
	[IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE] = V | P | SOFTIB_EXT_IMM,
	[IB_OPCODE_RC_RDMA_WRITE_ONLY] = V | P | SOFTIB_EXT_RETH,
	[IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE] =
		V | P | SOFTIB_EXT_RETH | SOFTIB_EXT_IMM,
	[IB_OPCODE_RC_RDMA_READ_REQUEST] = V | SOFTIB_EXT_RETH,
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST] = V | P | SOFTIB_EXT_AETH,
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE] = V | P,
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST] = V | P | SOFTIB_EXT_AETH,
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY] = V | P | SOFTIB_EXT_AETH,
	[IB_OPCODE_RC_ACKNOWLEDGE] = V | SOFTIB_EXT_AETH,
	[IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE] =
		V | SOFTIB_EXT_AETH | SOFTIB_EXT_ATOMICACK,
	[IB_OPCODE_RC_COMPARE_SWAP] = V | SOFTIB_EXT_ATOMIC,
	[IB_OPCODE_RC_FETCH_ADD] = V | SOFTIB_EXT_ATOMIC,
	[IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE] = V | P | SOFTIB_EXT_IETH,
	[IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE] = V | P | SOFTIB_EXT_IETH,
	[SOFTIB_OP_UD_SEND_ONLY] = V | P | SOFTIB_EXT_DETH,
	[SOFTIB_OP_UD_SEND_ONLY_IMM] = V | P | SOFTIB_EXT_DETH | SOFTIB_EXT_IMM,
};

#undef P
#undef V

/* The extended headers of opcode; 0 for one softib does not implement. */
u16 softib_op_ext(u8 opcode)
{
	return softib_op_table[opcode];
}
EXPORT_SYMBOL_IF_KUNIT(softib_op_ext);

static unsigned int softib_ext_len(u16 ext)
{
	unsigned int len = 0;

	if (ext & SOFTIB_EXT_DETH)
		len += SOFTIB_DETH_BYTES;
	if (ext & SOFTIB_EXT_RETH)
		len += SOFTIB_RETH_BYTES;
	if (ext & SOFTIB_EXT_ATOMIC)
		len += SOFTIB_ATOMIC_BYTES;
	if (ext & SOFTIB_EXT_AETH)
		len += SOFTIB_AETH_BYTES;
	if (ext & SOFTIB_EXT_ATOMICACK)
		len += SOFTIB_ATOMICACK_BYTES;
	if (ext & SOFTIB_EXT_IMM)
		len += SOFTIB_IMM_BYTES;
	if (ext & SOFTIB_EXT_IETH)
		len += SOFTIB_IETH_BYTES;
	return len;
}

/* Bytes of headers h describes: LRH, GRH if LNH says so, BTH, the rest. */
unsigned int softib_hdr_len(const struct softib_hdr *h)
{
	unsigned int len = SOFTIB_LRH_BYTES + SOFTIB_BTH_BYTES;

	if (h->lnh == SOFTIB_LNH_GLOBAL)
		len += SOFTIB_GRH_BYTES;
	return len + softib_ext_len(softib_op_ext(h->opcode));
}
EXPORT_SYMBOL_IF_KUNIT(softib_hdr_len);

/*
 * The AETH credit code for rwqes posted receive WQEs (IBA table 44): the
 * largest code whose count does not exceed it. Code n counts 2^(n/2) for
 * even n and 3 * 2^((n-3)/2) for odd n >= 3 (1, 2, 3, 4, 6, 8, 12, ...),
 * code 0 counts none; 30 (32768) is the largest.
 */
u8 softib_credit_code(u32 rwqes)
{
	u8 code = 0;
	u32 n;

	while (code < 30) {
		u8 next = code + 1;

		n = next == 1 ? 1 : (next & 1) ? 3U << ((next - 3) / 2) :
			1U << (next / 2);
		if (n > rwqes)
			break;
		code = next;
	}
	return code;
}
EXPORT_SYMBOL_IF_KUNIT(softib_credit_code);

static void softib_ext_build(u8 *p, u16 ext, const struct softib_hdr *h)
{
	if (ext & SOFTIB_EXT_DETH) {
		/* Q_Key | resv8 SrcQP */
		put_unaligned_be32(h->qkey, p);
		put_unaligned_be32(h->sqpn & 0xffffff, p + 4);
		p += SOFTIB_DETH_BYTES;
	}
	if (ext & (SOFTIB_EXT_RETH | SOFTIB_EXT_ATOMIC)) {
		/* VA | R_Key | DMA length, or VA | R_Key | swap/add | compare */
		put_unaligned_be64(h->va, p);
		put_unaligned_be32(h->rkey, p + 8);
		if (ext & SOFTIB_EXT_RETH) {
			put_unaligned_be32(h->dmalen, p + 12);
			p += SOFTIB_RETH_BYTES;
		} else {
			put_unaligned_be64(h->swap_add, p + 12);
			put_unaligned_be64(h->compare, p + 20);
			p += SOFTIB_ATOMIC_BYTES;
		}
	}
	if (ext & SOFTIB_EXT_AETH) {
		put_unaligned_be32(h->aeth, p);
		p += SOFTIB_AETH_BYTES;
	}
	if (ext & SOFTIB_EXT_ATOMICACK) {
		put_unaligned_be64(h->atomic_orig, p);
		p += SOFTIB_ATOMICACK_BYTES;
	}
	if (ext & SOFTIB_EXT_IMM) {
		memcpy(p, &h->imm, SOFTIB_IMM_BYTES);
		p += SOFTIB_IMM_BYTES;
	}
	if (ext & SOFTIB_EXT_IETH)
		put_unaligned_be32(h->inv_rkey, p);
}

/* Parse the extended headers ext says are at p (already length-checked). */
static void softib_ext_parse(const u8 *p, u16 ext, struct softib_hdr *h)
{
	if (ext & SOFTIB_EXT_DETH) {
		h->qkey = get_unaligned_be32(p);
		h->sqpn = get_unaligned_be32(p + 4) & 0xffffff;
		p += SOFTIB_DETH_BYTES;
	}
	if (ext & (SOFTIB_EXT_RETH | SOFTIB_EXT_ATOMIC)) {
		h->va = get_unaligned_be64(p);
		h->rkey = get_unaligned_be32(p + 8);
		if (ext & SOFTIB_EXT_RETH) {
			h->dmalen = get_unaligned_be32(p + 12);
			p += SOFTIB_RETH_BYTES;
		} else {
			h->swap_add = get_unaligned_be64(p + 12);
			h->compare = get_unaligned_be64(p + 20);
			p += SOFTIB_ATOMIC_BYTES;
		}
	}
	if (ext & SOFTIB_EXT_AETH) {
		h->aeth = get_unaligned_be32(p);
		p += SOFTIB_AETH_BYTES;
	}
	if (ext & SOFTIB_EXT_ATOMICACK) {
		h->atomic_orig = get_unaligned_be64(p);
		p += SOFTIB_ATOMICACK_BYTES;
	}
	if (ext & SOFTIB_EXT_IMM) {
		memcpy(&h->imm, p, SOFTIB_IMM_BYTES);
		p += SOFTIB_IMM_BYTES;
	}
	if (ext & SOFTIB_EXT_IETH)
		h->inv_rkey = get_unaligned_be32(p);
}

/* Writes softib_hdr_len(h) bytes at buf. */
void softib_hdr_build(void *buf, const struct softib_hdr *h)
{
	u8 *p = buf;

	/* LRH: VL LVer | SL rsv LNH | DLID | rsv PktLen | SLID */
	p[0] = (h->vl << 4) | (h->lver & 0xf);
	p[1] = (h->sl << 4) | (h->lnh & 3);
	put_unaligned_be16(h->dlid, p + 2);
	put_unaligned_be16(h->pktlen & 0x7ff, p + 4);
	put_unaligned_be16(h->slid, p + 6);
	p += SOFTIB_LRH_BYTES;

	if (h->lnh == SOFTIB_LNH_GLOBAL) {
		/* IPVer TClass FlowLabel | PayLen NxtHdr HopLmt | SGID | DGID */
		put_unaligned_be32((u32)h->ipver << 28 | (u32)h->tclass << 20 |
				   (h->flow_label & 0xfffff), p);
		put_unaligned_be16(h->paylen, p + 4);
		p[6] = h->nxthdr;
		p[7] = h->hop_limit;
		memcpy(p + 8, h->sgid.raw, 16);
		memcpy(p + 24, h->dgid.raw, 16);
		p += SOFTIB_GRH_BYTES;
	}

	/* BTH: OpCode | SE M Pad TVer | P_Key | resv8a DestQP | A resv PSN */
	p[0] = h->opcode;
	p[1] = (h->se ? 0x80 : 0) | (h->mig ? 0x40 : 0) |
	       ((h->padcnt & 3) << 4) | (h->tver & 0xf);
	put_unaligned_be16(h->pkey, p + 2);
	put_unaligned_be32(h->dqpn & 0xffffff, p + 4);
	put_unaligned_be32((h->ackreq ? 0x80000000 : 0) | (h->psn & 0xffffff),
			   p + 8);
	p += SOFTIB_BTH_BYTES;

	softib_ext_build(p, softib_op_ext(h->opcode), h);
}
EXPORT_SYMBOL_IF_KUNIT(softib_hdr_build);

static void softib_parse_lrh(const u8 *p, struct softib_hdr *h)
{
	h->vl = p[0] >> 4;
	h->lver = p[0] & 0xf;
	h->sl = p[1] >> 4;
	h->lnh = p[1] & 3;
	h->dlid = get_unaligned_be16(p + 2);
	h->pktlen = get_unaligned_be16(p + 4) & 0x7ff;
	h->slid = get_unaligned_be16(p + 6);
}

static void softib_parse_grh(const u8 *p, struct softib_hdr *h)
{
	u32 w = get_unaligned_be32(p);

	h->ipver = w >> 28;
	h->tclass = (w >> 20) & 0xff;
	h->flow_label = w & 0xfffff;
	h->paylen = get_unaligned_be16(p + 4);
	h->nxthdr = p[6];
	h->hop_limit = p[7];
	memcpy(h->sgid.raw, p + 8, 16);
	memcpy(h->dgid.raw, p + 24, 16);
}

static void softib_parse_bth(const u8 *p, struct softib_hdr *h)
{
	h->opcode = p[0];
	h->se = p[1] & 0x80;
	h->mig = p[1] & 0x40;
	h->padcnt = (p[1] >> 4) & 3;
	h->tver = p[1] & 0xf;
	h->pkey = get_unaligned_be16(p + 2);
	h->dqpn = get_unaligned_be32(p + 4) & 0xffffff;
	h->ackreq = p[8] & 0x80;
	h->psn = get_unaligned_be32(p + 8) & 0xffffff;
}

/*
 * Order of the checks: the link layer's (lengths, LVer/LNH, GRH next
 * header), then the ICRC over what the LRH says is the packet, then the
 * transport's (TVer, opcode, its extended headers and pad).
 */
enum softib_drop softib_hdr_parse(const void *pkt, unsigned int len,
				  struct softib_hdr *h)
{
	const u8 *p = pkt;
	unsigned int off, bytes, rest, elen;
	u16 ext;

	memset(h, 0, sizeof(*h));
	if (len < SOFTIB_LRH_BYTES + SOFTIB_BTH_BYTES + SOFTIB_ICRC_BYTES)
		return SOFTIB_DROP_SHORT;
	softib_parse_lrh(p, h);
	if (h->lver != SOFTIB_LVER)
		return SOFTIB_DROP_LVER;
	if (h->lnh != SOFTIB_LNH_LOCAL && h->lnh != SOFTIB_LNH_GLOBAL)
		return SOFTIB_DROP_LVER;
	bytes = h->pktlen * 4;
	if (bytes > len)
		return SOFTIB_DROP_SHORT;
	off = SOFTIB_LRH_BYTES;
	if (h->lnh == SOFTIB_LNH_GLOBAL) {
		if (bytes < off + SOFTIB_GRH_BYTES + SOFTIB_BTH_BYTES +
			    SOFTIB_ICRC_BYTES)
			return SOFTIB_DROP_SHORT;
		softib_parse_grh(p + off, h);
		if (h->ipver != SOFTIB_IPVER || h->nxthdr != SOFTIB_NXTHDR_IBA)
			return SOFTIB_DROP_LVER;
		if (h->paylen != bytes - off - SOFTIB_GRH_BYTES)
			return SOFTIB_DROP_SHORT;
		off += SOFTIB_GRH_BYTES;
	}
	if (bytes < off + SOFTIB_BTH_BYTES + SOFTIB_ICRC_BYTES)
		return SOFTIB_DROP_SHORT;
	if (!softib_icrc_ok(p, bytes))
		return SOFTIB_DROP_ICRC;

	softib_parse_bth(p + off, h);
	off += SOFTIB_BTH_BYTES;
	if (h->tver != SOFTIB_TVER)
		return SOFTIB_DROP_LVER;
	ext = softib_op_ext(h->opcode);
	if (!ext)
		return SOFTIB_DROP_OPCODE;
	elen = softib_ext_len(ext);
	if (bytes < off + elen + SOFTIB_ICRC_BYTES)
		return SOFTIB_DROP_SHORT;
	softib_ext_parse(p + off, ext, h);
	off += elen;
	rest = bytes - off - SOFTIB_ICRC_BYTES;
	if (h->padcnt > rest)
		return SOFTIB_DROP_SHORT;
	h->hdr_len = off;
	h->payload_len = rest - h->padcnt;
	return SOFTIB_DROP_NR;
}
EXPORT_SYMBOL_IF_KUNIT(softib_hdr_parse);
