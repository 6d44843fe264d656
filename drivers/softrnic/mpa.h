/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPA FPDU framing (RFC 5044 section 4): ULPDU_Length, ULPDU, pad to a
 * multiple of 4, CRC32c; markers every 512 octets of the TCP stream,
 * counted from the first octet after the MPA request/reply.
 */
#ifndef _SOFTRNIC_MPA_H
#define _SOFTRNIC_MPA_H

#include <linux/types.h>

#define SOFTRNIC_MPA_HDR_LEN		2
#define SOFTRNIC_MPA_CRC_LEN		4
#define SOFTRNIC_MPA_MARKER_LEN		4
#define SOFTRNIC_MPA_MARKER_INTERVAL	512
#define SOFTRNIC_MPA_MAX_ULPDU		0xffff
/* The longest FPDU without markers: length, ULPDU, pad and CRC. */
#define SOFTRNIC_MPA_MAX_FPDU		(SOFTRNIC_MPA_HDR_LEN + \
					 SOFTRNIC_MPA_MAX_ULPDU + 3 + \
					 SOFTRNIC_MPA_CRC_LEN)
/* ... and with markers: at most one per 508 octets of FPDU, plus one. */
#define SOFTRNIC_MPA_MAX_WIRE		(SOFTRNIC_MPA_MAX_FPDU + \
					 SOFTRNIC_MPA_MARKER_LEN * \
					 (SOFTRNIC_MPA_MAX_FPDU / 508 + 2))

/* Pad octets after a ULPDU of @ulpdu_len (length field + ULPDU + pad = 4n). */
static inline u32 softrnic_mpa_pad(u32 ulpdu_len)
{
	return (4 - ((ulpdu_len + SOFTRNIC_MPA_HDR_LEN) & 3)) & 3;
}

/* Octets of an FPDU carrying @ulpdu_len, markers not counted. */
static inline u32 softrnic_mpa_fpdu_len(u32 ulpdu_len)
{
	return SOFTRNIC_MPA_HDR_LEN + ulpdu_len + softrnic_mpa_pad(ulpdu_len) +
	       SOFTRNIC_MPA_CRC_LEN;
}

/*
 * One direction of an FPDU stream. @pos is the stream offset of the next
 * octet relative to the start of FPDU mode (markers count). Owned by the
 * one context that sends (or receives) on the connection.
 */
struct softrnic_mpa_tx {
	u32 pos;
	bool crc;
	bool markers;
};

u32 softrnic_mpa_crc(u32 crc, const void *buf, size_t len);
u32 softrnic_mpa_wire_len(u32 pos, bool markers, u32 ulpdu_len);
u32 softrnic_mpa_encode(struct softrnic_mpa_tx *st, u8 *out,
			const void *ulpdu, u32 ulpdu_len);
u32 softrnic_mpa_encode_inplace(struct softrnic_mpa_tx *st, u8 *buf,
				u32 ulpdu_len);
u32 softrnic_mulpdu(u32 emss, bool markers);
u32 softrnic_emss(u32 mtu, bool ipv6, u32 tcp_opt_len);

/* Receive side: an FPDU is collected marker-free into @buf. */
enum softrnic_mpa_rx_err {
	SOFTRNIC_MPA_OK,
	SOFTRNIC_MPA_BAD_CRC,		/* LLP ecode 0x02 */
	SOFTRNIC_MPA_BAD_MARKER,	/* LLP ecode 0x03 */
	SOFTRNIC_MPA_SHORT,		/* ULPDU_Length below any DDP header */
	SOFTRNIC_MPA_NOMEM,		/* no buffer for the FPDU to collect */
};

struct softrnic_mpa_rx {
	u32 pos;		/* stream offset of the next octet */
	bool crc;
	bool markers;
	/* the FPDU being collected */
	u32 fpdu_start;		/* stream offset of its first octet */
	u32 have;		/* marker-free octets in @buf */
	u32 need;		/* marker-free octets of the whole FPDU, 0: unknown */
	u32 ulpdu_len;		/* its ULPDU_Length, once @need is known */
	u32 crc_acc;		/* CRC over the wire octets so far */
	u8 marker[SOFTRNIC_MPA_MARKER_LEN];
	u8 marker_have;		/* octets of a marker being skipped */
	u8 *buf;		/* @buf_size octets, grown to fit the FPDU */
	u32 buf_size;
	const u8 *in_place;	/* the FPDU, whole in the caller's data */
};

int softrnic_mpa_rx_init(struct softrnic_mpa_rx *st, u32 size, bool crc,
			 bool markers);
void softrnic_mpa_rx_destroy(struct softrnic_mpa_rx *st);
int softrnic_mpa_rx_feed(struct softrnic_mpa_rx *st, const u8 *data, u32 len,
			 u32 *used, enum softrnic_mpa_rx_err *err);
/* The ULPDU of the complete FPDU (in @st->buf or in the data fed). */
static inline const u8 *softrnic_mpa_rx_ulpdu(const struct softrnic_mpa_rx *st,
					      u32 *len)
{
	*len = st->ulpdu_len;
	return (st->in_place ?: st->buf) + SOFTRNIC_MPA_HDR_LEN;
}

void softrnic_mpa_rx_next(struct softrnic_mpa_rx *st);

#if IS_ENABLED(CONFIG_KUNIT)
int softrnic_mpa_rx_grow(struct softrnic_mpa_rx *st, u32 need);
#endif

#endif /* _SOFTRNIC_MPA_H */
