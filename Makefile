# SPDX-License-Identifier: GPL-2.0
# openrdma-cm: out-of-tree RDMA connection manager modules.
#
#   make [KDIR=/path/to/kernel/build] [ARCH=...]  build every module
#   make modules_install                           install into updates/
#   make check                                     the whole test suite
#   make demo                                      rping over our stack in the VM
#   make bench                                     connection-setup benchmark
#   make progs                                     test programs (tests/progs) into build/progs

KDIR ?= /lib/modules/$(shell uname -r)/build
KBUILD_ARGS := -C $(KDIR) M=$(CURDIR) $(if $(ARCH),ARCH=$(ARCH))

all: modules

modules:
	$(MAKE) $(KBUILD_ARGS) modules

modules_install:
	$(MAKE) $(KBUILD_ARGS) INSTALL_MOD_DIR=updates modules_install

clean:
	$(MAKE) $(KBUILD_ARGS) clean

check:
	tools/check.sh

demo:
	tools/demo.sh

bench:
	tools/bench.sh

# Userspace test programs, run inside the VM by tests/e2e (built on the host:
# the VM sees the tree read-only). Needs librdmacm-dev and libibverbs-dev.
PROGS := $(patsubst tests/progs/%.c,build/progs/%,$(wildcard tests/progs/*.c))
progs: $(PROGS)

build/progs/%: tests/progs/%.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -o $@ $< -lrdmacm -libverbs

.PHONY: all modules modules_install clean check demo bench progs
