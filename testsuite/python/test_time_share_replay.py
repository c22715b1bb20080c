# SPDX-License-Identifier: GPL-2.0-or-later
"""The simulator's time-shared placement makes the controller's slices.

One sequence of arrivals and departures of 1- and 2-core jobs goes through
slurmctld on one node of 1 socket x 4 cores with a partition of
OverSubscribe=FORCE:2 under PreemptMode=GANG (each job's cores read from
the CPU_IDs Slurm allocated, its partners and how its cores were chosen
from its decision record) and through cosched-sim-replay --oversubscribe 2
with the same cosched.conf (the decision core's time-sharing layer asked
as the select plugin asks it; cons_tres's rows where it makes no choice).
Cores, partners and how must be the same, job by job; one arrival is
placed where only cons_tres's rows, repacked at a departure, put it.
"""

import os
import subprocess

import pytest

from cosched_loopback.cluster import expand
from replay import replay_tool, wait_gone

# The rows cons_tres fills and repacks are the series' own.
pytestmark = pytest.mark.series

# (event, name, class, cores): three mem jobs fill what pairs well, so the
# third and later ones find no choice (cons_tres's cores, in its rows,
# before and after a departure repacks them); the last one is 2 cores wide.
SEQUENCE = [
    ("arrive", "a", "mem", 1),
    ("arrive", "b", "mem", 1),
    ("arrive", "c", "cpu", 1),
    ("arrive", "d", "cpu", 1),
    ("arrive", "e", "mem", 1),
    ("depart", "a"),
    ("arrive", "f", "mem", 1),
    ("arrive", "g", "cpu", 1),
    ("arrive", "h", "mem", 1),
    ("depart", "c"),
    ("depart", "d"),
    ("arrive", "i", "cpu", 2),
    # Empty again; then a departure repacks the rows so that the fuller
    # one has a free core (3) above one free in the other (0): with no
    # choice, n takes core 3, where the lowest core with room would be 0.
    ("depart", "b"), ("depart", "e"), ("depart", "f"), ("depart", "g"),
    ("depart", "h"), ("depart", "i"),
    ("arrive", "j", "mem", 2),
    ("arrive", "k", "mem", 1),
    ("arrive", "l", "cpu", 2),
    ("arrive", "m", "mem", 2),
    ("depart", "j"),
    ("arrive", "n", "mem", 1),
]

# Time-shared jobs hold their cores suspended too.
HOLDING = ("RUNNING", "SUSPENDED", "COMPLETING")

# The record's reason for each way the core chooses (cosched(8)).
HOW = {
    "idle": "time-shared, idle cores",
    "bad": "time-shared, the cores of a job it pairs badly with",
    "other": "time-shared, another job's cores",
    "none": "time-shared, no choice pairs well",
}


def _cores(c, j):
    alloc = c.job(j)["alloc"]
    assert len(alloc) == 1, alloc
    # Threads per core = 1: CPU_IDs are core ids.
    return ",".join(map(str, sorted(expand(alloc[0][1]))))


def _how(reason):
    for how, text in HOW.items():
        if text in reason:
            return how
    raise AssertionError(f"not a time-shared reason: {reason}")


@pytest.mark.cluster
@pytest.mark.parametrize("policy", ["app_aware", "min_slowdown"])
def test_simulator_time_shares_as_the_controller(make_cluster, policy):
    tool = replay_tool()
    c = make_cluster(
        nodes=1, sockets=1, cores=4,
        slurm_conf_extra=[
            "PreemptMode=GANG", "SchedulerTimeSlice=30",
            "PartitionName=gang Nodes=n1 OverSubscribe=FORCE:2 "
            "Default=NO MaxTime=INFINITE State=UP"],
        cosched_conf_extra=[f"CoschedPolicy={policy}"])
    ids, events, controller = {}, [], {}
    for ev in SEQUENCE:
        if ev[0] == "depart":
            j = ids[ev[1]]
            c.run(["scancel", str(j)])
            wait_gone(c, j, holding=HOLDING)
            events.append(f"depart {j}")
            continue
        _, name, cls, cores = ev
        j = c.sbatch("-p", "gang", "-N1", f"-n{cores}", f"-J{name}",
                     f"--cosched-class={cls}", "--wrap=sleep 300")
        ids[name] = j
        c.wait_state(j, ["RUNNING", "SUSPENDED"])
        rec = c.record(j)
        assert rec and rec["state"] == "placed", (name, rec)
        controller[j] = {"cores": _cores(c, j), "how": _how(rec["reason"]),
                         "alternates": rec.get("alternates", ""),
                         "beside": rec.get("beside", "")}
        events.append(f"arrive {j} {cls} {cores} {rec['mpki']}")
    out = subprocess.run(
        [tool, "--conf", os.path.join(c.workdir, "cosched.conf"),
         "--nodes", "1", "--sockets", "1", "--cores", "4",
         "--oversubscribe", "2"],
        input="\n".join(events) + "\n", capture_output=True, text=True,
        timeout=30)
    assert out.returncode == 0, out.stderr
    simulator = {}
    for line in out.stdout.splitlines():
        words = line.split()
        assert words[1:3] == ["0", "0"], line
        keys = dict(w.split("=", 1) for w in words[3:])
        simulator[int(words[0])] = {
            "cores": keys["cores"], "how": keys["how"],
            "alternates": keys.get("alternates", ""),
            "beside": keys.get("beside", "")}
    assert simulator == controller, (
        f"{policy}: controller {controller}, simulator {simulator}")
    # cons_tres's rows, not the lowest core with room.
    assert controller[ids["n"]]["cores"] == "3", controller
    # The sequence reached every way of choosing but "another job's
    # cores" of a pair that pairs well (which these classes need not).
    hows = {v["how"] for v in controller.values()}
    assert {"idle", "bad", "none"} <= hows, controller
