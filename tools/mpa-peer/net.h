// SPDX-License-Identifier: GPL-2.0
// TCP plumbing for the adversarial MPA peer: connect, send, read with a
// deadline, and what the listener did (bytes, FIN, RST, nothing).
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <sys/socket.h>

#include "mpa.h"

namespace net {

using Clock = std::chrono::steady_clock;

struct Addr {
	sockaddr_storage ss{};
	socklen_t len = 0;
};
// A numeric IPv4 or IPv6 address and a port; false when it does not parse.
bool make_addr(const std::string &host, std::uint16_t port, Addr &out);

// An owned file descriptor.
class Fd {
public:
	Fd() = default;
	explicit Fd(int fd) : fd_(fd) {}
	Fd(Fd &&o) noexcept : fd_(o.release()) {}
	Fd &operator=(Fd &&o) noexcept;
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	~Fd();
	int get() const { return fd_; }
	int release();
	void reset(int fd = -1);

private:
	int fd_ = -1;
};

// Blocking connect with a deadline, from @src when it has an address;
// errno-style error (0 = connected).
int connect_to(const Addr &a, Clock::time_point deadline, Fd &out, const Addr &src = {});
// A non-blocking connect that is under way (EINPROGRESS) or done: 0 or errno.
int connect_start(const Addr &a, Fd &out, const Addr &src = {});

// Write everything; 0 or errno (EPIPE/ECONNRESET when the peer is gone).
int send_all(int fd, std::span<const std::uint8_t> b);

enum class Event { Data, Eof, Reset, Timeout, Error };
const char *event_name(Event e);
// What ended a connection, as an outcome: close (an error too), rst, timeout.
std::string end_name(Event e);
// Append what arrives to @buf until at least @want bytes are there or the
// peer closes, resets, or the deadline passes.
Event read_until(int fd, mpa::Bytes &buf, std::size_t want, Clock::time_point deadline);

double secs_since(Clock::time_point t0);
Clock::time_point after_ms(long ms);

} // namespace net
