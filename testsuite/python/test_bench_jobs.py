# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-bench-jobs, as small as it runs (cosched-bench-jobs(1)): the
real programs run as jobs under none and app_aware, every job's run time
is measured by the job, each program's solo time is measured, and the
decision record's prediction is set beside each measurement.  Whether the
target passes is not checked here: one short run on a shared machine says
little (doc/bench-jobs.md holds the measured table)."""

import json
import os
import subprocess
import sys

import pytest

from cosched_loopback.cluster import default_builddir
from conftest import require_environment

BENCH_DIR = os.path.normpath(os.path.join(
    os.path.dirname(__file__), "..", "..", "research", "bench"))
BENCH = os.path.join(BENCH_DIR, "cosched-bench-jobs")
sys.path.insert(0, BENCH_DIR)
import bench_pairs  # noqa: E402


def test_plans_in_queue_order():
    """What a pair table allows with and without Slurm's order of start,
    on a table computed by hand: solo times 1, mem beside mem 2, rand
    beside mem 4, every other pair 1.  A pair {mem,rand} then holds the
    node 1 + (1 - 1/4) = 1.75 s, {mem,mem} 2 s, any other pair 1 s."""
    apps = ("mem", "rand", "cpu")
    solo = dict.fromkeys(apps, 1.0)
    sd = {(a, b): 1.0 for a in apps for b in apps}
    sd[("mem", "mem")], sd[("rand", "mem")] = 2.0, 4.0
    queue = ["mem", "mem", "rand", "rand", "cpu", "cpu", "cpu", "cpu"]
    gang = bench_pairs.plan_time(bench_pairs.queue_order_plan(queue),
                                 solo, sd)
    assert gang == pytest.approx(5.0)
    # Queue order: the first four pair among themselves, and {mem,rand}
    # twice (3.5 s) is worse than gang's {mem,mem} {rand,rand} (3 s).
    kept_s, kept = bench_pairs.in_order_plan(queue, solo, sd, 4)
    assert kept_s == pytest.approx(5.0)
    assert sorted(kept[:2]) == [("mem", "mem"), ("rand", "rand")]
    # Any order: each mem beside a cpu job.
    best_s, best = bench_pairs.best_plan(queue, solo, sd)
    assert best_s == pytest.approx(4.0)
    assert best.count(("mem", "cpu")) == 2
    # Over the 8!/(2! 2! 4!) orders, queue order allows between nothing
    # (mem,cpu,mem,cpu,... is gang's best already) and 3/11: gang pairs
    # mem,rand,cpu,cpu,mem,rand,cpu,cpu as {mem,rand} {cpu,cpu} twice
    # (5.5 s), where each block of four allows {mem,cpu} {rand,cpu} (4 s).
    gains = bench_pairs.order_gains(queue, solo, sd, 4)
    assert len(gains) == 420
    assert min(gains) == pytest.approx(0.0)
    assert max(gains) == pytest.approx(3 / 11)
    assert bench_pairs.order_gains(queue + ["cpu"], solo, sd, 4) is None


@pytest.mark.cluster
def test_bench_jobs_smallest(tmp_path):
    require_environment()
    out = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, BENCH, "--builddir",
                        default_builddir(), "--repeats", "1", "--seconds",
                        "1", "--queue", "mem,mem,cpu", "--variants",
                        "none,app_aware:strict", "--json", str(out),
                        "--accounting"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ratio to none" in r.stdout, r.stdout
    doc = json.loads(out.read_text())
    assert set(doc["variants"]) == {"none", "app_aware:strict"}
    for a in ("mem", "cpu"):
        assert len(doc["solo_s"][a]) == 1 and doc["solo_s"][a][0] > 0.2
    for v, res in doc["variants"].items():
        assert len(res["makespan_s"]) == 1 and res["makespan_s"][0] > 0
        jobs = res["jobs"][0]
        assert [j["app"] for j in jobs] == ["mem", "mem", "cpu"]
        for j in jobs:
            assert j["end"] > j["start"] >= 0, j
            assert j["measured_slowdown"] > 0.3, j
            # Every job has a record with the model's prediction.
            assert j["state"] == "placed", j
            assert j["predicted_slowdown"] >= 1.0, j
    assert doc["variants"]["none"]["ratio_to_none"] == [1.0]
    # The model check read every run's step records: the solo runs, and
    # the co-runs with the class and prediction their records carry.
    mc = doc["model_check"]
    assert mc["records"] >= 2 + 2 * 3, mc
    assert mc["solo_runs"].get("mem", 0) >= 1, mc
    assert mc["solo_runs"].get("cpu", 0) >= 1, mc
    assert mc["observations"] >= 1, mc
    assert "the model against every co-run above" in r.stdout
    # --accounting: the report of every job from slurmdbd, per policy
    # (the records' policy) and per job; this machine has no RAPL, so
    # energy is unknown, with the reason, never a figure.
    report = r.stdout[r.stdout.index("(cosched-report, from slurmdbd):"):]
    per_policy = {l.split()[0]: l.split() for l in report.splitlines()
                  if l.split() and l.split()[0] in ("none", "app_aware")}
    # none: 2 solo runs and 3 co-run jobs; app_aware: 3 jobs.
    assert per_policy["none"][1:3] == ["5", "5"], report
    assert per_policy["app_aware"][1:3] == ["3", "3"], report
    assert "unknown" in per_policy["none"], report
    assert "energy unknown for 8 jobs: their nodes measured no energy" in \
        report, report

    # A queue naming a program it does not have is refused at once.
    r = subprocess.run([sys.executable, BENCH, "--queue", "mem,gpu"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "unknown program 'gpu'" in r.stderr, \
        r.stderr


def test_variants_refused():
    """A variant the bench cannot run is refused before any cluster
    starts, naming it: an unknown suffix, +site without the table it
    reads (wherever the suffix stands), +pairs outside --timeshare."""
    for variants, says in (
            ("app_aware+fast", "app_aware+fast: the suffixes are"),
            ("app_aware+site", "app_aware+site: +site needs --site-table"),
            ("app_aware+site+learned",
             "app_aware+site+learned: +site needs --site-table"),
            ("app_aware+pairs", "app_aware+pairs: +pairs is for "
             "--timeshare")):
        r = subprocess.run([sys.executable, BENCH, "--variants", variants],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and f"--variants: {says}" in r.stderr, \
            (variants, r.stderr)


@pytest.mark.cluster
def test_bench_jobs_timeshare(tmp_path):
    """--timeshare: the pair table, then the same queue time-shared by
    Slurm's gang on plain cons_tres and under app_aware: the slices seen
    differ as test_time_share.py shows (cons_tres runs the two mem jobs
    together, app_aware never), and the makespans and ratio lines are
    printed."""
    require_environment()
    out = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, BENCH, "--builddir",
                        default_builddir(), "--timeshare", "--repeats", "1",
                        "--seconds", "3", "--queue", "mem,mem,cpu,cpu",
                        "--variants", "cons_tres,app_aware+pairs", "--json",
                        str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    text = r.stdout
    for heading in ("the pair table of this machine",
                    "the slices as they ran",
                    "each pair that ran together",
                    "the best plan: ",
                    "the best plan that starts jobs in queue order"):
        assert heading in text, text
    lines = text.splitlines()
    # The pair table: a row per program, its solo time and its slowdown
    # beside each.
    head = next(i for i, l in enumerate(lines) if l.split()[:2] ==
                ["solo", "s"])
    rows = [l.split() for l in lines[head + 1:head + 3]]
    assert [w[0] for w in rows] == ["mem", "cpu"] and \
        all(len(w) == 1 + 3 * 2 for w in rows), lines[head:head + 3]
    assert any(l.startswith("cons_tres ") and "1.000 [1.000..1.000]" in l
               for l in lines), text
    assert any(l.startswith("app_aware+pairs: makespan ") and
               "of Slurm gang's" in l for l in lines), text
    doc = json.loads(out.read_text())
    assert doc["timeshare"] and len(doc["pair_tables"]) == 1
    pairs = doc["pair_tables"][0]["slowdown"]
    assert set(pairs) == {"mem+mem", "mem+cpu", "cpu+mem", "cpu+cpu"}, pairs
    assert all(0.3 < x < 20 for x in pairs.values()), pairs
    slices = {v: [tuple(sorted(n.rstrip("0123456789") for n in s[2]))
                  for s in res["slices"][0] if len(s[2]) == 2]
              for v, res in doc["variants"].items()}
    # cons_tres takes idle cores first: the two mem jobs share a slice.
    assert ("mem", "mem") in slices["cons_tres"], slices
    # app_aware puts the second mem job on the first one's core: they
    # alternate, and every slice of two pairs a mem with a cpu job.
    assert slices["app_aware+pairs"] and \
        set(slices["app_aware+pairs"]) == {("cpu", "mem")}, slices
    # +pairs: slurmctld's model is the pair table measured in the repeat,
    # so each record read beside one job predicts that pair's measurement
    # (to the line's two decimals; a time-shared record's slowdown is the
    # worst beside it, never below 1).
    predicted = doc["variants"]["app_aware+pairs"]["predicted"]
    assert predicted, doc["variants"]["app_aware+pairs"]
    for pair, x in predicted.items():
        assert x == pytest.approx(max(1.0, pairs[pair]), abs=0.006), \
            (pair, x, pairs)
    for v, res in doc["variants"].items():
        assert len(res["makespan_s"]) == 1 and res["makespan_s"][0] > 0
        assert all(x > 0.3 for x in res["slowdown"][0]), res["slowdown"]
    assert doc["variants"]["cons_tres"]["ratio_to_gang"] == [1.0]
    # Four jobs fit the node at once, so queue order allows the best plan.
    assert doc["plans"]["in_order"]["s"] == \
        pytest.approx(doc["plans"]["best"]["s"]), doc["plans"]
