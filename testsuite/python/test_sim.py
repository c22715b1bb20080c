# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-sim (doc/cosched-sim.1): the command runs from a build, keeps
the policy ranking of "Power-aware gang scheduling on multicore" (NTUA
thesis, 2013) on a short run, refuses bad workload files naming the line and
the field, and prints every space-shared variant with its baselines.  No
Slurm cluster; each test takes well under a second."""

import json
import os
import subprocess
import sys

import pytest

from cosched_loopback.cluster import default_builddir

SIM = os.path.join(default_builddir(), "research", "sim", "cosched-sim")
SEEDS = ["gang", "greedy_thread", "miss_rate_balance", "miss_rate_bound",
         "app_aware"]
# The five published policies and cosched's own (cosched-policies(7)).
POLICIES = SEEDS + ["min_slowdown"]


def sim(*args, check=True):
    if not os.path.exists(SIM):
        pytest.fail(f"{SIM} is not built: run scripts/build")
    r = subprocess.run([SIM, *args], capture_output=True, text=True,
                       timeout=60)
    if check:
        assert r.returncode == 0, r.stdout + r.stderr
    return r


def rows(doc, dvfs=False):
    return {r["policy"]: r for r in doc["rows"] if r["dvfs"] == dvfs}


def test_seed002_ranking_reduced_length():
    # 600 s instead of the thesis's 7200 s: the ranking must hold anyway.
    doc = json.loads(sim("--seed002", "--window", "600", "--dvfs", "both",
                         "--optimum", "--json").stdout)
    off, on = rows(doc), rows(doc, True)
    assert set(off) == set(POLICIES) | {"optimum"}
    gang = off["gang"]
    assert gang["throughput_norm"] == 1.0
    # Every sharing policy beats GANG; Miss-Rate Bound "> 1".
    for p in POLICIES[1:]:
        assert off[p]["throughput_norm"] > 1.0, p
    # Miss-Rate Balance is catastrophic for rand: 3.35..4x GANG's time.
    ratio = off["miss_rate_balance"]["fair_rand"] / gang["fair_rand"]
    assert 3.35 <= ratio <= 4.0, ratio
    # Application-Aware is the fairest published sharing policy, < 1.1 on
    # average, and never co-locates rand with lim or mem.
    aa = off["app_aware"]
    assert aa["fair_avg"] < 1.1
    for p in SEEDS[1:]:
        assert aa["fair_avg"] <= off[p]["fair_avg"], p
    # min_slowdown, judged by the optimum (the target 0.97): with
    # the model's table as the site's, its plan is the optimum here, and
    # it is as fair as Application-Aware in the worst case.
    ms = off["min_slowdown"]
    assert ms["opt_ratio"] >= 0.97, ms["opt_ratio"]
    for p in SEEDS:
        assert ms["runs_per_h"] >= off[p]["runs_per_h"], p
    assert ms["fair_worst"] <= aa["fair_worst"] + 1e-9
    assert aa["fair_rand"] < 1.1
    # Energy: GANG lowest (it leaves the machine underused).
    for p in POLICIES[1:]:
        assert gang["energy_j"] < off[p]["energy_j"], p
    # DVFS: saves energy for every policy, loses little time (the thesis: 4..14%
    # and 0.4..3.5%).
    for p in POLICIES:
        save = 1 - on[p]["energy_j"] / off[p]["energy_j"]
        loss = 1 - on[p]["runs_per_h"] / off[p]["runs_per_h"]
        assert 0.04 <= save <= 0.14, (p, save)
        assert 0 < loss <= 0.035, (p, loss)
    # The optimum bounds every policy, and its ratio column says so.
    for p in POLICIES:
        assert off[p]["opt_ratio"] <= 1 + 1e-9, p
        assert off[p]["runs_per_h"] <= off["optimum"]["runs_per_h"] * \
            (1 + 1e-9), p


def test_table_and_csv_agree():
    table = sim("--seed002", "--window", "120").stdout.splitlines()
    assert table[0].startswith("time-shared: 12 applications")
    trows = {l.split()[0]: l.split() for l in table[2:] if l.strip()}
    assert list(trows) == POLICIES
    csv = sim("--seed002", "--window", "120", "--csv").stdout.splitlines()
    head = csv[0].split(",")
    for line in csv[1:]:
        f = dict(zip(head, line.split(",")))
        t = trows[f["policy"]]
        assert abs(float(t[3]) - float(f["runs_per_h"])) < 0.01
        assert abs(float(t[5]) - float(f["fair_avg"])) < 0.001


def test_bad_workload_refused(tmp_path):
    wl = tmp_path / "w.txt"
    wl.write_text("# two programs\nok 4 0.5 2200 cpu 10\n"
                  "bad 4 0.5 2200 blue 10\n")
    r = sim(str(wl), check=False)
    assert r.returncode == 2
    assert r.stdout == ""
    assert f'{wl}:3: field category: "blue" is not one of' in r.stderr
    wl.write_text("a 12 0.5 2200 cpu 10\n")
    r = sim(str(wl), check=False)
    assert r.returncode == 2
    assert f'{wl}:1: field threads: "12" out of range (1..8)' in r.stderr
    r = sim(str(tmp_path / "missing.txt"), check=False)
    assert r.returncode == 2 and "No such file" in r.stderr


def test_workload_file_runs(tmp_path):
    wl = tmp_path / "w.txt"
    wl.write_text("m 4 5.5 1500 mem 30 count=2\nc 4 0.01 2200 cpu 30\n")
    doc = json.loads(sim(str(wl), "--window", "60", "--optimum",
                         "--json").stdout)
    assert [a["name"] for a in doc["apps"]] == ["m.1", "m.2", "c"]
    off = rows(doc)
    # Two mem programs slow each other 2x: the optimum keeps them apart,
    # and it pairs one with the cpu program.
    assert off["optimum"]["gangs"] == 2
    assert off["optimum"]["fair_worst"] < 1.1


def test_space_shared_baselines(tmp_path):
    doc = json.loads(sim("--setting", "space", "--seed002", "--nodes", "2",
                         "--json").stdout)
    got = {r["variant"]: r for r in doc["rows"]}
    assert list(got) == ["exclusive", "blind"] + POLICIES
    for v, r in got.items():
        assert 0 < r["util"] <= 1, v
        assert r["fair_worst"] >= r["fair_avg"] >= 1 - 1e-9, v
        assert r["bsld_avg"] >= 1, v
    # One job per node or per socket: nobody is slowed.
    assert got["exclusive"]["fair_worst"] == 1.0
    assert got["gang"]["fair_worst"] == 1.0
    # Exclusive nodes hold half the jobs a socket-per-job cluster does.
    assert got["exclusive"]["makespan_s"] > got["gang"]["makespan_s"]
    # Contention-aware sharing is fairer than contention-blind sharing.
    assert got["app_aware"]["fair_worst"] < got["blind"]["fair_worst"]


def test_scale_bench_small():
    r = sim("--bench-scale", "500,2000", "--nodes", "200")
    lines = r.stdout.splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith("variant"))
    body = [l.split() for l in lines[head + 1:head + 3 + len(POLICIES)]]
    assert [b[0] for b in body] == ["exclusive", "blind"] + POLICIES
    for b in body:
        assert float(b[2]) > 0 and float(b[4]) > 0, b
    assert "target each variant < 60 s at 2000 jobs: PASS" in r.stdout


def test_timeline(tmp_path):
    tl = tmp_path / "tl.txt"
    sim("--seed002", "--policy", "app_aware", "--window", "16",
        "--timeline", str(tl))
    lines = [l for l in tl.read_text().splitlines() if not l.startswith("#")]
    # Two rounds of Application-Aware's 8 gangs, one quantum each.
    assert len(lines) == 16
    assert [int(l.split("\t")[1]) for l in lines[:8]] == list(range(8))
    for l in lines:
        cores = sum(int(m.split(":")[1]) for m in l.split("\t")[2].split(","))
        assert cores <= 8, l


ORDERS = ["best", "best_plus", "random", "worst", "worst_plus"]


def test_seed000_orders():
    # The migration experiment of "Dynamic memory placement of applications
    # on a NUMA system" (NTUA thesis, 2020) in model form, a short version
    # (two sets): every order of the decision core on the same instances.
    doc = json.loads(sim("--seed000", "--sets", "2", "--json").stdout)
    assert doc["nodes"] == 4
    assert doc["distance"][:4] == [10, 21, 21, 30]
    assert len(doc["sets"]) == 2
    for st in doc["sets"]:
        got = {(r["mode"], r["order"]): r for r in st["rows"]}
        assert set(got) == {(m, o) for m in ("exact", "whole")
                            for o in ORDERS}
        asked = {r["asked"] for r in st["rows"]}
        assert len(asked) == 1, "every order sees the same requests"
        for (mode, order), r in got.items():
            assert r["geomean"] >= 1.0 and r["worst"] >= r["geomean"]
            if mode == "exact":
                # Just enough pages: never more than asked.
                assert r["moved"] <= r["asked"], order
            # A short request is one that ran out of eligible pages.
            assert r["short"] <= st["requests"]
        # The thesis's whole processes overshoot wherever pages remain.
        assert got[("whole", "best")]["moved"] > \
            got[("exact", "best")]["moved"]
    summ = {(s["mode"], s["order"]): s["vs_best_pct"]
            for s in doc["summary"]}
    for mode in ("exact", "whole"):
        assert summ[(mode, "best")] == 0
        # The thesis's ranking on the mean: Best < Random < Worst.
        assert 0 < summ[(mode, "random")] < summ[(mode, "worst")], mode


def test_seed000_deterministic_and_table():
    a = sim("--seed000", "--sets", "1", "--procs", "8", "--requests",
            "10").stdout
    assert a == sim("--seed000", "--sets", "1", "--procs", "8",
                    "--requests", "10").stdout
    assert "seed 000: random +16, worst +37" in a
    b = sim("--seed000", "--sets", "1", "--procs", "8", "--requests", "10",
            "--seed", "2").stdout
    assert a != b
    r = sim("--seed000", "--csv", check=False)
    assert r.returncode == 2 and "table or --json" in r.stderr


def _matplotlib_missing():
    """Why --plot cannot draw here, or None: matplotlib is a host
    package (scripts/install-deps leaves it out of the Slurm roots, where
    nothing plots)."""
    for py in ("/usr/bin/python3", "python3"):
        r = subprocess.run([py, "-c", "import matplotlib"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            return None
    return ("matplotlib is not installed here (Debian: python3-matplotlib, "
            "which scripts/install-deps installs on the host only)")


needs_matplotlib = pytest.mark.skipif(_matplotlib_missing() is not None,
                                      reason=str(_matplotlib_missing()))


@needs_matplotlib
def test_plot_png_and_svg(tmp_path):
    # --plot FILE.png|svg: the table as usual, and a figure drawn by
    # research/sim/cosched-sim-plot from the run's JSON.
    png, svg = tmp_path / "run.png", tmp_path / "run.svg"
    r = sim("--seed002", "--window", "60", "--policy", "gang,app_aware",
            "--plot", str(png))
    assert r.stdout.startswith("time-shared: 12 applications")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000
    # SVG keeps text as text: the policies drawn are named, the ones not
    # run are not; the timeline names the applications of its gangs.
    doc = json.loads(sim("--seed002", "--window", "60", "--policy",
                         "gang,miss_rate_balance", "--json", "--plot",
                         str(svg)).stdout)
    assert [q[1] for q in doc["timeline"]["quanta"][:3]] == [0, 1, 2]
    assert doc["timeline"]["policy"] == "miss_rate_balance"
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "</svg>" in text
    for p in ("gang", "miss_rate_balance"):
        assert p in text, p
    for p in ("app_aware", "greedy_thread", "miss_rate_bound"):
        assert p not in text, p
    assert "timeline of miss_rate_balance" in text
    for a in doc["apps"]:
        assert a["name"] in text, a["name"]


@needs_matplotlib
def test_plot_space_and_seed000(tmp_path):
    svg = tmp_path / "space.svg"
    sim("--setting", "space", "--seed002", "--nodes", "2", "--plot",
        str(svg))
    text = svg.read_text()
    for v in ["exclusive", "blind"] + POLICIES:
        assert v in text, v
    svg2 = tmp_path / "s000.svg"
    sim("--seed000", "--sets", "2", "--procs", "8", "--requests", "10",
        "--plot", str(svg2))
    text = svg2.read_text()
    for o in ORDERS + ["set 1", "set 2"]:
        assert o in text, o
    assert "set 3" not in text


def test_plot_refusals(tmp_path):
    r = sim("--seed002", "--plot", str(tmp_path / "x.pdf"), check=False)
    assert r.returncode == 2 and "ending in .png or .svg" in r.stderr
    assert not (tmp_path / "x.pdf").exists()
    # A tool that fails: the run's output is there, the exit status 1.
    env_tool = tmp_path / "fail.py"
    env_tool.write_text("import sys\nsys.exit(3)\n")
    r = subprocess.run([SIM, "--seed002", "--window", "24", "--plot",
                        str(tmp_path / "y.png")], capture_output=True,
                       text=True, timeout=60,
                       env={**os.environ, "COSCHED_SIM_PLOT": str(env_tool)})
    assert r.returncode == 1 and "nothing drawn" in r.stderr
    assert r.stdout.startswith("time-shared")


def test_anchor_breitbart():
    # One mem + one cpu job per node against the best exclusive schedule.
    doc = json.loads(sim("--anchor", "--nodes", "3", "--json").stdout)
    ex = doc["exclusive"]
    assert len(ex) == 4
    best = doc["best_exclusive"]
    assert best["makespan_s"] == min(e["makespan_s"] for e in ex)
    got = {r["variant"]: r for r in doc["rows"]}
    assert list(got) == ["blind"] + POLICIES
    aa = got["app_aware"]
    # Application-Aware pairs each mem job with a cpu job: shorter and
    # cheaper than the best exclusive schedule, and nobody slowed 2x.
    assert aa["time_saving_pct"] > 0 and aa["energy_saving_pct"] > 0
    assert aa["fair_worst"] < 1.1
    # min_slowdown pairs them the same way: the model puts mem next to cpu.
    ms = got["min_slowdown"]
    assert ms["makespan_s"] == pytest.approx(aa["makespan_s"])
    assert ms["fair_worst"] < 1.1
    # First-fit packing puts two mem jobs together: worse than pairing.
    assert got["blind"]["makespan_s"] > aa["makespan_s"]
    assert got["blind"]["fair_worst"] > 1.5
    r = sim("--anchor", "--csv", check=False)
    assert r.returncode == 2


# Inputs a researcher trying the simulator would give by mistake: each
# is refused, naming what is wrong, rather than printing a meaningless figure.

def test_solo_refused_with_a_workload_file(tmp_path):
    wl = tmp_path / "w.txt"
    wl.write_text("a 4 0.01 2200 cpu 50\nb 4 5.0 1500 mem 50\n")
    r = sim(str(wl), "--solo", "5", check=False)
    assert r.returncode == 2 and r.stdout == ""
    assert "--solo" in r.stderr and "SOLO_S" in r.stderr
    r = sim("--setting", "space", "--generate", "10", "--solo", "5",
            check=False)
    assert r.returncode == 2 and "--solo" in r.stderr
    # Where it applies it still works.
    a = json.loads(sim("--seed002", "--solo", "20", "--window", "60",
                       "--json").stdout)
    assert {x["solo_s"] for x in a["apps"]} == {20}


def test_optimum_refused_where_there_is_none():
    r = sim("--seed002", "--setting", "space", "--optimum", check=False)
    assert r.returncode == 2 and r.stdout == ""
    assert "--optimum" in r.stderr and "--setting space" in r.stderr
    r = sim("--anchor", "--optimum", check=False)
    assert r.returncode == 2 and "--optimum" in r.stderr


def test_mhz_outside_the_power_model_refused(tmp_path):
    wl = tmp_path / "w.txt"
    wl.write_text("a 4 0.01 2200 cpu 50\nb 4 5.0 800 mem 50\n")
    r = sim(str(wl), "--dvfs", "on", check=False)
    assert r.returncode == 2 and r.stdout == ""
    assert (f'{wl}:2: field mhz: "800" outside the power model\'s range '
            '(1200..2200 MHz)') in r.stderr
    wl.write_text("a 4 0.01 3000 cpu 50\n")
    r = sim(str(wl), "--setting", "space", check=False)
    assert r.returncode == 2 and 'field mhz: "3000"' in r.stderr
    wl.write_text("a 4 0.01 1200 cpu 50\nb 4 5.0 2200 mem 50\n")
    sim(str(wl), "--window", "200")


def test_duplicate_names_refused(tmp_path):
    wl = tmp_path / "w.txt"
    wl.write_text("a 4 0.01 2200 cpu 50\nb 2 0.01 2200 cpu 50\n"
                  "a 4 5.0 1500 mem 50\n")
    r = sim(str(wl), check=False)
    assert r.returncode == 2 and r.stdout == ""
    assert (f'{wl}:3: field name: "a" is already the name of line 1\'s '
            'application') in r.stderr
    # count= names its copies NAME.1..: one of them taken is a repeat too.
    wl.write_text("m.2 4 5.0 1500 mem 50\nm 4 5.0 1500 mem 50 count=2\n")
    r = sim(str(wl), check=False)
    assert r.returncode == 2
    assert f'{wl}:2: field name: "m.2" is already the name of line 1' \
        in r.stderr


def test_no_rand_application_no_nan(tmp_path):
    wl = tmp_path / "w.txt"
    wl.write_text("a 4 0.01 2200 cpu 20\nb 4 5.0 1500 mem 20\n")
    table = sim(str(wl), "--window", "200").stdout
    assert "nan" not in table
    rows_ = [l.split() for l in table.splitlines()[2:] if l.strip()]
    head = table.splitlines()[1].split()
    assert all(r[head.index("rand")] == "-" for r in rows_)
    csv = sim(str(wl), "--window", "200", "--csv").stdout.splitlines()
    assert "nan" not in "\n".join(csv)
    head = csv[0].split(",")
    for line in csv[1:]:
        f = dict(zip(head, line.split(",")))
        assert f["fair_rand"] == "" and f["opt_ratio"] == ""
    doc = json.loads(sim(str(wl), "--window", "200", "--json").stdout)
    assert all(r["fair_rand"] is None for r in doc["rows"])


def test_round_longer_than_the_window_refused(tmp_path):
    # 10,000 one-thread applications: GANG's round is 10,000 quanta, longer
    # than the 7200 s window; it printed a throughput of 2.000 with 0
    # completions.
    wl = tmp_path / "w.txt"
    wl.write_text("a 1 0.01 2200 cpu 50 count=5000\n"
                  "b 1 5.0 1500 mem 50 count=5000\n")
    r = sim(str(wl), check=False)
    assert r.returncode == 2 and r.stdout == ""
    assert ("--window 7200: one round of gang (10000 gangs of 1 s) takes "
            "10000 s, longer than the window") in r.stderr
    # A window of whole rounds in which nobody finishes: said, not hidden.
    wl.write_text("a 4 0.01 2200 cpu 50\nb 4 5.0 1500 mem 50\n")
    r = sim(str(wl), "--window", "40", "--policy", "gang")
    assert "warning: gang: 2 of 2 applications" in r.stderr
    assert "never finished a run" in r.stderr


def test_time_until_every_application_finished_once(tmp_path):
    # The 2013 gang-scheduling thesis reports when the workload finishes;
    # under GANG each of the 12 applications runs 1 s in every 12 s round
    # and needs 50 s alone: the last finishes in round 50, at
    # 49 x 12 + 12 = 600 s.
    doc = json.loads(sim("--seed002", "--window", "1800", "--json").stdout)
    got = rows(doc)
    assert got["gang"]["all_once_s"] == pytest.approx(600)
    for p in POLICIES:
        r = got[p]
        per_app = [a["first_done_s"] for a in r["apps"].values()]
        assert r["all_once_s"] == pytest.approx(max(per_app)), p
        assert 0 < min(per_app) <= r["all_once_s"] <= r["elapsed_s"], p
    table = sim("--seed002", "--window", "1800").stdout.splitlines()
    head = table[1].split()
    assert "all_once_s" in head
    gang = next(l.split() for l in table if l.startswith("gang "))
    assert float(gang[head.index("all_once_s")]) == pytest.approx(600)
    # Never, in a window too short: "-" and null.
    doc = json.loads(sim("--seed002", "--window", "120", "--json").stdout)
    assert rows(doc)["gang"]["all_once_s"] is None


def test_man_page_documents_every_option():
    # --seed was in cosched-sim(1) only as --seed000's instance seed; the
    # time-shared setting's use (Miss-Rate Bound's random start) was not.
    import re
    man = os.path.join(os.path.dirname(__file__), "..", "..", "doc",
                       "cosched-sim.1")
    text = open(man).read()
    for opt in sorted(set(re.findall(r"--([a-z0-9-]+)",
                                     sim("--help").stdout))):
        named = "\\fB\\-\\-" + opt.replace("-", "\\-")
        assert named + "\\fR" in text or named + " " in text, opt
    entry = text.split(".TP\n\\fB\\-\\-seed\\fR \\fIN\\fR\n", 1)
    assert len(entry) == 2, "no entry for --seed"
    body = entry[1].split(".TP", 1)[0]
    assert "time\\-shared" in body and "Miss\\-Rate Bound" in body


def test_plot_timeline_is_data_not_reparsed_text(tmp_path):
    # --plot's JSON timeline was re-parsed from the --timeline text, split
    # at ':' and ','; names holding them lost their quanta.  It is now the
    # run's data, and the same one run gives the table and the drawing.
    wl = tmp_path / "w.txt"
    wl.write_text("a:1 4 0.01 2200 cpu 20\nb,2 4 5.0 1500 mem 20\n")
    tool = tmp_path / "copy.py"
    tool.write_text("import shutil, sys\n"
                    "shutil.copy(sys.argv[2], sys.argv[4])\n")
    out = tmp_path / "drawn.svg"
    r = subprocess.run([SIM, str(wl), "--window", "100", "--policy",
                        "app_aware", "--plot", str(out)],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "COSCHED_SIM_PLOT": str(tool)})
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    quanta = doc["timeline"]["quanta"]
    assert len(quanta) == 48
    names = {m[0] for q in quanta for m in q[2]}
    assert names == {"a:1", "b,2"}
    for t, gang, members in quanta:
        for name, threads, mhz, slowdown in members:
            assert threads == 4 and mhz == 2200 and slowdown >= 1
    table = {l.split()[0]: l.split() for l in r.stdout.splitlines()[2:]}
    assert float(table["app_aware"][3]) == \
        pytest.approx(rows(doc)["app_aware"]["runs_per_h"], abs=0.01)


def test_plot_keeps_space_shared_dvfs(tmp_path):
    # --plot's second run left the space-shared DVFS off whatever --dvfs
    # said; one run now, with the DVFS asked for.
    tool = tmp_path / "copy.py"
    tool.write_text("import shutil, sys\n"
                    "shutil.copy(sys.argv[2], sys.argv[4])\n")
    out = tmp_path / "drawn.svg"
    r = subprocess.run([SIM, "--seed002", "--setting", "space", "--dvfs",
                        "on", "--plot", str(out)], capture_output=True,
                       text=True, timeout=60,
                       env={**os.environ, "COSCHED_SIM_PLOT": str(tool)})
    assert r.returncode == 0, r.stderr
    assert ", dvfs on," in r.stdout.splitlines()[0]
    assert json.loads(out.read_text())["dvfs"] is True


def test_timeline_holds_one_run(tmp_path):
    # With --optimum the optimum's run was appended to the timeline of
    # Application-Aware's (the last policy left the file in place).
    tl = tmp_path / "tl.txt"
    sim("--seed002", "--window", "16", "--optimum", "--timeline", str(tl))
    lines = [l for l in tl.read_text().splitlines() if not l.startswith("#")]
    # Two rounds of Application-Aware's 8 gangs, and nothing more.
    assert len(lines) == 16
    assert [float(l.split("\t")[0]) for l in lines] == list(range(16))



def test_suite_quick_orders_min_slowdown_on_throughput_and_energy():
    """cosched-sim-suite --quick (cosched-sim-suite(1)): the table's claims
    that hold at this size.  min_slowdown reaches the time-shared optimum,
    and on every space-shared row it is first, or within 2% of first, on
    makespan and energy; what it misses is bounded slowdown (its strict
    holds wait where blind packing runs), and the suite says so."""
    suite = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "..", "research", "sim", "cosched-sim-suite")
    r = subprocess.run([sys.executable, suite, "--quick", "--json",
                        "--builddir", default_builddir()],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    ts = next(x for x in doc["rows"] if x["kind"] == "time")
    assert ts["opt"]["min_slowdown"] >= 0.97
    assert ts["opt"]["min_slowdown"] >= max(ts["opt"].values()) - 1e-9
    space = [x for x in doc["rows"] if x["kind"] != "time"]
    assert len(space) == 4      # the anchor and three loads
    for row in space:
        for m in ("makespan", "energy"):
            vals = {v: x[m] for v, x in row["ratio"].items()}
            assert vals["min_slowdown"] <= min(vals.values()) * 1.02, \
                (row["name"], m, vals)
        assert row["worst"]["min_slowdown"] <= 1.25 + 1e-9, row["name"]
    missed = [t for t in doc["targets"] if t.startswith("  missed: ")]
    assert all(t.endswith(")") and " bsld (" in t for t in missed), missed
    assert any(t.endswith("of the optimum (target 0.97): MET")
               for t in doc["targets"]), doc["targets"]
    text = subprocess.run([sys.executable, suite, "--quick", "--builddir",
                           default_builddir()], capture_output=True,
                          text=True, timeout=120).stdout
    assert "makespan / contention-blind packing's" in text
    assert "Targets:" in text


def test_draw_reproduces_its_workload():
    """--draw (cosched-sim(1), DRAWN WORKLOADS): the same seed gives the
    same programs, another seed others, inside the documented ranges;
    each static plan's value under the core's model is reported, and
    min_slowdown's is never below a seed policy's."""
    def apps(seed):
        doc = json.loads(sim("--draw", "--seed", str(seed), "--window", "60",
                             "--json").stdout)
        return doc["apps"], rows(doc)
    a, ra = apps(5)
    assert apps(5)[0] == a
    assert apps(6)[0] != a
    assert 6 <= len(a) <= 12
    ranges = {"cpu": (0, 0.1), "lim": (1.5, 2.0), "mem": (5.0, 6.0),
              "rand": (0, 0.1)}
    for x in a:
        lo, hi = ranges[x["category"]]
        assert lo <= x["mpki"] <= hi and 2 <= x["threads"] <= 6, x
        assert 25 <= x["solo_s"] <= 100, x
    assert ra["miss_rate_bound"]["plan_value"] is None   # runs online
    for p in ("gang", "greedy_thread", "miss_rate_balance", "app_aware"):
        assert ra["min_slowdown"]["plan_value"] >= \
            ra[p]["plan_value"] * (1 - 1e-9), p
    r = sim("--draw", "--seed002", check=False)
    assert r.returncode == 2 and "exactly one of" in r.stderr


def test_suite_drawn_min_slowdown_never_below_a_seed_plan():
    """cosched-sim-suite --drawn 100 (the documented command, about 25
    seconds, most of them the streams): every policy over 100 drawn
    workloads.  Under the core's
    model min_slowdown's time-shared plan is never below the best seed
    policy's; in runs per hour it reaches >= 0.97 of the exact optimum in
    the mean and >= 0.93 at the 5th percentile."""
    suite = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "..", "research", "sim", "cosched-sim-suite")
    r = subprocess.run([sys.executable, suite, "--drawn", "100", "--json",
                        "--builddir", default_builddir()],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    d = doc["drawn"]
    assert d["behind_seed_model"]["cases"] == 0, d["behind_seed_model"]
    title, ts = d["tables"][0]
    assert "optimum" in title
    ours = ts["min_slowdown"]
    assert len(ours["ratios"]) == 100
    assert ours["mean"] >= 0.97 and ours["p5"] >= 0.93, ours
    assert all(x <= 1 + 1e-9 for p in POLICIES for x in ts[p]["ratios"])
    # Time-shared batch and incremental; space-shared on 1, 2 and 4
    # nodes and over the drawn streams, each case's best variant at 1.
    assert len(d["tables"]) == 7
    for _, summ in d["tables"][2:]:
        assert max(max(x["ratios"]) for x in summ.values()) == 1
    assert any("MET" in t for t in doc["targets"])


def test_arrive_places_each_program_as_it_arrives():
    """--arrive (cosched-sim(1)): the drawn programs arrive one at a time
    in an order drawn from --seed, each placed by the policy's incremental
    form; the same seed gives the same gangs.  GANG gives every program
    its own gang either way.  min_slowdown's incremental form joins a gang
    where that costs the round less than one more slice, so its plan is
    worth more under the model than every program alone (GANG's 1); since
    it never moves a placed program, it uses more gangs than its batch
    plan on some draws (doc/sim-suite.md)."""
    def run(seed, *extra):
        return rows(json.loads(sim("--draw", "--seed", str(seed), "--window",
                                   "60", "--json", *extra).stdout))
    more = 0
    for seed in (1, 2, 3):
        inc = run(seed, "--arrive")
        assert run(seed, "--arrive") == inc
        batch = run(seed)
        assert inc["gang"]["gangs"] == batch["gang"]["gangs"]
        more += inc["min_slowdown"]["gangs"] > batch["min_slowdown"]["gangs"]
        assert inc["min_slowdown"]["plan_value"] > \
            inc["gang"]["plan_value"] + 0.1, seed
        for p in POLICIES:
            assert inc[p]["plan_value"] is not None, p
    assert more > 0
    r = sim("--draw", "--setting", "space", "--arrive", check=False)
    assert r.returncode == 2 and "--arrive" in r.stderr


def test_draw_generate_draws_a_stream():
    """--draw --generate N (cosched-sim(1), DRAWN WORKLOADS): an arrival
    stream at a load drawn from the seed in 0.5..0.9, its jobs those of
    --generate N with that seed at that load, inside the documented
    ranges; the same seed gives the same stream, another another; --load
    beside it is refused."""
    def stream(seed, *extra):
        doc = json.loads(sim("--setting", "space", "--draw", "--generate",
                             "300", "--nodes", "8", "--seed", str(seed),
                             "--json", *extra).stdout)
        for r in doc["rows"]:
            del r["sim_s"]
        return doc
    a = stream(5)
    assert stream(5) == a
    b = stream(6)
    assert b["load"] != a["load"] and b["apps"] != a["apps"]
    loads = [stream(s)["load"] for s in range(1, 21)]
    assert all(0.5 <= x <= 0.9 for x in loads)
    assert max(loads) - min(loads) > 0.2, loads
    plain = json.loads(sim("--setting", "space", "--generate", "300",
                           "--nodes", "8", "--seed", "5", "--load",
                           repr(a["load"]), "--json").stdout)
    # The same jobs; the times scaled by the load as printed (10 digits).
    def jobs(doc):
        return [{k: v for k, v in x.items() if k != "submit_s"}
                for x in doc["apps"]]
    assert jobs(plain) == jobs(a)
    assert [x["submit_s"] for x in plain["apps"]] == pytest.approx(
        [x["submit_s"] for x in a["apps"]], rel=1e-8)
    assert [r["makespan_s"] for r in plain["rows"]] == pytest.approx(
        [r["makespan_s"] for r in a["rows"]], rel=1e-6)
    ranges = {"cpu": (0, 0.1), "lim": (1.5, 2.0), "mem": (5.0, 6.0),
              "rand": (0, 0.1)}
    apps = a["apps"]
    assert len(apps) == 300
    for x in apps:
        lo, hi = ranges[x["category"]]
        assert lo <= x["mpki"] <= hi and 1 <= x["threads"] <= 8, x
        assert x["mhz"] == (1500 if x["category"] == "mem" else 2200), x
        assert x["solo_s"] > 0 and x["submit_s"] >= 0, x
    assert [x["submit_s"] for x in apps] == \
        sorted(x["submit_s"] for x in apps)
    # Offered load: core-seconds asked over the cores' during arrivals.
    asked = sum(x["threads"] * x["solo_s"] for x in apps)
    span = apps[-1]["submit_s"]
    assert asked / (8 * 2 * 8 * span) == pytest.approx(a["load"], rel=1e-6)
    mem = sum(x["category"] == "mem" for x in stream(5, "--mix",
                                                    "memory")["apps"])
    assert mem > sum(x["category"] == "mem" for x in apps)
    head = sim("--setting", "space", "--draw", "--generate", "50",
               "--seed", "5").stdout.splitlines()[0]
    assert f"load {a['load']:.3f} (drawn)" in head
    r = sim("--setting", "space", "--draw", "--generate", "50", "--load",
            "0.5", check=False)
    assert r.returncode == 2 and "--load" in r.stderr


def test_suite_drawn_streams():
    """cosched-sim-suite --drawn N runs every seed policy, min_slowdown and
    contention-blind packing over N drawn arrival streams: per variant
    best makespan / its makespan, in (0, 1] with each stream's best at 1,
    and blind's bounded slowdown / its, the same output for the same
    seeds; the streams' loads inside the documented 0.5..0.9."""
    suite = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "..", "research", "sim", "cosched-sim-suite")

    def drawn(*extra):
        r = subprocess.run([sys.executable, suite, "--drawn", "10",
                            "--builddir", default_builddir(), *extra],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout
    text = drawn()
    assert drawn() == text
    variants = ["blind"] + POLICIES
    heads = ["best makespan / the variant's",
             "blind's mean bounded slowdown / the variant's",
             "streams at a drawn load in [0.5, 0.7)",
             "streams at a drawn load in [0.7, 0.9)"]
    for head in heads:
        assert head in text, head
        block = text.split(head, 1)[1].split("\n\n", 1)[0].splitlines()
        assert [line.split()[0] for line in block[2:]] == variants, head
    d = json.loads(drawn("--json"))["drawn"]
    title, span = d["tables"][-1]
    assert title.startswith("space-shared streams (10 drawn")
    assert list(span) == variants
    for v in variants:
        assert len(span[v]["ratios"]) == 10
        assert all(0 < x <= 1 for x in span[v]["ratios"]), v
    for i in range(10):
        assert max(span[v]["ratios"][i] for v in variants) == 1
    _, bsld = d["stream_bsld"]
    assert bsld["blind"]["ratios"] == [1.0] * 10
    assert all(x > 0 for v in variants for x in bsld[v]["ratios"])
    assert all(0.5 <= x <= 0.9 for x in d["stream_loads"])
    assert sum(p["streams"] for p in d["stream_parts"]) == 10
    memory = json.loads(drawn("--json", "--mix", "memory"))["drawn"]
    assert memory["stream_loads"] == d["stream_loads"]
    assert memory["tables"][-1][1] != span


def test_suite_drawn_incremental_rows_reproducible():
    """cosched-sim-suite --drawn N prints the incremental rows beside the
    batch rows, per policy mean, 5th percentile and worst ratio to the
    exact optimum, the same for the same seeds."""
    suite = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "..", "research", "sim", "cosched-sim-suite")

    def drawn(*extra):
        r = subprocess.run([sys.executable, suite, "--drawn", "8",
                            "--builddir", default_builddir(), *extra],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout
    text = drawn()
    head = "time-shared, incremental (arriving in a drawn order)"
    assert head in text
    block = text.split(head, 1)[1].split("\n\n", 1)[0].splitlines()
    assert block[1].split()[:4] == ["policy", "mean", "p5", "worst"]
    assert [line.split()[0] for line in block[2:]] == POLICIES
    assert drawn() == text
    d = json.loads(drawn("--json"))["drawn"]
    title, inc = d["tables"][1]
    assert title.startswith(head)
    batch = d["tables"][0][1]
    for p in POLICIES:
        assert len(inc[p]["ratios"]) == 8
        assert all(0 < x <= 1 + 1e-9 for x in inc[p]["ratios"]), p
    assert inc["gang"]["ratios"] == batch["gang"]["ratios"]
    assert inc["min_slowdown"]["ratios"] != batch["min_slowdown"]["ratios"]


@needs_matplotlib
def test_suite_drawn_plot(tmp_path):
    """cosched-sim-suite --drawn N --plot FILE.svg: a box per policy in
    every setting's panel, the table printed as usual; --plot without
    --drawn is refused."""
    suite = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "..", "research", "sim", "cosched-sim-suite")
    svg = tmp_path / "drawn.svg"
    r = subprocess.run([sys.executable, suite, "--drawn", "10", "--plot",
                        str(svg), "--builddir", default_builddir()],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Targets:" in r.stdout
    text = svg.read_text()
    assert "</svg>" in text and "10 drawn workloads" in text
    for p in POLICIES:
        assert text.count(p) >= 5, p     # one label per panel
    assert "the exact optimum" in text and "4 nodes" in text
    r = subprocess.run([sys.executable, suite, "--plot", str(svg),
                        "--builddir", default_builddir()],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--drawn" in r.stderr


def test_mix_changes_the_categories():
    """--mix changes which categories the generated jobs get (the same
    arrivals, other co-runs: other results; the same mix twice, the same
    results), and an unknown mix is refused naming the three."""
    def run(mix):
        return json.loads(sim("--setting", "space", "--generate", "400",
                              "--nodes", "4", "--mix", mix,
                              "--json").stdout)["rows"]

    def strip(rows):
        return [{k: v for k, v in r.items() if k != "sim_s"} for r in rows]
    assert strip(run("memory")) == strip(run("memory"))
    assert strip(run("balanced")) != strip(run("memory"))
    assert strip(run("memory")) != strip(run("compute"))
    r = sim("--setting", "space", "--generate", "10", "--mix", "heavy",
            check=False)
    assert r.returncode == 2
    assert '--mix: invalid value "heavy" (allowed: balanced, memory, ' \
        'compute)' in r.stderr


WORKLOADS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "..", "research", "sim", "workloads")


def test_gang_max_apps_tighter_reading():
    """cosched-policies(7), READINGS OF THE THESIS: on ten programs of 2..6
    threads, Application-Aware's reading of the thesis (at most 2) leaves
    large programs alone, below 0.9 of the optimum; --gang-max-apps 3 (the
    tighter reading, cosched.conf GangMaxApps) reaches 0.99.  GANG keeps
    one per gang whatever the bound.  Bad values are refused by name."""
    wl = os.path.join(WORKLOADS, "mixed10.txt")
    got = {}
    for m in ("0", "3"):
        doc = json.loads(sim(wl, "--window", "600", "--optimum",
                             "--gang-max-apps", m, "--json").stdout)
        got[m] = rows(doc)
    assert got["0"]["app_aware"]["opt_ratio"] < 0.90, got["0"]["app_aware"]
    assert got["3"]["app_aware"]["opt_ratio"] >= 0.99, got["3"]["app_aware"]
    assert got["0"]["app_aware"]["gangs"] > got["3"]["app_aware"]["gangs"]
    assert got["3"]["gang"]["gangs"] == got["0"]["gang"]["gangs"] == 10
    # A bound can only tighten the optimum's judge: it is computed alone.
    assert got["0"]["optimum"]["runs_per_h"] == \
        got["3"]["optimum"]["runs_per_h"]
    for bad in ("-1", "1025", "x"):
        r = sim(wl, "--gang-max-apps", bad, check=False)
        assert r.returncode == 2 and "--gang-max-apps" in r.stderr \
            and bad in r.stderr, (bad, r.stderr)


def test_easy_backfill_reserves_for_the_first_waiting_job(tmp_path):
    """--queue easy (cosched-sim(1)): B (4 cores) waits behind A (2 of the
    socket's 4, 100 s); C (2 cores) came after B.  first-fit starts C at
    once, so B waits for both; EASY reserves the socket for B at A's end
    and refuses it to C, whose estimated end (200 s) comes later, but not
    to a C that ends before the reservation (50 s)."""
    def run(c_solo, queue):
        wl = tmp_path / f"w{c_solo}.txt"
        wl.write_text("A 2 0.01 2200 cpu 100 submit=0\n"
                      "B 4 0.01 2200 cpu 100 submit=1\n"
                      f"C 2 0.01 2200 cpu {c_solo} submit=2\n")
        doc = json.loads(sim("--setting", "space", str(wl), "--nodes", "1",
                             "--sockets", "1", "--cores", "4", "--policy",
                             "app_aware", "--queue", queue, "--json").stdout)
        assert doc["queue"] == queue
        return {r["variant"]: r for r in doc["rows"]}["app_aware"]

    ff, easy = run(200, "first-fit"), run(200, "easy")
    assert ff["passed"] == 1 and ff["reservations"] == 0
    assert ff["makespan_s"] == pytest.approx(302, abs=0.5)   # C, then B
    assert easy["passed"] == 0 and easy["reserve_refusals"] >= 1
    assert easy["reservations"] >= 1
    assert easy["makespan_s"] == pytest.approx(400, abs=0.5)  # B, then C
    short = run(50, "easy")
    assert short["passed"] == 1 and short["reserve_refusals"] == 0
    assert short["makespan_s"] == pytest.approx(200, abs=0.5)
    # Jobs on two nodes ending together: the will-run query offers a unit
    # on each node at once, and B still gets its reservation (it had none
    # when the allocator took only single offers).
    wl = tmp_path / "two.txt"
    wl.write_text("A1 4 0.01 2200 cpu 100 submit=0\n"
                  "A2 2 0.01 2200 cpu 100 submit=0\n"
                  "B 4 0.01 2200 cpu 100 submit=1\n")
    doc = json.loads(sim("--setting", "space", str(wl), "--nodes", "2",
                         "--sockets", "1", "--cores", "4", "--policy",
                         "app_aware", "--queue", "easy", "--json").stdout)
    for r in doc["rows"]:
        assert r["reservations"] == 1, r
    # Bad values and the setting without a queue are refused by name.
    r = sim("--setting", "space", "--seed002", "--queue", "fifo",
            check=False)
    assert r.returncode == 2 and "--queue" in r.stderr and "fifo" in r.stderr
    r = sim("--seed002", "--queue", "easy", check=False)
    assert r.returncode == 2 and "time-shared" in r.stderr, r.stderr
