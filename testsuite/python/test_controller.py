# SPDX-License-Identifier: GPL-2.0-or-later
"""The controller: select/cons_tres_cosched places jobs by the site's policy.

Every test asserts the policy's rule on what Slurm recorded: the CPU_IDs of
`scontrol -d show job` (socket = CPU id // cores per socket, one thread per
core) and the decision record slurmctld wrote into SystemComment.
"""

import os
import re
import subprocess
import time

import pytest

from cosched_loopback.cluster import ClusterStartError, default_builddir, parse_record

MEM, CPU = "stream", "compute"


def _profiles(c):
    c.write_profile(MEM, "mem", 20.0)
    c.write_profile(CPU, "cpu", 0.1)
    _reload(c)


def _reload(c):
    """The profile cache reads the store every ProfileCacheRefresh seconds
    and at every reconfigure: reload now."""
    c.run(["scontrol", "reconfigure"])


def _submit_held(c, specs):
    """specs: [(app, cores, extra args)] -> job ids, submitted held so that
    one scheduling pass places them in order when released."""
    ids = []
    for app, cores, *extra in specs:
        ids.append(c.sbatch("-H", "-N1", f"-n{cores}", f"-J{app}", *extra))
    return ids


def _run_mix(c, specs, expect_running=None):
    ids = _submit_held(c, specs)
    c.release(ids)
    for j in ids[:expect_running] if expect_running else ids:
        c.wait_state(j, "RUNNING")
    return ids


def _cancel_all(c):
    assert c.cancel_all(), "jobs still listed 30 s after scancel"


def _socket_of(c, j):
    s = c.job_sockets(j)
    assert len(s) == 1 and len(next(iter(s.values()))) == 1, (j, s)
    node, socks = next(iter(s.items()))
    return node, socks[0]


def _copy_agrees(c, j):
    """The record's AdminComment copy (RecordInAdminComment=yes, the
    default) is its SystemComment line, byte for byte, after every edit:
    the neighbours' slowdown is edited in place where its text keeps its
    length, and spliced where it does not."""
    fields = {}
    for line in c.run(["scontrol", "show", "job", str(j)]).stdout.splitlines():
        key, _, value = line.strip().partition("=")
        if key in ("SystemComment", "AdminComment"):
            fields[key] = value
    assert fields.get("SystemComment", "").startswith("cosched/"), fields
    assert fields.get("AdminComment") == fields["SystemComment"], fields
    return True


def _where(c, j):
    """{(node, socket)} a job has cores on."""
    return {(n, s) for n, ss in c.job_sockets(j).items() for s in ss}


def _mem_pairs(c, ids, apps):
    """Sockets holding two mem jobs (cons_tres may spread a job over both
    sockets of a node: every socket it touches counts)."""
    seen, bad = {}, []
    for j, app in zip(ids, apps):
        if app != MEM:
            continue
        for where in _where(c, j):
            if where in seen:
                bad.append((seen[where], j, where))
            seen[where] = j
    return bad


MIX = [(MEM, 2), (MEM, 2), (MEM, 2), (MEM, 2),
       (CPU, 2), (CPU, 2), (CPU, 2), (CPU, 2)]


@pytest.mark.series
@pytest.mark.cluster
def test_app_aware_separates_what_cons_tres_pairs(make_cluster):
    """Under plain cons_tres placement (CoschedPolicy=none) the mix puts two
    memory-bound jobs on one socket; under app_aware no forbidden pair ever
    shares a socket, each cpu job joins a mem job, and the records say
    why."""
    c = make_cluster(nodes=2, cosched_conf_extra=["CoschedPolicy=none"])
    _profiles(c)
    apps = [a for a, _ in MIX]
    ids = _run_mix(c, MIX)
    assert _mem_pairs(c, ids, apps), "cons_tres did not pair mem jobs"
    rec = c.record(ids[0])
    assert rec["policy"] == "none" and rec["state"] == "placed", rec
    _cancel_all(c)

    c.reconfigure(["CoschedPolicy=app_aware"])
    ids = _run_mix(c, MIX)
    assert _mem_pairs(c, ids, apps) == []
    mem_sockets = {_socket_of(c, j) for j, a in zip(ids, apps) if a == MEM}
    for j, a in zip(ids, apps):
        rec = c.record(j)
        assert rec["policy"] == "app_aware" and rec["state"] == "placed"
        assert rec["class"] == ("mem" if a == MEM else "cpu"), rec
        assert rec["source"] == "profile", rec
        node, sock = _socket_of(c, j)
        assert rec["sockets"] == f"{node}:{sock}", rec
        if a == CPU:
            assert (node, sock) in mem_sockets, (j, node, sock)
            assert float(rec["slowdown"]) >= 1.0


@pytest.mark.cluster
def test_miss_rate_bound_strict_then_lenient(make_cluster):
    """Strict: the occupants' MPKI on each socket stays at or below T; the
    job that cannot fit waits and its record names the rule.  Lenient: the
    same job runs, placed by cons_tres, and its record says so."""
    c = make_cluster(nodes=1, cosched_conf_extra=[
        "CoschedPolicy=miss_rate_bound", "MissRateBoundThreshold=12",
        "PlacementMode=strict"])
    c.write_profile("heavy", "mem", 5.0)
    _reload(c)
    specs = [("heavy", 1)] * 5
    ids = _submit_held(c, specs)
    c.release(ids)
    for j in ids[:4]:
        c.wait_state(j, "RUNNING")
    c.wait_state(ids[4], "PENDING")
    load = {}
    for j in ids[:4]:
        load[_socket_of(c, j)] = load.get(_socket_of(c, j), 0) + 5.0
    assert max(load.values()) <= 12.0, load
    # Both jobs of each pair carry the pair's predicted slowdown (the first
    # one's record is written again when the second joins).
    for j in ids[:4]:
        assert float(c.record(j)["slowdown"]) > 1.0, c.record(j)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        rec = c.record(ids[4])
        if rec and rec["state"] == "pending":
            break
        time.sleep(0.5)
    assert rec and rec["state"] == "pending", rec
    assert "mpki" in rec["reason"].lower() and "strict" in rec["reason"], rec
    assert c.job(ids[4])["JobState"] == "PENDING"

    c.reconfigure(["CoschedPolicy=miss_rate_bound",
                   "MissRateBoundThreshold=12", "PlacementMode=lenient"])
    c.wait_state(ids[4], "RUNNING")
    rec = c.record(ids[4])
    assert rec["state"] == "placed", rec
    assert "; lenient miss_rate_bound: no socket accepts" in rec["reason"] \
        and "least-bad" in rec["reason"], rec
    # The least-bad socket: both hold 10 MPKI, so the lower index.
    assert c.job_sockets(ids[4]) == {"n1": [0]}, c.job_sockets(ids[4])

    # A job that leaves edits the records of the jobs it leaves (only
    # those whose prediction changes): with three heavy jobs on socket 0
    # each predicts more than with two; when ids[4] ends, its two
    # neighbours predict the pair's figure again (what socket 1's pair,
    # never touched, says); when one of them ends, the other is alone.
    on0 = [j for j in ids[:4] if _socket_of(c, j) == ("n1", 0)]
    on1 = [j for j in ids[:4] if _socket_of(c, j) == ("n1", 1)]
    assert len(on0) == 2 and len(on1) == 2, (on0, on1)
    pair = float(c.record(on1[0])["slowdown"])
    three = [float(c.record(j)["slowdown"]) for j in on0]
    assert all(t > pair for t in three), (three, pair)
    c.run(["scancel", str(ids[4])])
    c.wait_state(ids[4], ["CANCELLED", "COMPLETED"])
    assert [float(c.record(j)["slowdown"]) for j in on0] == [pair, pair]
    # (Here 1.6 went to 1.3 in place; 1.3 to 1 below is spliced.)
    assert all(_copy_agrees(c, j) for j in ids[:4])
    c.run(["scancel", str(on0[0])])
    c.wait_state(on0[0], ["CANCELLED", "COMPLETED"])
    assert float(c.record(on0[1])["slowdown"]) == 1.0, c.record(on0[1])
    assert float(c.record(on1[1])["slowdown"]) == pair, c.record(on1[1])
    assert _copy_agrees(c, on0[1])
    # A suspended job gives its cores back and leaves its neighbour
    # alone; resumed, it is its neighbour's co-runner again.
    c.run(["scontrol", "suspend", str(on1[0])])
    c.wait_state(on1[0], "SUSPENDED")
    assert float(c.record(on1[1])["slowdown"]) == 1.0, c.record(on1[1])
    c.run(["scontrol", "resume", str(on1[0])])
    c.wait_state(on1[0], "RUNNING")
    assert float(c.record(on1[1])["slowdown"]) == pair, c.record(on1[1])
    assert _copy_agrees(c, on1[1])


@pytest.mark.series
@pytest.mark.cluster
def test_balance_gang_greedy(make_cluster):
    """miss_rate_balance pairs a heavy arrival with the lightest partner and
    a light one with the heaviest (cons_tres would fill the first socket);
    gang puts one job per socket and holds the next; greedy_thread fills
    the socket that fits best."""
    c = make_cluster(nodes=1, cosched_conf_extra=[
        "CoschedPolicy=miss_rate_balance"])
    c.write_profile("h20", "mem", 20.0)
    c.write_profile("l1", "lim", 1.0)
    c.write_profile("x19", "mem", 19.0)
    c.write_profile("y2", "lim", 2.0)
    _reload(c)
    h, l, x, y = _run_mix(c, [("h20", 3), ("l1", 3), ("x19", 1), ("y2", 1)])
    assert _socket_of(c, h) != _socket_of(c, l)
    assert _socket_of(c, x) == _socket_of(c, l)
    assert _socket_of(c, y) == _socket_of(c, h)
    _cancel_all(c)

    c.reconfigure(["CoschedPolicy=gang", "PlacementMode=strict"])
    ids = _submit_held(c, [(CPU, 1)] * 3)
    c.release(ids)
    for j in ids[:2]:
        c.wait_state(j, "RUNNING")
    assert _socket_of(c, ids[0]) != _socket_of(c, ids[1])
    time.sleep(3)
    assert c.job(ids[2])["JobState"] == "PENDING"
    assert "gang full" in c.record(ids[2])["reason"]
    _cancel_all(c)

    c.reconfigure(["CoschedPolicy=greedy_thread"])
    a, b, d = _run_mix(c, [(CPU, 2), (CPU, 3), (CPU, 2)])
    # b (3 cores) cannot join a (2 free): the empty socket; d (2 cores)
    # fits a's socket exactly (no leftover) rather than b's (1 free).
    assert _socket_of(c, b) != _socket_of(c, a)
    assert _socket_of(c, d) == _socket_of(c, a)


@pytest.mark.series
@pytest.mark.cluster
def test_class_sources(make_cluster):
    """Profile, then declared class, then DefaultClass; a profile wins over
    a contradicting declared class and the record says so."""
    c = make_cluster(nodes=1, cosched_conf_extra=[
        "CoschedPolicy=app_aware", "DefaultClass=lim"])
    _profiles(c)
    prof = c.sbatch("-n1", f"-J{MEM}")
    declared = c.sbatch("-n1", "-Jnoprofile", "--cosched-class=rand")
    default = c.sbatch("-n1", "-Jnothing")
    contra = c.sbatch("-n1", f"--cosched-app={MEM}", "--cosched-class=cpu")
    want = {prof: ("mem", "profile"), declared: ("rand", "declared"),
            default: ("lim", "default"), contra: ("mem", "profile")}
    for j, (cls, src) in want.items():
        c.wait_state(j, "RUNNING")
        rec = c.record(j)
        assert (rec["class"], rec["source"]) == (cls, src), rec
    assert "declared class cpu ignored" in c.record(contra)["reason"]
    assert "declared class" not in c.record(prof)["reason"]


@pytest.mark.cluster
def test_power_decision_and_forgery(make_cluster):
    """The frequency comes from the job's EDP points and power policy; a
    second job in the same frequency domain gets the domain's resolved
    frequency, by FreqDomainRule; nothing a user submits changes the
    record."""
    c = make_cluster(nodes=1, cosched_conf_extra=[
        "CoschedPolicy=app_aware", "PowerPolicy=edp"])
    # EDP at 2 threads: 2.2 GHz 10 s x 1000 J = 10000; 1.8 GHz 11 x 800 =
    # 8800 (minimum); 1.4 GHz 14 x 750 = 10500.
    c.write_profile("fast", "cpu", 0.1, edp=[
        (2, 2200000, 10.0, 1000.0), (2, 1800000, 11.0, 800.0),
        (2, 1400000, 14.0, 750.0)])
    # Its minimum is 1.4 GHz: 14 x 500 = 7000.
    c.write_profile("slow", "cpu", 0.1, edp=[
        (2, 2200000, 10.0, 1000.0), (2, 1400000, 14.0, 500.0)])
    _reload(c)
    a = c.sbatch("-n2", "-Jfast")
    c.wait_state(a, "RUNNING")
    rec = c.record(a)
    assert rec["power"] == "edp" and rec["governor"] == "userspace", rec
    assert rec["freq_req_khz"] == "1800000" and rec["freq_khz"] == "1800000"
    b = c.sbatch("-n2", "-Jslow")
    c.wait_state(b, "RUNNING")
    assert _socket_of(c, b) == _socket_of(c, a)
    rec = c.record(b)
    # The domain runs at the highest request (max_request).
    assert rec["freq_req_khz"] == "1400000" and rec["freq_khz"] == "1800000"
    perf = c.sbatch("-n1", "-Jfast", "--cosched-power=performance")
    c.wait_state(perf, "RUNNING")
    rec = c.record(perf)
    assert rec["governor"] == "performance" and "freq_khz" not in rec, rec

    # Forgery: a record in --comment, in the SPANK environment through
    # libslurm (as any user can), and scontrol update of SystemComment.
    forged = "cosched/1 job=1 state=placed policy=gang freq_khz=800000"
    j = c.sbatch("-n2", "-Jfast", f"--comment={forged}")
    c.wait_state(j, "RUNNING")
    assert c.record(j)["freq_khz"] == "1800000"
    helper = os.path.join(default_builddir(), "testsuite", "python",
                          "helpers", "submit-spank-env")
    r = c.run([helper, f"{c.workdir}/jobs", "COSCHED_DECISION=" + forged,
               "SPANK_COSCHED_DECISION=" + forged])
    k = int(r.stdout.strip())
    c.wait_state(k, "RUNNING")
    rec = c.record(k)
    assert rec["job"] == str(k) and rec.get("freq_khz") != "800000", rec
    # The node's copy came with the batch launch request: slurmctld's
    # record, the user's entry of the same name gone.
    kept = os.path.join(c.workdir, "spool", "n1", "cosched", "records",
                        str(k))
    deadline = time.monotonic() + 20
    while not os.path.exists(kept):
        assert time.monotonic() < deadline, kept
        time.sleep(0.2)
    with open(kept) as f:
        assert parse_record(f.read()) == rec, kept
    r = c.run(["scontrol", "update", f"jobid={j}",
               f"SystemComment={forged}"], check=False)
    assert r.returncode != 0, r.stdout + r.stderr
    assert c.record(j)["freq_khz"] == "1800000"

    # FreqDomainRule=min_edp_sum reaches the decision.  Profiles of their
    # own (the runs above merge measured points into fast and slow as
    # they end): slow2 runs alone at its 1.4 GHz; fast2 (1.8 GHz) joins:
    # at 1.8 GHz the EDP sum is 1 + 9000/7000 = 2.29, at 1.4 GHz
    # 10500/8800 + 1 = 2.19, and fast2's slowdown there (14/11: 27%) is
    # within MaxSlowdown=30, so the domain stays at 1.4 GHz (max_request:
    # 1.8 GHz, as above).
    _cancel_all(c)
    c.write_profile("fast2", "cpu", 0.1, edp=[
        (2, 2200000, 10.0, 1000.0), (2, 1800000, 11.0, 800.0),
        (2, 1400000, 14.0, 750.0)])
    c.write_profile("slow2", "cpu", 0.1, edp=[
        (2, 2200000, 10.0, 1000.0), (2, 1400000, 14.0, 500.0)])
    # The same again for the second half (the first half's runs merge
    # into fast2 and slow2 when they end).
    c.write_profile("fast3", "cpu", 0.1, edp=[
        (2, 2200000, 10.0, 1000.0), (2, 1800000, 11.0, 800.0),
        (2, 1400000, 14.0, 750.0)])
    c.write_profile("slow3", "cpu", 0.1, edp=[
        (2, 2200000, 10.0, 1000.0), (2, 1400000, 14.0, 500.0)])
    c.reconfigure(["CoschedPolicy=app_aware", "PowerPolicy=edp",
                   "FreqDomainRule=min_edp_sum", "MaxSlowdown=30"])
    s = c.sbatch("-n2", "-Jslow2")
    c.wait_state(s, "RUNNING")
    assert c.record(s)["freq_khz"] == "1400000"
    f = c.sbatch("-n2", "-Jfast2")
    c.wait_state(f, "RUNNING")
    assert _socket_of(c, f) == _socket_of(c, s)
    rec = c.record(f)
    assert rec["freq_req_khz"] == "1800000" and rec["freq_khz"] == "1400000"
    # The other way round a running job is not lowered (its node holds it
    # at its decision): slow3 joins fast3's domain at 1.8 GHz.
    _cancel_all(c)
    f = c.sbatch("-n2", "-Jfast3")
    c.wait_state(f, "RUNNING")
    s = c.sbatch("-n2", "-Jslow3")
    c.wait_state(s, "RUNNING")
    assert _socket_of(c, f) == _socket_of(c, s)
    assert c.record(s)["freq_khz"] == "1800000"


@pytest.mark.cluster
def test_job_kinds(make_cluster):
    """The documented rules: wide jobs take whole sockets (nobody joins
    them), multi-node jobs get an acceptable socket on each node, job array
    tasks are placed one by one, and --exclusive, --cosched=off, --nodelist
    and heterogeneous jobs are left to cons_tres with a record saying
    why."""
    c = make_cluster(nodes=2, cosched_conf_extra=[
        "CoschedPolicy=app_aware", "DebugFlags=Placement,Check"])
    _profiles(c)
    wide = c.sbatch("-N1", "-n6", f"-J{CPU}")
    c.wait_state(wide, "RUNNING")
    wnode, wsocks = next(iter(c.job_sockets(wide).items()))
    assert wsocks == [0, 1]
    assert c.record(wide)["sockets"] == f"{wnode}:0-1"
    small = c.sbatch("-N1", "-n1", f"-J{CPU}")
    c.wait_state(small, "RUNNING")
    assert _socket_of(c, small)[0] != wnode, "joined a wide job's socket"
    _cancel_all(c)

    multi = c.sbatch("-N2", "-n4", "--ntasks-per-node=2", f"-J{MEM}")
    c.wait_state(multi, "RUNNING")
    assert sorted(c.job_sockets(multi)) == ["n1", "n2"]
    # Two sockets are left, one per node: the two mem tasks take one each
    # (never the multi-node mem job's sockets, never each other's).
    arr = c.sbatch("--array=0-1", "-n2", f"-J{MEM}")
    tasks = [f"{arr}_{i}" for i in range(2)]
    for t in tasks:
        c.wait_state(t, "RUNNING")
    where = [_socket_of(c, t) for t in tasks]
    multi_socks = _where(c, multi)
    assert len(set(where)) == 2 and not set(where) & multi_socks, where
    for t in tasks:
        rec = c.record(t)
        assert rec["class"] == "mem" and rec["state"] == "placed", rec
    _cancel_all(c)

    cases = {
        ("--exclusive",): "exclusive",
        ("--cosched=off",): "--cosched=off",
        ("--nodelist=n2",): "names its nodes",
    }
    for args, why in cases.items():
        j = c.sbatch("-n1", f"-J{MEM}", *args)
        c.wait_state(j, "RUNNING")
        rec = c.record(j)
        assert why in rec.get("reason", ""), rec
        assert rec["state"] in ("passthrough", "off"), rec
        _cancel_all(c)
    r = c.run(["sbatch", "--parsable", f"--chdir={c.workdir}/jobs",
               f"--output={c.workdir}/jobs/%j.out", "-n1", f"-J{MEM}", ":",
               "-n1", "--wrap=sleep 600"])
    het = int(r.stdout.strip().split(";")[0])
    c.wait_state(het, "RUNNING")
    rec = c.record(het)
    assert rec["state"] == "passthrough" and "heterogeneous" in rec["reason"]


def _sched_nodes(c, j):
    r = c.run(["scontrol", "show", "job", str(j)])
    m = re.search(r"SchedNodeList=(\S+)", r.stdout)
    s = re.search(r"StartTime=(\S+)", r.stdout)
    return (m.group(1) if m else None), (s.group(1) if s else None)


@pytest.mark.cluster
def test_backfill_prediction_honoured(make_cluster):
    """Strict gang, every socket busy: backfill's will-run prediction for
    the next job names the node whose job ends first, and the job starts
    there, on that job's socket, no later than predicted."""
    c = make_cluster(nodes=2, cosched_conf_extra=[
        "CoschedPolicy=gang", "PlacementMode=strict",
        "DebugFlags=Placement"],
        slurm_conf_extra=["SchedulerParameters=bf_interval=1"])
    long = [c.sbatch("-n1", "--time=10", f"-J{CPU}") for _ in range(3)]
    for j in long:
        c.wait_state(j, "RUNNING")
    short = c.sbatch("-n1", "--time=1", f"-J{CPU}", "--wrap=sleep 25")
    c.wait_state(short, "RUNNING")
    snode, ssock = _socket_of(c, short)
    nxt = c.sbatch("-n1", "--time=1", f"-J{CPU}")
    deadline = time.monotonic() + 30
    pred = (None, None)
    while time.monotonic() < deadline:
        pred = _sched_nodes(c, nxt)
        if pred[0] and pred[0] != "(null)":
            break
        time.sleep(1)
    assert pred[0] == snode, pred
    c.wait_state(nxt, "RUNNING", timeout=90)
    assert _socket_of(c, nxt) == (snode, ssock)
    started = c.job(nxt)["StartTime"]
    assert started <= pred[1], (started, pred)


@pytest.mark.cluster
def test_restart_keeps_decisions(make_cluster):
    """After a slurmctld restart with 6 jobs running and 4 pending, every
    record and every placement is as before, and the pending ones start
    where the policy says (occupancy rebuilt from the job records)."""
    c = make_cluster(nodes=4, cosched_conf_extra=[
        "CoschedPolicy=app_aware", "DebugFlags=Check"])
    _profiles(c)
    running = _run_mix(c, [(MEM, 2)] * 6)
    pending = _submit_held(c, [(CPU, 2), (CPU, 2), (MEM, 2), (MEM, 2)])
    before = {j: (c.record(j), c.job_sockets(j)) for j in running}
    c.restart_slurmctld()
    after = {j: (c.record(j), c.job_sockets(j)) for j in running}
    assert after == before
    c.release(pending)
    for j in pending:
        c.wait_state(j, "RUNNING")
    apps = [MEM] * 6 + [CPU, CPU, MEM, MEM]
    ids = running + pending
    assert _mem_pairs(c, ids, apps) == []
    mem_sockets = {_socket_of(c, j) for j in running}
    for j in pending[:2]:
        assert _socket_of(c, j) in mem_sockets
    with open(c.log_path("slurmctld")) as f:
        log = f.read()
    assert "self-check passed after rebuild" in log
    assert "self-check failed" not in log


@pytest.mark.series
@pytest.mark.cluster
def test_restart_rebuilds_the_decisions_kept(make_cluster):
    """slurmctld keeps each running job's decision in memory and writes
    its record from it; after a restart it reads the records back once,
    and what it then decides from them is what it would have decided
    without the restart: a job joining a frequency domain gets the
    domain's frequency from the decision of the job already there, and a
    requeued job's record keeps that job's decision, pending.  The check
    (DebugFlags=Check) finds every running job's record equal to the
    decision kept, at the rebuild and after every begin and end."""
    c = make_cluster(nodes=1, cosched_conf_extra=[
        "CoschedPolicy=app_aware", "PowerPolicy=edp", "DebugFlags=Check"])
    # As test_power_decision_and_forgery: fast asks 1.8 GHz, slow 1.4.
    c.write_profile("fast", "cpu", 0.1, edp=[
        (2, 2200000, 10.0, 1000.0), (2, 1800000, 11.0, 800.0),
        (2, 1400000, 14.0, 750.0)])
    c.write_profile("slow", "cpu", 0.1, edp=[
        (2, 2200000, 10.0, 1000.0), (2, 1400000, 14.0, 500.0)])
    _reload(c)
    a = c.sbatch("-n2", "-Jfast")
    c.wait_state(a, "RUNNING")
    placed = c.record(a)
    assert placed["freq_req_khz"] == "1800000", placed
    c.restart_slurmctld()
    assert c.record(a) == placed
    b = c.sbatch("-n2", "-Jslow")
    c.wait_state(b, "RUNNING")
    assert _socket_of(c, b) == _socket_of(c, a)
    rec = c.record(b)
    # The highest request of the domain: a's, from its decision.
    assert rec["freq_req_khz"] == "1400000" and rec["freq_khz"] == "1800000"

    c.run(["scontrol", "requeuehold", str(a)])
    deadline = time.monotonic() + 30
    while (rec := c.record(a))["state"] == "placed":
        assert time.monotonic() < deadline, rec
        time.sleep(0.3)
    assert rec["state"] == "pending", rec
    # What the start decided stays; where it ran and at what frequency
    # (a start's) go.
    gone = ("sockets", "cores", "numa", "freq_req_khz", "freq_khz",
            "governor", "slowdown", "reason", "state")
    assert {k: v for k, v in rec.items() if k not in gone} == \
        {k: v for k, v in placed.items() if k not in gone}, (rec, placed)
    assert not set(gone[:-2]) & set(rec), rec
    with open(c.log_path("slurmctld")) as f:
        log = f.read()
    assert "record check passed after rebuild: 1 jobs, 1 decisions kept" \
        in log, log[-3000:]
    assert "record check passed after job begin" in log
    assert "record check failed" not in log
    assert "self-check failed" not in log
    _cancel_all(c)


@pytest.mark.cluster
def test_bad_cosched_conf(make_cluster):
    """A bad cosched.conf stops slurmctld at start naming the key, value and
    line; on reconfigure a bad file keeps the settings in effect."""
    with pytest.raises(ClusterStartError) as e:
        make_cluster(nodes=1, cosched_conf_extra=["CoschedPolicy=fifo"])
    # The line the harness wrote it on (it adds ProfileDir and
    # SamplerProgram first).
    m = re.search(r"cosched\.conf:(\d+): CoschedPolicy: invalid value \"fifo\"",
                  str(e.value))
    assert m, str(e.value)[-2000:]
    conf = re.search(r"(/\S+/cosched\.conf):", str(e.value)).group(1)
    with open(conf) as f:
        lines = f.read().splitlines()
    assert lines[int(m.group(1)) - 1] == "CoschedPolicy=fifo"

    c = make_cluster(nodes=1, cosched_conf_extra=["CoschedPolicy=gang"])
    c.run(["scontrol", "reconfigure"], check=False)
    c.write_cosched_conf(["GangScope=rack"])
    c.run(["scontrol", "reconfigure"], check=False)
    time.sleep(2)
    with open(c.log_path("slurmctld")) as f:
        log = f.read()
    # Either way the error names the key.
    assert 'GangScope: invalid scope "rack"' in log, log[-2000:]
    if not c.run(["scontrol", "--version"]).stdout.split()[1].startswith(
            "22."):
        # 24.11 re-executes slurmctld for a reconfigure: daemonized or
        # under systemd a forked child tries the new files and the parent
        # goes on when it fails; in the foreground (slurmctld -D, as these
        # tests run it) it re-executes in place, with nothing to go back to.
        return
    assert "keeping the settings in effect" in log
    j = c.sbatch("-n1", f"-J{CPU}")
    c.wait_state(j, "RUNNING")
    assert c.record(j)["policy"] == "gang"
    # The nodes read the same file: a typo in a key only slurmctld uses
    # must not switch enforcement off on them (every new step enforced
    # nothing and was not profiled).
    c.write_cosched_conf(["CoschedPolicy=app-aware"])
    c.run(["scontrol", "reconfigure"], check=False)
    k = c.sbatch("-n1", f"-J{CPU}", "--wrap", "sleep 2")
    c.wait_state(k, "COMPLETED", timeout=60)
    with open(c.log_path("slurmd-n1")) as f:
        slurmd = f.read()
    assert "enforcing nothing on this node" not in slurmd, slurmd[-3000:]
    rec = os.path.join(c.workdir, "spool", "n1", "cosched", "steps",
                       f"{k}.batch.json")
    assert os.path.exists(rec), "the step was not profiled"


@pytest.mark.cluster
def test_record_follows_requeue_and_shrink(make_cluster):
    """A requeued job's record says pending, not placed on cores it no
    longer has, and says placed again where it starts; a job shrunk with
    scontrol update NumNodes=1 keeps only the node it still has."""
    c = make_cluster(nodes=2, cosched_conf_extra=[
        "CoschedPolicy=app_aware", "DebugFlags=Check"])
    _profiles(c)
    j = c.sbatch("-N1", "-n2", f"-J{MEM}", "--wrap", "sleep 120")
    c.wait_state(j, "RUNNING")
    placed = c.record(j)
    assert placed["state"] == "placed", placed
    c.run(["scontrol", "requeuehold", str(j)])
    deadline = time.monotonic() + 30
    while True:
        rec = c.record(j)
        if rec["state"] != "placed":
            break
        assert time.monotonic() < deadline, rec
        time.sleep(0.3)
    assert rec["state"] == "pending", rec
    assert "requeued (restart 1)" in rec["reason"], rec
    assert "cores" not in rec and "freq_khz" not in rec, rec
    c.wait_state(j, "PENDING")
    # Slurm delays a requeued job's start (BeginTime); not what we test.
    # Not to now, though: slurmd refuses a credential of the job issued
    # within the second it revoked the last one ("Job credential
    # revoked"), and the job fails.
    c.run(["scontrol", "update", f"jobid={j}", "StartTime=now+2"])
    c.release([j])
    c.wait_state(j, "RUNNING", timeout=60)
    again = c.record(j)
    assert again["state"] == "placed", again
    assert c.job_sockets(j), again

    w = c.sbatch("-N2", "-n2", "--ntasks-per-node=1", f"-J{CPU}",
                 "--wrap", "sleep 120")
    c.wait_state(w, "RUNNING")
    both = c.record(w)
    assert "n1:" in both["cores"] and "n2:" in both["cores"], both
    r = c.run(["scontrol", "update", f"jobid={w}", "NumNodes=1"],
              check=False)
    if r.returncode and "no longer pending" in (r.stdout + r.stderr):
        # Slurm 24.11's scontrol refuses to shrink a running job this
        # way ("Job is no longer pending execution"): the shrink half
        # runs on 22.05 only.
        _cancel_all(c)
        return
    assert r.returncode == 0, r.stderr
    deadline = time.monotonic() + 30
    while True:
        kept = c.job(w)["NodeList"]
        rec = c.record(w)
        if "," not in kept and "[" not in kept and rec["cores"] != \
                both["cores"]:
            break
        assert time.monotonic() < deadline, (kept, rec)
        time.sleep(0.3)
    gone = "n2" if kept == "n1" else "n1"
    for key in ("sockets", "cores"):
        assert f"{kept}:" in rec[key] and f"{gone}:" not in rec[key], \
            (kept, rec)
    with open(c.log_path("slurmctld")) as f:
        assert "self-check failed" not in f.read()
    _cancel_all(c)


def _sdiag_rpcs(c):
    """slurmctld's count of each RPC type since the last reset."""
    out = c.run(["sdiag"]).stdout
    part = out.split("Remote Procedure Call statistics by message type")[1]
    part = part.split("Remote Procedure Call statistics by user")[0]
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"^\s*(\S+)\s+\(\s*\d+\)\s+count:(\d+)", part, re.M)}


def _job_rpcs(c, jobs):
    """sdiag's counts over jobs [(sbatch options, script)] run to their
    end.  Nothing here asks slurmctld about jobs (no scontrol, no squeue):
    the jobs are waited for through their output files."""
    c.run(["sdiag", "-r"])
    ids = [c.sbatch(*opts, "--wrap", f"{script}; echo done")
           for opts, script in jobs]
    deadline = time.monotonic() + 60
    for j in ids:
        out = os.path.join(c.workdir, "jobs", f"{j}.out")
        while not (os.path.exists(out) and "done" in open(out).read()):
            assert time.monotonic() < deadline, f"job {j} did not finish"
            time.sleep(0.2)
    return _sdiag_rpcs(c)


@pytest.mark.cluster
def test_job_start_rpcs(make_cluster):
    """What cosched adds to slurmctld's load per job: nothing for a batch
    job on the node of its batch script (the record comes with the batch
    launch request: RecordInLaunch), one JOB_INFO_SINGLE for each other
    node of a job (its first step there asks; later steps read the node's
    copy), and no FED_INFO (the record is this cluster's: the question is
    local).  With RecordInLaunch=no, one per job and node.  The node's copy
    is the record slurmctld wrote."""
    c = make_cluster(nodes=2, cosched_conf_extra=["CoschedPolicy=app_aware"])

    def run(jobs):
        return _job_rpcs(c, jobs)

    one = (["-N1", "-n1"], "srun -n1 true; srun -n1 true")
    # Its second step's launch finds no step of the job on the other node,
    # whose copy goes: that node asks again.
    two = (["-N2", "-n2"], "srun -N2 -n2 true; srun -N2 -n2 true")
    rpcs = run([one, one, one, two])
    # sbatch itself asks neither; the two-node job's other node asks once
    # per step.
    assert rpcs.get("REQUEST_JOB_INFO_SINGLE", 0) == 2, rpcs
    assert rpcs.get("REQUEST_FED_INFO", 0) == 0, rpcs

    # The batch step took the launch copy as the node's copy: the record
    # as slurmctld wrote it.
    j = c.sbatch("-N1", "-n1", "--wrap", "sleep 300")
    c.wait_state(j, "RUNNING")
    node = c.job(j)["NodeList"]
    kept = os.path.join(c.workdir, "spool", node, "cosched", "records")
    deadline = time.monotonic() + 20
    while not os.path.exists(os.path.join(kept, str(j))):
        assert time.monotonic() < deadline, os.listdir(kept)
        time.sleep(0.2)
    assert not os.path.exists(os.path.join(kept, f"{j}.launch"))
    with open(os.path.join(kept, str(j))) as f:
        copy = f.read()
    line = [l.strip()[len("SystemComment="):] for l in
            c.run(["scontrol", "show", "job", str(j)]).stdout.splitlines()
            if l.strip().startswith("SystemComment=")]
    assert line and copy == line[0], (copy, line)
    c.run(["scancel", str(j)])

    # A launch copy no batch step took (an earlier start's, or one planted
    # in the spool) is never a step's record: a job without a batch script
    # asks slurmctld, and its copy is slurmctld's record.
    r = c.run(["salloc", "--no-shell", "-N1", "-n1", "-w", node])
    m = re.search(r"Granted job allocation (\d+)", r.stdout + r.stderr)
    assert m, r.stdout + r.stderr
    a = int(m.group(1))
    stale = os.path.join(kept, f"{a}.launch")
    with open(stale, "w") as f:
        f.write(f"cosched/1 job={a} state=placed policy=gang scope=socket "
                "membind=none reason=\"planted\"\n")
    c.run(["sdiag", "-r"])
    r = c.run(["srun", f"--jobid={a}", "-n1", "true"])
    assert _sdiag_rpcs(c).get("REQUEST_JOB_INFO_SINGLE", 0) == 1
    with open(os.path.join(kept, str(a))) as f:
        copy = f.read()
    assert "planted" not in copy and parse_record(copy) == c.record(a), copy
    assert os.path.exists(stale)        # not taken
    c.run(["scancel", str(a)])

    c.reconfigure(["CoschedPolicy=app_aware", "RecordInLaunch=no"])
    rpcs = run([one, one])
    assert rpcs.get("REQUEST_JOB_INFO_SINGLE", 0) == 2, rpcs


@pytest.mark.series
@pytest.mark.cluster
def test_job_start_rpcs_contained(make_cluster):
    """With PrologFlags=Contain the job's extern step runs on each of its
    nodes for the whole allocation, so the node's copy of the record stays
    between steps: a two-node job's other node asks slurmctld once, not
    once per step (cosched(8) RECORD ON THE NODE)."""
    c = make_cluster(nodes=2, slurm_conf_extra=["PrologFlags=Contain"],
                     cosched_conf_extra=["CoschedPolicy=app_aware"])
    two = (["-N2", "-n2"], "srun -N2 -n2 true; srun -N2 -n2 true; "
           "srun -N2 -n2 true")
    rpcs = _job_rpcs(c, [two])
    assert rpcs.get("REQUEST_JOB_INFO_SINGLE", 0) == 1, rpcs
