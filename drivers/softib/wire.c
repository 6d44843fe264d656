// SPDX-License-Identifier: GPL-2.0
/*
 * softib: build and parse the IB headers of a UD packet (LRH, GRH, BTH,
 * DETH, ImmDt), IBA 1.x chapters 7.7 and 9.2-9.3. Big-endian on the wire.
 */
#include <linux/unaligned.h>
#include "softib.h"
#include "wire.h"

/* Bytes of headers h describes: LRH, GRH if LNH says so, BTH, DETH, ImmDt. */
unsigned int softib_hdr_len(const struct softib_hdr *h)
{
	unsigned int len = SOFTIB_LRH_BYTES + SOFTIB_BTH_BYTES +
			   SOFTIB_DETH_BYTES;

	if (h->lnh == SOFTIB_LNH_GLOBAL)
		len += SOFTIB_GRH_BYTES;
	if (softib_op_has_imm(h->opcode))
		len += SOFTIB_IMM_BYTES;
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(softib_hdr_len);

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

	/* DETH: Q_Key | resv8 SrcQP */
	put_unaligned_be32(h->qkey, p);
	put_unaligned_be32(h->sqpn & 0xffffff, p + 4);
	p += SOFTIB_DETH_BYTES;

	if (softib_op_has_imm(h->opcode))
		memcpy(p, &h->imm, SOFTIB_IMM_BYTES);
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
	unsigned int off, bytes, rest;

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
	if (!softib_op_is_ud(h->opcode))
		return SOFTIB_DROP_OPCODE;
	if (bytes < off + SOFTIB_DETH_BYTES + SOFTIB_ICRC_BYTES)
		return SOFTIB_DROP_SHORT;
	h->qkey = get_unaligned_be32(p + off);
	h->sqpn = get_unaligned_be32(p + off + 4) & 0xffffff;
	off += SOFTIB_DETH_BYTES;
	if (softib_op_has_imm(h->opcode)) {
		if (bytes < off + SOFTIB_IMM_BYTES + SOFTIB_ICRC_BYTES)
			return SOFTIB_DROP_SHORT;
		memcpy(&h->imm, p + off, SOFTIB_IMM_BYTES);
		off += SOFTIB_IMM_BYTES;
	}
	rest = bytes - off - SOFTIB_ICRC_BYTES;
	if (h->padcnt > rest)
		return SOFTIB_DROP_SHORT;
	h->hdr_len = off;
	h->payload_len = rest - h->padcnt;
	return SOFTIB_DROP_NR;
}
EXPORT_SYMBOL_IF_KUNIT(softib_hdr_parse);
