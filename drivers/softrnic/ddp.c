// SPDX-License-Identifier: GPL-2.0
/*
 * DDP segment headers (RFC 5041): encode and check. All fields big endian.
 *
 *   tagged:   ctrl(1) ulp_ctrl(1) STag(4) TO(8)                    14 octets
 *   untagged: ctrl(1) ulp_ctrl(1) ulp_word(4) QN(4) MSN(4) MO(4)   18 octets
 *
 * ctrl: T(0x80) L(0x40) reserved(0x3c, sent as zero, not checked) DV(0x03).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/errno.h>
#include <linux/unaligned.h>

#include "ddp.h"

/* Write @h to @buf; returns the header length. */
u32 softrnic_ddp_encode(const struct softrnic_ddp_hdr *h, u8 *buf)
{
	buf[0] = SOFTRNIC_DDP_VERSION;
	if (h->tagged)
		buf[0] |= SOFTRNIC_DDP_FLAG_TAGGED;
	if (h->last)
		buf[0] |= SOFTRNIC_DDP_FLAG_LAST;
	buf[1] = h->ulp_ctrl;
	if (h->tagged) {
		put_unaligned_be32(h->stag, buf + 2);
		put_unaligned_be64(h->to, buf + 6);
		return SOFTRNIC_DDP_TAGGED_HDR_LEN;
	}
	put_unaligned_be32(h->ulp_word, buf + 2);
	put_unaligned_be32(h->qn, buf + 6);
	put_unaligned_be32(h->msn, buf + 10);
	put_unaligned_be32(h->mo, buf + 14);
	return SOFTRNIC_DDP_UNTAGGED_HDR_LEN;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_ddp_encode);

static int ddp_refuse(struct softrnic_term_cause *cause, u8 etype, u8 ecode)
{
	cause->layer = SOFTRNIC_TERM_DDP;
	cause->etype = etype;
	cause->ecode = ecode;
	return -EPROTO;
}

/*
 * Parse the DDP header at the start of the @len-octet ULPDU @buf. The QN
 * range is checked here (RDMAP uses queues 0..2); MSN and MO need the
 * stream state and are the caller's.
 */
int softrnic_ddp_decode(const u8 *buf, u32 len, struct softrnic_ddp_hdr *h,
			struct softrnic_term_cause *cause)
{
	if (len < SOFTRNIC_DDP_TAGGED_HDR_LEN)
		return ddp_refuse(cause, SOFTRNIC_DDP_ET_CATASTROPHIC, 0);
	h->tagged = buf[0] & SOFTRNIC_DDP_FLAG_TAGGED;
	h->last = buf[0] & SOFTRNIC_DDP_FLAG_LAST;
	h->ulp_ctrl = buf[1];
	if ((buf[0] & SOFTRNIC_DDP_MASK_VERSION) != SOFTRNIC_DDP_VERSION)
		return h->tagged ?
			ddp_refuse(cause, SOFTRNIC_DDP_ET_TAGGED,
				   SOFTRNIC_DDP_EC_T_VERSION) :
			ddp_refuse(cause, SOFTRNIC_DDP_ET_UNTAGGED,
				   SOFTRNIC_DDP_EC_UT_VERSION);
	if (h->tagged) {
		h->stag = get_unaligned_be32(buf + 2);
		h->to = get_unaligned_be64(buf + 6);
		h->ulp_word = 0;
		h->qn = 0;
		h->msn = 0;
		h->mo = 0;
		return 0;
	}
	if (len < SOFTRNIC_DDP_UNTAGGED_HDR_LEN)
		return ddp_refuse(cause, SOFTRNIC_DDP_ET_CATASTROPHIC, 0);
	h->stag = 0;
	h->to = 0;
	h->ulp_word = get_unaligned_be32(buf + 2);
	h->qn = get_unaligned_be32(buf + 6);
	h->msn = get_unaligned_be32(buf + 10);
	h->mo = get_unaligned_be32(buf + 14);
	if (h->qn > 2)
		return ddp_refuse(cause, SOFTRNIC_DDP_ET_UNTAGGED,
				  SOFTRNIC_DDP_EC_UT_INVALID_QN);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_ddp_decode);
