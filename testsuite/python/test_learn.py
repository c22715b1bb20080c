# SPDX-License-Identifier: GPL-2.0-or-later
"""The interference table learned from co-runs (src/libcosched/store/learner.h,
cosched.conf(5) InterferenceSource) on a real loopback cluster: steps
whose records show a class pair much slower than the configured table
says change the next placement once the learned cell has enough
samples (strict mode refuses the pair), and with
InterferenceSource=configured the same records change nothing.

The jobs are real batch jobs that measure their own co-runs the way a
memory-bound pair would: each runs 2 s alone and 6 s when another job of
the kind shares the node (a marker file says so).  What is real: the
sampler's step records in ProfileDir/jobs (run time, co-runners from the
node's ledger, how the tasks ended), slurmctld's learner, the table it
keeps in ProfileDir, and the placement it changes."""

import json
import os
import re
import subprocess
import tempfile
import time

import pytest

from cosched_loopback import fake_cpufreq
from cosched_loopback.cluster import default_builddir, sampler_test_conf
from users import local_user, open_to_users, sbatch_as

SCRIPT = """#!/bin/bash
d={marks}
touch "$d/$SLURM_JOB_ID"
sleep 1
if [ "$(ls "$d" | wc -l)" -gt 1 ]; then sleep 6; else sleep 2; fi
rm -f "$d/$SLURM_JOB_ID"
"""


def _cells(c):
    """{(victim, corunner): (n, weight)} of the learned table's file."""
    path = os.path.join(c.profile_dir, "interference.learned")
    out = {}
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"cell victim=(\S+) corunner=(\S+) n=(\d+) "
                             r"weight=(\S+) sum_log=(\S+)", line)
                if m:
                    out[(m[1], m[2])] = (int(m[3]), float(m[4]),
                                         float(m[5]))
    except FileNotFoundError:
        pass
    return out


def _submit(c, n, marks):
    ids = [c.sbatch("-H", "-N1", "-n1", "-Jtwin", "--cosched-class=cpu",
                    script=SCRIPT.format(marks=marks)) for _ in range(n)]
    c.release(ids)
    return ids


def _wait_done(c, ids, timeout=60):
    for j in ids:
        c.wait_state(j, ["COMPLETED"], timeout=timeout)


def _wait_cell(c, n_min, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        cell = _cells(c).get(("N", "N"))
        if cell and cell[0] >= n_min:
            return cell
        time.sleep(0.5)
    raise AssertionError(f"learned N:N cell has not {n_min} observations: "
                         f"{_cells(c)}\n{c.logs(40)}")


@pytest.mark.cluster
def test_learned_cell_changes_strict_placement(make_cluster):
    c = make_cluster(nodes=1, sockets=1, cores=2, cosched_conf_extra=[
        "CoschedPolicy=app_aware", "PlacementMode=strict",
        "InterferenceSource=learned", "InterferenceMinSamples=2",
        "ProfileCacheRefresh=1"])
    marks = os.path.join(c.workdir, "jobs", "marks")
    os.makedirs(marks, exist_ok=True)

    # Two solo runs of the application: its solo time.
    for _ in range(2):
        _wait_done(c, _submit(c, 1, marks))
    # Pairs: the configured table ("Power-aware gang scheduling on
    # multicore" (NTUA thesis, 2013): cpu next to cpu allowed) lets them share
    # the socket; each measures 3x its solo time.
    pairs = 0
    while pairs < 3:
        ids = _submit(c, 2, marks)
        for j in ids:
            c.wait_state(j, ["RUNNING", "COMPLETED"])
        assert all(c.job(j)["JobState"] in ("RUNNING", "COMPLETED")
                   for j in ids), "configured table: the pair must co-run"
        _wait_done(c, ids)
        pairs += 1
        try:
            n, weight, sum_log = _wait_cell(c, 2, timeout=15)
            break
        except AssertionError:
            if pairs == 3:
                raise
    # The learned value: about 7 s over 3 s (the sleeps plus start-up).
    value = pow(2.718281828, sum_log / weight)
    assert value > 1.5, (value, _cells(c))
    # Every record was decided, none learned twice: two solo runs and
    # pairs * 2 co-runs at most.
    assert n <= 2 * pairs, (n, pairs)

    # Now strict app_aware refuses the pair: the second waits, and its
    # record says which rule holds it.
    time.sleep(2)   # the controller applies the table at its next pass
    ids = _submit(c, 2, marks)
    c.wait_state(ids[0], "RUNNING")
    deadline = time.monotonic() + 20
    rec = None
    while time.monotonic() < deadline:
        rec = c.record(ids[1])
        if rec and rec.get("state") == "pending":
            break
        time.sleep(0.3)
    assert rec and rec["state"] == "pending" and "strict" in rec["reason"], \
        (rec, c.logs(40))
    assert c.job(ids[1])["JobState"] == "PENDING"
    # It runs once the first is gone: alone.
    _wait_done(c, ids, timeout=60)
    with open(c.log_path("slurmctld")) as f:
        log = f.read()
    assert "InterferenceSource=learned: 1 of 16 class pairs now from the " \
        "learned table" in log, log[-3000:]

    # cosched-status shows the learned cell in use beside the configured
    # value ("Effects of co-scheduling applications on multicore
    # architectures" (NTUA thesis, 2014): N next to N is 1.0).
    st = _status(c, "--interference", "--json")
    cell = [e for e in st["cells"] if (e["victim"], e["corunner"]) ==
            ("N", "N")][0]
    assert cell["used"] and cell["learned"] > 1.5 and cell["n"] >= 2 \
        and cell["configured"] == 1.0 and st["source"] == "learned", st

    # The same records with InterferenceSource=configured: the pair
    # co-runs again.
    c.reconfigure(["CoschedPolicy=app_aware", "PlacementMode=strict",
                   "InterferenceSource=configured",
                   "InterferenceMinSamples=2", "ProfileCacheRefresh=1"])
    time.sleep(2)
    ids = _submit(c, 2, marks)
    for j in ids:
        c.wait_state(j, ["RUNNING", "COMPLETED"])
    _wait_done(c, ids)

    st = _status(c, "--interference", "--json")
    assert st["source"] == "configured" and not any(
        e["used"] for e in st["cells"]), st

    # A reset: the file starts again, and slurmctld takes it.
    r = c.run([_status_bin(c), "--reset-interference", "--conf",
               os.path.join(c.workdir, "cosched.conf")])
    assert "reset" in r.stdout, r.stdout
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        with open(c.log_path("slurmctld")) as f:
            if "was replaced (a reset)" in f.read():
                break
        time.sleep(0.5)
    else:
        raise AssertionError(c.logs(30))
    assert _cells(c) == {}, _cells(c)


ATTACKER, VICTIM = "cosched-t1", "cosched-t2"
STRICT_LEARNED = ["CoschedPolicy=app_aware", "PlacementMode=strict",
                  "InterferenceSource=learned", "InterferenceMinSamples=2",
                  "ProfileCacheRefresh=1", "GangMaxApps=4"]


def _users_cluster(make_cluster, extra=(), workdir=None):
    """One node of one 4-core socket that app_aware may fill
    (GangMaxApps=4), strict, on the learned table (and extra), open to two
    users besides root: (cluster, attacker's uid)."""
    c = make_cluster(nodes=1, sockets=1, cores=4, workdir=workdir,
                     cosched_conf_extra=STRICT_LEARNED + list(extra))
    open_to_users(c)
    local_user(VICTIM)
    return c, local_user(ATTACKER)


def _domain(c):
    """The node's frequency domain as its fake cpufreq tree holds it, or
    None on a cluster without one."""
    root = os.path.join(c.workdir, "sysfs", "n1")
    if not os.path.isdir(os.path.join(root, "sys")):
        return None
    return fake_cpufreq.setting(root, 0)


def _victim_round(c):
    """The victim's four 1-core cpu jobs of lammps, released at once:
    whether all four ran together, each one's (class, source), each one's
    decided frequency (governor, requested kHz) and the node's frequency
    domain while they ran."""
    ids = [sbatch_as(c, VICTIM, "-H", "-n1", "-Jlammps",
                     "--cosched-class=cpu", "--wrap=sleep 6")
           for _ in range(4)]
    c.release(ids)
    for j in ids:
        c.wait_state(j, ["RUNNING", "COMPLETED"])
    together = all(c.job(j)["JobState"] == "RUNNING" for j in ids)
    recs = [c.record(j) for j in ids]
    classes = [(r["class"], r["source"]) for r in recs]
    freqs = [(r.get("governor"), r.get("freq_req_khz")) for r in recs]
    time.sleep(2)   # the steps have started: the node set their frequency
    domain = _domain(c)
    _wait_done(c, ids)
    return together, classes, freqs, domain


def _as_attacker(c, n, *args):
    """n jobs of the attacker's at once, waited for."""
    ids = [sbatch_as(c, ATTACKER, "-n1", *args) for _ in range(n)]
    _wait_done(c, ids)
    return ids


@pytest.mark.cluster
def test_one_user_teaches_no_one(make_cluster):
    """One user's co-runs do not change the table another user's jobs are
    placed by: the attacker's own application, a solo run then co-runs
    three times as slow (and co-runs placed by --nodelist), are learned
    and counted, but the cell in use stays the configured one, so the
    victim's four cpu jobs still run together, as on an untouched
    cluster; cosched-status says one user stands behind the cell."""
    c, _ = _users_cluster(make_cluster)
    untouched = _victim_round(c)
    assert untouched[0], untouched

    evil = ("--cosched-app=evil", "--cosched-class=cpu")
    _as_attacker(c, 1, *evil, "--wrap=sleep 1.2")
    for _ in range(2):
        _as_attacker(c, 2, *evil, "--wrap=sleep 4")
    _as_attacker(c, 2, *evil, "-wn1", "--wrap=sleep 4")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        st = _status(c, "--interference", "--json")
        nn = [e for e in st["cells"]
              if (e["victim"], e["corunner"]) == ("N", "N")]
        if nn and nn[0]["n"] >= 2 and \
                st["skipped"].get("not_placed", 0) >= 2:
            break
        time.sleep(0.5)
    else:
        raise AssertionError(f"{_cells(c)}\n{st}\n{c.logs(40)}")
    assert nn[0]["learned"] > 1.5 and nn[0]["users"] == 1 and \
        nn[0]["value"] == 1.0 and not nn[0]["used"], st

    time.sleep(2)   # the controller applies the table at its next pass
    assert _victim_round(c) == untouched


# Counts of a memory-bound program (30 LLC misses per 1000 instructions):
# a profile that classifies (lim or mem, as the run's length makes its
# bandwidth), and unlike the cpu the jobs declare.
MEM_COUNTS = ("instructions 1000000000\ncycles 2000000000\n"
              "LLC-load-misses 30000000\ntask-clock 500000000\n")
# The node as the frequency tests make it (test_node.py): one 4-CPU
# package, one frequency domain, in a fake cpufreq tree the node writes.
ONE_SOCKET = "Topology=synthetic:package:1 [numa] core:4 pu:1"
# EDP at 1 thread: 2.2 GHz 10 s x 1000 J = 10000; 1.5 GHz 12 s x 600 J =
# 7200, the minimum: a profile with these points clocks a job at 1.5 GHz.
EDP15 = [{"threads": 1, "freq_khz": 2200000, "time_s": 10.0,
          "energy_j": 1000.0, "samples": 1},
         {"threads": 1, "freq_khz": 1500000, "time_s": 12.0,
          "energy_j": 600.0, "samples": 1}]


def _profile(c, key):
    with open(os.path.join(c.profile_dir, f"{key}.json")) as f:
        return json.load(f)


def _wait_profile_runs(c, key, n, timeout=15):
    """key's profile once it holds n runs (the samplers merge after the
    job ends)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            prof = _profile(c, key)
            if prof["runs_merged"] >= n:
                return prof
        except FileNotFoundError:
            prof = None
        if time.monotonic() > deadline:
            raise AssertionError(f"{key}: {prof}\n{c.logs(30)}")
        time.sleep(0.3)


@pytest.mark.cluster
def test_profile_squatting_gains_nothing(make_cluster):
    """A user who runs first under another user's application name gains
    nothing over the other's jobs: the attacker's runs build the
    attacker's own profile of lammps, which classifies and clocks the
    attacker's jobs (1.5 GHz from its EDP points) but not the victim's,
    whose lammps jobs are placed by their declared class and left at the
    node's own frequency, as on an untouched cluster.  A profile root's
    runs made is the site's: a user's runs do not go into it."""
    w = tempfile.mkdtemp(prefix="cosched-cluster-")
    fake_cpufreq.create(os.path.join(w, "sysfs", "n1"), cpus=4, packages=1)
    conf = sampler_test_conf(w) + ["PowerPolicy=edp", ONE_SOCKET]
    with open(os.path.join(w, "counters"), "w") as f:
        f.write(MEM_COUNTS)
    c, attacker = _users_cluster(make_cluster, conf, workdir=w)
    original = _domain(c)
    untouched = _victim_round(c)
    assert untouched[1] == [("cpu", "declared")] * 4, untouched
    assert untouched[2] == [(None, None)] * 4 and \
        untouched[3] == original, untouched
    # The victim's runs made the victim's own profile: start afresh.
    for name in os.listdir(c.profile_dir):
        if name.startswith("lammps"):
            os.remove(os.path.join(c.profile_dir, name))

    _as_attacker(c, 2, "-Jlammps", "--wrap=sleep 1.5")
    key = f"lammps@{attacker}"
    prof = _wait_profile_runs(c, key, 2)
    assert prof["owner_uid"] == attacker, prof
    assert not os.path.exists(os.path.join(c.profile_dir, "lammps.json"))
    # The EDP sweep the attacker's runs would give at known frequencies.
    prof["edp"] = EDP15
    with open(os.path.join(c.profile_dir, f".{key}.tmp"), "w") as f:
        json.dump(prof, f)
    os.rename(os.path.join(c.profile_dir, f".{key}.tmp"),
              os.path.join(c.profile_dir, f"{key}.json"))
    time.sleep(2)   # the profile cache's next refresh
    assert _victim_round(c) == untouched
    mine = c.record(_as_attacker(c, 1, "-Jlammps", "--wrap=sleep 1.5")[0])
    assert mine["class"] != "cpu" and (mine["source"], mine.get("governor"),
                                       mine.get("freq_req_khz")) == \
        ("profile", "userspace", "1500000"), mine

    for _ in range(2):
        _wait_done(c, [c.sbatch("-n1", "-Jsiteapp", "--wrap=sleep 1.5")])
    _as_attacker(c, 1, "-Jsiteapp", "--wrap=sleep 1.5")
    _wait_profile_runs(c, f"siteapp@{attacker}", 1)
    prof = _profile(c, "siteapp")
    assert "owner_uid" not in prof and prof["runs_merged"] == 2, prof


@pytest.mark.cluster
def test_squatted_name_still_profiles_the_victim(make_cluster):
    """The attacker runs under lammps first; the victim's runs of lammps
    then build the victim's own profile all the same (the store holds it
    as the victim's), and the victim's next lammps job is classified from
    it: its class from the profile, not the cpu it declares."""
    c, attacker = _users_cluster(make_cluster)
    conf = sampler_test_conf(c.workdir)
    with open(os.path.join(c.workdir, "counters"), "w") as f:
        f.write(MEM_COUNTS)
    c.reconfigure(STRICT_LEARNED + conf)
    victim = local_user(VICTIM)

    _as_attacker(c, 2, "-Jlammps", "--wrap=sleep 1.5")
    time.sleep(1)   # the attacker's runs are merged
    ids = [sbatch_as(c, VICTIM, "-n1", "-Jlammps", "--cosched-class=cpu",
                     "--wrap=sleep 1.5") for _ in range(2)]
    _wait_done(c, ids)
    time.sleep(3)   # merged, and the profile cache's next refresh
    j = sbatch_as(c, VICTIM, "-n1", "-Jlammps", "--cosched-class=cpu",
                  "--wrap=sleep 1")
    c.wait_state(j, ["RUNNING", "COMPLETED"])
    rec = c.record(j)
    assert rec["source"] == "profile" and rec["class"] != "cpu", \
        (rec, c.logs(30))
    prof = _profile(c, f"lammps@{victim}")
    assert prof["owner_uid"] == victim and prof["runs_merged"] >= 2, prof
    _wait_done(c, [j])


def _status_bin(c):
    return os.path.join(c.builddir, "src", "status", "cosched-status")


def _status(c, *args):
    r = c.run([_status_bin(c), *args, "--conf",
               os.path.join(c.workdir, "cosched.conf")])
    return json.loads(r.stdout)


def _run_status(*args):
    prog = os.path.join(default_builddir(), "src", "status", "cosched-status")
    return subprocess.run([prog, *args], capture_output=True, text=True,
                          timeout=30)


def test_status_interference_input(tmp_path):
    """cosched-status's --interference, --reset-interference and
    --observations refuse bad input naming the option and the value, and
    read the table file strictly (no cluster needed)."""
    store = tmp_path / "store"
    store.mkdir()
    conf = tmp_path / "cosched.conf"
    conf.write_text(f"ProfileDir={store}\n")

    r = _run_status("--observations", "--min-overlap", "2")
    assert r.returncode == 2 and '--min-overlap: invalid value "2"' in \
        r.stderr, r
    r = _run_status("--interference", "--reset-interference")
    assert r.returncode == 2 and "give one" in r.stderr, r
    r = _run_status("--conf", str(conf))
    assert r.returncode == 2 and "--conf: only with" in r.stderr, r
    r = _run_status("--interference", "--profile-dir", str(store))
    assert r.returncode == 2 and "only with --observations" in r.stderr, r
    r = _run_status("--interference", "--conf", str(tmp_path / "none.conf"))
    assert r.returncode == 1 and "none.conf" in r.stderr, r

    # No table yet; then a reset writes an empty one, which reads back.
    r = _run_status("--interference", "--conf", str(conf))
    assert r.returncode == 0 and "none yet" in r.stdout, r
    r = _run_status("--reset-interference", "--conf", str(conf))
    assert r.returncode == 0 and "reset" in r.stdout, r
    text = (store / "interference.learned").read_text()
    assert text.startswith("cosched-interference/1.1 created=") and \
        text.count("\n") == 1, text
    r = _run_status("--interference", "--json", "--conf", str(conf))
    doc = json.loads(r.stdout)
    assert doc["found"] and doc["cells"] == [] and \
        doc["source"] == "configured", doc

    # A table that does not parse: the file and the line are named, the
    # value quoted and escaped.
    (store / "interference.learned").write_text(
        "cosched-interference/1 created=1 updated=1 through=1.000\n"
        "cell victim=L corunner=L n=1 weight=\x1b[2J sum_log=0 last=1\n")
    r = _run_status("--interference", "--conf", str(conf))
    assert r.returncode == 1 and "interference.learned" in r.stderr and \
        "line 2" in r.stderr and "weight" in r.stderr and \
        "\x1b" not in r.stderr, r

    # --observations over an empty jobs folder, and one with a record
    # that is not JSON.
    (store / "jobs").mkdir()
    (store / "jobs" / "1.0.n1.json").write_text("{not json")
    r = _run_status("--observations", "--profile-dir", str(store))
    assert r.returncode == 0, r
    doc = json.loads(r.stdout)
    assert doc["records"] == [{"kind": "skipped", "reason": "unreadable",
                               "record": "1.0.n1"}], doc
