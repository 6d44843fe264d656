// SPDX-License-Identifier: GPL-2.0
/*
 * MPA FPDU framing (RFC 5044): CRC32c, pad, markers, MULPDU.
 *
 * The CRC covers every octet of the FPDU on the wire before the CRC field:
 * ULPDU_Length, ULPDU, pad and the markers inside the FPDU. It goes on the
 * wire as the complement of the CRC32c register, least significant octet
 * first (as iSCSI digests and stock siw do). Without CRC the field is zero.
 *
 * A marker sits at every stream offset that is a multiple of 512 (offset 0
 * is the first octet after the MPA request/reply); its FPDUPTR is the
 * distance back to the first octet of the FPDU it lies in (0 when the
 * FPDU starts at the marker).
 *
 * Receive: an FPDU is checked (and its ULPDU handed out) where it lies in
 * the caller's data when it is whole there, or else collected in a buffer
 * of the parser's own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/crc32c.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <openrdma/offload_track.h>

#include "mpa.h"

#define MARKER_DUE(pos)	((pos) % SOFTRNIC_MPA_MARKER_INTERVAL == 0)

u32 softrnic_mpa_crc(u32 crc, const void *buf, size_t len)
{
	return crc32c(crc, buf, len);
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_mpa_crc);

/* Octets of one FPDU on the wire when its first octet is at @pos. */
u32 softrnic_mpa_wire_len(u32 pos, bool markers, u32 ulpdu_len)
{
	u32 left = softrnic_mpa_fpdu_len(ulpdu_len);
	u32 len = left;

	while (markers && left) {
		u32 chunk;

		if (MARKER_DUE(pos)) {
			len += SOFTRNIC_MPA_MARKER_LEN;
			pos += SOFTRNIC_MPA_MARKER_LEN;
		}
		chunk = min(left, SOFTRNIC_MPA_MARKER_INTERVAL -
				  pos % SOFTRNIC_MPA_MARKER_INTERVAL);
		left -= chunk;
		pos += chunk;
	}
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_mpa_wire_len);

struct mpa_out {
	struct softrnic_mpa_tx *st;
	u8 *buf;
	u32 len;
	u32 fpdu_start;
};

static void mpa_marker_if_due(struct mpa_out *o)
{
	struct softrnic_mpa_tx *st = o->st;

	if (!st->markers || !MARKER_DUE(st->pos))
		return;
	put_unaligned_be16(0, o->buf + o->len);
	put_unaligned_be16(st->pos - o->fpdu_start, o->buf + o->len + 2);
	o->len += SOFTRNIC_MPA_MARKER_LEN;
	st->pos += SOFTRNIC_MPA_MARKER_LEN;
}

/* Append @n octets of @src (zeros if NULL), markers inserted where due. */
static void mpa_emit(struct mpa_out *o, const u8 *src, u32 n)
{
	struct softrnic_mpa_tx *st = o->st;

	while (n) {
		u32 chunk = n;

		mpa_marker_if_due(o);
		if (st->markers)
			chunk = min(chunk, SOFTRNIC_MPA_MARKER_INTERVAL -
					   st->pos % SOFTRNIC_MPA_MARKER_INTERVAL);
		if (src) {
			memcpy(o->buf + o->len, src, chunk);
			src += chunk;
		} else {
			memset(o->buf + o->len, 0, chunk);
		}
		o->len += chunk;
		st->pos += chunk;
		n -= chunk;
	}
}

/*
 * softrnic_mpa_encode() without the copy, for a stream without markers:
 * the ULPDU is already at @buf + SOFTRNIC_MPA_HDR_LEN, and @buf has room
 * for its pad and CRC after it. Returns the FPDU's octets.
 */
u32 softrnic_mpa_encode_inplace(struct softrnic_mpa_tx *st, u8 *buf,
				u32 ulpdu_len)
{
	u32 pad = softrnic_mpa_pad(ulpdu_len);
	u32 len = SOFTRNIC_MPA_HDR_LEN + ulpdu_len + pad;
	u32 crc = 0;

	put_unaligned_be16(ulpdu_len, buf);
	memset(buf + SOFTRNIC_MPA_HDR_LEN + ulpdu_len, 0, pad);
	if (st->crc)
		crc = ~softrnic_mpa_crc(~0U, buf, len);
	put_unaligned_le32(crc, buf + len);
	len += SOFTRNIC_MPA_CRC_LEN;
	st->pos += len;
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_mpa_encode_inplace);

/*
 * Frame @ulpdu into @out (softrnic_mpa_wire_len(st->pos, ...) octets) and
 * advance the stream position. Returns the octets written.
 */
u32 softrnic_mpa_encode(struct softrnic_mpa_tx *st, u8 *out,
			const void *ulpdu, u32 ulpdu_len)
{
	struct mpa_out o = { .st = st, .buf = out, .fpdu_start = st->pos };
	u8 hdr[SOFTRNIC_MPA_HDR_LEN];
	u32 crc = 0;

	if (!st->markers) {
		memcpy(out + SOFTRNIC_MPA_HDR_LEN, ulpdu, ulpdu_len);
		return softrnic_mpa_encode_inplace(st, out, ulpdu_len);
	}
	put_unaligned_be16(ulpdu_len, hdr);
	mpa_emit(&o, hdr, sizeof(hdr));
	mpa_emit(&o, ulpdu, ulpdu_len);
	mpa_emit(&o, NULL, softrnic_mpa_pad(ulpdu_len));
	mpa_marker_if_due(&o);
	if (st->crc)
		crc = ~softrnic_mpa_crc(~0U, out, o.len);
	put_unaligned_le32(crc, out + o.len);
	o.len += SOFTRNIC_MPA_CRC_LEN;
	st->pos += SOFTRNIC_MPA_CRC_LEN;
	return o.len;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_mpa_encode);

/*
 * RFC 5044 section 4.4: the largest ULPDU whose FPDU (with its markers)
 * fits one segment of @emss octets (orcm_mpa_mulpdu(), shared with iw_cm's
 * path tracking).
 */
u32 softrnic_mulpdu(u32 emss, bool markers)
{
	return orcm_mpa_mulpdu(emss, markers);
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_mulpdu);

/* The TCP payload of one segment on a path of @mtu octets. */
u32 softrnic_emss(u32 mtu, bool ipv6, u32 tcp_opt_len)
{
	return orcm_mpa_emss(mtu, ipv6, tcp_opt_len);
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_emss);

/* The smallest ULPDU: a tagged DDP header. */
#define MPA_MIN_ULPDU	14

/*
 * The buffer an FPDU split across reads is collected in starts at @size
 * octets (the caller's guess of the peer's FPDU: its own, for a peer on
 * the same path) and grows when a longer FPDU comes; one of 65535 octets
 * would otherwise cost every connection 128 KiB.
 */
int softrnic_mpa_rx_init(struct softrnic_mpa_rx *st, u32 size, bool crc,
			 bool markers)
{
	memset(st, 0, sizeof(*st));
	st->buf_size = clamp_t(u32, size,
			       softrnic_mpa_fpdu_len(MPA_MIN_ULPDU),
			       SOFTRNIC_MPA_MAX_FPDU);
	st->buf = kvmalloc(st->buf_size, GFP_KERNEL);
	if (!st->buf)
		return -ENOMEM;
	st->crc = crc;
	st->markers = markers;
	st->crc_acc = ~0U;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_mpa_rx_init);

void softrnic_mpa_rx_destroy(struct softrnic_mpa_rx *st)
{
	kvfree(st->buf);
	st->buf = NULL;
	st->buf_size = 0;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_mpa_rx_destroy);

/*
 * Room for an FPDU of @need octets, the @have collected kept. The receive
 * path may run for the block layer's own I/O (NVMe-oF, iSER): no reclaim
 * that waits for I/O. KUnit may stub it to fail (kunit_activate_static_stub).
 */
VISIBLE_IF_KUNIT int softrnic_mpa_rx_grow(struct softrnic_mpa_rx *st, u32 need)
{
	unsigned int noio;
	u32 size;
	u8 *buf;

	KUNIT_STATIC_STUB_REDIRECT(softrnic_mpa_rx_grow, st, need);
	if (need <= st->buf_size)
		return 0;
	size = min_t(u32, roundup_pow_of_two(need), SOFTRNIC_MPA_MAX_FPDU);
	noio = memalloc_noio_save();
	buf = kvmalloc(size, GFP_KERNEL);
	memalloc_noio_restore(noio);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, st->buf, st->have);
	kvfree(st->buf);
	st->buf = buf;
	st->buf_size = size;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_mpa_rx_grow);

void softrnic_mpa_rx_next(struct softrnic_mpa_rx *st)
{
	st->fpdu_start = st->pos;
	st->have = 0;
	st->need = 0;
	st->ulpdu_len = 0;
	st->crc_acc = ~0U;
	st->in_place = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_mpa_rx_next);

/* Take in (part of) a marker; false on a wrong FPDUPTR. */
static bool mpa_rx_marker(struct softrnic_mpa_rx *st, const u8 *data, u32 n)
{
	u32 at;

	memcpy(st->marker + st->marker_have, data, n);
	st->crc_acc = softrnic_mpa_crc(st->crc_acc, data, n);
	st->marker_have += n;
	st->pos += n;
	if (st->marker_have < SOFTRNIC_MPA_MARKER_LEN)
		return true;
	st->marker_have = 0;
	at = st->pos - SOFTRNIC_MPA_MARKER_LEN;
	return get_unaligned_be16(st->marker + 2) == (u16)(at - st->fpdu_start);
}

/*
 * Without markers, an FPDU that starts at @data and lies in it whole is
 * checked where it is, not collected into st->buf: 1 (its ULPDU is then
 * in @data, see softrnic_mpa_rx_ulpdu()), 0 when it is not whole there,
 * -EPROTO on a bad CRC. *@used: its octets.
 */
static int mpa_rx_in_place(struct softrnic_mpa_rx *st, const u8 *data,
			   u32 len, u32 *used, enum softrnic_mpa_rx_err *err)
{
	u32 ulen, flen;

	if (st->markers || st->have || len < SOFTRNIC_MPA_HDR_LEN)
		return 0;
	ulen = get_unaligned_be16(data);
	flen = softrnic_mpa_fpdu_len(ulen);
	if (ulen < MPA_MIN_ULPDU || len < flen)
		return 0;	/* short ones fail in the collecting path */
	st->ulpdu_len = ulen;
	st->need = flen;
	st->have = flen;
	st->pos += flen;
	st->in_place = data;
	*used = flen;
	if (st->crc && get_unaligned_le32(data + flen - SOFTRNIC_MPA_CRC_LEN) !=
	    ~softrnic_mpa_crc(~0U, data, flen - SOFTRNIC_MPA_CRC_LEN)) {
		*err = SOFTRNIC_MPA_BAD_CRC;
		return -EPROTO;
	}
	return 1;
}

/*
 * Consume up to @len octets of the stream. Returns 1 when an FPDU is
 * complete (stopping right after it), 0 when all of @data went into a
 * partial one, -EPROTO (with @err) on a protocol error. *@used: octets
 * consumed. The ULPDU of a complete FPDU may lie in @data: it is valid
 * as long as @data is.
 */
int softrnic_mpa_rx_feed(struct softrnic_mpa_rx *st, const u8 *data, u32 len,
			 u32 *used, enum softrnic_mpa_rx_err *err)
{
	u32 off = 0;
	int r;

	*err = SOFTRNIC_MPA_OK;
	r = mpa_rx_in_place(st, data, len, used, err);
	if (r)
		return r;
	while (off < len) {
		u32 want, n, crc_end;

		if (st->markers && (st->marker_have || MARKER_DUE(st->pos))) {
			n = min(len - off, SOFTRNIC_MPA_MARKER_LEN -
					   (u32)st->marker_have);
			if (!mpa_rx_marker(st, data + off, n)) {
				*err = SOFTRNIC_MPA_BAD_MARKER;
				break;
			}
			off += n;
			continue;
		}
		want = (st->need ? st->need : SOFTRNIC_MPA_HDR_LEN) - st->have;
		n = min(want, len - off);
		if (st->markers)
			n = min(n, SOFTRNIC_MPA_MARKER_INTERVAL -
				   st->pos % SOFTRNIC_MPA_MARKER_INTERVAL);
		memcpy(st->buf + st->have, data + off, n);
		crc_end = st->need ? st->need - SOFTRNIC_MPA_CRC_LEN : U32_MAX;
		if (st->have < crc_end)
			st->crc_acc = softrnic_mpa_crc(st->crc_acc, data + off,
						       min(n, crc_end - st->have));
		st->have += n;
		st->pos += n;
		off += n;
		if (!st->need && st->have == SOFTRNIC_MPA_HDR_LEN) {
			st->ulpdu_len = get_unaligned_be16(st->buf);
			if (st->ulpdu_len < MPA_MIN_ULPDU) {
				*err = SOFTRNIC_MPA_SHORT;
				break;
			}
			st->need = softrnic_mpa_fpdu_len(st->ulpdu_len);
			if (softrnic_mpa_rx_grow(st, st->need)) {
				*err = SOFTRNIC_MPA_NOMEM;
				break;
			}
			continue;
		}
		if (st->need && st->have == st->need) {
			*used = off;
			if (st->crc && get_unaligned_le32(st->buf + st->need -
				       SOFTRNIC_MPA_CRC_LEN) != ~st->crc_acc) {
				*err = SOFTRNIC_MPA_BAD_CRC;
				return -EPROTO;
			}
			return 1;
		}
	}
	*used = off;
	return *err == SOFTRNIC_MPA_OK ? 0 : -EPROTO;
}
EXPORT_SYMBOL_IF_KUNIT(softrnic_mpa_rx_feed);
