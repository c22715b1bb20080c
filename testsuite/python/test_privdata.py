# SPDX-License-Identifier: GPL-2.0-or-later
"""slurm.conf's PrivateData=jobs holds for the files cosched writes about
jobs (cosched(8) SECURITY, src/libcosched/io/private.h): another user can
read neither a job's step record in ProfileDir/jobs, nor its live load in
ProfileDir/live while it runs, nor its application's profile; the files
are SlurmUser's (here root's) 0600 in directories 0700, and
cosched-status --observations serves the records as squeue serves jobs.
Without PrivateData the files stay readable by all, as the documentation
says.  A site that turns PrivateData on finds its older files closed by
slurmctld at the reconfigure, before any node writes again.

What is real: the samplers task/cosched starts for each step (counts read
from a file: this machine has no PMU), slurmctld, and the users (created
once, as test_learn.py's)."""

import json
import os
import shutil
import stat
import subprocess
import time

import pytest
from cosched_loopback.cluster import sampler_test_conf
from users import local_user, open_to_users, sbatch_as

BATCH = 4294967291      # Slurm's batch step id (SLURM_BATCH_SCRIPT)
VICTIM, OTHER = "cosched-t2", "cosched-t1"
PRIVATE = "PrivateData=jobs"


def _cluster(make_cluster, private):
    """One node of 2 cores whose samplers count and publish live loads,
    open to two users besides root."""
    c = make_cluster(nodes=1, sockets=1, cores=2,
                     slurm_conf_extra=[PRIVATE] if private else [])
    c.reconfigure(sampler_test_conf(c.workdir))
    open_to_users(c)
    local_user(VICTIM)
    local_user(OTHER)
    return c


def _wait_path(path, timeout=30):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        assert time.monotonic() < deadline, f"{path} never came"
        time.sleep(0.2)


def _job_done(c, user, app, seconds):
    """A job of user's named app, run to its end: its id and the path of
    its step record (the sampler writes it as the step ends)."""
    j = sbatch_as(c, user, "-n1", f"-J{app}", f"--wrap=sleep {seconds}")
    c.wait_state(j, ["COMPLETED"], timeout=60)
    rec = os.path.join(c.profile_dir, "jobs", f"{j}.{BATCH}.n1.json")
    _wait_path(rec)
    return j, rec


def _as(c, user, *argv):
    return subprocess.run(["runuser", "-u", user, "--", *argv], env=c.env,
                          capture_output=True, text=True, timeout=30)


def _readable_by(c, user, path):
    return _as(c, user, "cat", path).returncode == 0


def _observations(c, user, *args):
    status = os.path.join(c.builddir, "src", "status", "cosched-status")
    return _as(c, user, status, "--observations", "--conf",
               os.path.join(c.workdir, "cosched.conf"), *args)


def _records(r):
    assert r.returncode == 0, r.stderr
    return {e["record"] for e in json.loads(r.stdout)["records"]}


def _private_file(path):
    """Whether path is root's (SlurmUser here) 0600, or 0700 for a
    folder; else how it is."""
    st = os.lstat(path)
    if st.st_uid == 0 and stat.S_IMODE(st.st_mode) == (
            0o700 if stat.S_ISDIR(st.st_mode) else 0o600):
        return True
    pytest.fail(f"{path}: uid {st.st_uid} mode {oct(st.st_mode)}")


def test_private_data_keeps_job_files_from_other_users(make_cluster):
    """PrivateData=jobs: while the victim's job runs its live load, and
    once it ended its step record and its application's profile, are
    SlurmUser's only (0600, in 0700 directories, ProfileDir included,
    though the cluster's folder was opened to all after slurmctld
    started): another user reads none of them, nor lists ProfileDir.
    That user's cosched-status --observations (and --interference) says
    why it cannot read the records; root's lists both users' jobs.  Over a copy of the
    records that the user may read, it shows that user's jobs only."""
    c = _cluster(make_cluster, private=True)
    pdir = c.profile_dir
    victim = sbatch_as(c, VICTIM, "-n1", "-Jvictimapp", "--wrap=sleep 4")
    c.wait_state(victim, ["RUNNING"])
    live = os.path.join(pdir, "live", f"{victim}.{BATCH}.n1")
    _wait_path(live)
    assert not _readable_by(c, OTHER, live)
    assert _private_file(live) and _private_file(os.path.dirname(live))
    c.wait_state(victim, ["COMPLETED"], timeout=60)
    rec = os.path.join(pdir, "jobs", f"{victim}.{BATCH}.n1.json")
    _wait_path(rec)
    with open(rec) as f:
        merged = json.load(f)["profile"]
    assert merged.startswith("merged into "), merged
    profile = merged[len("merged into "):]
    assert os.path.basename(profile).startswith("victimapp"), profile
    for path in (rec, profile):
        assert not _readable_by(c, OTHER, path), path
        assert _private_file(path), oct(os.stat(path).st_mode)
    for d in (pdir, os.path.dirname(rec)):
        assert _private_file(d), oct(os.stat(d).st_mode)
        assert _as(c, OTHER, "ls", d).returncode != 0, d

    own, _ = _job_done(c, OTHER, "otherapp", 1)
    r = _observations(c, OTHER)
    assert r.returncode == 1 and not r.stdout, r
    assert "Permission denied" in r.stderr and PRIVATE in r.stderr, r.stderr
    status = os.path.join(c.builddir, "src", "status", "cosched-status")
    r = _as(c, OTHER, status, "--interference", "--conf",
            os.path.join(c.workdir, "cosched.conf"))
    assert r.returncode == 1 and PRIVATE in r.stderr, r
    both = {f"{victim}.{BATCH}.n1", f"{own}.{BATCH}.n1"}
    assert _records(_observations(c, "root")) == both

    # A copy for reports that the site left readable: squeue's rule.
    copy = os.path.join(c.workdir, "report-copy")
    shutil.copytree(pdir, copy)
    for d, _, files in os.walk(copy):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)
    assert _records(_observations(c, OTHER, "--profile-dir", copy)) \
        == {f"{own}.{BATCH}.n1"}
    assert _records(_observations(c, "root", "--profile-dir", copy)) \
        == both


def test_without_private_data_then_turned_on(make_cluster):
    """Without PrivateData the step record is 0644 in 0755 directories and
    another user's cosched-status --observations lists it (cosched(8),
    cosched-status(1)).  The site then sets PrivateData=jobs: at the
    reconfigure slurmctld closes ProfileDir, so the older record is out
    of that user's reach before any job runs again, and the user's
    --observations says why; the next step's record is written 0600."""
    c = _cluster(make_cluster, private=False)
    victim, rec = _job_done(c, VICTIM, "victimapp", 1)
    st = os.stat(rec)
    assert stat.S_IMODE(st.st_mode) == 0o644, oct(st.st_mode)
    assert _readable_by(c, OTHER, rec)
    assert f"{victim}.{BATCH}.n1" in _records(_observations(c, OTHER))

    with open(c.conf, "a") as f:
        f.write(PRIVATE + "\n")
    c.run(["scontrol", "reconfigure"])
    deadline = time.monotonic() + 30
    while _readable_by(c, OTHER, rec):
        assert time.monotonic() < deadline, oct(os.stat(c.profile_dir).st_mode)
        time.sleep(0.5)
    assert _private_file(c.profile_dir)
    r = _observations(c, OTHER)
    assert r.returncode == 1 and PRIVATE in r.stderr, r

    _, later = _job_done(c, VICTIM, "victimapp", 1)
    assert _private_file(later) and _private_file(os.path.dirname(later))
    assert not _readable_by(c, OTHER, later)
