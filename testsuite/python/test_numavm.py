# SPDX-License-Identifier: GPL-2.0-or-later
"""Memory binding on real NUMA nodes, in a qemu guest (testsuite/numavm).

This machine has one NUMA node, so the node library's binding code - the
task plugin's: cosched_topology_cpu_numa() and cosched_mempolicy_apply() -
runs in a qemu guest under TCG with 2 nodes and with 4 nodes at the
distances of "Dynamic memory placement of applications on a NUMA system"
(NTUA thesis, 2020), through the guest program numa_bind_check, and where
the pages went is read from the guest kernel's /proc/self/numa_maps.
Each guest boots once per module (a few seconds each here).

Skipped, with the reason, where no guest can run: no qemu, no busybox-static,
no cached kernel (scripts/install-deps provides all three on the host), or
inside a Slurm root of scripts/slurm-root (the guest is the host's).
"""

import os
import shlex
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "numavm"))

import numavm  # noqa: E402
from guests import boot_guest, guest_fixtures, guest_programs  # noqa: E402

MIB = 16
PAGES = MIB * 256       # 4 KiB pages


def _programs():
    return guest_programs("testsuite/numavm/numa_bind_check")


def _boot(**kw):
    return boot_guest(_programs(), **kw)


vm2, vm4 = guest_fixtures(_programs)


def guest_run(vm, command, timeout=60):
    """vm.run.  There is no retry: the guest that stopped answering (about
    one host run in three under load) was the agent losing a request when
    an orphan's SIGCHLD cut its read short, fixed in numavm's /init (the
    agent is no longer PID 1); a retry on a fresh boot could have run a
    command twice."""
    return vm.run(command, timeout=timeout)


def bind_check(vm, *args, mib=MIB):
    """Run numa_bind_check in the guest; its report as a dict, plus
    "pages_on" {node: pages} and the stderr."""
    argv = ["numa_bind_check", *args, "--mib", str(mib)]
    r = guest_run(vm, argv, timeout=60)
    assert r.rc == 0, (argv, r)
    lines = r.stdout.splitlines()
    assert len(lines) == 1, r
    return _report(lines[0], r)


def _report(line, r):
    """numa_bind_check's report line as a dict, with "pages_on" and the
    stderr of the guest command r."""
    assert line.startswith("numa_bind_check "), r
    report = dict(tok.split("=", 1) for tok in shlex.split(line)[1:])
    report["pages_on"] = {int(k[1:]): int(v) for k, v in report.items()
                          if k[0] == "N" and k[1:].isdigit()}
    report["stderr"] = r.stderr
    return report


def test_guest_is_the_asked_machine(vm2):
    assert vm2.node_distances() == [[10, 20], [20, 10]]
    r = guest_run(vm2, "cat /sys/devices/system/node/node0/cpulist "
                "/sys/devices/system/node/node1/cpulist")
    assert r.rc == 0 and r.stdout.split() == ["0-1", "2-3"], r


@pytest.mark.parametrize("cpus,node", [("0-1", 0), ("2-3", 1)])
def test_bind_to_cpus_keeps_pages_on_their_node(vm2, cpus, node):
    rep = bind_check(vm2, "--cpus", cpus, "--mode", "bind")
    assert rep["nodes"] == str(node), rep
    assert rep["applied"] == "1" and rep["policy"] == f"bind:{node}", rep
    assert int(rep["pages"]) == PAGES, rep
    assert rep["pages_on"] == {node: PAGES, 1 - node: 0}, rep
    assert rep["stderr"] == ""


def test_prefer_lands_on_preferred_node(vm2):
    rep = bind_check(vm2, "--cpus", "2-3", "--mode", "prefer")
    assert rep["policy"] == "prefer:1", rep
    assert rep["pages_on"] == {0: 0, 1: PAGES}, rep


def test_prefer_spills_where_bind_would_not(vm2):
    # What makes prefer differ from bind: past the preferred node's free
    # memory the allocation goes on elsewhere instead of failing.
    # One guest command measures node 1's free memory and asks 32 MiB
    # more, so that what it measures is what it allocates against.
    r = guest_run(vm2, "f=$(sed -n 's/.*MemFree: *\\([0-9]*\\) kB/\\1/p' "
                  "/sys/devices/system/node/node1/meminfo); echo free_kib=$f; "
                  "numa_bind_check --nodes 1 --mode prefer "
                  "--mib $((f / 1024 + 32))", timeout=60)
    assert r.rc == 0, r
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("free_kib="), r
    free_mib = int(lines[0].split("=", 1)[1]) // 1024
    mib = free_mib + 32
    rep = _report(lines[1], r)
    on = rep["pages_on"]
    assert on[0] + on[1] == mib * 256, rep
    assert on[1] > (free_mib - 32) * 256, rep   # the node filled first
    assert on[0] >= 16 * 256, rep               # then the rest elsewhere


def test_prefer_several_nodes(vm2):
    # Linux 6.1 has MPOL_PREFERRED_MANY: the whole set is kept.
    rep = bind_check(vm2, "--nodes", "0-1", "--mode", "prefer")
    assert rep["policy"] == "prefer:0-1", rep
    assert sum(rep["pages_on"].values()) == PAGES, rep


def test_missing_node_is_refused_clearly(vm2):
    rep = bind_check(vm2, "--nodes", "2", "--mode", "bind")
    assert rep["applied"] == "0" and rep["policy"] == "default", rep
    assert ("NUMA node 2 does not exist on this machine (its nodes: 0-1)"
            in rep["stderr"]), rep
    # The task ran on, its memory allocated under the unchanged policy.
    assert sum(rep["pages_on"].values()) == PAGES, rep


def test_seed000_distances(vm4):
    assert vm4.node_distances() == [list(r) for r in
                                    numavm.SEED000_DISTANCES]


@pytest.mark.parametrize("how", [("--cpus", "3"), ("--nodes", "3")])
def test_bind_to_node_3(vm4, how):
    rep = bind_check(vm4, *how, "--mode", "bind")
    assert rep["nodes"] == "3" and rep["policy"] == "bind:3", rep
    assert rep["pages_on"] == {0: 0, 1: 0, 2: 0, 3: PAGES}, rep


def test_command_channel(vm4):
    # Output of any bytes, stderr and the status come back intact, and a
    # command that overruns its time is killed without losing the guest.
    r = vm4.run("printf '\\000@@END 1 0\\n\\377'; echo oops >&2; exit 7",
                text=False)
    assert r == (7, b"\0@@END 1 0\n\xff", b"oops\n")
    with pytest.raises(numavm.GuestError, match="timed out after 1 s"):
        vm4.run(["sleep", "30"], timeout=1)
    assert vm4.run(["echo", "still here"]) == (0, "still here\n", "")


def test_stuck_guest_says_what_it_was_doing():
    # A command that ignores the guest's own time limit leaves the agent
    # waiting: the host gives up and shows, from SysRq through the
    # monitor, the guest's blocked tasks and what its CPUs were running.
    vm = _boot(nodes=1, cpus=1, mem=256)
    try:
        with pytest.raises(numavm.GuestError) as err:
            vm.run("trap '' TERM; while :; do :; done", timeout=1)
        text = str(err.value)
        assert "no answer from the guest in time" in text, text
        assert "sysrq: Show Blocked State" in text, text
        assert "NMI backtrace for cpu 0" in text and "Comm: sh" in text, text
    finally:
        vm.shutdown()


def test_reboot_gives_the_same_guest():
    # What guest_run falls back on: the same machine, answering again.
    vm = _boot(nodes=2, cpus=4, mem=512)
    try:
        vm.reboot()
        assert vm.node_distances() == [[10, 20], [20, 10]]
        assert os.path.exists(vm.console_log + ".1")
    finally:
        vm.shutdown()
