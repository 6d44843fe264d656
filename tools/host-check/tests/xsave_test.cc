// SPDX-License-Identifier: GPL-2.0
// GoogleTest of host-check's XSAVE comparison (any host: the sizes are
// given) and of the ptrace behaviour it rests on (this host: a buffer
// smaller than the host's area is refused with EFAULT, which is how the UML
// kernel panics on a host with AMX; one as large or larger is taken).
// Run by `make host-check-test` (tools/check.sh); "N passed, N failed" last.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "../xsave.h"

namespace {

struct Case {
	std::size_t host, kernel;
	bool fits;
};

class Verdict : public testing::TestWithParam<Case> {};

TEST_P(Verdict, FitsAndNamesBothFigures)
{
	const Case c = GetParam();
	auto v = hostcheck::fp_buffer_verdict(c.host, c.kernel);

	EXPECT_EQ(v.fits, c.fits);
	EXPECT_NE(v.message.find(std::to_string(c.host) + " bytes"), std::string::npos) << v.message;
	EXPECT_NE(v.message.find(std::to_string(c.kernel) + " bytes"), std::string::npos) << v.message;
	EXPECT_EQ(v.message.find("does NOT fit") != std::string::npos, !c.fits) << v.message;
}

INSTANTIATE_TEST_SUITE_P(
	Sizes, Verdict,
	testing::Values(
		// x87/SSE/AVX host, 6.12's stock 2696-byte buffer.
		Case{832, 2696, true},
		// AVX-512 + PKRU: exactly the stock buffer.
		Case{2696, 2696, true},
		// AMX (Sapphire Rapids and later) against the stock buffer:
		// the panic the patch removes.
		Case{11008, 2696, false},
		// AMX against the patched buffer.
		Case{11008, 12288, true},
		// One byte over the patched buffer.
		Case{12289, 12288, false}));

TEST(Probe, MeasuresTheHostArea)
{
	std::string err;
	auto n = hostcheck::probe_xsave_bytes(err);

	ASSERT_TRUE(n.has_value()) << err;
	// The legacy area and the XSAVE header at least.
	EXPECT_GE(*n, 576u);
	// ptrace's area is the one CPUID reports for XCR0's features.
	if (hostcheck::cpuid_xsave_bytes()) {
		EXPECT_EQ(*n, hostcheck::cpuid_xsave_bytes());
	}
}

// The host kernel behaviour behind the panic, reproduced on any host.
TEST(Probe, SetRegsetRefusesASmallerBuffer)
{
	std::string err;
	auto n = hostcheck::probe_xsave_bytes(err);

	ASSERT_TRUE(n.has_value()) << err;
	EXPECT_EQ(hostcheck::try_setregset(*n, err), 0) << err;
	EXPECT_EQ(hostcheck::try_setregset(*n + 4096, err), 0) << "a larger buffer is clamped";
	EXPECT_EQ(hostcheck::try_setregset(*n - 64, err), EFAULT);
}

} // namespace

#define GTEST_SUMMARY_PREFIX "host-check"
#include "../../gtest/summary_main.h"
