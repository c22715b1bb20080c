# SPDX-License-Identifier: GPL-2.0-or-later
"""Time sharing on Slurm's gang scheduler (cosched(8), TIME SHARING).

One node of 1 socket x 2 cores, PreemptMode=GANG, a partition with
OverSubscribe=FORCE:2 and four 1-core jobs submitted in the order mem,
mem, cpu, cpu.  Jobs that share a core never run in the same slice, so
the cores each job gets decide the slices.  Plain cons_tres takes idle
cores first and gives CPU_IDs 0, 1, 0, 1: the slices are {mem, mem} and
{cpu, cpu}.  cons_tres_cosched under app_aware puts the second mem job on
the first one's core (they alternate) and the cpu jobs on the other core:
every slice pairs a mem job with a cpu job; so does min_slowdown, whose
MaxCorunSlowdown (25%) a mem job beside a mem job exceeds.
"""

import json
import os
import random
import re
import signal
import subprocess
import time

import pytest

from cosched_loopback.cluster import cluster_processes, default_builddir
from freq_node import (ORIGINAL, domain_now, freq_cluster, journal_domains,
                       userspace, wait_domain)

# Which jobs gang runs together follows from cons_tres's rows and
# gang.c, per series.
pytestmark = pytest.mark.series

CLASSES = ["mem", "mem", "cpu", "cpu"]


def _slurm_version():
    out = subprocess.run(["slurmctld", "-V"], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"(\d+)\.(\d+)\.\d+", out)
    return int(m.group(1)), int(m.group(2))


def _gang_conf(extra_partitions=()):
    conf = ["PreemptMode=GANG", "SchedulerTimeSlice=5",
            "PartitionName=gang Nodes=n1 OverSubscribe=FORCE:2 Default=NO "
            "MaxTime=INFINITE State=UP", *extra_partitions]
    # 22.05's slurmstepd waits a fixed 2 s between SIGTSTP and SIGSTOP;
    # 24.11 on take it from PreemptParameters.
    if _slurm_version() >= (24, 11):
        conf.append("PreemptParameters=suspend_grace_time=1")
    return conf


def _submit(c, cosched):
    jobs = {}
    for i, cls in enumerate(CLASSES):
        opt = [f"--cosched-class={cls}"] if cosched else []
        jobs[c.sbatch("-p", "gang", "-N1", "-n1", f"-J{cls}{i}", *opt,
                      "--wrap=sleep 120")] = cls
        # One at a time, in order: the arrivals the placement judges.
        c.wait_state(list(jobs)[-1], ["RUNNING", "SUSPENDED"])
    return jobs


def _slices(c, jobs, seconds=22):
    """The sets of jobs seen RUNNING together, sampled each second over
    about two slices (5 s, plus the suspend grace)."""
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        out = c.run(["squeue", "-h", "-p", "gang", "-t", "R",
                     "-o", "%i"]).stdout.split()
        running = frozenset(int(j) for j in out)
        if running and running not in seen:
            seen.append(running)
        time.sleep(1)
    return seen


def _squeue_states(c):
    out = c.run(["squeue", "-h", "-p", "gang", "-o", "%i %T"]).stdout
    return {int(j): st for j, st in (line.split() for line in
                                     out.splitlines())}


def _status_at_one_moment(c, *args):
    """cosched-status's output with squeue's states at the same moment:
    squeue before and after it agree (no slice changed meanwhile)."""
    prog = os.path.join(default_builddir(), "src", "status", "cosched-status")
    for _ in range(20):
        before = _squeue_states(c)
        out = subprocess.run([prog, *args], env=c.env, capture_output=True,
                             text=True, timeout=60, check=True).stdout
        if _squeue_states(c) == before:
            return out, before
        time.sleep(0.5)
    raise AssertionError("the slices kept changing under cosched-status")


def _classes(jobs, s):
    return sorted(jobs[j] for j in s)


def _log(c):
    with open(c.log_path("slurmctld")) as f:
        return f.read()


@pytest.mark.cluster
@pytest.mark.parametrize("policy", ["app_aware", "min_slowdown"])
def test_slices_pair_mem_with_cpu(make_cluster, policy):
    """Every slice runs one mem job beside one cpu job; the records say
    whom each job alternates with and runs beside; a partition cosched
    cannot serve is named at start and its job runs."""
    c = make_cluster(
        nodes=3, sockets=1, cores=2,
        slurm_conf_extra=_gang_conf([
            "PartitionName=yes2 Nodes=n2 OverSubscribe=YES:2 Default=NO "
            "MaxTime=INFINITE State=UP",
            "PartitionName=sock2 Nodes=n3 OverSubscribe=FORCE:2 "
            "SelectTypeParameters=CR_Socket Default=NO MaxTime=INFINITE "
            "State=UP"]),
        cosched_conf_extra=[f"CoschedPolicy={policy}", "DebugFlags=Check"])
    # Named at start, before any job.
    log = _log(c)
    assert "time sharing: partition gang served: time slices of " \
        "OverSubscribe=FORCE:2 at core granularity" in log, log
    assert "time sharing: partition yes2 not served: PreemptMode=GANG " \
        "with OverSubscribe=YES:2, not FORCE" in log, log
    assert "time sharing: partition sock2 not served: gang time slices " \
        "at socket granularity" in log, log
    jobs = _submit(c, cosched=True)
    others = [c.sbatch("-p", p, "-N1", "-n1", "--cosched-class=mem")
              for p in ("yes2", "sock2")]
    slices = _slices(c, jobs)
    assert len(slices) >= 2, slices
    for s in slices:
        assert _classes(jobs, s) == ["cpu", "mem"], \
            [_classes(jobs, x) for x in slices]

    # cosched-status shows the slices as they run: a mem and a cpu job
    # running, the other pair suspended, as squeue says at that moment,
    # each with its record's partners, and the running set's predicted
    # slowdown the worse of the two running jobs'.
    doc, states = _status_at_one_moment(c, "--json")
    doc = json.loads(doc)
    gang = [p for p in doc["timeshare"] if p["partition"] == "gang"]
    assert len(gang) == 1, doc["timeshare"]
    gang = gang[0]
    assert set(gang["running"]) == {j for j, st in states.items()
                                    if st == "RUNNING"}, (gang, states)
    assert set(gang["suspended"]) == {j for j, st in states.items()
                                      if st == "SUSPENDED"}, (gang, states)
    assert _classes(jobs, gang["running"]) == ["cpu", "mem"], gang
    assert _classes(jobs, gang["suspended"]) == ["cpu", "mem"], gang
    for job in gang["jobs"]:
        rec = c.record(job["job_id"])
        assert ",".join(map(str, job["alternates"])) == \
            rec.get("alternates", ""), (job, rec)
        assert ",".join(map(str, job["beside"])) == rec.get("beside", ""), \
            (job, rec)
        assert job["class"] == jobs[job["job_id"]], job
    assert gang["running_slowdown"] == max(
        float(c.record(j)["slowdown"]) for j in gang["running"]), gang
    text, states = _status_at_one_moment(c)
    # The gang block: its head line, then its rows (indented), until the
    # next partition's (sock2's jobs have gang time slices too).
    block = text.split("\ngang: running set's predicted slowdown ")[1]
    slices = {}
    for line in block.splitlines()[1:]:
        if not line.startswith(" "):
            break
        words = line.split()
        if words[0] in ("running", "suspended"):
            slices[int(words[1])] = words[0].upper()
    assert slices == states, (text, states)
    # No job failed.
    for j in jobs:
        assert c.job(j)["JobState"] in ("RUNNING", "SUSPENDED"), c.job(j)
    mem0, mem1, cpu2, cpu3 = jobs
    recs = {j: c.record(j) for j in jobs}
    for j, rec in recs.items():
        assert rec and rec["state"] == "placed", (j, rec)
        assert "time-shared" in rec["reason"], rec
    # Whom each alternates with (holding its core) and runs beside (the
    # other core), as it is now: record 1.2's keys, kept up to date as
    # jobs start; the reason says how its cores were chosen.
    peers = {j: (recs[j].get("alternates"), recs[j].get("beside"))
             for j in jobs}
    assert peers == {mem0: (f"{mem1}", f"{cpu2},{cpu3}"),
                     mem1: (f"{mem0}", f"{cpu2},{cpu3}"),
                     cpu2: (f"{cpu3}", f"{mem0},{mem1}"),
                     cpu3: (f"{cpu2}", f"{mem0},{mem1}")}, recs
    assert "a job it pairs badly with; alternates with job " \
        f"{mem0}" in recs[mem1]["reason"], recs
    # Predicted beside its partners in turn (a cpu job), not beside every
    # job of the socket at once (the other mem job among them).
    assert recs[mem0]["slowdown"] == recs[mem1]["slowdown"], recs
    assert float(recs[mem0]["slowdown"]) < 1.3, recs
    show = c.run(["scontrol", "show", "job", str(cpu3)]).stdout
    assert "SystemComment=cosched/1.2 " in show, show
    # A job that ends leaves its partners' records.
    c.run(["scancel", str(cpu3)])
    c.wait_state(cpu3, ["CANCELLED", "COMPLETED"])
    rec = c.record(cpu2)
    assert "alternates" not in rec and rec["beside"] == f"{mem0},{mem1}", rec
    assert c.record(mem0)["beside"] == f"{cpu2}", c.record(mem0)
    for j in others:
        assert c.job(j)["JobState"] == "RUNNING", c.job(j)

    log = _log(c)
    # Four jobs on two cores: the occupancy holds two a core, as
    # cons_tres's rows do, suspended slices included.
    assert "self-check passed after job begin" in log, log
    assert "self-check failed" not in log, log
    assert "not entered" not in log, log


@pytest.mark.cluster
def test_plain_cons_tres_pairs_alike(make_cluster):
    """The contrast: plain cons_tres takes idle cores first, so the
    slices are {mem, mem} and {cpu, cpu}."""
    c = make_cluster(nodes=1, sockets=1, cores=2,
                     select_type="select/cons_tres",
                     slurm_conf_extra=_gang_conf())
    jobs = _submit(c, cosched=False)
    slices = _slices(c, jobs)
    assert len(slices) >= 2, slices
    assert any(_classes(jobs, s) in (["mem", "mem"], ["cpu", "cpu"])
               for s in slices), [_classes(jobs, x) for x in slices]


# Whole-node jobs (16 threads on 2 sockets x 8 cores) whose EDP minima are
# 1.5 and 1.8 GHz: the second shares every core of the first, and the two
# alternate.
EDP15_16 = [(16, 2200000, 10.0, 1000.0), (16, 1500000, 12.0, 600.0)]
EDP18_16 = [(16, 2200000, 10.0, 1000.0), (16, 1800000, 11.0, 700.0)]
SAMPLE_S = 0.5


def _slice_trace(c, a, b, seconds):
    """(time, the job squeue says runs, CPU 8's domain) every 0.1 s."""
    trace = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        st = _squeue_states(c)
        running = [j for j in (a, b) if st.get(j) == "RUNNING"]
        trace.append((time.monotonic(),
                      running[0] if len(running) == 1 else None,
                      domain_now(c, 8)))
        time.sleep(0.1)
    return trace


@pytest.mark.cluster
def test_frequency_follows_the_slices(make_cluster):
    """Two jobs decided at 1.5 and 1.8 GHz alternating on the same cores:
    each slice runs at its own job's frequency (not the higher request of
    the two), switched within a SampleInterval of the slice change (the
    lags are printed), the suspended job's hold kept in the journal; the
    records leave the suspended time out of the run time; the node killed
    mid-slice gets its originals back at slurmd's start."""
    c = freq_cluster(make_cluster, slurm_conf_extra=_gang_conf())
    c.write_profile("t15", "cpu", 0.1, edp=EDP15_16, threads=16)
    c.write_profile("t18", "cpu", 0.1, edp=EDP18_16, threads=16)
    c.reconfigure(c.cosched_lines + [f"SampleInterval={SAMPLE_S}"])
    # A duration no other test's job has: the tasks are found by it.
    sleep = f"sleep {600 + random.random():.6f}"
    want = {}
    # Memory is not time-shared: both must fit in the node's at once.
    a = c.sbatch("-p", "gang", "-n16", "--mem-per-cpu=50", "-Jt15",
                 "--wrap", sleep)
    c.wait_state(a, "RUNNING")
    want[a] = userspace(1500000)
    wait_domain(c, 8, want[a])
    wait_domain(c, 0, want[a])
    b = c.sbatch("-p", "gang", "-n16", "--mem-per-cpu=50", "-Jt18",
                 "--wrap", sleep)
    want[b] = userspace(1800000)
    c.wait_state(b, ["RUNNING", "SUSPENDED"])
    assert c.record(b)["freq_khz"] == "1800000", c.record(b)

    trace = _slice_trace(c, a, b, 24)
    # Each slice as squeue shows it: who runs, from when to when, and when
    # the domain first showed that job's frequency.
    slices = []
    for t, run, dom in trace:
        if not slices or slices[-1]["job"] != run:
            slices.append({"job": run, "from": t, "to": t, "at": None})
        s = slices[-1]
        s["to"] = t
        if run and s["at"] is None and dom == want[run]:
            s["at"] = t
    # Whole slices only: the first and the last were cut by the trace.
    whole = [s for s in slices[1:-1] if s["job"]]
    assert len({s["job"] for s in whole}) == 2, slices
    lags = [round(s["at"] - s["from"], 1) if s["at"] else None
            for s in whole]
    print(f"frequency lag after each slice change (s): {lags}, "
          f"SampleInterval {SAMPLE_S} s")
    for s, lag in zip(whole, lags):
        assert lag is not None, (s, trace)
        # The sampler sees the change at its next sample; Slurm's own
        # suspend RPC reaches the node a moment after squeue shows it.
        assert lag <= SAMPLE_S + 1.5, (lags, trace)
        # And it stays there to the slice's end.
        assert all(dom == want[run] for t, run, dom in trace
                   if s["at"] <= t <= s["to"] and run == s["job"]), trace
    # The suspended job still holds its domains, stopped.
    path = os.path.join(c.workdir, "spool", "n1", "cosched",
                        "cpufreq.journal")
    deadline = time.monotonic() + 5
    while True:    # not read in the moment both run, at a slice change
        with open(path) as f:
            journal = f.read()
        if " stopped=1\n" in journal or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert " stopped=1\n" in journal and " stopped=0\n" in journal, journal
    assert len(journal_domains(c)) == 2, journal

    # The node killed mid-slice: slurmd, the step daemons and the jobs'
    # tasks (a task stopped by the slice too).
    victims = [p for p in cluster_processes(c.workdir)
               if p["comm"] in ("slurmd", "slurmstepd") or
               sleep in p["cmdline"]]
    assert any(sleep in p["cmdline"] for p in victims), victims
    c.procs["slurmd-n1"].kill()
    c.procs["slurmd-n1"].wait()
    for p in victims:
        try:
            os.kill(p["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass
    c.start_slurmd("n1")
    wait_domain(c, 8, ORIGINAL)
    wait_domain(c, 0, ORIGINAL)
    assert journal_domains(c) == []

    # The samplers, which outlived their slurmstepd, wrote the records:
    # each was suspended, followed the slices, and its run time leaves
    # out the time it was stopped.
    for j in (a, b):
        rec_path = os.path.join(c.workdir, "spool", "n1", "cosched",
                                "steps", f"{j}.batch.json")
        deadline = time.monotonic() + 20
        while not os.path.exists(rec_path):
            assert time.monotonic() < deadline, rec_path
            time.sleep(0.2)
        with open(rec_path) as f:
            rec = json.load(f)
        susp = rec.get("suspended")
        assert susp and susp["times"] >= 1, rec
        assert susp["cpufreq"].startswith("followed: "), susp
        wall = rec["end_s"] - rec["start_s"]
        assert susp["seconds"] >= 3, (susp, wall)
        assert abs(wall - susp["seconds"] - rec["runtime_s"]) < 0.5, \
            (susp, wall, rec["runtime_s"])
    for j in (a, b):
        c.run(["scancel", str(j)])
