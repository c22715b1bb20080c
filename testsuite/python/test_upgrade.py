# SPDX-License-Identifier: GPL-2.0-or-later
"""Records that survive a rolling upgrade (cosched(8) UPGRADE): a node
enforces a decision record of a newer minor schema, skipping the keys it
does not know, and refuses a newer major with one log line naming both
versions while the job runs on.

Slurm lets nothing but slurmctld set a job's SystemComment, so the newer
writer's record reaches the node the other way a node reads one: its own
per-job copy (SlurmdSpoolDir/cosched/records/JOBID), which a step of a
newer task/cosched leaves for the later steps of the job, as it would
during a rollback of the node with the job running.  The parser is the
same one that reads SystemComment.
"""

import json
import os
import re
import time

import pytest

# What differs between Slurm series: run on every series (scripts/test).
pytestmark = pytest.mark.series

from freq_node import SYNTHETIC_2X8

# The record's keys in their order (cosched(8) DECISION RECORD).
ORDER = ["job", "state", "policy", "scope", "app", "class", "lca", "source",
         "mpki", "threads", "sockets", "cores", "numa", "membind", "power",
         "freq_req_khz", "freq_khz", "governor", "slowdown", "reason"]

SCRIPT = """#!/bin/bash
for step in 1 2; do
    while [ ! -e go$step ]; do sleep 0.2; done
    echo "STEP $step"
    srun -n1 bash -c 'env | grep ^COSCHED_MEMBIND='
done
"""


def _fields(text):
    tag, _, rest = text.strip().partition(" ")
    return tag, re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)', rest)


def _newer(text, tag, membind, extra_mid, extra_end, policy=None):
    """text as a newer writer would write it: tag, membind changed, an
    unknown key after scope and another after reason, and the policy
    renamed to one a newer release could add."""
    _, fields = _fields(text)
    fields = [(k, policy if k == "policy" and policy else v)
              for k, v in fields if k != "membind"]
    fields.append(("membind", membind))
    fields.sort(key=lambda kv: ORDER.index(kv[0]))
    at = [k for k, _ in fields].index("scope") + 1
    fields.insert(at, extra_mid)
    fields.append(extra_end)
    return tag + "".join(f" {k}={v}" for k, v in fields)


def _wait_file(path, timeout=30):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        assert time.monotonic() < deadline, f"no {path}"
        time.sleep(0.2)


def _step_membind(c, j, step, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            out = c.job_output(j)
        except FileNotFoundError:
            # The batch step's copy of the record is written before its
            # task opens the output file (CI once read in between).
            out = ""
        m = re.search(rf"^STEP {step}\n(?:.*\n)*?COSCHED_MEMBIND=(.*)$", out,
                      re.M)
        if m:
            return m.group(1)
        time.sleep(0.3)
    raise AssertionError(f"step {step} printed no COSCHED_MEMBIND:\n"
                         f"{c.job_output(j)}")


@pytest.mark.cluster
def test_newer_minor_enforced_newer_major_refused(make_cluster):
    c = make_cluster(nodes=1, sockets=2, cores=8, cosched_conf_extra=[
        "CoschedPolicy=app_aware", SYNTHETIC_2X8])
    j = c.sbatch("-n8", script=SCRIPT)
    c.wait_state(j, "RUNNING")
    assert c.job_sockets(j)["n1"] == [0]    # NUMA node 0: this machine's
    rec = c.record(j)
    assert rec["schema"] == "cosched/1", rec
    assert rec.get("membind", "prefer") == "prefer", rec
    cache = os.path.join(c.workdir, "spool", "n1", "cosched", "records",
                         str(j))
    _wait_file(cache)   # the batch step's copy of the record
    with open(cache) as f:
        written = f.read()
    assert written.startswith("cosched/1 job="), written

    # A newer minor with two keys this node does not know and a policy
    # added after this release (cosched(8) UPGRADE): enforced.
    with open(cache, "w") as f:
        f.write(_newer(written, "cosched/1.9", "bind", ("gpu", "a100"),
                       ("future", '"two words"'), policy="future_policy"))
    open(os.path.join(c.workdir, "jobs", "go1"), "w").close()
    assert _step_membind(c, j, 1) == "bind 0"
    # The record of that step (Slurm's step 0) keeps the decision as
    # written, the newer policy named: the node passes the sampler the
    # name it read, never a record it formatted, which would refuse it.
    step1 = os.path.join(c.profile_dir, "jobs", f"{j}.0.n1.json")
    _wait_file(step1)
    with open(step1) as f:
        decision = json.load(f)["decision"]
    assert decision["policy"] == "future_policy", decision

    # A newer major: refused, named with this node's version in one log
    # line; the step runs on slurmctld's record.
    with open(cache, "w") as f:
        f.write(_newer(written, "cosched/2", "bind", ("gpu", "a100"),
                       ("future", "1")))
    open(os.path.join(c.workdir, "jobs", "go2"), "w").close()
    assert _step_membind(c, j, 2) == "prefer 0"
    c.wait_state(j, "COMPLETED")

    with open(c.log_path("slurmd-n1")) as f:
        log = f.read()
    refused = [l for l in log.splitlines() if f"job {j}: cached decision record" in l]
    assert len(refused) == 1, refused
    assert ("decision record schema cosched/2.0 is newer than this node "
            "understands (cosched/1.x)") in refused[0], refused
    skipped = [l for l in log.splitlines()
               if "decision record schema cosched/1.9 is newer than this "
               "node's (cosched/1.2): skipped 2 keys" in l]
    assert len(skipped) == 1, skipped
