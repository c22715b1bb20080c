# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-report(1) against a real slurmdbd with MariaDB: each job's
energy as the sum of its step lines in sacct, the sums per group, the
co-runners, the savings against the runs under policy none, a node
without RAPL, a user who sees only their own jobs, the figure, and the
refusals.

One cluster holds every case: node n1 has a fake RAPL the test advances by
known joules (cosched_loopback/fake_powercap.py, as test_energy_accounting.py), node n2
has no powercap at all (as these machines).  On n1 two jobs share the node,
then one runs alone (a batch step and an srun step); on n2 at the same time
a job of root's and one of another user's (daemon: from 25.11 slurmdbd
refuses to add a user named nobody, Slurm's own name for uid 99), whose
energies are unknown.  slurmdbd has PrivateData=jobs.
"""

import csv
import io
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

import pytest

from cosched_loopback.cluster import FINAL_STATES, parse_record, sampler_test_conf
from test_accounting import _require_accounting
from test_energy_accounting import BATCH, ENERGY_CONF, _spend, _wait_ledger

from cosched_loopback import fake_powercap

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.normpath(os.path.join(HERE, "..", "..", "contribs", "report",
                                     "cosched-report"))
# The system's python3 (Debian's matplotlib, and one nobody can run).
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
    else sys.executable
SINCE = ["-S", "now-1hour"]
# A job name a user chose to move the terminal and split a CSV line.
NAME = "no,rapl\x1b[31m"
# Not root, not an administrator, and a name slurmdbd accepts: daemon.
OTHER = "daemon"


def _has_matplotlib():
    return subprocess.run([PY, "-c", "import matplotlib"],
                          capture_output=True).returncode == 0


def report(*args, env=None, user=None, check=True):
    argv = [PY, TOOL, *args]
    if user:
        argv = ["runuser", "-u", user, "--", *argv]
    r = subprocess.run(argv, env=env, capture_output=True, text=True,
                       timeout=120, cwd="/tmp")
    if check:
        assert r.returncode == 0, r
    return r


def _wait_steps(c, job, steps):
    """Until sacct has the job's step lines (batch, 0, ...) completed."""
    deadline = time.monotonic() + 60
    rows = []
    while time.monotonic() < deadline:
        rows = {r["JobID"]: r["State"] for r in c.sacct(
            "-a", "-j", str(job), "-o", "JobID,State")}
        if all(rows.get(f"{job}.{s}") == "COMPLETED" for s in steps):
            return
        time.sleep(0.5)
    raise AssertionError(f"steps of {job} in slurmdbd: {rows}")


def _step_energy(c, job):
    """The sum of the job's step lines' ConsumedEnergyRaw in sacct, None
    when one is empty (unknown)."""
    total = 0
    for r in c.sacct("-a", "-j", str(job), "-o", "JobIDRaw,ConsumedEnergyRaw"):
        if "." not in r["JobIDRaw"] or r["JobIDRaw"].endswith(".extern"):
            continue
        if r["ConsumedEnergyRaw"] == "":
            return None
        total += int(r["ConsumedEnergyRaw"])
    return total


def _admin_comment_policy(c, job):
    """The policy of the record slurmctld copied into the job's AdminComment
    in slurmdbd (None: no record there), and the AdminComment."""
    text = c.run(["sacct", "-X", "-n", "-P", "-j", str(job), "-o",
                  "AdminComment"]).stdout
    for line in text.splitlines():
        if line.startswith("cosched/"):
            return parse_record(line)["policy"], text
    return None, text


def _table(text):
    """The table's header and rows (cells split at blanks: the test's
    names have none), and the lines after it."""
    lines = text.splitlines()
    head = lines[0].split()
    widths = [len(w) for w in lines[1].split()]
    assert len(widths) == len(head), lines[:2]
    rows, notes = [], []
    for line in lines[2:]:
        cells = line.split()
        if notes or len(cells) != len(head) or line.startswith("energy "):
            notes.append(line)
        else:
            rows.append(dict(zip(head, cells)))
    return head, rows, notes


def _cluster(make_cluster):
    _require_accounting()
    w = tempfile.mkdtemp(prefix="cosched-cluster-")
    root = os.path.join(w, "sysfs", "n1")
    fake_powercap.create(root, packages=1)
    fake_powercap.create(os.path.join(w, "sysfs", "n2"), powercap=False)
    c = make_cluster(nodes=2, sockets=2, cores=2, workdir=w, accounting=True,
                     slurm_conf_extra=ENERGY_CONF,
                     slurmdbd_conf_extra=["PrivateData=jobs"],
                     cosched_conf_extra=sampler_test_conf(w))
    return c, root


def _run_jobs(c, root):
    """The jobs of the module docstring; returns their ids by role."""
    c.add_accounting_user(OTHER, "guests")
    a = c.sbatch("-n1", "-x", "n2", "-Jstream", "--wrap", "sleep 5")
    b = c.sbatch("-n1", "-x", "n2", "-Jstream", "--wrap", "sleep 5")
    for j in (a, b):
        c.wait_state(j, "RUNNING")
    _wait_ledger(c, [f"{a}.{BATCH}", f"{b}.{BATCH}"])
    _spend(root, 10, 6, 2)
    for j in (a, b):
        c.wait_state(j, "COMPLETED", timeout=60)
    lone = c.sbatch("-n1", "-x", "n2", "-Jstream", "--wrap",
                    "srun -n1 sleep 4")
    norapl = c.sbatch("-n1", "-x", "n1", f"-J{NAME}", "--wrap", "sleep 3")
    r = subprocess.run(
        ["runuser", "-u", OTHER, "--", "sbatch", "--parsable",
         "--chdir=/tmp", "--output=/dev/null", "-n1", "-x", "n1",
         "-Jtheirs", "--wrap=sleep 3"],
        env=c.env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    theirs = int(r.stdout.strip().split(";")[0])
    c.wait_state(lone, "RUNNING")
    _wait_ledger(c, [f"{lone}.{BATCH}", f"{lone}.0"])
    _spend(root, 5, 3, 2)
    for j in (lone, norapl, theirs):
        c.wait_state(j, "COMPLETED", timeout=60)
    for j in (a, b, lone, norapl, theirs):
        assert c.wait_accounted(j)["State"] in FINAL_STATES
    for j in (a, b, norapl, theirs):
        _wait_steps(c, j, ["batch"])
    _wait_steps(c, lone, ["batch", "0"])
    # The decisions: a under app_aware at a frequency, b under none (the
    # baseline), each with its site's own line kept beside the record as
    # slurmctld keeps it.  Written where sacct reads them, in slurmdbd's
    # AdminComment (sacctmgr turns '"' into '`': no quotes here).
    for j, rec in ((a, "policy=app_aware scope=socket app=stream class=mem "
                    "lca=L source=profile freq_khz=1500000 newkey=1"),
                   (b, "policy=none scope=socket app=stream class=mem lca=L "
                    "source=profile")):
        text = f"site note\ncosched/1.2 job={j} state=placed {rec} reason=test"
        c.run(["sacctmgr", "-i", "modify", "job", "where", f"jobid={j}",
               "set", f"AdminComment={text}"])
    return {"a": a, "b": b, "lone": lone, "norapl": norapl, "theirs": theirs}


def _check_jobs(c, ids, doc):
    jobs = {j["job_id"]: j for j in doc["jobs"]}
    assert set(jobs) == {str(v) for v in ids.values()}, jobs.keys()
    a, b, lone = (jobs[str(ids[k])] for k in ("a", "b", "lone"))
    norapl, theirs = jobs[str(ids["norapl"])], jobs[str(ids["theirs"])]
    # (1) Each job's energy is the sum of its step lines, batch included.
    for j in (a, b, lone):
        assert j["energy_j"] == _step_energy(c, j["job_id"]), j
    # The node spent 12 J beside the pair and 7 J beside the lone job's two
    # steps; sacct holds each step's share in whole joules (rounded: two
    # shares of 3.5 J are 4 J each), so a job's sum is within a joule a
    # step of the node's.
    assert abs(a["energy_j"] + b["energy_j"] - 12) <= 1, (a, b)
    assert lone["steps"] == 2 and abs(lone["energy_j"] - 7) <= 1, lone
    for j in (a, b, lone):
        assert j["kwh"] == pytest.approx(j["energy_j"] / 3.6e6)
        assert j["edp_js"] == j["energy_j"] * j["runtime_s"]
        assert j["avg_power_w"] == pytest.approx(
            j["energy_j"] / j["runtime_s"])
    # Co-runners: the pair each other's, nobody beside the lone job, and
    # the two jobs of n2 each other's (root sees both).
    assert a["co_runners"] == [b["job_id"]], a
    assert b["co_runners"] == [a["job_id"]], b
    assert lone["co_runners"] == [], lone
    assert norapl["co_runners"] == [theirs["job_id"]], norapl
    # The records: policy, class, frequency; a key of a newer minor
    # skipped; the lone job's is slurmctld's own copy, if it made one.
    assert (a["policy"], a["class"], a["freq_khz"]) == (
        "app_aware", "mem", 1500000), a
    assert (b["policy"], b["freq_khz"]) == ("none", None), b
    policy, text = _admin_comment_policy(c, ids["lone"])
    assert lone["policy"] == policy, (lone, text)
    assert lone["record"] == ("valid" if policy else "none"), (lone, text)
    assert a["app"] == b["app"] == lone["app"] == "stream"
    # Savings against the one run under none.
    for j in (a, b, lone):
        assert j["baseline_runs"] == 1 and j["baseline_j"] == b["energy_j"]
        if b["energy_j"]:
            assert j["savings"] == pytest.approx(
                1 - j["energy_j"] / b["energy_j"]), j
    # (2) No RAPL on n2: unknown, never 0, with the run time all the same.
    for j in (norapl, theirs):
        assert j["energy_j"] is None and j["energy_unknown"] == "no_energy"
        assert j["runtime_s"] >= 2 and j["avg_power_w"] is None, j
        assert j["savings"] is None and j["edp_js"] is None, j
    assert doc["unknown_energy"] == {"no_energy": 2}, doc["unknown_energy"]
    assert any(n.startswith("energy unknown for 2 jobs: their nodes "
                            "measured no energy (no RAPL") and
               "cosched(8) ENERGY" in n for n in doc["notes"]), doc["notes"]
    return jobs


def _check_aggregates(doc):
    """Every group of every grouping is the sum of its jobs."""
    jobs = doc["jobs"]
    for by, groups in doc["aggregates"].items():
        assert sum(g["jobs"] for g in groups) == len(jobs), by
        for g in groups:
            members = [j for j in jobs if (j[by] or None) == g["name"]]
            known = [j["energy_j"] for j in members
                     if j["energy_j"] is not None]
            assert g["jobs"] == len(members), (by, g)
            assert g["runtime_s"] == sum(j["runtime_s"] for j in members)
            assert g["known_energy_j"] == sum(known), (by, g)
            assert g["unknown_jobs"] == len(members) - len(known)
            assert g["energy_j"] == (sum(known) if len(known) == len(members)
                                     else None), (by, g)
            base = [j for j in members if j["baseline_j"]
                    and j["energy_j"] is not None]
            if base:
                assert g["savings"] == pytest.approx(
                    1 - sum(j["energy_j"] for j in base) /
                    sum(j["baseline_j"] for j in base)), (by, g)
    users = {g["name"]: g for g in doc["aggregates"]["user"]}
    assert users["root"]["unknown_jobs"] == 1 and \
        users["root"]["energy_j"] is None, users
    assert users[OTHER]["energy_j"] is None, users
    policies = {g["name"]: g for g in doc["aggregates"]["policy"]}
    assert policies["none"]["energy_j"] == policies["none"]["known_energy_j"]


def _cell(v, kind):
    if kind == "energy":
        return "unknown" if v is None else str(v)
    if kind == "list":
        return ",".join(v) if v else "-"
    return "-" if v in (None, "") else str(v)


def _check_formats(c, doc):
    """The table, CSV and JSON say the same; the table escapes what a user
    named, CSV quotes it."""
    table = report("-a", *SINCE, env=c.env).stdout
    assert "\x1b" not in table and NAME.replace("\x1b", "\\x1b") in table
    head, rows, notes = _table(table)
    assert head[:3] == ["JobID", "User", "Account"] and "EnergyJ" in head
    assert [n for n in notes if n.startswith("energy unknown")] == \
        [n for n in doc["notes"] if n.startswith("energy unknown")]
    text = report("-a", *SINCE, "--csv", env=c.env).stdout
    assert f'"{NAME}"' in text
    table_csv = list(csv.reader(io.StringIO(text)))
    assert table_csv[0] == head
    assert [{k: v.replace("\x1b", "\\x1b") for k, v in zip(head, r)}
            for r in table_csv[1:]] == rows
    assert NAME in [j["app"] for j in doc["jobs"]]
    by_id = {j["job_id"]: j for j in doc["jobs"]}
    assert [r["JobID"] for r in rows] == [j["job_id"] for j in doc["jobs"]]
    for r in rows:
        j = by_id[r["JobID"]]
        assert r["User"] == j["user"] and r["RuntimeS"] == str(j["runtime_s"])
        assert r["EnergyJ"] == _cell(j["energy_j"], "energy"), (r, j)
        assert r["CoRunners"] == _cell(j["co_runners"], "list"), (r, j)
        assert r["Policy"] == _cell(j["policy"], "text"), (r, j)
        assert r["FreqKHz"] == _cell(j["freq_khz"], "text"), (r, j)
        assert r["BaseRuns"] == str(j["baseline_runs"])
    for by, col in (("policy", "Policy"), ("user", "User")):
        _, grows, _ = _table(report("-a", *SINCE, "--by", by,
                                    env=c.env).stdout)
        groups = doc["aggregates"][by]
        assert [g[col] for g in grows] == [g["name"] or "-" for g in groups]
        for g, d in zip(grows, groups):
            assert g["Jobs"] == str(d["jobs"]), (g, d)
            assert g["EnergyJ"] == _cell(d["energy_j"], "energy"), (g, d)
            assert g["KnownJ"] == str(d["known_energy_j"]), (g, d)
            assert g["Unknown"] == str(d["unknown_jobs"]), (g, d)
        text = report("-a", *SINCE, "--by", by, "--csv", env=c.env).stdout
        assert [dict(zip(next(csv.reader(io.StringIO(text))), r)) for r in
                list(csv.reader(io.StringIO(text)))[1:]] == grows


def _png_size(path):
    data = open(path, "rb").read(32)
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data
    return struct.unpack(">II", data[16:24])


def _check_plot(c, doc, tmp):
    png = os.path.join(tmp, "energy.png")
    if not _has_matplotlib():
        # The Slurm roots have no matplotlib (scripts/install-deps puts it
        # on the host only): --plot says so, and fails.
        r = report("-a", *SINCE, "--plot", png, env=c.env, check=False)
        assert r.returncode == 1 and "python3-matplotlib" in r.stderr, r
        return
    pdoc = json.loads(report("-a", *SINCE, "--json", "--plot", png,
                             env=c.env).stdout)["plot"]
    assert _png_size(png) == (1200, 900)
    assert (pdoc["width_px"], pdoc["height_px"], pdoc["file"]) == \
        (1200, 900, png)
    small = os.path.join(tmp, "small.png")
    report("-a", *SINCE, "--plot", small, "--dpi", "50", env=c.env)
    assert _png_size(small) == (600, 450)
    # The series drawn are the jobs of known energy: per policy and per
    # application their sums, on n1 only (n2 measured nothing).
    known = [j for j in doc["jobs"] if j["energy_j"] is not None]
    want = {}
    for j in known:
        want[j["policy"]] = want.get(j["policy"], 0) + j["energy_j"]
    assert {s["name"]: s["energy_j"] for s in pdoc["energy_by_policy"]} \
        == want
    assert [s["name"] for s in pdoc["energy_by_app"]] == ["stream"]
    assert [n["node"] for n in pdoc["power_by_node"]] == ["n1"]
    assert sorted(s["job_id"] for s in pdoc["power_by_node"][0]["jobs"]) \
        == sorted(j["job_id"] for j in known)
    assert pdoc["left_out_unknown"] == 2
    # The SVG keeps its text: the names in the JSON are those drawn.
    svg = os.path.join(tmp, "energy.svg")
    sdoc = json.loads(report("-a", *SINCE, "--json", "--plot", svg,
                             env=c.env).stdout)["plot"]
    text = open(svg).read()
    assert 'width="864pt" height="648pt"' in text
    for s in sdoc["energy_by_policy"] + sdoc["energy_by_app"]:
        assert f">{s['label']}<" in text, s
    for n in sdoc["power_by_node"]:
        assert f">{n['node']} (W)<" in text
        for s in n["jobs"]:
            assert f">job {s['job_id']}<" in text, s
    assert "energy unknown for 2 jobs: left out of this figure" in text


@pytest.mark.cluster
def test_report_from_accounting(make_cluster, tmp_path):
    c, root = _cluster(make_cluster)
    ids = _run_jobs(c, root)
    doc = json.loads(report("-a", *SINCE, "--json", env=c.env).stdout)
    assert doc["schema"] == 1 and doc["by"] == "job"
    _check_jobs(c, ids, doc)
    _check_aggregates(doc)
    _check_formats(c, doc)

    # (3) The other user, not an administrator, with PrivateData=jobs:
    # only their job, and no co-runner sacct does not show them.
    theirs = json.loads(report("-a", *SINCE, "--json", env=c.env,
                               user=OTHER).stdout)
    assert [(j["job_id"], j["user"]) for j in theirs["jobs"]] == \
        [(str(ids["theirs"]), OTHER)], theirs["jobs"]
    assert theirs["jobs"][0]["co_runners"] == []
    assert [g["name"] for g in theirs["aggregates"]["user"]] == [OTHER]
    _, rows, _ = _table(report("-a", *SINCE, env=c.env,
                               user=OTHER).stdout)
    assert [r["JobID"] for r in rows] == [str(ids["theirs"])]

    # -j passes through; a time sacct refuses is a bad option (2).
    one = json.loads(report("-j", str(ids["lone"]), "--json",
                            env=c.env).stdout)
    assert [j["job_id"] for j in one["jobs"]] == [str(ids["lone"])]
    assert one["jobs"][0]["energy_j"] == \
        next(j for j in doc["jobs"] if j["job_id"] == str(ids["lone"]))[
            "energy_j"]
    r = report("-S", "garbage", env=c.env, check=False)
    assert r.returncode == 2 and "-S/--starttime 'garbage'" in r.stderr, r

    # (4) The figure.
    _check_plot(c, doc, str(tmp_path))


def test_bad_arguments_exit_2(tmp_path):
    """Refused before sacct runs, naming the option and the value."""
    env = dict(os.environ, SLURM_CONF=str(tmp_path / "no-such.conf"))
    for args, words in ((["--by", "nope"], ["--by", "nope"]),
                        (["--dpi", "abc"], ["--dpi", "abc"]),
                        (["--dpi", "5"], ["--dpi", "5"]),
                        (["--plot", "x.pdf"], ["--plot", "x.pdf"]),
                        (["-j", "12,abc"], ["-j/--jobs", "abc"]),
                        (["-u", "a\x1bb"], ["-u/--user", "\\x1b"]),
                        (["--csv", "--json"], ["--csv", "--json"]),
                        (["--nope"], ["--nope"])):
        r = report(*args, env=env, check=False)
        assert r.returncode == 2, (args, r)
        assert all(w in r.stderr for w in words), (args, r.stderr)
        assert "\x1b" not in r.stderr and r.stdout == "", (args, r)
    assert not (tmp_path / "x.pdf").exists()


def test_sacct_failing_exits_1(tmp_path):
    """sacct's own message, exit 1 (here: a fake sacct on PATH)."""
    fake = tmp_path / "sacct"
    fake.write_text("#!/bin/sh\necho 'sacct: error: Problem talking to the "
                    "database: Connection refused' >&2\nexit 1\n")
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{tmp_path}:{os.environ['PATH']}")
    r = report("-a", env=env, check=False)
    assert r.returncode == 1 and r.stdout == "", r
    assert "Problem talking to the database: Connection refused" in r.stderr


def _package():
    sys.path.insert(0, os.path.dirname(TOOL))
    import cosched_report.accounting as accounting
    import cosched_report.record as record
    return accounting, record


def test_host_lists_and_sacct_lines():
    """NodeList as Slurm writes host lists, and sacct's lines holding line
    ends (AdminComment) read back by counting fields."""
    accounting, record = _package()
    expand = accounting.expand_hostlist
    assert expand("n[1-3],n7") == ["n1", "n2", "n3", "n7"]
    assert expand("gpu[08-10]-ib,n1") == ["gpu08-ib", "gpu09-ib",
                                          "gpu10-ib", "n1"]
    assert expand("r[1-2]n[1,3]") == ["r1n1", "r1n3", "r2n1", "r2n3"]
    assert expand("None assigned") == [] and expand("") == []
    with pytest.raises(ValueError):
        expand("n[1-")
    d = "\x1fDELIM\x1e"
    fields = ("JobIDRaw", "JobName", "AdminComment")
    text = (f"7{d}a\nb{d}site\ncosched/1 job=7{d}7\n"
            f"7.batch{d}batch{d}{d}7.batch\n")
    rows = accounting.parse_rows(text, d, fields)
    assert rows == [{"JobIDRaw": "7", "JobName": "a\nb",
                     "AdminComment": "site\ncosched/1 job=7"},
                    {"JobIDRaw": "7.batch", "JobName": "batch",
                     "AdminComment": ""}]
    with pytest.raises(accounting.SacctError):
        accounting.parse_rows(f"7{d}x{d}{d}8\n", d, fields)
    rec, err = record.from_admin_comment(
        'x\ncosched/1.2 job=7 state=placed policy=none scope=socket '
        'new="a \\" b" freq_khz=1200000 reason="r"', "7")
    assert err is None and rec["freq_khz"] == 1200000 and rec["new"] == 'a " b'
    for text, why in (("cosched/2 job=7 state=placed policy=none "
                       "scope=socket", "cosched/2"),
                      ("cosched/1 job=8 state=placed policy=none "
                       "scope=socket", "names job 8"),
                      ("cosched/1 job=7 state=placed policy=none scope=socket"
                       "\ncosched/1 job=7 state=placed policy=gang "
                       "scope=socket", "neither"),
                      ("cosched/1 job=7 state=placed scope=socket",
                       "no policy")):
        rec, err = record.from_admin_comment(text, "7")
        assert rec is None and why in err, (text, err)


def test_csv_cells_never_run_as_formulas():
    """A job name is the user's: in CSV a text cell that would start a
    spreadsheet formula gets a leading ', numbers stay numbers."""
    _package()
    import cosched_report.output as output
    row = {key: None for _, key, _, _ in output.JOB_COLUMNS}
    row.update(job_id="7", user="mallory", app='=HYPERLINK("http://x")',
               account="+acct", partition="@p", state="-x",
               co_runners=["\t=1"], energy_j=12.0, savings=-0.25,
               runtime_s=3)
    out = io.StringIO()
    output.write_csv([row], "job", out, False)
    header, line = list(csv.reader(io.StringIO(out.getvalue())))
    got = dict(zip(header, line))
    assert got["App"] == '\'=HYPERLINK("http://x")', got
    assert got["Account"] == "'+acct" and got["Partition"] == "'@p"
    assert got["State"] == "'-x" and got["CoRunners"] == "'\t=1"
    assert got["User"] == "mallory" and got["JobID"] == "7"
    assert got["EnergyJ"] == "12" and got["Saved"] == "-25.0%", got
    assert got["RuntimeS"] == "3"
    assert got["Class"] == "-"          # the table's "none" stays as it is


# Job names a user may choose so that a spreadsheet opening the CSV runs
# them: a formula behind a carriage return or a line end (a reader would
# start a row with it), behind a quote, a tab, or plain.
HOSTILE_NAMES = ("\r=cmd|' /C calc'!A0", "\n=1+1", "a\r=2+3", '"=3"',
                 "\t=4", "=5", "+6", "-7+8", "@SUM(9)", "\r\n@x", "'\r=y")
_FAKE_SACCT = r'''#!/usr/bin/python3
import json, os, sys
args = sys.argv[1:]
delim = [a for a in args if a.startswith("--delimiter=")][0][12:]
fields = args[args.index("-o") + 1].split(",")
for i, name in enumerate(json.load(open(os.environ["FAKE_SACCT_NAMES"]))):
    job = str(100 + i)
    line = {"JobIDRaw": job, "JobID": job, "JobName": name, "User": "mallory",
            "Account": name, "Partition": "p", "NodeList": "n1",
            "State": "COMPLETED", "Start": str(1000 + i), "End": str(1010 + i),
            "ElapsedRaw": "10", "ConsumedEnergyRaw": "", "AdminComment": ""}
    step = dict(line, JobIDRaw=job + ".0", JobID=job + ".0",
                ConsumedEnergyRaw="50")
    for row in (line, step):
        sys.stdout.write(delim.join(row[f] for f in fields) + "\n")
'''


def _spreadsheet_rows(text):
    """The rows a spreadsheet makes of text: a row ends at CR, LF or CRLF
    outside quotes (and, unlike RFC 4180, at a lone CR too)."""
    rows, quoted, i = 1, False, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            quoted = not quoted
        elif c in "\r\n" and not quoted:
            i += text.startswith("\r\n", i)
            rows += 1
        i += 1
    return rows - text.endswith(("\n", "\r"))


def _check_no_formula(text, names):
    """What a spreadsheet would do with text: a row per header and name,
    whether it splits rows as csv.reader does or at every CR or LF outside
    quotes, and no text cell it would run as a formula."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 1 + len(names), rows
    assert _spreadsheet_rows(text) == len(rows), repr(text)
    numeric = re.compile(r"-?[0-9]+(\.[0-9]+)?%?")
    for row in rows:
        assert len(row) == len(rows[0]), row
        for cell in row:
            assert cell == "-" or numeric.fullmatch(cell) or \
                not cell.startswith(("=", "+", "-", "@", "\t", "\r")), \
                (cell, row)
    return rows


def test_csv_hostile_names_stay_in_their_cells(tmp_path):
    """Every hostile name comes back from the CSV as one cell of its own
    row, behind the ' that keeps it text, under --by job and --by app."""
    fake = tmp_path / "sacct"
    fake.write_text(_FAKE_SACCT)
    fake.chmod(0o755)
    (tmp_path / "names.json").write_text(json.dumps(HOSTILE_NAMES))
    env = dict(os.environ, PATH=f"{tmp_path}:{os.environ['PATH']}",
               FAKE_SACCT_NAMES=str(tmp_path / "names.json"))
    def csv_bytes(*args):       # as written: no newline translation
        r = subprocess.run([PY, TOOL, "-a", "--csv", *args], env=env,
                           capture_output=True, timeout=120, cwd="/tmp")
        assert r.returncode == 0, r
        return r.stdout.decode()

    rows = _check_no_formula(csv_bytes(), HOSTILE_NAMES)
    got = [dict(zip(rows[0], r)) for r in rows[1:]]
    want = [("'" + n if n.startswith(("=", "+", "-", "@", "\t", "\r"))
             else n) for n in HOSTILE_NAMES]
    assert [g["App"] for g in got] == want
    assert [g["Account"] for g in got] == want
    assert all(g["EnergyJ"] == "50" for g in got), got
    rows = _check_no_formula(csv_bytes("--by", "app"), HOSTILE_NAMES)
    assert sorted(r[0] for r in rows[1:]) == sorted(want)


def test_man_page_documents_every_option():
    with open(os.path.join(HERE, "..", "..", "doc", "cosched-report.1")) as f:
        man = f.read()
    text = report("--help").stdout
    for opt in sorted(set(re.findall(r"--([a-z][a-z0-9-]+)", text))):
        if opt in ("help", "version", "uid", "accounts"):
            continue
        assert "\\fB\\-\\-" + opt.replace("-", "\\-") + "\\fR" in man, opt
    for key in ("schema", "record_schema", "jobs", "aggregates",
                "unknown_energy", "never_started", "notes", "plot",
                "energy_by_policy", "power_by_node", "co_runners",
                "baseline_runs", "savings_jobs", "known_energy_j"):
        assert "\\fB" + key + "\\fR" in man, key
