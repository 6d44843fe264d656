#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The bench tools' unit tests (test_profile.py, test_report.py) in one run:
`make check`'s step bench-tools. The last line is "N passed, N failed"."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_profile  # noqa: E402
import test_report  # noqa: E402

if __name__ == "__main__":
    sys.exit(test_profile.run(test_profile.ProfileTest, test_report.ReportTest))
