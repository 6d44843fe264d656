// SPDX-License-Identifier: GPL-2.0
// The fuzzer's network runs (see fuzzrun.h).
#include "fuzzrun.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "fmt.h"
#include "fuzz.h"

namespace fuzz {
namespace {

using mpa::Bytes;
using net::Clock;
using net::end_name;
using net::Event;
using peer::fmt;

// Leave the connection: RST (SO_LINGER 0) or FIN.
void leave(net::Fd &fd, bool rst)
{
	if (rst) {
		linger lg{1, 0};
		::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	} else {
		::shutdown(fd.get(), SHUT_WR);
	}
	fd.reset();
}

// What the listener sends after the handshake, until @until: TERMINATEs
// (their cause goes into the path), other FPDUs (counted), a bad CRC or
// a broken FPDU (findings), and what ended the wait.
InputResult read_after(int fd, Bytes &buf, bool crc, Clock::time_point until)
{
	InputResult r;
	std::string term;
	unsigned other = 0;
	for (;;) {
		auto f = mpa::parse_fpdu(buf, crc);
		if (f.status == mpa::ParseStatus::Ok) {
			auto seg = mpa::parse_segment(f.ulpdu);
			if (!f.crc_ok || !seg) {
				r.finding = true;
				r.detail += fmt(" [rx %s FPDU %s]", f.crc_ok ? "short" : "bad-CRC",
						mpa::hex(f.ulpdu, 32).c_str());
			} else if (auto t = mpa::parse_terminate(*seg)) {
				term = fmt("term-%u/%u/0x%02x", t->layer, t->etype, t->ecode);
			} else {
				other++;
			}
			buf.erase(buf.begin(), buf.begin() + static_cast<long>(f.size));
			continue;
		}
		Event e = net::read_until(fd, buf, std::max(f.size, buf.size() + 1), until);
		if (e == Event::Data)
			continue;
		r.key = (term.empty() ? "" : term + ">") + (other ? "fpdus>" : "") + end_name(e);
		return r;
	}
}

// Read an MPA frame into @p; Data when one parsed (or its key is bad).
Event read_frame(int fd, Bytes &buf, mpa::Parsed &p, Clock::time_point until)
{
	for (;;) {
		p = mpa::parse_frame(buf);
		if (p.status != mpa::ParseStatus::Short)
			return Event::Data;
		Event e = net::read_until(fd, buf, p.need, until);
		if (e != Event::Data)
			return e;
	}
}

InputResult one_connect(const peer::Options &o, std::uint64_t index)
{
	Input in = make_input(o.seed, index);
	InputResult r;
	r.detail = in.what;
	auto deadline = net::after_ms(o.reply_wait_ms);
	net::Fd fd;
	int rc = net::connect_to(o.dest, net::after_ms(std::max(o.reply_wait_ms, 3000L)), fd);
	if (rc) {
		r.key = "connect-" + std::string(rc == ETIMEDOUT ? "timeout" : "refused");
		r.detail += fmt(" TCP connect: %s", std::strerror(rc));
		r.finding = true;
		return r;
	}
	if ((rc = net::send_all(fd.get(), in.wire))) {
		r.key = rc == ECONNRESET ? "rst" : "close";
		return r;
	}
	if (in.fin_after_request)
		::shutdown(fd.get(), SHUT_WR);
	Bytes buf;
	mpa::Parsed p;
	Event e = read_frame(fd.get(), buf, p, deadline);
	if (e != Event::Data) {
		r.key = (buf.empty() ? "" : "partial-reply>") + end_name(e);
		// half a reply and then the end of the stream breaks MPA
		r.finding = !buf.empty() && e != Event::Timeout;
		if (r.finding)
			r.detail += " reply bytes " + mpa::hex(buf, 32);
		leave(fd, in.rst);
		return r;
	}
	if (p.status == mpa::ParseStatus::BadKey) {
		r.key = "bad-reply";
		r.finding = true;
		r.detail += " reply key " + mpa::hex(buf, 16);
		leave(fd, in.rst);
		return r;
	}
	buf.erase(buf.begin(), buf.begin() + static_cast<long>(p.need));
	peer::Verdict v = peer::judge_reply(in.req, p.frame);
	if (v.outcome != "accept") {
		r.key = v.outcome;
		r.finding = v.outcome == "bad-reply";
		r.detail += " " + v.detail;
		leave(fd, in.rst);
		return r;
	}
	if (in.kind == Kind::Request) {
		r.key = "accept";
		leave(fd, in.rst);
		return r;
	}
	std::string what;
	auto fpdus = make_fpdus(in.kind, in.fpdu_seed, v.rtr, v.crc, what);
	r.detail += " " + what;
	for (const auto &f : fpdus)
		if (net::send_all(fd.get(), f))
			break;
	InputResult a = read_after(fd.get(), buf, v.crc, net::after_ms(o.wait_ms));
	r.key = "accept>" + a.key;
	r.finding = a.finding;
	r.detail += a.detail;
	leave(fd, in.rst);
	return r;
}

// Passive: the client's request, a mutated reply, then FPDUs if the
// connection is still up half way to the deadline.
InputResult one_listen(const peer::Options &o, std::uint64_t index, net::Fd fd)
{
	InputResult r;
	Bytes buf;
	mpa::Parsed p;
	Event e = read_frame(fd.get(), buf, p, net::after_ms(o.reply_wait_ms));
	auto deadline = net::after_ms(o.wait_ms);
	if (e != Event::Data || p.status != mpa::ParseStatus::Ok || p.reply) {
		r.key = "bad-request>" + end_name(e);
		r.finding = true; // the host CM's own request must parse
		r.detail = mpa::hex(buf, 32);
		leave(fd, true);
		return r;
	}
	buf.erase(buf.begin(), buf.begin() + static_cast<long>(p.need));
	ReplyInput in = make_reply(o.seed, index, p.frame);
	r.detail = in.what;
	if (net::send_all(fd.get(), in.wire)) {
		r.key = "close";
		return r;
	}
	if (in.fin_after_reply)
		::shutdown(fd.get(), SHUT_WR);
	InputResult a = read_after(fd.get(), buf, in.crc,
				   std::min(deadline, net::after_ms(o.wait_ms / 2)));
	r.key = a.key;
	// with markers (the reply asked for them) FPDUs do not parse here
	r.finding = a.finding && !in.markers;
	r.detail += a.detail;
	if (a.key.ends_with("timeout") && !in.fin_after_reply) {
		std::string what;
		for (const auto &f : make_fpdus(Kind::Reply, in.fpdu_seed, mpa::Rtr::None, in.crc, what))
			if (net::send_all(fd.get(), f))
				break;
		InputResult b = read_after(fd.get(), buf, in.crc, deadline);
		r.key += ">fpdus>" + b.key;
		r.finding |= b.finding && !in.markers;
		r.detail += " " + what + b.detail;
	}
	leave(fd, in.rst);
	return r;
}

// Shared by the workers: results in index order, for a stable log.
struct Book {
	std::mutex lock;
	std::vector<std::pair<std::string, InputResult>> res;
};

peer::Result finish(const peer::Options &o, Book &b, Clock::time_point t0)
{
	Summary s;
	for (std::size_t i = 0; i < b.res.size(); i++) {
		const auto &[kind, r] = b.res[i];
		if (kind.empty())
			continue;
		account(s, kind, r);
		if (r.finding || o.verbose)
			std::printf("mpa-peer: fuzz #%zu %s %s: %s%s\n", o.first + i, kind.c_str(),
				    r.key.c_str(), r.detail.c_str(), r.finding ? "  <== FINDING" : "");
	}
	double secs = net::secs_since(t0);
	std::fputs(s.report(o.seed, secs).c_str(), stdout);
	peer::Result res;
	// Fewer inputs than --count (fuzz-listen: clients that never came
	// within -t) is no fuzz run: "short", whatever the inputs found.
	res.outcome = s.findings ? "findings" : static_cast<long>(s.inputs) < o.count ? "short"
						       : "fuzzed";
	res.detail = fmt("%u inputs of %d asked, %zu paths, %u findings, seed 0x%llx", s.inputs,
			 o.count, s.paths.size(), s.findings,
			 static_cast<unsigned long long>(o.seed));
	res.secs = secs;
	return res;
}

} // namespace

void account(Summary &s, const std::string &kind, const InputResult &r)
{
	s.inputs++;
	s.kinds[kind]++;
	s.paths[kind + ":" + r.key]++;
	s.findings += r.finding;
}

std::string Summary::report(std::uint64_t seed, double secs) const
{
	std::string out = fmt("mpa-peer: fuzz figures: seed 0x%llx, %u inputs in %.1f s (",
			      static_cast<unsigned long long>(seed), inputs, secs);
	bool first = true;
	for (const auto &[k, n] : kinds) {
		out += fmt("%s%s %u", first ? "" : ", ", k.c_str(), n);
		first = false;
	}
	out += fmt("), %zu distinct outcomes, %u findings\n", paths.size(), findings);
	for (const auto &[k, n] : paths)
		out += fmt("mpa-peer: fuzz path %6u %s\n", n, k.c_str());
	return out;
}

peer::Result run_connect(const peer::Options &o)
{
	auto t0 = Clock::now();
	Book b;
	b.res.resize(static_cast<std::size_t>(o.count));
	std::atomic<long> next{0};
	auto work = [&] {
		for (long i; (i = next++) < o.count;) {
			std::uint64_t idx = static_cast<std::uint64_t>(o.first + i);
			InputResult r = one_connect(o, idx);
			std::lock_guard<std::mutex> g(b.lock);
			b.res[static_cast<std::size_t>(i)] = {kind_name(make_input(o.seed, idx).kind), r};
		}
	};
	std::vector<std::thread> ws;
	for (int w = 0; w < std::max(o.workers, 1); w++)
		ws.emplace_back(work);
	for (auto &w : ws)
		w.join();
	return finish(o, b, t0);
}

peer::Result run_listen(const peer::Options &o)
{
	auto t0 = Clock::now();
	net::Fd ls(::socket(o.dest.ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
	int one = 1;
	::setsockopt(ls.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (::bind(ls.get(), reinterpret_cast<const sockaddr *>(&o.dest.ss), o.dest.len) ||
	    ::listen(ls.get(), 64)) {
		peer::Result r;
		r.detail = fmt("listen %s:%u: %s", o.addr.c_str(), o.port, std::strerror(errno));
		return r;
	}
	std::printf("mpa-peer: bound %s:%u\n", o.addr.c_str(), o.port);
	std::fflush(stdout);
	Book b;
	b.res.resize(static_cast<std::size_t>(o.count));
	std::vector<std::thread> ws;
	auto deadline = net::after_ms(o.timeout_ms);
	for (long i = 0; i < o.count && Clock::now() < deadline;) {
		pollfd p{ls.get(), POLLIN, 0};
		if (::poll(&p, 1, 200) <= 0)
			continue;
		net::Fd c(::accept4(ls.get(), nullptr, nullptr, SOCK_CLOEXEC));
		if (c.get() < 0)
			continue;
		std::uint64_t idx = static_cast<std::uint64_t>(o.first + i);
		ws.emplace_back([&o, &b, i, idx, fd = std::move(c)]() mutable {
			InputResult r = one_listen(o, idx, std::move(fd));
			std::lock_guard<std::mutex> g(b.lock);
			b.res[static_cast<std::size_t>(i)] = {kind_name(Kind::Reply), r};
		});
		i++;
	}
	for (auto &w : ws)
		w.join();
	return finish(o, b, t0);
}

} // namespace fuzz
