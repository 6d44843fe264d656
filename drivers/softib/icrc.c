// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the invariant CRC (IBA 7.8.1). A CRC-32 (the Ethernet polynomial,
 * initial value all ones, the result inverted and sent least significant
 * byte first, as Ethernet's FCS) over the packet from the first byte of the
 * LRH through the last byte of the payload (pad included), where the fields
 * a switch or router may change count as all ones: LRH VL, GRH traffic
 * class, flow label and hop limit, BTH resv8a. The VCRC is not sent: the
 * carrier's FCS covers the link.
 */
#include <linux/crc32.h>
#include <linux/unaligned.h>
#include "softib.h"
#include "wire.h"

/*
 * The masked copy of the headers up to and including the BTH is at most
 * LRH + GRH + BTH bytes; the rest of the packet is used in place.
 */
u32 softib_icrc(const void *pkt, unsigned int len)
{
	u8 hdr[SOFTIB_LRH_BYTES + SOFTIB_GRH_BYTES + SOFTIB_BTH_BYTES];
	const u8 *p = pkt;
	unsigned int n, bth;
	u32 crc;

	bth = SOFTIB_LRH_BYTES;
	if ((p[1] & 3) == SOFTIB_LNH_GLOBAL)
		bth += SOFTIB_GRH_BYTES;
	n = min(len, bth + SOFTIB_BTH_BYTES);
	memcpy(hdr, p, n);
	hdr[0] |= 0xf0;				/* LRH VL */
	if (bth > SOFTIB_LRH_BYTES && n >= SOFTIB_LRH_BYTES + 8) {
		u8 *grh = hdr + SOFTIB_LRH_BYTES;

		grh[0] |= 0x0f;			/* traffic class, flow label */
		grh[1] = 0xff;
		grh[2] = 0xff;
		grh[3] = 0xff;
		grh[7] = 0xff;			/* hop limit */
	}
	if (n > bth + 4)
		hdr[bth + 4] = 0xff;		/* BTH resv8a */
	crc = crc32_le(~0U, hdr, n);
	crc = crc32_le(crc, p + n, len - n);
	return ~crc;
}
EXPORT_SYMBOL_IF_KUNIT(softib_icrc);

void softib_icrc_set(void *pkt, unsigned int len_without_icrc)
{
	put_unaligned_le32(softib_icrc(pkt, len_without_icrc),
			   (u8 *)pkt + len_without_icrc);
}
EXPORT_SYMBOL_IF_KUNIT(softib_icrc_set);

/* len: the packet with its ICRC */
bool softib_icrc_ok(const void *pkt, unsigned int len)
{
	if (len < SOFTIB_ICRC_BYTES)
		return false;
	len -= SOFTIB_ICRC_BYTES;
	return get_unaligned_le32((const u8 *)pkt + len) ==
	       softib_icrc(pkt, len);
}
EXPORT_SYMBOL_IF_KUNIT(softib_icrc_ok);
