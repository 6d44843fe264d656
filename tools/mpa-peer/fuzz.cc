// SPDX-License-Identifier: GPL-2.0
// The mutator of mpa-peer's fuzzer (see fuzz.h).
#include "fuzz.h"

#include <algorithm>
#include <cstdio>

#include "fmt.h"

namespace fuzz {
namespace {

using mpa::Bytes;
using peer::fmt;

void note(std::string &what, const std::string &s)
{
	what += (what.empty() ? "" : ",") + s;
}

Bytes pattern(std::size_t n, std::uint8_t seed)
{
	Bytes b(n);
	for (std::size_t i = 0; i < n; i++)
		b[i] = static_cast<std::uint8_t>(seed + i);
	return b;
}

void put32(Bytes &b, std::size_t at, std::uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[at + i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}

void put64(Bytes &b, std::size_t at, std::uint64_t v)
{
	put32(b, at, static_cast<std::uint32_t>(v >> 32));
	put32(b, at + 4, static_cast<std::uint32_t>(v));
}

// A valid request: revision 1 or 2 (enhanced, IRD/ORD; @p2p with RTRs
// offered), CRC as asked, some private data.
mpa::Frame good_request(Rng &r, bool rev2, bool crc, bool p2p)
{
	std::uint8_t flags = crc ? mpa::kFlagCrc : 0;
	Bytes pd;
	if (rev2) {
		flags |= mpa::kFlagEnhanced;
		mpa::IrdOrd io;
		io.ird = static_cast<std::uint16_t>(r.below(17));
		io.ord = static_cast<std::uint16_t>(r.below(17));
		io.p2p = p2p;
		if (p2p) {
			do {
				io.send_rtr = r.chance(50);
				io.write_rtr = r.chance(50);
				io.read_rtr = r.chance(50);
			} while (!mpa::rtr_count(io));
		}
		pd = mpa::build_ird_ord(io);
	}
	static const std::size_t user_pd[] = {0, 0, 1, 16, 100, 255};
	Bytes more = pattern(r.pick(user_pd), static_cast<std::uint8_t>(r.next()));
	pd.insert(pd.end(), more.begin(), more.end());
	return mpa::make_frame(false, rev2 ? 2 : 1, flags, std::move(pd));
}

// Field-level mutations of a request or reply frame.
void mutate_frame(Rng &r, mpa::Frame &f, std::string &what)
{
	int n = 1 + static_cast<int>(r.below(3));
	for (int i = 0; i < n; i++) {
		switch (r.below(7)) {
		case 0: {
			static const char *const keys[] = {
				"MPA ID Req Frame", "MPA ID Rep Frame", "MPA ID Bad Frame",
				"mpa id req frame", "", "MPA ID Req Fram\xff",
			};
			f.key = r.pick(keys);
			note(what, "key");
			break;
		}
		case 1:
			f.flags = static_cast<std::uint8_t>(r.next());
			note(what, fmt("flags=0x%02x", f.flags));
			break;
		case 2: {
			static const std::uint8_t revs[] = {0, 1, 2, 3, 4, 0x7f, 0x80, 0xff};
			f.rev = r.pick(revs);
			note(what, fmt("rev=%u", f.rev));
			break;
		}
		case 3: {
			const std::uint16_t real = static_cast<std::uint16_t>(f.pd.size());
			const std::uint16_t lens[] = {
				0, 1, 2, 3, 4, 5, 511, 512, 513, 1024, 0xffff,
				static_cast<std::uint16_t>(real - 1), static_cast<std::uint16_t>(real + 1),
				static_cast<std::uint16_t>(real + 100),
			};
			f.pd_length = r.pick(lens);
			note(what, fmt("pd_length=%u(pd %u)", f.pd_length, real));
			break;
		}
		case 4:
			// the IRD/ORD words (or the first private data bytes)
			if (f.pd.size() < 4)
				f.pd.resize(4);
			put32(f.pd, 0, value32(r));
			f.pd_length = static_cast<std::uint16_t>(f.pd.size());
			note(what, fmt("irdord=%s", mpa::hex(std::span(f.pd).first(4)).c_str()));
			break;
		case 5: {
			// more private data than claimed, or less
			std::size_t keep = r.below(static_cast<std::uint32_t>(f.pd.size()) + 1);
			f.pd.resize(r.chance(50) ? keep : f.pd.size() + 1 + r.below(600));
			note(what, fmt("pd_bytes=%zu", f.pd.size()));
			break;
		}
		default:
			f.flags ^= static_cast<std::uint8_t>(1u << r.below(8));
			note(what, fmt("flagbit->0x%02x", f.flags));
			break;
		}
	}
}

// After mutating: a truncation (then FIN, or silence) or byte-level noise.
void mutate_wire(Rng &r, Bytes &wire, bool &fin, std::string &what)
{
	if (r.chance(20)) {
		std::size_t n = r.below(static_cast<std::uint32_t>(wire.size()));
		wire.resize(n);
		fin = r.chance(75);
		note(what, fmt("cut@%zu%s", n, fin ? "+fin" : ""));
	} else if (r.chance(30)) {
		mutate_bytes(r, wire, 1 + static_cast<int>(r.below(4)), what);
	}
}

struct Queues {
	std::uint32_t msn[3] = {1, 1, 1};
};

// One DDP segment with plausible fields, then some of them broken.
mpa::Segment fuzz_segment(Rng &r, Queues &q, std::string &what)
{
	static const std::uint8_t ops[] = {
		mpa::kOpWrite, mpa::kOpWrite, mpa::kOpReadReq, mpa::kOpReadReq, mpa::kOpReadResp,
		mpa::kOpSend, mpa::kOpSend, mpa::kOpSend, 4, 5, 6, mpa::kOpTerminate, 8, 12, 15,
	};
	mpa::Segment s;
	s.opcode = r.pick(ops);
	s.tagged = s.opcode == mpa::kOpWrite || s.opcode == mpa::kOpReadResp;
	s.last = r.chance(85);
	std::uint32_t qn = s.opcode == mpa::kOpReadReq ? 1 : s.opcode == mpa::kOpTerminate ? 2 : 0;
	s.qn = qn;
	s.msn = q.msn[qn];
	s.mo = 0;
	s.stag = r.chance(20) ? 0 : value32(r);
	s.to = r.chance(30) ? 0 : value64(r);
	static const std::size_t lens[] = {0, 0, 1, 4, 16, 64, 100, 512, 1000, 1448, 4000, 9000};
	s.payload = pattern(r.pick(lens), static_cast<std::uint8_t>(r.next()));
	if (s.opcode == mpa::kOpReadReq) {
		Bytes rr(mpa::kReadReqLen);
		put32(rr, 0, value32(r)); // sink STag
		put64(rr, 4, value64(r)); // sink TO
		put32(rr, 12, r.chance(50) ? static_cast<std::uint32_t>(r.below(8192)) : value32(r));
		put32(rr, 16, value32(r)); // source STag
		put64(rr, 20, value64(r)); // source TO
		if (r.chance(15))
			rr.resize(r.below(mpa::kReadReqLen));
		s.payload = rr;
	} else if (s.opcode == mpa::kOpTerminate) {
		Bytes t(4 + r.below(48));
		for (auto &b : t)
			b = static_cast<std::uint8_t>(r.next());
		s.payload = t;
	}
	note(what, mpa::describe(s).substr(0, 24));
	// the fields of the headers
	int n = static_cast<int>(r.below(3));
	for (int i = 0; i < n; i++) {
		switch (r.below(9)) {
		case 0: s.tagged = !s.tagged; note(what, "T^"); break;
		case 1: s.last = !s.last; note(what, "L^"); break;
		case 2: s.ddp_version = static_cast<std::uint8_t>(r.below(4)); note(what, fmt("dv=%u", s.ddp_version)); break;
		case 3: s.rdmap_version = static_cast<std::uint8_t>(r.below(4)); note(what, fmt("rv=%u", s.rdmap_version)); break;
		case 4: s.qn = r.chance(50) ? r.below(4) : value32(r); note(what, fmt("qn=%u", s.qn)); break;
		case 5: s.msn = r.chance(50) ? s.msn + r.below(3) - 1 : value32(r); note(what, fmt("msn=%u", s.msn)); break;
		case 6: s.mo = r.chance(50) ? r.below(8192) : value32(r); note(what, fmt("mo=%u", s.mo)); break;
		case 7: s.stag = value32(r); note(what, fmt("stag=0x%x", s.stag)); break;
		default: s.opcode = static_cast<std::uint8_t>(r.below(16)); note(what, fmt("op=%u", s.opcode)); break;
		}
	}
	if (!s.tagged && s.qn < 3 && s.last)
		q.msn[s.qn]++;
	return s;
}

// Frame @ulpdu; sometimes with a wrong length, a wrong CRC or noise.
Bytes fuzz_frame(Rng &r, const Bytes &ulpdu, bool crc, std::string &what)
{
	if (!r.chance(25))
		return mpa::build_fpdu(ulpdu, crc);
	switch (r.below(4)) {
	case 0: {
		static const int deltas[] = {-4, -2, -1, 1, 2, 4, 64, 4000};
		int d = r.chance(20) ? -static_cast<int>(ulpdu.size()) : r.pick(deltas);
		note(what, fmt("len%+d", d));
		return mpa::build_fpdu(ulpdu, crc, d);
	}
	case 1:
		note(what, "crc^");
		return mpa::build_fpdu(ulpdu, crc, 0, 1u << r.below(32));
	case 2: {
		Bytes f = mpa::build_fpdu(ulpdu, crc);
		f.resize(r.below(static_cast<std::uint32_t>(f.size())));
		note(what, fmt("fpdu-cut@%zu", f.size()));
		return f;
	}
	default: {
		Bytes f = mpa::build_fpdu(ulpdu, crc);
		mutate_bytes(r, f, 1 + static_cast<int>(r.below(3)), what);
		return f;
	}
	}
}

// A mutated RTR: the right message with a field broken, another message,
// or nothing but noise.
Bytes fuzz_rtr(Rng &r, mpa::Rtr rtr, bool crc, std::string &what)
{
	mpa::Segment s = mpa::rtr_segment(rtr);
	switch (r.below(8)) {
	case 0: s.opcode = static_cast<std::uint8_t>(r.below(16)); note(what, fmt("rtr-op=%u", s.opcode)); break;
	case 1: s.payload = pattern(1 + r.below(64), 1); note(what, "rtr-payload"); break;
	case 2: s.msn = value32(r); note(what, fmt("rtr-msn=%u", s.msn)); break;
	case 3: s.last = false; note(what, "rtr-not-last"); break;
	case 4: s.tagged = !s.tagged; note(what, "rtr-T^"); break;
	case 5:
		if (s.payload.size() >= 16)
			put32(s.payload, 12, value32(r)); // READ RTR size
		s.qn = r.below(4);
		note(what, fmt("rtr-size/qn=%u", s.qn));
		break;
	case 6: s.mo = value32(r); s.stag = value32(r); note(what, "rtr-mo/stag"); break;
	default:
		note(what, "rtr-good");
		break;
	}
	return fuzz_frame(r, mpa::build_segment(s), crc, what);
}

} // namespace

std::uint64_t Rng::next()
{
	std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

std::uint32_t Rng::below(std::uint32_t n)
{
	return n ? static_cast<std::uint32_t>(next() % n) : 0;
}

bool Rng::chance(unsigned percent)
{
	return below(100) < percent;
}

std::uint64_t input_seed(std::uint64_t seed, std::uint64_t index)
{
	Rng r(seed ^ (index * 0xd1342543de82ef95ULL));
	return r.next();
}

const char *kind_name(Kind k)
{
	switch (k) {
	case Kind::Request: return "request";
	case Kind::Rtr: return "rtr";
	case Kind::Fpdu: return "fpdu";
	case Kind::Reply: return "reply";
	}
	return "?";
}

std::uint16_t value16(Rng &r)
{
	static const std::uint16_t v[] = {0, 1, 2, 3, 4, 0x7f, 0x80, 0xff, 0x100, 0x1ff, 0x200,
					  0x201, 0x3fff, 0x4000, 0x7fff, 0x8000, 0xfffe, 0xffff};
	return r.chance(80) ? r.pick(v) : static_cast<std::uint16_t>(r.next());
}

std::uint32_t value32(Rng &r)
{
	static const std::uint32_t v[] = {0, 1, 2, 0xff, 0x100, 0x1000, 0xffff, 0x10000,
					  0x7fffff00, 0x7fffffff, 0x80000000, 0xfffffffe,
					  0xffffffff};
	return r.chance(75) ? r.pick(v) : static_cast<std::uint32_t>(r.next());
}

std::uint64_t value64(Rng &r)
{
	static const std::uint64_t v[] = {0, 1, 0xfff, 0x1000, 0xffffffffULL, 0x100000000ULL,
					  0x7fffffffffffffffULL, 0x8000000000000000ULL,
					  0xfffffffffffff000ULL, ~0ULL};
	return r.chance(75) ? r.pick(v) : r.next();
}

void mutate_bytes(Rng &r, Bytes &b, int n, std::string &what)
{
	for (int i = 0; i < n; i++) {
		std::uint32_t at = r.below(static_cast<std::uint32_t>(b.size()) + 1);
		switch (b.empty() ? 2 : r.below(5)) {
		case 0:
			if (at == b.size())
				at--;
			b[at] ^= static_cast<std::uint8_t>(1u << r.below(8));
			note(what, fmt("flip@%u", at));
			break;
		case 1: {
			static const std::uint8_t v[] = {0, 1, 0x7f, 0x80, 0xff};
			if (at == b.size())
				at--;
			b[at] = r.pick(v);
			note(what, fmt("set@%u=%02x", at, b[at]));
			break;
		}
		case 2: {
			std::uint32_t len = 1 + r.below(16);
			Bytes ins(len);
			for (auto &x : ins)
				x = static_cast<std::uint8_t>(r.next());
			b.insert(b.begin() + at, ins.begin(), ins.end());
			note(what, fmt("ins@%u+%u", at, len));
			break;
		}
		case 3: {
			if (at == b.size())
				at--;
			std::uint32_t len = std::min<std::uint32_t>(1 + r.below(8),
								    static_cast<std::uint32_t>(b.size()) - at);
			b.erase(b.begin() + at, b.begin() + at + len);
			note(what, fmt("del@%u-%u", at, len));
			break;
		}
		default:
			b.resize(at);
			note(what, fmt("trunc@%u", at));
			break;
		}
	}
}

Input make_input(std::uint64_t seed, std::uint64_t index)
{
	Rng r(input_seed(seed, index));
	Input in;
	std::uint32_t k = r.below(100);
	in.kind = k < 35 ? Kind::Request : k < 50 ? Kind::Rtr : Kind::Fpdu;
	bool rev2 = in.kind == Kind::Rtr || r.chance(50);
	bool p2p = in.kind == Kind::Rtr || (rev2 && r.chance(30));
	bool crc = in.kind != Kind::Request || r.chance(50);
	in.req = good_request(r, rev2, crc, p2p);
	in.fpdu_seed = r.next();
	in.rst = r.chance(30);
	if (in.kind == Kind::Request) {
		mpa::Frame f = in.req;
		if (r.chance(85))
			mutate_frame(r, f, in.what);
		in.wire = mpa::build_frame(f);
		mutate_wire(r, in.wire, in.fin_after_request, in.what);
		// the request as sent, where it parses, judges the reply
		auto p = mpa::parse_frame(in.wire);
		if (p.status == mpa::ParseStatus::Ok)
			in.req = p.frame;
	} else {
		in.wire = mpa::build_frame(in.req);
	}
	return in;
}

std::vector<Bytes> make_fpdus(Kind kind, std::uint64_t fpdu_seed, mpa::Rtr rtr, bool crc,
			      std::string &what)
{
	Rng r(fpdu_seed);
	std::vector<Bytes> out;
	if (kind == Kind::Rtr) {
		out.push_back(fuzz_rtr(r, rtr, crc, what));
		if (r.chance(30)) // and one more message behind it
			out.push_back(mpa::build_fpdu(mpa::build_segment(mpa::rtr_segment(mpa::Rtr::Send)), crc));
		return out;
	}
	if (kind != Kind::Fpdu && kind != Kind::Reply)
		return out;
	Queues q;
	if (rtr != mpa::Rtr::None) {
		out.push_back(mpa::build_fpdu(mpa::build_segment(mpa::rtr_segment(rtr)), crc));
		if (rtr == mpa::Rtr::Send)
			q.msn[0]++;
		else if (rtr == mpa::Rtr::Read)
			q.msn[1]++;
	}
	int n = 1 + static_cast<int>(r.below(3));
	for (int i = 0; i < n; i++) {
		mpa::Segment s = fuzz_segment(r, q, what);
		out.push_back(fuzz_frame(r, mpa::build_segment(s), crc, what));
	}
	return out;
}

ReplyInput make_reply(std::uint64_t seed, std::uint64_t index, const mpa::Frame &req)
{
	Rng r(input_seed(seed, index));
	ReplyInput in;
	std::uint8_t rev = req.rev >= 2 ? 2 : 1;
	std::uint8_t flags = static_cast<std::uint8_t>(req.flags & mpa::kFlagCrc);
	if (r.chance(20))
		flags |= mpa::kFlagCrc;
	Bytes pd;
	auto io = mpa::parse_ird_ord(req.pd);
	if (rev == 2 && (req.flags & mpa::kFlagEnhanced) && io) {
		flags |= mpa::kFlagEnhanced;
		mpa::IrdOrd rep;
		rep.ird = std::min<std::uint16_t>(io->ord, static_cast<std::uint16_t>(r.below(9)));
		rep.ord = std::min<std::uint16_t>(io->ird, static_cast<std::uint16_t>(r.below(9)));
		if (io->p2p) {
			rep.p2p = true;
			// the first offered type, as a responder would pick
			rep.write_rtr = io->write_rtr;
			rep.read_rtr = !rep.write_rtr && io->read_rtr;
			rep.send_rtr = !rep.write_rtr && !rep.read_rtr && io->send_rtr;
			in.rtr = mpa::rtr_of(rep);
		}
		pd = mpa::build_ird_ord(rep);
	}
	static const std::size_t user_pd[] = {0, 0, 8, 100, 250};
	Bytes more = pattern(r.pick(user_pd), 3);
	pd.insert(pd.end(), more.begin(), more.end());
	mpa::Frame f = mpa::make_frame(true, rev, flags, std::move(pd));
	if (r.chance(85)) {
		mutate_frame(r, f, in.what);
		if (r.chance(15)) {
			f.flags |= mpa::kFlagReject;
			note(in.what, "R");
		}
	}
	// CRC when either end asks; markers toward us when the reply asks
	in.crc = (req.flags | f.flags) & mpa::kFlagCrc;
	in.markers = f.flags & mpa::kFlagMarkers;
	in.wire = mpa::build_frame(f);
	mutate_wire(r, in.wire, in.fin_after_reply, in.what);
	in.fpdu_seed = r.next();
	in.rst = r.chance(30);
	return in;
}

} // namespace fuzz
