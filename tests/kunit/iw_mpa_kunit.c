// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for iw_cm's MPA frames and negotiation (iw_cm/mpa.c):
 * byte layout, round trips, every malformed frame the decoder must
 * refuse, and the negotiation table of both ends.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "iw_cm/mpa.h"

#define W	ORCM_RTR_BIT(ORCM_IW_RTR_WRITE)
#define R	ORCM_RTR_BIT(ORCM_IW_RTR_READ)
#define S	ORCM_RTR_BIT(ORCM_IW_RTR_SEND)

static u8 pd_pattern[ORCM_MPA_PD_MAX + 1];

static void fill_pattern(void)
{
	int i;

	for (i = 0; i < sizeof(pd_pattern); i++)
		pd_pattern[i] = (u8)(i * 7 + 3);
}

/* ---- byte layout ---- */

static void mpa_wire_request_v2(struct kunit *test)
{
	static const u8 pd[] = { 0xde, 0xad };
	struct orcm_mpa_frame f = {
		.kind = ORCM_MPA_REQ, .rev = 2, .crc = true, .p2p = true,
		.rtr = W | R, .ird = 4, .ord = 0x3fff, .pd = pd, .pd_len = 2,
	};
	u8 buf[64];
	int len;

	len = orcm_mpa_encode(&f, buf, sizeof(buf));
	KUNIT_ASSERT_EQ(test, len, 26);
	KUNIT_EXPECT_MEMEQ(test, buf, "MPA ID Req Frame", 16);
	KUNIT_EXPECT_EQ(test, buf[16], ORCM_MPA_C | ORCM_MPA_H);
	KUNIT_EXPECT_EQ(test, buf[17], 2);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 18), 6);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 20), 0x8004);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 22), 0xffff);
	KUNIT_EXPECT_EQ(test, buf[24], 0xde);
	KUNIT_EXPECT_EQ(test, buf[25], 0xad);
}

static void mpa_wire_reject_v1(struct kunit *test)
{
	struct orcm_mpa_frame f = {
		.kind = ORCM_MPA_REJ, .rev = 1, .markers = true,
		.pd = pd_pattern, .pd_len = 3,
	};
	u8 buf[64];

	KUNIT_ASSERT_EQ(test, orcm_mpa_encode(&f, buf, sizeof(buf)), 23);
	KUNIT_EXPECT_MEMEQ(test, buf, "MPA ID Rep Frame", 16);
	KUNIT_EXPECT_EQ(test, buf[16], ORCM_MPA_M | ORCM_MPA_R);
	KUNIT_EXPECT_EQ(test, buf[17], 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + 18), 3);
	KUNIT_EXPECT_MEMEQ(test, buf + 20, pd_pattern, 3);
}

/* ---- round trips ---- */

struct rt_case {
	const char *name;
	enum orcm_mpa_kind kind;
	u8 rev;
	bool markers, crc, p2p;
	u8 rtr;
	u16 ird, ord, pd_len;
};

static const struct rt_case rt_cases[] = {
	{ "req-v1-empty", ORCM_MPA_REQ, 1 },
	{ "req-v1-512", ORCM_MPA_REQ, 1, true, true, .pd_len = 512 },
	{ "req-v2-508", ORCM_MPA_REQ, 2, .ird = 16, .ord = 16, .pd_len = 508 },
	{ "req-v2-p2p-all", ORCM_MPA_REQ, 2, false, true, true, W | R | S,
	  1, 1, 10 },
	{ "req-v2-p2p-send", ORCM_MPA_REQ, 2, .p2p = true, .rtr = S },
	{ "rep-v1", ORCM_MPA_REP, 1, true, false, .pd_len = 1 },
	{ "rep-v2-write", ORCM_MPA_REP, 2, .p2p = true, .rtr = W, .ird = 2,
	  .ord = 3 },
	{ "rep-v2-read", ORCM_MPA_REP, 2, .p2p = true, .rtr = R, .ird = 1 },
	{ "rep-v2-nop2p-max", ORCM_MPA_REP, 2, .ird = 0x3fff, .ord = 0x3fff,
	  .pd_len = 200 },
	{ "rej-v2", ORCM_MPA_REJ, 2, .pd_len = 255 },
	{ "rej-v1-512", ORCM_MPA_REJ, 1, .pd_len = 512 },
};

KUNIT_ARRAY_PARAM_DESC(rt, rt_cases, name);

static void mpa_round_trip(struct kunit *test)
{
	const struct rt_case *c = test->param_value;
	struct orcm_mpa_frame in = {
		.kind = c->kind, .rev = c->rev, .markers = c->markers,
		.crc = c->crc, .p2p = c->p2p, .rtr = c->rtr, .ird = c->ird,
		.ord = c->ord, .pd = pd_pattern, .pd_len = c->pd_len,
	}, out;
	u8 *buf;
	int len;

	buf = kunit_kzalloc(test, ORCM_MPA_FRAME_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = orcm_mpa_encode(&in, buf, ORCM_MPA_FRAME_MAX);
	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_EXPECT_EQ(test, len, ORCM_MPA_HDR_LEN + c->pd_len +
				   (c->rev == 2 ? ORCM_MPA_V2_WORDS : 0));
	KUNIT_ASSERT_EQ(test, orcm_mpa_decode(buf, len, c->kind == ORCM_MPA_REQ,
					      &out), len);
	KUNIT_EXPECT_EQ(test, out.kind, c->kind);
	KUNIT_EXPECT_EQ(test, out.rev, c->rev);
	KUNIT_EXPECT_EQ(test, out.markers, c->markers);
	KUNIT_EXPECT_EQ(test, out.crc, c->crc);
	KUNIT_EXPECT_EQ(test, out.pd_len, c->pd_len);
	if (c->pd_len)
		KUNIT_EXPECT_MEMEQ(test, out.pd, pd_pattern, c->pd_len);
	if (c->rev == 2 && c->kind != ORCM_MPA_REJ) {
		KUNIT_EXPECT_EQ(test, out.p2p, c->p2p);
		KUNIT_EXPECT_EQ(test, out.rtr, c->rtr);
		KUNIT_EXPECT_EQ(test, out.ird, c->ird);
		KUNIT_EXPECT_EQ(test, out.ord, c->ord);
	}
	/* Trailing bytes (the first FPDU) are not part of the frame. */
	KUNIT_EXPECT_EQ(test, orcm_mpa_decode(buf, len + 8,
					      c->kind == ORCM_MPA_REQ, &out),
			len);
}

/* ---- malformed frames ---- */

enum bad_op {
	BAD_NONE, BAD_KEY_BYTE, BAD_REV, BAD_PDLEN, BAD_FLAGS_SET,
	BAD_FLAGS_CLEAR, BAD_IRD_WORD, BAD_ORD_WORD, BAD_TRUNCATE,
};

struct bad_case {
	const char *name;
	bool request;		/* decode as a request */
	enum orcm_mpa_kind kind; /* frame encoded */
	u8 rev;
	bool p2p;
	u8 rtr;
	u16 ird, ord, pd_len;
	enum bad_op op;
	unsigned int arg;
	int err;
};

static const struct bad_case bad_cases[] = {
	{ "key-garbage", true, ORCM_MPA_REQ, 1, .op = BAD_KEY_BYTE,
	  .arg = 5, .err = -EBADMSG },
	{ "reply-where-request-belongs", true, ORCM_MPA_REP, 2,
	  .err = -EBADMSG },
	{ "request-where-reply-belongs", false, ORCM_MPA_REQ, 2,
	  .err = -EBADMSG },
	{ "reject-where-request-belongs", true, ORCM_MPA_REJ, 1,
	  .err = -EBADMSG },
	{ "R-in-request", true, ORCM_MPA_REQ, 1, .op = BAD_FLAGS_SET,
	  .arg = ORCM_MPA_R, .err = -EBADMSG },
	{ "rev-0", true, ORCM_MPA_REQ, 1, .op = BAD_REV, .arg = 0,
	  .err = -EPROTONOSUPPORT },
	{ "rev-3", true, ORCM_MPA_REQ, 2, .op = BAD_REV, .arg = 3,
	  .err = -EPROTONOSUPPORT },
	{ "rev-255-reply", false, ORCM_MPA_REP, 1, .op = BAD_REV,
	  .arg = 255, .err = -EPROTONOSUPPORT },
	{ "pdlen-513", true, ORCM_MPA_REQ, 1, .pd_len = 4, .op = BAD_PDLEN,
	  .arg = 513, .err = -EMSGSIZE },
	{ "pdlen-65535", false, ORCM_MPA_REP, 1, .op = BAD_PDLEN,
	  .arg = 0xffff, .err = -EMSGSIZE },
	{ "pdlen-above-bytes", true, ORCM_MPA_REQ, 1, .pd_len = 8,
	  .op = BAD_PDLEN, .arg = 9, .err = -ENODATA },
	{ "truncated-header", true, ORCM_MPA_REQ, 1, .op = BAD_TRUNCATE,
	  .arg = 19, .err = -ENODATA },
	{ "truncated-pd", false, ORCM_MPA_REP, 1, .pd_len = 100,
	  .op = BAD_TRUNCATE, .arg = 119, .err = -ENODATA },
	{ "empty", true, ORCM_MPA_REQ, 1, .op = BAD_TRUNCATE, .arg = 0,
	  .err = -ENODATA },
	{ "v2-without-H", true, ORCM_MPA_REQ, 2, .op = BAD_FLAGS_CLEAR,
	  .arg = ORCM_MPA_H, .err = -EPROTO },
	{ "v2-pdlen-below-words", true, ORCM_MPA_REQ, 2, .op = BAD_PDLEN,
	  .arg = 3, .err = -EPROTO },
	{ "rtr-without-p2p-req", true, ORCM_MPA_REQ, 2, .op = BAD_ORD_WORD,
	  .arg = ORCM_MPA_RTR_WRITE, .err = -EPROTO },
	{ "send-rtr-without-p2p-rep", false, ORCM_MPA_REP, 2,
	  .op = BAD_IRD_WORD, .arg = ORCM_MPA_RTR_SEND, .err = -EPROTO },
	{ "p2p-req-no-rtr", true, ORCM_MPA_REQ, 2, .op = BAD_IRD_WORD,
	  .arg = ORCM_MPA_P2P, .err = -EPROTO },
	{ "p2p-req-only-read-ord-0", true, ORCM_MPA_REQ, 2, .p2p = true,
	  .rtr = R, .ord = 0, .err = -EPROTO },
	{ "p2p-rep-no-rtr", false, ORCM_MPA_REP, 2, .op = BAD_IRD_WORD,
	  .arg = ORCM_MPA_P2P, .err = -EPROTO },
	{ "p2p-rep-two-rtr", false, ORCM_MPA_REP, 2, .p2p = true, .rtr = W,
	  .op = BAD_ORD_WORD, .arg = ORCM_MPA_RTR_READ, .err = -EPROTO },
	{ "p2p-rep-read-ird-0", false, ORCM_MPA_REP, 2, .p2p = true,
	  .rtr = R, .ird = 0, .err = -EPROTO },
	/* Controls: what the mutations leave valid really is valid. */
	{ "ok-req-v2", true, ORCM_MPA_REQ, 2, .p2p = true, .rtr = W },
	{ "ok-rej-v2-any-words", false, ORCM_MPA_REJ, 2, .op = BAD_IRD_WORD,
	  .arg = ORCM_MPA_RTR_SEND },
	{ "ok-reserved-bits-ignored", true, ORCM_MPA_REQ, 1,
	  .op = BAD_FLAGS_SET, .arg = 0x0f },
};

KUNIT_ARRAY_PARAM_DESC(bad, bad_cases, name);

static void mpa_malformed(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct orcm_mpa_frame in = {
		.kind = c->kind, .rev = c->rev, .p2p = c->p2p, .rtr = c->rtr,
		.ird = c->ird, .ord = c->ord, .pd = pd_pattern,
		.pd_len = c->pd_len,
	}, out;
	u8 *buf;
	int len, ret;

	buf = kunit_kzalloc(test, ORCM_MPA_FRAME_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* Frames the encoder would refuse are built by hand below. */
	if (c->p2p && c->kind != ORCM_MPA_REJ &&
	    ((c->rtr == R && c->kind == ORCM_MPA_REQ && !c->ord) ||
	     (c->rtr == R && c->kind == ORCM_MPA_REP && !c->ird))) {
		in.ird = 1;
		in.ord = 1;
	}
	len = orcm_mpa_encode(&in, buf, ORCM_MPA_FRAME_MAX);
	KUNIT_ASSERT_GT(test, len, 0);
	if (in.ird != c->ird || in.ord != c->ord) {
		put_unaligned_be16((get_unaligned_be16(buf + 20) & ~0x3fff) |
				   c->ird, buf + 20);
		put_unaligned_be16((get_unaligned_be16(buf + 22) & ~0x3fff) |
				   c->ord, buf + 22);
	}

	switch (c->op) {
	case BAD_NONE:
		break;
	case BAD_KEY_BYTE:
		buf[c->arg] ^= 0x20;
		break;
	case BAD_REV:
		buf[17] = c->arg;
		break;
	case BAD_PDLEN:
		put_unaligned_be16(c->arg, buf + 18);
		break;
	case BAD_FLAGS_SET:
		buf[16] |= c->arg;
		break;
	case BAD_FLAGS_CLEAR:
		buf[16] &= ~c->arg;
		break;
	case BAD_IRD_WORD:
		put_unaligned_be16(get_unaligned_be16(buf + 20) | c->arg,
				   buf + 20);
		break;
	case BAD_ORD_WORD:
		put_unaligned_be16(get_unaligned_be16(buf + 22) | c->arg,
				   buf + 22);
		break;
	case BAD_TRUNCATE:
		len = c->arg;
		break;
	}
	ret = orcm_mpa_decode(buf, len, c->request, &out);
	if (c->err)
		KUNIT_EXPECT_EQ(test, ret, c->err);
	else
		KUNIT_EXPECT_EQ(test, ret, len);
	/* The header check alone agrees wherever it can judge. */
	if (len >= ORCM_MPA_HDR_LEN && c->err &&
	    c->err != -EPROTO && c->err != -ENODATA)
		KUNIT_EXPECT_EQ(test, orcm_mpa_hdr_check(buf, len, c->request),
				c->err);
}

/* ---- encoder refusals ---- */

static void mpa_encode_errors(struct kunit *test)
{
	struct orcm_mpa_frame f = { .kind = ORCM_MPA_REQ, .rev = 1,
				    .pd = pd_pattern, .pd_len = 512 };
	u8 *buf;

	buf = kunit_kzalloc(test, ORCM_MPA_FRAME_MAX + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, orcm_mpa_encode(&f, buf, ORCM_MPA_FRAME_MAX),
			ORCM_MPA_FRAME_MAX);
	f.pd_len = 513;
	KUNIT_EXPECT_EQ(test, orcm_mpa_encode(&f, buf, ORCM_MPA_FRAME_MAX + 8),
			-EMSGSIZE);
	f.rev = 2;
	f.pd_len = 509;		/* 4 bytes of IRD/ORD words come first */
	KUNIT_EXPECT_EQ(test, orcm_mpa_encode(&f, buf, ORCM_MPA_FRAME_MAX),
			-EMSGSIZE);
	f.pd_len = 508;
	KUNIT_EXPECT_EQ(test, orcm_mpa_encode(&f, buf, ORCM_MPA_FRAME_MAX),
			ORCM_MPA_FRAME_MAX);
	KUNIT_EXPECT_EQ(test, orcm_mpa_encode(&f, buf, ORCM_MPA_FRAME_MAX - 1),
			-ENOSPC);
	f.pd_len = 0;
	f.rev = 3;
	KUNIT_EXPECT_EQ(test, orcm_mpa_encode(&f, buf, 64), -EINVAL);
	f.rev = 2;
	f.p2p = true;		/* a p2p request with no RTR offered */
	KUNIT_EXPECT_EQ(test, orcm_mpa_encode(&f, buf, 64), -EINVAL);
	f.p2p = false;
	f.rtr = W;		/* RTR without p2p */
	KUNIT_EXPECT_EQ(test, orcm_mpa_encode(&f, buf, 64), -EINVAL);
	f.kind = ORCM_MPA_REP;
	f.p2p = true;
	f.rtr = W | R;		/* a reply picks one */
	KUNIT_EXPECT_EQ(test, orcm_mpa_encode(&f, buf, 64), -EINVAL);
	f.pd = NULL;
	f.rtr = W;
	f.pd_len = 1;
	KUNIT_EXPECT_EQ(test, orcm_mpa_encode(&f, buf, 64), -EINVAL);
}

/* ---- negotiation: both ends, through the wire ---- */

struct neg_case {
	const char *name;
	struct orcm_mpa_local ini, rsp;
	int rsp_err;		/* from orcm_mpa_respond() */
	int ini_err;		/* from orcm_mpa_complete() */
	u8 rev;
	bool crc;
	bool ini_mrx, ini_mtx;	/* initiator's markers_rx/tx */
	bool p2p;
	enum orcm_iw_rtr rtr;
	u16 ini_ird, ini_ord, rsp_ird, rsp_ord;
};

#define V2P2P(t)	{ .rev = 2, .p2p = true, .rtr = (t), .ird = 4, .ord = 4 }
#define V2RSP		{ .rev = 2, .p2p = true, .rtr = W | R | S, .ird = 8, \
			  .ord = 2 }

static const struct neg_case neg_cases[] = {
	{ "v2-p2p-write", V2P2P(W), V2RSP, .rev = 2, .p2p = true,
	  .rtr = ORCM_IW_RTR_WRITE, .ini_ird = 4, .ini_ord = 4,
	  .rsp_ird = 8, .rsp_ord = 2 },
	{ "v2-p2p-read", V2P2P(R), V2RSP, .rev = 2, .p2p = true,
	  .rtr = ORCM_IW_RTR_READ, .ini_ird = 4, .ini_ord = 4,
	  .rsp_ird = 8, .rsp_ord = 2 },
	{ "v2-p2p-send", V2P2P(S), V2RSP, .rev = 2, .p2p = true,
	  .rtr = ORCM_IW_RTR_SEND, .ini_ird = 4, .ini_ord = 4,
	  .rsp_ird = 8, .rsp_ord = 2 },
	{ "v2-p2p-write-preferred", V2P2P(S | R | W), V2RSP, .rev = 2,
	  .p2p = true, .rtr = ORCM_IW_RTR_WRITE, .ini_ird = 4, .ini_ord = 4,
	  .rsp_ird = 8, .rsp_ord = 2 },
	{ "v2-p2p-read-bumps-ird-ord",
	  { .rev = 2, .p2p = true, .rtr = R },
	  { .rev = 2, .p2p = true, .rtr = R }, .rev = 2, .p2p = true,
	  .rtr = ORCM_IW_RTR_READ, .ini_ord = 1, .rsp_ird = 1 },
	{ "v2-no-common-rtr", V2P2P(S), { .rev = 2, .p2p = true, .rtr = W },
	  .rsp_err = -EPROTO },
	{ "v2-responder-not-p2p", V2P2P(W), { .rev = 2, .ird = 1, .ord = 1 },
	  .rev = 2, .ini_ird = 4, .ini_ord = 1, .rsp_ird = 1, .rsp_ord = 1 },
	{ "v2-initiator-not-p2p", { .rev = 2, .ird = 2, .ord = 2 }, V2RSP,
	  .rev = 2, .ini_ird = 2, .ini_ord = 2, .rsp_ird = 8, .rsp_ord = 2 },
	{ "v2-ord-capped-by-peer-ird", { .rev = 2, .ird = 1, .ord = 16 },
	  { .rev = 2, .ird = 3, .ord = 16 }, .rev = 2, .ini_ird = 1,
	  .ini_ord = 3, .rsp_ird = 3, .rsp_ord = 1 },
	{ "fallback-responder-v1", V2P2P(W), { .rev = 1, .p2p = true,
	  .rtr = W, .ird = 8, .ord = 8 }, .rev = 1, .ini_ird = 4,
	  .ini_ord = 4, .rsp_ird = 8, .rsp_ord = 8 },
	{ "v1-initiator", { .rev = 1, .ird = 2, .ord = 2 }, V2RSP, .rev = 1,
	  .ini_ird = 2, .ini_ord = 2, .rsp_ird = 8, .rsp_ord = 2 },
	{ "crc-initiator", { .rev = 2, .crc = true }, { .rev = 2 }, .rev = 2,
	  .crc = true },
	{ "crc-responder", { .rev = 1 }, { .rev = 1, .crc = true }, .rev = 1,
	  .crc = true },
	{ "markers-initiator", { .rev = 2, .markers = true }, { .rev = 2 },
	  .rev = 2, .ini_mrx = true },
	{ "markers-responder", { .rev = 1 }, { .rev = 1, .markers = true },
	  .rev = 1, .ini_mtx = true },
	{ "markers-both-crc-both", { .rev = 2, .markers = true, .crc = true },
	  { .rev = 2, .markers = true, .crc = true }, .rev = 2, .crc = true,
	  .ini_mrx = true, .ini_mtx = true },
};

KUNIT_ARRAY_PARAM_DESC(neg, neg_cases, name);

static void mpa_negotiate(struct kunit *test)
{
	const struct neg_case *c = test->param_value;
	struct orcm_mpa_frame req, req_rx, rep, rep_rx;
	struct orcm_iw_mpa_params ip, rp;
	u8 *buf;
	int len, ret;

	buf = kunit_kzalloc(test, ORCM_MPA_FRAME_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	orcm_mpa_make_request(&c->ini, "hi", 2, &req);
	len = orcm_mpa_encode(&req, buf, ORCM_MPA_FRAME_MAX);
	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_ASSERT_EQ(test, orcm_mpa_decode(buf, len, true, &req_rx), len);
	KUNIT_EXPECT_MEMEQ(test, req_rx.pd, "hi", 2);

	ret = orcm_mpa_respond(&req_rx, &c->rsp, "ok!", 3, &rep, &rp);
	KUNIT_ASSERT_EQ(test, ret, c->rsp_err);
	if (ret)
		return;
	len = orcm_mpa_encode(&rep, buf, ORCM_MPA_FRAME_MAX);
	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_ASSERT_EQ(test, orcm_mpa_decode(buf, len, false, &rep_rx), len);
	KUNIT_EXPECT_MEMEQ(test, rep_rx.pd, "ok!", 3);
	ret = orcm_mpa_complete(&req, &rep_rx, &ip);
	KUNIT_ASSERT_EQ(test, ret, c->ini_err);
	if (ret)
		return;

	KUNIT_EXPECT_TRUE(test, ip.initiator);
	KUNIT_EXPECT_FALSE(test, rp.initiator);
	KUNIT_EXPECT_EQ(test, ip.rev, c->rev);
	KUNIT_EXPECT_EQ(test, rp.rev, c->rev);
	KUNIT_EXPECT_EQ(test, ip.crc, c->crc);
	KUNIT_EXPECT_EQ(test, rp.crc, c->crc);
	KUNIT_EXPECT_EQ(test, ip.markers_rx, c->ini_mrx);
	KUNIT_EXPECT_EQ(test, ip.markers_tx, c->ini_mtx);
	/* Per direction: what one end sends marked, the other strips. */
	KUNIT_EXPECT_EQ(test, rp.markers_tx, ip.markers_rx);
	KUNIT_EXPECT_EQ(test, rp.markers_rx, ip.markers_tx);
	KUNIT_EXPECT_EQ(test, ip.p2p, c->p2p);
	KUNIT_EXPECT_EQ(test, rp.p2p, c->p2p);
	KUNIT_EXPECT_EQ(test, ip.rtr, c->p2p ? c->rtr : ORCM_IW_RTR_NONE);
	KUNIT_EXPECT_EQ(test, rp.rtr, ip.rtr);
	if (c->rev == 2 || c->ini_ird || c->rsp_ird) {
		KUNIT_EXPECT_EQ(test, ip.ird, c->ini_ird);
		KUNIT_EXPECT_EQ(test, ip.ord, c->ini_ord);
		KUNIT_EXPECT_EQ(test, rp.ird, c->rsp_ird);
		KUNIT_EXPECT_EQ(test, rp.ord, c->rsp_ord);
	}
	/* Revision 2: no end may issue more READs than the other serves. */
	if (c->rev == 2) {
		KUNIT_EXPECT_LE(test, ip.ord, rp.ird);
		KUNIT_EXPECT_LE(test, rp.ord, ip.ird);
	}
}

/* ---- an initiator's checks of the reply ---- */

static void mpa_complete_refuses(struct kunit *test)
{
	struct orcm_mpa_local loc = { .rev = 1 };
	struct orcm_mpa_frame req, rep = { .kind = ORCM_MPA_REP, .rev = 2 };
	struct orcm_iw_mpa_params p;

	/* A reply of a higher revision than asked. */
	orcm_mpa_make_request(&loc, NULL, 0, &req);
	KUNIT_EXPECT_EQ(test, orcm_mpa_complete(&req, &rep, &p), -EPROTO);

	/* Peer-to-peer in the reply of a request without it. */
	loc.rev = 2;
	orcm_mpa_make_request(&loc, NULL, 0, &req);
	rep.p2p = true;
	rep.rtr = W;
	rep.ird = 1;
	KUNIT_EXPECT_EQ(test, orcm_mpa_complete(&req, &rep, &p), -EPROTO);

	/* An RTR type that was not offered. */
	loc.p2p = true;
	loc.rtr = R;
	orcm_mpa_make_request(&loc, NULL, 0, &req);
	KUNIT_EXPECT_EQ(test, orcm_mpa_complete(&req, &rep, &p), -EPROTO);
	rep.rtr = R;
	KUNIT_EXPECT_EQ(test, orcm_mpa_complete(&req, &rep, &p), 0);
	KUNIT_EXPECT_EQ(test, p.rtr, ORCM_IW_RTR_READ);
	KUNIT_EXPECT_GE(test, p.ord, 1);

	/* A request where a reply belongs. */
	rep.kind = ORCM_MPA_REQ;
	KUNIT_EXPECT_EQ(test, orcm_mpa_complete(&req, &rep, &p), -EPROTO);

	/* A reject, with its data left in the frame for the caller. */
	rep.kind = ORCM_MPA_REJ;
	KUNIT_EXPECT_EQ(test, orcm_mpa_complete(&req, &rep, &p),
			-ECONNREFUSED);
}

static void mpa_reject_mirrors_request(struct kunit *test)
{
	struct orcm_mpa_frame req = { .kind = ORCM_MPA_REQ, .rev = 1,
				      .crc = true }, rej, rx;
	u8 buf[64];
	int len;

	orcm_mpa_make_reject(&req, "no", 2, &rej);
	len = orcm_mpa_encode(&rej, buf, sizeof(buf));
	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_ASSERT_EQ(test, orcm_mpa_decode(buf, len, false, &rx), len);
	KUNIT_EXPECT_EQ(test, rx.kind, ORCM_MPA_REJ);
	KUNIT_EXPECT_EQ(test, rx.rev, 1);
	KUNIT_EXPECT_EQ(test, rx.pd_len, 2);
	KUNIT_EXPECT_MEMEQ(test, rx.pd, "no", 2);
	req.rev = 2;
	orcm_mpa_make_reject(&req, "no", 2, &rej);
	len = orcm_mpa_encode(&rej, buf, sizeof(buf));
	KUNIT_ASSERT_EQ(test, orcm_mpa_decode(buf, len, false, &rx), len);
	KUNIT_EXPECT_EQ(test, rx.rev, 2);
	KUNIT_EXPECT_EQ(test, rx.pd_len, 2);
	KUNIT_EXPECT_MEMEQ(test, rx.pd, "no", 2);
}

static int mpa_suite_init(struct kunit_suite *suite)
{
	fill_pattern();
	return 0;
}

static struct kunit_case iw_mpa_cases[] = {
	KUNIT_CASE(mpa_wire_request_v2),
	KUNIT_CASE(mpa_wire_reject_v1),
	KUNIT_CASE_PARAM(mpa_round_trip, rt_gen_params),
	KUNIT_CASE_PARAM(mpa_malformed, bad_gen_params),
	KUNIT_CASE(mpa_encode_errors),
	KUNIT_CASE_PARAM(mpa_negotiate, neg_gen_params),
	KUNIT_CASE(mpa_complete_refuses),
	KUNIT_CASE(mpa_reject_mirrors_request),
	{}
};

static struct kunit_suite iw_mpa_suite = {
	.name = "orcm_iw_mpa",
	.suite_init = mpa_suite_init,
	.test_cases = iw_mpa_cases,
};

kunit_test_suite(iw_mpa_suite);

MODULE_DESCRIPTION("KUnit tests for the MPA frames of openrdma-cm iw_cm");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
