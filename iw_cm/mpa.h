/* SPDX-License-Identifier: GPL-2.0 */
/*
 * openrdma-cm iw_cm: MPA request/reply/reject frames (RFC 5044 revision 1,
 * RFC 6581 revision 2) and their negotiation. Pure functions: no sockets,
 * no locks, no allocation.
 *
 * Wire layout (network byte order):
 *   0..15   key, "MPA ID Req Frame" or "MPA ID Rep Frame"
 *   16      M (0x80) C (0x40) R (0x20) H (0x10, revision 2 "enhanced";
 *           the low 4 bits are reserved and ignored)
 *   17      Rev
 *   18..19  PD_Length (<= 512, includes the 4 bytes below when H is set)
 *   20..    revision 2 with H: IRD word (P2P 0x8000, SEND RTR 0x4000,
 *           IRD 0x3fff), ORD word (WRITE RTR 0x8000, READ RTR 0x4000,
 *           ORD 0x3fff); then the ULP's private data.
 */
#ifndef _OPENRDMA_IW_MPA_H
#define _OPENRDMA_IW_MPA_H

#include <linux/types.h>
#include <openrdma/iw_host.h>

#define ORCM_MPA_KEY_LEN	16
#define ORCM_MPA_HDR_LEN	20
#define ORCM_MPA_PD_MAX		512	/* PD_Length, words included */
#define ORCM_MPA_V2_WORDS	4
#define ORCM_MPA_FRAME_MAX	(ORCM_MPA_HDR_LEN + ORCM_MPA_PD_MAX)
#define ORCM_MPA_IRD_ORD_MAX	0x3fff

#define ORCM_MPA_M		0x80
#define ORCM_MPA_C		0x40
#define ORCM_MPA_R		0x20
#define ORCM_MPA_H		0x10

#define ORCM_MPA_P2P		0x8000	/* IRD word */
#define ORCM_MPA_RTR_SEND	0x4000	/* IRD word */
#define ORCM_MPA_RTR_WRITE	0x8000	/* ORD word */
#define ORCM_MPA_RTR_READ	0x4000	/* ORD word */

/* Sets of RTR types, one bit per enum orcm_iw_rtr value. */
#define ORCM_RTR_BIT(t)		(1u << (t))
#define ORCM_RTR_ALL		(ORCM_RTR_BIT(ORCM_IW_RTR_SEND) | \
				 ORCM_RTR_BIT(ORCM_IW_RTR_WRITE) | \
				 ORCM_RTR_BIT(ORCM_IW_RTR_READ))

enum orcm_mpa_kind {
	ORCM_MPA_REQ,
	ORCM_MPA_REP,
	ORCM_MPA_REJ,		/* a reply with R set */
};

/* A decoded frame, or one to encode. */
struct orcm_mpa_frame {
	enum orcm_mpa_kind kind;
	u8 rev;			/* 1 or 2 */
	bool markers;		/* M: the sender wants markers */
	bool crc;		/* C */
	/* Revision 2 (H set): the IRD/ORD words. */
	bool p2p;
	u8 rtr;			/* ORCM_RTR_BIT() set */
	u16 ird, ord;
	const u8 *pd;		/* the ULP's private data (words excluded) */
	u16 pd_len;
};

/* What this end wants, from module parameters and the ULP's ird/ord. */
struct orcm_mpa_local {
	u8 rev;
	bool crc;
	bool markers;
	bool p2p;
	u8 rtr;			/* initiator: RTR types offered; responder: taken */
	u16 ird, ord;
};

int orcm_mpa_hdr_check(const u8 *buf, size_t len, bool request);
int orcm_mpa_decode(const u8 *buf, size_t len, bool request,
		    struct orcm_mpa_frame *f);
int orcm_mpa_encode(const struct orcm_mpa_frame *f, u8 *buf, size_t size);

void orcm_mpa_make_request(const struct orcm_mpa_local *loc,
			   const void *pd, u16 pd_len,
			   struct orcm_mpa_frame *req);
int orcm_mpa_respond(const struct orcm_mpa_frame *req,
		     const struct orcm_mpa_local *loc,
		     const void *pd, u16 pd_len,
		     struct orcm_mpa_frame *rep,
		     struct orcm_iw_mpa_params *out);
void orcm_mpa_make_reject(const struct orcm_mpa_frame *req,
			  const void *pd, u16 pd_len,
			  struct orcm_mpa_frame *rej);
int orcm_mpa_complete(const struct orcm_mpa_frame *req,
		      const struct orcm_mpa_frame *rep,
		      struct orcm_iw_mpa_params *out);

#endif /* _OPENRDMA_IW_MPA_H */
