// SPDX-License-Identifier: GPL-2.0
/*
 * RDMAP messages (RFC 5040 section 4): which DDP model and queue each
 * opcode uses, the READ request header, TERMINATE.
 *
 * RDMAP control field (DDP's first ULP octet): RV(0xc0) = 1, reserved
 * (0x30, not checked), opcode (0x0f).
 * TERMINATE (untagged, QN 2, one segment): Layer(4 bits) EType(4)
 * ErrorCode(8) M D R (3) reserved (13); then, with M, the 16-bit DDP
 * segment length of the terminated segment; with D, its DDP header; with
 * R, its RDMAP header (a READ request's 28 octets).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "rdmap.h"

#define TERM_FLAG_M	0x8000
#define TERM_FLAG_D	0x4000
#define TERM_FLAG_R	0x2000

static int rdmap_refuse(struct softrnic_term_cause *cause, u8 layer, u8 etype,
			u8 ecode)
{
	cause->layer = layer;
	cause->etype = etype;
	cause->ecode = ecode;
	return -EPROTO;
}

/*
 * Check a decoded DDP header against RDMAP: version, opcode, its buffer
 * model and queue, the single-segment messages and their sizes.
 * @payload_len: octets after the DDP header.
 */
int softrnic_rdmap_check(const struct softrnic_ddp_hdr *h, u32 payload_len,
			 struct softrnic_term_cause *cause)
{
	u8 op = h->ulp_ctrl & 0x0f;
	bool tagged_op = op == SOFTRNIC_OP_WRITE || op == SOFTRNIC_OP_READ_RESP;
	u32 qn;

	if (h->ulp_ctrl >> 6 != SOFTRNIC_RDMAP_VERSION)
		return rdmap_refuse(cause, SOFTRNIC_TERM_RDMAP,
				    SOFTRNIC_RDMAP_ET_OPERATION,
				    SOFTRNIC_RDMAP_EC_VERSION);
	if (op > SOFTRNIC_OP_TERMINATE || tagged_op != h->tagged)
		return rdmap_refuse(cause, SOFTRNIC_TERM_RDMAP,
				    SOFTRNIC_RDMAP_ET_OPERATION,
				    SOFTRNIC_RDMAP_EC_OPCODE);
	if (tagged_op)
		return 0;
	qn = op == SOFTRNIC_OP_READ_REQ ? SOFTRNIC_QN_READ_REQ :
	     op == SOFTRNIC_OP_TERMINATE ? SOFTRNIC_QN_TERMINATE :
	     SOFTRNIC_QN_SEND;
	if (h->qn != qn)
		return rdmap_refuse(cause, SOFTRNIC_TERM_DDP,
				    SOFTRNIC_DDP_ET_UNTAGGED,
				    SOFTRNIC_DDP_EC_UT_INVALID_QN);
	if (op == SOFTRNIC_OP_READ_REQ &&
	    (!h->last || h->mo || payload_len != SOFTRNIC_RDMAP_RREQ_LEN))
		return rdmap_refuse(cause, SOFTRNIC_TERM_RDMAP,
				    SOFTRNIC_RDMAP_ET_OPERATION,
				    SOFTRNIC_RDMAP_EC_STREAM);
	if (op == SOFTRNIC_OP_TERMINATE &&
	    (!h->last || h->mo || payload_len < SOFTRNIC_RDMAP_TERM_CTRL_LEN))
		return rdmap_refuse(cause, SOFTRNIC_TERM_RDMAP,
				    SOFTRNIC_RDMAP_ET_OPERATION,
				    SOFTRNIC_RDMAP_EC_STREAM);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_rdmap_check);

void softrnic_rdmap_rreq_encode(const struct softrnic_rdmap_rreq *rr, u8 *buf)
{
	put_unaligned_be32(rr->sink_stag, buf);
	put_unaligned_be64(rr->sink_to, buf + 4);
	put_unaligned_be32(rr->size, buf + 12);
	put_unaligned_be32(rr->src_stag, buf + 16);
	put_unaligned_be64(rr->src_to, buf + 20);
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_rdmap_rreq_encode);

void softrnic_rdmap_rreq_decode(const u8 *buf, struct softrnic_rdmap_rreq *rr)
{
	rr->sink_stag = get_unaligned_be32(buf);
	rr->sink_to = get_unaligned_be64(buf + 4);
	rr->size = get_unaligned_be32(buf + 12);
	rr->src_stag = get_unaligned_be32(buf + 16);
	rr->src_to = get_unaligned_be64(buf + 20);
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_rdmap_rreq_decode);

/*
 * The TERMINATE payload (after its DDP header) into @buf, at most
 * SOFTRNIC_RDMAP_TERM_MAX_LEN octets. @ddp_hdr (without the MPA length)
 * and @rreq are the terminated segment's, either may be NULL.
 */
u32 softrnic_rdmap_term_encode(u8 *buf, const struct softrnic_term_cause *c,
			       const u8 *ddp_hdr, u32 ddp_hdr_len, u16 seg_len,
			       const u8 *rreq)
{
	u32 word = (u32)(c->layer & 0xf) << 28 | (u32)(c->etype & 0xf) << 24 |
		   (u32)c->ecode << 16;
	u32 len = SOFTRNIC_RDMAP_TERM_CTRL_LEN;

	if (ddp_hdr) {
		word |= TERM_FLAG_M | TERM_FLAG_D;
		put_unaligned_be16(seg_len, buf + len);
		len += 2;
		memcpy(buf + len, ddp_hdr, ddp_hdr_len);
		len += ddp_hdr_len;
	}
	if (rreq) {
		word |= TERM_FLAG_R;
		memcpy(buf + len, rreq, SOFTRNIC_RDMAP_RREQ_LEN);
		len += SOFTRNIC_RDMAP_RREQ_LEN;
	}
	put_unaligned_be32(word, buf);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_rdmap_term_encode);

int softrnic_rdmap_term_decode(const u8 *buf, u32 len,
			       struct softrnic_rdmap_term *t)
{
	u32 word;

	if (len < SOFTRNIC_RDMAP_TERM_CTRL_LEN)
		return -EPROTO;
	word = get_unaligned_be32(buf);
	t->cause.layer = word >> 28;
	t->cause.etype = (word >> 24) & 0xf;
	t->cause.ecode = (word >> 16) & 0xff;
	t->m = word & TERM_FLAG_M;
	t->d = word & TERM_FLAG_D;
	t->r = word & TERM_FLAG_R;
	t->seg_len = 0;
	if (t->m) {
		if (len < SOFTRNIC_RDMAP_TERM_CTRL_LEN + 2)
			return -EPROTO;
		t->seg_len = get_unaligned_be16(buf + SOFTRNIC_RDMAP_TERM_CTRL_LEN);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_rdmap_term_decode);
