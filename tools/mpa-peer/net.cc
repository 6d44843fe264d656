// SPDX-License-Identifier: GPL-2.0
#include "net.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

namespace net {

bool make_addr(const std::string &host, std::uint16_t port, Addr &out)
{
	out = Addr{};
	auto *v4 = reinterpret_cast<sockaddr_in *>(&out.ss);
	auto *v6 = reinterpret_cast<sockaddr_in6 *>(&out.ss);
	if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(port);
		out.len = sizeof(*v4);
		return true;
	}
	if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(port);
		out.len = sizeof(*v6);
		return true;
	}
	return false;
}

Fd &Fd::operator=(Fd &&o) noexcept
{
	if (this != &o)
		reset(o.release());
	return *this;
}

Fd::~Fd()
{
	reset();
}

int Fd::release()
{
	int fd = fd_;
	fd_ = -1;
	return fd;
}

void Fd::reset(int fd)
{
	if (fd_ >= 0)
		::close(fd_);
	fd_ = fd;
}

int connect_start(const Addr &a, Fd &out, const Addr &src)
{
	int fd = ::socket(a.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	out.reset(fd);
	int one = 1;
	::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (src.len && ::bind(fd, reinterpret_cast<const sockaddr *>(&src.ss), src.len))
		return errno;
	if (::connect(fd, reinterpret_cast<const sockaddr *>(&a.ss), a.len) == 0)
		return 0;
	return errno;
}

static int wait_connected(int fd, Clock::time_point deadline)
{
	for (;;) {
		auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
		if (left.count() <= 0)
			return ETIMEDOUT;
		pollfd p{fd, POLLOUT, 0};
		int n = ::poll(&p, 1, static_cast<int>(left.count()));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			continue;
		int err = 0;
		socklen_t l = sizeof(err);
		::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l);
		return err;
	}
}

int connect_to(const Addr &a, Clock::time_point deadline, Fd &out, const Addr &src)
{
	int rc = connect_start(a, out, src);
	if (rc == EINPROGRESS)
		rc = wait_connected(out.get(), deadline);
	if (rc)
		return rc;
	// Blocking from here on: send_all and read_until poll anyway.
	int fl = ::fcntl(out.get(), F_GETFL);
	::fcntl(out.get(), F_SETFL, fl & ~O_NONBLOCK);
	return 0;
}

int send_all(int fd, std::span<const std::uint8_t> b)
{
	std::size_t off = 0;
	while (off < b.size()) {
		ssize_t n = ::send(fd, b.data() + off, b.size() - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		off += static_cast<std::size_t>(n);
	}
	return 0;
}

const char *event_name(Event e)
{
	switch (e) {
	case Event::Data: return "data";
	case Event::Eof: return "close";
	case Event::Reset: return "rst";
	case Event::Timeout: return "timeout";
	case Event::Error: return "error";
	}
	return "?";
}

std::string end_name(Event e)
{
	return e == Event::Error ? "close" : event_name(e);
}

Event read_until(int fd, mpa::Bytes &buf, std::size_t want, Clock::time_point deadline)
{
	std::uint8_t tmp[4096];
	while (buf.size() < want) {
		auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
		if (left.count() <= 0)
			return Event::Timeout;
		pollfd p{fd, POLLIN, 0};
		int n = ::poll(&p, 1, static_cast<int>(left.count()));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return Event::Error;
		if (n == 0)
			continue;
		ssize_t r = ::recv(fd, tmp, sizeof(tmp), MSG_DONTWAIT);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return errno == ECONNRESET ? Event::Reset : Event::Error;
		if (r == 0)
			return Event::Eof;
		buf.insert(buf.end(), tmp, tmp + r);
	}
	return Event::Data;
}

double secs_since(Clock::time_point t0)
{
	return std::chrono::duration<double>(Clock::now() - t0).count();
}

Clock::time_point after_ms(long ms)
{
	return Clock::now() + std::chrono::milliseconds(ms);
}

} // namespace net
