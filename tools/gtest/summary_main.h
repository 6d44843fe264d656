// SPDX-License-Identifier: GPL-2.0
// The main() of the project's GoogleTest programs: a "FAIL PREFIX:Suite.Test"
// line per failed test and, last, "N passed, N failed" (tools/check.sh counts
// it). Include once, in one file of the program, after defining
// GTEST_SUMMARY_PREFIX as a string literal.
#pragma once

#include <cstdio>
#include <gtest/gtest.h>

namespace gtest_summary {

class Summary : public testing::EmptyTestEventListener {
	void OnTestEnd(const testing::TestInfo &t) override
	{
		if (t.result()->Failed())
			std::printf("FAIL %s:%s.%s\n", GTEST_SUMMARY_PREFIX, t.test_suite_name(), t.name());
	}
	void OnTestProgramEnd(const testing::UnitTest &u) override
	{
		std::printf("%d passed, %d failed\n", u.successful_test_count(), u.failed_test_count());
	}
};

} // namespace gtest_summary

int main(int argc, char **argv)
{
	testing::InitGoogleTest(&argc, argv);
	testing::UnitTest::GetInstance()->listeners().Append(new gtest_summary::Summary);
	return RUN_ALL_TESTS();
}
