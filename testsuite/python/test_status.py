"""cosched-status(1) against a real cluster with real jobs.

Nothing writes decision records yet (the controller comes later, and a
test cannot write one: SystemComment is slurmctld's alone), so every job is
listed as "no cosched record": this checks the libslurm side (loading
running and pending jobs, node lists, filters, exit statuses) and that
--json is a valid document.  The content of records is covered by the
unit tests (testsuite/unit/test_status.c).
"""

import json
import os
import re
import subprocess

import pytest

from cluster import default_builddir


def _status(cluster, *args):
    prog = os.path.join(default_builddir(), "src", "status", "cosched-status")
    assert os.access(prog, os.X_OK), f"{prog}: build first"
    return subprocess.run([prog, *args], env=cluster.env, capture_output=True,
                          text=True, timeout=60)


def _expand(cluster, nodelist):
    return cluster.run(["scontrol", "show", "hostnames", nodelist]).stdout.split()


@pytest.mark.cluster
def test_status_lists_real_jobs_without_records(cluster):
    one = cluster.sbatch("-n4")
    two = cluster.sbatch("-N2", "-n2")
    held = cluster.sbatch("--hold", "-n1")
    for j in (one, two):
        cluster.wait_state(j, "RUNNING")
    cluster.wait_state(held, "PENDING")
    nodes = {j: _expand(cluster, cluster.job(j)["NodeList"]) for j in (one, two)}
    for j in (one, two, held):
        assert not cluster.job(j).get("SystemComment"), j

    # The table: each running job under each of its nodes, socket unknown.
    r = _status(cluster)
    assert r.returncode == 0, r.stderr
    rows = [l.split() for l in r.stdout.splitlines()]
    for j, names in nodes.items():
        for n in names:
            assert [n, "-", str(j)] in [row[:3] for row in rows], r.stdout
            assert any(row[:3] == [n, "-", str(j)] and
                       " ".join(row).endswith("no cosched record")
                       for row in rows), r.stdout
    pending = r.stdout[r.stdout.index("Pending jobs:"):]
    assert re.search(rf"^{held}\s+root\s+-\s+-\s+-\s+no cosched record$",
                     pending, re.M), r.stdout

    # JSON: a valid document that says the same.
    r = _status(cluster, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema"] == 1 and doc["record_schema"] == 1
    assert doc["explain"] is None
    jobs = {j["job_id"]: j for j in doc["jobs"]}
    assert {one, two, held} <= set(jobs)
    for j in (one, two, held):
        assert jobs[j]["record"] == "none" and jobs[j]["decision"] is None
        assert jobs[j]["error"] is None and jobs[j]["user"] == "root"
    assert jobs[one]["slurm_state"] == "RUNNING"
    assert jobs[held]["slurm_state"] == "PENDING"
    assert jobs[held]["nodes"] == []
    assert sorted(jobs[two]["nodes"]) == sorted(nodes[two])
    assert doc["pending"] == [held]
    placed = {(g["node"], j) for g in doc["sockets"] for j in g["jobs"]}
    assert placed == {(n, j) for j, names in nodes.items() for n in names}
    assert all(g["socket"] is None for g in doc["sockets"])

    # One job explained: its nodes' jobs, no pending section.
    r = _status(cluster, "-j", str(one))
    assert r.returncode == 0, r.stderr
    assert f"Job {one}: user root" in r.stdout
    assert "record:     none (no cosched record)" in r.stdout
    assert "Pending jobs" not in r.stdout
    listed = {(row[0], row[2]) for row in
              (l.split() for l in r.stdout.splitlines()) if len(row) > 2}
    assert (nodes[one][0], str(one)) in listed
    for n in nodes[two]:
        if n in nodes[one]:
            assert (n, str(two)) in listed, r.stdout
    r = _status(cluster, "--jobs", str(held), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["explain"] == held and doc["sockets"] == []
    assert [j["job_id"] for j in doc["jobs"]] == [held]

    # One node: only its jobs.
    node = nodes[two][0]
    r = _status(cluster, "-n", node, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert {g["node"] for g in doc["sockets"]} == {node}
    assert doc["pending"] == []
    assert two in {j["job_id"] for j in doc["jobs"]}

    # Errors: an unknown job, a bad argument.
    r = _status(cluster, "-j", "999999")
    assert r.returncode == 1
    assert "job 999999: not known to slurmctld" in r.stderr
    r = _status(cluster, "-j", "x")
    assert r.returncode == 2 and "invalid job id" in r.stderr
