// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm: MPA frames and negotiation (see mpa.h for the layout).
 *
 * Decoding is strict: a frame with the wrong key, an unknown revision, a
 * PD_Length above 512 or above the bytes present, R set in a request, a
 * revision 2 frame without its IRD/ORD words, or RTR bits that make no
 * sense (RTR without peer-to-peer, a peer-to-peer request offering none, a
 * reply choosing other than exactly one) is refused with an errno:
 *   -ENODATA          fewer bytes than the header or PD_Length says
 *   -EBADMSG          wrong key, or R in a request
 *   -EPROTONOSUPPORT  revision other than 1 and 2
 *   -EMSGSIZE         PD_Length above 512
 *   -EPROTO           bad revision 2 words or RTR combination
 *
 * Negotiation (RFC 5044 section 7.1, RFC 6581 section 9):
 *   - the reply's revision is the lower of the request's and ours; an
 *     initiator that gets revision 1 back falls back to revision 1 (no
 *     IRD/ORD exchange, no peer-to-peer); a higher one is an error;
 *   - CRC is used in both directions when either end sets C;
 *   - markers are per direction: each end's M asks the other to send them;
 *   - the responder's ORD is at most the initiator's IRD, the initiator's
 *     ORD at most the responder's IRD;
 *   - peer-to-peer needs both ends; the responder picks one RTR type the
 *     initiator offered (WRITE, else READ, else SEND: siw picks WRITE
 *     first too) or the negotiation fails; a READ RTR needs IRD >= 1 at
 *     the responder and ORD >= 1 at the initiator.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include "mpa.h"

static const char mpa_key_req[ORCM_MPA_KEY_LEN] = "MPA ID Req Frame";
static const char mpa_key_rep[ORCM_MPA_KEY_LEN] = "MPA ID Rep Frame";

static u16 mpa_clamp(u32 v)
{
	return min_t(u32, v, ORCM_MPA_IRD_ORD_MAX);
}

static bool rtr_single(u8 rtr)
{
	return rtr && !(rtr & (rtr - 1));
}

/*
 * Validate the 20-byte header at @buf (@len bytes present, at least the
 * header) for a request (@request) or a reply/reject.
 * Return: the whole frame's length (header and PD_Length), or an errno.
 */
int orcm_mpa_hdr_check(const u8 *buf, size_t len, bool request)
{
	u8 flags, rev;
	u16 pd_len;

	if (len < ORCM_MPA_HDR_LEN)
		return -ENODATA;
	if (memcmp(buf, request ? mpa_key_req : mpa_key_rep, ORCM_MPA_KEY_LEN))
		return -EBADMSG;
	flags = buf[16];
	rev = buf[17];
	pd_len = get_unaligned_be16(buf + 18);
	if (request && (flags & ORCM_MPA_R))
		return -EBADMSG;
	if (rev != 1 && rev != 2)
		return -EPROTONOSUPPORT;
	if (pd_len > ORCM_MPA_PD_MAX)
		return -EMSGSIZE;
	if (rev == 2 && (!(flags & ORCM_MPA_H) || pd_len < ORCM_MPA_V2_WORDS))
		return -EPROTO;
	return ORCM_MPA_HDR_LEN + pd_len;
}
EXPORT_SYMBOL_IF_KUNIT(orcm_mpa_hdr_check);

/* The IRD/ORD words and what they may say in a frame of @kind. */
static int mpa_decode_words(const u8 *w, struct orcm_mpa_frame *f)
{
	u16 ird = get_unaligned_be16(w), ord = get_unaligned_be16(w + 2);

	f->p2p = ird & ORCM_MPA_P2P;
	f->rtr = 0;
	if (ird & ORCM_MPA_RTR_SEND)
		f->rtr |= ORCM_RTR_BIT(ORCM_IW_RTR_SEND);
	if (ord & ORCM_MPA_RTR_WRITE)
		f->rtr |= ORCM_RTR_BIT(ORCM_IW_RTR_WRITE);
	if (ord & ORCM_MPA_RTR_READ)
		f->rtr |= ORCM_RTR_BIT(ORCM_IW_RTR_READ);
	f->ird = ird & ORCM_MPA_IRD_ORD_MAX;
	f->ord = ord & ORCM_MPA_IRD_ORD_MAX;

	if (f->kind == ORCM_MPA_REJ)
		return 0;	/* a reject's words mean nothing */
	if (!f->p2p)
		return f->rtr ? -EPROTO : 0;
	if (f->kind == ORCM_MPA_REQ) {
		if (!f->rtr)
			return -EPROTO;
		/* Only a READ RTR offered, and no READ to send it with. */
		if (f->rtr == ORCM_RTR_BIT(ORCM_IW_RTR_READ) && !f->ord)
			return -EPROTO;
		return 0;
	}
	if (!rtr_single(f->rtr))
		return -EPROTO;
	/* A responder that picks READ must serve it. */
	if (f->rtr == ORCM_RTR_BIT(ORCM_IW_RTR_READ) && !f->ird)
		return -EPROTO;
	return 0;
}

/**
 * orcm_mpa_decode - parse and validate an MPA request, reply or reject
 * @buf: the frame
 * @len: bytes present at @buf (more than the frame is fine)
 * @request: a request is expected (else a reply or reject)
 * @f: filled in; f->pd points into @buf
 *
 * Return: the frame's length, or an errno (see the top of this file).
 */
int orcm_mpa_decode(const u8 *buf, size_t len, bool request,
		    struct orcm_mpa_frame *f)
{
	int total, ret;
	u8 flags;

	total = orcm_mpa_hdr_check(buf, len, request);
	if (total < 0)
		return total;
	if (len < total)
		return -ENODATA;

	memset(f, 0, sizeof(*f));
	flags = buf[16];
	f->kind = request ? ORCM_MPA_REQ :
		  (flags & ORCM_MPA_R) ? ORCM_MPA_REJ : ORCM_MPA_REP;
	f->rev = buf[17];
	f->markers = flags & ORCM_MPA_M;
	f->crc = flags & ORCM_MPA_C;
	f->pd = buf + ORCM_MPA_HDR_LEN;
	f->pd_len = total - ORCM_MPA_HDR_LEN;
	if (f->rev == 2) {
		ret = mpa_decode_words(f->pd, f);
		if (ret)
			return ret;
		f->pd += ORCM_MPA_V2_WORDS;
		f->pd_len -= ORCM_MPA_V2_WORDS;
	}
	return total;
}
EXPORT_SYMBOL_IF_KUNIT(orcm_mpa_decode);

/**
 * orcm_mpa_encode - write @f as an MPA frame
 * @f: the frame; f->pd_len bytes at f->pd are the ULP's private data
 * @buf: where to write it
 * @size: room at @buf
 *
 * Return: the frame's length; -EINVAL for a frame that could not be
 * decoded back (bad revision, R in a request, RTR bits that make no
 * sense), -EMSGSIZE if the private data (with the revision 2 words) is
 * above 512 bytes, -ENOSPC if @size is too small.
 */
int orcm_mpa_encode(const struct orcm_mpa_frame *f, u8 *buf, size_t size)
{
	size_t words = f->rev == 2 ? ORCM_MPA_V2_WORDS : 0;
	size_t pd_total = words + f->pd_len;
	u16 ird, ord;
	u8 flags = 0;

	if (f->rev != 1 && f->rev != 2)
		return -EINVAL;
	if (f->rtr & ~ORCM_RTR_ALL)
		return -EINVAL;
	if (f->kind != ORCM_MPA_REJ && f->rev == 2) {
		if (!f->p2p && f->rtr)
			return -EINVAL;
		if (f->p2p && f->kind == ORCM_MPA_REQ && !f->rtr)
			return -EINVAL;
		if (f->p2p && f->kind == ORCM_MPA_REP && !rtr_single(f->rtr))
			return -EINVAL;
	}
	if (f->pd_len && !f->pd)
		return -EINVAL;
	if (pd_total > ORCM_MPA_PD_MAX)
		return -EMSGSIZE;
	if (size < ORCM_MPA_HDR_LEN + pd_total)
		return -ENOSPC;

	memcpy(buf, f->kind == ORCM_MPA_REQ ? mpa_key_req : mpa_key_rep,
	       ORCM_MPA_KEY_LEN);
	if (f->markers)
		flags |= ORCM_MPA_M;
	if (f->crc)
		flags |= ORCM_MPA_C;
	if (f->kind == ORCM_MPA_REJ)
		flags |= ORCM_MPA_R;
	if (f->rev == 2)
		flags |= ORCM_MPA_H;
	buf[16] = flags;
	buf[17] = f->rev;
	put_unaligned_be16(pd_total, buf + 18);
	if (words) {
		ird = mpa_clamp(f->ird);
		ord = mpa_clamp(f->ord);
		if (f->p2p)
			ird |= ORCM_MPA_P2P;
		if (f->rtr & ORCM_RTR_BIT(ORCM_IW_RTR_SEND))
			ird |= ORCM_MPA_RTR_SEND;
		if (f->rtr & ORCM_RTR_BIT(ORCM_IW_RTR_WRITE))
			ord |= ORCM_MPA_RTR_WRITE;
		if (f->rtr & ORCM_RTR_BIT(ORCM_IW_RTR_READ))
			ord |= ORCM_MPA_RTR_READ;
		put_unaligned_be16(ird, buf + ORCM_MPA_HDR_LEN);
		put_unaligned_be16(ord, buf + ORCM_MPA_HDR_LEN + 2);
	}
	if (f->pd_len)
		memcpy(buf + ORCM_MPA_HDR_LEN + words, f->pd, f->pd_len);
	return ORCM_MPA_HDR_LEN + pd_total;
}
EXPORT_SYMBOL_IF_KUNIT(orcm_mpa_encode);

/* The initiator's request: what @loc wants, as it goes on the wire. */
void orcm_mpa_make_request(const struct orcm_mpa_local *loc,
			   const void *pd, u16 pd_len,
			   struct orcm_mpa_frame *req)
{
	memset(req, 0, sizeof(*req));
	req->kind = ORCM_MPA_REQ;
	req->rev = loc->rev == 1 ? 1 : 2;
	req->markers = loc->markers;
	req->crc = loc->crc;
	req->pd = pd;
	req->pd_len = pd_len;
	/* Not sent in revision 1, but what orcm_mpa_complete() falls to. */
	req->ird = mpa_clamp(loc->ird);
	req->ord = mpa_clamp(loc->ord);
	if (req->rev != 2)
		return;
	req->p2p = loc->p2p && (loc->rtr & ORCM_RTR_ALL);
	if (!req->p2p)
		return;
	req->rtr = loc->rtr & ORCM_RTR_ALL;
	if (req->rtr & ORCM_RTR_BIT(ORCM_IW_RTR_READ))
		req->ord = max_t(u16, req->ord, 1);
}
EXPORT_SYMBOL_IF_KUNIT(orcm_mpa_make_request);

static enum orcm_iw_rtr rtr_pick(u8 common)
{
	if (common & ORCM_RTR_BIT(ORCM_IW_RTR_WRITE))
		return ORCM_IW_RTR_WRITE;
	if (common & ORCM_RTR_BIT(ORCM_IW_RTR_READ))
		return ORCM_IW_RTR_READ;
	if (common & ORCM_RTR_BIT(ORCM_IW_RTR_SEND))
		return ORCM_IW_RTR_SEND;
	return ORCM_IW_RTR_NONE;
}

/**
 * orcm_mpa_respond - the responder's reply to a decoded request
 * @req: the request
 * @loc: the responder's wishes (rtr: the RTR types it takes)
 * @pd: the ULP's private data for the reply
 * @pd_len: its length
 * @rep: the reply to encode
 * @out: the responder's negotiated parameters
 *
 * Return: 0; -EPROTO when no RTR type is common (the caller rejects);
 * -EMSGSIZE when @pd_len does not fit.
 */
int orcm_mpa_respond(const struct orcm_mpa_frame *req,
		     const struct orcm_mpa_local *loc,
		     const void *pd, u16 pd_len,
		     struct orcm_mpa_frame *rep,
		     struct orcm_iw_mpa_params *out)
{
	enum orcm_iw_rtr rtr = ORCM_IW_RTR_NONE;

	memset(rep, 0, sizeof(*rep));
	memset(out, 0, sizeof(*out));
	rep->kind = ORCM_MPA_REP;
	rep->rev = min_t(u8, req->rev, loc->rev == 1 ? 1 : 2);
	rep->crc = req->crc || loc->crc;
	rep->markers = loc->markers;
	rep->pd = pd;
	rep->pd_len = pd_len;
	if (pd_len + (rep->rev == 2 ? ORCM_MPA_V2_WORDS : 0) > ORCM_MPA_PD_MAX)
		return -EMSGSIZE;

	out->rev = rep->rev;
	out->initiator = false;
	out->crc = rep->crc;
	out->markers_tx = req->markers;
	out->markers_rx = loc->markers;
	out->ird = mpa_clamp(loc->ird);
	out->ord = mpa_clamp(loc->ord);
	if (rep->rev != 2)
		return 0;

	out->ord = min(out->ord, req->ird);
	if (req->p2p && loc->p2p) {
		rtr = rtr_pick(req->rtr & loc->rtr);
		if (rtr == ORCM_IW_RTR_NONE)
			return -EPROTO;
		if (rtr == ORCM_IW_RTR_READ)
			out->ird = max_t(u16, out->ird, 1);
		rep->p2p = true;
		rep->rtr = ORCM_RTR_BIT(rtr);
		out->p2p = true;
		out->rtr = rtr;
	}
	rep->ird = out->ird;
	rep->ord = out->ord;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(orcm_mpa_respond);

/* The responder's reject of @req, in the request's revision. */
void orcm_mpa_make_reject(const struct orcm_mpa_frame *req,
			  const void *pd, u16 pd_len,
			  struct orcm_mpa_frame *rej)
{
	memset(rej, 0, sizeof(*rej));
	rej->kind = ORCM_MPA_REJ;
	rej->rev = req->rev == 1 ? 1 : 2;
	rej->crc = req->crc;
	rej->pd = pd;
	rej->pd_len = pd_len;
}
EXPORT_SYMBOL_IF_KUNIT(orcm_mpa_make_reject);

/**
 * orcm_mpa_complete - the initiator's view of the reply to its request
 * @req: the request it sent
 * @rep: the decoded reply
 * @out: the negotiated parameters
 *
 * Return: 0; -ECONNREFUSED for a reject; -EPROTO for a reply that does
 * not answer @req (higher revision, peer-to-peer or an RTR type not
 * asked for, a READ RTR this end cannot issue).
 */
int orcm_mpa_complete(const struct orcm_mpa_frame *req,
		      const struct orcm_mpa_frame *rep,
		      struct orcm_iw_mpa_params *out)
{
	memset(out, 0, sizeof(*out));
	if (rep->kind == ORCM_MPA_REJ)
		return -ECONNREFUSED;
	if (rep->kind != ORCM_MPA_REP || rep->rev > req->rev)
		return -EPROTO;

	out->rev = rep->rev;
	out->initiator = true;
	out->crc = req->crc || rep->crc;
	out->markers_rx = req->markers;
	out->markers_tx = rep->markers;
	out->ird = req->ird;
	out->ord = req->ord;
	if (rep->rev != 2)
		return 0;

	out->ord = min(req->ord, rep->ird);
	if (!rep->p2p)
		return 0;
	if (!req->p2p || !rtr_single(rep->rtr) || !(rep->rtr & req->rtr))
		return -EPROTO;
	out->p2p = true;
	out->rtr = rtr_pick(rep->rtr);
	if (out->rtr == ORCM_IW_RTR_READ && !out->ord)
		return -EPROTO;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(orcm_mpa_complete);
