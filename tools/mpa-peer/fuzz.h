// SPDX-License-Identifier: GPL-2.0
// The seeded mutation fuzzer of mpa-peer: MPA requests, replies, RTRs and
// FPDUs (DDP/RDMAP headers, lengths, STags, MSN/MO, TERMINATEs). Pure
// functions here (tests/fuzz_test.cc covers them); the network runs are in
// fuzzrun.cc. Every input is a function of (seed, index) alone, so any input
// of a run can be replayed by itself (mpa-peer --seed S --only I).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mpa.h"

namespace fuzz {

// splitmix64: small, fast and the same sequence on every platform (the
// std:: distributions are not).
class Rng {
public:
	explicit Rng(std::uint64_t seed) : s_(seed) {}
	std::uint64_t next();
	std::uint32_t below(std::uint32_t n); // [0, n); 0 when n is 0
	bool chance(unsigned percent);
	template <class T> T pick(std::span<const T> v) { return v[below(static_cast<std::uint32_t>(v.size()))]; }
	template <class T, std::size_t N> T pick(const T (&v)[N]) { return v[below(N)]; }

private:
	std::uint64_t s_;
};

// The seed of input @index of the run with @seed.
std::uint64_t input_seed(std::uint64_t seed, std::uint64_t index);

// What an input attacks: the request parser (host CM, passive), the RTR
// check of a peer-to-peer responder (softrnic), the FPDU receive path
// (softrnic), or the reply parser (host CM, active).
enum class Kind { Request, Rtr, Fpdu, Reply };
const char *kind_name(Kind k);

// One input of the active side (the fuzzer connects to a listener).
struct Input {
	Kind kind = Kind::Request;
	mpa::Frame req;		  // the request as built (judges the reply)
	mpa::Bytes wire;	  // what is sent (Kind::Request: mutated)
	bool fin_after_request = false;
	std::uint64_t fpdu_seed = 0; // make_fpdus() once the reply is known
	bool rst = false;	  // leave with RST (else FIN)
	std::string what;	  // the mutations, for the log
};
Input make_input(std::uint64_t seed, std::uint64_t index);

// The FPDUs sent after an accepted handshake. Kind::Rtr: a mutated RTR of
// type @rtr. Kind::Fpdu: after a good RTR when @rtr is not None, 1 to 3
// segments with mutated fields, framed for @crc, sometimes with a broken
// length, CRC, or bytes. Other kinds: none.
std::vector<mpa::Bytes> make_fpdus(Kind kind, std::uint64_t fpdu_seed, mpa::Rtr rtr, bool crc,
				   std::string &what);

// Passive side: a reply to @req (the host CM's request as parsed), valid
// to start with, then mutated; fpdu_seed as above for what follows it.
struct ReplyInput {
	mpa::Bytes wire;
	bool fin_after_reply = false;
	bool rst = false;
	bool crc = false;	   // CRC in use if the initiator takes the reply
	bool markers = false;	   // ... and markers in what it sends us
	mpa::Rtr rtr = mpa::Rtr::None; // the RTR the reply picked
	std::uint64_t fpdu_seed = 0;
	std::string what;
};
ReplyInput make_reply(std::uint64_t seed, std::uint64_t index, const mpa::Frame &req);

// @n byte-level mutations of @b (flip a bit, set an interesting value,
// insert, delete, truncate); @what gets their description.
void mutate_bytes(Rng &r, mpa::Bytes &b, int n, std::string &what);

// An interesting 16/32/64-bit value (0, 1, the edges of signed and
// unsigned ranges, powers of two around the protocol's limits, random).
std::uint16_t value16(Rng &r);
std::uint32_t value32(Rng &r);
std::uint64_t value64(Rng &r);

} // namespace fuzz
