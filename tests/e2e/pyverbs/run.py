#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""rdma-core's tests/run_tests.py, with the suite's device discovery taught
about software RNICs on virtual netdevs (tests/e2e/pyverbs-rdmacm.sh).

The suite finds a device's IP address through
/sys/class/infiniband/DEV/device/net/, which only a device with a parent
(PCI) device has: rxe and siw on a veth have none, so every rdma_cm test
skips. Here the netdev comes from `rdma link show` instead. And it takes no
GID whose last 8 bytes are zero, which an iWARP GID always is (siw's is its
MAC): an iWARP port is taken with GID index 0. Nothing else changes.

Usage: run.py SUITE_DIR VERDICTS [run_tests.py arguments]; SUITE_DIR holds
tests/. One line per test is written to VERDICTS, sorted: its id and "ok",
"skip: REASON", "error" or "fail", for tests/e2e/pyverbs-rdmacm.sh to
compare with the verdicts the stock stack gets.
"""
import json
import os
import subprocess
import sys
import unittest
from importlib.machinery import SourceFileLoader

suite = os.path.abspath(sys.argv.pop(1))
verdicts_file = sys.argv.pop(1)
sys.path.insert(0, os.path.join(suite, "tests"))
from args_parser import parser  # noqa: E402  (the suite's own)

tests = SourceFileLoader("tests", os.path.join(suite, "tests", "__init__.py")).load_module()
import tests.base as base  # noqa: E402


def link_netdev(dev, port):
    out = subprocess.check_output(["rdma", "-j", "link", "show", "%s/%d" % (dev, port)])
    links = json.loads(out.decode())
    return links[0].get("netdev") if links else None


def is_iwarp(dev):
    with open("/sys/class/infiniband/%s/node_type" % dev) as f:
        return f.read().startswith("4:")


suite_get_ip_mac = base.RDMATestCase._get_ip_mac
suite_add_gids = base.RDMATestCase._add_gids_per_port


def get_ip_mac(self, dev, port, idx):
    if os.path.exists("/sys/class/infiniband/%s/device/net/" % dev):
        return suite_get_ip_mac(self, dev, port, idx)
    ip = mac = None
    netdev = link_netdev(dev, port)
    if netdev:
        try:
            ip, mac = self.get_ip_mac_address(netdev)
        except (KeyError, IndexError):
            pass
    self.args.append([dev, port, idx, ip, mac])


def add_gids_per_port(self, ctx, dev, port):
    before = len(self.args)
    suite_add_gids(self, ctx, dev, port)
    if len(self.args) == before and is_iwarp(dev) and \
            ctx.query_port(port).state == base.e.IBV_PORT_ACTIVE:
        self._get_ip_mac(dev, port, 0)


class Recorder(unittest.TextTestResult):
    """The suite's verbose output, and each test's verdict."""
    verdicts = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.verdicts.append("%s ok" % test.id())

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.verdicts.append("%s skip: %s" % (test.id(), reason))

    def addError(self, test, err):
        super().addError(test, err)
        self.verdicts.append("%s error" % test.id())

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.verdicts.append("%s fail" % test.id())


class Runner(unittest.TextTestRunner):
    resultclass = Recorder


base.RDMATestCase._get_ip_mac = get_ip_mac
base.RDMATestCase._add_gids_per_port = add_gids_per_port
parser.parse_args()
prog = unittest.main(module=tests, exit=False, testRunner=Runner)
with open(verdicts_file, "w") as f:
    f.write("".join(v + "\n" for v in sorted(Recorder.verdicts)))
sys.exit(0 if prog.result.wasSuccessful() else 1)
