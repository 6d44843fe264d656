// SPDX-License-Identifier: GPL-2.0
// The scenarios of mpa-peer: build the frames, talk to the listener, judge.
#include "scenario.h"

#include "fmt.h"
#include "fuzzrun.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace peer {
namespace {

using mpa::Bytes;
using net::Clock;
using net::end_name;
using net::Event;

Bytes pattern(std::size_t n, std::uint8_t seed = 0)
{
	Bytes b(n);
	for (std::size_t i = 0; i < n; i++)
		b[i] = static_cast<std::uint8_t>('a' + (i + seed) % 26);
	return b;
}

int default_rev(const std::string &s)
{
	if (s == "bad-rev")
		return 3;
	if (s == "ird-ord" || s == "enhanced-short")
		return 2;
	return 1;
}

Result local_error(std::string why)
{
	Result r;
	r.detail = std::move(why);
	return r;
}

Result outcome(std::string what, std::string detail, Clock::time_point t0)
{
	Result r;
	r.outcome = std::move(what);
	r.detail = std::move(detail);
	r.secs = net::secs_since(t0);
	return r;
}

// Connect; on failure the Result to report (refused/timeout), else nullopt.
std::optional<Result> connect_or_report(const Options &o, net::Fd &fd, Clock::time_point t0,
					Clock::time_point deadline)
{
	int rc = net::connect_to(o.dest, deadline, fd, o.src);
	if (!rc)
		return std::nullopt;
	return outcome(rc == ETIMEDOUT ? "timeout" : "refused",
		       fmt("TCP connect: %s", std::strerror(rc)), t0);
}

// FPDUs from the listener after the handshake: read for @until, describe
// each; returns what ended the wait, *term set when a TERMINATE came.
Event read_fpdus(int fd, Bytes &buf, bool crc, Clock::time_point until, bool *term,
		 std::string &log)
{
	for (;;) {
		auto f = mpa::parse_fpdu(buf, crc);
		if (f.status == mpa::ParseStatus::Ok) {
			auto seg = mpa::parse_segment(f.ulpdu);
			log += seg ? " [rx " + mpa::describe(*seg) + (f.crc_ok ? "" : " BAD-CRC") + "]"
				   : " [rx short ULPDU " + mpa::hex(f.ulpdu) + "]";
			if (seg && mpa::parse_terminate(*seg))
				*term = true;
			buf.erase(buf.begin(), buf.begin() + static_cast<long>(f.size));
			continue;
		}
		Event e = net::read_until(fd, buf, std::max(f.size, buf.size() + 1), until);
		if (e != Event::Data)
			return e;
	}
}

// After a reject frame: the listener must close the connection.
Result after_reject(int fd, Bytes &buf, const Verdict &v, Clock::time_point t0,
		    Clock::time_point deadline)
{
	Event e = net::read_until(fd, buf, buf.size() + 1, deadline);
	while (e == Event::Data) {
		buf.clear();
		e = net::read_until(fd, buf, 1, deadline);
	}
	if (e == Event::Timeout)
		return outcome("reject-open", v.detail + "; the listener kept the connection", t0);
	return outcome("reject", v.detail + "; then " + end_name(e), t0);
}

// Send the request bytes: all at once, or (slowloris) one byte per
// interval, stopping before the last byte and when the listener goes away.
// Returns the event that ended the drip early, or Data.
Event send_request(const Options &o, int fd, const Bytes &wire, bool drip,
		   Clock::time_point deadline, std::string &note)
{
	if (!drip) {
		int rc = net::send_all(fd, wire);
		if (rc)
			note += fmt("; send: %s", std::strerror(rc));
		return Event::Data;
	}
	std::size_t sent = 0;
	while (sent + 1 < wire.size()) {
		int rc = net::send_all(fd, std::span(wire).subspan(sent, 1));
		if (rc) {
			note += fmt("; send: %s after %zu bytes", std::strerror(rc), sent);
			return rc == ECONNRESET ? Event::Reset : Event::Eof;
		}
		sent++;
		Bytes junk;
		Event e = net::read_until(fd, junk, 1,
					  std::min(deadline, net::after_ms(o.interval_ms)));
		if (e == Event::Timeout) {
			if (Clock::now() >= deadline)
				break;
			continue;
		}
		note += fmt("; dripped %zu of %zu bytes", sent, wire.size());
		return e == Event::Data ? Event::Data : e;
	}
	note += fmt("; dripped %zu of %zu bytes", sent, wire.size());
	return Event::Data;
}

// The MPA handshake scenarios: send @wire (the request, possibly broken),
// read the listener's answer and judge it. @fpdu: the corrupted FPDU to send
// after an accepted handshake (fpdu scenario), else empty.
Result handshake(const Options &o, const mpa::Frame &req, const Bytes &wire, bool fin,
		 bool drip, const std::string &corrupt)
{
	auto t0 = Clock::now();
	auto deadline = t0 + std::chrono::milliseconds(o.timeout_ms);
	net::Fd fd;
	if (auto r = connect_or_report(o, fd, t0, deadline))
		return *r;
	std::string note = fmt("sent %zu bytes", wire.size());
	Event early = send_request(o, fd.get(), wire, drip, deadline, note);
	if (early == Event::Eof || early == Event::Reset)
		return outcome(end_name(early), "while the request was sent" + note, t0);
	if ((o.trailer > 0 || fin) && o.gap_ms > 0) {
		std::this_thread::sleep_for(std::chrono::milliseconds(o.gap_ms));
		note += fmt(", %ld ms", o.gap_ms);
	}
	if (o.trailer > 0) {
		// Bytes before the listener's answer: a second segment, so that
		// it arrives after the listener has taken the request.
		int rc = net::send_all(fd.get(), pattern(static_cast<std::size_t>(o.trailer)));
		note += fmt(", then %d more bytes%s", o.trailer, rc ? " (send failed)" : "");
	}
	if (fin) {
		::shutdown(fd.get(), SHUT_WR);
		note += ", then FIN";
	}

	Bytes buf;
	mpa::Parsed p;
	for (;;) {
		p = mpa::parse_frame(buf);
		if (p.status != mpa::ParseStatus::Short)
			break;
		Event e = net::read_until(fd.get(), buf, p.need, deadline);
		if (e != Event::Data) {
			std::string d = note;
			if (!buf.empty())
				d += fmt("; %zu bytes of a reply: %s", buf.size(),
					 mpa::hex(buf).c_str());
			return outcome(buf.empty() ? end_name(e) : "bad-reply",
				       d + "; " + net::event_name(e), t0);
		}
	}
	if (p.status == mpa::ParseStatus::BadKey)
		return outcome("bad-reply", note + "; reply key " + mpa::hex(buf, 16), t0);
	buf.erase(buf.begin(), buf.begin() + static_cast<long>(p.need));

	Verdict v = judge_reply(req, p.frame);
	v.detail = note + "; " + v.detail;
	if (v.outcome == "reject")
		return after_reject(fd.get(), buf, v, t0, deadline);
	if (v.outcome != "accept")
		return outcome(v.outcome, v.detail, t0);

	if (v.rtr != mpa::Rtr::None && !o.send_rtr) {
		// Never the RTR: what does the responder do within -t?
		bool term = false;
		v.detail += fmt("; agreed on the %s RTR, not sending it",
				mpa::rtr_name(v.rtr));
		Event e = read_fpdus(fd.get(), buf, v.crc, deadline, &term, v.detail);
		if (term)
			return outcome("terminate", v.detail, t0);
		return outcome(end_name(e), v.detail + "; " + net::event_name(e), t0);
	}
	if (v.rtr != mpa::Rtr::None) {
		auto seg = mpa::build_segment(mpa::rtr_segment(v.rtr));
		int rc = net::send_all(fd.get(), mpa::build_fpdu(seg, v.crc));
		v.detail += fmt("; sent the %s RTR%s", mpa::rtr_name(v.rtr),
				rc ? (std::string(" (") + std::strerror(rc) + ")").c_str() : "");
	}
	bool term = false;
	Event e = read_fpdus(fd.get(), buf, v.crc,
			     std::min(deadline, net::after_ms(o.settle_ms)), &term, v.detail);
	if (term)
		return outcome("terminate", v.detail + " after the handshake", t0);
	if (e != Event::Timeout)
		return outcome(end_name(e), v.detail + " after the handshake", t0);
	if (corrupt.empty()) {
		// Leave as a well-behaved initiator: FIN, then wait for the close.
		::shutdown(fd.get(), SHUT_WR);
		return outcome("accept", v.detail, t0);
	}
	Bytes bad = corrupt_fpdu(corrupt, v.crc);
	int rc = net::send_all(fd.get(), bad);
	v.detail += fmt("; sent %s FPDU %s%s", corrupt.c_str(), mpa::hex(bad, 40).c_str(),
			rc ? (std::string(" (") + std::strerror(rc) + ")").c_str() : "");
	e = read_fpdus(fd.get(), buf, v.crc, deadline, &term, v.detail);
	if (term)
		return outcome("terminate", v.detail + "; then " + net::event_name(e), t0);
	return outcome(end_name(e), v.detail, t0);
}

// idle: many connects, no byte sent.
Result idle(const Options &o)
{
	auto t0 = Clock::now();
	auto deadline = t0 + std::chrono::milliseconds(o.timeout_ms);
	rlimit rl{};
	::getrlimit(RLIMIT_NOFILE, &rl);
	rlim_t want = static_cast<rlim_t>(o.count) + 64;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = want;
		if (rl.rlim_max < want)
			rl.rlim_max = want;
		if (::setrlimit(RLIMIT_NOFILE, &rl))
			return local_error(fmt("cannot raise RLIMIT_NOFILE to %lu: %s",
					       static_cast<unsigned long>(want), std::strerror(errno)));
	}
	enum State { Connecting, Open, Failed, Closed, Reset };
	struct Conn {
		net::Fd fd;
		State st = Connecting;
		Clock::time_point start;
		double secs = 0; // connect (open) to end
	};
	std::vector<Conn> c(static_cast<std::size_t>(o.count));
	int connected = 0, failed = 0, closed = 0, reset = 0, fast = 0;
	std::vector<pollfd> pfd;
	std::vector<std::size_t> idx;
	// One round: poll the connections started so far (@ms: at most this
	// long) and account for what happened; false when none is left to watch.
	auto pump = [&](std::size_t started, int ms) {
		pfd.clear();
		idx.clear();
		for (std::size_t i = 0; i < started; i++) {
			if (c[i].st == Connecting)
				pfd.push_back({c[i].fd.get(), POLLOUT, 0});
			else if (c[i].st == Open)
				pfd.push_back({c[i].fd.get(), POLLIN, 0});
			else
				continue;
			idx.push_back(i);
		}
		if (pfd.empty())
			return false;
		if (::poll(pfd.data(), pfd.size(), ms) <= 0)
			return true;
		for (std::size_t k = 0; k < pfd.size(); k++) {
			if (!pfd[k].revents)
				continue;
			Conn &x = c[idx[k]];
			double since = net::secs_since(x.start);
			if (x.st == Connecting) {
				int err = 0;
				socklen_t l = sizeof(err);
				::getsockopt(x.fd.get(), SOL_SOCKET, SO_ERROR, &err, &l);
				if (err) {
					x.st = Failed;
					failed++;
					fast += since * 1000 < o.fast_ms;
					x.fd.reset();
				} else {
					x.st = Open;
					x.start = Clock::now();
					connected++;
				}
				continue;
			}
			std::uint8_t b[256];
			ssize_t r = ::recv(x.fd.get(), b, sizeof(b), MSG_DONTWAIT);
			if (r > 0)
				continue; // a listener may send a reject: wait for its close
			if (r < 0 && errno == EAGAIN)
				continue;
			x.st = (r < 0 && errno == ECONNRESET) ? Reset : Closed;
			(x.st == Reset ? reset : closed)++;
			fast += since * 1000 < o.fast_ms;
			x.fd.reset();
		}
		return true;
	};
	// Start them all, watching those started (a slow machine takes seconds
	// to make thousands of sockets); -t counts from the last one.
	for (std::size_t i = 0; i < c.size(); i++) {
		Conn &x = c[i];
		x.start = Clock::now();
		int rc = net::connect_start(o.dest, x.fd, o.src);
		if (rc == 0) {
			x.st = Open;
			connected++;
		} else if (rc != EINPROGRESS) {
			x.st = Failed;
			failed++;
			fast++;
			x.fd.reset();
		}
		if (i % 64 == 63)
			pump(i + 1, 0);
	}
	double start_secs = net::secs_since(t0);
	deadline = Clock::now() + std::chrono::milliseconds(o.timeout_ms);
	for (;;) {
		auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
		if (left.count() <= 0 || !pump(c.size(), static_cast<int>(std::min<long>(left.count(), 1000))))
			break;
	}
	int open = 0, pending = 0;
	for (auto &x : c) {
		open += x.st == Open;
		pending += x.st == Connecting;
	}
	Result r = outcome(open || pending ? "open" : "close",
			   fmt("%d connects (started in %.1f s): %d connected, %d failed, %d pending; listener closed %d, "
			       "reset %d; %d ended within %ld ms; %d still open",
			       o.count, start_secs, connected, failed, pending, closed, reset, fast, o.fast_ms,
			       open),
			   t0);
	if (o.min_fast >= 0 && fast < o.min_fast) {
		r.extra_ok = false;
		r.detail += fmt("; wanted at least %d ended within %ld ms", o.min_fast, o.fast_ms);
	}
	return r;
}

// hold-port: a plain TCP socket bound (and listening) on the port.
Result hold_port(const Options &o)
{
	auto t0 = Clock::now();
	net::Fd fd(::socket(o.dest.ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
	if (fd.get() < 0)
		return local_error(fmt("socket: %s", std::strerror(errno)));
	if (::bind(fd.get(), reinterpret_cast<const sockaddr *>(&o.dest.ss), o.dest.len)) {
		int err = errno;
		return outcome(err == EADDRINUSE ? "eaddrinuse" : "error",
			       fmt("bind %s:%u: %s", o.addr.c_str(), o.port, std::strerror(err)), t0);
	}
	if (::listen(fd.get(), 16)) {
		int err = errno;
		return outcome(err == EADDRINUSE ? "eaddrinuse" : "error",
			       fmt("listen %s:%u: %s", o.addr.c_str(), o.port, std::strerror(err)), t0);
	}
	std::printf("mpa-peer: bound %s:%u\n", o.addr.c_str(), o.port);
	std::fflush(stdout);
	std::this_thread::sleep_for(std::chrono::milliseconds(o.hold_ms >= 0 ? o.hold_ms : o.timeout_ms));
	return outcome("bound", fmt("held %s:%u", o.addr.c_str(), o.port), t0);
}

} // namespace

mpa::Frame request_frame(const Options &o)
{
	const std::string &s = o.scenario;
	int rev = o.rev >= 0 ? o.rev : default_rev(s);
	bool crc = o.crc >= 0 ? o.crc : s == "fpdu";
	std::uint8_t flags = static_cast<std::uint8_t>((crc ? mpa::kFlagCrc : 0) |
						       (o.markers ? mpa::kFlagMarkers : 0));
	Bytes pd;
	if (rev == 2 && o.enhanced) {
		flags |= mpa::kFlagEnhanced;
		mpa::IrdOrd io;
		io.ird = static_cast<std::uint16_t>(o.ird);
		io.ord = static_cast<std::uint16_t>(o.ord);
		io.p2p = o.p2p;
		io.send_rtr = o.rtr.count("send");
		io.write_rtr = o.rtr.count("write");
		io.read_rtr = o.rtr.count("read");
		pd = mpa::build_ird_ord(io);
	}
	int user_pd = o.pd;
	if (s == "slowloris" && o.pd_length < 0)
		user_pd = static_cast<int>(mpa::kMaxPd - pd.size());
	Bytes more = pattern(static_cast<std::size_t>(std::max(user_pd, 0)));
	pd.insert(pd.end(), more.begin(), more.end());
	mpa::Frame f = mpa::make_frame(s == "reply-as-request", static_cast<std::uint8_t>(rev),
				       flags, std::move(pd));
	if (s == "bad-key")
		f.key = "MPA ID Bad Frame";
	int claim = o.pd_length;
	int send = o.pd_send;
	if (s == "pd-over-max" && claim < 0)
		claim = mpa::kMaxPd + 1;
	if (s == "pd-short") {
		if (claim < 0)
			claim = 100;
		if (send < 0)
			send = 10;
	}
	if (s == "enhanced-short") {
		f.flags |= mpa::kFlagEnhanced;
		f.pd = {0x80, 0x01};
	}
	if (claim >= 0)
		f.pd_length = static_cast<std::uint16_t>(claim);
	if (send < 0 && claim >= 0)
		send = claim;
	if (send >= 0) {
		Bytes extra = pattern(static_cast<std::size_t>(send), 7);
		f.pd.resize(std::min(f.pd.size(), static_cast<std::size_t>(send)));
		f.pd.insert(f.pd.end(), extra.begin() + static_cast<long>(f.pd.size()), extra.end());
	}
	if (s == "enhanced-short" && claim < 0)
		f.pd_length = static_cast<std::uint16_t>(f.pd.size());
	return f;
}

Verdict judge_reply(const mpa::Frame &req, const mpa::Frame &rep)
{
	Verdict v;
	auto bad = [&v](std::string why) {
		v.outcome = "bad-reply";
		v.rtr = mpa::Rtr::None;
		v.detail += why;
		return v;
	};
	v.detail = fmt("reply rev %u flags 0x%02x PD_Length %u", rep.rev, rep.flags, rep.pd_length);
	if (rep.key != mpa::kKeyRep)
		return bad(": not a reply key");
	if (rep.pd_length > mpa::kMaxPd)
		return bad(": PD_Length above 512");
	if (rep.flags & mpa::kFlagReject) {
		v.outcome = "reject";
		v.detail += fmt(" R, PD %s \"%s\"", mpa::hex(rep.pd, 32).c_str(),
				mpa::printable(rep.pd).c_str());
		return v;
	}
	if (rep.rev < 1 || rep.rev > 2 || rep.rev > req.rev)
		return bad(": revision not acceptable for the request's");
	v.crc = (req.flags | rep.flags) & mpa::kFlagCrc;
	if (rep.flags & mpa::kFlagMarkers)
		v.detail += " (wants markers)";
	bool req_enh = req.rev == 2 && (req.flags & mpa::kFlagEnhanced);
	if (rep.rev == 2 && (rep.flags & mpa::kFlagEnhanced)) {
		auto io = mpa::parse_ird_ord(rep.pd);
		if (!io)
			return bad(": enhanced reply without IRD/ORD");
		auto rq = mpa::parse_ird_ord(req.pd);
		if (!req_enh || !rq)
			return bad(": enhanced reply to a request that was not");
		v.detail += fmt(" IRD %u ORD %u", io->ird, io->ord);
		if (io->p2p) {
			if (!rq->p2p)
				return bad(": peer-to-peer reply to a request without it");
			if (mpa::rtr_count(*io) != 1)
				return bad(fmt(": peer-to-peer reply with %d RTR types",
					       mpa::rtr_count(*io)));
			v.rtr = mpa::rtr_of(*io);
			bool offered = (v.rtr == mpa::Rtr::Send && rq->send_rtr) ||
				       (v.rtr == mpa::Rtr::Write && rq->write_rtr) ||
				       (v.rtr == mpa::Rtr::Read && rq->read_rtr);
			if (!offered)
				return bad(fmt(": RTR %s was not offered", mpa::rtr_name(v.rtr)));
			v.detail += fmt(" p2p RTR %s", mpa::rtr_name(v.rtr));
		}
	} else if (rep.rev == 2 && req_enh) {
		return bad(": revision 2 reply without the enhanced flag");
	}
	v.detail += v.crc ? " CRC" : " no CRC";
	v.outcome = "accept";
	return v;
}

Bytes corrupt_fpdu(const std::string &kind, bool crc)
{
	mpa::Segment s;
	s.opcode = mpa::kOpSend;
	s.payload = pattern(16);
	std::uint32_t crc_xor = 0;
	if (kind == "crc")
		crc_xor = 0x5a5a5a5a;
	else if (kind == "ddp-version")
		s.ddp_version = 2;
	else if (kind == "rdmap-version")
		s.rdmap_version = 2;
	else if (kind == "qn")
		s.qn = 7;
	else if (kind == "msn")
		s.msn = 1000;
	else if (kind == "stag") {
		s.tagged = true;
		s.opcode = mpa::kOpWrite;
		s.stag = 0x12345600;
		s.to = 0x1000;
	} else if (kind == "opcode")
		s.opcode = 0x0d;
	else if (kind == "terminate") {
		// Not corrupt: the peer's own TERMINATE (RDMAP, catastrophic,
		// unspecified), after which it keeps TCP open.
		s.opcode = mpa::kOpTerminate;
		s.qn = 2;
		s.payload = {0x00, 0xff, 0x00, 0x00};
	}
	else if (kind == "short-len") {
		Bytes seg = mpa::build_segment(s);
		return mpa::build_fpdu(std::span(seg).first(4), crc);
	} else
		return {};
	return mpa::build_fpdu(mpa::build_segment(s), crc, 0, crc_xor);
}

Result run(const Options &o)
{
	const std::string &s = o.scenario;
	if (s == "idle")
		return idle(o);
	if (s == "hold-port")
		return hold_port(o);
	if (s == "fuzz")
		return fuzz::run_connect(o);
	if (s == "fuzz-listen")
		return fuzz::run_listen(o);
	static const std::set<std::string> shakes = {
		"good", "bad-key", "bad-rev", "pd-over-max", "pd-short", "truncated",
		"reply-as-request", "ird-ord", "enhanced-short", "slowloris", "fpdu",
	};
	if (!shakes.count(s))
		return local_error("unknown scenario " + s);
	if (s == "fpdu" && corrupt_fpdu(o.corrupt, true).empty())
		return local_error("unknown --corrupt " + o.corrupt);
	mpa::Frame req = request_frame(o);
	Bytes wire = mpa::build_frame(req);
	bool fin = o.fin >= 0 ? o.fin : s == "truncated";
	if (s == "truncated") {
		std::size_t n = o.send_bytes >= 0 ? static_cast<std::size_t>(o.send_bytes) : 10;
		wire.resize(std::min(n, wire.size()));
	}
	return handshake(o, req, wire, fin, s == "slowloris", s == "fpdu" ? o.corrupt : "");
}

} // namespace peer
