# SPDX-License-Identifier: GPL-2.0-or-later
"""What the tests of the C benchmarks share (research/bench): where the
built program is, and the rows bench_print() prints ("  WHAT median M ms
range LO .. HI ms", bench_common.h)."""

import os
import re

import pytest

from cosched_loopback.cluster import default_builddir

ROW_RE = re.compile(r"\s+(\w+(?: \w+)?)\s+median\s+([\d.]+) ms\s+range\s+"
                    r"([\d.]+) \.\.\s+([\d.]+) ms$")


def bench_program(name):
    """The built benchmark name, or the test fails saying to build it."""
    path = os.path.join(default_builddir(), "research", "bench", name)
    if not os.path.exists(path):
        pytest.fail(f"{name} is not built: run scripts/build")
    return path


def medians(stdout):
    """{WHAT: median} of every bench_print() row, each checked to lie in
    its own range."""
    out = {}
    for line in stdout.splitlines():
        m = ROW_RE.match(line)
        if m:
            med, lo, hi = (float(x) for x in m.group(2, 3, 4))
            assert lo <= med <= hi, line
            out[m.group(1)] = med
    return out
