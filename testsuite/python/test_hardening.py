# SPDX-License-Identifier: GPL-2.0-or-later
"""What a site needs of the plugins beyond placing jobs: they never kill a
client command, never let a user's value write the daemons' logs, and can
be installed, rolled back and uninstalled with jobs running and pending
(cosched(8): INSTALL, UPGRADE, ROLLBACK AND UNINSTALL)."""

import os
import re
import shutil
import subprocess
import time

import pytest

from cosched_loopback.cluster import DEBIAN_PLUGINDIR, ClusterStartError, default_builddir

CONS_TRES = "select_cons_tres.so"
# The select plugin first (the uninstall step removes it); cosched_ctld.so
# is what slurmctld's controller loads beside it.
OURS = ("select_cons_tres_cosched.so", "task_cosched.so", "cosched_ctld.so")


def _slurm_version():
    """(major, minor) of the Slurm the daemons here run."""
    out = subprocess.run(["slurmctld", "-V"], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"(\d+)\.(\d+)\.\d+", out)
    return int(m.group(1)), int(m.group(2))


def _plugins_without_cons_tres(path):
    """A PluginDir with Debian's plugins and ours, but no cons_tres."""
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(DEBIAN_PLUGINDIR):
        if name.endswith(".so") and name != CONS_TRES:
            os.symlink(os.path.join(DEBIAN_PLUGINDIR, name),
                       os.path.join(path, name))
    for name in OURS:
        shutil.copy(os.path.join(default_builddir(), "plugins", name), path)
    return path


def _helper(name):
    path = os.path.join(default_builddir(), "testsuite", "python",
                        "helpers", name)
    if not os.path.exists(path):
        pytest.fail(f"{path} not built (scripts/test builds it)")
    return path


@pytest.mark.series
@pytest.mark.cluster
def test_client_without_cons_tres_keeps_working(cluster, tmp_path):
    """A host whose PluginDir lacks cons_tres (a login node installed
    without it) loads the wrapper in every command: the wrapper reports
    once, naming the path it tried, and never fatal()s.  Submitting,
    listing and showing jobs and srun still work (cons_tres keeps no
    per-job select data); sinfo, which needs cons_tres's node data, fails
    with an error and exits, it does not die.  From 25.05 no command loads
    a select plugin, and sinfo works too."""
    plugins = _plugins_without_cons_tres(str(tmp_path / "plugins"))
    conf = tmp_path / "slurm.conf"
    conf.write_text(re.sub(r"(?m)^PluginDir=.*$", f"PluginDir={plugins}",
                           open(cluster.conf).read()))
    env = dict(cluster.env, SLURM_CONF=str(conf))

    def client(*argv):
        return subprocess.run(list(argv), env=env, capture_output=True,
                              text=True, timeout=60)

    tried = f"cannot load {CONS_TRES} (tried {plugins}/{CONS_TRES})"
    outputs = []
    r = client("sbatch", "--parsable", f"--chdir={cluster.workdir}/jobs",
               "--wrap=sleep 30")
    outputs.append(r.stderr)
    assert r.returncode == 0, r.stderr
    jobid = int(r.stdout.strip())
    cluster.wait_state(jobid, "RUNNING")
    r = client("squeue", "-h", "-o", "%i %T")
    outputs.append(r.stderr)
    assert r.returncode == 0 and f"{jobid} RUNNING" in r.stdout, r.stderr
    r = client("scontrol", "show", "job", str(jobid))
    outputs.append(r.stderr)
    assert r.returncode == 0 and f"JobId={jobid} " in r.stdout, r.stderr
    r = client("srun", f"--jobid={jobid}", "--overlap", "-n1", "echo",
               "step-ran")
    outputs.append(r.stderr)
    assert r.returncode == 0 and "step-ran" in r.stdout, r.stderr
    r = client("sinfo", "-h")
    outputs.append(r.stderr)
    if _slurm_version() >= (25, 5):
        assert r.returncode == 0, r.stderr
    else:
        assert r.returncode != 0
        # sinfo needs cons_tres's node data up to 24.11: it says why it
        # cannot show it, naming the path tried.
        assert tried in r.stderr, r.stderr
    for err in outputs:
        assert "fatal" not in err, err
        # Said once per command at most, not once per call.
        assert err.count(tried) <= 1, err


@pytest.mark.series
@pytest.mark.cluster
def test_slurmctld_without_cons_tres_stops_at_start(make_cluster, tmp_path):
    """slurmctld cannot place anything without cons_tres: it stops at
    start with the paths tried, instead of running without placements."""
    plugins = _plugins_without_cons_tres(str(tmp_path / "plugins"))
    with pytest.raises(ClusterStartError) as e:
        make_cluster(nodes=1, plugin_dirs=[plugins])
    assert (f"fatal: select/cons_tres_cosched: cannot load {CONS_TRES} "
            f"(tried {plugins}/{CONS_TRES})") in str(e.value), str(e.value)


FORGED = "[2026-01-01T00:00:00.000] error: FORGED"


@pytest.mark.cluster
def test_hostile_spank_environment_reaches_no_log_raw(cluster):
    """Any user can submit a job with a SPANK environment of their own
    through libslurm, bypassing the SPANK plugin's checks.  A newline in
    COSCHED_APP must not start a forged line in slurmctld's or slurmd's log,
    an escape sequence in COSCHED_CLASS must not reach a terminal that
    shows the log, and a long value is cut, not quoted whole."""
    submit = _helper("submit-spank-env")
    jobs = cluster.workdir + "/jobs"
    forged = subprocess.run(
        [submit, jobs, "COSCHED_APP=x\\n" + FORGED], env=cluster.env,
        capture_output=True, text=True, check=True)
    long_esc = subprocess.run(
        [submit, jobs, "COSCHED_CLASS=\\e[31m%4000A"], env=cluster.env,
        capture_output=True, text=True, check=True)
    ids = [int(forged.stdout), int(long_esc.stdout)]
    for jobid in ids:
        cluster.wait_state(jobid, "COMPLETED")
    logs = {d: open(cluster.log_path(d), "rb").read()
            for d in ["slurmctld"] + [f"slurmd-{n}" for n in cluster.nodes]}
    for daemon, text in logs.items():
        for line in text.split(b"\n"):
            assert not line.startswith(FORGED.encode()), (daemon, line)
        assert b"\x1b" not in text, daemon
    ctld = logs["slurmctld"].decode()
    # Both values were seen, quoted and escaped, at submit and at start...
    assert (f"JobId={ids[0]}: --cosched-app: invalid application name "
            f"\"x\\n{FORGED}\"") in ctld
    esc = re.search(rf"JobId={ids[1]}: --cosched-class: value "
                    r'"\\x1b\[31mA+"\.\.\.\(4005 bytes\) is too long.*', ctld)
    assert esc, ctld[-3000:]
    # ...and cut: the whole line stays short, not 4 KiB.
    assert len(esc.group(0)) < 400, esc.group(0)
    # The jobs ran, placed as if they gave no cosched option, and what
    # slurmctld's log says matches what the record says.
    for j in ids:
        assert (f"JobId={j}: " in ctld and
                "its cosched options are ignored (placed as if it gave "
                "none)" in ctld), ctld[-3000:]
        rec = cluster.record(j)
        assert rec["state"] == "placed", rec
        assert "options ignored" in rec.get("reason", ""), rec
    assert "leaves this job to cons_tres" not in ctld
    nodes = [cluster.job(j)["NodeList"] for j in ids]
    slurmd = "".join(logs[f"slurmd-{n}"].decode() for n in set(nodes))
    assert (f"JobId={ids[0]} batch request: --cosched-app: invalid "
            f"application name \"x\\n{FORGED}\"") in slurmd


def _switch_select(cluster, select_type):
    """The documented way (cosched(8)): change SelectType in slurm.conf,
    then restart slurmctld and every slurmd."""
    text = open(cluster.conf).read()
    text, n = re.subn(r"(?m)^SelectType=.*$", f"SelectType={select_type}",
                      text)
    assert n == 1
    with open(cluster.conf, "w") as f:
        f.write(text)
    cluster.stop_slurmctld()
    for n in cluster.nodes:
        cluster._stop_proc(f"slurmd-{n}")
    cluster.start_slurmctld()
    for n in cluster.nodes:
        cluster.start_slurmd(n)
    cluster._wait(cluster._nodes_responding, "nodes to respond",
                  ["slurmctld"], 60)


def _state(cluster, jobs):
    return {j: (cluster.job(j)["JobState"], cluster.job(j)["alloc"])
            for j in jobs}


def _step_runs(cluster, jobid):
    r = cluster.run(["srun", f"--jobid={jobid}", "--overlap", "-n1",
                     "echo", f"step-of-{jobid}"], check=False)
    return r.returncode == 0 and f"step-of-{jobid}" in r.stdout


@pytest.mark.cluster
def test_install_rollback_uninstall_keep_jobs(make_cluster, tmp_path):
    """With jobs running and pending: install (cons_tres -> the wrapper),
    roll back (the wrapper -> cons_tres, the .so kept installed), then
    uninstall (the .so removed after a clean slurmctld stop).  At every step
    no job is lost or unreadable, running jobs keep their cores and can
    start steps, the pending job still starts.  Slurm stores the select
    plugin's id in job state and converts records of a plugin that is
    loaded but not selected when slurmctld reads its state; a record of a
    plugin that is gone is unreadable ("Incomplete job record"), which is
    why the .so stays until slurmctld has saved its state once without it
    selected."""
    plugins = str(tmp_path / "plugins")
    os.makedirs(plugins)
    for name in OURS:
        shutil.copy(os.path.join(default_builddir(), "plugins", name),
                    plugins)
    cluster = make_cluster(nodes=2, select_type="select/cons_tres",
                           plugin_dirs=[plugins, DEBIAN_PLUGINDIR])
    running = [cluster.sbatch("-n3") for _ in range(4)]
    for j in running:
        cluster.wait_state(j, "RUNNING")
    pending = cluster.sbatch("-n8")
    time.sleep(1)
    before = _state(cluster, running)
    assert cluster.job(pending)["JobState"] == "PENDING"

    for step, select_type in (("install", "select/cons_tres_cosched"),
                              ("rollback", "select/cons_tres")):
        _switch_select(cluster, select_type)
        assert _state(cluster, running) == before, step
        assert cluster.job(pending)["JobState"] == "PENDING", step
        assert _step_runs(cluster, running[0]), step

    # Uninstall: slurmctld stopped cleanly has saved state without the
    # wrapper's id; only then is the .so removed.
    cluster.stop_slurmctld()
    os.remove(os.path.join(plugins, OURS[0]))
    _switch_select(cluster, "select/cons_tres")
    assert _state(cluster, running) == before
    assert _step_runs(cluster, running[1])
    log = open(cluster.log_path("slurmctld")).read()
    assert "Incomplete job record" not in log
    assert "select plugin" not in log or "not found" not in log
    cluster.run(["scancel", str(running[0]), str(running[1])])
    cluster.wait_state(pending, "RUNNING", timeout=30)


@pytest.mark.cluster
def test_rolled_back_controller_stays_off(make_cluster):
    """Up to 24.11 Slurm starts every select plugin it finds (from 25.05
    only the configured one).  With SelectType back at select/cons_tres
    and cosched still installed, the controller is off:
    no reader thread reads the profile store, jobs run with no record, and
    a cosched.conf slurmctld would refuse does not stop it."""
    cluster = make_cluster(nodes=1, select_type="select/cons_tres",
                           cosched_conf_extra=["ProfileCacheRefresh=1"])
    job = cluster.sbatch("-n1", "--cosched-app=stream", "--wrap=sleep 3")
    cluster.wait_state(job, "COMPLETED", timeout=60)
    assert cluster.record(job) is None
    log = open(cluster.log_path("slurmctld")).read()
    if _slurm_version() >= (25, 5):
        # From 25.05 slurmctld loads the configured select plugin only.
        assert "cons_tres_cosched" not in log, log[-3000:]
    else:
        assert ("select/cons_tres_cosched: SelectType=select/cons_tres: "
                "controller off") in log, log[-3000:]
    assert "CoschedPolicy=" not in log
    # A running reader thread logs each rescan (every second here) at
    # debug level, SlurmctldDebug's.
    assert "profile cache:" not in log

    cluster.write_cosched_conf(["CoschedPolicy=bogus"])
    cluster.stop_slurmctld()
    cluster.start_slurmctld()
    job = cluster.sbatch("-n1", "--wrap=true")
    cluster.wait_state(job, "COMPLETED", timeout=60)


@pytest.mark.cluster
def test_srun_says_options_ignored_only_for_existing_jobs(cluster):
    """cosched options describe jobs.  srun says they are ignored exactly
    when it runs a step of a job that already existed, whatever the
    environment claims: srun --jobid from outside the job says so; a fake
    SLURM_JOB_ID is not believed (srun fails on it, and nothing claims a
    job 999999); an srun that creates its own job records the option; an
    option inherited from sbatch is not reported."""
    holder = cluster.sbatch("-n1")
    cluster.wait_state(holder, "RUNNING")
    time.sleep(2)  # a job that existed before the srun below began
    r = cluster.run(["srun", f"--jobid={holder}", "--overlap", "-n1",
                     "--cosched-app=outside", "true"], check=False)
    assert r.returncode == 0, r.stderr
    assert re.search(rf"--cosched-app=outside ignored: this srun runs step "
                     rf"{holder}\.\d+ of job {holder}, which existed before",
                     r.stderr), r.stderr

    env = dict(os.environ, **cluster.env, SLURM_JOB_ID="999999")
    r = subprocess.run(["srun", "-n1", "--cosched-app=fake", "true"],
                       env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "cosched" not in r.stderr, r.stderr

    r = cluster.run(["srun", "-n1", "--cosched-app=ownjob", "true"])
    assert "ignored" not in r.stderr, r.stderr
    log = open(cluster.log_path("slurmctld")).read()
    assert re.search(r"JobId=\d+ starts on \S+ with cosched options "
                     r"app=ownjob ", log), log[-3000:]

    script = "#!/bin/sh\nsleep 2\nsrun -n1 true && echo step-done\n"
    inherited = cluster.sbatch("-n1", "--cosched-class=mem", script=script)
    cluster.wait_state(inherited, "COMPLETED")
    out = cluster.job_output(inherited)
    assert "step-done" in out and "ignored" not in out, out
