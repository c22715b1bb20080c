# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-bench-controller --quick (cosched-bench-controller(1)): the
benchmark runs every variant on a 16-node cluster and prints a table with
positive jobs/s for each, and for every cons_tres_cosched variant the
plugin's own time parsed from its DebugFlags=Timing line.  Whether the
targets pass is not checked here: the figures of one short run on a shared
machine say little."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from cosched_loopback.cluster import default_builddir
from conftest import require_environment

BENCH = os.path.normpath(os.path.join(
    os.path.dirname(__file__), "..", "..", "research", "bench",
    "cosched-bench-controller"))
VARIANTS = ["cons_tres", "none", "gang", "greedy_thread",
            "miss_rate_balance", "miss_rate_bound", "app_aware",
            "min_slowdown"]


def _table(text, heading):
    """{first field: fields} of the rows after the line that starts with
    heading, up to the next blank line."""
    lines = text.splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith(heading))
    rows = {}
    for line in lines[head + 1:]:
        if not line.strip():
            break
        f = line.split()
        rows[f[0]] = f
    return rows


@pytest.mark.cluster
def test_bench_controller_quick(tmp_path):
    require_environment()
    out = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, BENCH, "--quick",
                        "--builddir", default_builddir(), "--json", str(out)],
                       # about 40 s; the bound only ends a hung run
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr

    # The table: a row per variant, after the two heading lines.
    rows = _table(r.stdout, "variant ")
    assert list(rows) == VARIANTS, r.stdout
    for v, f in rows.items():
        # variant jobs/s min..max ratio calls CPU wall CPU wall us/job
        assert len(f) == 10, f
        assert float(f[1]) > 0, f
        assert float(f[3]) > 0, f
        if v == "cons_tres":
            assert float(f[3]) == 1.0 and f[4:] == ["-"] * 6, f
        else:
            assert int(f[4]) >= 100, f      # a job_test call per task
            assert all(float(x) > 0 for x in f[5:]), f
    # Where the CPU went: slurmctld's and the machine's per job, each
    # variant; slurmctld's is part of the machine's.
    cpu = _table(r.stdout, "CPU ms per job ")
    assert list(cpu) == VARIANTS, r.stdout
    for f in cpu.values():
        # ... and the nodes' part, where cgroups could be made.
        assert len(f) in (5, 8), f
        assert 0 < float(f[1]) < float(f[4]), f
        if len(f) == 8:
            assert 0 < float(f[5]) < float(f[4]), f
    # The programs whose threads exited (taskstats), where it can be had.
    taskstats = "CPU of exited threads by program: not measured" \
        not in r.stdout
    if taskstats:
        exited = _table(r.stdout, "exited, ms/job ")
        assert list(exited) == VARIANTS, r.stdout
    # task/cosched's own time a step on the nodes (DebugFlags=Timing,
    # which the benchmark sets), under every variant: a line per step.
    steps = _table(r.stdout, "task/cosched, us ")
    assert list(steps) == VARIANTS, r.stdout
    for f in steps.values():
        # variant steps total init start record sampler tasks end waited
        assert len(f) == 10, f
        assert int(f[1]) >= 100, f
        total, init, start, record, sampler, tasks, end = \
            (float(x) for x in f[2:9])
        assert 0 < init and 0 < start and 0 < sampler <= start, f
        assert record + sampler <= start + 2, f
    # One repeat: no paired table (the ratio says the same).
    assert "paired jobs/s" not in r.stdout, r.stdout
    # Timed runs move with the machine's load: no target is judged on
    # them (--callgrind judges the control plane's).
    assert not re.search(r"^target ", r.stdout, re.M), r.stdout

    doc = json.loads(out.read_text())
    assert doc["nodes"] == 16 and doc["tasks"] == 100 and doc["repeats"] == 1
    assert [row["variant"] for row in doc["table"]] == VARIANTS
    for run in doc["runs"]:
        # The variant placed the jobs: cons_tres_cosched's decision records
        # name its policy and the profiles' classes; none under cons_tres.
        recs = run["records"]
        if run["variant"] == "cons_tres":
            assert all(rec["policy"] is None for rec in recs.values()), run
        else:
            assert recs["stream"]["policy"] == run["variant"], run
            assert recs["stream"]["class"] == "mem", run
            assert recs["compute"]["class"] == "cpu", run
            assert run["timing"]["begin_end_calls"] >= 200, run
        # task/cosched asks slurmctld for no job's record: every job is a
        # batch job on one node, whose record comes with its batch launch
        # request (RecordInLaunch; under cons_tres there is none).  What
        # is left are the benchmark's own reads of the records.
        assert run["job_reads"] < 50, run
        # Where the CPU went by part (cgroups, exited processes counted):
        # slurmctld's group agrees with its own /proc figure, and the
        # nodes (slurmd, steps, jobs, samplers) use most of the machine.
        parts = run["cpu_ms_per_job_by_part"]
        if os.access("/sys/fs/cgroup/cpuacct/cpuacct.usage", os.R_OK) and \
                os.access("/sys/fs/cgroup/cpuacct", os.W_OK):
            assert parts is not None, run
        if parts is not None:
            assert parts["slurmctld"] == pytest.approx(
                run["slurmctld_cpu_ms_per_job"], rel=0.25, abs=0.3), run
            assert 0 < parts["nodes"] < run["machine_cpu_ms_per_job"], run
            assert parts["slurmctld"] + parts["nodes"] < \
                run["machine_cpu_ms_per_job"] * 1.1, run
        # A step timing line for each task's batch step (medians).
        st = run["step_timing_us"]
        assert st["steps"] >= 100, run
        assert st["total"] > 0 and st["waited"] > 0, run
        # Not pinned: slurmctld may use every CPU this test may.
        assert run["slurmctld_cpus"] == sorted(os.sched_getaffinity(0)), run
        # Every job had a step daemon, and under every variant a sampler
        # (task/cosched starts it; without a record it ends at once);
        # their CPU is part of the nodes'.
        if taskstats:
            assert run["exited_error"] is None, run
            ms, n = run["exited_cpu_ms_per_job"], run["exited_threads_per_job"]
            assert n["slurmstepd"] >= 1 and ms["slurmstepd"] > 0, run
            assert n["cosched-sampler"] >= 1, run
            if parts is not None:
                assert ms["slurmstepd"] + ms["cosched-sampler"] < \
                    parts["nodes"] * 1.1, run
        else:
            assert run["exited_error"].startswith("taskstats: "), run


@pytest.mark.cluster
def test_bench_controller_pin(tmp_path):
    # --pin: slurmctld alone on CPU 0 for the whole run, under cons_tres
    # and cons_tres_cosched; the runs complete with the nodes on the rest.
    require_environment()
    if 0 not in os.sched_getaffinity(0) or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("--pin needs CPU 0 and another CPU")
    out = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, BENCH, "--nodes", "4", "--tasks",
                        "20", "--repeats", "2", "--variants", "none",
                        "--pin", "--builddir", default_builddir(),
                        "--cosched-conf", "ProfileMinRuntime=0",
                        "--json", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert ("slurmctld alone on CPU 0; cosched.conf adds "
            "ProfileMinRuntime=0") in r.stdout, r.stdout
    doc = json.loads(out.read_text())
    assert doc["pin"] is True
    assert doc["cosched_conf_extra"] == ["ProfileMinRuntime=0"]
    # Interleaved: the second repeat starts where the first ended.
    assert [run["variant"] for run in doc["runs"]] == \
        ["cons_tres", "none", "none", "cons_tres"]
    for run in doc["runs"]:
        assert run["slurmctld_cpus"] == [0], run
    # Each run against its own repeat's cons_tres run, and cons_tres's
    # runs against their median, in the JSON and in the table.
    rate = {(run["variant"], run["repeat"]): run["jobs_per_s"]
            for run in doc["runs"]}
    base = (rate["cons_tres", 1] + rate["cons_tres", 2]) / 2
    want = {"none": sorted(rate["none", k] / rate["cons_tres", k]
                           for k in (1, 2)),
            "cons_tres": sorted(rate["cons_tres", k] / base
                                for k in (1, 2))}
    paired = _table(r.stdout, "paired jobs/s ")
    assert list(paired) == ["cons_tres", "none"], r.stdout
    for row in doc["table"]:
        lo, hi = want[row["variant"]]
        assert row["paired_ratio"] == pytest.approx((lo + hi) / 2,
                                                    abs=1e-3), row
        assert row["paired_ratio_min"] == pytest.approx(lo, abs=1e-3), row
        assert row["paired_ratio_max"] == pytest.approx(hi, abs=1e-3), row
        f = paired[row["variant"]]
        assert float(f[1]) == pytest.approx(row["paired_ratio"], abs=1e-3)
        assert f[2] == (f"{row['paired_ratio_min']:.3f}.."
                        f"{row['paired_ratio_max']:.3f}"), f


def _require_valgrind():
    require_environment()
    if not shutil.which("valgrind"):
        pytest.skip("no valgrind here (scripts/install-deps installs it on "
                    "the host, not in a Slurm root)")


@pytest.mark.cluster
def test_bench_controller_callgrind(tmp_path):
    # The plugin's instructions per job, counted by callgrind inside its
    # three entry points: each part counted, the sum printed, the profile
    # kept; and its share of all of slurmctld's per job under cons_tres,
    # which the target judges.
    _require_valgrind()
    prefix = tmp_path / "cg"
    r = subprocess.run([sys.executable, BENCH, "--nodes", "4", "--tasks",
                        "20", "--variants", "none", "--callgrind",
                        str(prefix), "--builddir", default_builddir()],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    base = next(int(l.split()[1]) for l in r.stdout.splitlines()
                if l.startswith("cons_tres "))
    # A job costs slurmctld well over 100,000 instructions (its RPCs).
    assert base > 100000, r.stdout
    row = next(l.split() for l in r.stdout.splitlines()
               if l.startswith("none "))
    test, begin, fini, total = (int(x) for x in row[1:5])
    assert begin > 1000 and fini > 1000 and test > 0, r.stdout
    assert total == pytest.approx(test + begin + fini, abs=2), r.stdout
    share = float(row[5].rstrip("%"))
    assert share == pytest.approx(100 * total / base, abs=0.01), r.stdout
    m = re.search(r"^target plugin instructions per job < 3\.5% of "
                  r"cons_tres's slurmctld: (PASS|FAIL) \(highest: none "
                  rf"{total}, ", r.stdout, re.M)
    assert m, r.stdout
    assert (m.group(1) == "PASS") == (share < 3.5), r.stdout
    assert (tmp_path / "cg.none").stat().st_size > 0
    assert (tmp_path / "cg.cons_tres").stat().st_size > 0


@pytest.mark.cluster
def test_bench_controller_callgrind_whole(tmp_path):
    # All of slurmctld's instructions, from the release to the last
    # completion: cons_tres counted too, as the reference (ratio 1), the
    # plugin's calls inside the window, the daemon's start outside it.
    _require_valgrind()
    prefix = tmp_path / "cg"
    r = subprocess.run([sys.executable, BENCH, "--nodes", "4", "--tasks",
                        "20", "--variants", "none", "--callgrind",
                        str(prefix), "--whole", "--builddir",
                        default_builddir()],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {l.split()[0]: l.split() for l in r.stdout.splitlines()
            if l.split() and l.split()[0] in ("cons_tres", "none")}
    assert set(rows) == {"cons_tres", "none"}, r.stdout
    base, mine = int(rows["cons_tres"][1]), int(rows["none"][1])
    assert rows["cons_tres"][2] == "1.000", r.stdout
    assert float(rows["none"][2]) == pytest.approx(mine / base, abs=0.001)
    # A job costs slurmctld well over 100,000 instructions (its RPCs).
    assert base > 100000 and mine > 100000, r.stdout

    def functions(variant):
        # Every function, not only those above callgrind_annotate's
        # default threshold: the plugin's job end is well under 1% of
        # slurmctld's instructions (CI45 missed it there).
        return subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--auto=no",
             "--threshold=100", str(tmp_path / f"cg.{variant}")],
            capture_output=True, text=True, check=True).stdout

    none = functions("none")
    assert "cosched_ctl_job_begin" in none and "cosched_ctl_job_fini" in none
    # Reading slurm.conf is slurmctld's start, before the window.
    for text in (none, functions("cons_tres")):
        assert "s_p_parse_file" not in text


def test_bench_controller_callgrind_needs_a_folder(tmp_path):
    # A profile that valgrind could not write would show as a slurmctld
    # that never answers: refused at once, naming the folder.
    r = subprocess.run([sys.executable, BENCH, "--quick", "--callgrind",
                        str(tmp_path / "none" / "cg")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r
    assert (f"--callgrind {tmp_path}/none/cg: {tmp_path}/none is not a "
            "folder this process may write") in r.stderr, r.stderr


@pytest.mark.parametrize("line,says", [
    ("policy", "--cosched-conf 'policy': expected KEY=VALUE"),
    ("ProfileMinRuntime=", "expected KEY=VALUE"),
    ("coschedpolicy=gang", "--cosched-conf 'coschedpolicy=gang': "
     "coschedpolicy is the benchmark's own (CoschedPolicy, DebugFlags, "
     "PlacementMode)"),
])
def test_bench_controller_cosched_conf_refused(line, says):
    # Refused before any cluster starts, naming the line.
    r = subprocess.run([sys.executable, BENCH, "--quick", "--cosched-conf",
                        line], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r
    assert says in r.stderr, r.stderr
