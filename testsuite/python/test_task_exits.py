# SPDX-License-Identifier: GPL-2.0-or-later
"""TaskExits (cosched_loopback/task_exits.py), which cosched-bench-controller(1) uses
for the CPU of the programs that exit during a run: checked against the
kernel's own count of this process's children (getrusage), on processes
far shorter than the 10 ms that BSD process accounting rounds down to."""

import os
import resource
import subprocess

import pytest

from cosched_loopback.task_exits import TaskExits

LOOPBACK = os.path.join(os.path.dirname(__file__), "..", "..", "contribs",
                        "loopback")

# A shell loop of a few milliseconds of CPU, under a name of its own.
BUSY = "i=0; while [ $i -lt 1500 ]; do i=$((i+1)); done"


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def test_short_processes_count_in_full(tmp_path):
    prog = tmp_path / "cosched-busy"
    prog.write_text("#!/bin/sh\n" + BUSY + "\n")
    prog.chmod(0o755)
    t = TaskExits()
    if not t.start():
        pytest.skip(f"cannot listen to exits here: {t.error}")
    before = _children_cpu()
    for _ in range(40):
        subprocess.run([str(prog)], check=True)
    spent = _children_cpu() - before
    got, dropped = t.stop()
    assert dropped == 0
    threads, cpu = got["cosched-busy"]
    assert threads == 40, got
    # getrusage counts in ticks and taskstats in nanoseconds: the same
    # time within a tick a process and 10%.
    assert abs(cpu - spent) <= 0.1 * spent + 40 * 0.004, (cpu, spent)
    # Each process was far shorter than acct(2)'s 10 ms unit.
    assert cpu / 40 < 0.010, cpu


def test_stopped_listener_counts_nothing_more(tmp_path):
    t = TaskExits()
    if not t.start():
        pytest.skip(f"cannot listen to exits here: {t.error}")
    got, _ = t.stop()
    subprocess.run(["true"], check=True)
    assert "true" not in got
    assert t.stop() == (None, 0)


def test_without_root_says_why():
    if os.geteuid() != 0:
        t = TaskExits()
        assert not t.start() and t.error.startswith("taskstats: "), t.error
        assert t.stop() == (None, 0)
        return
    # As root: the same refusal, seen from a user without CAP_NET_ADMIN.
    r = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
         "python3", "-c",
         "import sys; sys.path.insert(0, sys.argv[1]); "
         "from cosched_loopback.task_exits import TaskExits; "
         "t = TaskExits(); print(t.start(), t.error)",
         LOOPBACK],
        capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("False taskstats: "), r.stdout
