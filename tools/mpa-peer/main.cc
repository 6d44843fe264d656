// SPDX-License-Identifier: GPL-2.0
// mpa-peer: an adversarial MPA peer. It speaks raw TCP to an iWARP listener,
// plays one scenario, reports what the listener did and exits 0 only when
// that is one of the outcomes expected on the command line (`-e`).
//
//   mpa-peer -a ADDR -p PORT -e OUTCOME[,OUTCOME...] [options] SCENARIO
//
// Scenarios (the request is MPA revision --rev, default 1):
// Every scenario: --src ADDR connects from that local address. The handshake
// scenarios (all but idle and hold-port): --fin sends a FIN, --trailer N N
// bytes in a second write, right after the request (--gap MS later), before
// any answer.
//
//   good              a well-formed request; with --rev 2 --p2p the RTR
//                     (the type the reply picked) follows the reply, or
//                     with --no-rtr never does (silence until -t)
//   bad-key           request key "MPA ID Bad Frame"
//   bad-rev           revision --rev (default 3)
//   pd-over-max       PD_Length --pd-length (default 513) > 512, all sent
//   pd-short          PD_Length --pd-length (default 100), --pd-send (default
//                     10) bytes sent, then silence (--fin: then FIN)
//   truncated         only --send-bytes (default 10) bytes of a good
//                     request, then FIN (--no-fin: then silence)
//   reply-as-request  a reply frame ("MPA ID Rep Frame") to the listener
//   ird-ord           revision 2 with the IRD/ORD/RTR words as given:
//                     --ird --ord --p2p --rtr LIST (send,write,read,none)
//   enhanced-short    revision 2, enhanced flag, PD_Length 2 (no room for IRD/ORD)
//   slowloris         a request with --pd-length (default 512) PD, one byte
//                     every --interval ms (default 250), never the last byte
//   idle              --count connects (default 1000), no byte sent, held
//                     until the listener closes them or -t passes
//   fpdu              a good handshake (CRC on unless --no-crc), then one
//                     corrupted FPDU: --corrupt crc|ddp-version|rdmap-version|
//                     qn|msn|stag|opcode|short-len, or a well-formed
//                     TERMINATE of its own (--corrupt terminate), after
//                     which it keeps TCP open (the listener must close)
//   hold-port         bind (and listen on) a TCP socket at ADDR:PORT, hold it
//                     for --hold ms (default: -t)
//   fuzz              the seeded mutation fuzzer (fuzz.h, fuzzrun.h): --count
//                     inputs (mutated requests, RTRs, FPDUs after a good
//                     handshake) from index --first, --workers connections
//                     at once, --reply-wait ms (default 3000) for the MPA
//                     reply, --wait ms (300) for what follows the FPDUs; --seed S (default
//                     0x5eed) makes the run; --first I --count 1 replays
//                     input I; --verbose prints every input
//   fuzz-listen       the same as a listener at ADDR:PORT: --count
//                     connections of an RDMA client get mutated replies
//                     (and FPDUs), within -t in all
//
// Outcomes: accept (a valid reply, RTR sent, quiet for --settle ms), reject
// (reply with the R bit, then the listener closed), reject-open (R bit, not
// closed by -t), close (FIN without a reply), rst, timeout, refused (TCP
// connect failed), terminate (TERMINATE received), bad-reply (a reply that
// breaks MPA), bound, eaddrinuse. fuzz, fuzz-listen: fuzzed (--count inputs,
// no finding), findings (a refused connect, or a reply or FPDU that breaks
// MPA), short (no finding, but fewer than --count inputs: fuzz-listen's
// clients did not all come within -t), after the figures (inputs, distinct
// outcomes, seed) and a line per finding. idle: close (every connection ended by -t),
// open (some still open); --min-fast N asks that at least N connections were
// refused or closed within --fast ms (default 1000) of their connect.
//
// Exit status: 0 expected outcome, 1 another outcome, 2 usage or local error.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <set>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "mpa.h"
#include "net.h"
#include "scenario.h"

using mpa::Bytes;
using net::Clock;

namespace {

[[noreturn]] void usage(const char *why)
{
	std::fprintf(stderr, "mpa-peer: %s\n(see the head of tools/mpa-peer/main.cc)\n", why);
	std::exit(2);
}

long num(const char *s, const char *what)
{
	char *end = nullptr;
	errno = 0;
	long v = std::strtol(s, &end, 0);
	if (errno || !end || *end)
		usage((std::string("bad number for ") + what + ": " + s).c_str());
	return v;
}

std::set<std::string> split(const std::string &s)
{
	std::set<std::string> r;
	std::stringstream ss(s);
	std::string w;
	while (std::getline(ss, w, ','))
		if (!w.empty())
			r.insert(w);
	return r;
}

peer::Options parse(int argc, char **argv)
{
	peer::Options o;
	enum {
		kRev = 256, kCrc, kNoCrc, kMarkers, kP2p, kRtr, kIrd, kOrd, kPd, kPdLength,
		kPdSend, kSendBytes, kFin, kNoFin, kCount, kInterval, kCorrupt, kSettle,
		kHold, kMinFast, kFast, kNoEnhanced, kNoRtr, kSrc, kTrailer, kGap, kSeed, kFirst,
		kWorkers, kWait, kVerbose, kReplyWait,
	};
	static const option longopts[] = {
		{"addr", required_argument, nullptr, 'a'},
		{"port", required_argument, nullptr, 'p'},
		{"timeout", required_argument, nullptr, 't'},
		{"expect", required_argument, nullptr, 'e'},
		{"rev", required_argument, nullptr, kRev},
		{"crc", no_argument, nullptr, kCrc},
		{"no-crc", no_argument, nullptr, kNoCrc},
		{"markers", no_argument, nullptr, kMarkers},
		{"p2p", no_argument, nullptr, kP2p},
		{"rtr", required_argument, nullptr, kRtr},
		{"no-rtr", no_argument, nullptr, kNoRtr},
		{"ird", required_argument, nullptr, kIrd},
		{"ord", required_argument, nullptr, kOrd},
		{"no-enhanced", no_argument, nullptr, kNoEnhanced},
		{"pd", required_argument, nullptr, kPd},
		{"pd-length", required_argument, nullptr, kPdLength},
		{"pd-send", required_argument, nullptr, kPdSend},
		{"send-bytes", required_argument, nullptr, kSendBytes},
		{"fin", no_argument, nullptr, kFin},
		{"no-fin", no_argument, nullptr, kNoFin},
		{"count", required_argument, nullptr, kCount},
		{"interval", required_argument, nullptr, kInterval},
		{"corrupt", required_argument, nullptr, kCorrupt},
		{"settle", required_argument, nullptr, kSettle},
		{"hold", required_argument, nullptr, kHold},
		{"min-fast", required_argument, nullptr, kMinFast},
		{"fast", required_argument, nullptr, kFast},
		{"src", required_argument, nullptr, kSrc},
		{"trailer", required_argument, nullptr, kTrailer},
		{"gap", required_argument, nullptr, kGap},
		{"seed", required_argument, nullptr, kSeed},
		{"first", required_argument, nullptr, kFirst},
		{"workers", required_argument, nullptr, kWorkers},
		{"wait", required_argument, nullptr, kWait},
		{"verbose", no_argument, nullptr, kVerbose},
		{"reply-wait", required_argument, nullptr, kReplyWait},
		{nullptr, 0, nullptr, 0},
	};
	std::string src;
	int c;
	while ((c = getopt_long(argc, argv, "a:p:t:e:", longopts, nullptr)) != -1) {
		switch (c) {
		case 'a': o.addr = optarg; break;
		case 'p': o.port = static_cast<std::uint16_t>(num(optarg, "port")); break;
		case 't': o.timeout_ms = static_cast<long>(std::strtod(optarg, nullptr) * 1000); break;
		case 'e': o.expect = split(optarg); break;
		case kRev: o.rev = static_cast<int>(num(optarg, "rev")); break;
		case kCrc: o.crc = 1; break;
		case kNoCrc: o.crc = 0; break;
		case kMarkers: o.markers = true; break;
		case kP2p: o.p2p = true; break;
		case kRtr: o.rtr = split(optarg); break;
		case kNoRtr: o.send_rtr = false; break;
		case kIrd: o.ird = static_cast<int>(num(optarg, "ird")); break;
		case kOrd: o.ord = static_cast<int>(num(optarg, "ord")); break;
		case kNoEnhanced: o.enhanced = false; break;
		case kPd: o.pd = static_cast<int>(num(optarg, "pd")); break;
		case kPdLength: o.pd_length = static_cast<int>(num(optarg, "pd-length")); break;
		case kPdSend: o.pd_send = static_cast<int>(num(optarg, "pd-send")); break;
		case kSendBytes: o.send_bytes = static_cast<int>(num(optarg, "send-bytes")); break;
		case kFin: o.fin = 1; break;
		case kNoFin: o.fin = 0; break;
		case kCount: o.count = static_cast<int>(num(optarg, "count")); break;
		case kInterval: o.interval_ms = num(optarg, "interval"); break;
		case kCorrupt: o.corrupt = optarg; break;
		case kSettle: o.settle_ms = num(optarg, "settle"); break;
		case kHold: o.hold_ms = num(optarg, "hold"); break;
		case kMinFast: o.min_fast = static_cast<int>(num(optarg, "min-fast")); break;
		case kFast: o.fast_ms = num(optarg, "fast"); break;
		case kSrc: src = optarg; break;
		case kTrailer: o.trailer = static_cast<int>(num(optarg, "trailer")); break;
		case kGap: o.gap_ms = num(optarg, "gap"); break;
		case kSeed: o.seed = std::strtoull(optarg, nullptr, 0); break;
		case kFirst: o.first = num(optarg, "first"); break;
		case kWorkers: o.workers = static_cast<int>(num(optarg, "workers")); break;
		case kWait: o.wait_ms = num(optarg, "wait"); break;
		case kVerbose: o.verbose = true; break;
		case kReplyWait: o.reply_wait_ms = num(optarg, "reply-wait"); break;
		default: usage("unknown option");
		}
	}
	if (optind != argc - 1)
		usage("one SCENARIO expected");
	o.scenario = argv[optind];
	if (o.addr.empty() || !o.port)
		usage("-a ADDR and -p PORT are required");
	if (o.expect.empty())
		usage("-e OUTCOME[,OUTCOME...] is required");
	if (!net::make_addr(o.addr, o.port, o.dest))
		usage("ADDR must be a numeric IPv4 or IPv6 address");
	if (!src.empty() && (!net::make_addr(src, 0, o.src) ||
			     o.src.ss.ss_family != o.dest.ss.ss_family))
		usage("--src must be a numeric address of ADDR's family");
	return o;
}

} // namespace

int main(int argc, char **argv)
{
	std::setvbuf(stdout, nullptr, _IOLBF, 0);
	peer::Options o = parse(argc, argv);
	peer::Result r = peer::run(o);
	if (r.outcome.empty()) {
		std::printf("mpa-peer: %s: error: %s\n", o.scenario.c_str(), r.detail.c_str());
		return 2;
	}
	bool ok = o.expect.count(r.outcome) && r.extra_ok;
	std::string want;
	for (const auto &e : o.expect)
		want += (want.empty() ? "" : ",") + e;
	std::printf("mpa-peer: %s: outcome=%s after %.2f s (%s); expected %s: %s\n",
		    o.scenario.c_str(), r.outcome.c_str(), r.secs, r.detail.c_str(), want.c_str(),
		    ok ? "ok" : "MISMATCH");
	return ok ? 0 : 1;
}
