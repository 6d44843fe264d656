// SPDX-License-Identifier: GPL-2.0
// host-check: what tools/host-check.sh asks of the host that a shell cannot
// tell. One subcommand a line of output; exit status 0 (fits, works) or 1.
//
//   host-check xsave KERNEL_BYTES [HOST_BYTES]
//       the host's user XSAVE area (measured through ptrace, or HOST_BYTES
//       when given) against the test kernel's FP buffer of KERNEL_BYTES
//   host-check ptrace
//       a child can be traced and its XSAVE state read (UML runs under
//       ptrace)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "xsave.h"

namespace {

int usage()
{
	std::fprintf(stderr, "usage: host-check xsave KERNEL_BYTES [HOST_BYTES] | host-check ptrace\n");
	return 2;
}

bool parse_size(const char *s, std::size_t &out)
{
	char *end = nullptr;
	unsigned long long v = std::strtoull(s, &end, 10);

	if (!*s || *end || v == 0 || v > (1ULL << 30))
		return false;
	out = v;
	return true;
}

} // namespace

int main(int argc, char **argv)
{
	std::string cmd = argc > 1 ? argv[1] : "";
	std::string err;

	if (cmd == "ptrace" && argc == 2) {
		auto n = hostcheck::probe_xsave_bytes(err);
		if (!n) {
			std::printf("ptrace: %s\n", err.c_str());
			return 1;
		}
		std::printf("ptrace: a traced child's XSAVE state reads (%zu bytes)\n", *n);
		return 0;
	}
	if (cmd == "xsave" && (argc == 3 || argc == 4)) {
		std::size_t kernel_bytes, host_bytes;
		if (!parse_size(argv[2], kernel_bytes))
			return usage();
		if (argc == 4) {
			if (!parse_size(argv[3], host_bytes))
				return usage();
		} else {
			auto n = hostcheck::probe_xsave_bytes(err);
			if (!n) {
				std::printf("xsave: cannot measure the host's XSAVE area: %s\n", err.c_str());
				return 1;
			}
			host_bytes = *n;
			std::printf("xsave: CPUID 0xD says %zu bytes, ptrace %zu\n",
				    hostcheck::cpuid_xsave_bytes(), host_bytes);
		}
		auto v = hostcheck::fp_buffer_verdict(host_bytes, kernel_bytes);
		std::printf("xsave: %s\n", v.message.c_str());
		return v.fits ? 0 : 1;
	}
	return usage();
}
