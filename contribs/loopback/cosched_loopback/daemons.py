# SPDX-License-Identifier: GPL-2.0-or-later
"""Daemons a loopback cluster starts: free ports, spawning a daemon that
ends with the process that started it, waiting for it to come up, its log,
and stopping it.  cluster.py (munged, slurmctld, slurmd) and accounting.py
(MariaDB, slurmdbd) both start theirs with these."""

import ctypes
import os
import random
import signal
import socket
import subprocess
import time


class ClusterStartError(RuntimeError):
    """A daemon did not come up; the message holds its log."""


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_ports(count):
    """Ports for one cluster: random, below the kernel's ephemeral range
    (so no client connection takes one between this check and the daemon's
    bind), each checked free now.  Two runs pick the same port with
    probability about count/20000; start() retries once if it happens."""
    rng = random.Random()
    low, high = 10000, min(_ephemeral_low(), 60000) - 1
    ports = []
    while len(ports) < count:
        port = rng.randint(low, high)
        if port in ports:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        ports.append(port)
    return ports


def _die_with_parent():
    """preexec_fn: the daemon gets SIGTERM if the test process dies, so a
    killed test run (CI timeout, closed terminal) leaves no daemon behind."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(
        PR_SET_PDEATHSIG, signal.SIGTERM)


def _tail(path, lines=60):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return f"(no log: {e})\n"


def log_path(workdir, daemon):
    """Where a daemon of the cluster in workdir logs: log/<daemon>.log."""
    if daemon == "munged":  # --foreground logs to stderr
        return os.path.join(workdir, "log", "munged.stdout")
    return os.path.join(workdir, "log", f"{daemon}.log")


def daemon_logs(workdir, names, lines=60):
    """The last lines of the named daemons' logs, one section each."""
    out = []
    for n in names:
        out.append(f"===== {n} ({log_path(workdir, n)}) =====\n")
        out.append(_tail(log_path(workdir, n), lines))
        # What a daemon printed before it opened its log (fatal errors
        # in start-up) lands here.
        stdout = os.path.join(workdir, "log", f"{n}.stdout")
        if (not os.path.exists(log_path(workdir, n)) and
                os.path.exists(stdout) and os.path.getsize(stdout)):
            out.append(f"----- {n} stdout/stderr -----\n")
            out.append(_tail(stdout, lines))
    return "".join(out)


def spawn_daemon(workdir, name, argv, env, keep):
    """Start a daemon in a session of its own, its output appended to
    log/<name>.stdout.  A kept cluster's daemons must survive this
    process (keep=True): with a parent-death signal they would end with
    it, leaving the jobs' steps and tasks running without their slurmd."""
    with open(os.path.join(workdir, "log", f"{name}.stdout"), "ab") as out:
        return subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, env=env,
            start_new_session=True,
            preexec_fn=None if keep else _die_with_parent)


def wait_for(cond, what, procs, logs, timeout):
    """Poll cond() until true; ClusterStartError with logs() when one of
    procs (Popen objects, None for a daemon not started) exits first or
    timeout seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, p in procs.items():
            if p is not None and p.poll() is not None:
                raise ClusterStartError(
                    f"{name} exited with status {p.returncode} while "
                    f"waiting for {what}\n{logs()}")
        try:
            if cond():
                return
        except subprocess.TimeoutExpired:
            pass
        time.sleep(0.3)
    raise ClusterStartError(
        f"timed out after {timeout}s waiting for {what}\n{logs()}")


def terminate(p, sig=signal.SIGTERM, timeout=20):
    """Stop a daemon started here: sig, then SIGKILL after timeout."""
    if p is None or p.poll() is not None:
        return
    try:
        p.send_signal(sig)
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            pass


# slurmscriptd: slurmctld's helper for scripts, a process of its own;
# slurmdbd and mariadbd: a cluster's accounting (accounting=True).
