// SPDX-License-Identifier: GPL-2.0
// GoogleTest for mpa-peer's frame logic and, over loopback TCP against a
// scripted fake listener, its outcome classification. Run by `make
// mpa-peer-check` (tools/check.sh); prints "N passed, N failed" last.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <cstring>
#include <functional>
#include <ostream>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "../mpa.h"
#include "../scenario.h"

using mpa::Bytes;

namespace {

Bytes str(const char *s)
{
	return Bytes(s, s + std::strlen(s));
}

TEST(Crc32c, KnownVectors)
{
	EXPECT_EQ(mpa::crc32c(str("123456789")), 0xe3069283u);
	EXPECT_EQ(mpa::crc32c(Bytes(32, 0x00)), 0x8a9136aau); // RFC 3720 B.4
	EXPECT_EQ(mpa::crc32c(Bytes(32, 0xff)), 0x62a8ab43u);
	EXPECT_EQ(mpa::crc32c(Bytes{}), 0u);
}

TEST(Frame, RequestLayout)
{
	auto f = mpa::make_frame(false, 2, mpa::kFlagCrc | mpa::kFlagEnhanced, Bytes{1, 2, 3, 4, 5});
	Bytes b = mpa::build_frame(f);
	ASSERT_EQ(b.size(), 25u);
	EXPECT_EQ(std::string(b.begin(), b.begin() + 16), "MPA ID Req Frame");
	EXPECT_EQ(b[16], 0x50);
	EXPECT_EQ(b[17], 2);
	EXPECT_EQ(b[18], 0);
	EXPECT_EQ(b[19], 5);
	EXPECT_EQ(b[24], 5);
}

TEST(Frame, KeyIsPaddedOrCut)
{
	mpa::Frame f;
	f.key = "short";
	EXPECT_EQ(mpa::build_frame(f)[5], 0);
	f.key = "MPA ID Req Frame and more";
	Bytes b = mpa::build_frame(f);
	EXPECT_EQ(b.size(), mpa::kHdrLen);
	EXPECT_EQ(b[16], 0);
}

TEST(Parse, ShortBadKeyAndReply)
{
	Bytes b = mpa::build_frame(mpa::make_frame(true, 1, mpa::kFlagReject, str("no")));
	for (std::size_t n = 0; n < b.size(); n++) {
		auto p = mpa::parse_frame(std::span(b).first(n));
		EXPECT_EQ(p.status, mpa::ParseStatus::Short) << n;
		if (n >= mpa::kHdrLen) {
			EXPECT_EQ(p.need, b.size());
		}
	}
	auto p = mpa::parse_frame(b);
	ASSERT_EQ(p.status, mpa::ParseStatus::Ok);
	EXPECT_TRUE(p.reply);
	EXPECT_EQ(p.frame.flags, mpa::kFlagReject);
	EXPECT_EQ(p.frame.pd, str("no"));
	b[3] = 'X';
	EXPECT_EQ(mpa::parse_frame(b).status, mpa::ParseStatus::BadKey);
}

TEST(Parse, ClaimedLengthAbove512IsTakenAsClaimed)
{
	mpa::Frame f = mpa::make_frame(false, 1, 0, Bytes(600, 'x'));
	auto p = mpa::parse_frame(mpa::build_frame(f));
	ASSERT_EQ(p.status, mpa::ParseStatus::Ok);
	EXPECT_EQ(p.frame.pd_length, 600);
	EXPECT_EQ(p.need, 620u);
}

struct IrdOrdCase {
	mpa::IrdOrd v;
	Bytes wire;
};
class IrdOrdTest : public testing::TestWithParam<IrdOrdCase> {};

TEST_P(IrdOrdTest, RoundTrip)
{
	const auto &c = GetParam();
	Bytes b = mpa::build_ird_ord(c.v);
	EXPECT_EQ(b, c.wire);
	auto back = mpa::parse_ird_ord(b);
	ASSERT_TRUE(back);
	EXPECT_EQ(back->ird, c.v.ird & mpa::kIrdOrdMask);
	EXPECT_EQ(back->ord, c.v.ord & mpa::kIrdOrdMask);
	EXPECT_EQ(back->p2p, c.v.p2p);
	EXPECT_EQ(back->send_rtr, c.v.send_rtr);
	EXPECT_EQ(back->write_rtr, c.v.write_rtr);
	EXPECT_EQ(back->read_rtr, c.v.read_rtr);
}

INSTANTIATE_TEST_SUITE_P(
	Words, IrdOrdTest,
	testing::Values(IrdOrdCase{{1, 1, false, false, false, false}, {0x00, 0x01, 0x00, 0x01}},
			IrdOrdCase{{16, 8, true, false, true, false}, {0x80, 0x10, 0x80, 0x08}},
			IrdOrdCase{{0, 0, true, true, false, true}, {0xc0, 0x00, 0x40, 0x00}},
			// values above 14 bits do not leak into the flags
			IrdOrdCase{{0xffff, 0x7fff, false, false, false, false},
				   {0x3f, 0xff, 0x3f, 0xff}}));

TEST(IrdOrd, TooShortAndRtrChoice)
{
	EXPECT_FALSE(mpa::parse_ird_ord(Bytes{0x80, 0x01}));
	mpa::IrdOrd v;
	EXPECT_EQ(mpa::rtr_count(v), 0);
	EXPECT_EQ(mpa::rtr_of(v), mpa::Rtr::None);
	v.read_rtr = v.write_rtr = true;
	EXPECT_EQ(mpa::rtr_count(v), 2);
	EXPECT_EQ(mpa::rtr_of(v), mpa::Rtr::Write);
}

TEST(Segment, RtrMessages)
{
	Bytes w = mpa::build_segment(mpa::rtr_segment(mpa::Rtr::Write));
	EXPECT_EQ(w, (Bytes{0xc1, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
	Bytes r = mpa::build_segment(mpa::rtr_segment(mpa::Rtr::Read));
	ASSERT_EQ(r.size(), mpa::kUntaggedHdrLen + mpa::kReadReqLen);
	EXPECT_EQ(r[0], 0x41);
	EXPECT_EQ(r[1], 0x41);
	EXPECT_EQ(r[9], 1);  // QN 1
	EXPECT_EQ(r[13], 1); // MSN 1
	Bytes s = mpa::build_segment(mpa::rtr_segment(mpa::Rtr::Send));
	ASSERT_EQ(s.size(), mpa::kUntaggedHdrLen);
	EXPECT_EQ(s[1], 0x43);
	auto back = mpa::parse_segment(r);
	ASSERT_TRUE(back);
	EXPECT_FALSE(back->tagged);
	EXPECT_EQ(back->opcode, mpa::kOpReadReq);
	EXPECT_EQ(back->qn, 1u);
	EXPECT_EQ(back->payload.size(), mpa::kReadReqLen);
	EXPECT_FALSE(mpa::parse_segment(std::span(r).first(17)));
}

TEST(Fpdu, LayoutPadAndCrc)
{
	Bytes u = mpa::build_segment(mpa::rtr_segment(mpa::Rtr::Write)); // 14 bytes
	Bytes f = mpa::build_fpdu(u, true);
	ASSERT_EQ(f.size(), 20u); // 2 + 14, already aligned, + CRC
	EXPECT_EQ(f[0], 0);
	EXPECT_EQ(f[1], 14);
	std::uint32_t c = mpa::crc32c(std::span(f).first(16));
	EXPECT_EQ(f[16], c & 0xff);
	EXPECT_EQ(f[19], c >> 24);
	auto p = mpa::parse_fpdu(f, true);
	ASSERT_EQ(p.status, mpa::ParseStatus::Ok);
	EXPECT_TRUE(p.crc_ok);
	EXPECT_EQ(p.ulpdu, u);

	Bytes odd(5, 7);
	Bytes g = mpa::build_fpdu(odd, false);
	EXPECT_EQ(g.size(), 12u); // 2 + 5 + 1 pad + 4
	EXPECT_EQ(g[8], 0);
	EXPECT_EQ(mpa::parse_fpdu(std::span(g).first(11), false).status, mpa::ParseStatus::Short);

	Bytes bad = mpa::build_fpdu(u, true, 0, 1);
	EXPECT_FALSE(mpa::parse_fpdu(bad, true).crc_ok);
	EXPECT_TRUE(mpa::parse_fpdu(bad, false).crc_ok); // CRC off: not checked
	EXPECT_EQ(mpa::build_fpdu(u, false, 3)[1], 17);
}

TEST(Terminate, Parse)
{
	mpa::Segment s;
	s.opcode = mpa::kOpTerminate;
	s.qn = 2;
	s.payload = {0x12, 0x05, 0, 0};
	Bytes b = mpa::build_segment(s);
	auto back = mpa::parse_segment(b);
	ASSERT_TRUE(back);
	auto t = mpa::parse_terminate(*back);
	ASSERT_TRUE(t);
	EXPECT_EQ(t->layer, 1);
	EXPECT_EQ(t->etype, 2);
	EXPECT_EQ(t->ecode, 5);
	EXPECT_NE(mpa::describe(*back).find("TERMINATE"), std::string::npos);
	s.opcode = mpa::kOpSend;
	EXPECT_FALSE(mpa::parse_terminate(s));
}

peer::Options opts(const char *scenario)
{
	peer::Options o;
	o.scenario = scenario;
	return o;
}

TEST(Request, ScenarioFrames)
{
	auto f = peer::request_frame(opts("good"));
	EXPECT_EQ(f.rev, 1);
	EXPECT_EQ(f.pd_length, 0);
	EXPECT_EQ(peer::request_frame(opts("bad-key")).key, "MPA ID Bad Frame");
	EXPECT_EQ(peer::request_frame(opts("bad-rev")).rev, 3);
	EXPECT_EQ(peer::request_frame(opts("reply-as-request")).key, mpa::kKeyRep);
	f = peer::request_frame(opts("pd-over-max"));
	EXPECT_EQ(f.pd_length, 513);
	EXPECT_EQ(f.pd.size(), 513u);
	f = peer::request_frame(opts("pd-short"));
	EXPECT_EQ(f.pd_length, 100);
	EXPECT_EQ(f.pd.size(), 10u);
	f = peer::request_frame(opts("enhanced-short"));
	EXPECT_EQ(f.rev, 2);
	EXPECT_TRUE(f.flags & mpa::kFlagEnhanced);
	EXPECT_EQ(f.pd_length, 2);
	f = peer::request_frame(opts("slowloris"));
	EXPECT_EQ(mpa::build_frame(f).size(), mpa::kHdrLen + mpa::kMaxPd);
	EXPECT_TRUE(peer::request_frame(opts("fpdu")).flags & mpa::kFlagCrc);

	auto o = opts("ird-ord");
	o.p2p = true;
	o.rtr = {"write", "read"};
	o.ird = 0x3fff;
	o.ord = 0;
	o.pd = 3;
	f = peer::request_frame(o);
	ASSERT_EQ(f.pd.size(), 7u);
	EXPECT_EQ(f.pd_length, 7);
	auto io = mpa::parse_ird_ord(f.pd);
	ASSERT_TRUE(io);
	EXPECT_TRUE(io->p2p && io->write_rtr && io->read_rtr && !io->send_rtr);
	EXPECT_EQ(io->ird, 0x3fff);
	EXPECT_EQ(io->ord, 0);

	o = opts("good");
	o.rev = 2;
	o.pd_length = 300;
	o.pd_send = 40;
	f = peer::request_frame(o);
	EXPECT_EQ(f.pd_length, 300);
	ASSERT_EQ(f.pd.size(), 40u);
	EXPECT_TRUE(mpa::parse_ird_ord(f.pd)); // IRD/ORD kept in front
}

mpa::Frame req_v2(bool p2p, bool send, bool write, bool read, bool crc = false)
{
	mpa::IrdOrd io{4, 4, p2p, send, write, read};
	return mpa::make_frame(false, 2,
			       static_cast<std::uint8_t>(mpa::kFlagEnhanced | (crc ? mpa::kFlagCrc : 0)),
			       mpa::build_ird_ord(io));
}

mpa::Frame rep_v2(bool p2p, bool send, bool write, bool read, std::uint8_t extra = 0)
{
	mpa::IrdOrd io{4, 4, p2p, send, write, read};
	return mpa::make_frame(true, 2, static_cast<std::uint8_t>(mpa::kFlagEnhanced | extra),
			       mpa::build_ird_ord(io));
}

struct JudgeCase {
	const char *name;
	mpa::Frame req, rep;
	const char *outcome;
	mpa::Rtr rtr;
	bool crc;
};
void PrintTo(const JudgeCase &c, std::ostream *os)
{
	*os << c.name;
}
class JudgeTest : public testing::TestWithParam<JudgeCase> {};

TEST_P(JudgeTest, Verdict)
{
	const auto &c = GetParam();
	auto v = peer::judge_reply(c.req, c.rep);
	EXPECT_EQ(v.outcome, c.outcome) << v.detail;
	EXPECT_EQ(v.rtr, c.rtr) << v.detail;
	if (v.outcome == "accept") {
		EXPECT_EQ(v.crc, c.crc);
	}
}

const mpa::Frame kReqV1 = mpa::make_frame(false, 1, 0, {});

INSTANTIATE_TEST_SUITE_P(
	Replies, JudgeTest,
	testing::Values(
		JudgeCase{"v1", kReqV1, mpa::make_frame(true, 1, 0, {}), "accept", mpa::Rtr::None, false},
		JudgeCase{"v1_crc_from_responder", kReqV1, mpa::make_frame(true, 1, mpa::kFlagCrc, {}),
			  "accept", mpa::Rtr::None, true},
		JudgeCase{"v1_reject", kReqV1, mpa::make_frame(true, 1, mpa::kFlagReject, str("x")),
			  "reject", mpa::Rtr::None, false},
		JudgeCase{"v2_answered_to_v1", kReqV1, rep_v2(false, false, false, false),
			  "bad-reply", mpa::Rtr::None, false},
		JudgeCase{"request_key", kReqV1, mpa::make_frame(false, 1, 0, {}), "bad-reply",
			  mpa::Rtr::None, false},
		JudgeCase{"v2_fallback_v1", req_v2(true, false, true, true),
			  mpa::make_frame(true, 1, 0, {}), "accept", mpa::Rtr::None, false},
		JudgeCase{"v2_p2p_write", req_v2(true, false, true, true, true),
			  rep_v2(true, false, true, false), "accept", mpa::Rtr::Write, true},
		JudgeCase{"v2_p2p_read", req_v2(true, false, true, true),
			  rep_v2(true, false, false, true), "accept", mpa::Rtr::Read, false},
		JudgeCase{"v2_p2p_not_offered", req_v2(true, false, true, false),
			  rep_v2(true, true, false, false), "bad-reply", mpa::Rtr::None, false},
		JudgeCase{"v2_p2p_two_rtrs", req_v2(true, false, true, true),
			  rep_v2(true, false, true, true), "bad-reply", mpa::Rtr::None, false},
		JudgeCase{"v2_p2p_no_rtr", req_v2(true, false, true, true),
			  rep_v2(true, false, false, false), "bad-reply", mpa::Rtr::None, false},
		JudgeCase{"v2_p2p_unasked", req_v2(false, false, false, false),
			  rep_v2(true, false, true, false), "bad-reply", mpa::Rtr::None, false},
		JudgeCase{"v2_no_p2p", req_v2(true, false, true, false),
			  rep_v2(false, false, false, false), "accept", mpa::Rtr::None, false},
		JudgeCase{"v2_enhanced_short",
			  req_v2(false, false, false, false),
			  mpa::make_frame(true, 2, mpa::kFlagEnhanced, Bytes{0, 1}), "bad-reply",
			  mpa::Rtr::None, false},
		JudgeCase{"v2_reject", req_v2(true, false, true, false),
			  rep_v2(true, false, false, false, mpa::kFlagReject), "reject",
			  mpa::Rtr::None, false}),
	[](const auto &info) { return std::string(info.param.name); });

TEST(Corrupt, EveryKind)
{
	for (const char *k : {"ddp-version", "rdmap-version", "qn", "msn", "stag", "opcode"}) {
		Bytes b = peer::corrupt_fpdu(k, true);
		auto f = mpa::parse_fpdu(b, true);
		ASSERT_EQ(f.status, mpa::ParseStatus::Ok) << k;
		EXPECT_TRUE(f.crc_ok) << k;
		auto s = mpa::parse_segment(f.ulpdu);
		ASSERT_TRUE(s) << k;
		bool broken = s->ddp_version != 1 || s->rdmap_version != 1 || s->qn == 7 ||
			      s->msn == 1000 || s->stag || s->opcode == 0x0d;
		EXPECT_TRUE(broken) << k;
	}
	EXPECT_FALSE(mpa::parse_fpdu(peer::corrupt_fpdu("crc", true), true).crc_ok);
	auto f = mpa::parse_fpdu(peer::corrupt_fpdu("short-len", true), true);
	EXPECT_EQ(f.ulpdu.size(), 4u);
	EXPECT_TRUE(peer::corrupt_fpdu("nonsense", true).empty());
	// the peer's own TERMINATE is well-formed: QN 2, MSN 1, last, a control word
	auto t = mpa::parse_fpdu(peer::corrupt_fpdu("terminate", true), true);
	ASSERT_EQ(t.status, mpa::ParseStatus::Ok);
	EXPECT_TRUE(t.crc_ok);
	auto ts = mpa::parse_segment(t.ulpdu);
	ASSERT_TRUE(ts);
	EXPECT_EQ(ts->opcode, mpa::kOpTerminate);
	EXPECT_EQ(ts->qn, 2u);
	EXPECT_EQ(ts->msn, 1u);
	EXPECT_TRUE(ts->last && !ts->tagged);
	EXPECT_TRUE(mpa::parse_terminate(*ts));
}

// A fake listener on 127.0.0.1: accepts one connection and runs @script.
class FakeListener {
public:
	explicit FakeListener(std::function<void(int)> script)
	{
		fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
		sockaddr_in a{};
		a.sin_family = AF_INET;
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		::bind(fd_, reinterpret_cast<sockaddr *>(&a), sizeof(a));
		::listen(fd_, 4);
		socklen_t l = sizeof(a);
		::getsockname(fd_, reinterpret_cast<sockaddr *>(&a), &l);
		port_ = ntohs(a.sin_port);
		th_ = std::thread([this, script] {
			int c = ::accept(fd_, nullptr, nullptr);
			if (c >= 0) {
				script(c);
				::close(c);
			}
		});
	}
	~FakeListener()
	{
		::shutdown(fd_, SHUT_RDWR);
		th_.join();
		::close(fd_);
	}
	std::uint16_t port() const { return port_; }

private:
	int fd_;
	std::uint16_t port_;
	std::thread th_;
};

Bytes read_request(int c)
{
	Bytes b(mpa::kHdrLen);
	if (::recv(c, b.data(), b.size(), MSG_WAITALL) != static_cast<ssize_t>(b.size()))
		return {};
	auto p = mpa::parse_frame(b);
	b.resize(p.need);
	if (p.need > mpa::kHdrLen)
		::recv(c, b.data() + mpa::kHdrLen, p.need - mpa::kHdrLen, MSG_WAITALL);
	return b;
}

void send_bytes(int c, const Bytes &b)
{
	ASSERT_EQ(::send(c, b.data(), b.size(), MSG_NOSIGNAL), static_cast<ssize_t>(b.size()));
}

// The deadline of every loopback case; the fake listeners that stall
// sleep a little longer.
constexpr long kDeadlineMs = 600;
constexpr auto kStall = std::chrono::milliseconds(kDeadlineMs + 200);

peer::Result run_against(FakeListener &l, peer::Options o)
{
	o.addr = "127.0.0.1";
	o.port = l.port();
	o.timeout_ms = kDeadlineMs;
	o.settle_ms = 100;
	EXPECT_TRUE(net::make_addr(o.addr, o.port, o.dest));
	return peer::run(o);
}

TEST(Loopback, AcceptWithWriteRtr)
{
	Bytes rtr;
	FakeListener l([&rtr](int c) {
		Bytes req = read_request(c);
		auto io = mpa::parse_ird_ord(mpa::parse_frame(req).frame.pd);
		ASSERT_TRUE(io && io->p2p && io->write_rtr);
		send_bytes(c, mpa::build_frame(rep_v2(true, false, true, false)));
		rtr.resize(20);
		::recv(c, rtr.data(), rtr.size(), MSG_WAITALL);
		char x;
		::recv(c, &x, 1, 0); // the peer's FIN
	});
	auto o = opts("good");
	o.rev = 2;
	o.p2p = true;
	o.rtr = {"write"};
	auto r = run_against(l, o);
	EXPECT_EQ(r.outcome, "accept") << r.detail;
	auto f = mpa::parse_fpdu(rtr, false);
	ASSERT_EQ(f.status, mpa::ParseStatus::Ok);
	EXPECT_EQ(f.ulpdu, mpa::build_segment(mpa::rtr_segment(mpa::Rtr::Write)));
}

TEST(Loopback, RejectThenClose)
{
	FakeListener l([](int c) {
		read_request(c);
		send_bytes(c, mpa::build_frame(mpa::make_frame(true, 1, mpa::kFlagReject,
							       str("bad key"))));
	});
	auto r = run_against(l, opts("bad-key"));
	EXPECT_EQ(r.outcome, "reject") << r.detail;
	EXPECT_NE(r.detail.find("bad key"), std::string::npos) << r.detail;
}

TEST(Loopback, RejectKeptOpen)
{
	FakeListener l([](int c) {
		read_request(c);
		send_bytes(c, mpa::build_frame(mpa::make_frame(true, 1, mpa::kFlagReject, {})));
		std::this_thread::sleep_for(kStall);
	});
	EXPECT_EQ(run_against(l, opts("bad-rev")).outcome, "reject-open");
}

TEST(Loopback, CloseOnTruncated)
{
	FakeListener l([](int c) {
		char b[64];
		while (::recv(c, b, sizeof(b), 0) > 0) {
		}
	});
	auto r = run_against(l, opts("truncated"));
	EXPECT_EQ(r.outcome, "close") << r.detail;
}

TEST(Loopback, Reset)
{
	FakeListener l([](int c) {
		linger lg{1, 0};
		::setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		read_request(c);
	});
	EXPECT_EQ(run_against(l, opts("good")).outcome, "rst");
}

TEST(Loopback, TerminateAfterCorruptFpdu)
{
	FakeListener l([](int c) {
		read_request(c);
		send_bytes(c, mpa::build_frame(mpa::make_frame(true, 1, mpa::kFlagCrc, {})));
		Bytes f(40);
		::recv(c, f.data(), 2, MSG_WAITALL);
		mpa::Segment t;
		t.opcode = mpa::kOpTerminate;
		t.qn = 2;
		t.payload = {0x22, 0x00, 0, 0}; // MPA layer, CRC error
		send_bytes(c, mpa::build_fpdu(mpa::build_segment(t), true));
	});
	auto o = opts("fpdu");
	auto r = run_against(l, o);
	EXPECT_EQ(r.outcome, "terminate") << r.detail;
	EXPECT_NE(r.detail.find("layer=2"), std::string::npos) << r.detail;
}

TEST(Loopback, SlowlorisCutByListener)
{
	FakeListener l([](int c) {
		char b[8];
		::recv(c, b, sizeof(b), MSG_WAITALL); // then close mid-frame
	});
	auto o = opts("slowloris");
	o.interval_ms = 5;
	auto r = run_against(l, o);
	EXPECT_EQ(r.outcome, "close") << r.detail;
}

TEST(Loopback, TimeoutWhenNothingHappens)
{
	FakeListener l([](int c) {
		read_request(c);
		std::this_thread::sleep_for(kStall);
	});
	auto o = opts("good");
	auto r = run_against(l, o);
	EXPECT_EQ(r.outcome, "timeout") << r.detail;
	EXPECT_GE(r.secs, kDeadlineMs / 1000.0 - 0.05);
}

TEST(Loopback, RefusedAndHoldPort)
{
	peer::Options o = opts("hold-port");
	o.addr = "127.0.0.1";
	o.hold_ms = 0;
	{
		FakeListener l([](int) {});
		o.port = l.port();
		ASSERT_TRUE(net::make_addr(o.addr, o.port, o.dest));
		EXPECT_EQ(peer::run(o).outcome, "eaddrinuse");
	}
	EXPECT_EQ(peer::run(o).outcome, "bound"); // the port is free again
	o.scenario = "good";
	o.timeout_ms = kDeadlineMs;
	EXPECT_EQ(peer::run(o).outcome, "refused");
}

TEST(Loopback, IdleConnectsClosed)
{
	FakeListener l([](int) {}); // accepts one and closes it; the rest stay queued
	auto o = opts("idle");
	o.count = 3;
	o.fast_ms = 300;
	auto r = run_against(l, o);
	// The backlog holds the other two open until the listener goes away.
	EXPECT_EQ(r.outcome, "open") << r.detail;
	EXPECT_NE(r.detail.find("listener closed 1"), std::string::npos) << r.detail;
}

} // namespace

#define GTEST_SUMMARY_PREFIX "mpa-peer"
#include "../../gtest/summary_main.h"
