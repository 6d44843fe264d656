// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the softrnic wire codecs: MPA FPDU framing (pad, CRC32c,
 * markers, MULPDU) and the incremental receive parser, DDP tagged and
 * untagged headers, RDMAP checks, the READ request and TERMINATE. Byte
 * images are written out by hand from RFC 5040/5041/5044; CRCs were
 * computed independently (bitwise CRC32c, reflected 0x82f63b78).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "drivers/softrnic/mpa.h"
#include "drivers/softrnic/ddp.h"
#include "drivers/softrnic/rdmap.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* ---- CRC32c ------------------------------------------------------------ */

static void sw_crc_check_value(struct kunit *test)
{
	/* the CRC32c check value of "123456789" */
	KUNIT_EXPECT_EQ(test, ~softrnic_mpa_crc(~0U, "123456789", 9),
			0xe3069283U);
	/* incremental == one shot */
	KUNIT_EXPECT_EQ(test,
			softrnic_mpa_crc(softrnic_mpa_crc(~0U, "1234", 4),
					 "56789", 5),
			softrnic_mpa_crc(~0U, "123456789", 9));
}

/* ---- pad and lengths ------------------------------------------------- */

struct sw_pad_case {
	u32 ulpdu, pad, fpdu;
};

static const struct sw_pad_case sw_pad_cases[] = {
	{ 14, 0, 20 }, { 15, 3, 24 }, { 16, 2, 24 }, { 17, 1, 24 },
	{ 18, 0, 24 }, { 22, 0, 28 }, { 19, 3, 28 }, { 65535, 3, 65544 },
};

static void sw_pad_desc(const struct sw_pad_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "ulpdu %u", c->ulpdu);
}

KUNIT_ARRAY_PARAM(sw_pad, sw_pad_cases, sw_pad_desc);

static void sw_pad(struct kunit *test)
{
	const struct sw_pad_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, softrnic_mpa_pad(c->ulpdu), c->pad);
	KUNIT_EXPECT_EQ(test, softrnic_mpa_fpdu_len(c->ulpdu), c->fpdu);
	KUNIT_EXPECT_EQ(test, softrnic_mpa_wire_len(4, false, c->ulpdu), c->fpdu);
}

/* ---- byte-exact FPDUs -------------------------------------------------- */

/* SEND, untagged, last, QN 0, MSN 1, MO 0, "abcd". */
static const u8 sw_send_ulpdu[] = {
	0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
	'a', 'b', 'c', 'd',
};

/* RDMA WRITE, tagged, last, STag 0x11223344, TO 0x0102030405060708, "hello" */
static const u8 sw_write_ulpdu[] = {
	0xc1, 0x40, 0x11, 0x22, 0x33, 0x44, 1, 2, 3, 4, 5, 6, 7, 8,
	'h', 'e', 'l', 'l', 'o',
};

struct sw_fpdu_case {
	const char *name;
	const u8 *ulpdu;
	u32 len;
	bool crc;
	u8 wire[40];
	u32 wire_len;
};

static const struct sw_fpdu_case sw_fpdu_cases[] = {
	{ "send no crc", sw_send_ulpdu, sizeof(sw_send_ulpdu), false,
	  { 0x00, 0x16, 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
	    0, 0, 'a', 'b', 'c', 'd', 0, 0, 0, 0 }, 28 },
	{ "send crc", sw_send_ulpdu, sizeof(sw_send_ulpdu), true,
	  { 0x00, 0x16, 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
	    0, 0, 'a', 'b', 'c', 'd', 0x71, 0x64, 0x4d, 0x92 }, 28 },
	{ "write crc pad 3", sw_write_ulpdu, sizeof(sw_write_ulpdu), true,
	  { 0x00, 0x13, 0xc1, 0x40, 0x11, 0x22, 0x33, 0x44, 1, 2, 3, 4, 5, 6,
	    7, 8, 'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0x1f, 0xb1, 0x00, 0x4d },
	  28 },
};

static void sw_fpdu_desc(const struct sw_fpdu_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sw_fpdu, sw_fpdu_cases, sw_fpdu_desc);

static void sw_fpdu_encode(struct kunit *test)
{
	const struct sw_fpdu_case *c = test->param_value;
	struct softrnic_mpa_tx st = { .pos = 8, .crc = c->crc };
	u8 out[64];
	u32 n;

	n = softrnic_mpa_encode(&st, out, c->ulpdu, c->len);
	KUNIT_ASSERT_EQ(test, n, c->wire_len);
	KUNIT_EXPECT_MEMEQ(test, out, c->wire, n);
	KUNIT_EXPECT_EQ(test, st.pos, 8 + n);
}

/* In place (no markers): the same octets, from the ULPDU where it goes. */
static void sw_fpdu_encode_inplace(struct kunit *test)
{
	const struct sw_fpdu_case *c = test->param_value;
	struct softrnic_mpa_tx st = { .pos = 8, .crc = c->crc };
	u8 buf[64];
	u32 n;

	memset(buf, 0xa5, sizeof(buf));	/* the pad must be written */
	memcpy(buf + SOFTRNIC_MPA_HDR_LEN, c->ulpdu, c->len);
	n = softrnic_mpa_encode_inplace(&st, buf, c->len);
	KUNIT_ASSERT_EQ(test, n, c->wire_len);
	KUNIT_EXPECT_MEMEQ(test, buf, c->wire, n);
	KUNIT_EXPECT_EQ(test, st.pos, 8 + n);
}

static void sw_rx_destroy(void *rx)
{
	softrnic_mpa_rx_destroy(rx);
}

/* A receive parser whose buffer starts at @size octets. */
static struct softrnic_mpa_rx *sw_rx_new(struct kunit *test, u32 size,
					 bool crc, bool markers)
{
	struct softrnic_mpa_rx *rx = kunit_kzalloc(test, sizeof(*rx),
						   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rx);
	KUNIT_ASSERT_EQ(test, softrnic_mpa_rx_init(rx, size, crc, markers), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sw_rx_destroy,
							rx), 0);
	return rx;
}

static void sw_fpdu_decode(struct kunit *test)
{
	const struct sw_fpdu_case *c = test->param_value;
	struct softrnic_mpa_rx *rx;
	enum softrnic_mpa_rx_err err;
	const u8 *u;
	u32 used, len;

	rx = sw_rx_new(test, 64, c->crc, false);
	KUNIT_ASSERT_EQ(test, softrnic_mpa_rx_feed(rx, c->wire, c->wire_len,
						   &used, &err), 1);
	KUNIT_EXPECT_EQ(test, used, c->wire_len);
	u = softrnic_mpa_rx_ulpdu(rx, &len);
	KUNIT_ASSERT_EQ(test, len, c->len);
	KUNIT_EXPECT_MEMEQ(test, u, c->ulpdu, len);
	/* Whole in the input and no markers: read where it lies, no copy. */
	KUNIT_EXPECT_PTR_EQ(test, u, c->wire + SOFTRNIC_MPA_HDR_LEN);
	/* The next FPDU, fed in two parts, is collected. */
	softrnic_mpa_rx_next(rx);
	KUNIT_ASSERT_EQ(test, softrnic_mpa_rx_feed(rx, c->wire, 5, &used,
						   &err), 0);
	KUNIT_ASSERT_EQ(test, softrnic_mpa_rx_feed(rx, c->wire + 5,
						   c->wire_len - 5, &used,
						   &err), 1);
	u = softrnic_mpa_rx_ulpdu(rx, &len);
	KUNIT_EXPECT_PTR_EQ(test, u, (const u8 *)rx->buf + SOFTRNIC_MPA_HDR_LEN);
	KUNIT_EXPECT_MEMEQ(test, u, c->ulpdu, len);
}

/* ---- malformed FPDUs --------------------------------------------------- */

struct sw_bad_case {
	const char *name;
	u32 flip_at;		/* octet of the "send crc" image to change */
	u8 value;
	int ret;
	enum softrnic_mpa_rx_err err;
	u32 feed;		/* octets fed */
};

static const struct sw_bad_case sw_bad_cases[] = {
	{ "bad crc", 27, 0x93, -EPROTO, SOFTRNIC_MPA_BAD_CRC, 28 },
	{ "payload flipped", 21, 'x', -EPROTO, SOFTRNIC_MPA_BAD_CRC, 28 },
	{ "ulpdu length 13", 1, 13, -EPROTO, SOFTRNIC_MPA_SHORT, 28 },
	{ "ulpdu length 0", 1, 0, -EPROTO, SOFTRNIC_MPA_SHORT, 28 },
	/* octet 0 is 0 already: these change nothing */
	{ "truncated: header", 0, 0, 0, SOFTRNIC_MPA_OK, 1 },
	{ "truncated: no crc", 0, 0, 0, SOFTRNIC_MPA_OK, 24 },
	{ "longer than sent", 1, 0x40, 0, SOFTRNIC_MPA_OK, 28 },
};

static void sw_bad_desc(const struct sw_bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sw_bad, sw_bad_cases, sw_bad_desc);

/*
 * The collecting buffer starts small and grows to the FPDU being collected,
 * keeping what it holds; an FPDU that fits changes nothing.
 */
static void sw_rx_grows(struct kunit *test)
{
	static const u32 lens[] = { 14, 4000, 100, 65535, 14 };
	struct softrnic_mpa_tx tx = { .crc = true };
	struct softrnic_mpa_rx *rx;
	enum softrnic_mpa_rx_err err;
	u32 i, n, used, len, size;
	u8 *wire, *ulpdu;
	const u8 *u;

	wire = kunit_kzalloc(test, SOFTRNIC_MPA_MAX_FPDU, GFP_KERNEL);
	ulpdu = kunit_kzalloc(test, SOFTRNIC_MPA_MAX_ULPDU, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, wire && ulpdu);
	for (i = 0; i < SOFTRNIC_MPA_MAX_ULPDU; i++)
		ulpdu[i] = i * 13 + (i >> 8);
	rx = sw_rx_new(test, 64, true, false);
	KUNIT_EXPECT_EQ(test, rx->buf_size, 64U);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		size = rx->buf_size;
		n = softrnic_mpa_encode(&tx, wire, ulpdu, lens[i]);
		/* three octets first: collected, not read in place */
		KUNIT_ASSERT_EQ(test, softrnic_mpa_rx_feed(rx, wire, 3, &used,
							   &err), 0);
		KUNIT_ASSERT_EQ(test, softrnic_mpa_rx_feed(rx, wire + 3, n - 3,
							   &used, &err), 1);
		KUNIT_EXPECT_EQ(test, used, n - 3);
		u = softrnic_mpa_rx_ulpdu(rx, &len);
		KUNIT_ASSERT_EQ(test, len, lens[i]);
		KUNIT_EXPECT_MEMEQ(test, u, ulpdu, len);
		KUNIT_EXPECT_GE(test, rx->buf_size, n);
		if (n <= size)
			KUNIT_EXPECT_EQ(test, rx->buf_size, size);
		softrnic_mpa_rx_next(rx);
	}
	KUNIT_EXPECT_EQ(test, rx->buf_size, (u32)SOFTRNIC_MPA_MAX_FPDU);
}

static int sw_grow_fails(struct softrnic_mpa_rx *st, u32 need)
{
	return -ENOMEM;
}

/*
 * No memory for a longer FPDU: the parser stops with MPA_NOMEM (the
 * connection is then terminated), its buffer and what it had collected
 * untouched.
 */
static void sw_rx_grow_fails(struct kunit *test)
{
	struct softrnic_mpa_tx tx = { .crc = true };
	struct softrnic_mpa_rx *rx;
	enum softrnic_mpa_rx_err err;
	u8 *wire, *ulpdu;
	u32 n, used;

	wire = kunit_kzalloc(test, SOFTRNIC_MPA_MAX_FPDU, GFP_KERNEL);
	ulpdu = kunit_kzalloc(test, 4000, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, wire && ulpdu);
	rx = sw_rx_new(test, 64, true, false);
	n = softrnic_mpa_encode(&tx, wire, ulpdu, 4000);
	kunit_activate_static_stub(test, softrnic_mpa_rx_grow, sw_grow_fails);
	/* One octet of the length, then the rest: it must grow, and fails. */
	KUNIT_EXPECT_EQ(test, softrnic_mpa_rx_feed(rx, wire, 1, &used, &err),
			0);
	KUNIT_EXPECT_EQ(test, softrnic_mpa_rx_feed(rx, wire + 1, n - 1, &used,
						   &err), -EPROTO);
	KUNIT_EXPECT_EQ(test, err, SOFTRNIC_MPA_NOMEM);
	KUNIT_EXPECT_EQ(test, rx->buf_size, 64U);
	KUNIT_EXPECT_EQ(test, rx->have, (u32)SOFTRNIC_MPA_HDR_LEN);
	KUNIT_EXPECT_MEMEQ(test, rx->buf, wire, SOFTRNIC_MPA_HDR_LEN);

	/* The same FPDU once memory is there again. */
	kunit_deactivate_static_stub(test, softrnic_mpa_rx_grow);
	softrnic_mpa_rx_next(rx);
	KUNIT_EXPECT_EQ(test, softrnic_mpa_rx_feed(rx, wire, n, &used, &err),
			1);
	KUNIT_EXPECT_EQ(test, err, SOFTRNIC_MPA_OK);
}

static void sw_fpdu_malformed(struct kunit *test)
{
	const struct sw_bad_case *c = test->param_value;
	struct softrnic_mpa_rx *rx;
	enum softrnic_mpa_rx_err err;
	u8 wire[28];
	u32 used;

	memcpy(wire, sw_fpdu_cases[1].wire, sizeof(wire));
	wire[c->flip_at] = c->value;
	rx = sw_rx_new(test, 64, true, false);
	KUNIT_EXPECT_EQ(test, softrnic_mpa_rx_feed(rx, wire, c->feed, &used,
						   &err), c->ret);
	KUNIT_EXPECT_EQ(test, err, c->err);
	if (!c->ret)
		KUNIT_EXPECT_EQ(test, used, c->feed);
}

/* ---- markers ----------------------------------------------------------- */

/* An FPDU at stream offset 0 starts with a marker whose FPDUPTR is 0. */
static void sw_marker_at_start(struct kunit *test)
{
	struct softrnic_mpa_tx st = { .pos = 0, .markers = true };
	u8 out[64];
	u32 n = softrnic_mpa_encode(&st, out, sw_send_ulpdu,
				    sizeof(sw_send_ulpdu));

	KUNIT_ASSERT_EQ(test, n, 32U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(out), 0U);
	KUNIT_EXPECT_MEMEQ(test, out + 4, sw_fpdu_cases[0].wire, 28);
}

/* An FPDU at 500: the marker at 512 points 12 octets back. */
static void sw_marker_inside(struct kunit *test)
{
	struct softrnic_mpa_tx st = { .pos = 500, .markers = true, .crc = true };
	u8 out[64], plain[28];
	u32 n = softrnic_mpa_encode(&st, out, sw_send_ulpdu,
				    sizeof(sw_send_ulpdu));

	KUNIT_ASSERT_EQ(test, n, 32U);
	KUNIT_EXPECT_EQ(test, softrnic_mpa_wire_len(500, true, 22), 32U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(out + 12), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(out + 14), 12);
	memcpy(plain, out, 12);
	memcpy(plain + 12, out + 16, 16);
	/* the CRC covers the marker: it differs from the marker-free one */
	KUNIT_EXPECT_MEMEQ(test, plain, sw_fpdu_cases[1].wire, 24);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(out + 28),
			~softrnic_mpa_crc(~0U, out, 28));
	KUNIT_EXPECT_EQ(test, st.pos, 532U);
}

/* A marker right before the CRC field. */
static void sw_marker_before_crc(struct kunit *test)
{
	struct softrnic_mpa_tx st = { .pos = 488, .markers = true, .crc = true };
	u8 out[64];
	u32 n = softrnic_mpa_encode(&st, out, sw_send_ulpdu,
				    sizeof(sw_send_ulpdu));

	KUNIT_ASSERT_EQ(test, n, 32U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(out + 26), 24);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(out + 28),
			~softrnic_mpa_crc(~0U, out, 28));
}

static void sw_marker_bad_ptr(struct kunit *test)
{
	struct softrnic_mpa_tx st = { .pos = 500, .markers = true, .crc = true };
	struct softrnic_mpa_rx *rx;
	enum softrnic_mpa_rx_err err;
	u8 out[64];
	u32 n, used;

	n = softrnic_mpa_encode(&st, out, sw_send_ulpdu, sizeof(sw_send_ulpdu));
	out[15] = 13;
	rx = sw_rx_new(test, 64, true, true);
	rx->pos = 500;
	softrnic_mpa_rx_next(rx);
	KUNIT_EXPECT_EQ(test, softrnic_mpa_rx_feed(rx, out, n, &used, &err),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, err, SOFTRNIC_MPA_BAD_MARKER);
}

/* ---- round trips, any chunking ----------------------------------------- */

struct sw_rt_case {
	bool crc, markers;
	u32 chunk;
};

static const struct sw_rt_case sw_rt_cases[] = {
	{ false, false, 1 }, { true, false, 1 }, { true, true, 1 },
	{ false, true, 3 }, { true, true, 7 }, { true, true, 509 },
	{ true, false, 4096 }, { true, true, 65536 }, { false, true, 100000 },
};

static void sw_rt_desc(const struct sw_rt_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "crc %d markers %d chunk %u",
		 c->crc, c->markers, c->chunk);
}

KUNIT_ARRAY_PARAM(sw_rt, sw_rt_cases, sw_rt_desc);

/* FPDUs of these ULPDU lengths, back to back, fed in @chunk pieces. */
static const u32 sw_rt_lens[] = { 14, 18, 22, 511, 512, 1442, 4000, 65535, 19 };

static void sw_roundtrip(struct kunit *test)
{
	const struct sw_rt_case *c = test->param_value;
	struct softrnic_mpa_tx tx = { .crc = c->crc, .markers = c->markers };
	struct softrnic_mpa_rx *rx;
	enum softrnic_mpa_rx_err err;
	u32 total = 0, off = 0, got = 0, i, used, len;
	u8 *wire, *ulpdu;
	const u8 *u;
	int r;

	for (i = 0; i < ARRAY_SIZE(sw_rt_lens); i++)
		total += softrnic_mpa_wire_len(total, c->markers, sw_rt_lens[i]);
	wire = kunit_kzalloc(test, total, GFP_KERNEL);
	ulpdu = kunit_kzalloc(test, SOFTRNIC_MPA_MAX_ULPDU, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, wire && ulpdu);
	for (i = 0; i < SOFTRNIC_MPA_MAX_ULPDU; i++)
		ulpdu[i] = i * 7 + (i >> 8);
	for (i = 0; i < ARRAY_SIZE(sw_rt_lens); i++)
		off += softrnic_mpa_encode(&tx, wire + off, ulpdu,
					   sw_rt_lens[i]);
	KUNIT_ASSERT_EQ(test, off, total);

	rx = sw_rx_new(test, 64, c->crc, c->markers);
	for (off = 0; off < total;) {
		u32 n = min(c->chunk, total - off);

		r = softrnic_mpa_rx_feed(rx, wire + off, n, &used, &err);
		KUNIT_ASSERT_GE(test, r, 0);
		off += used;
		if (!r)
			continue;
		u = softrnic_mpa_rx_ulpdu(rx, &len);
		KUNIT_ASSERT_LT(test, got, (u32)ARRAY_SIZE(sw_rt_lens));
		KUNIT_ASSERT_EQ(test, len, sw_rt_lens[got]);
		KUNIT_ASSERT_MEMEQ(test, u, ulpdu, len);
		softrnic_mpa_rx_next(rx);
		got++;
	}
	KUNIT_EXPECT_EQ(test, got, (u32)ARRAY_SIZE(sw_rt_lens));
	KUNIT_EXPECT_EQ(test, rx->pos, total);
}

/* ---- MULPDU ------------------------------------------------------------ */

struct sw_mulpdu_case {
	u32 emss;
	bool markers;
	u32 mulpdu;
};

static const struct sw_mulpdu_case sw_mulpdu_cases[] = {
	{ 1460, false, 1454 }, { 1460, true, 1442 }, { 1448, false, 1442 },
	{ 1448, true, 1430 }, { 1461, false, 1454 }, { 8948, false, 8942 },
	{ 8948, true, 8870 }, { 536, false, 530 }, { 536, true, 522 },
	{ 10, false, 2 }, { 6, false, 0 }, { 0, true, 0 },
	{ 100000, false, 65532 },
};

static void sw_mulpdu_desc(const struct sw_mulpdu_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "emss %u markers %d", c->emss,
		 c->markers);
}

KUNIT_ARRAY_PARAM(sw_mulpdu, sw_mulpdu_cases, sw_mulpdu_desc);

static void sw_mulpdu(struct kunit *test)
{
	const struct sw_mulpdu_case *c = test->param_value;
	u32 m = softrnic_mulpdu(c->emss, c->markers);
	u32 pos;

	KUNIT_EXPECT_EQ(test, m, c->mulpdu);
	if (!m || c->emss > 65535)
		return;
	/* the FPDU fits a segment wherever in the stream it starts */
	for (pos = 0; pos < SOFTRNIC_MPA_MARKER_INTERVAL; pos += 4)
		KUNIT_EXPECT_LE(test, softrnic_mpa_wire_len(pos, c->markers, m),
				c->emss);
}

static void sw_emss(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, softrnic_emss(1500, false, 12), 1448U);
	KUNIT_EXPECT_EQ(test, softrnic_emss(1500, true, 12), 1428U);
	KUNIT_EXPECT_EQ(test, softrnic_emss(1500, false, 0), 1460U);
	KUNIT_EXPECT_EQ(test, softrnic_emss(40, false, 0), 0U);
}

/* ---- DDP --------------------------------------------------------------- */

static void sw_ddp_encode(struct kunit *test)
{
	struct softrnic_ddp_hdr t = {
		.tagged = true, .last = true,
		.ulp_ctrl = softrnic_rdmap_ctrl(SOFTRNIC_OP_WRITE),
		.stag = 0x11223344, .to = 0x0102030405060708ULL,
	};
	struct softrnic_ddp_hdr u = {
		.last = true, .ulp_ctrl = softrnic_rdmap_ctrl(SOFTRNIC_OP_SEND),
		.qn = 0, .msn = 1,
	};
	struct softrnic_ddp_hdr inv = {
		.ulp_ctrl = softrnic_rdmap_ctrl(SOFTRNIC_OP_SEND_SE_INV),
		.ulp_word = 0xaabbccdd, .qn = 0, .msn = 0x01020304,
		.mo = 0x05060708,
	};
	static const u8 inv_img[] = {
		0x01, 0x46, 0xaa, 0xbb, 0xcc, 0xdd, 0, 0, 0, 0, 1, 2, 3, 4,
		5, 6, 7, 8,
	};
	u8 buf[18];

	KUNIT_EXPECT_EQ(test, softrnic_ddp_encode(&t, buf), 14U);
	KUNIT_EXPECT_MEMEQ(test, buf, sw_write_ulpdu, 14);
	KUNIT_EXPECT_EQ(test, softrnic_ddp_encode(&u, buf), 18U);
	KUNIT_EXPECT_MEMEQ(test, buf, sw_send_ulpdu, 18);
	KUNIT_EXPECT_EQ(test, softrnic_ddp_encode(&inv, buf), 18U);
	KUNIT_EXPECT_MEMEQ(test, buf, inv_img, 18);
}

static void sw_ddp_decode_ok(struct kunit *test)
{
	struct softrnic_term_cause cause;
	struct softrnic_ddp_hdr h;
	u8 img[18];

	KUNIT_ASSERT_EQ(test, softrnic_ddp_decode(sw_write_ulpdu,
						  sizeof(sw_write_ulpdu), &h,
						  &cause), 0);
	KUNIT_EXPECT_TRUE(test, h.tagged);
	KUNIT_EXPECT_TRUE(test, h.last);
	KUNIT_EXPECT_EQ(test, h.stag, 0x11223344U);
	KUNIT_EXPECT_EQ(test, h.to, 0x0102030405060708ULL);
	KUNIT_ASSERT_EQ(test, softrnic_ddp_decode(sw_send_ulpdu,
						  sizeof(sw_send_ulpdu), &h,
						  &cause), 0);
	KUNIT_EXPECT_FALSE(test, h.tagged);
	KUNIT_EXPECT_EQ(test, h.msn, 1U);
	KUNIT_EXPECT_EQ(test, h.ulp_ctrl, 0x43);
	/* reserved bits are not checked (RFC 5041 4.2) */
	memcpy(img, sw_send_ulpdu, 18);
	img[0] |= SOFTRNIC_DDP_MASK_RSVD;
	KUNIT_EXPECT_EQ(test, softrnic_ddp_decode(img, 18, &h, &cause), 0);
}

struct sw_ddp_bad_case {
	const char *name;
	const u8 *base;
	u32 len;
	u32 at;
	u8 value;
	u8 etype, ecode;
};

static const struct sw_ddp_bad_case sw_ddp_bad_cases[] = {
	{ "tagged DV 0", sw_write_ulpdu, 19, 0, 0xc0,
	  SOFTRNIC_DDP_ET_TAGGED, SOFTRNIC_DDP_EC_T_VERSION },
	{ "tagged DV 2", sw_write_ulpdu, 19, 0, 0xc2,
	  SOFTRNIC_DDP_ET_TAGGED, SOFTRNIC_DDP_EC_T_VERSION },
	{ "untagged DV 3", sw_send_ulpdu, 22, 0, 0x43,
	  SOFTRNIC_DDP_ET_UNTAGGED, SOFTRNIC_DDP_EC_UT_VERSION },
	{ "untagged QN 3", sw_send_ulpdu, 22, 9, 3,
	  SOFTRNIC_DDP_ET_UNTAGGED, SOFTRNIC_DDP_EC_UT_INVALID_QN },
	{ "untagged QN 2^24", sw_send_ulpdu, 22, 6, 1,
	  SOFTRNIC_DDP_ET_UNTAGGED, SOFTRNIC_DDP_EC_UT_INVALID_QN },
	{ "tagged short", sw_write_ulpdu, 13, 0, 0xc1,
	  SOFTRNIC_DDP_ET_CATASTROPHIC, 0 },
	{ "untagged short", sw_send_ulpdu, 17, 0, 0x41,
	  SOFTRNIC_DDP_ET_CATASTROPHIC, 0 },
	{ "empty", sw_send_ulpdu, 0, 0, 0x41,
	  SOFTRNIC_DDP_ET_CATASTROPHIC, 0 },
};

static void sw_ddp_bad_desc(const struct sw_ddp_bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sw_ddp_bad, sw_ddp_bad_cases, sw_ddp_bad_desc);

static void sw_ddp_decode_bad(struct kunit *test)
{
	const struct sw_ddp_bad_case *c = test->param_value;
	struct softrnic_term_cause cause = {};
	struct softrnic_ddp_hdr h;
	u8 img[32];

	memcpy(img, c->base, 19);
	img[c->at] = c->value;
	KUNIT_EXPECT_EQ(test, softrnic_ddp_decode(img, c->len, &h, &cause),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, cause.layer, SOFTRNIC_TERM_DDP);
	KUNIT_EXPECT_EQ(test, cause.etype, c->etype);
	KUNIT_EXPECT_EQ(test, cause.ecode, c->ecode);
}

/* ---- RDMAP ------------------------------------------------------------- */

struct sw_rdmap_case {
	const char *name;
	bool tagged, last;
	u8 ctrl;
	u32 qn, mo, plen;
	int ret;
	u8 layer, etype, ecode;
};

#define RV1(op)	(0x40 | (op))

static const struct sw_rdmap_case sw_rdmap_cases[] = {
	{ "write", true, true, RV1(0), 0, 0, 100, 0 },
	{ "read resp", true, false, RV1(2), 0, 0, 100, 0 },
	{ "send", false, false, RV1(3), 0, 8, 100, 0 },
	{ "send inv se", false, true, RV1(6), 0, 0, 0, 0 },
	{ "read req", false, true, RV1(1), 1, 0, 28, 0 },
	{ "terminate", false, true, RV1(7), 2, 0, 4, 0 },
	{ "reserved bits", false, true, 0x70 | 3, 0, 0, 0, 0 },
	{ "version 0", false, true, 0x03, 0, 0, 0, -EPROTO,
	  SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
	  SOFTRNIC_RDMAP_EC_VERSION },
	{ "version 2", true, true, 0x80, 0, 0, 0, -EPROTO,
	  SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
	  SOFTRNIC_RDMAP_EC_VERSION },
	{ "opcode 8", false, true, RV1(8), 0, 0, 0, -EPROTO,
	  SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
	  SOFTRNIC_RDMAP_EC_OPCODE },
	{ "opcode 15 tagged", true, true, RV1(15), 0, 0, 0, -EPROTO,
	  SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
	  SOFTRNIC_RDMAP_EC_OPCODE },
	{ "write untagged", false, true, RV1(0), 0, 0, 0, -EPROTO,
	  SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
	  SOFTRNIC_RDMAP_EC_OPCODE },
	{ "send tagged", true, true, RV1(3), 0, 0, 0, -EPROTO,
	  SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
	  SOFTRNIC_RDMAP_EC_OPCODE },
	{ "send on QN 1", false, true, RV1(3), 1, 0, 0, -EPROTO,
	  SOFTRNIC_TERM_DDP, SOFTRNIC_DDP_ET_UNTAGGED,
	  SOFTRNIC_DDP_EC_UT_INVALID_QN },
	{ "read req on QN 0", false, true, RV1(1), 0, 0, 28, -EPROTO,
	  SOFTRNIC_TERM_DDP, SOFTRNIC_DDP_ET_UNTAGGED,
	  SOFTRNIC_DDP_EC_UT_INVALID_QN },
	{ "read req 27 octets", false, true, RV1(1), 1, 0, 27, -EPROTO,
	  SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
	  SOFTRNIC_RDMAP_EC_STREAM },
	{ "read req not last", false, false, RV1(1), 1, 0, 28, -EPROTO,
	  SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
	  SOFTRNIC_RDMAP_EC_STREAM },
	{ "read req MO 4", false, true, RV1(1), 1, 4, 28, -EPROTO,
	  SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
	  SOFTRNIC_RDMAP_EC_STREAM },
	{ "terminate 3 octets", false, true, RV1(7), 2, 0, 3, -EPROTO,
	  SOFTRNIC_TERM_RDMAP, SOFTRNIC_RDMAP_ET_OPERATION,
	  SOFTRNIC_RDMAP_EC_STREAM },
	{ "terminate on QN 0", false, true, RV1(7), 0, 0, 4, -EPROTO,
	  SOFTRNIC_TERM_DDP, SOFTRNIC_DDP_ET_UNTAGGED,
	  SOFTRNIC_DDP_EC_UT_INVALID_QN },
};

static void sw_rdmap_desc(const struct sw_rdmap_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sw_rdmap, sw_rdmap_cases, sw_rdmap_desc);

static void sw_rdmap_check(struct kunit *test)
{
	const struct sw_rdmap_case *c = test->param_value;
	struct softrnic_ddp_hdr h = {
		.tagged = c->tagged, .last = c->last, .ulp_ctrl = c->ctrl,
		.qn = c->qn, .mo = c->mo, .msn = 1,
	};
	struct softrnic_term_cause cause = {};

	KUNIT_ASSERT_EQ(test, softrnic_rdmap_check(&h, c->plen, &cause), c->ret);
	if (!c->ret)
		return;
	KUNIT_EXPECT_EQ(test, cause.layer, c->layer);
	KUNIT_EXPECT_EQ(test, cause.etype, c->etype);
	KUNIT_EXPECT_EQ(test, cause.ecode, c->ecode);
}

static void sw_rreq(struct kunit *test)
{
	static const u8 img[28] = {
		0x00, 0x00, 0x12, 0x34, 0, 0, 0, 0, 0x10, 0x00, 0x00, 0x00,
		0x00, 0x01, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef,
		0x80, 0, 0, 0, 0, 0, 0, 0x01,
	};
	struct softrnic_rdmap_rreq rr = {
		.sink_stag = 0x1234, .sink_to = 0x10000000, .size = 0x10000,
		.src_stag = 0xdeadbeef, .src_to = 0x8000000000000001ULL,
	}, back;
	u8 buf[28];

	softrnic_rdmap_rreq_encode(&rr, buf);
	KUNIT_EXPECT_MEMEQ(test, buf, img, sizeof(img));
	softrnic_rdmap_rreq_decode(img, &back);
	KUNIT_EXPECT_MEMEQ(test, &back, &rr, sizeof(rr));
}

static void sw_terminate(struct kunit *test)
{
	struct softrnic_term_cause c = {
		.layer = SOFTRNIC_TERM_DDP, .etype = SOFTRNIC_DDP_ET_UNTAGGED,
		.ecode = SOFTRNIC_DDP_EC_UT_TOO_LONG,
	};
	struct softrnic_term_cause llp = {
		.layer = SOFTRNIC_TERM_LLP, .etype = 0,
		.ecode = SOFTRNIC_LLP_EC_CRC,
	};
	static const u8 img[] = {
		0x12, 0x05, 0xc0, 0x00, 0x00, 0x16,
		0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
	};
	u8 buf[SOFTRNIC_RDMAP_TERM_MAX_LEN], rr[28];
	struct softrnic_rdmap_term t;
	u32 n;

	n = softrnic_rdmap_term_encode(buf, &c, sw_send_ulpdu, 18, 22, NULL);
	KUNIT_ASSERT_EQ(test, n, (u32)sizeof(img));
	KUNIT_EXPECT_MEMEQ(test, buf, img, n);
	KUNIT_ASSERT_EQ(test, softrnic_rdmap_term_decode(buf, n, &t), 0);
	KUNIT_EXPECT_EQ(test, t.cause.layer, c.layer);
	KUNIT_EXPECT_EQ(test, t.cause.etype, c.etype);
	KUNIT_EXPECT_EQ(test, t.cause.ecode, c.ecode);
	KUNIT_EXPECT_TRUE(test, t.m && t.d && !t.r);
	KUNIT_EXPECT_EQ(test, t.seg_len, 22);

	n = softrnic_rdmap_term_encode(buf, &llp, NULL, 0, 0, NULL);
	KUNIT_ASSERT_EQ(test, n, 4U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf), 0x20020000U);

	memset(rr, 0x5a, sizeof(rr));
	n = softrnic_rdmap_term_encode(buf, &c, sw_send_ulpdu, 18, 46, rr);
	KUNIT_EXPECT_EQ(test, n, 4U + 2 + 18 + 28);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf) & 0xe000, 0xe000U);
	KUNIT_EXPECT_MEMEQ(test, buf + 24, rr, 28);

	/* malformed: too short for the control word, M without the length */
	KUNIT_EXPECT_EQ(test, softrnic_rdmap_term_decode(buf, 3, &t), -EPROTO);
	KUNIT_EXPECT_EQ(test, softrnic_rdmap_term_decode(img, 5, &t), -EPROTO);
}

static struct kunit_case sw_mpa_cases[] = {
	KUNIT_CASE(sw_crc_check_value),
	KUNIT_CASE_PARAM(sw_pad, sw_pad_gen_params),
	KUNIT_CASE_PARAM(sw_fpdu_encode, sw_fpdu_gen_params),
	KUNIT_CASE_PARAM(sw_fpdu_encode_inplace, sw_fpdu_gen_params),
	KUNIT_CASE_PARAM(sw_fpdu_decode, sw_fpdu_gen_params),
	KUNIT_CASE(sw_rx_grows),
	KUNIT_CASE(sw_rx_grow_fails),
	KUNIT_CASE_PARAM(sw_fpdu_malformed, sw_bad_gen_params),
	KUNIT_CASE(sw_marker_at_start),
	KUNIT_CASE(sw_marker_inside),
	KUNIT_CASE(sw_marker_before_crc),
	KUNIT_CASE(sw_marker_bad_ptr),
	KUNIT_CASE_PARAM(sw_roundtrip, sw_rt_gen_params),
	KUNIT_CASE_PARAM(sw_mulpdu, sw_mulpdu_gen_params),
	KUNIT_CASE(sw_emss),
	{}
};

static struct kunit_suite sw_mpa_suite = {
	.name = "softrnic_wire_mpa",
	.test_cases = sw_mpa_cases,
};

static struct kunit_case sw_ddp_rdmap_cases[] = {
	KUNIT_CASE(sw_ddp_encode),
	KUNIT_CASE(sw_ddp_decode_ok),
	KUNIT_CASE_PARAM(sw_ddp_decode_bad, sw_ddp_bad_gen_params),
	KUNIT_CASE_PARAM(sw_rdmap_check, sw_rdmap_gen_params),
	KUNIT_CASE(sw_rreq),
	KUNIT_CASE(sw_terminate),
	{}
};

static struct kunit_suite sw_ddp_rdmap_suite = {
	.name = "softrnic_wire_ddp_rdmap",
	.test_cases = sw_ddp_rdmap_cases,
};

kunit_test_suites(&sw_mpa_suite, &sw_ddp_rdmap_suite);

MODULE_DESCRIPTION("KUnit tests of the softrnic wire codecs");
MODULE_LICENSE("GPL");
