// SPDX-License-Identifier: GPL-2.0
// The scenarios of mpa-peer (see main.cc for the command line).
#pragma once

#include <set>
#include <string>

#include "mpa.h"
#include "net.h"

namespace peer {

struct Options {
	std::string addr;
	std::uint16_t port = 0;
	net::Addr dest;
	net::Addr src; // --src: the local address to connect from (len 0: any)
	long timeout_ms = 15000;
	std::set<std::string> expect;
	std::string scenario;
	int rev = -1;	 // -1: the scenario's default
	int crc = -1;	 // -1: the scenario's default
	bool markers = false;
	bool p2p = false;
	std::set<std::string> rtr; // offered RTR types (send, write, read)
	bool send_rtr = true;	   // false: agree on an RTR, never send it
	int ird = 1, ord = 1;
	bool enhanced = true; // revision 2: the enhanced flag and IRD/ORD words
	int pd = 0;	      // consumer private data bytes (after IRD/ORD)
	int pd_length = -1;   // PD_Length to claim (-1: what is sent)
	int pd_send = -1;     // PD bytes to send (-1: as built)
	int send_bytes = -1;  // truncated: bytes of the frame to send
	int fin = -1;	      // FIN after sending (-1: the scenario's default)
	int trailer = 0;      // bytes sent in a second write after the request
	long gap_ms = 0;      // pause before the trailer or FIN
	int count = 1000;
	long interval_ms = 250;
	std::string corrupt = "crc";
	long settle_ms = 500;
	long hold_ms = -1;
	int min_fast = -1;
	long fast_ms = 1000;
	// fuzz, fuzz-listen (fuzzrun.h); count is the number of inputs
	std::uint64_t seed = 0x5eed;
	long first = 0;	   // index of the first input
	int workers = 8;   // inputs at once (fuzz)
	long wait_ms = 300; // per input, for what follows its FPDUs
	long reply_wait_ms = 3000; // for the listener's reply
	bool verbose = false; // a line per input, not only per finding
};

struct Result {
	std::string outcome; // empty: a local error (detail says which)
	std::string detail;
	double secs = 0;
	bool extra_ok = true; // scenario-specific conditions (idle --min-fast)
};

// The request frame a scenario sends (pure; unit-tested).
mpa::Frame request_frame(const Options &o);

// What a reply to @req means (pure; unit-tested).
struct Verdict {
	std::string outcome; // accept, reject, bad-reply
	std::string detail;
	bool crc = false;	      // CRC in use on the FPDUs
	mpa::Rtr rtr = mpa::Rtr::None; // the RTR this end must send
};
Verdict judge_reply(const mpa::Frame &req, const mpa::Frame &rep);

// The corrupted FPDU of the fpdu scenario (pure; unit-tested); empty when
// @kind is unknown.
mpa::Bytes corrupt_fpdu(const std::string &kind, bool crc);

Result run(const Options &o);

} // namespace peer
