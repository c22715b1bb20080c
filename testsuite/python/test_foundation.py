# SPDX-License-Identifier: GPL-2.0-or-later
"""Foundation: cosched's plugins loaded by real Slurm daemons."""

import datetime
import os
import re
import subprocess

import pytest

from cosched_loopback.cluster import Cluster, ClusterStartError
from conftest import require_environment

# Mixed sizes; together they fit the 4 x 8 cores, so each starts at once
# and the placement depends only on the select plugin.
JOB_SEQUENCE = [
    ["-n1"],
    ["-n2"],
    ["-N2", "-n4"],
    ["-n4"],
    ["-n3"],
    ["-n1", "--mem=300"],
    ["-n5"],
    ["-n2", "--cpus-per-task=1"],
    ["-n6"],
]


def _place_sequence(cluster):
    placements = []
    for args in JOB_SEQUENCE:
        jobid = cluster.sbatch(*args)
        cluster.wait_state(jobid, "RUNNING")
        info = cluster.job(jobid)
        placements.append((" ".join(args), info["NodeList"], info["alloc"]))
    return placements


@pytest.mark.cluster
def test_placements_match_cons_tres(make_cluster):
    """CoschedPolicy=none: cons_tres_cosched places exactly as cons_tres."""
    wrapped = make_cluster(select_type="select/cons_tres_cosched",
                           cosched_conf_extra=["CoschedPolicy=none"])
    got = _place_sequence(wrapped)
    wrapped.stop()
    plain = make_cluster(select_type="select/cons_tres")
    want = _place_sequence(plain)
    # The sequence must exercise more than one node and core sets that are
    # not simply the first cores (otherwise the comparison proves little).
    assert len({p[1] for p in want}) > 1
    assert got == want
    # The jobs run at once: no CPU of a node is given to two of them.
    held = {}
    for (args, _, alloc) in got:
        for node, ids in alloc:
            for cpu in _expand(ids):
                assert (node, cpu) not in held, (args, held[(node, cpu)])
                held[(node, cpu)] = args
    # Every job got as many CPUs as it asked for.
    for (args, _, alloc) in got:
        ncpus = sum(len(_expand(ids)) for _, ids in alloc)
        assert ncpus == int(re.search(r"-n(\d+)", args).group(1)), args


def _expand(ids):
    out = []
    for part in ids.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        else:
            out.append(int(part))
    return out


def _slurm_version():
    """(major, minor) of the Slurm the daemons here run."""
    out = subprocess.run(["slurmctld", "-V"], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"(\d+)\.(\d+)\.\d+", out)
    return int(m.group(1)), int(m.group(2))


def _will_run(cluster, *args):
    """(start time, nodes) sbatch --test-only predicts, or None."""
    now = datetime.datetime.now().replace(microsecond=0)
    r = cluster.run(["sbatch", "--test-only", *args, "--wrap=true"],
                    check=False)
    # From 25.11 sbatch says "... to start at T a using N processors".
    m = re.search(r"to start at (\S+)(?: on cluster \S+)?(?: a)? using \d+ "
                  r"processors on nodes (\S+)", r.stderr)
    assert m, r.stderr
    return datetime.datetime.fromisoformat(m.group(1)) - now, m.group(2)


@pytest.mark.series
@pytest.mark.cluster
def test_slurmctld_restart_keeps_jobs(cluster):
    """Restarting slurmctld loses no job; running jobs keep their cores, and
    the wrapper still knows which cores are taken."""
    running = [cluster.sbatch("-N1", "-n6") for _ in range(4)]
    for j in running:
        cluster.wait_state(j, "RUNNING")
    # Neither fits anywhere while the four jobs run (2 free cores a node).
    pending = [cluster.sbatch("-N1", "-n8"), cluster.sbatch("-N2", "-n10")]
    for j in pending:
        cluster.wait_state(j, "PENDING")
    before = {j: cluster.job(j)["alloc"] for j in running}
    assert all(before.values())

    cluster.restart_slurmctld()

    for j in running:
        info = cluster.job(j)
        assert info["JobState"] == "RUNNING", (j, info["JobState"])
        assert info["alloc"] == before[j], j
    for j in pending:
        assert cluster.job(j)["JobState"] == "PENDING"
    # The restored core usage is what placement sees: with the pending
    # jobs gone, four 2-core jobs fill exactly the 2 free cores of each
    # node, on cores no running job holds.
    cluster.run(["scancel"] + [str(j) for j in pending])
    fill = [cluster.sbatch("-N1", "-n2") for _ in cluster.nodes]
    for j in fill:
        cluster.wait_state(j, "RUNNING")
    cores = {}
    for j in running + fill:
        (node, ids), = cluster.job(j)["alloc"]
        cores.setdefault(node, []).extend(_expand(ids))
    assert sorted(cores) == sorted(cluster.nodes)
    for node, ids in cores.items():
        assert sorted(ids) == list(range(8)), (node, sorted(ids))
    # Full: a one-core job waits until a job ends, then runs there.
    extra = cluster.sbatch("-N1", "-n1")
    freed = cluster.job(running[0])["NodeList"]
    cluster.run(["scancel", str(running[0])])
    cluster.wait_state(extra, "RUNNING")
    assert cluster.job(extra)["NodeList"] == freed


@pytest.mark.series
@pytest.mark.cluster
def test_will_run_mode(cluster):
    """sbatch --test-only goes through job_test's will-run mode."""
    busy = [cluster.sbatch("-n8") for _ in range(3)]
    for j in busy:
        cluster.wait_state(j, "RUNNING")
    used = {cluster.job(j)["NodeList"] for j in busy}
    free, = set(cluster.nodes) - used
    delay, nodes = _will_run(cluster, "-n8")
    assert nodes == free and delay.total_seconds() < 60
    # Nothing fits now: the answer is a later start, and no job is created.
    cluster.sbatch("-n8")
    delay, _ = _will_run(cluster, "-n2", "-t", "5")
    assert delay.total_seconds() > 60
    assert len(cluster.run(["squeue", "-h"]).stdout.splitlines()) == 4


@pytest.mark.series
@pytest.mark.cluster
def test_sbatch_help_lists_options(cluster):
    out = cluster.run(["sbatch", "--help"]).stdout
    for opt in ("--cosched=on|off", "--cosched-app=NAME",
                "--cosched-class=cpu|lim|mem|rand",
                "--cosched-power=performance|edp|energy[:MAXSLOWDOWN%]",
                "--cosched-numa=high|low"):
        assert opt in out, opt


@pytest.mark.cluster
@pytest.mark.parametrize("flag,value,shown,allowed", [
    ("--cosched-class", "memory", '"memory"', "allowed: cpu, lim, mem, rand"),
    ("--cosched-power", "turbo", '"turbo"', "allowed: performance, edp, energy"),
    ("--cosched-power", "energy:250%", "maximum slowdown 250 ", "out of range"),
    ("--cosched-numa", "medium", '"medium"', "allowed: high, low"),
    ("--cosched-app", "../../etc", '"../../etc"', "must not start with '.'"),
    ("--cosched", "maybe", '"maybe"', "allowed: on, off"),
])
@pytest.mark.series
def test_invalid_option_refused_at_submit(cluster, flag, value, shown,
                                          allowed):
    """Refused in one message that names the option and shows the value
    (or, for a slowdown, the number at fault); Slurm's own message, which
    quoted the value whole, no longer follows it."""
    before = cluster.run(["squeue", "-h", "-o", "%i"]).stdout
    r = cluster.run(["sbatch", f"{flag}={value}", "--wrap=true"],
                    check=False)
    assert r.returncode != 0
    assert f"{flag}: " in r.stderr and shown in r.stderr, r.stderr
    assert "Invalid" not in r.stderr, r.stderr
    assert allowed in r.stderr, r.stderr
    assert "Submitted" not in r.stdout
    assert cluster.run(["squeue", "-h", "-o", "%i"]).stdout == before


LONG_VALUE = "x" * 10240


def _assert_short_refusal(r, option, what):
    """r refused a 10 KB value of option in a message naming the option,
    quoting a prefix and the length, and short: no line carries the value
    whole (Slurm's own "Invalid --X argument: <value>" did)."""
    assert r.returncode != 0, (what, r.stdout)
    assert "Submitted" not in r.stdout, what
    lines = r.stderr.splitlines()
    ours = [l for l in lines if f"--{option}: value" in l]
    assert len(ours) == 1, (what, r.stderr[:2000])
    assert len(ours[0]) < 300, (what, len(ours[0]), ours[0][:400])
    assert f'"{"x" * 48}"...(10240 bytes) is too long' in ours[0], ours[0]
    assert all("x" * 49 not in l for l in lines), (what, len(r.stderr))
    assert len(r.stderr) < 300, (what, len(r.stderr), r.stderr[:2000])


@pytest.mark.cluster
def test_long_invalid_value_refused_with_short_message(cluster):
    """A 10 KB value of any option, typed on sbatch or srun or handed down
    in the SPANK option environment, is refused in a message of a few
    hundred bytes that names the option: nothing echoes it whole."""
    before = cluster.run(["squeue", "-h", "-o", "%i"]).stdout
    for option in ("cosched", "cosched-app", "cosched-class",
                   "cosched-power", "cosched-numa"):
        r = cluster.run(["sbatch", f"--{option}={LONG_VALUE}", "--wrap=true"],
                        check=False)
        _assert_short_refusal(r, option, f"sbatch --{option}")
    r = cluster.run(["srun", "-n1", f"--cosched-power={LONG_VALUE}", "true"],
                    check=False)
    _assert_short_refusal(r, "cosched-power", "srun --cosched-power")
    env = dict(cluster.env, SLURM_SPANK__SLURM_SPANK_OPTION_cosched_cosched_numa=LONG_VALUE)
    r = subprocess.run(["sbatch", "--wrap=true"], env=env,
                       capture_output=True, text=True, timeout=60)
    _assert_short_refusal(r, "cosched-numa", "sbatch, value in environment")
    assert cluster.run(["squeue", "-h", "-o", "%i"]).stdout == before


@pytest.mark.series
@pytest.mark.cluster
def test_valid_options_reach_controller(cluster):
    jobid = cluster.sbatch("--cosched-app=stream", "--cosched-class=mem",
                           "--cosched-power=energy:15%",
                           "--cosched-numa=high", "-n2")
    cluster.wait_state(jobid, "RUNNING")
    default = cluster.sbatch("-J", "lulesh", "-n1")
    off = cluster.sbatch("--cosched=off", "-n1")
    cluster.wait_state(off, "RUNNING")
    log = open(cluster.log_path("slurmctld")).read()
    assert (f"JobId={jobid} submitted with cosched options app=stream "
            "class=mem power=energy:15% numa=high") in log
    assert f"JobId={jobid} starts on " in log
    # Without --cosched-app the job name is the application name.
    assert (f"JobId={default} submitted with cosched options app=lulesh "
            "class=unknown power=default numa=default") in log
    assert f"JobId={off} submitted with cosched options off" in log
    # Slurm's default name for --wrap jobs is no application name.
    wrapped = cluster.sbatch("-n1")
    cluster.wait_state(wrapped, "RUNNING")
    log = open(cluster.log_path("slurmctld")).read()
    assert (f"JobId={wrapped} submitted with cosched options app=(unset) "
            "class=unknown power=default numa=default") in log


@pytest.mark.cluster
def test_srun_in_job_says_options_ignored(cluster):
    script = ("#!/bin/sh\nsrun -n1 --cosched-class=mem true\n"
              "echo rc=$?\n")
    jobid = cluster.sbatch("-n1", script=script)
    cluster.wait_state(jobid, "COMPLETED")
    out = cluster.job_output(jobid)
    assert re.search(rf"--cosched-class=mem ignored: this srun runs step "
                     rf"{jobid}\.0 of job {jobid}, which existed before it",
                     out), out
    assert "rc=0" in out


@pytest.mark.cluster
def test_srun_reports_only_options_typed_on_its_command_line(cluster):
    """An srun in a batch job gets the job's sbatch options again from the
    environment (SLURM_SPANK__SLURM_SPANK_OPTION_cosched_*): those are not
    reported.  Options typed on srun's own command line are, whatever
    their value: a different class, the job's own class, and an option
    typed on an srun --jobid into another job while the environment hands
    down the same value from this one (then nothing was recorded for the
    other job: the option was dropped)."""
    other = cluster.sbatch("-n1")
    cluster.wait_state(other, "RUNNING")
    script = ("#!/bin/sh\n#SBATCH --cosched-class=mem\n"
              "sleep 2\n"  # the job exists well before each srun below
              "srun -n1 true; echo plain-rc=$?\n"
              "srun -n1 --cosched-class=cpu true\n"
              "srun -n1 --cosched-class mem true\n"
              f"srun --jobid={other} --overlap -n1 --cosched-class=mem true\n"
              "echo done\n")
    jobid = cluster.sbatch("-n1", script=script)
    cluster.wait_state(jobid, "COMPLETED")
    out = cluster.job_output(jobid)
    assert "plain-rc=0" in out and "done" in out, out
    ignored = [l for l in out.splitlines() if "ignored" in l]
    assert len(ignored) == 3, out
    assert re.search(rf"--cosched-class=cpu ignored: this srun runs step "
                     rf"{jobid}\.1 of job {jobid}, which existed before",
                     ignored[0]), out
    assert re.search(rf"--cosched-class=mem ignored: this srun runs step "
                     rf"{jobid}\.2 of job {jobid}, ", ignored[1]), out
    assert re.search(rf"--cosched-class=mem ignored: this srun runs step "
                     rf"{other}\.\d+ of job {other}, ", ignored[2]), out


@pytest.mark.series
@pytest.mark.cluster
def test_task_plugin_reports_step_cores(cluster):
    """In a real step the task plugin sees the job's and the step's cores
    from the credential: here 3 job cores, 2 step cores, none of them the
    cores another job holds on the node (srun --exact: the step gets only
    the cores its tasks need)."""
    other = cluster.sbatch("-n2", "-w", "n2")
    cluster.wait_state(other, "RUNNING")
    script = ("#!/bin/sh\nsrun --exact -n2 sh -c 'echo step=$COSCHED_STEP_CORES "
              "job=$COSCHED_JOB_CORES'\n")
    jobid = cluster.sbatch("-n3", "-w", "n2", script=script)
    cluster.wait_state(jobid, "COMPLETED")
    (node, cpu_ids), = cluster.job(jobid)["alloc"]
    assert node == "n2"
    (_, other_ids), = cluster.job(other)["alloc"]
    job_cores = set(_expand(cpu_ids))
    assert len(job_cores) == 3 and not job_cores & set(_expand(other_ids))
    lines = [l for l in cluster.job_output(jobid).splitlines() if l]
    assert len(lines) == 2, lines
    for l in lines:
        step, job = re.match(r"step=(\S+) job=(\S+)$", l).groups()
        # Threads per core = 1, so the credential's cores are CPU_IDs.
        assert set(_expand(job)) == job_cores
        assert len(set(_expand(step))) == 2
        assert set(_expand(step)) < job_cores
    log = open(cluster.log_path("slurmd-n2")).read()
    m = re.search(rf"task/cosched: StepId={jobid}\.0 on n2: job cores "
                  r"([\d,-]+), step cores ([\d,-]+)", log)
    assert m, log[-2000:]
    assert set(_expand(m.group(1))) == job_cores
    # slurmd loads only the configured select plugin, and the wrapper
    # loaded cons_tres into it itself.  From 25.05 slurmd loads none and
    # slurmctld only the configured one: there the wrapper loads cons_tres.
    modern = _slurm_version() >= (25, 5)
    daemon = "slurmctld" if modern else "slurmd-n2"
    with open(f"/proc/{cluster.procs[daemon].pid}/maps") as f:
        maps = f.read()
    assert "/select_cons_tres_cosched.so" in maps
    assert "/select_cons_tres.so" in maps
    if modern:
        with open(f"/proc/{cluster.procs['slurmd-n2'].pid}/maps") as f:
            assert "/select_" not in f.read()


@pytest.mark.series
@pytest.mark.cluster
def test_plugin_load_failure_shows_log(tmp_path):
    """A daemon that cannot load its plugin fails the start, with its log,
    promptly (no hang)."""
    require_environment()
    empty = tmp_path / "noplugins"
    empty.mkdir()
    (empty / "spank_cosched.so").write_bytes(b"")
    c = Cluster(nodes=1, plugindir=str(empty), workdir=str(tmp_path / "c"))
    try:
        with pytest.raises(ClusterStartError) as e:
            c.start()
    finally:
        c.stop()
    msg = str(e.value)
    assert "slurmctld exited" in msg
    assert "select/cons_tres_cosched" in msg  # the fatal line from its log
    assert not any(p.poll() is None for p in c.procs.values())


@pytest.mark.series
@pytest.mark.cluster
def test_core_count_reservation(make_cluster):
    """CoreCnt= reservations: 22.05's scontrol refuses them for a select
    plugin whose name is not cons_res's or cons_tres's; from 24.11 they
    work: a job in the reservation runs on its cores, placed and recorded
    by cosched, and a job outside it keeps off them."""
    c = make_cluster(nodes=2)
    r = c.run(["scontrol", "create", "reservation", "ReservationName=r1",
               "StartTime=now", "Duration=10", "Users=root", "CoreCnt=2",
               "Nodes=n1"], check=False)
    if _slurm_version() < (24, 11):
        assert r.returncode != 0 and "CoreCnt" in r.stderr, r
        return
    assert r.returncode == 0, r
    show = c.run(["scontrol", "show", "reservation", "r1"]).stdout
    reserved = set(_expand(re.search(r"NodeName=n1 CoreIDs=(\S+)",
                                     show).group(1)))
    assert len(reserved) == 2, show
    inside = c.sbatch("--reservation=r1", "-n2", "--wrap=sleep 5")
    outside = c.sbatch("-w", "n1", "-n6", "--wrap=sleep 5")
    for j in (inside, outside):
        c.wait_state(j, "RUNNING")
    # Threads per core = 1, so CPU_IDs are core ids.
    cores = {j: {cpu for node, ids in c.job(j)["alloc"]
                 for cpu in _expand(ids)} for j in (inside, outside)}
    assert cores[inside] == reserved, (cores, reserved)
    assert not cores[outside] & reserved, (cores, reserved)
    assert c.record(inside) is not None
