# SPDX-License-Identifier: GPL-2.0-or-later
"""Each job's own energy in Slurm's accounting (acct_gather_energy/cosched)
against a real slurmdbd with MariaDB.

The node's RAPL is a fake powercap tree the test advances by known joules
while jobs share the node (these machines have none), the samplers keep
the node's energy ledger as in production, and what sacct shows comes
from slurmdbd's database: each step's ConsumedEnergy is its ledger share
(the same figure as its step record), the shares add up to the node's
energy, a job alone is charged the node's energy, a node without RAPL
gives unknown (an empty field, not 0), and slurmdbd stopped while jobs
run loses no job's energy.  The node's ledger removed or made unreadable
while jobs run, its lock replaced, or a step's sampler killed: what sacct
shows is still what the fake RAPL spent, or the log says why not.
"""

import json
import os
import signal
import tempfile
import time

import pytest

from cosched_loopback import fake_powercap
from cosched_loopback.cluster import sampler_test_conf

BATCH = 4294967291          # Slurm's batch step id, as the records name it
ENERGY_CONF = ["AcctGatherEnergyType=acct_gather_energy/cosched",
               "AcctGatherNodeFreq=1"]


def _record(c, step, node="n1"):
    path = os.path.join(c.profile_dir, "jobs", f"{step}.{node}.json")
    deadline = time.monotonic() + 30
    while not os.path.exists(path):
        assert time.monotonic() < deadline, f"no step record {path}"
        time.sleep(0.2)
    with open(path) as f:
        return json.load(f)


def _wait_ledger(c, steps):
    """Until every step ("JOB.STEP") is in the node's ledger."""
    deadline = time.monotonic() + 30
    while not all(f"step {s} " in (c.energy_ledger() or "") for s in steps):
        assert time.monotonic() < deadline, c.energy_ledger()
        time.sleep(0.1)


def _spend(root, package_j, core_j, dram_j):
    for kind, j in (("package", package_j), ("core", core_j),
                    ("dram", dram_j)):
        fake_powercap.advance(root, fake_powercap.zone(root, 0, kind),
                              j * 1000000)


def _batch_energy(c, job):
    """The batch step's ConsumedEnergyRaw in slurmdbd ("" when unknown),
    once the step's record has arrived."""
    deadline = time.monotonic() + 60
    rows = []
    while time.monotonic() < deadline:
        rows = [r for r in c.sacct("-j", str(job), "-o",
                                   "JobID,State,ConsumedEnergyRaw")
                if r["JobID"] == f"{job}.batch"]
        if rows and rows[0]["State"] == "COMPLETED":
            return rows[0]["ConsumedEnergyRaw"]
        time.sleep(0.5)
    raise AssertionError(f"{job}.batch not in slurmdbd: {rows}")


def _cluster(make_cluster, powercap=True):
    w = tempfile.mkdtemp(prefix="cosched-cluster-")
    root = os.path.join(w, "sysfs", "n1")
    fake_powercap.create(root, packages=1, powercap=powercap)
    c = make_cluster(nodes=1, sockets=2, cores=2, workdir=w, accounting=True,
                     slurm_conf_extra=ENERGY_CONF,
                     cosched_conf_extra=sampler_test_conf(w))
    return c, root


@pytest.mark.series
@pytest.mark.cluster
def test_shared_node_energy_in_sacct(make_cluster):
    """Two jobs share the node while the test spends 12 J in it: sacct's
    ConsumedEnergy of each is its ledger share (its record's total), the
    two add up to the node's 12 J, and slurmdbd stopped while they ran and
    started after loses neither.  Then a job alone is charged the whole
    node's energy, across its batch and srun steps."""
    c, root = _cluster(make_cluster)
    jobs = [c.sbatch("-n1", f"-Jshare{i}", "--wrap", "sleep 6")
            for i in (1, 2)]
    for j in jobs:
        c.wait_state(j, "RUNNING")
    _wait_ledger(c, [f"{j}.{BATCH}" for j in jobs])
    c.accounting_db.stop_slurmdbd()
    # 10 J in the package (6 in the cores), 2 J in DRAM.
    _spend(root, 10, 6, 2)
    for j in jobs:
        c.wait_state(j, "COMPLETED", timeout=60)
    c.accounting_db.start_slurmdbd()
    recs = [_record(c, f"{j}.{BATCH}") for j in jobs]
    shares = [r["energy"]["total_uj"] for r in recs]
    assert sum(shares) == 12000000, recs
    sacct = [_batch_energy(c, j) for j in jobs]
    for j, share, raw in zip(jobs, shares, sacct):
        assert raw != "", (j, sacct)
        # Whole joules in accounting: the share rounded.
        assert int(raw) == (share + 500000) // 1000000, (j, raw, share)
    # Each step is rounded to a whole joule: the sum is the node's 12 J
    # within half a joule per step.
    assert abs(sum(int(x) for x in sacct) - 12) <= len(sacct) / 2, sacct

    # Alone on the node, a job whose batch script runs one srun step: the
    # two steps share what the node spent while they ran, and the job
    # line is Slurm's sum of its srun steps (Slurm never adds the batch
    # step's energy to the job's; cosched(8) says so).
    alone = c.sbatch("-n1", "-Jalone", "--wrap", "srun -n1 sleep 4")
    c.wait_state(alone, "RUNNING")
    _wait_ledger(c, [f"{alone}.{BATCH}", f"{alone}.0"])
    _spend(root, 5, 3, 2)
    c.wait_state(alone, "COMPLETED", timeout=60)
    steps = {s: _record(c, f"{alone}.{s}")["energy"]["total_uj"]
             for s in (BATCH, 0)}
    assert sum(steps.values()) == 7000000, steps
    job = c.wait_accounted(alone, fields="JobID,State,ConsumedEnergyRaw")
    rows = {r["JobID"]: r["ConsumedEnergyRaw"]
            for r in c.sacct("-j", str(alone), "-o",
                             "JobID,ConsumedEnergyRaw")}
    assert rows[f"{alone}.batch"] == str((steps[BATCH] + 500000) // 1000000)
    assert rows[f"{alone}.0"] == str((steps[0] + 500000) // 1000000), rows
    assert abs(int(rows[f"{alone}.batch"]) + int(rows[f"{alone}.0"]) - 7) <= 1
    assert job["ConsumedEnergyRaw"] == rows[f"{alone}.0"], (job, rows)


@pytest.mark.cluster
def test_node_without_rapl_gives_unknown_energy(make_cluster):
    """No powercap (these machines): sacct's step energy is unknown (an
    empty field), never 0, and the job still completes."""
    c, _ = _cluster(make_cluster, powercap=False)
    job = c.sbatch("-n1", "-Jnorapl", "--wrap", "sleep 2")
    c.wait_state(job, "COMPLETED", timeout=60)
    assert _batch_energy(c, job) == ""
    # No power figure is made up either (Slurm's NO_VAL as watts would
    # show as energy=4294967294 in the step's TRES usage).
    row = [r for r in c.sacct("-j", str(job), "-o",
                              "JobID,TRESUsageOutMax,TRESUsageOutTot")
           if r["JobID"] == f"{job}.batch"][0]
    assert "4294967294" not in str(row), row
    rec = _record(c, f"{job}.{BATCH}")
    assert rec["energy"]["state"].startswith("energy unavailable"), rec


def _ledger_steps(c):
    """The ledger's step lines as {"JOB.STEP": {key: value}}."""
    steps = {}
    for line in (c.energy_ledger() or "").splitlines():
        if line.startswith("step "):
            words = line.split(" ")
            steps[words[1]] = dict(w.split("=", 1) for w in words[2:])
    return steps


def _wait_until(what, cond, timeout=30):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def _given(step):
    return sum(int(step[k]) for k in ("uncore", "core", "dram"))


def _wait_split(c, steps, uj):
    """Until the ledger has handed out uj among steps, and Slurm's
    accounting has settled each since (it polls every second)."""
    _wait_until(f"{uj} uJ not split: {c.energy_ledger()}",
                lambda: sum(_given(_ledger_steps(c).get(s, {"uncore": 0,
                                                             "core": 0,
                                                             "dram": 0}))
                            for s in steps) == uj)
    time.sleep(2.5)


def _log_count(c, text):
    with open(c.log_path("slurmd-n1"), errors="replace") as f:
        return f.read().count(text)


def _two_jobs(c, seconds):
    jobs = [c.sbatch("-n1", f"-Jkeep{i}", "--wrap", f"sleep {seconds}")
            for i in (1, 2)]
    for j in jobs:
        c.wait_state(j, "RUNNING")
    steps = [f"{j}.{BATCH}" for j in jobs]
    _wait_ledger(c, steps)
    return jobs, steps


# Accounting keeps whole joules: each step's ConsumedEnergy is its share
# rounded, so two steps' sum is the energy spent within 1 J.
TOLERANCE_J = 1


@pytest.mark.cluster
@pytest.mark.parametrize("damage", ["removed", "unreadable"])
def test_energy_survives_ledger_restart(make_cluster, damage):
    """Two jobs share the node; 6 J are spent, the ledger is removed (or
    overwritten with garbage), then 6 J more: each job's record and
    sacct's ConsumedEnergy hold both halves (12 J in all, within the
    tolerance of whole joules), and slurmd's log and the record of the
    step that started it again say once that the ledger started again."""
    c, root = _cluster(make_cluster)
    jobs, steps = _two_jobs(c, 10)
    _spend(root, 4, 2, 2)
    _wait_split(c, steps, 6000000)
    path = os.path.join(c.workdir, "spool", "n1", "cosched", "energy.ledger")
    if damage == "removed":
        os.unlink(path)
    else:
        with open(path + ".new", "wb") as f:
            f.write(b"\0garbage\n")
        os.rename(path + ".new", path)
    # Both steps join the new ledger (with what they had).
    _wait_until(f"steps not back: {c.energy_ledger()}",
                lambda: all(s in _ledger_steps(c) for s in steps))
    _spend(root, 4, 2, 2)
    _wait_split(c, steps, 12000000)
    for j in jobs:
        c.wait_state(j, "COMPLETED", timeout=60)
    recs = [_record(c, s) for s in steps]
    assert sum(r["energy"]["total_uj"] for r in recs) == 12000000, recs
    # The step whose sampler started the ledger again says so; the other
    # joined it with what it had and measured on.
    states = sorted(r["energy"]["state"] for r in recs)
    assert states[0] == "measured", states
    assert states[1].startswith("measured, but the ledger started again: "), \
        states
    sacct = [int(_batch_energy(c, j)) for j in jobs]
    assert abs(sum(sacct) - 12) <= TOLERANCE_J, sacct
    for r, raw in zip(recs, sacct):
        assert raw == (r["energy"]["total_uj"] + 500000) // 1000000, (r, raw)
    why = ("gone while steps had energy" if damage == "removed"
           else "set aside as")
    assert _log_count(c, why) == 1, c.logs()
    assert _log_count(c, "each step keeps what it had") == 1, c.logs()


@pytest.mark.cluster
@pytest.mark.parametrize("kind", ["directory", "symlink"])
def test_energy_ledger_lock_not_a_file(make_cluster, kind):
    """The ledger's lock replaced by a directory or a symbolic link while
    jobs run: refused loudly (slurmd's log, once a step), each step keeps
    what was measured before in its record and in sacct, and its record
    says the energy is incomplete."""
    c, root = _cluster(make_cluster)
    jobs, steps = _two_jobs(c, 10)
    _spend(root, 4, 2, 2)
    _wait_split(c, steps, 6000000)
    lock = os.path.join(c.workdir, "spool", "n1", "cosched",
                        "energy.ledger.lock")
    os.unlink(lock)
    if kind == "directory":
        os.mkdir(lock)
    else:
        os.symlink("/dev/null", lock)
    _spend(root, 4, 2, 2)
    for j in jobs:
        c.wait_state(j, "COMPLETED", timeout=60)
    recs = [_record(c, s) for s in steps]
    for r in recs:
        assert r["energy"]["state"].startswith("energy incomplete: "), r
        assert "energy ledger lock refused" in r["energy"]["state"], r
    assert sum(r["energy"]["total_uj"] for r in recs) == 6000000, recs
    sacct = [int(_batch_energy(c, j)) for j in jobs]
    assert abs(sum(sacct) - 6) <= TOLERANCE_J, sacct
    assert _log_count(c, "energy ledger lock refused") == 2, c.logs()


@pytest.mark.cluster
def test_killed_sampler_not_charged_to_others(make_cluster):
    """One job's sampler is killed while both run: that job still runs on
    its cores, so 12 J spent after it are shared as before: each job's
    ConsumedEnergy is its half, and the other job is not charged the
    killed one's."""
    c, root = _cluster(make_cluster)
    jobs, steps = _two_jobs(c, 8)
    victim = steps[0]
    # Its slurmstepd settles for it (Slurm's accounting polls every
    # second): the ledger knows the step runs while that process lives.
    time.sleep(2.5)
    os.kill(int(_ledger_steps(c)[victim]["pid"]), signal.SIGKILL)
    time.sleep(1)
    _spend(root, 8, 4, 4)
    _wait_split(c, steps, 12000000)
    for j in jobs:
        c.wait_state(j, "COMPLETED", timeout=60)
    sacct = [int(_batch_energy(c, j)) for j in jobs]
    assert abs(sum(sacct) - 12) <= TOLERANCE_J, sacct
    assert abs(sacct[0] - sacct[1]) <= TOLERANCE_J, sacct
    survivor = _record(c, steps[1])
    assert abs(survivor["energy"]["total_uj"] - 6000000) <= 1000000, survivor


@pytest.mark.cluster
def test_suspended_job_not_charged(make_cluster):
    """Two jobs share the node; 6 J are spent with both running, 6 J
    while one is suspended by scontrol, 6 J after it resumed: the
    suspended job is given nothing while it is stopped (not even its
    cores' idle share) and the running one all 6 J; resumed, it shares
    again; the records and sacct add up to the 18 J spent."""
    c, root = _cluster(make_cluster)
    # Long enough that neither ends before the last joules are split
    # (about 10 s in).
    jobs, steps = _two_jobs(c, 20)

    def given():
        ledger = _ledger_steps(c)
        return [_given(ledger[s]) for s in steps]

    _spend(root, 4, 2, 2)
    _wait_split(c, steps, 6000000)
    before = given()
    c.run(["scontrol", "suspend", str(jobs[0])])
    c.wait_state(jobs[0], "SUSPENDED")
    # Its sampler sees its tasks stopped at its next sample (every 0.2 s).
    time.sleep(1.5)
    _spend(root, 4, 2, 2)
    _wait_split(c, steps, 12000000)
    during = given()
    assert during[0] - before[0] == 0, (before, during)
    assert during[1] - before[1] == 6000000, (before, during)
    c.run(["scontrol", "resume", str(jobs[0])])
    c.wait_state(jobs[0], "RUNNING")
    time.sleep(1.5)
    _spend(root, 4, 2, 2)
    _wait_split(c, steps, 18000000)
    after = given()
    # Running again, it pays at least its cores' half of the idle and
    # uncore 2 J.
    assert after[0] - during[0] >= 1000000, (during, after)
    for j in jobs:
        c.wait_state(j, "COMPLETED", timeout=90)
    recs = [_record(c, s)["energy"]["total_uj"] for s in steps]
    assert sum(recs) == 18000000, recs
    sacct = [int(_batch_energy(c, j)) for j in jobs]
    assert abs(sum(sacct) - 18) <= TOLERANCE_J, sacct
    for share, raw in zip(recs, sacct):
        assert raw == (share + 500000) // 1000000, (recs, sacct)
