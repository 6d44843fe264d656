// SPDX-License-Identifier: GPL-2.0
// The host's XSAVE area against the test kernel's FP register buffer.
//
// UML restores a user task's FP state with PTRACE_SETREGSET (NT_X86_XSTATE)
// from a buffer of fixed size (HOST_FP_SIZE, arch/x86/um/user-offsets.c).
// The host kernel takes a buffer of at least its whole user XSAVE area and
// answers EFAULT to a smaller one (a larger one is clamped): with too small
// a buffer the VM panics at its first return to init. These helpers tell,
// before a VM boots, whether the buffer fits the host.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace hostcheck {

// Whether a kernel whose FP buffer is @kernel_bytes runs on a host whose
// user XSAVE area is @host_bytes, and one line that names both figures.
struct Verdict {
	bool fits;
	std::string message;
};
Verdict fp_buffer_verdict(std::size_t host_bytes, std::size_t kernel_bytes);

// The user XSAVE area size the host's ptrace takes (PTRACE_GETREGSET into
// a buffer larger than any area returns the area's size in iov_len): what
// UML meets. nullopt with @err set when ptrace or XSAVE is not available.
std::optional<std::size_t> probe_xsave_bytes(std::string &err);

// CPUID leaf 0xD, sub-leaf 0, EBX: the XSAVE area of the features enabled
// in XCR0; 0 without XSAVE. Printed beside the ptrace figure.
std::size_t cpuid_xsave_bytes();

// PTRACE_SETREGSET of NT_X86_XSTATE with a buffer of @bytes (the host's
// own state read first, so a success writes back what was there) on a
// traced child: 0 or the errno, as UML's restore_fp_registers() sees it.
// -1 with @err set when the child cannot be traced.
int try_setregset(std::size_t bytes, std::string &err);

} // namespace hostcheck
