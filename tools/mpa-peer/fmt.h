// SPDX-License-Identifier: GPL-2.0
// printf into a std::string, for mpa-peer's messages.
#pragma once

#include <cstdio>
#include <string>

namespace peer {

std::string fmt(const char *f, auto... a)
{
	char buf[512];
	std::snprintf(buf, sizeof(buf), f, a...);
	return buf;
}

} // namespace peer
