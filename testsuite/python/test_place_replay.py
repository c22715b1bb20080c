# SPDX-License-Identifier: GPL-2.0-or-later
"""The simulator judges the placement the controller makes.

One sequence of arrivals and departures goes through slurmctld (the select
plugin's job_test steering cons_tres, each job's socket read back from its
decision record and from the CPU_IDs Slurm allocated) and through the
simulator's placement path (cosched-sim-replay: sim_ss_place, which every
space-shared simulation uses, reading the same cosched.conf with the
controller's parser).  Both use the placement engine (src/libcosched/policy/place.h);
the sockets must be the same, job by job.
"""

import os
import subprocess

import pytest

from replay import replay_tool, wait_gone

# (event, name, class, cores): the classes are declared (--cosched-class),
# so each job's MPKI is its class's nominal one, read back from its record.
SEQUENCE = [
    ("arrive", "a", "mem", 2),
    ("arrive", "b", "mem", 2),
    ("arrive", "c", "cpu", 2),
    ("arrive", "d", "lim", 1),
    ("arrive", "e", "cpu", 2),
    ("depart", "a"),
    ("arrive", "f", "mem", 2),
    ("arrive", "g", "rand", 1),
    ("depart", "c"),
    ("arrive", "h", "mem", 2),
    ("arrive", "i", "cpu", 1),
    ("depart", "b"),
    ("arrive", "j", "lim", 2),
    ("depart", "f"),
    ("arrive", "k", "mem", 2),
    ("arrive", "l", "cpu", 2),
]


@pytest.mark.cluster
@pytest.mark.parametrize("policy", ["app_aware", "miss_rate_bound"])
def test_simulator_places_as_the_controller(make_cluster, policy):
    tool = replay_tool()
    c = make_cluster(nodes=2, cosched_conf_extra=[
        f"CoschedPolicy={policy}", "PlacementMode=strict"])
    ids, events, controller = {}, [], {}
    for ev in SEQUENCE:
        if ev[0] == "depart":
            j = ids[ev[1]]
            c.run(["scancel", str(j)])
            wait_gone(c, j)
            events.append(f"depart {j}")
            continue
        _, name, cls, cores = ev
        j = c.sbatch("-N1", f"-n{cores}", f"-J{name}",
                     f"--cosched-class={cls}")
        ids[name] = j
        c.wait_state(j, "RUNNING")
        rec = c.record(j)
        assert rec and rec["state"] == "placed", (name, rec)
        node, _, sockets = rec["sockets"].partition(":")
        # What Slurm allocated agrees with the record.
        assert c.job_sockets(j) == {node: [int(sockets)]}, (name, rec)
        controller[j] = (int(node[1:]) - 1, int(sockets))
        events.append(f"arrive {j} {cls} {cores} {rec['mpki']}")
    out = subprocess.run(
        [tool, "--conf", os.path.join(c.workdir, "cosched.conf"),
         "--nodes", "2", "--sockets", str(c.sockets), "--cores",
         str(c.cores)],
        input="\n".join(events) + "\n", capture_output=True, text=True,
        timeout=30)
    assert out.returncode == 0, out.stderr
    simulator = {}
    for line in out.stdout.splitlines():
        j, node, sock = line.split()
        simulator[int(j)] = (int(node), int(sock))
    assert simulator == controller, (
        f"{policy}: controller {controller}, simulator {simulator}")
    # The sequence exercised the policy: some socket was shared and some
    # pair kept apart (not every job alone, not all on one socket).
    assert len(set(controller.values())) < len(controller)
