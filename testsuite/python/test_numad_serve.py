# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-numad serves every client: an unprivileged user who opens
connections and says nothing, asks for a status and never reads it, or
asks for one every 0.2 s, holds up neither root nor a high-priority job's
make-room, and does not multiply the daemon's CPU; requests that say a
key twice, or lack one, are refused naming it; a line too long gets its
answer; a step file that does not read is warned about once; processes
beyond the scan limit are said, not dropped silently.

The daemon runs on this machine with its own files and step files
written here as task/cosched writes them (no Slurm needed): the step's
processes are an unprivileged user's, as a job's are.  Moving pages
needs a second NUMA node and is tested in qemu guests (test_numad.py).
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from numad_daemon import NumadDaemon, numad_bin

NOBODY = 65534
# The user's programs: the system's Python, which nobody may run (the
# test's own may live in root's home).
USER_PYTHON = "/usr/bin/python3"


def _start_time(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[19])


class Daemon(NumadDaemon):
    """A daemon of its own, its directory traversable by every user (the
    socket is theirs to connect to)."""

    def __init__(self, scan_interval=0.5):
        if os.geteuid() != 0:
            pytest.skip("cosched-numad runs as root")
        self.dir = tempfile.mkdtemp(prefix="numad-serve-")
        os.chmod(self.dir, 0o755)
        self.sock = f"{self.dir}/run/sock"
        self.steps = f"{self.dir}/steps"
        conf = f"{self.dir}/cosched.conf"
        with open(conf, "w") as f:
            f.write(f"NumaSocket={self.sock}\nNumaStateDir={self.dir}/state\n"
                    f"NumaStepDir={self.steps}\n"
                    f"NumaScanInterval={scan_interval}\n")
        self.jobs = []
        super().__init__(conf, f"{self.dir}/log", self.sock, "")

    def timed(self, *args):
        t0 = time.monotonic()
        r = self.numa(*args)
        return r, time.monotonic() - t0

    def job(self, job_id, nprocs, priority="default"):
        """A step of user nobody whose one task has nprocs - 1 children,
        named in a step file as slurmstepd names one."""
        if not os.access(USER_PYTHON, os.X_OK):
            pytest.skip(f"no {USER_PYTHON} for the user's processes")
        code = textwrap.dedent(f"""
            import os, signal, sys, time
            for _ in range({nprocs - 1}):
                os.posix_spawn("/bin/sleep", ["sleep", "600"], os.environ)
            print("ready", flush=True)
            time.sleep(600)
        """)
        p = subprocess.Popen(["runuser", "-u", "nobody", "--", USER_PYTHON,
                              "-c", code], stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
        self.jobs.append(p)
        assert p.stdout.readline().strip() == "ready"
        # runuser's child, the task (runuser itself is root's).
        task = int(subprocess.run(["pgrep", "-P", str(p.pid)],
                                  capture_output=True, text=True)
                   .stdout.split()[0])
        self.write_step(f"{job_id}.0.n1",
                        f"cosched-numa-step/1 job={job_id} step=0 node=n1 "
                        f"uid={NOBODY} priority={priority} ledger=\"\"\n"
                        f"task pid={task} start={_start_time(task)}\n")
        return task

    def write_step(self, name, text):
        path = os.path.join(self.steps, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)

    def wait_procs(self, n, timeout=30):
        t0 = time.monotonic()
        while True:
            r = self.numa("status")
            got = sum(line.startswith("proc ")
                      for line in r.stdout.splitlines())
            if got >= n:
                return r
            assert time.monotonic() - t0 < timeout, (got, self.text())
            time.sleep(0.3)

    def cpu(self):
        """The daemon's CPU seconds so far."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def ask(self, line, send_all=True):
        """One raw request line as root: the reply's text."""
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(self.sock)
        try:
            s.sendall(line)
            out = b""
            while not out.endswith(b"\n") or b"rc=" not in out:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
            return out.decode()
        finally:
            s.close()

    def stop(self):
        for p in self.jobs:
            subprocess.run(["pkill", "-KILL", "-s", str(p.pid)])
            p.wait()
        super().stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def numad():
    d = Daemon()
    yield d
    d.stop()


# What an unprivileged user does to the socket, until killed: silent
# connections and statuses asked and never read, each replaced as soon
# as the daemon closes it (or refuses it).
ATTACK = textwrap.dedent("""
    import select, socket, sys, time
    path, silent, readers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    pools = {b"": [], b"cosched-numa/1 cmd=status\\n": []}
    want = {b"": silent, b"cosched-numa/1 cmd=status\\n": readers}
    first = True
    while True:
        for line, held in pools.items():
            # Closed by the daemon (unread replies do not count).
            for s in list(held):
                p = select.poll()
                p.register(s, select.POLLRDHUP)
                if p.poll(0):
                    held.remove(s)
                    s.close()
            while len(held) < want[line]:
                s = socket.socket(socket.AF_UNIX)
                s.setblocking(False)
                try:
                    s.connect(path)
                    if line:
                        s.send(line)
                except OSError:
                    s.close()
                    break
                held.append(s)
        if first:
            print("ready", flush=True)
            first = False
        time.sleep(0.1)
""")


def test_one_user_locks_no_one_out(numad):
    """64 silent connections and statuses never read, all of user nobody
    with a job of 1,500 processes (a status of some 300 KB, more than a
    socket buffer): root's status and migrate are answered within a
    second each, and a high-priority job's make-room within the 500 ms
    slurmstepd waits; the user's own connections beyond 8 are told so."""
    numad.job(7, 1500)
    hi = numad.job(8, 1, priority="high")
    numad.wait_procs(1501)
    attacker = subprocess.Popen(
        ["runuser", "-u", "nobody", "--", USER_PYTHON, "-c", ATTACK,
         numad.sock, "64", "4"], stdout=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        assert attacker.stdout.readline().startswith("ready")
        time.sleep(1.0)
        worst = {"status": 0, "migrate": 0, "make-room": 0}
        for _ in range(10):
            r, t = numad.timed("status")
            assert r.returncode == 0 and "manager nodes=" in r.stdout, r
            worst["status"] = max(worst["status"], t)
            # One NUMA node here: the migrate is refused, but answered.
            r, t = numad.timed("migrate", 0, 0, 10)
            assert "both NUMA node 0" in r.stderr, r
            worst["migrate"] = max(worst["migrate"], t)
            r, t = numad.timed("make-room", 0, 100, "--job", 8)
            assert r.returncode == 0 and "room: NUMA node 0 has" in \
                r.stdout, r
            worst["make-room"] = max(worst["make-room"], t)
            time.sleep(0.2)
        sys.stderr.write(f"\nnumad under attack, worst answer times: "
                         f"{ {k: round(v, 3) for k, v in worst.items()} }\n")
        assert worst["status"] < 1.0 and worst["migrate"] < 1.0, worst
        assert worst["make-room"] < 0.5, worst
        # The attacker's own limit: told so, not left hanging (its
        # connections come and go: one ask in a few finds a place).
        refused = [numad.numa("status", user="nobody") for _ in range(5)]
        assert any(r.returncode == 1 and "too many connections from uid "
                   "65534 (at most 8" in r.stderr for r in refused), refused
        assert hi and numad.proc.poll() is None
    finally:
        subprocess.run(["pkill", "-KILL", "-s", str(attacker.pid)])
        attacker.wait()
    # Once the user lets go, the user is served again.
    t0 = time.monotonic()
    while numad.numa("status", user="nobody").returncode != 0:
        assert time.monotonic() - t0 < 15, numad.text()
        time.sleep(0.5)


def test_statuses_every_fifth_of_a_second_cost_the_daemon_little():
    """Four clients of an unprivileged user asking for the status every
    0.2 s, with a job of 1,500 processes, cost the daemon less than half
    again what its own scans cost (they see the last scan; one
    rendering a user a second)."""
    d = Daemon(scan_interval=2)
    try:
        d.job(7, 1500)
        d.wait_procs(1500)
        time.sleep(2.5)
        span = 8.0
        c0 = d.cpu()
        time.sleep(span)
        idle = d.cpu() - c0
        loop = textwrap.dedent(f"""
            import subprocess, time
            end = time.monotonic() + {span}
            while time.monotonic() < end:
                subprocess.run([{numad_bin("cosched-numa")!r}, "-f",
                                {d.conf!r}, "status"],
                               stdout=subprocess.DEVNULL)
                time.sleep(0.2)
        """)
        clients = [subprocess.Popen(["runuser", "-u", "nobody", "--",
                                     USER_PYTHON, "-c", loop])
                   for _ in range(4)]
        c0 = d.cpu()
        for c in clients:
            c.wait()
        busy = d.cpu() - c0
        sys.stderr.write(f"\nnumad CPU over {span:.0f} s: {idle:.2f} s "
                         f"alone, {busy:.2f} s with 4 clients asking "
                         f"every 0.2 s\n")
        assert busy <= 1.5 * idle + 0.2, (idle, busy)
    finally:
        d.stop()


def test_a_key_given_twice_or_missing_is_named(numad):
    r = numad.ask(b"cosched-numa/1 cmd=status cmd=migrate src=0 dst=0 "
                  b"pages=1\n")
    assert 'error: cmd: key given twice, value "migrate"' in r, r
    assert r.endswith("rc=2\n"), r
    r = numad.ask(b"cosched-numa/1 cmd=drain src=0 src=5\n")
    assert "src: key given twice" in r, r
    r = numad.ask(b"cosched-numa/1 cmd=drain\n")
    assert "error: drain: src= missing" in r and r.endswith("rc=2\n"), r
    assert "NUMA node -1" not in r, r
    r = numad.ask(b"cosched-numa/1 cmd=migrate src=0 pages=5\n")
    assert "error: migrate: dst= missing" in r, r
    # What cosched-numa sends is still served: an older client's form.
    r = numad.ask(b"cosched-numa/1 cmd=drain src=0 order=best "
                  b"dry_run=yes wait=yes\n")
    assert "no other NUMA node with memory" in r, r
    r = numad.ask(b"cosched-numa/1 cmd=status\n")
    assert r.startswith("manager nodes=1 ") and r.endswith("rc=0\n"), r


def test_a_line_too_long_gets_its_answer(numad):
    """300 KB without a newline, sent whole before reading: the client
    reads the refusal, not a reset."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(numad.sock)
    try:
        s.sendall(b"x" * 300_000)
        out = b""
        while b"rc=" not in out:
            chunk = s.recv(4096)
            if not chunk:
                break
            out += chunk
    finally:
        s.close()
    assert b"no complete line (at most 1024 bytes" in out, out
    assert out.endswith(b"rc=2\n"), out
    assert numad.numa("status").returncode == 0


def test_a_bad_step_file_is_warned_about_once(numad):
    numad.write_step("9.0.n1", "not a step file\n")
    time.sleep(2.5)     # five scans
    assert numad.text().count("step file skipped") == 1, numad.text()
    # Rewritten good, then bad again: said again.
    os.unlink(os.path.join(numad.steps, "9.0.n1"))
    time.sleep(1.0)
    numad.write_step("9.0.n1", "still not a step file\n")
    time.sleep(1.5)
    assert numad.text().count("step file skipped") == 2, numad.text()


def test_processes_beyond_the_scan_limit_are_said():
    """A step of 4,200 processes and, started after it, one of 2: the
    scan follows 4,096, the small step's all (a large step does not push
    others out of view), and the rest are said in the log and the
    status, not dropped silently."""
    d = Daemon(scan_interval=2)
    try:
        d.job(7, 4200)
        small = d.job(8, 2)
        t0 = time.monotonic()
        while "unfollowed=106" not in d.numa("status").stdout:
            assert time.monotonic() - t0 < 60, d.text()
            time.sleep(1)
        # Said once, with the count of the scan that first found them,
        # which may have run while the large step's processes still came.
        said = re.findall(r"(\d+) processes of Slurm steps \(job 7 the "
                          r"first\) beyond the 4096 followed", d.text())
        assert len(said) == 1 and 1 <= int(said[0]) <= 106, d.text()
        procs = [line for line in d.numa("status").stdout.splitlines()
                 if line.startswith("proc ")]
        assert len(procs) == 4096
        assert sum(" job=8 " in p for p in procs) == 2, small
    finally:
        d.stop()
