# SPDX-License-Identifier: GPL-2.0-or-later
"""The demo (cosched-demo(1)): the same mix under CoschedPolicy=none and
app_aware, compared from its printed table and totals; and --keep: the
cluster outlives the demo and stays usable until the command the demo
prints stops it, leaving no process behind."""

import os
import re
import subprocess
import sys

import pytest

from cosched_loopback.cluster import Cluster, cluster_processes, default_builddir, stop_kept
from conftest import require_environment

DEMO = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..",
                                     "research", "demo", "cosched-demo"))


@pytest.mark.cluster
def test_demo_keep_leaves_usable_cluster_until_stop():
    require_environment()
    r = subprocess.run([sys.executable, DEMO, "--keep", "--jobs", "1",
                        "--builddir", default_builddir()],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"export SLURM_CONF=(\S+)", r.stdout)
    assert m, r.stdout
    workdir = os.path.dirname(m.group(1))
    stopped = False
    try:
        # The demo has exited: its cluster answers and runs a new job...
        c = Cluster(workdir=workdir)
        jobid = c.sbatch("--wrap=echo kept-cluster-runs")
        c.wait_state(jobid, "COMPLETED")
        assert "kept-cluster-runs" in c.job_output(jobid)
        # ...next to the demo's own job (the min_slowdown run's), still
        # running under its slurmd.
        m = re.search(r"^CoschedPolicy=min_slowdown: job (\d+) running",
                      r.stdout, re.M)
        assert m, r.stdout
        assert c.job(int(m.group(1)))["JobState"] == "RUNNING"
        assert any(p["comm"] == "slurmstepd" for p in cluster_processes(workdir))
        # The printed command stops everything.
        m = re.search(r"stop it with: (.+)", r.stdout)
        assert m, r.stdout
        s = subprocess.run(m.group(1), shell=True, capture_output=True,
                           text=True, timeout=120)
        stopped = True
        assert s.returncode == 0, s.stdout + s.stderr
        assert "had to be killed" not in s.stdout + s.stderr, s.stdout + s.stderr
        assert cluster_processes(workdir) == []
        assert not os.path.exists(workdir)
    finally:
        if not stopped and os.path.isdir(workdir):
            stop_kept(workdir)


def _parse_demo(out):
    """The demo's output -> ({policy: {(node, socket): [(job, app, class,
    slowdown)]}}, {policy: total}, spread job ids of each policy)."""
    lines = out.splitlines()
    top = next(i for i, l in enumerate(lines) if l.startswith("NODE  SOCKET"))
    header = lines[top]
    cols = [(p, header.index(f"CoschedPolicy={p}")) for p in POLICIES]
    table = {p: {} for p in POLICIES}
    spread = {p: set() for p in POLICIES}
    where = None
    for line in lines[top + 2:]:
        if not line.strip() or line.startswith("("):
            break
        if line[:5].strip():
            where = (line[:5].strip(), int(line[6:12]))
        for k, (p, start) in enumerate(cols):
            end = cols[k + 1][1] if k + 1 < len(cols) else len(line)
            m = re.match(r"\s*(\d+)(\*?) +(\S+) +(\S+) +(\S+)",
                         line[start:end])
            if m:
                table[p].setdefault(where, []).append(
                    (int(m.group(1)), m.group(3), m.group(4),
                     float(m.group(5))))
                if m.group(2):
                    spread[p].add(int(m.group(1)))
    totals = {}
    for p in POLICIES:
        m = re.search(rf"^  {p} +([\d.]+) ", out, re.M)
        assert m, out
        totals[p] = float(m.group(1))
    return table, totals, spread


POLICIES = ("none", "app_aware", "min_slowdown")


@pytest.mark.cluster
def test_demo_app_aware_separates_mem_jobs_and_predicts_less_slowdown():
    """The whole mix: under cons_tres (none) some socket holds two mem jobs,
    under app_aware none does and every job has one socket; app_aware's
    total predicted slowdown is lower; each total is the sum of the
    printed slowdowns, and the marks and the verdict agree.  Then the
    measured part: every job of real programs under none and app_aware,
    with its measured slowdown beside its predicted one, and the same
    programs time-shared by Slurm's gang, placed by cons_tres and by
    min_slowdown."""
    require_environment()
    r = subprocess.run([sys.executable, DEMO, "--builddir",
                        default_builddir()],
                       capture_output=True, text=True, timeout=480)
    assert r.returncode == 0, r.stdout + r.stderr
    table, totals, spread = _parse_demo(r.stdout)
    mem2 = {}
    for p in POLICIES:
        jobs = {}
        for where, js in table[p].items():
            for j, app, cls, sd in js:
                assert jobs.setdefault(j, (app, cls, sd)) == (app, cls, sd)
        assert len(jobs) == 12, (p, jobs)
        assert {a for a, _, _ in jobs.values()} >= {"stream", "lbm", "hmmer",
                                                   "namd"}
        assert abs(sum(sd for _, _, sd in jobs.values()) - totals[p]) < 0.02
        mem2[p] = sorted(w for w, js in table[p].items()
                         if sum(cls == "mem" for _, _, cls, _ in js) >= 2)
    assert mem2["none"], r.stdout
    assert mem2["app_aware"] == [], r.stdout
    assert spread["app_aware"] == set(), r.stdout
    assert totals["app_aware"] < totals["none"], r.stdout
    marked = re.findall(r"^(\S+) +(\d+) .*2 mem!", r.stdout, re.M)
    assert len(marked) == len(mem2["none"]), r.stdout
    assert re.search(r"^Verdict: app_aware predicts [\d.]+% less total "
                     r"slowdown than cons_tres", r.stdout, re.M), r.stdout
    # min_slowdown, cosched's own policy: no memory-bound pair, no job
    # spread, a total below both, and no socket left empty while a job is
    # predicted above 1.2, which app_aware does on this mix.
    assert mem2["min_slowdown"] == [] and spread["min_slowdown"] == set()
    assert totals["min_slowdown"] < totals["app_aware"], r.stdout
    occupied = set(table["min_slowdown"])
    slow = [j for js in table["min_slowdown"].values()
            for j in js if j[3] > 1.2]
    assert len(occupied) == 8 or not slow, r.stdout
    assert len(table["app_aware"]) < 8, r.stdout
    assert any(j[3] > 1.2 for js in table["app_aware"].values()
               for j in js), r.stdout
    joined = r.stdout.replace("\n", " ")
    assert re.search(r"Verdict: min_slowdown predicts [\d.]+% less total "
                     r"slowdown than cons_tres and [\d.]+% less than "
                     r"app_aware", joined), r.stdout
    assert "and leaves no socket empty while a job is predicted above 1.2" \
        in r.stdout.replace("\n", " "), r.stdout
    # Measured, not predicted: four real jobs under each policy, each
    # with its own start and end, its measured slowdown and the
    # prediction of its record.
    assert "Measured, not predicted" in r.stdout, r.stdout
    measured = re.findall(r"^  (none|app_aware:strict) +(\d) (mem|cpu) +"
                          r"([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)$",
                          r.stdout, re.M)
    for p in ("none", "app_aware:strict"):
        rows = [m for m in measured if m[0] == p]
        assert [m[2] for m in rows] == ["mem", "mem", "cpu", "cpu"], \
            r.stdout
        for m in rows:
            start, end, sd, pred = map(float, m[3:])
            assert end > start and sd > 0.3 and pred >= 1.0, m
    # Time-shared, measured: this machine's pair table, the slices as
    # they ran under Slurm's gang on cons_tres and under min_slowdown,
    # and min_slowdown's makespan against gang's.
    ts = r.stdout.split("Time-shared, measured")[1]
    for heading in ("the pair table of this machine",
                    "the slices as they ran", "the best plan: "):
        assert heading in ts, ts
    lines = ts.splitlines()
    assert any(l.startswith("cons_tres ") and "1.000 [1.000..1.000]" in l
               for l in lines), ts
    assert any(l.startswith("min_slowdown: makespan ") and
               "of Slurm gang's" in l for l in lines), ts
    # Each variant's slices: lines of "START END JOB+JOB".
    for v in ("cons_tres", "min_slowdown"):
        at = lines.index(f"  {v}:")
        block = []
        for line in lines[at + 1:]:
            if not re.match(r"^ +[\d.]+ +[\d.]+ +\S", line):
                break
            block.append(line)
        assert any(re.search(r"(mem|cpu)\d+\+(mem|cpu)\d+$", line)
                   for line in block), (v, lines[at:at + 8])


def test_relative_builddir_gives_absolute_plugin_dir(tmp_path, monkeypatch):
    """cosched-demo --builddir build: slurm.conf's PluginDir and the
    plugstack path are absolute, as the daemons and the jobs' srun read them
    from other directories (a relative one failed every srun in the jobs:
    "PluginDir: build/plugins: No such file or directory")."""
    monkeypatch.chdir(os.path.dirname(default_builddir()))
    rel = os.path.basename(default_builddir())
    c = Cluster(builddir=rel, workdir=str(tmp_path / "c"))
    c._write_configs()
    conf = open(c.conf).read()
    plugin_dir = re.search(r"(?m)^PluginDir=(\S+)$", conf).group(1)
    assert all(os.path.isabs(d) for d in plugin_dir.split(":")), plugin_dir
    plugstack = open(os.path.join(c.workdir, "plugstack.conf")).read()
    assert plugstack.split()[1].startswith("/"), plugstack
