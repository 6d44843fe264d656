# SPDX-License-Identifier: GPL-2.0
# openrdma-cm: out-of-tree RDMA connection manager modules.
#
#   make [KDIR=/path/to/kernel/build] [ARCH=...]  build every module
#   make modules_install                           install into updates/
#   make check                                     the whole test suite
#   make demo                                      rping over our stack in the VM
#   make bench                                     connection-setup benchmark

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

.PHONY: all modules modules_install clean check demo bench
