/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RDMAP messages (RFC 5040): opcodes, the control field, the RDMA READ
 * request header and TERMINATE.
 */
#ifndef _SOFTRNIC_RDMAP_H
#define _SOFTRNIC_RDMAP_H

#include <linux/types.h>

#include "ddp.h"

#define SOFTRNIC_RDMAP_VERSION		1
#define SOFTRNIC_RDMAP_RREQ_LEN		28	/* after the DDP header */
#define SOFTRNIC_RDMAP_TERM_CTRL_LEN	4
/* ctrl, DDP segment length, the longest DDP header, a READ request */
#define SOFTRNIC_RDMAP_TERM_MAX_LEN	(SOFTRNIC_RDMAP_TERM_CTRL_LEN + 2 + \
					 SOFTRNIC_DDP_UNTAGGED_HDR_LEN + \
					 SOFTRNIC_RDMAP_RREQ_LEN)

enum softrnic_rdmap_opcode {
	SOFTRNIC_OP_WRITE = 0,
	SOFTRNIC_OP_READ_REQ = 1,
	SOFTRNIC_OP_READ_RESP = 2,
	SOFTRNIC_OP_SEND = 3,
	SOFTRNIC_OP_SEND_INV = 4,
	SOFTRNIC_OP_SEND_SE = 5,
	SOFTRNIC_OP_SEND_SE_INV = 6,
	SOFTRNIC_OP_TERMINATE = 7,
};

/* The untagged queues of RDMAP. */
enum softrnic_rdmap_qn {
	SOFTRNIC_QN_SEND = 0,
	SOFTRNIC_QN_READ_REQ = 1,
	SOFTRNIC_QN_TERMINATE = 2,
};

enum softrnic_rdmap_etype {
	SOFTRNIC_RDMAP_ET_CATASTROPHIC = 0,
	SOFTRNIC_RDMAP_ET_PROTECTION = 1,
	SOFTRNIC_RDMAP_ET_OPERATION = 2,
};

enum softrnic_rdmap_ecode {
	SOFTRNIC_RDMAP_EC_INVALID_STAG = 0x00,
	SOFTRNIC_RDMAP_EC_BASE_BOUNDS = 0x01,
	SOFTRNIC_RDMAP_EC_ACCESS = 0x02,
	SOFTRNIC_RDMAP_EC_STAG_NOT_ASSOC = 0x03,
	SOFTRNIC_RDMAP_EC_TO_WRAP = 0x04,
	SOFTRNIC_RDMAP_EC_VERSION = 0x05,
	SOFTRNIC_RDMAP_EC_OPCODE = 0x06,
	SOFTRNIC_RDMAP_EC_STREAM = 0x07,
	SOFTRNIC_RDMAP_EC_GLOBAL = 0x08,
	SOFTRNIC_RDMAP_EC_CANNOT_INVALIDATE = 0x09,
	SOFTRNIC_RDMAP_EC_UNSPECIFIED = 0xff,
};

/* LLP (MPA) error codes, etype 0. */
enum softrnic_llp_ecode {
	SOFTRNIC_LLP_EC_CRC = 0x02,
	SOFTRNIC_LLP_EC_MARKER = 0x03,
	SOFTRNIC_LLP_EC_NO_RTR = 0x07,
};

struct softrnic_rdmap_rreq {
	u32 sink_stag;
	u64 sink_to;
	u32 size;
	u32 src_stag;
	u64 src_to;
};

/* A TERMINATE message, decoded; the copied headers are not kept. */
struct softrnic_rdmap_term {
	struct softrnic_term_cause cause;
	bool m, d, r;
	u16 seg_len;
};

static inline u8 softrnic_rdmap_ctrl(u8 opcode)
{
	return (SOFTRNIC_RDMAP_VERSION << 6) | (opcode & 0x0f);
}

static inline bool softrnic_rdmap_is_send(u8 opcode)
{
	return opcode >= SOFTRNIC_OP_SEND && opcode <= SOFTRNIC_OP_SEND_SE_INV;
}

static inline bool softrnic_rdmap_has_inval(u8 opcode)
{
	return opcode == SOFTRNIC_OP_SEND_INV ||
	       opcode == SOFTRNIC_OP_SEND_SE_INV;
}

static inline bool softrnic_rdmap_is_se(u8 opcode)
{
	return opcode == SOFTRNIC_OP_SEND_SE ||
	       opcode == SOFTRNIC_OP_SEND_SE_INV;
}

int softrnic_rdmap_check(const struct softrnic_ddp_hdr *h, u32 payload_len,
			 struct softrnic_term_cause *cause);
void softrnic_rdmap_rreq_encode(const struct softrnic_rdmap_rreq *rr, u8 *buf);
void softrnic_rdmap_rreq_decode(const u8 *buf, struct softrnic_rdmap_rreq *rr);
u32 softrnic_rdmap_term_encode(u8 *buf, const struct softrnic_term_cause *c,
			       const u8 *ddp_hdr, u32 ddp_hdr_len, u16 seg_len,
			       const u8 *rreq);
int softrnic_rdmap_term_decode(const u8 *buf, u32 len,
			       struct softrnic_rdmap_term *t);

#endif /* _SOFTRNIC_RDMAP_H */
