// SPDX-License-Identifier: GPL-2.0
// See xsave.h.
#include "xsave.h"

#include <cerrno>
#include <cpuid.h>
#include <csignal>
#include <cstring>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace hostcheck {

namespace {

// Larger than any XSAVE area (AMX makes 11008 bytes).
constexpr std::size_t probe_bytes = 64 * 1024;

// A child stopped under our ptrace, killed and reaped when this goes away.
class TracedChild {
public:
	explicit TracedChild(std::string &err)
	{
		pid_ = fork();
		if (pid_ < 0) {
			err = std::string("fork: ") + std::strerror(errno);
			return;
		}
		if (pid_ == 0) {
			if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) < 0)
				_exit(2);
			raise(SIGSTOP);
			_exit(0);
		}
		int st = 0;
		if (waitpid(pid_, &st, 0) != pid_ || !WIFSTOPPED(st)) {
			err = "ptrace: the child did not stop under PTRACE_TRACEME "
			      "(ptrace forbidden? see /proc/sys/kernel/yama/ptrace_scope, seccomp)";
			reap();
			return;
		}
		stopped_ = true;
	}
	~TracedChild() { reap(); }
	TracedChild(const TracedChild &) = delete;
	TracedChild &operator=(const TracedChild &) = delete;
	bool ok() const { return stopped_; }
	pid_t pid() const { return pid_; }

private:
	void reap()
	{
		if (pid_ <= 0)
			return;
		kill(pid_, SIGKILL);
		while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
		}
		pid_ = -1;
	}
	pid_t pid_ = -1;
	bool stopped_ = false;
};

// GETREGSET NT_X86_XSTATE into @buf; the area's size or nullopt.
std::optional<std::size_t> get_xstate(pid_t pid, std::vector<unsigned char> &buf, std::string &err)
{
	iovec iov{buf.data(), buf.size()};
	if (ptrace(PTRACE_GETREGSET, pid, reinterpret_cast<void *>(NT_X86_XSTATE), &iov) < 0) {
		err = std::string("PTRACE_GETREGSET(NT_X86_XSTATE): ") + std::strerror(errno);
		return std::nullopt;
	}
	return iov.iov_len;
}

} // namespace

Verdict fp_buffer_verdict(std::size_t host_bytes, std::size_t kernel_bytes)
{
	std::string figures = "host XSAVE area " + std::to_string(host_bytes) +
			      " bytes, test kernel FP buffer (HOST_FP_SIZE) " +
			      std::to_string(kernel_bytes) + " bytes";
	if (host_bytes <= kernel_bytes)
		return {true, figures + ": fits"};
	return {false, figures + ": does NOT fit; the UML kernel would panic at boot "
			   "(\"ptrace set fp regs failed, errno = 14\"); raise HOST_FP_SIZE in "
			   "tools/uml/patches/0005-um-xsave-size-amx.patch to at least " +
			   std::to_string(host_bytes) + " bytes"};
}

std::optional<std::size_t> probe_xsave_bytes(std::string &err)
{
	TracedChild c(err);
	if (!c.ok())
		return std::nullopt;
	std::vector<unsigned char> buf(probe_bytes);
	return get_xstate(c.pid(), buf, err);
}

std::size_t cpuid_xsave_bytes()
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_XSAVE))
		return 0;
	if (!__get_cpuid_count(0xd, 0, &a, &b, &c, &d))
		return 0;
	return b;
}

int try_setregset(std::size_t bytes, std::string &err)
{
	TracedChild c(err);
	if (!c.ok())
		return -1;
	std::vector<unsigned char> buf(bytes > probe_bytes ? bytes : probe_bytes);
	if (!get_xstate(c.pid(), buf, err))
		return -1;
	iovec iov{buf.data(), bytes};
	if (ptrace(PTRACE_SETREGSET, c.pid(), reinterpret_cast<void *>(NT_X86_XSTATE), &iov) < 0)
		return errno;
	return 0;
}

} // namespace hostcheck
