/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DDP segment headers (RFC 5041 section 4): the tagged header (STag, TO)
 * and the untagged one (QN, MSN, MO). The octet after the DDP control
 * field and, untagged, the 32 bits after it belong to the ULP (RDMAP):
 * they are carried here as @ulp_ctrl and @ulp_word without meaning.
 */
#ifndef _SOFTRNIC_DDP_H
#define _SOFTRNIC_DDP_H

#include <linux/types.h>

#define SOFTRNIC_DDP_VERSION		1
#define SOFTRNIC_DDP_TAGGED_HDR_LEN	14
#define SOFTRNIC_DDP_UNTAGGED_HDR_LEN	18

#define SOFTRNIC_DDP_FLAG_TAGGED	0x80
#define SOFTRNIC_DDP_FLAG_LAST		0x40
#define SOFTRNIC_DDP_MASK_RSVD		0x3c
#define SOFTRNIC_DDP_MASK_VERSION	0x03

/* Terminate layers and the DDP error types and codes (RFC 5040 4.8). */
enum softrnic_term_layer {
	SOFTRNIC_TERM_RDMAP = 0,
	SOFTRNIC_TERM_DDP = 1,
	SOFTRNIC_TERM_LLP = 2,
};

enum softrnic_ddp_etype {
	SOFTRNIC_DDP_ET_CATASTROPHIC = 0,
	SOFTRNIC_DDP_ET_TAGGED = 1,
	SOFTRNIC_DDP_ET_UNTAGGED = 2,
};

enum softrnic_ddp_ecode {
	SOFTRNIC_DDP_EC_T_INVALID_STAG = 0,
	SOFTRNIC_DDP_EC_T_BASE_BOUNDS = 1,
	SOFTRNIC_DDP_EC_T_STAG_NOT_ASSOC = 2,
	SOFTRNIC_DDP_EC_T_TO_WRAP = 3,
	SOFTRNIC_DDP_EC_T_VERSION = 4,
	SOFTRNIC_DDP_EC_UT_INVALID_QN = 1,
	SOFTRNIC_DDP_EC_UT_NO_BUF = 2,
	SOFTRNIC_DDP_EC_UT_MSN_RANGE = 3,
	SOFTRNIC_DDP_EC_UT_INVALID_MO = 4,
	SOFTRNIC_DDP_EC_UT_TOO_LONG = 5,
	SOFTRNIC_DDP_EC_UT_VERSION = 6,
};

/* Why a segment is refused: what its TERMINATE says. */
struct softrnic_term_cause {
	u8 layer;
	u8 etype;
	u8 ecode;
};

struct softrnic_ddp_hdr {
	bool tagged;
	bool last;
	u8 ulp_ctrl;		/* RDMAP control field */
	u32 ulp_word;		/* untagged: RDMAP's 32 bits of RsvdULP */
	u32 stag;		/* tagged */
	u64 to;			/* tagged */
	u32 qn;			/* untagged */
	u32 msn;		/* untagged */
	u32 mo;			/* untagged */
};

static inline u32 softrnic_ddp_hdr_len(bool tagged)
{
	return tagged ? SOFTRNIC_DDP_TAGGED_HDR_LEN :
			SOFTRNIC_DDP_UNTAGGED_HDR_LEN;
}

u32 softrnic_ddp_encode(const struct softrnic_ddp_hdr *h, u8 *buf);
int softrnic_ddp_decode(const u8 *buf, u32 len, struct softrnic_ddp_hdr *h,
			struct softrnic_term_cause *cause);

#endif /* _SOFTRNIC_DDP_H */
