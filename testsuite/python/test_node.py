# SPDX-License-Identifier: GPL-2.0-or-later
"""The node: task/cosched enforces each job's cores, memory binding and CPU
frequency, and always restores the node.

Cores and memory binding are checked where they show: a task's
/proc/self/status and /proc/self/numa_maps, against the CPU_IDs Slurm
recorded.  The loopback nodes run on this machine's 2 CPUs and 1 NUMA node:
a cluster whose declared topology is the machine's (2 sockets of 1 core,
Topology=system) checks real binding; a synthetic 2-socket topology with 2
NUMA nodes checks what the node computes, and that what the machine cannot
do leaves the job running with one clear log line.  CPU frequency is
checked in a fake cpufreq tree (SysfsRoot=) that the real code writes.
"""

import json
import os
import re
import shutil
import subprocess
import time

import pytest

from cosched_loopback.cluster import expand
from freq_node import SYNTHETIC_2X8

PROBE = ("grep -E '^(Cpus_allowed_list|Mems_allowed_list)' /proc/self/status; "
         "env | grep '^COSCHED_' | sort; "
         "grep -E 'heap' /proc/self/numa_maps | head -1")


def _probe_output(c, j):
    c.wait_state(j, "COMPLETED")
    out = c.job_output(j)
    return out


def _allowed(out):
    """Every Cpus_allowed_list in a job's output, in order, as sets."""
    return [set(expand(m)) for m in
            re.findall(r"^Cpus_allowed_list:\s*(\S+)", out, re.M)]


def _env(out, name):
    m = re.search(rf"^{name}=(.*)$", out, re.M)
    return m.group(1) if m else None


def _cpu_ids(c, j):
    ids = set()
    for _nodes, cpu_ids in c.job(j)["alloc"]:
        ids |= set(expand(cpu_ids))
    return ids


def _not_drained(c):
    r = c.run(["sinfo", "-h", "-N", "-o", "%N %T"])
    states = dict(l.split() for l in r.stdout.splitlines() if l.strip())
    assert all("drain" not in s and "down" not in s
               for s in states.values()), states


@pytest.mark.series
def test_tasks_run_on_the_allocated_cores(make_cluster):
    """A batch step and `srun --exact` steps run exactly on the cores the
    controller allocated (CPU_IDs); a --cpu-bind inside the allocation
    stays; EnforceCores=no leaves task/affinity's mask."""
    c = make_cluster(nodes=1, sockets=2, cores=1,
                     cosched_conf_extra=["CoschedPolicy=app_aware"])
    a = c.sbatch("-n1", "--wrap", f"{PROBE}; sleep 3")
    b = c.sbatch("-n1", "--wrap", f"{PROBE}; sleep 3")
    c.wait_state(a, "RUNNING")
    c.wait_state(b, "RUNNING")
    ids_a, ids_b = _cpu_ids(c, a), _cpu_ids(c, b)
    assert len(ids_a) == 1 and len(ids_b) == 1 and ids_a != ids_b
    out_a, out_b = _probe_output(c, a), _probe_output(c, b)
    assert _allowed(out_a) == [ids_a], out_a
    assert _allowed(out_b) == [ids_b], out_b
    assert _env(out_a, "COSCHED_CPUS") == str(min(ids_a)), out_a

    # One 2-core job, two concurrent single-core --exact steps: each step
    # on its own core, the two cores the job's.
    j = c.sbatch("-n2", "--wrap",
                 "for i in 1 2; do srun --exact -n1 -c1 bash -c "
                 "'grep Cpus_allowed_list /proc/self/status; sleep 2' & "
                 "done; wait")
    c.wait_state(j, "RUNNING")
    ids_j = _cpu_ids(c, j)
    out = _probe_output(c, j)
    steps = _allowed(out)
    assert len(steps) == 2 and all(len(s) == 1 for s in steps), out
    assert steps[0] | steps[1] == ids_j == {0, 1}, out

    # --cpu-bind inside the allocation: kept.
    j = c.sbatch("-n2", "--wrap",
                 "srun -n1 --cpu-bind=map_cpu:1 grep Cpus_allowed_list "
                 "/proc/self/status")
    assert _allowed(_probe_output(c, j)) == [{1}]

    _not_drained(c)

    # task/affinity binds as cosched does here, so the checks above would
    # pass without cosched: alone in TaskPlugin, task/cosched is what keeps
    # a task on its job's core (EnforceCores=yes); without the part, the
    # task runs on both CPUs.
    c.stop()
    c = make_cluster(nodes=1, sockets=2, cores=1, task_plugin="task/cosched",
                     cosched_conf_extra=["CoschedPolicy=app_aware"])
    for enforce in ("yes", "no"):
        c.write_cosched_conf(["CoschedPolicy=app_aware",
                              f"EnforceCores={enforce}"])
        busy = c.sbatch("-n1")          # the other core is taken
        c.wait_state(busy, "RUNNING")
        j = c.sbatch("-n1", "--wrap", f"{PROBE}; sleep 2")
        c.wait_state(j, "RUNNING")
        own = _cpu_ids(c, j)
        assert own and own != _cpu_ids(c, busy)
        got = _allowed(_probe_output(c, j))
        assert got == ([own] if enforce == "yes" else [{0, 1}]), (enforce, own, got)
        c.run(["scancel", str(busy)])
    _not_drained(c)


def _topology_copy(c, node="n1"):
    return os.path.join(c.workdir, "spool", node, "cosched", "topology.xml")


def _restart_slurmd(c, node="n1"):
    c.procs[f"slurmd-{node}"].kill()
    c.procs[f"slurmd-{node}"].wait()
    c.start_slurmd(node)
    deadline = time.monotonic() + 30
    while node not in c.run(["sinfo", "-h", "-N", "-r", "-o", "%N"]).stdout:
        assert time.monotonic() < deadline, f"{node} does not respond"
        time.sleep(0.5)


def test_steps_read_slurmds_topology_copy(make_cluster):
    """slurmd keeps the machine's topology in its spool (Topology=system)
    and the steps map their cores through that copy: one that says the
    node has a single core leaves a job on core 1 unbound, one that does
    not parse or is not root's alone is passed over for the machine, and a
    restarted slurmd writes its own again.  No job fails, no node drains."""
    c = make_cluster(nodes=1, sockets=2, cores=1, task_plugin="task/cosched",
                     cosched_conf_extra=["CoschedPolicy=app_aware"])
    copy = _topology_copy(c)
    st = os.stat(copy)
    assert st.st_uid == 0 and st.st_mode & 0o777 == 0o600, oct(st.st_mode)
    with open(copy) as f:
        machine = f.read()
    assert 'name="CoschedTopology" value="cosched-topology/1"' in machine
    assert f"topology copy {copy} for the steps" in _slurmd_log(c)

    def on_core1():
        busy = c.sbatch("-n1")          # core 0 taken: the probe gets 1
        c.wait_state(busy, "RUNNING")
        j, own, got = _probe_job(c)
        c.run(["scancel", str(busy)])
        c.wait_state(busy, ["CANCELLED", "COMPLETED"])
        assert own == {1}, own
        return j, got

    j, got = on_core1()
    assert got == [{1}], got

    # A copy of one core (cosched's, valid): the step reads it, finds no
    # core 1 in it, and leaves the task unbound (task/cosched alone).
    one = subprocess.run(["lstopo-no-graphics", "-i", "package:1 core:1 pu:1",
                          "--of", "xml"], capture_output=True, text=True,
                         check=True).stdout
    one = re.sub(r'(<object type="Machine"[^>]*>)',
                 r'\1\n<info name="CoschedTopology" '
                 r'value="cosched-topology/1"/>', one, count=1)
    with open(copy, "w") as f:
        f.write(one)
    os.chmod(copy, 0o600)
    j, got = on_core1()
    assert got == [{0, 1}], got
    assert re.search(r"core 1: the node's topology has 1 cores "
                     r"\(0-0; Topology=\"system\", saved\): cores, memory "
                     r"binding and frequency left alone",
                     _slurmd_log(c)), _slurmd_log(c)[-2000:]

    # Cut short, then writable by others: the machine's topology instead.
    for text, mode in ((machine[:len(machine) // 2], 0o600),
                       (machine, 0o644 | 0o002)):
        with open(copy, "w") as f:
            f.write(text)
        os.chmod(copy, mode)
        j, got = on_core1()
        assert got == [{1}], (mode, got)
    log = _slurmd_log(c)
    assert log.count("reading the machine's topology instead") >= 2, log[-2000:]
    assert "writable by group or others" in log

    # slurmd's start writes its copy again (sinfo may still show the
    # killed slurmd responding: the log says when the new one wrote it).
    written = f"topology copy {copy} for the steps"
    before = _slurmd_log(c).count(written)
    _restart_slurmd(c)
    deadline = time.monotonic() + 30
    while _slurmd_log(c).count(written) == before:
        assert time.monotonic() < deadline, "slurmd wrote no copy"
        time.sleep(0.2)
    st = os.stat(copy)
    assert st.st_mode & 0o777 == 0o600
    with open(copy) as f:
        assert 'value="cosched-topology/1"' in f.read()
    j, got = on_core1()
    assert got == [{1}], got
    _not_drained(c)


def test_spool_link_followed_by_none(make_cluster):
    """SlurmdSpoolDir/cosched replaced by a symbolic link while slurmd is
    down: no part of task/cosched writes through it (the topology copy,
    the last good settings, the record's copy, the profiler's step
    records and ledger), jobs still run, the node does not drain, and
    the log says why."""
    c = make_cluster(nodes=1, sockets=2, cores=1,
                     cosched_conf_extra=["CoschedPolicy=app_aware"])
    spool = os.path.dirname(_topology_copy(c))
    elsewhere = os.path.join(c.workdir, "elsewhere")
    os.mkdir(elsewhere, 0o700)
    c.procs["slurmd-n1"].kill()
    c.procs["slurmd-n1"].wait()
    shutil.rmtree(spool)
    os.symlink(elsewhere, spool)
    c.start_slurmd("n1")
    j = c.sbatch("-n1", "--wrap", "echo ran")
    c.wait_state(j, "COMPLETED")
    assert c.job_output(j).strip() == "ran"
    assert os.listdir(elsewhere) == [], os.listdir(elsewhere)
    log = _slurmd_log(c)
    assert f"{spool}: is a symbolic link (not followed): step not " \
        "profiled" in log, log[-3000:]
    assert f"{spool}: is a symbolic link (not followed): steps read the " \
        "machine's topology themselves" in log, log[-3000:]
    _not_drained(c)


def _probe_job(c):
    """A 1-core job that prints its mask: (job id, its CPU_IDs, the CPU
    sets it ran on)."""
    j = c.sbatch("-n1", "--wrap", f"{PROBE}; sleep 1")
    c.wait_state(j, "RUNNING")
    own = _cpu_ids(c, j)
    return j, own, _allowed(_probe_output(c, j))


def _slurmd_log(c, node="n1"):
    with open(c.log_path(f"slurmd-{node}")) as f:
        return f.read()


TIMING = (r"task/cosched: StepId={}\.batch: timing: (\d+) us CPU in "
          r"task/cosched: init (\d+), step start (\d+) \(record (\d+), "
          r"sampler (\d+)\), tasks (\d+), step end (\d+); the tasks "
          r"waited (\d+) us for the sampler")


def test_timing_line_per_step(make_cluster):
    """DebugFlags=Timing on a node: each step's slurmstepd says the CPU
    time task/cosched spent on it, part by part, and how long its task
    waited for the sampler to attach; without the flag, no such line."""
    c = make_cluster(nodes=1, sockets=2, cores=1,
                     cosched_conf_extra=["CoschedPolicy=app_aware",
                                         "DebugFlags=Timing"])
    c.write_profile("stream", "mem", 20.0)
    j = c.sbatch("-n1", "--cosched-app=stream", "--wrap=sleep 0.3")
    c.wait_state(j, "COMPLETED")
    deadline = time.monotonic() + 10
    while not (m := re.search(TIMING.format(j), _slurmd_log(c))):
        assert time.monotonic() < deadline, _slurmd_log(c)[-3000:]
        time.sleep(0.2)
    total, init, start, record, sampler, tasks, end, waited = \
        map(int, m.groups())
    # The total is the parts' (each rounded), the record and the
    # sampler's start are parts of the step's start.
    assert abs(total - (init + start + tasks + end)) <= 3, m.group(0)
    assert record + sampler <= start + 2, m.group(0)
    # Measured, not left at zero: reading cosched.conf, forking the
    # sampler, and the task held until the sampler attached it.
    assert init > 0 and sampler > 0 and waited > 0, m.group(0)
    # The job had a record (its batch launch request's copy).
    assert re.search(rf"job {j}: record from the batch launch request",
                     _slurmd_log(c)), _slurmd_log(c)[-3000:]

    # Without the flag (the step reads cosched.conf at its start): none.
    c.write_cosched_conf(["CoschedPolicy=app_aware"])
    k = c.sbatch("-n1", "--cosched-app=stream", "--wrap=true")
    c.wait_state(k, "COMPLETED")
    time.sleep(1)
    log = _slurmd_log(c)
    assert f"StepId={k}.batch" in log, log[-3000:]
    assert not re.search(TIMING.format(k), log), log[-3000:]
    assert not re.search(rf"StepId={k}\.batch: timing:", log)
    _not_drained(c)


def test_bad_conf_keeps_last_good_settings(make_cluster):
    """A wrong line in a key the node uses (EnforceCpuFreq=maybe) and a
    reconfigure: every node keeps enforcing the settings it last read
    (cores, profiling), slurmd says so once (not at every step), and says
    again when the file can be read; a node that never read a good file
    enforces nothing and says so."""
    c = make_cluster(nodes=1, sockets=2, cores=1, task_plugin="task/cosched",
                     cosched_conf_extra=["CoschedPolicy=app_aware"])
    good = os.path.join(c.workdir, "spool", "n1", "cosched",
                        "cosched.conf.good")
    assert os.path.exists(good), "slurmd kept no copy of a good file"
    c.write_cosched_conf(["CoschedPolicy=app_aware", "EnforceCpuFreq=maybe"])
    if c.run(["scontrol", "--version"]).stdout.split()[1].startswith("22."):
        # 24.11's slurmctld in the foreground (-D, as here) re-executes
        # itself for a reconfigure and has nothing to go back to when it
        # refuses the file: the nodes read the file at every step anyway.
        c.run(["scontrol", "reconfigure"], check=False)
    busy = c.sbatch("-n1")              # the other core is taken
    c.wait_state(busy, "RUNNING")
    for _ in range(2):
        j, own, allowed = _probe_job(c)
        assert own and own != _cpu_ids(c, busy)
        # Enforced: on its own core, not both (task/cosched alone in
        # TaskPlugin is what narrows the mask).
        assert allowed == [own]
        steprec = os.path.join(c.workdir, "spool", "n1", "cosched", "steps",
                               f"{j}.batch.json")
        deadline = time.monotonic() + 15
        while not os.path.exists(steprec):
            assert time.monotonic() < deadline, "the step was not profiled"
            time.sleep(0.2)
    log = _slurmd_log(c)
    said = re.findall(r"\] error: .*EnforceCpuFreq.*maybe.*enforcing the "
                      r"last good settings this node read", log)
    assert len(said) == 1, log[-3000:]
    assert "enforcing nothing" not in log, log[-3000:]
    # The copy is still the good file's, not the bad one's.
    with open(good) as f:
        assert "maybe" not in f.read()

    # Fixed: said once, and the next step enforces the file's settings.
    c.write_cosched_conf(["CoschedPolicy=app_aware", "EnforceCores=no"])
    assert _probe_job(c)[2] == [{0, 1}]
    log = _slurmd_log(c)
    assert log.count("can be read again") == 1, log[-3000:]
    with open(good) as f:
        assert "EnforceCores=no" in f.read()
    c.run(["scancel", str(busy)])
    _not_drained(c)

    # A node with no copy (it never read a good file) enforces nothing,
    # and says so.
    os.unlink(good)
    c.write_cosched_conf(["CoschedPolicy=app_aware", "EnforceCores=maybe"])
    assert _probe_job(c)[2] == [{0, 1}]
    log = _slurmd_log(c)
    assert re.search(r"EnforceCores.*maybe.*no good settings kept on this "
                     r"node: new steps on this node enforce nothing", log), \
        log[-3000:]
    assert not os.path.exists(good)



@pytest.mark.series
def test_membind_follows_the_cores(make_cluster):
    """Memory binding names the NUMA node of the job's cores in a 2-socket,
    2-node synthetic topology: socket 0's job prefers node 0 (which
    this machine has: its heap shows prefer:0), socket 1's job computes node
    1, which this machine lacks, and runs unchanged with one log line;
    the default prefers, --cosched-numa=high binds; --mem-bind keeps the
    user's policy."""
    c = make_cluster(nodes=1, sockets=2, cores=8, cosched_conf_extra=[
        "CoschedPolicy=app_aware", SYNTHETIC_2X8])
    a = c.sbatch("-n8", "--wrap", f"{PROBE}; sleep 4")
    c.wait_state(a, "RUNNING")
    b = c.sbatch("-n8", "--wrap", PROBE)
    c.wait_state(b, ["RUNNING", "COMPLETED"])
    socket_a = c.job_sockets(a)["n1"]
    assert socket_a in ([0], [1])
    on0, on1 = (a, b) if socket_a == [0] else (b, a)
    out0, out1 = _probe_output(c, on0), _probe_output(c, on1)
    # The default PowerPolicy (performance) leaves the node's governor.
    rec = c.record(on0)
    assert rec["power"] == "performance" and "governor" not in rec, rec
    assert _env(out0, "COSCHED_MEMBIND") == "prefer 0", out0
    assert re.search(r"^\w+ prefer:0 heap ", out0, re.M), out0
    membind1 = _env(out1, "COSCHED_MEMBIND")
    assert membind1.startswith("unchanged: prefer 1: NUMA node 1 does not exist"), out1
    assert re.search(r"^\w+ default heap ", out1, re.M), out1
    # Their CPUs (0-7 and 8-15) are not all on this 2-CPU machine: the
    # tasks keep task/affinity's mask, and say so.
    assert _env(out1, "COSCHED_CPUS").startswith("unchanged: CPUs"), out1
    with open(c.log_path("slurmd-n1")) as f:
        log = f.read()
    lines = [l for l in log.splitlines()
             if f"StepId={on1}.batch" in l and "NUMA node 1 does not exist" in l]
    assert len(lines) == 1, lines

    p = c.sbatch("-n8", "--cosched-numa=high", "--wrap", PROBE)
    out = _probe_output(c, p)
    assert re.match(r"(bind 0|unchanged: bind 1)", _env(out, "COSCHED_MEMBIND")), out
    u = c.sbatch("-n8", "--wrap", f"srun --mem-bind=local bash -c \"{PROBE}\"")
    out = _probe_output(c, u)
    assert "unchanged: --mem-bind" in out, out
    _not_drained(c)

    # MemBind=bind: the site's mode for jobs that do not say, written
    # into their records by slurmctld; --cosched-numa=low still prefers.
    c.reconfigure(cosched_conf=["CoschedPolicy=app_aware", SYNTHETIC_2X8,
                                "MemBind=bind"])
    d = c.sbatch("-n8", "--wrap", f"{PROBE}; sleep 3")
    h = c.sbatch("-n8", "--cosched-numa=low", "--wrap", f"{PROBE}; sleep 3")
    for j, mode in ((d, "bind"), (h, "prefer")):
        c.wait_state(j, ["RUNNING", "COMPLETED"])
        assert c.record(j)["membind"] == mode, c.record(j)
        out = _probe_output(c, j)
        assert re.match(rf"({mode} 0|unchanged: {mode} 1)",
                        _env(out, "COSCHED_MEMBIND")), out


# --- CPU frequency, in a fake cpufreq tree per node ------------------------

from cosched_loopback import fake_cpufreq
from freq_node import (ORIGINAL, freq_cluster as _freq_cluster,
                       domain as _domain, journal_domains as _journal_domains,
                       sysfs_root as _root, userspace as _userspace,
                       wait_domain as _wait_domain)


def _fill_socket0(c):
    """A job on socket 0's 8 cores (a whole socket: the controller gives
    it an empty one), without EDP points and so without a frequency, so
    that the next jobs go to socket 1."""
    j = c.sbatch("-n8", "-Jfiller")
    c.wait_state(j, "RUNNING")
    assert c.job_sockets(j) == {"n1": [0]}
    assert "governor" not in c.record(j)
    return j


def _start(c, app, *args):
    j = c.sbatch("-n2", f"-J{app}", *args)
    c.wait_state(j, "RUNNING")
    return j


@pytest.mark.series
def test_frequency_decided_applied_and_restored(make_cluster):
    """A job decided at 1.5 GHz on socket 1 shows the decided governor and
    limits on exactly socket 1's CPUs while it runs and the originals
    afterwards; two jobs in one domain run at the higher request, a job
    without a frequency of its own holds the domain at its original
    maximum, and the originals return only after all end."""
    c = _freq_cluster(make_cluster)
    _fill_socket0(c)
    b = _start(c, "p15", "--wrap", f"{PROBE}; sleep 600")
    rec = c.record(b)
    assert rec["sockets"] == "n1:1" and rec["governor"] == "userspace"
    assert rec["freq_req_khz"] == "1500000", rec
    _wait_domain(c, 8, _userspace(1500000))
    assert _domain(c, 0) == ORIGINAL     # socket 0: untouched
    assert len(_journal_domains(c)) == 1
    # The record is asked of slurmctld once per job and node, and kept
    # for the job's other steps while it runs here.
    kept = os.path.join(c.workdir, "spool", "n1", "cosched", "records",
                        str(b))
    with open(kept) as f:
        assert f.read().startswith(f"cosched/1 job={b} ")
    c.run(["scancel", str(b)])
    _wait_domain(c, 8, ORIGINAL)
    assert _journal_domains(c) == []
    # Its step record carries the decided frequency (the profile's EDP
    # point is per threads and frequency).
    steprec = os.path.join(c.workdir, "spool", "n1", "cosched", "steps",
                           f"{b}.batch.json")
    deadline = time.monotonic() + 15
    while not os.path.exists(steprec):
        assert time.monotonic() < deadline, steprec
        time.sleep(0.2)
    with open(steprec) as f:
        assert json.load(f)["freq_khz"] == 1500000

    b = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))
    x = _start(c, "p18")
    assert c.job_sockets(x) == {"n1": [1]}
    _wait_domain(c, 8, _userspace(1800000))     # the higher request
    c.run(["scancel", str(x)])
    _wait_domain(c, 8, _userspace(1500000))     # b still holds it
    # A job with no frequency of its own in b's domain holds it at the
    # original maximum while they share it.
    plain = _start(c, "plain")
    assert c.job_sockets(plain) == {"n1": [1]}
    assert "governor" not in c.record(plain)
    _wait_domain(c, 8, _userspace(3000000))
    c.run(["scancel", str(plain)])
    _wait_domain(c, 8, _userspace(1500000))
    c.run(["scancel", str(b)])
    _wait_domain(c, 8, ORIGINAL)
    assert _domain(c, 0) == ORIGINAL
    # The next launch on the node drops the kept records of ended jobs.
    c.wait_state(b, ["CANCELLED", "COMPLETED"])
    n = c.sbatch("-n1", "--wrap", "true")
    c.wait_state(n, "COMPLETED")
    assert not os.path.exists(os.path.join(c.workdir, "spool", "n1",
                                           "cosched", "records", str(b)))
    _not_drained(c)


def test_frequency_domain_rule_min_edp_sum(make_cluster):
    """FreqDomainRule=min_edp_sum reaches the hardware: p15 runs alone at
    its 1.5 GHz; q18 (EDP minimum 1.8 GHz, 4.5% slower at 1.5 GHz, within
    MaxSlowdown) joins its domain: EDP sum at 1.8 GHz 8596/7200 + 1 = 2.19,
    at 1.5 GHz 1 + 7935/7700 = 2.03, so the controller decides 1.5 GHz for
    q18 and the node keeps the domain there (max_request: 1.8 GHz)."""
    c = _freq_cluster(make_cluster)
    c.write_profile("q18", "cpu", 0.1, edp=[
        (2, 2200000, 10.0, 1000.0), (2, 1800000, 11.0, 700.0),
        (2, 1500000, 11.5, 690.0)])
    c.reconfigure(c.cosched_lines + ["FreqDomainRule=min_edp_sum"])
    _fill_socket0(c)
    p = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))
    q = _start(c, "q18")
    assert c.job_sockets(q) == {"n1": [1]}
    rec = c.record(q)
    assert rec["freq_req_khz"] == "1800000" and rec["freq_khz"] == "1500000"
    time.sleep(2)
    _wait_domain(c, 8, _userspace(1500000))
    # Alone, q18 keeps the frequency decided for it (never lowered, never
    # raised while it runs); the originals come back after both.
    c.run(["scancel", str(p)])
    time.sleep(2)
    _wait_domain(c, 8, _userspace(1500000))
    c.run(["scancel", str(q)])
    _wait_domain(c, 8, ORIGINAL)
    _not_drained(c)


def _stepd_pid(c, jobid):
    """The batch step's slurmstepd of this cluster's job (other clusters
    on the machine have jobs of the same number)."""
    from cosched_loopback.cluster import cluster_processes
    pids = [p["pid"] for p in cluster_processes(c.workdir)
            if p["comm"] == "slurmstepd" and
            p["cmdline"].startswith(f"slurmstepd: [{jobid}.batch]")]
    assert len(pids) == 1, pids
    return pids[0]


def test_frequency_journal_lost_while_held(make_cluster):
    """The cpufreq journal removed while a job holds a domain at 1.5 GHz:
    the next job in the domain does not record 1.5 GHz as the original,
    and the holder's end restores the true original and says so."""
    c = _freq_cluster(make_cluster)
    _fill_socket0(c)
    b = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))
    os.unlink(os.path.join(c.workdir, "spool", "n1", "cosched",
                           "cpufreq.journal"))
    x = _start(c, "p18")
    assert c.job_sockets(x) == {"n1": [1]}
    # Not taken: its step found no journal entry and a pinned speed.
    deadline = time.monotonic() + 20
    while True:
        with open(c.log_path("slurmd-n1")) as f:
            log = f.read()
        if f"[{x}.batch]" in log and "pinned at 1500000 kHz" in log:
            break
        assert time.monotonic() < deadline, log[-3000:]
        time.sleep(0.3)
    assert _domain(c, 8) == _userspace(1500000)
    assert _journal_domains(c) == []
    c.run(["scancel", str(b)])
    _wait_domain(c, 8, ORIGINAL)
    c.run(["scancel", str(x)])
    c.wait_state(x, ["CANCELLED", "COMPLETED"])
    time.sleep(1)
    assert _domain(c, 8) == ORIGINAL
    with open(c.log_path("slurmd-n1")) as f:
        log = f.read()
    assert re.search(rf"\[{b}\.batch\] error: .*not in the journal though "
                     rf"job {b} held it .*restored the original the job "
                     r"kept \(governor=schedutil", log), log[-3000:]
    _not_drained(c)


def _set_aside_lines(c, node="n1"):
    with open(c.log_path(f"slurmd-{node}")) as f:
        return [l for l in f if "unreadable cpufreq journal" in l]


def test_frequency_journal_unreadable(make_cluster):
    """The cpufreq journal replaced by bytes with NULs in them while a job
    holds its domain at 1.5 GHz: the job's end gives the domain back, the
    file is set aside and logged once, and the next job gets 1.5 GHz again.
    Then a directory in its place: the next launch's sweep gives the held
    domain its hardware defaults at once, and cosched-node sweep says
    nothing more."""
    c = _freq_cluster(make_cluster)
    spool = os.path.join(c.workdir, "spool", "n1", "cosched")
    journal = os.path.join(spool, "cpufreq.journal")
    _fill_socket0(c)
    b = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))
    with open(journal, "wb") as f:
        f.write(b"cosched-cpufreq-journal/1 boot=-\n\0\0garbage\0\n")
    c.run(["scancel", str(b)])
    _wait_domain(c, 8, ORIGINAL)
    assert len(_set_aside_lines(c)) == 1, _set_aside_lines(c)
    bad = [n for n in os.listdir(spool)
           if n.startswith("cpufreq.journal.bad.")]
    assert len(bad) == 1, bad
    b = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))

    # A directory: the next launch (a job without a frequency) finds it.
    os.unlink(journal)
    os.mkdir(journal)
    plain = c.sbatch("-n1", "--wrap", "true")
    c.wait_state(plain, ["COMPLETED"])
    _wait_domain(c, 8, ORIGINAL)
    deadline = time.monotonic() + 20
    while len(_set_aside_lines(c)) < 2:
        assert time.monotonic() < deadline, _set_aside_lines(c)
        time.sleep(0.3)
    assert os.path.isdir(journal) is False
    r = _node_cmd(c, "sweep")
    assert r.returncode == 0 and "unreadable" not in r.stderr, r
    c.run(["scancel", str(b)])
    c.wait_state(b, ["CANCELLED", "COMPLETED"])
    x = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))
    c.run(["scancel", str(x)])
    _wait_domain(c, 8, ORIGINAL)
    assert len(_set_aside_lines(c)) == 2, _set_aside_lines(c)
    _not_drained(c)


def _node_cmd(c, *args):
    """cosched-node on node n1 of cluster c."""
    from cosched_loopback.cluster import default_builddir
    return subprocess.run(
        [os.path.join(default_builddir(), "src", "node", "cosched-node"),
         "--conf", os.path.join(c.workdir, "cosched.conf"), "--node", "n1",
         "--spool", os.path.join(c.workdir, "spool", "%n"), *args],
        capture_output=True, text=True, timeout=30)


def test_frequency_restored_after_crashes(make_cluster):
    """The job SIGKILLed, its slurmstepd killed -9, slurmd killed -9 and
    restarted: the originals come back every time and the node is never
    drained."""
    c = _freq_cluster(make_cluster)
    _fill_socket0(c)

    # The job's processes SIGKILLed: its slurmstepd releases at step end.
    b = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))
    c.run(["scancel", "-s", "KILL", str(b)])
    _wait_domain(c, 8, ORIGINAL)
    _not_drained(c)

    # slurmstepd killed -9: nothing releases; the next launch request on
    # the node sweeps the dead holder away.
    b = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))
    os.kill(_stepd_pid(c, b), 9)
    time.sleep(1)
    assert _domain(c, 8) == _userspace(1500000)   # no one has swept yet
    n = c.sbatch("-n1", "--cosched=off", "--wrap", "true")
    _wait_domain(c, 8, ORIGINAL)
    c.wait_state(n, "COMPLETED")
    c.run(["scancel", str(b)])
    _not_drained(c)

    # slurmd killed -9 mid-job and restarted: the job's slurmstepd still
    # holds the domain (the restart's sweep keeps it), and releases it at
    # the end.
    b = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))
    c.procs["slurmd-n1"].kill()
    c.procs["slurmd-n1"].wait()
    c.start_slurmd("n1")
    deadline = time.monotonic() + 30
    while "n1" not in c.run(["sinfo", "-h", "-N", "-r", "-o", "%N"]).stdout:
        assert time.monotonic() < deadline, "n1 does not respond"
        time.sleep(0.5)
    assert c.job(b)["JobState"] == "RUNNING"
    assert _domain(c, 8) == _userspace(1500000)
    c.run(["scancel", str(b)])
    _wait_domain(c, 8, ORIGINAL)
    _not_drained(c)

    # An administrator's hand: cosched-node shows a dead holder and sweeps
    # it; restore refuses while a step holds a domain, --force restores.
    b = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))
    os.kill(_stepd_pid(c, b), 9)
    time.sleep(0.5)
    show = _node_cmd(c, "show")
    assert show.returncode == 0, show.stderr
    assert f"holder job={b} " in show.stdout, show.stdout
    assert "gone: the next sweep restores" in show.stdout, show.stdout
    sweep = _node_cmd(c, "sweep")
    assert sweep.returncode == 0 and "1 domains restored" in sweep.stdout
    assert _domain(c, 8) == ORIGINAL
    c.run(["scancel", str(b)])
    b = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))
    r = _node_cmd(c, "restore")
    assert r.returncode == 1 and f"held by job {b} " in r.stderr, r.stderr
    assert _domain(c, 8) == _userspace(1500000)
    r = _node_cmd(c, "restore", "--force")
    assert r.returncode == 0 and "1 domains restored" in r.stdout, r
    assert _domain(c, 8) == ORIGINAL and _journal_domains(c) == []
    c.run(["scancel", str(b)])
    c.wait_state(b, ["CANCELLED", "COMPLETED"])
    assert _domain(c, 8) == ORIGINAL

    # slurmstepd killed -9 and then slurmd restarted, with no new job: the
    # sweep at slurmd start restores.
    b = _start(c, "p15")
    _wait_domain(c, 8, _userspace(1500000))
    os.kill(_stepd_pid(c, b), 9)
    c.procs["slurmd-n1"].kill()
    c.procs["slurmd-n1"].wait()
    c.start_slurmd("n1")
    _wait_domain(c, 8, ORIGINAL)
    c.run(["scancel", str(b)])
    assert _journal_domains(c) == []
    _not_drained(c)


def test_frequency_degrades_with_one_line(make_cluster):
    """What the node cannot or must not do leaves the job running with one
    log line: a governor outside CpuFreqGovernors, a node without cpufreq,
    an unwritable cpufreq file, a step with --cpu-freq."""
    c = _freq_cluster(make_cluster, slurm_conf_extra=[
        "CpuFreqGovernors=Performance,OnDemand,UserSpace"])
    _fill_socket0(c)
    log = c.log_path("slurmd-n1")

    def lines(jobid, text):
        with open(log) as f:
            return [l for l in f if f"StepId={jobid}." in l and text in l]

    # --cpu-freq: Slurm's own frequency control, cosched stands aside.
    j = c.sbatch("-n2", "-Jp15", "--wrap",
                 f"srun --cpu-freq=Performance bash -c \"{PROBE}\"")
    out = _probe_output(c, j)
    assert "COSCHED_CPUFREQ=unchanged: --cpu-freq or CpuFreqDef" in out, out

    # An unwritable file in socket 1's domain: the job runs, the domain
    # keeps its originals, one line says why.
    fake_cpufreq.make_unwritable(_root(c), 8, "scaling_setspeed")
    j = c.sbatch("-n2", "-Jp15", "--wrap", PROBE)
    out = _probe_output(c, j)
    assert c.job(j)["ExitCode"] == "0:0"
    assert _env(out, "COSCHED_CPUFREQ").startswith("unchanged:"), out
    assert len(lines(j, "frequency unchanged")) == 1
    fake_cpufreq.make_writable(_root(c), 8, "scaling_setspeed")
    assert _domain(c, 8) == ORIGINAL

    # A frequency the hardware lacks: a node whose driver lists 800 MHz,
    # 1.1, 1.4, 1.7 ... GHz has no 1.5 GHz.
    coarse = os.path.join(c.workdir, "coarse")
    fake_cpufreq.create(os.path.join(coarse, "n1"), freq_step=300000)
    c.write_cosched_conf(c.cosched_lines[:-1] + [f"SysfsRoot={coarse}/%n"])
    j = c.sbatch("-n2", "-Jp15", "--wrap", PROBE)
    out = _probe_output(c, j)
    assert c.job(j)["ExitCode"] == "0:0"
    assert "1500000" in _env(out, "COSCHED_CPUFREQ"), out
    assert _env(out, "COSCHED_CPUFREQ").startswith("unchanged:"), out
    assert fake_cpufreq.setting(os.path.join(coarse, "n1"), 8) == ORIGINAL
    assert len(lines(j, "frequency unchanged")) == 1

    # No cpufreq on the node.
    c.write_cosched_conf(c.cosched_lines[:-1] +
                         [f"SysfsRoot={c.workdir}/no-such-tree"])
    j = c.sbatch("-n2", "-Jp15", "--wrap", PROBE)
    out = _probe_output(c, j)
    assert c.job(j)["ExitCode"] == "0:0"
    assert _env(out, "COSCHED_CPUFREQ") == "unchanged: no cpufreq", out
    assert len(lines(j, "no cpufreq under")) == 1
    _not_drained(c)


def test_frequency_respects_cpufreqgovernors(make_cluster):
    """A governor outside slurm.conf's CpuFreqGovernors, or outside the
    domain's scaling_available_governors, is not written: one log line for
    the step, the job runs, the domain keeps its originals."""
    c = _freq_cluster(make_cluster, slurm_conf_extra=[
        "CpuFreqGovernors=Performance,OnDemand"])
    _fill_socket0(c)
    log = c.log_path("slurmd-n1")

    def lines(jobid, text):
        with open(log) as f:
            return [l for l in f if f"StepId={jobid}." in l and text in l]

    j = c.sbatch("-n2", "-Jp15", "--wrap", PROBE)
    out = _probe_output(c, j)
    assert c.job(j)["ExitCode"] == "0:0"
    refused = ('cpufreq domain 8 (cpus 8-15): governor "userspace" not '
               'allowed by slurm.conf CpuFreqGovernors (ondemand performance)')
    assert _env(out, "COSCHED_CPUFREQ") == f"unchanged: {refused}", out
    assert len(lines(j, refused)) == 1
    assert _domain(c, 8) == ORIGINAL and _journal_domains(c) == []
    j = c.sbatch("-n2", "-Jp15", "--cosched-power=performance",
                 "--wrap", f"{PROBE}; sleep 600")
    c.wait_state(j, "RUNNING")
    _wait_domain(c, 8, dict(ORIGINAL, governor="performance"))
    c.run(["scancel", str(j)])
    _wait_domain(c, 8, ORIGINAL)

    # A driver without the performance governor: allowed by the site, but
    # not the domain's to take.
    bare = os.path.join(c.workdir, "bare")
    fake_cpufreq.create(os.path.join(bare, "n1"),
                        governors=("powersave", "userspace", "schedutil"))
    c.write_cosched_conf(c.cosched_lines[:-1] + [f"SysfsRoot={bare}/%n"])
    j = c.sbatch("-n2", "-Jp15", "--cosched-power=performance",
                 "--wrap", PROBE)
    out = _probe_output(c, j)
    assert c.job(j)["ExitCode"] == "0:0"
    missing = 'governor "performance" not available'
    assert missing in _env(out, "COSCHED_CPUFREQ"), out
    assert len(lines(j, missing)) == 1
    assert fake_cpufreq.setting(os.path.join(bare, "n1"), 8) == ORIGINAL
    _not_drained(c)
