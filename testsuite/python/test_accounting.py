# SPDX-License-Identifier: GPL-2.0-or-later
"""Slurm's accounting with cosched: a real slurmdbd on a MariaDB server of
the cluster's own (Cluster(accounting=True), cosched_loopback/accounting.py).

The jobs cosched placed reach slurmdbd complete; a record slurmctld could
not hand over while slurmdbd was away arrives once it is back; with
PrivateData=jobs a user's sacct shows that user's jobs only.  And what
doc/cosched.8 says of the decision record in slurmdbd, checked against
what Slurm does.
"""

import os
import shutil
import subprocess
import time

import pytest

from cosched_loopback.cluster import DEBIAN_PLUGINDIR, FINAL_STATES, parse_record
from conftest import require_environment


def _require_accounting():
    require_environment()
    missing = [p for p in ("mariadb-install-db", "mariadbd", "mariadb",
                           "slurmdbd", "sacctmgr", "sacct", "runuser")
               if shutil.which(p) is None]
    if not os.path.exists(os.path.join(DEBIAN_PLUGINDIR,
                                       "accounting_storage_mysql.so")):
        missing.append("accounting_storage_mysql.so")
    if missing:
        pytest.fail("missing for accounting: " + ", ".join(missing) +
                    " (run scripts/install-deps)")


def _system_comment(c, jobid):
    """The controller's SystemComment of the job, as scontrol prints it
    (one line: cosched's record is the only writer here)."""
    out = c.run(["scontrol", "show", "job", str(jobid)]).stdout
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("SystemComment="):
            return line[len("SystemComment="):]
    return ""


@pytest.fixture
def accounting_cluster(make_cluster):
    """Factory: a one-node cluster with accounting (kwargs as Cluster's)."""
    _require_accounting()
    return lambda **kw: make_cluster(nodes=1, accounting=True, **kw)


@pytest.mark.cluster
def test_jobs_reach_slurmdbd(accounting_cluster):
    """Two short jobs cosched placed side by side: slurmdbd holds each,
    completed, under the id slurmctld gave it and on its node."""
    c = accounting_cluster()
    ids = [c.sbatch("--wrap=sleep 1") for _ in range(2)]
    for j in ids:
        c.wait_state(j, "COMPLETED")
        assert c.record(j)["state"] == "placed", c.record(j)
    for j in ids:
        row = c.wait_accounted(j, "JobID,State,ExitCode,NodeList")
        assert row == {"JobID": str(j), "State": "COMPLETED",
                       "ExitCode": "0:0", "NodeList": "n1"}, row
    # One query lists both, job lines only (-X).
    listed = c.sacct("-X", "-j", ",".join(map(str, ids)), "-o", "JobID")
    assert sorted(int(r["JobID"]) for r in listed) == ids, listed


@pytest.mark.series
@pytest.mark.cluster
def test_record_reaches_slurmdbd(accounting_cluster):
    """slurmdbd's copy of a job's decision record is in AdminComment (sacct
    -o AdminComment): the controller's record line, the site's own
    AdminComment lines kept beside it.  SystemComment, which holds the
    record in slurmctld, never reaches slurmdbd (Slurm sends it with no
    job message: cosched(8) DECISION RECORD), so sacct shows it empty.
    With RecordInAdminComment=no the copy is not made."""
    c = accounting_cluster()
    j = c.sbatch("--hold", "--wrap=sleep 1")
    # An administrator's note, set before cosched writes the record.
    c.run(["scontrol", "update", f"jobid={j}", "AdminComment=site note"])
    c.run(["scontrol", "release", str(j)])
    c.wait_state(j, "COMPLETED")
    ctld = _system_comment(c, j)
    assert parse_record(ctld)["job"] == str(j), ctld
    row = c.wait_accounted(j, "JobID,State,SystemComment,AdminComment")
    assert row["SystemComment"] == "", row
    # sacct prints a multi-line field with its line end as is.
    lines = [l for l in c.run(["sacct", "-X", "-n", "-P", "-j", str(j), "-o",
                               "AdminComment%2000"]).stdout.splitlines()
             if l]
    assert lines == ["site note", ctld], lines

    c.write_cosched_conf(["RecordInAdminComment=no"])
    c.run(["scontrol", "reconfigure"])
    k = c.sbatch("--wrap=sleep 1")
    c.wait_state(k, "COMPLETED")
    assert parse_record(_system_comment(c, k))["job"] == str(k)
    row = c.wait_accounted(k, "JobID,State,AdminComment")
    assert row["AdminComment"] == "", row


@pytest.mark.cluster
def test_record_queued_while_slurmdbd_is_away(accounting_cluster):
    """slurmdbd stops while a job runs and comes back after it ended: the
    job's completion, which slurmctld queued meanwhile, reaches slurmdbd
    with slurmctld's end time."""
    c = accounting_cluster()
    j = c.sbatch("--wrap=sleep 4")
    c.wait_state(j, "RUNNING")
    # The start record is in slurmdbd: what follows is the completion.
    deadline = time.monotonic() + 30
    while c.sacct("-X", "-j", str(j), "-o", "State") != [{"State": "RUNNING"}]:
        assert time.monotonic() < deadline, c.sacct("-X", "-j", str(j))
        time.sleep(0.5)
    c.accounting_db.stop_slurmdbd()
    c.wait_state(j, "COMPLETED")
    end = c.job(j)["EndTime"]
    r = c.run(["sacct", "-X", "-j", str(j)], check=False)
    assert r.returncode != 0, "slurmdbd still answers: " + r.stdout
    c.accounting_db.start_slurmdbd()
    row = c.wait_accounted(j, "JobID,State,ExitCode,End", timeout=90)
    assert row["State"] == "COMPLETED" and row["ExitCode"] == "0:0", row
    assert row["End"] == end, (row, end)


@pytest.mark.cluster
def test_private_jobs(accounting_cluster):
    """PrivateData=jobs in slurmdbd.conf: an ordinary user's sacct over
    every user (-a) lists that user's job and not root's; root's lists
    both.  slurmdbd shows a user who is not an administrator the jobs of
    that user's associations, so the user gets one.  The user is daemon:
    from 25.11 Slurm takes the name "nobody" for its own nobody (uid 99)
    and slurmdbd cannot add a user of that name."""
    user = "daemon"
    c = accounting_cluster(slurmdbd_conf_extra=["PrivateData=jobs"])
    c.add_accounting_user(user, "guests")
    mine = c.sbatch("--wrap=sleep 1")
    r = subprocess.run(
        ["runuser", "-u", user, "--", "sbatch", "--parsable",
         "--chdir=/tmp", "--output=/dev/null", "--wrap=sleep 1"],
        env=c.env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    theirs = int(r.stdout.strip().split(";")[0])
    for j in (mine, theirs):
        assert c.wait_accounted(j, "JobID,State")["State"] in FINAL_STATES
    both = f"{mine},{theirs}"
    seen = c.sacct("-a", "-X", "-j", both, "-o", "JobID,User,Account",
                   user=user)
    assert seen == [{"JobID": str(theirs), "User": user,
                     "Account": "guests"}], seen
    seen = c.sacct("-a", "-X", "-j", both, "-o", "JobID,User")
    assert sorted((int(r["JobID"]), r["User"]) for r in seen) == [
        (mine, "root"), (theirs, user)], seen
