# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-bench-topology (cosched-bench-topology(1)) at a small size: the
benchmark's own checks hold (every load, from the machine and from the
copy, describes the same machine: exit status 0), it prints a row for each
source and their ratio, and the copy costs less than hwloc's scan of /sys,
by a margin (20 times on the 2-CPU VM) that no noise closes.  No Slurm
cluster; a second."""

import re
import subprocess

from bench_output import bench_program, medians


def _bench():
    return bench_program("cosched-bench-topology")


def test_bench_topology_small():
    r = subprocess.run([_bench(), "10", "3"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.match(r"cosched-bench-topology: 10 loads a repeat, 3 "
                    r"interleaved repeats; packages=\d+ cores=\d+ pus=\d+ "
                    r"numa=\d+ source=system$", r.stdout.splitlines()[0]), \
        r.stdout
    assert sorted(medians(r.stdout)) == ["copy", "machine"], r.stdout
    m = re.search(r"^  copy/machine median ([\d.]+), worst copy / best "
                  r"machine ([\d.]+)$", r.stdout, re.M)
    assert m, r.stdout
    # The worst copy against the best scan: ranges apart.
    assert float(m.group(2)) < 1, r.stdout


def test_bench_topology_bad_argument():
    r = subprocess.run([_bench(), "0"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2
    assert 'LOADS: invalid value "0" (1..100000)' in r.stderr, r.stderr
