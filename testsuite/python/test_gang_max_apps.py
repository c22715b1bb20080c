# SPDX-License-Identifier: GPL-2.0-or-later
"""GangMaxApps (cosched.conf(5)) on a real slurmctld: Application-Aware's
reading of the thesis lets at most two jobs share a socket, so on a node of one
4-core socket a third 1-core job waits in strict mode with two cores free
("gang full"); with GangMaxApps=4 the same three jobs run together.  What
is checked is what Slurm recorded (job state, CPU_IDs) and the records."""

import time

import pytest

CPU = "compute"


def _submit(c, n):
    ids = [c.sbatch("-H", "-N1", "-n1", f"-J{CPU}") for _ in range(n)]
    c.release(ids)
    return ids


def _pending_record(c, j, timeout=30):
    deadline = time.monotonic() + timeout
    rec = None
    while time.monotonic() < deadline:
        rec = c.record(j)
        if rec and rec.get("state") == "pending":
            return rec
        time.sleep(0.3)
    raise AssertionError(f"job {j}: no pending record: {rec}\n{c.logs(30)}")


@pytest.mark.cluster
def test_gang_max_apps_fills_a_socket(make_cluster):
    c = make_cluster(nodes=1, sockets=1, cores=4, cosched_conf_extra=[
        "CoschedPolicy=app_aware", "PlacementMode=strict"])
    c.write_profile(CPU, "cpu", 0.1)
    c.run(["scontrol", "reconfigure"])

    # The thesis's reading: two per socket, the third waits for a job to
    # leave though two cores are idle, and its record says why.
    ids = _submit(c, 3)
    for j in ids[:2]:
        c.wait_state(j, "RUNNING")
    rec = _pending_record(c, ids[2])
    assert "gang full (2 of 2 applications)" in rec["reason"], rec
    assert c.job(ids[2])["JobState"] == "PENDING"
    assert c.cancel_all(), "jobs still listed 30 s after scancel"

    # GangMaxApps=4: the tighter reading fills the socket's cores.
    c.reconfigure(["CoschedPolicy=app_aware", "PlacementMode=strict",
                   "GangMaxApps=4"])
    ids = _submit(c, 3)
    for j in ids:
        c.wait_state(j, "RUNNING")
    cpus = [c.job_sockets(j) for j in ids]
    assert all(s == cpus[0] for s in cpus), cpus
    assert all(c.record(j)["state"] == "placed" for j in ids), \
        [c.record(j) for j in ids]
    assert c.cancel_all(), "jobs still listed 30 s after scancel"
