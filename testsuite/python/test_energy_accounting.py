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
run loses no job's energy.
"""

import json
import os
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
