# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-bench-learner (cosched-bench-learner(1)) at a small size: the
benchmark's own checks hold (what each run learned, and whether it read
ProfileDir/jobs: exit status 0), it prints a row for each run kind and
store, and a quiet run, which does not read the folder, costs less than
an idle one, which reads 2,000 kept names.  No Slurm cluster; a few
seconds."""

import re
import subprocess

from bench_output import bench_program, medians


def _bench():
    return bench_program("cosched-bench-learner")


def test_bench_learner_small():
    r = subprocess.run([_bench(), "2000", "200", "5"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = medians(r.stdout)
    assert sorted(rows) == sorted(
        f"{kind} {store}" for kind in ("idle", "new", "quiet")
        for store in ("kept", "empty")), r.stdout
    # Not reading the folder is cheaper than reading 2,200 names.
    assert rows["quiet kept"] < rows["idle kept"], r.stdout
    for kind in ("idle", "new", "quiet"):
        assert re.search(rf"^  {kind}\s+kept/empty median [\d.]+, worst "
                         r"kept / best empty [\d.]+$", r.stdout, re.M), \
            r.stdout


def test_bench_learner_bad_argument():
    r = subprocess.run([_bench(), "lots"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2
    assert 'KEPT: invalid value "lots"' in r.stderr, r.stderr
