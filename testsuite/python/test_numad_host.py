# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-numad beside a real loopback Slurm cluster (this machine's one
NUMA node): task/cosched names each step's processes in NumaStepDir, the
daemon sees the jobs with the priority their decision records carry
(--cosched-numa), rights hold per caller, and what needs a second NUMA
node is refused with its reason.  Moving pages is tested on real NUMA
nodes in qemu guests (test_numad.py).
"""

import os
import time

import pytest

from cosched_loopback.cluster import sampler_test_conf
from numad_daemon import NumadDaemon


def _conf(workdir):
    d = os.path.join(workdir, "numa")
    return [f"NumaSocket={d}/sock", f"NumaStateDir={d}/state",
            f"NumaStepDir={d}/steps", "NumaScanInterval=0.5"]


class Numad(NumadDaemon):
    def __init__(self, c):
        self.c = c
        super().__init__(os.path.join(c.workdir, "cosched.conf"),
                         os.path.join(c.workdir, "numad.log"),
                         os.path.join(c.workdir, "numa", "sock"),
                         "nobody-such-user")

    def procs(self, user=None):
        r = self.numa("status", user=user)
        assert r.returncode == 0, r
        out = []
        for line in r.stdout.splitlines():
            if line.startswith("proc "):
                out.append(dict(t.split("=", 1) for t in line.split()[1:]))
        return out


def _steps(c):
    d = os.path.join(c.workdir, "numa", "steps")
    return sorted(os.listdir(d)) if os.path.isdir(d) else None


@pytest.mark.series
def test_steps_named_with_their_records_priority(make_cluster):
    c = make_cluster(nodes=1, sockets=1, cores=2,
                     cosched_conf_extra=["CoschedPolicy=app_aware"])
    # The samplers count from a file (no PMU here) and put each step's
    # LLC misses per second in the node's energy ledger.
    c.reconfigure(cosched_conf=["CoschedPolicy=app_aware"] + _conf(c.workdir)
                  + sampler_test_conf(c.workdir) + ["NumaMakeRoom=yes"])
    d = Numad(c)
    try:
        hi = c.sbatch("-n1", "--mem=64", "--cosched-numa=high", "--wrap",
                      "sleep 30")
        lo = c.sbatch("-n1", "--wrap", "sleep 30")
        for j in (hi, lo):
            c.wait_state(j, "RUNNING")
        # The record carries it (record 1.1), the step file from it.
        show = c.run(["scontrol", "show", "job", str(hi)]).stdout
        assert "SystemComment=cosched/1.1 " in show, show
        assert " numa_priority=high" in show, show
        assert "numa_priority" not in c.run(
            ["scontrol", "show", "job", str(lo)]).stdout
        t0 = time.monotonic()
        while True:
            procs = d.procs()
            jobs = [int(p["job"]) for p in procs]
            # Both jobs, and the batch shell's sleep forked.
            if jobs.count(int(hi)) >= 2 and int(lo) in jobs:
                break
            assert time.monotonic() - t0 < 20, (procs, _steps(c), d.text())
            time.sleep(0.3)
        by_job = {}
        for p in procs:
            by_job.setdefault(int(p["job"]), []).append(p)
        # The batch shell and its sleep: a task and its descendant.
        assert len(by_job[int(hi)]) >= 2, by_job
        assert {p["priority"] for p in by_job[int(hi)]} == {"high"}
        assert {p["priority"] for p in by_job[int(lo)]} == {"default"}
        # Measured: each step's sampler's LLC misses per second, from
        # the ledger its step file names (the sampler's first update
        # comes within its 0.2 s interval).
        t0 = time.monotonic()
        while not all(p["source"] == "measured:llc" for p in procs):
            assert time.monotonic() - t0 < 10, procs
            time.sleep(0.3)
            procs = [p for p in d.procs() if int(p["job"]) in by_job]
        # NumaMakeRoom=yes: the high-priority step asked for room for its
        # 64 MB (16384 pages) on its NUMA node; this node has it.
        assert f"make room for job {hi}: NUMA node 0 has" in d.text()
        assert "it needs 16384: nothing to move" in d.text(), d.text()
        assert f"make room for job {lo}" not in d.text()
        names = _steps(c)
        assert f"{hi}.4294967291.n1" in names, names      # the batch step
        # An administrator's setting goes over the record's.
        r = d.numa("priority", lo, "high")
        assert r.returncode == 0, r
        assert {p["priority"] for p in d.procs()
                if p["job"] == str(lo)} == {"high"}
        # This machine has one NUMA node: said, nothing moved.
        r = d.numa("migrate", 0, 1, 10)
        assert r.returncode == 1
        assert "NUMA node 1 does not exist (this node has 0-0)" in \
            r.stderr, r
        r = d.numa("migrate", 0, 0, 10, "--job", hi)
        assert r.returncode == 1 and "both NUMA node 0" in r.stderr, r
        # Rights: another user sees none of root's processes and may
        # not move pages or set priorities.
        assert d.procs(user="nobody") == []
        r = d.numa("migrate", 0, 0, 10, user="nobody")
        assert r.returncode == 1
        assert "permission denied: only root and SlurmUser" in r.stderr, r
        r = d.numa("priority", hi, "low", user="nobody")
        assert r.returncode == 1 and "permission denied" in r.stderr, r
        # Malformed arguments are refused before asking, naming them.
        r = d.numa("migrate", 0, 1, "lots")
        assert r.returncode == 2
        assert 'PAGES: invalid value "lots"' in r.stderr, r
        r = d.numa("migrate", 0, 1, 5, "--order", "fastest")
        assert r.returncode == 2 and "fastest" in r.stderr, r
        # When a step ends its file goes.
        c.run(["scancel", str(hi)])
        c.wait_state(hi, ("CANCELLED", "COMPLETED"))
        t0 = time.monotonic()
        while any(n.startswith(f"{hi}.") for n in _steps(c)):
            assert time.monotonic() - t0 < 20, _steps(c)
            time.sleep(0.2)
    finally:
        d.stop()


def test_a_silent_client_holds_nothing_up(make_cluster):
    """A local user who connects and says nothing (or too much) does not
    stall the daemon: others are served meanwhile, and the silent one is
    told off after 2 s."""
    import socket
    c = make_cluster(nodes=1, sockets=1, cores=2,
                     cosched_conf_extra=["CoschedPolicy=app_aware"])
    c.reconfigure(cosched_conf=["CoschedPolicy=app_aware"] + _conf(c.workdir))
    d = Numad(c)
    try:
        path = os.path.join(c.workdir, "numa", "sock")
        silent = [socket.socket(socket.AF_UNIX) for _ in range(3)]
        for s in silent:
            s.connect(path)
        t0 = time.monotonic()
        r = d.numa("status")
        assert r.returncode == 0 and "manager nodes=1" in r.stdout, r
        assert time.monotonic() - t0 < 1.0
        silent[0].settimeout(5)
        reply = silent[0].recv(4096).decode()
        assert "no complete line within 2 s" in reply and "rc=2" in reply
        # A line that never ends within 1024 bytes.
        big = socket.socket(socket.AF_UNIX)
        big.connect(path)
        big.sendall(b"x" * 2000)
        big.settimeout(5)
        assert "no complete line (at most 1024 bytes" in \
            big.recv(4096).decode()
        for s in silent + [big]:
            s.close()
        assert d.proc.poll() is None
    finally:
        d.stop()


def test_no_manager_no_step_files(make_cluster):
    # Without the daemon there is no NumaStepDir, and nothing is written.
    c = make_cluster(nodes=1, sockets=1, cores=2,
                     cosched_conf_extra=["CoschedPolicy=app_aware"])
    c.reconfigure(cosched_conf=["CoschedPolicy=app_aware"] + _conf(c.workdir))
    j = c.sbatch("-n1", "--cosched-numa=high", "--wrap", "sleep 1")
    c.wait_state(j, "COMPLETED")
    assert _steps(c) is None
    assert not os.path.exists(os.path.join(c.workdir, "numa"))
