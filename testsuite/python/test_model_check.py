"""cosched-model-check on hand-made step records (cosched-model-check(1)):
which records are observations of a pair, the measured slowdown against
the median solo run, the per-pair table, the rank agreement and the
bad-against-good figure, and the records it leaves out, each with why."""

import json
import os
import subprocess
import sys

import pytest

TOOL = os.path.normpath(os.path.join(
    os.path.dirname(__file__), "..", "..", "contribs", "report",
    "cosched-model-check"))
BATCH = 4294967291


def _rec(d, job, app, start, runtime, cls=None, pred=None, sockets="0",
         node="n1"):
    r = {"schema": 1, "job": job, "step": BATCH, "node": node,
         "start": int(start), "end": int(start + runtime),
         "start_s": float(start), "end_s": float(start + runtime),
         "runtime_s": runtime, "app": app}
    if cls:
        r["decision"] = {"state": "placed", "policy": "none", "class": cls,
                         "sockets": sockets}
        if pred is not None:
            r["decision"]["predicted_slowdown"] = pred
    with open(os.path.join(d, "jobs", f"{job}.{BATCH}.{node}.json"),
              "w") as f:
        json.dump(r, f)


def _run(d, *args):
    r = subprocess.run([sys.executable, TOOL, *args, str(d)],
                       capture_output=True, text=True, timeout=60)
    return r


def test_model_check_pairs_and_agreement(tmp_path):
    os.makedirs(tmp_path / "jobs")
    d = str(tmp_path)
    # Solo runs: mem 10 and 12 s, cpu 20 s; and a mem and a cpu step at
    # the same time on the node's two sockets: solo too (median mem 11).
    _rec(d, 1, "mem", 0, 10.0, cls="mem", pred=1.0)
    _rec(d, 2, "mem", 100, 12.0, cls="mem", pred=1.0)
    _rec(d, 3, "cpu", 200, 20.0, cls="cpu", pred=1.0)
    _rec(d, 30, "mem", 500, 11.0, cls="mem", pred=1.0, sockets="0")
    _rec(d, 31, "cpu", 500, 20.0, cls="cpu", pred=1.0, sockets="1")
    # mem next to mem, both there from the start: 16.5 s = 1.5x each;
    # the model said 1.6.
    _rec(d, 10, "mem", 300, 16.5, cls="mem", pred=1.6)
    _rec(d, 11, "mem", 300, 16.5, cls="mem", pred=1.6)
    # mem next to cpu: 12.1 s = 1.1x, the model said 1.1; cpu 20.4 s =
    # 1.02x next to mem for 59% of its run, the model said 1.0.
    _rec(d, 20, "mem", 400, 12.1, cls="mem", pred=1.1)
    _rec(d, 21, "cpu", 400, 20.4, cls="cpu", pred=1.0)
    # 41 came 5 s after 40: 41's prediction is about 40 (an
    # observation), 40's is not (left out).
    _rec(d, 40, "mem", 600, 15.0, cls="mem", pred=1.0)
    _rec(d, 41, "mem", 605, 15.0, cls="mem", pred=1.5)
    # Three at once: not one co-runner each.
    for j in (50, 51, 52):
        _rec(d, j, "mem", 700, 15.0, cls="mem", pred=1.5)
    # No prediction; no decision record.
    _rec(d, 60, "mem", 800, 15.0, cls="mem")
    _rec(d, 61, "mem", 800, 15.0)
    with open(os.path.join(d, "jobs", "junk.json"), "w") as f:
        f.write("{not json")

    r = _run(d, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["records"] == 16 and doc["unreadable"] == 1
    assert doc["solo_runs"] == {"cpu": 2, "mem": 3}
    pairs = {(p["victim"], p["corunner"]): p for p in doc["pairs"]}
    assert set(pairs) == {("mem", "mem"), ("mem", "cpu"), ("cpu", "mem")}
    mm = pairs[("mem", "mem")]
    assert mm["n"] == 3
    assert mm["measured_median"] == pytest.approx(16.5 / 11)
    assert mm["measured_min"] == pytest.approx(15.0 / 11)
    assert mm["predicted_median"] == pytest.approx(1.6)
    assert pairs[("mem", "cpu")]["measured_median"] == pytest.approx(1.1)
    assert pairs[("cpu", "mem")]["measured_median"] == pytest.approx(1.02)
    assert doc["skipped"] == {
        "the co-runner came after it started (its prediction is about "
        "others)": 1,                                          # 40
        "not exactly one co-runner for most of its run": 3,    # 50-52
        "no decision record with a class and a prediction": 2}  # 60, 61
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
