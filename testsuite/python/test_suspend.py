# SPDX-License-Identifier: GPL-2.0-or-later
"""Suspended jobs in the controller's occupancy, as cons_tres counts them.

A job suspended by `scontrol suspend` gives its cores back to cons_tres,
which lets another job take them; the controller must count it the same
way after every rebuild of its state from the job records (reconfigure,
restart), or it holds jobs that cons_tres would run ("no free cores").
"""

import time

import pytest

# DebugFlags=Check reads cons_tres's rows, laid out per series: run on
# every series (scripts/test).
pytestmark = pytest.mark.series

CPU = "compute"


def _log(c):
    with open(c.log_path("slurmctld")) as f:
        return f.read()


@pytest.mark.series
@pytest.mark.cluster
@pytest.mark.parametrize("rebuild", ["reconfigure", "restart"])
def test_suspended_job_holds_no_cores_after_rebuild(make_cluster, rebuild):
    """One socket of two cores, both taken by 1-core cpu jobs; one is
    suspended (its core is free for cons_tres) and slurmctld
    reconfigures or restarts (the suspended job's priority is saved with
    it): a third 1-core job starts on the freed core, and the self-check
    after the rebuild passes."""
    c = make_cluster(nodes=1, sockets=1, cores=2, cosched_conf_extra=[
        "CoschedPolicy=app_aware", "PlacementMode=strict",
        "DebugFlags=Check"])
    a, b = (c.sbatch("-N1", "-n1", f"-J{CPU}", "--cosched-class=cpu")
            for _ in range(2))
    for j in (a, b):
        c.wait_state(j, "RUNNING")
    c.run(["scontrol", "suspend", str(a)])
    c.wait_state(a, "SUSPENDED")
    if rebuild == "restart":
        c.restart_slurmctld()
    else:
        c.run(["scontrol", "reconfigure"])
    late = c.sbatch("-N1", "-n1", f"-J{CPU}", "--cosched-class=cpu")
    c.wait_state(late, "RUNNING")
    rec = c.record(late)
    assert rec and rec["state"] == "placed", rec
    assert float(rec["slowdown"]) >= 1.0, rec
    log = _log(c)
    # The occupancy is compared with cons_tres's own rows: a suspended
    # job counted here with cores cons_tres gave back fails the check.
    assert "self-check passed after rebuild: 2 jobs as in cons_tres's rows" \
        in log, log
    assert "self-check failed" not in log
    assert "not entered" not in log, log
    assert c.job(a)["JobState"] == "SUSPENDED"

    # Resumed, the job time-shares its core with the job that took it:
    # cons_tres keeps it in none of its rows until its next rebuild, nor
    # does the occupancy, and its record says so rather than predict.
    c.run(["scontrol", "resume", str(a)])
    c.wait_state(a, "RUNNING")
    rec = c.record(a)
    assert rec["state"] == "placed", rec
    assert "resumed onto cores other jobs held: time-shared" \
        in rec["reason"], rec
    assert "slowdown" not in rec, rec
    assert f"time-shared with job {late}," in rec["reason"], rec
    # The job holding the core it resumed onto no longer runs as its
    # record predicted: it says with which job it time-shares it; the
    # job on the other core is untouched.
    rec = c.record(late)
    assert f"time-shared with job {a}, resumed onto its cores" \
        in rec["reason"], rec
    assert "slowdown" not in rec, rec
    rec = c.record(b)
    assert "time-shared" not in rec["reason"], rec
    assert float(rec["slowdown"]) >= 1.0, rec
    # The occupancy still agrees with cons_tres's rows, and a reconfigure
    # counts every running job again (the resumed one first, as cons_tres
    # does: the job list's order).
    c.run(["scontrol", "reconfigure"])
    probe = c.sbatch("-N1", "-n1", f"-J{CPU}", "--cosched-class=cpu")
    time.sleep(3)
    assert c.job(probe)["JobState"] == "PENDING", c.job(probe)
    log = _log(c)
    assert "self-check passed after job resume: 3 jobs" in log, log
    assert "self-check failed" not in log
    # The records say what the rebuild counted: the resumed job is
    # counted, the later one left out, and both time-share the core.
    rec = c.record(a)
    assert "resumed onto cores" not in rec["reason"], rec
    assert f"time-shared with job {late}, left out at rebuild" \
        in rec["reason"], rec
    assert "slowdown" not in rec, rec
    rec = c.record(late)
    assert f"left out at rebuild: time-shared with job {a}," \
        in rec["reason"], rec
    assert "slowdown" not in rec, rec
    assert "time-shared" not in c.record(b)["reason"]

    # Once the job left out ends, the next rebuild (here at the next
    # job's test) counts the other alone on its core: its reason as
    # placed, with a prediction again.
    c.run(["scancel", str(probe), str(late)])
    c.wait_state(late, "CANCELLED")
    c.run(["scontrol", "reconfigure"])
    c.sbatch("-N1", "-n1", f"-J{CPU}", "--cosched-class=cpu")
    time.sleep(3)
    rec = c.record(a)
    assert "time-shared" not in rec["reason"], rec
    assert rec["reason"] == c.record(b)["reason"], rec
    assert float(rec["slowdown"]) >= 1.0, rec
    assert "record check failed" not in _log(c)


@pytest.mark.series
@pytest.mark.cluster
def test_time_shared_record_keeps_no_slowdown(make_cluster):
    """A job resumed onto a core another job took: the job holding that
    core says it time-shares it, and a neighbour leaving the socket
    since (which sets the others' predicted slowdowns again) gives it no
    slowdown: none holds until a rebuild counts it again.  Two cpu jobs
    slow each other here, so that the departure changes a prediction."""
    c = make_cluster(nodes=1, sockets=1, cores=2, cosched_conf_extra=[
        "CoschedPolicy=app_aware", "PlacementMode=strict",
        "Interference=N:N=1.3", "DebugFlags=Check"])
    a, b = (c.sbatch("-N1", "-n1", f"-J{CPU}", "--cosched-class=cpu")
            for _ in range(2))
    for j in (a, b):
        c.wait_state(j, "RUNNING")
    c.run(["scontrol", "suspend", str(a)])
    c.wait_state(a, "SUSPENDED")
    late = c.sbatch("-N1", "-n1", f"-J{CPU}", "--cosched-class=cpu")
    c.wait_state(late, "RUNNING")
    assert c.record(late)["slowdown"] == "1.3", c.record(late)
    c.run(["scontrol", "resume", str(a)])
    c.wait_state(a, "RUNNING")
    rec = c.record(late)
    assert f"time-shared with job {a}, resumed onto its cores" \
        in rec["reason"], rec
    assert "slowdown" not in rec, rec
    c.run(["scancel", str(b)])
    c.wait_state(b, "CANCELLED")
    time.sleep(1)
    rec = c.record(late)
    assert f"time-shared with job {a}, resumed onto its cores" \
        in rec["reason"], rec
    assert "slowdown" not in rec, rec
    log = _log(c)
    assert "self-check failed" not in log
    assert "record check failed" not in log
