// SPDX-License-Identifier: GPL-2.0
// MPA (RFC 5044, RFC 6581) and DDP/RDMAP (RFC 5041, RFC 5040) wire formats,
// as the adversarial peer builds and parses them. Pure functions on byte
// vectors: no I/O here (tests/mpa_test.cc covers all of it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mpa {

using Bytes = std::vector<std::uint8_t>;

inline constexpr std::size_t kKeyLen = 16;
inline constexpr std::size_t kHdrLen = 20; // key + bits/rev + PD_Length
inline constexpr std::size_t kMaxPd = 512;
inline constexpr char kKeyReq[] = "MPA ID Req Frame";
inline constexpr char kKeyRep[] = "MPA ID Rep Frame";

// The flag byte of the request/reply header (the byte before Rev).
inline constexpr std::uint8_t kFlagMarkers = 0x80;
inline constexpr std::uint8_t kFlagCrc = 0x40;
inline constexpr std::uint8_t kFlagReject = 0x20;
inline constexpr std::uint8_t kFlagEnhanced = 0x10; // RFC 6581 "H"

// RFC 6581 enhanced private data: the first 4 bytes, two big-endian words.
inline constexpr std::uint16_t kIrdOrdMask = 0x3fff;
inline constexpr std::uint16_t kIrdP2p = 0x8000;      // IRD word "A"
inline constexpr std::uint16_t kIrdSendRtr = 0x4000;  // IRD word "B"
inline constexpr std::uint16_t kOrdWriteRtr = 0x8000; // ORD word "C"
inline constexpr std::uint16_t kOrdReadRtr = 0x4000;  // ORD word "D"

enum class Rtr { None, Send, Write, Read };
const char *rtr_name(Rtr r);

// One MPA request or reply frame. Everything is settable, so that a frame
// can be wrong on purpose: pd_length is what the header claims, pd what is
// actually sent after it.
struct Frame {
	std::string key = kKeyReq; // exactly kKeyLen bytes are sent (padded/cut)
	std::uint8_t flags = 0;
	std::uint8_t rev = 1;
	std::uint16_t pd_length = 0;
	Bytes pd;
};

Bytes build_frame(const Frame &f);
// A well-formed frame: pd_length = pd.size().
Frame make_frame(bool reply, std::uint8_t rev, std::uint8_t flags, Bytes pd);

// RFC 6581 IRD/ORD words with their control bits.
struct IrdOrd {
	std::uint16_t ird = 0;
	std::uint16_t ord = 0;
	bool p2p = false;
	bool send_rtr = false;
	bool write_rtr = false;
	bool read_rtr = false;
};
Bytes build_ird_ord(const IrdOrd &v);
std::optional<IrdOrd> parse_ird_ord(std::span<const std::uint8_t> pd);
// The RTR types an IRD/ORD pair offers (request) or picks (reply).
int rtr_count(const IrdOrd &v);
Rtr rtr_of(const IrdOrd &v); // the first set, None when none

enum class ParseStatus { Ok, Short, BadKey };
struct Parsed {
	ParseStatus status = ParseStatus::Short;
	Frame frame;
	std::size_t need = kHdrLen; // bytes needed for the whole frame
	bool reply = false;
};
// Parse a frame at the start of @buf. Short while incomplete (need says how
// many bytes the frame has in all); the PD is taken as the header claims,
// whatever its size.
Parsed parse_frame(std::span<const std::uint8_t> buf);

// CRC32c (Castagnoli), as MPA computes it over an FPDU.
std::uint32_t crc32c(std::span<const std::uint8_t> data, std::uint32_t crc = 0);

// DDP/RDMAP headers (no markers).
inline constexpr std::uint8_t kDdpTagged = 0x80;
inline constexpr std::uint8_t kDdpLast = 0x40;
inline constexpr std::uint8_t kDdpVersion = 0x01;
inline constexpr std::uint8_t kRdmapVersion = 0x40; // RV = 01 in the top bits
enum Opcode : std::uint8_t {
	kOpWrite = 0,
	kOpReadReq = 1,
	kOpReadResp = 2,
	kOpSend = 3,
	kOpTerminate = 7,
};
inline constexpr std::size_t kTaggedHdrLen = 14;
inline constexpr std::size_t kUntaggedHdrLen = 18;
inline constexpr std::size_t kReadReqLen = 28; // after the untagged header

// A DDP segment (the ULPDU of one FPDU).
struct Segment {
	bool tagged = false;
	bool last = true;
	std::uint8_t ddp_version = kDdpVersion;
	std::uint8_t rdmap_version = 1;
	std::uint8_t opcode = kOpSend;
	std::uint32_t stag = 0; // tagged: STag; untagged: invalidate STag
	std::uint64_t to = 0;	// tagged offset
	std::uint32_t qn = 0, msn = 1, mo = 0;
	Bytes payload;
};
Bytes build_segment(const Segment &s);
std::optional<Segment> parse_segment(std::span<const std::uint8_t> ulpdu);

// The zero-length RTR message of RFC 6581, as a DDP segment.
Segment rtr_segment(Rtr r);

// An FPDU: ULPDU_Length, ULPDU, pad to 4, CRC (zero when CRC is off).
// @length_delta skews the ULPDU_Length field, @crc_xor the CRC (corruption).
Bytes build_fpdu(std::span<const std::uint8_t> ulpdu, bool crc,
		 int length_delta = 0, std::uint32_t crc_xor = 0);
struct FpduParsed {
	ParseStatus status = ParseStatus::Short;
	std::size_t size = 2; // bytes of the whole FPDU
	Bytes ulpdu;
	bool crc_ok = true;
};
FpduParsed parse_fpdu(std::span<const std::uint8_t> buf, bool crc);

// A TERMINATE's control word (RFC 5040 5.2).
struct TermInfo {
	std::uint8_t layer = 0, etype = 0, ecode = 0;
};
std::optional<TermInfo> parse_terminate(const Segment &s);
std::string describe(const Segment &s);

std::string hex(std::span<const std::uint8_t> b, std::size_t max = 64);
std::string printable(std::span<const std::uint8_t> b, std::size_t max = 64);

} // namespace mpa
