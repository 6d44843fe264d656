// SPDX-License-Identifier: GPL-2.0
// GoogleTest of mpa-peer's fuzzer: the generator (Rng), the mutator
// (determinism from the seed, what each kind of input breaks and keeps),
// the figures, and one short run against a fake listener on loopback.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <set>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "../fuzz.h"
#include "../fuzzrun.h"

using mpa::Bytes;

namespace {

TEST(FuzzRng, SplitMix64Vector)
{
	// The published first outputs of splitmix64 seeded with 0.
	fuzz::Rng r(0);
	EXPECT_EQ(r.next(), 0xe220a8397b1dcdafULL);
	EXPECT_EQ(r.next(), 0x6e789e6aa1b965f4ULL);
	EXPECT_EQ(r.next(), 0x06c45d188009454fULL);
}

TEST(FuzzRng, BoundsAndChance)
{
	fuzz::Rng r(42);
	std::set<std::uint32_t> seen;
	for (int i = 0; i < 1000; i++) {
		std::uint32_t v = r.below(7);
		ASSERT_LT(v, 7u);
		seen.insert(v);
		EXPECT_FALSE(r.chance(0));
		EXPECT_TRUE(r.chance(100));
	}
	EXPECT_EQ(seen.size(), 7u);
	EXPECT_EQ(r.below(0), 0u);
}

TEST(FuzzInput, SameSeedSameInput)
{
	for (std::uint64_t i = 0; i < 200; i++) {
		auto a = fuzz::make_input(7, i), b = fuzz::make_input(7, i);
		EXPECT_EQ(a.wire, b.wire) << i;
		EXPECT_EQ(a.what, b.what) << i;
		EXPECT_EQ(a.kind, b.kind) << i;
		EXPECT_EQ(a.fpdu_seed, b.fpdu_seed) << i;
		std::string wa, wb;
		auto fa = fuzz::make_fpdus(a.kind, a.fpdu_seed, mpa::Rtr::Write, true, wa);
		auto fb = fuzz::make_fpdus(b.kind, b.fpdu_seed, mpa::Rtr::Write, true, wb);
		EXPECT_EQ(fa, fb) << i;
		EXPECT_EQ(wa, wb) << i;
	}
}

TEST(FuzzInput, SeedAndIndexMatter)
{
	std::set<Bytes> wires, other_seed;
	for (std::uint64_t i = 0; i < 300; i++) {
		wires.insert(fuzz::make_input(1, i).wire);
		other_seed.insert(fuzz::make_input(2, i).wire);
	}
	EXPECT_GT(wires.size(), 250u);
	EXPECT_NE(wires, other_seed);
	EXPECT_NE(fuzz::input_seed(1, 0), fuzz::input_seed(1, 1));
	EXPECT_NE(fuzz::input_seed(1, 5), fuzz::input_seed(2, 5));
}

TEST(FuzzInput, KindsAndWhatTheyKeep)
{
	std::map<fuzz::Kind, int> n;
	int mutated = 0, truncated = 0;
	for (std::uint64_t i = 0; i < 2000; i++) {
		auto in = fuzz::make_input(0x5eed, i);
		n[in.kind]++;
		auto p = mpa::parse_frame(in.wire);
		if (in.kind != fuzz::Kind::Request) {
			// a good request, CRC on, so that the FPDUs reach DDP/RDMAP
			ASSERT_EQ(p.status, mpa::ParseStatus::Ok) << i;
			EXPECT_EQ(p.need, in.wire.size()) << i;
			EXPECT_FALSE(p.reply);
			EXPECT_TRUE(in.req.flags & mpa::kFlagCrc) << i;
			EXPECT_TRUE(in.what.empty()) << i;
			if (in.kind == fuzz::Kind::Rtr) {
				auto io = mpa::parse_ird_ord(in.req.pd);
				ASSERT_TRUE(io) << i;
				EXPECT_TRUE(io->p2p);
				EXPECT_GE(mpa::rtr_count(*io), 1);
			}
			continue;
		}
		mutated += !in.what.empty();
		truncated += p.status == mpa::ParseStatus::Short;
		EXPECT_TRUE(in.fin_after_request ? in.what.find("+fin") != std::string::npos : true);
	}
	EXPECT_GT(n[fuzz::Kind::Request], 500);
	EXPECT_GT(n[fuzz::Kind::Rtr], 200);
	EXPECT_GT(n[fuzz::Kind::Fpdu], 800);
	EXPECT_EQ(n[fuzz::Kind::Reply], 0);
	EXPECT_GT(mutated, n[fuzz::Kind::Request] * 8 / 10);
	EXPECT_GT(truncated, 50);
}

TEST(FuzzFpdu, SegmentsCoverTheOpcodesAndFraming)
{
	std::set<int> ops;
	int good_crc = 0, bad = 0, total = 0, tagged = 0, terms = 0, rreq = 0;
	for (std::uint64_t seed = 0; seed < 1500; seed++) {
		std::string what;
		auto f = fuzz::make_fpdus(fuzz::Kind::Fpdu, seed, mpa::Rtr::None, true, what);
		ASSERT_GE(f.size(), 1u);
		ASSERT_LE(f.size(), 3u);
		EXPECT_FALSE(what.empty());
		for (const auto &b : f) {
			total++;
			auto p = mpa::parse_fpdu(b, true);
			if (p.status != mpa::ParseStatus::Ok || p.size != b.size() || !p.crc_ok) {
				bad++;
				continue;
			}
			good_crc++;
			auto s = mpa::parse_segment(p.ulpdu);
			if (!s)
				continue;
			ops.insert(s->opcode);
			tagged += s->tagged;
			terms += s->opcode == mpa::kOpTerminate;
			rreq += s->opcode == mpa::kOpReadReq && !s->tagged;
		}
	}
	// most FPDUs frame right, so that the DDP and RDMAP checks are reached
	EXPECT_GT(good_crc, total * 6 / 10);
	EXPECT_GT(bad, total / 10);
	EXPECT_GE(ops.size(), 12u);
	EXPECT_GT(tagged, 100);
	EXPECT_GT(terms, 50);
	EXPECT_GT(rreq, 100);
}

TEST(FuzzFpdu, GoodRtrFirstWhenPeerToPeer)
{
	for (auto rtr : {mpa::Rtr::Send, mpa::Rtr::Write, mpa::Rtr::Read}) {
		std::string what;
		auto f = fuzz::make_fpdus(fuzz::Kind::Fpdu, 99, rtr, true, what);
		ASSERT_GE(f.size(), 2u);
		EXPECT_EQ(f[0], mpa::build_fpdu(mpa::build_segment(mpa::rtr_segment(rtr)), true));
	}
}

TEST(FuzzFpdu, RtrIsMostlyBroken)
{
	int differs = 0;
	Bytes good = mpa::build_fpdu(mpa::build_segment(mpa::rtr_segment(mpa::Rtr::Read)), true);
	for (std::uint64_t seed = 0; seed < 400; seed++) {
		std::string what;
		auto f = fuzz::make_fpdus(fuzz::Kind::Rtr, seed, mpa::Rtr::Read, true, what);
		ASSERT_GE(f.size(), 1u);
		differs += f[0] != good;
		EXPECT_NE(what.find("rtr-"), std::string::npos) << what;
	}
	EXPECT_GT(differs, 300);
	std::string what;
	EXPECT_TRUE(fuzz::make_fpdus(fuzz::Kind::Request, 1, mpa::Rtr::None, true, what).empty());
}

TEST(FuzzBytes, MutationsAreCountedAndSafe)
{
	fuzz::Rng r(3);
	for (int i = 0; i < 500; i++) {
		Bytes b(r.below(40));
		std::string what;
		fuzz::mutate_bytes(r, b, 3, what);
		EXPECT_EQ(std::count(what.begin(), what.end(), ','), 2) << what;
	}
	Bytes empty;
	std::string what;
	fuzz::mutate_bytes(r, empty, 1, what);
	EXPECT_NE(what.find("ins@0"), std::string::npos) << what;
	EXPECT_FALSE(empty.empty());
}

TEST(FuzzReply, StartsValidAndPicksOneOfferedRtr)
{
	mpa::IrdOrd io;
	io.ird = 4;
	io.ord = 4;
	io.p2p = true;
	io.read_rtr = true;
	auto req = mpa::make_frame(false, 2, mpa::kFlagEnhanced | mpa::kFlagCrc, mpa::build_ird_ord(io));
	int valid = 0, mutated = 0;
	for (std::uint64_t i = 0; i < 500; i++) {
		auto in = fuzz::make_reply(11, i, req);
		auto again = fuzz::make_reply(11, i, req);
		EXPECT_EQ(in.wire, again.wire);
		if (!in.what.empty()) {
			mutated++;
			continue;
		}
		auto p = mpa::parse_frame(in.wire);
		ASSERT_EQ(p.status, mpa::ParseStatus::Ok);
		EXPECT_TRUE(p.reply);
		auto v = peer::judge_reply(req, p.frame);
		EXPECT_EQ(v.outcome, "accept") << v.detail;
		EXPECT_EQ(v.rtr, mpa::Rtr::Read);
		EXPECT_EQ(in.rtr, mpa::Rtr::Read);
		EXPECT_TRUE(in.crc);
		valid++;
	}
	EXPECT_GT(valid, 20);
	EXPECT_GT(mutated, 350);
}

TEST(FuzzSummary, FiguresAndPaths)
{
	fuzz::Summary s;
	fuzz::account(s, "fpdu", {"accept>term-1/2/0x03>close", "", false});
	fuzz::account(s, "fpdu", {"accept>term-1/2/0x03>close", "", false});
	fuzz::account(s, "request", {"reject", "", false});
	fuzz::account(s, "request", {"bad-reply", "", true});
	EXPECT_EQ(s.inputs, 4u);
	EXPECT_EQ(s.findings, 1u);
	EXPECT_EQ(s.paths.size(), 3u);
	std::string r = s.report(0x5eed, 1.5);
	EXPECT_NE(r.find("seed 0x5eed, 4 inputs in 1.5 s (fpdu 2, request 2), 3 distinct outcomes, 1 findings"),
		  std::string::npos)
		<< r;
	EXPECT_NE(r.find("     2 fpdu:accept>term-1/2/0x03>close"), std::string::npos) << r;
}

// A listener that accepts every request with a revision 1 CRC reply, then
// reads until the peer leaves: every input must end without a finding.
TEST(FuzzRun, AgainstAnAcceptingListener)
{
	int ls = ::socket(AF_INET, SOCK_STREAM, 0);
	sockaddr_in a{};
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(::bind(ls, reinterpret_cast<sockaddr *>(&a), sizeof(a)), 0);
	ASSERT_EQ(::listen(ls, 64), 0);
	socklen_t l = sizeof(a);
	::getsockname(ls, reinterpret_cast<sockaddr *>(&a), &l);
	std::thread srv([ls] {
		for (;;) {
			int c = ::accept(ls, nullptr, nullptr);
			if (c < 0)
				return;
			std::thread([c] {
				Bytes req;
				std::uint8_t b[4096];
				for (;;) {
					auto p = mpa::parse_frame(req);
					if (p.status == mpa::ParseStatus::BadKey)
						break;
					if (p.status == mpa::ParseStatus::Ok) {
						Bytes rep = mpa::build_frame(
							mpa::make_frame(true, 1, mpa::kFlagCrc, {}));
						::send(c, rep.data(), rep.size(), MSG_NOSIGNAL);
						break;
					}
					ssize_t n = ::recv(c, b, sizeof(b), 0);
					if (n <= 0)
						break;
					req.insert(req.end(), b, b + n);
				}
				while (::recv(c, b, sizeof(b), 0) > 0) {
				}
				::close(c);
			}).detach();
		}
	});
	peer::Options o;
	o.addr = "127.0.0.1";
	o.port = ntohs(a.sin_port);
	ASSERT_TRUE(net::make_addr(o.addr, o.port, o.dest));
	o.scenario = "fuzz";
	o.count = 60;
	o.workers = 4;
	o.wait_ms = 150;
	peer::Result r = peer::run(o);
	::shutdown(ls, SHUT_RDWR);
	::close(ls);
	srv.join();
	// Requests of revision 2 get a revision 1 reply here: fine. A listener
	// that never breaks MPA gives no finding.
	EXPECT_EQ(r.outcome, "fuzzed") << r.detail;
	EXPECT_NE(r.detail.find("60 inputs of 60 asked"), std::string::npos) << r.detail;
}

// fuzz-listen whose clients do not come: at its deadline it has sent
// nothing, and that is "short", never "fuzzed" (mpa-fuzz.sh expects
// "fuzzed" of a run that answered every client it started).
TEST(FuzzRun, ListenWithoutClientsIsShort)
{
	peer::Options o;
	o.addr = "127.0.0.1";
	o.port = 0; // any free port: no client knows it
	ASSERT_TRUE(net::make_addr(o.addr, o.port, o.dest));
	o.scenario = "fuzz-listen";
	o.count = 3;
	o.timeout_ms = 300;
	peer::Result r = peer::run(o);
	EXPECT_EQ(r.outcome, "short") << r.detail;
	EXPECT_NE(r.detail.find("0 inputs of 3 asked"), std::string::npos) << r.detail;
}

} // namespace
