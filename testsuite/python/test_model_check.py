# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-model-check on hand-made step records (cosched-model-check(1)):
which records are observations of a pair (by the learner's rule, through
cosched-status --observations), the measured slowdown against the median
solo run, the per-pair table, the rank agreement and the bad-against-good
figure, and the records it leaves out, each with why."""

import json
import os
import subprocess
import sys

import pytest

from cosched_loopback.cluster import default_builddir

TOOL = os.path.normpath(os.path.join(
    os.path.dirname(__file__), "..", "..", "contribs", "report",
    "cosched-model-check"))
BATCH = 4294967291
LCA = {"mem": "L", "cpu": "N", "lim": "LC", "rand": "C"}


class Records:
    """Step records of one folder, written together: each names as its
    co_runners the steps of its node whose runs overlap it (the node's
    ledger is node-wide: sockets are the rule's to compare)."""

    def __init__(self, d):
        self.d, self.recs = d, []

    def add(self, job, app, start, runtime, cls=None, pred=None,
            sockets="0", node="n1", signal=None):
        r = {"schema": 1, "job": job, "step": BATCH, "node": node,
             "start": int(start), "end": int(start + runtime),
             "start_s": float(start), "end_s": float(start + runtime),
             "runtime_s": runtime, "app": app,
             "exit": {"tasks": 1, "signalled": 1 if signal else 0,
                      "failed": 0}}
        if cls:
            r["decision"] = {"state": "placed", "policy": "none",
                             "class": cls, "lca": LCA[cls],
                             "sockets": sockets}
            if pred is not None:
                r["decision"]["predicted_slowdown"] = pred
        self.recs.append(r)

    def write(self):
        for r in self.recs:
            co = [f"{o['job']}.{o['step']}" for o in self.recs
                  if o is not r and o["node"] == r["node"] and
                  o["start_s"] < r["end_s"] and o["end_s"] > r["start_s"]]
            r = dict(r, co_runners=co, co_runners_seen=len(co))
            with open(os.path.join(self.d, "jobs",
                                   f"{r['job']}.{BATCH}.{r['node']}.json"),
                      "w") as f:
                json.dump(r, f)


def _run(d, *args):
    env = dict(os.environ, COSCHED_STATUS=os.path.join(
        default_builddir(), "src", "status", "cosched-status"))
    return subprocess.run([sys.executable, TOOL, *args, str(d)],
                          capture_output=True, text=True, timeout=60,
                          env=env)


def test_model_check_pairs_and_agreement(tmp_path):
    os.makedirs(tmp_path / "jobs")
    d = str(tmp_path)
    rs = Records(d)
    # Solo runs: mem 10 and 12 s, cpu 20 s; and a mem and a cpu step at
    # the same time on the node's two sockets: solo too (median mem 11).
    rs.add(1, "mem", 0, 10.0, cls="mem", pred=1.0)
    rs.add(2, "mem", 100, 12.0, cls="mem", pred=1.0)
    rs.add(3, "cpu", 200, 20.0, cls="cpu", pred=1.0)
    rs.add(30, "mem", 500, 11.0, cls="mem", pred=1.0, sockets="0")
    rs.add(31, "cpu", 500, 20.0, cls="cpu", pred=1.0, sockets="1")
    # mem next to mem, both there from the start: 16.5 s = 1.5x each;
    # the model said 1.6.
    rs.add(10, "mem", 300, 16.5, cls="mem", pred=1.6)
    rs.add(11, "mem", 300, 16.5, cls="mem", pred=1.6)
    # mem next to cpu: 12.1 s = 1.1x, the model said 1.1; cpu 20.4 s =
    # 1.02x next to mem for 59% of its run, the model said 1.0.
    rs.add(20, "mem", 400, 12.1, cls="mem", pred=1.1)
    rs.add(21, "cpu", 400, 20.4, cls="cpu", pred=1.0)
    # 41 came 5 s after 40: 41's prediction is about 40 (an
    # observation), 40's is not (left out).
    rs.add(40, "mem", 600, 15.0, cls="mem", pred=1.0)
    rs.add(41, "mem", 605, 15.0, cls="mem", pred=1.5)
    # Three at once: not one co-runner each.
    for j in (50, 51, 52):
        rs.add(j, "mem", 700, 15.0, cls="mem", pred=1.5)
    # A pair whose one has no decision record: 61 has no class, 60's
    # co-runner has none.
    rs.add(60, "mem", 800, 15.0, cls="mem", pred=1.2)
    rs.add(61, "mem", 800, 15.0)
    # Alone but cut short by a signal: not a solo run.
    rs.add(70, "mem", 900, 3.0, cls="mem", pred=1.0, signal=15)
    rs.write()
    with open(os.path.join(d, "jobs", "junk.json"), "w") as f:
        f.write("{not json")

    r = _run(d, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["records"] == 17 and doc["unreadable"] == 1
    assert doc["solo_runs"] == {"cpu": 2, "mem": 3}
    pairs = {(p["victim"], p["corunner"]): p for p in doc["pairs"]}
    assert set(pairs) == {("L", "L"), ("L", "N"), ("N", "L")}
    mm = pairs[("L", "L")]
    assert mm["n"] == 3
    assert mm["measured_median"] == pytest.approx(16.5 / 11)
    assert mm["measured_min"] == pytest.approx(15.0 / 11)
    assert mm["predicted_median"] == pytest.approx(1.6)
    assert pairs[("L", "N")]["measured_median"] == pytest.approx(1.1)
    assert pairs[("N", "L")]["measured_median"] == pytest.approx(1.02)
    assert doc["skipped"] == {
        "the co-runner came after it started (its prediction is about "
        "others)": 1,                                          # 40
        "not exactly one co-runner for most of its run": 3,    # 50-52
        "the co-runner's class is unknown": 1,                 # 60
        "no class in its decision record": 1,                  # 61
        "cut short: a task ended by a signal": 1,              # 70
        "the record could not be read or trusted": 1}          # junk
    # mem/mem predicted highest and measured highest; mem/cpu above
    # cpu/mem in both: every order agrees.
    assert doc["rank_agreement"] == 1.0 and doc["rank_pairs"] == 3
    # Bad (> 1.3): the three mem/mem observations (1.36..1.5); good:
    # 1.1 and 1.02: all 6 comparisons bad-worse.
    assert doc["bad_worse_than_good"] == 1.0
    assert doc["bad_good_comparisons"] == 6

    text = _run(d).stdout
    assert "rank agreement of predicted and measured pairs: 1.00 over 3" \
        in text, text
    assert "(target 0.80: met)" in text, text


def test_model_check_refuses_bad_input(tmp_path):
    r = _run(tmp_path)
    assert r.returncode == 1 and "jobs: no such folder" in r.stderr
    os.makedirs(tmp_path / "jobs")
    r = _run(tmp_path, "--min-overlap", "0")
    assert r.returncode == 2 and "--min-overlap: 0.0" in r.stderr
    r = _run(tmp_path, "--bad", "0.5")
    assert r.returncode == 2 and "--bad: 0.5" in r.stderr
