// SPDX-License-Identifier: GPL-2.0
// The fuzzer's network runs (see fuzz.h for the inputs):
//   fuzz         connect to a listener --count times (inputs --first ...),
//                --workers at once, each input a request, an RTR or FPDUs;
//   fuzz-listen  listen on ADDR:PORT and answer --count connections of an
//                RDMA client with mutated replies (and FPDUs after them).
// Each input waits --wait ms at most for the listener's answer. Findings
// (the listener refused a connection, or answered with a reply or an FPDU
// that breaks MPA) make the outcome "findings"; fewer inputs than --count
// (fuzz-listen: clients that did not come within -t) make it "short"; else
// it is "fuzzed".
#pragma once

#include <map>
#include <string>

#include "scenario.h"

namespace fuzz {

// What one input ended in: @key is the path (kind:outcome, with a
// TERMINATE's layer/etype/ecode), @finding a broken rule.
struct InputResult {
	std::string key;
	std::string detail;
	bool finding = false;
};

// Figures of a run, and its summary lines.
struct Summary {
	std::map<std::string, unsigned> paths; // key -> inputs
	std::map<std::string, unsigned> kinds;
	unsigned inputs = 0, findings = 0;
	std::string report(std::uint64_t seed, double secs) const;
};
void account(Summary &s, const std::string &kind, const InputResult &r);

peer::Result run_connect(const peer::Options &o);
peer::Result run_listen(const peer::Options &o);

} // namespace fuzz
