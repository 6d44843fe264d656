# SPDX-License-Identifier: GPL-2.0
# openrdma-cm: out-of-tree RDMA connection manager modules.
#
#   make [KDIR=/path/to/kernel/build] [ARCH=...]  build the shipped modules
#   make ... ORCM_TESTS=1                          and the test modules (tests/)
#   make modules_install                           install into updates/
#   make check                                     the whole test suite
#   make demo                                      rping over our stack in the VM
#   make bench                                     connection-setup benchmark
#   make progs                                     test programs (tests/progs, tools/mpa-peer) into build/progs
#   make mpa-peer-check                            GoogleTest of tools/mpa-peer (host only)
#   make host-check-test                           GoogleTest of tools/host-check (host only)

KDIR ?= /lib/modules/$(shell uname -r)/build
KBUILD_ARGS := -C $(KDIR) M=$(CURDIR) $(if $(ARCH),ARCH=$(ARCH))

all: modules

modules:
	$(MAKE) $(KBUILD_ARGS) modules

modules_install:
	$(MAKE) $(KBUILD_ARGS) INSTALL_MOD_DIR=updates modules_install

clean:
	$(MAKE) $(KBUILD_ARGS) clean
	rm -rf .compat

check:
	tools/check.sh

demo:
	tools/demo.sh

bench:
	tools/bench.sh

# The churn soak (tests/soak/churn.sh), both stacks; outside make check.
soak:
	tools/soak.sh

# Userspace test programs, run inside the VM by tests/e2e (built on the host:
# the VM sees the tree read-only). Needs librdmacm-dev and libibverbs-dev.
PROGS := $(patsubst tests/progs/%.c,build/progs/%,$(wildcard tests/progs/*.c))
progs: $(PROGS) build/progs/mpa-peer

build/progs/%: tests/progs/%.c $(wildcard tests/progs/*.h)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -o $@ $< -lrdmacm -libverbs

# The adversarial MPA peer (C++20) and its GoogleTest (libgtest-dev); `make
# check` runs the tests on the host before any VM starts.
MPA_PEER_DIR := tools/mpa-peer
MPA_PEER_SRC := $(addprefix $(MPA_PEER_DIR)/,mpa.cc net.cc scenario.cc fuzz.cc fuzzrun.cc)
MPA_PEER_DEP := $(MPA_PEER_SRC) $(wildcard $(MPA_PEER_DIR)/*.h)
MPA_PEER_CXXFLAGS := -std=c++20 -O2 -g -Wall -Wextra -Werror

build/progs/mpa-peer: $(MPA_PEER_DIR)/main.cc $(MPA_PEER_DEP)
	@mkdir -p $(@D)
	$(CXX) $(MPA_PEER_CXXFLAGS) -o $@ $< $(MPA_PEER_SRC) -pthread

MPA_PEER_TESTS := $(wildcard $(MPA_PEER_DIR)/tests/*_test.cc)
build/mpa-peer/mpa_test: $(MPA_PEER_TESTS) $(MPA_PEER_DEP)
	@mkdir -p $(@D)
	$(CXX) $(MPA_PEER_CXXFLAGS) -o $@ $(MPA_PEER_TESTS) $(MPA_PEER_SRC) -lgtest -pthread

# Last line: "N passed, N failed" (tools/check.sh counts it).
mpa-peer-check: build/mpa-peer/mpa_test build/progs/mpa-peer
	@$< --gtest_brief=1

# The host checks a shell cannot make (tools/host-check.sh runs them): the
# host's XSAVE area against the UML kernel's FP buffer, ptrace. C++20.
HOST_CHECK_DIR := tools/host-check
HOST_CHECK_SRC := $(HOST_CHECK_DIR)/xsave.cc
HOST_CHECK_DEP := $(HOST_CHECK_SRC) $(HOST_CHECK_DIR)/xsave.h

build/progs/host-check: $(HOST_CHECK_DIR)/main.cc $(HOST_CHECK_DEP)
	@mkdir -p $(@D)
	$(CXX) $(MPA_PEER_CXXFLAGS) -o $@ $< $(HOST_CHECK_SRC)

build/host-check/xsave_test: $(HOST_CHECK_DIR)/tests/xsave_test.cc $(HOST_CHECK_DEP)
	@mkdir -p $(@D)
	$(CXX) $(MPA_PEER_CXXFLAGS) -o $@ $< $(HOST_CHECK_SRC) -lgtest -pthread

# Last line: "N passed, N failed".
host-check-test: build/host-check/xsave_test
	@$< --gtest_brief=1

.PHONY: all modules modules_install clean check demo bench soak progs mpa-peer-check host-check-test
