// SPDX-License-Identifier: GPL-2.0
// MPA / DDP / RDMAP frame building and parsing for the adversarial peer.
#include "mpa.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>

namespace mpa {
namespace {

void put16(Bytes &b, std::uint16_t v)
{
	b.push_back(static_cast<std::uint8_t>(v >> 8));
	b.push_back(static_cast<std::uint8_t>(v));
}

void put32(Bytes &b, std::uint32_t v)
{
	put16(b, static_cast<std::uint16_t>(v >> 16));
	put16(b, static_cast<std::uint16_t>(v));
}

void put64(Bytes &b, std::uint64_t v)
{
	put32(b, static_cast<std::uint32_t>(v >> 32));
	put32(b, static_cast<std::uint32_t>(v));
}

std::uint16_t get16(std::span<const std::uint8_t> b, std::size_t at)
{
	return static_cast<std::uint16_t>(b[at] << 8 | b[at + 1]);
}

std::uint32_t get32(std::span<const std::uint8_t> b, std::size_t at)
{
	return static_cast<std::uint32_t>(get16(b, at)) << 16 | get16(b, at + 2);
}

std::uint64_t get64(std::span<const std::uint8_t> b, std::size_t at)
{
	return static_cast<std::uint64_t>(get32(b, at)) << 32 | get32(b, at + 4);
}

constexpr std::array<std::uint32_t, 256> make_crc_table()
{
	std::array<std::uint32_t, 256> t{};
	for (std::uint32_t i = 0; i < 256; i++) {
		std::uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		t[i] = c;
	}
	return t;
}
constexpr auto kCrcTable = make_crc_table();

} // namespace

const char *rtr_name(Rtr r)
{
	switch (r) {
	case Rtr::None: return "none";
	case Rtr::Send: return "send";
	case Rtr::Write: return "write";
	case Rtr::Read: return "read";
	}
	return "?";
}

Bytes build_frame(const Frame &f)
{
	Bytes b(kKeyLen, 0);
	std::memcpy(b.data(), f.key.data(), std::min(f.key.size(), kKeyLen));
	b.push_back(f.flags);
	b.push_back(f.rev);
	put16(b, f.pd_length);
	b.insert(b.end(), f.pd.begin(), f.pd.end());
	return b;
}

Frame make_frame(bool reply, std::uint8_t rev, std::uint8_t flags, Bytes pd)
{
	Frame f;
	f.key = reply ? kKeyRep : kKeyReq;
	f.rev = rev;
	f.flags = flags;
	f.pd_length = static_cast<std::uint16_t>(pd.size());
	f.pd = std::move(pd);
	return f;
}

Bytes build_ird_ord(const IrdOrd &v)
{
	Bytes b;
	put16(b, static_cast<std::uint16_t>((v.ird & kIrdOrdMask) | (v.p2p ? kIrdP2p : 0) |
					    (v.send_rtr ? kIrdSendRtr : 0)));
	put16(b, static_cast<std::uint16_t>((v.ord & kIrdOrdMask) |
					    (v.write_rtr ? kOrdWriteRtr : 0) |
					    (v.read_rtr ? kOrdReadRtr : 0)));
	return b;
}

std::optional<IrdOrd> parse_ird_ord(std::span<const std::uint8_t> pd)
{
	if (pd.size() < 4)
		return std::nullopt;
	std::uint16_t ird = get16(pd, 0), ord = get16(pd, 2);
	IrdOrd v;
	v.ird = ird & kIrdOrdMask;
	v.ord = ord & kIrdOrdMask;
	v.p2p = ird & kIrdP2p;
	v.send_rtr = ird & kIrdSendRtr;
	v.write_rtr = ord & kOrdWriteRtr;
	v.read_rtr = ord & kOrdReadRtr;
	return v;
}

int rtr_count(const IrdOrd &v)
{
	return int(v.send_rtr) + int(v.write_rtr) + int(v.read_rtr);
}

Rtr rtr_of(const IrdOrd &v)
{
	if (v.send_rtr)
		return Rtr::Send;
	if (v.write_rtr)
		return Rtr::Write;
	if (v.read_rtr)
		return Rtr::Read;
	return Rtr::None;
}

Parsed parse_frame(std::span<const std::uint8_t> buf)
{
	Parsed p;
	if (buf.size() < kKeyLen)
		return p;
	p.frame.key.assign(reinterpret_cast<const char *>(buf.data()), kKeyLen);
	if (p.frame.key == kKeyRep)
		p.reply = true;
	else if (p.frame.key != kKeyReq) {
		p.status = ParseStatus::BadKey;
		return p;
	}
	if (buf.size() < kHdrLen)
		return p;
	p.frame.flags = buf[16];
	p.frame.rev = buf[17];
	p.frame.pd_length = get16(buf, 18);
	p.need = kHdrLen + p.frame.pd_length;
	if (buf.size() < p.need)
		return p;
	p.frame.pd.assign(buf.begin() + kHdrLen, buf.begin() + static_cast<long>(p.need));
	p.status = ParseStatus::Ok;
	return p;
}

std::uint32_t crc32c(std::span<const std::uint8_t> data, std::uint32_t crc)
{
	crc = ~crc;
	for (auto c : data)
		crc = kCrcTable[(crc ^ c) & 0xff] ^ (crc >> 8);
	return ~crc;
}

Bytes build_segment(const Segment &s)
{
	Bytes b;
	b.push_back(static_cast<std::uint8_t>((s.tagged ? kDdpTagged : 0) |
					      (s.last ? kDdpLast : 0) | (s.ddp_version & 0x03)));
	b.push_back(static_cast<std::uint8_t>((s.rdmap_version & 0x03) << 6 | (s.opcode & 0x0f)));
	put32(b, s.stag);
	if (s.tagged) {
		put64(b, s.to);
	} else {
		put32(b, s.qn);
		put32(b, s.msn);
		put32(b, s.mo);
	}
	b.insert(b.end(), s.payload.begin(), s.payload.end());
	return b;
}

std::optional<Segment> parse_segment(std::span<const std::uint8_t> u)
{
	if (u.size() < 2)
		return std::nullopt;
	Segment s;
	s.tagged = u[0] & kDdpTagged;
	s.last = u[0] & kDdpLast;
	s.ddp_version = u[0] & 0x03;
	s.rdmap_version = u[1] >> 6;
	s.opcode = u[1] & 0x0f;
	std::size_t hdr = s.tagged ? kTaggedHdrLen : kUntaggedHdrLen;
	if (u.size() < hdr)
		return std::nullopt;
	s.stag = get32(u, 2);
	if (s.tagged) {
		s.to = get64(u, 6);
	} else {
		s.qn = get32(u, 6);
		s.msn = get32(u, 10);
		s.mo = get32(u, 14);
	}
	s.payload.assign(u.begin() + static_cast<long>(hdr), u.end());
	return s;
}

Segment rtr_segment(Rtr r)
{
	Segment s;
	switch (r) {
	case Rtr::Write:
		s.tagged = true;
		s.opcode = kOpWrite;
		break;
	case Rtr::Read:
		s.opcode = kOpReadReq;
		s.qn = 1;
		s.payload.assign(kReadReqLen, 0); // sink/source STag 0, length 0
		break;
	case Rtr::Send:
	case Rtr::None:
		s.opcode = kOpSend;
		break;
	}
	return s;
}

Bytes build_fpdu(std::span<const std::uint8_t> ulpdu, bool crc, int length_delta,
		 std::uint32_t crc_xor)
{
	// Sized up front (gcc 12 warns wrongly about insert() after push_back()).
	Bytes b((2 + ulpdu.size() + 3) & ~std::size_t{3}, 0);
	auto len = static_cast<std::uint16_t>(static_cast<int>(ulpdu.size()) + length_delta);
	b[0] = static_cast<std::uint8_t>(len >> 8);
	b[1] = static_cast<std::uint8_t>(len);
	std::copy(ulpdu.begin(), ulpdu.end(), b.begin() + 2);
	std::uint32_t c = (crc ? crc32c(b) : 0) ^ crc_xor;
	// The CRC goes out as the kernel's crc32c digest stores it: little endian.
	for (int i = 0; i < 4; i++)
		b.push_back(static_cast<std::uint8_t>(c >> (8 * i)));
	return b;
}

FpduParsed parse_fpdu(std::span<const std::uint8_t> buf, bool crc)
{
	FpduParsed p;
	if (buf.size() < 2)
		return p;
	std::size_t len = get16(buf, 0);
	std::size_t padded = (2 + len + 3) & ~std::size_t{3};
	p.size = padded + 4;
	if (buf.size() < p.size)
		return p;
	p.status = ParseStatus::Ok;
	p.ulpdu.assign(buf.begin() + 2, buf.begin() + 2 + static_cast<long>(len));
	if (crc) {
		std::uint32_t want = crc32c(buf.first(padded));
		std::uint32_t got = 0;
		for (int i = 0; i < 4; i++)
			got |= static_cast<std::uint32_t>(buf[padded + i]) << (8 * i);
		p.crc_ok = want == got;
	}
	return p;
}

std::optional<TermInfo> parse_terminate(const Segment &s)
{
	if (s.tagged || s.opcode != kOpTerminate || s.payload.size() < 4)
		return std::nullopt;
	TermInfo t;
	t.layer = s.payload[0] >> 4;
	t.etype = s.payload[0] & 0x0f;
	t.ecode = s.payload[1];
	return t;
}

std::string describe(const Segment &s)
{
	static const char *const ops[16] = {
		"WRITE", "READ_REQ", "READ_RESP", "SEND", "SEND_INV", "SEND_SE",
		"SEND_SE_INV", "TERMINATE", "op8", "op9", "op10", "op11", "op12",
		"op13", "op14", "op15",
	};
	char buf[160];
	if (s.tagged)
		std::snprintf(buf, sizeof(buf), "%s tagged stag=0x%x to=0x%llx len=%zu%s",
			      ops[s.opcode & 0x0f], s.stag,
			      static_cast<unsigned long long>(s.to), s.payload.size(),
			      s.last ? " L" : "");
	else
		std::snprintf(buf, sizeof(buf), "%s qn=%u msn=%u mo=%u len=%zu%s",
			      ops[s.opcode & 0x0f], s.qn, s.msn, s.mo, s.payload.size(),
			      s.last ? " L" : "");
	std::string r = buf;
	if (auto t = parse_terminate(s)) {
		std::snprintf(buf, sizeof(buf), " layer=%u etype=%u ecode=0x%02x", t->layer,
			      t->etype, t->ecode);
		r += buf;
	}
	return r;
}

std::string hex(std::span<const std::uint8_t> b, std::size_t max)
{
	std::string r;
	char x[4];
	for (std::size_t i = 0; i < b.size() && i < max; i++) {
		std::snprintf(x, sizeof(x), "%02x", b[i]);
		r += x;
	}
	if (b.size() > max)
		r += "...";
	return r;
}

std::string printable(std::span<const std::uint8_t> b, std::size_t max)
{
	std::string r;
	for (std::size_t i = 0; i < b.size() && i < max; i++)
		r += (b[i] >= 0x20 && b[i] < 0x7f) ? static_cast<char>(b[i]) : '.';
	return r;
}

} // namespace mpa
