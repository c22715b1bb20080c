# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched's own policy, min_slowdown, on a real slurmctld: where Slurm
put the jobs (CPU_IDs of `scontrol -d show job`, socket = CPU id // cores
per socket) and what the records say.

The cluster: 2 nodes x 2 sockets x 4 cores.  The rules (cosched-
policies(7)): an empty socket costs nothing, so a job takes one while the
queue leaves enough; when the pending jobs' cores reach PackDemand times
the empty cores left, a job packs onto the occupied socket where the
predicted growth of the summed slowdowns is least, but only within
MaxCorunSlowdown (sharing by choice).
"""

import time

import pytest

MEM, LIM, CPU = "stream", "omnetpp", "compute"


def _setup(c):
    c.write_profile(MEM, "mem", 20.0)
    c.write_profile(LIM, "lim", 2.0)
    c.write_profile(CPU, "cpu", 0.1)
    c.run(["scontrol", "reconfigure"])


def _submit_released(c, apps, cores=2):
    ids = [c.sbatch("-H", "-N1", f"-n{cores}", f"-J{a}") for a in apps]
    c.release(ids)
    return ids


def _sockets(c, j):
    return {(n, s) for n, ss in c.job_sockets(j).items() for s in ss}


def _cancel_all(c):
    assert c.cancel_all(), "jobs still listed 30 s after scancel"


@pytest.mark.cluster
def test_empty_socket_before_a_bad_partner(make_cluster):
    """The demo's case: a lim job after a mem job.  app_aware joins it to
    the mem job (predicted 1.76) while sockets stand empty; min_slowdown
    gives it an empty socket, and its record predicts no slowdown."""
    c = make_cluster(nodes=2, cosched_conf_extra=["CoschedPolicy=app_aware"])
    _setup(c)
    mem, lim = _submit_released(c, [MEM, LIM])
    for j in (mem, lim):
        c.wait_state(j, "RUNNING")
    assert _sockets(c, mem) == _sockets(c, lim), "app_aware did not pair"
    assert float(c.record(lim)["slowdown"]) > 1.5, c.record(lim)
    _cancel_all(c)

    c.reconfigure(["CoschedPolicy=min_slowdown"])
    mem, lim = _submit_released(c, [MEM, LIM])
    for j in (mem, lim):
        c.wait_state(j, "RUNNING")
    assert not _sockets(c, mem) & _sockets(c, lim), (
        _sockets(c, mem), _sockets(c, lim))
    for j, cls in ((mem, "mem"), (lim, "lim")):
        rec = c.record(j)
        assert rec["policy"] == "min_slowdown" and rec["state"] == "placed"
        assert rec["class"] == cls, rec
        assert float(rec.get("slowdown", 1)) == 1.0, rec
        assert rec["reason"].startswith(f"min_slowdown class {cls}"), rec
        assert "packed" not in rec["reason"], rec


@pytest.mark.cluster
def test_queue_demand_packs_within_max_slowdown(make_cluster):
    """Ten 2-core jobs, mem and cpu in turn, on 16 cores.  With the default
    PackDemand=1 the queue asks for more than the empty sockets hold, so
    each cpu job packs next to a mem job (predicted 1.07, within the
    default MaxCorunSlowdown of 25%) and no socket ever holds two mem jobs,
    where two mem jobs (1.30) are never packed.
    With PackDemand=1000 the jobs spread while sockets are empty, the
    later ones must share what is left, and two mem jobs meet."""
    c = make_cluster(nodes=2, cosched_conf_extra=[
        "CoschedPolicy=min_slowdown"])
    _setup(c)
    apps = [MEM, CPU] * 5

    def run():
        ids = _submit_released(c, apps)
        for j in ids[:8]:
            c.wait_state(j, "RUNNING")
        where = {j: _sockets(c, j) for j in ids[:8]}
        for s in where.values():
            assert len(s) == 1, where
        mem_on = [next(iter(where[j])) for j, a in zip(ids, apps[:8])
                  if a == MEM]
        return ids, where, len(mem_on) - len(set(mem_on))

    ids, where, mem_pairs = run()
    assert mem_pairs == 0, where
    for k, (j, a) in enumerate(zip(ids[:8], apps)):
        rec = c.record(j)
        if a == CPU:
            # The last one finds no empty socket: sharing is no choice
            # then, and its record does not call it packed.
            assert ("; packed: " in rec["reason"] and " jobs pending, " in rec["reason"]) == \
                (k < 7), rec
            assert float(rec["slowdown"]) <= 1.10, rec
    for j in ids[8:]:
        assert c.job(j)["JobState"] == "PENDING"
    _cancel_all(c)

    c.reconfigure(["CoschedPolicy=min_slowdown", "PackDemand=1000"])
    ids, where, mem_pairs = run()
    assert mem_pairs == 1, where
    assert not any("packed" in c.record(j)["reason"] for j in ids[:8])


@pytest.mark.cluster
def test_strict_holds_within_max_corun_slowdown(make_cluster):
    """PlacementMode=strict: with a mem job on each socket, a lim job
    (predicted 1.76 next to mem, above MaxCorunSlowdown=25) waits, and its
    record says which rule holds it; when a socket empties it runs there,
    alone."""
    c = make_cluster(nodes=1, cosched_conf_extra=[
        "CoschedPolicy=min_slowdown", "PlacementMode=strict",
        "MaxCorunSlowdown=25"])
    _setup(c)
    mems = _submit_released(c, [MEM, MEM])
    for j in mems:
        c.wait_state(j, "RUNNING")
    assert _sockets(c, mems[0]) != _sockets(c, mems[1])
    lim, = _submit_released(c, [LIM], cores=1)
    deadline = time.monotonic() + 30
    rec = None
    while time.monotonic() < deadline:
        rec = c.record(lim)
        if rec and rec["state"] == "pending":
            break
        time.sleep(0.5)
    assert rec and rec["state"] == "pending", rec
    assert rec["reason"].startswith(
        "strict min_slowdown: no socket accepts this lim job "
        "(slowdown bound on 2; first: socket "), rec
    assert "predicted slowdown 1.76 > 1.25 (MaxCorunSlowdown=25)" in \
        rec["reason"], rec
    assert c.job(lim)["JobState"] == "PENDING"

    c.run(["scancel", str(mems[0])])
    c.wait_state(lim, "RUNNING")
    assert not _sockets(c, lim) & _sockets(c, mems[1])
    rec = c.record(lim)
    assert rec["state"] == "placed" and float(rec.get("slowdown", 1)) == 1.0
