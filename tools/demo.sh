#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: boot the UML VM with our rdma_cm/iw_cm (under the stock rdma_ucm),
# show that the loaded modules are ours, and rping between two network
# namespaces over siw, printing the connection events.
#   tools/demo.sh [--stack stock]    the same with the in-tree stack
set -euo pipefail
exec "$(dirname "$0")/vm/run.sh" --demo --stack ours "$@"
