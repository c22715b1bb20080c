"""Foundation: cosched's plugins loaded by real Slurm daemons (issue 2)."""

import os
import re
import subprocess

import pytest

from cluster import DEBIAN_PLUGINDIR, Cluster, ClusterStartError

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
    """No policy: cons_tres_cosched places exactly as cons_tres."""
    wrapped = make_cluster(select_type="select/cons_tres_cosched")
    got = _place_sequence(wrapped)
    wrapped.stop()
    plain = make_cluster(select_type="select/cons_tres")
    want = _place_sequence(plain)
    assert len(got) == len(JOB_SEQUENCE) >= 8
    # The sequence must exercise more than one node and core sets that are
    # not simply the first cores (otherwise the comparison proves little).
    assert len({p[1] for p in want}) > 1
    assert got == want
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


@pytest.mark.cluster
def test_slurmctld_restart_keeps_jobs(cluster):
    """Restarting slurmctld loses no job; running jobs keep their cores."""
    running = [cluster.sbatch("-n6") for _ in range(4)]
    for j in running:
        cluster.wait_state(j, "RUNNING")
    pending = [cluster.sbatch("-n8"), cluster.sbatch("-N2", "-n10")]
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
    # The wrapper still schedules after the restart: freeing cores lets a
    # pending job start.
    for j in running[:2]:
        cluster.run(["scancel", str(j)])
    cluster.wait_state(pending[0], "RUNNING")
    log = open(cluster.log_path("slurmctld")).read()
    assert "Can't find plugin" not in log


@pytest.mark.cluster
def test_will_run_mode(cluster):
    """sbatch --test-only goes through job_test's will-run mode."""
    busy = [cluster.sbatch("-n8") for _ in range(3)]
    for j in busy:
        cluster.wait_state(j, "RUNNING")
    used = {cluster.job(j)["NodeList"] for j in busy}
    free, = set(cluster.nodes) - used
    r = cluster.run(["sbatch", "--test-only", "-n8", "--wrap=true"])
    assert re.search(rf"to start at \S+ using 8 processors on nodes {free}",
                     r.stderr), r.stderr
    # Nothing fits now: the answer is a later start, and no job is created.
    cluster.sbatch("-n8")
    r = cluster.run(["sbatch", "--test-only", "-n2", "-t", "5",
                     "--wrap=true"], check=False)
    assert "to start at" in r.stderr, r.stderr
    assert len(cluster.run(["squeue", "-h"]).stdout.splitlines()) == 4


@pytest.mark.cluster
def test_sbatch_help_lists_options(cluster):
    out = cluster.run(["sbatch", "--help"]).stdout
    for opt in ("--cosched=on|off", "--cosched-app=NAME",
                "--cosched-class=cpu|lim|mem|rand",
                "--cosched-power=performance|edp|energy[:MAXSLOWDOWN%]",
                "--cosched-numa=high|low"):
        assert opt in out, opt


@pytest.mark.cluster
@pytest.mark.parametrize("flag,value,allowed", [
    ("--cosched-class", "memory", "allowed: cpu, lim, mem, rand"),
    ("--cosched-power", "turbo", "allowed: performance, edp, energy"),
    ("--cosched-power", "energy:250%", "out of range"),
    ("--cosched-numa", "medium", "allowed: high, low"),
    ("--cosched-app", "../../etc", "must not start with '.'"),
    ("--cosched", "maybe", "allowed: on, off"),
])
def test_invalid_option_refused_at_submit(cluster, flag, value, allowed):
    before = cluster.run(["squeue", "-h", "-o", "%i"]).stdout
    r = cluster.run(["sbatch", f"{flag}={value}", "--wrap=true"],
                    check=False)
    assert r.returncode != 0
    assert flag in r.stderr and value in r.stderr, r.stderr
    assert allowed in r.stderr, r.stderr
    assert "Submitted" not in r.stdout
    assert cluster.run(["squeue", "-h", "-o", "%i"]).stdout == before


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


@pytest.mark.cluster
def test_task_plugin_reports_step_cores(cluster):
    script = "#!/bin/sh\nsrun -n3 sh -c 'echo step=$COSCHED_STEP_CORES job=$COSCHED_JOB_CORES'\n"
    jobid = cluster.sbatch("-n3", "-w", "n2", script=script)
    cluster.wait_state(jobid, "COMPLETED")
    info = cluster.job(jobid)
    (node, cpu_ids), = info["alloc"]
    assert node == "n2"
    lines = [l for l in cluster.job_output(jobid).splitlines() if l]
    assert len(lines) == 3
    # Threads per core = 1, so the credential's cores are the CPU_IDs.
    want = sorted(_expand(cpu_ids))
    for l in lines:
        step, job = re.match(r"step=(\S+) job=(\S+)", l).groups()
        assert sorted(_expand(step)) == want
        assert sorted(_expand(job)) == want
    log = open(cluster.log_path("slurmd-n2")).read()
    assert re.search(rf"task/cosched: StepId={jobid}\.0 on n2: job cores "
                     rf"\S+, step cores \S+", log), log[-2000:]


@pytest.mark.cluster
def test_plugin_load_failure_shows_log(tmp_path):
    """A daemon that cannot load its plugin fails the start, with its log,
    promptly (no hang)."""
    empty = tmp_path / "noplugins"
    empty.mkdir()
    (empty / "spank_cosched.so").write_bytes(b"")
    c = Cluster(nodes=1, plugindir=str(empty), workdir=str(tmp_path / "c"))
    with pytest.raises(ClusterStartError) as e:
        c.start()
    msg = str(e.value)
    assert "slurmctld exited" in msg
    assert "select/cons_tres_cosched" in msg  # the fatal line from its log
    assert not c.procs  # everything it started is stopped


def test_build_reports_plugin_version():
    """The select and task plugins carry the installed Slurm version."""
    from cluster import default_builddir
    out = subprocess.run(
        ["sh", "-c", "grep -h 'define SLURM_VERSION_NUMBER' "
         "/usr/include/slurm/slurm_version.h"],
        capture_output=True, text=True).stdout
    want = int(out.split()[-1], 16)
    import ctypes
    # Inside a daemon the plugins' Slurm symbols resolve from libslurmfull.
    ctypes.CDLL(os.path.join(DEBIAN_PLUGINDIR, "libslurmfull.so"),
                mode=os.RTLD_LAZY | os.RTLD_GLOBAL)
    for name in ("select_cons_tres_cosched", "task_cosched"):
        so = os.path.join(default_builddir(), "plugins", name + ".so")
        lib = ctypes.CDLL(so, mode=os.RTLD_LAZY)
        assert ctypes.c_uint32.in_dll(lib, "plugin_version").value == want
