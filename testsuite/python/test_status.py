# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-status(1) against a real cluster with real jobs.

Two clusters: one whose jobs carry no decision record (SelectType is plain
select/cons_tres, as after a rollback: nothing writes SystemComment), which
checks the libslurm side (loading running and pending jobs, node lists,
filters, exit statuses) and that --json is a valid document; and one where
the controller places a mem and a cpu job on one socket under app_aware,
whose records the table, the explanation of one job and --json show.  The
parsing and printing of every field is covered by the unit tests
(testsuite/unit/test_status.c).
"""

import json
import os
import re
import subprocess

import pytest

from cosched_loopback.cluster import default_builddir

# What differs between Slurm series: run on every series (scripts/test).
pytestmark = pytest.mark.series


def _status(cluster, *args):
    prog = os.path.join(default_builddir(), "src", "status", "cosched-status")
    assert os.access(prog, os.X_OK), f"{prog}: build first"
    return subprocess.run([prog, *args], env=cluster.env, capture_output=True,
                          text=True, timeout=60)


def _expand(cluster, nodelist):
    return cluster.run(["scontrol", "show", "hostnames", nodelist]).stdout.split()


@pytest.mark.cluster
def test_status_lists_real_jobs_without_records(make_cluster):
    cluster = make_cluster(select_type="select/cons_tres")
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
    # A node list Slurm cannot expand is refused, not an empty answer.
    for bad in ("n[", "n[1-", "n1,,n2]"):
        r = _status(cluster, "--json", "-n", bad)
        assert r.returncode == 2, (bad, r.stdout)
        assert "--nodes: invalid node list" in r.stderr, r.stderr
        assert r.stdout == ""


def _rows(text):
    """The table rows of cosched-status's output, split on blanks."""
    return [l.split() for l in text.splitlines()
            if re.match(r"^n\d+ +(\d+|-) +\d+ ", l)]


@pytest.mark.cluster
def test_status_shows_records_of_jobs_sharing_a_socket(make_cluster):
    """app_aware with measured profiles: a cpu job joins the mem job's
    socket, a second mem job takes the other one.  cosched-status lists the
    pair on the same node and socket with class, source and slowdown as
    their records say; -j explains the cpu job and names its neighbour, not
    the job on the other socket; --json says the same."""
    c = make_cluster(nodes=1, cosched_conf_extra=["CoschedPolicy=app_aware"])
    c.write_profile("stream", "mem", 20.0)
    c.write_profile("compute", "cpu", 0.1)
    c.run(["scontrol", "reconfigure"])    # the profile cache reads them
    mem = c.sbatch("-N1", "-n2", "-Jstream")
    c.wait_state(mem, "RUNNING")
    cpu = c.sbatch("-N1", "-n2", "-Jcompute")
    other = c.sbatch("-N1", "-n2", "-Jstream")
    for j in (cpu, other):
        c.wait_state(j, "RUNNING")
    # Where Slurm put them (CPU_IDs): the pair on one socket, the second
    # mem job on the other.
    where = {j: c.job_sockets(j) for j in (mem, cpu, other)}
    assert where[mem] == where[cpu] and len(where[mem]["n1"]) == 1, where
    sock = where[mem]["n1"][0]
    assert where[other] == {"n1": [1 - sock]}, where
    rec = {j: c.record(j) for j in (mem, cpu, other)}
    for j, cls in ((mem, "mem"), (cpu, "cpu"), (other, "mem")):
        assert rec[j]["class"] == cls and rec[j]["source"] == "profile"
        assert rec[j]["sockets"] == f"n1:{where[j]['n1'][0]}", rec[j]
    # The cpu job joined a mem job: its predicted slowdown is above 1.
    assert float(rec[cpu]["slowdown"]) > 1.0, rec[cpu]

    # The table: the pair on n1's socket, each with class, source and the
    # record's slowdown; the other mem job alone on the other socket.
    r = _status(c)
    assert r.returncode == 0, r.stderr
    rows = {int(row[2]): row for row in _rows(r.stdout)}
    assert set(rows) == {mem, cpu, other}, r.stdout
    for j, cls in ((mem, "mem"), (cpu, "cpu"), (other, "mem")):
        assert rows[j][:8] == ["n1", str(where[j]["n1"][0]), str(j), "root",
                               "placed", cls, "profile",
                               rec[j]["slowdown"]], r.stdout
    assert "no cosched record" not in r.stdout

    # One job explained: its record, and its neighbour on its socket (not
    # the job on the other socket).
    r = _status(c, "-j", str(cpu))
    assert r.returncode == 0, r.stderr
    assert f'Job {cpu}: user root, name "compute", RUNNING on n1' in r.stdout
    assert re.search(r"^  class: +cpu \(LCA N\), from profile$", r.stdout,
                     re.M), r.stdout
    assert re.search(rf"^  placement: +n1: sockets {sock} ", r.stdout,
                     re.M), r.stdout
    assert re.search(rf"^  slowdown: +{re.escape(rec[cpu]['slowdown'])} ",
                     r.stdout, re.M), r.stdout
    near = r.stdout[r.stdout.index("On its nodes and sockets"):]
    listed = {int(row[2]): row for row in _rows(near)}
    assert set(listed) == {mem, cpu}, r.stdout
    assert listed[mem][:8] == rows[mem][:8], r.stdout

    # JSON: the same.
    r = _status(c, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert {(g["node"], g["socket"]): sorted(g["jobs"])
            for g in doc["sockets"]} == {("n1", sock): sorted([mem, cpu]),
                                         ("n1", 1 - sock): [other]}
    jobs = {j["job_id"]: j for j in doc["jobs"]}
    for j, cls in ((mem, "mem"), (cpu, "cpu"), (other, "mem")):
        d = jobs[j]["decision"]
        assert jobs[j]["record"] == "valid" and jobs[j]["error"] is None
        assert (d["class"], d["source"], d["policy"], d["state"]) == (
            cls, "profile", "app_aware", "placed"), d
        assert d["slowdown"] == float(rec[j]["slowdown"]), d
        assert d["placement"][0]["node"] == "n1"
        assert d["placement"][0]["sockets"] == where[j]["n1"], d
    r = _status(c, "-j", str(cpu), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["explain"] == cpu
    assert [(g["node"], g["socket"], sorted(g["jobs"]))
            for g in doc["sockets"]] == [("n1", sock, sorted([mem, cpu]))]
    assert {j["job_id"] for j in doc["jobs"]} == {mem, cpu}

    # Prometheus: the occupancy Slurm shows, each job's slowdown as its
    # record says, and a refused combination.
    r = _status(c, "--prometheus")
    assert r.returncode == 0, r.stderr
    samples = {}
    for line in r.stdout.splitlines():
        if line.startswith("#"):
            continue
        name, value = line.rsplit(" ", 1)
        samples[name] = float(value)
    assert samples[f'cosched_socket_jobs{{node="n1",socket="{sock}"}}'] == 2
    assert samples[f'cosched_socket_jobs{{node="n1",socket="{1 - sock}"}}'] == 1
    for j, cls in ((mem, "mem"), (cpu, "cpu"), (other, "mem")):
        key = (f'cosched_job_predicted_slowdown{{job="{j}",user="root",'
               f'node="n1",socket="{where[j]["n1"][0]}",class="{cls}",'
               f'policy="app_aware"}}')
        assert samples[key] == float(rec[j]["slowdown"]), r.stdout
    assert samples[f'cosched_socket_predicted_slowdown_max{{node="n1",socket="{sock}"}}'] == \
        max(float(rec[mem]["slowdown"]), float(rec[cpu]["slowdown"]))
    assert samples['cosched_jobs{state="placed"}'] == 3, r.stdout
    r = _status(c, "--prometheus", "--json")
    assert r.returncode == 2 and "--prometheus: not with" in r.stderr
