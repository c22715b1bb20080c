# SPDX-License-Identifier: GPL-2.0-or-later
"""The qemu NUMA guests of the test suite (testsuite/numavm), booted for a
pytest module: the guest programs of this build, the skip where no guest
can run, and the fixtures' one way to boot."""

import os
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "numavm"))

import numavm  # noqa: E402
from cosched_loopback.cluster import default_builddir  # noqa: E402


def guest_programs(*relpaths):
    """This build's programs at relpaths (under the build directory), or
    the test skipped where the build has no node side (no hwloc or
    libnuma), failed where it has one but not these programs."""
    b = default_builddir()
    progs = [os.path.join(b, p) for p in relpaths]
    missing = [p for p in progs if not os.access(p, os.X_OK)]
    if not missing:
        return progs
    if os.path.exists(os.path.join(b, "src", "node", "libcosched_node.la")):
        pytest.fail(f"not built: {missing}: the node library is built but "
                    "not these programs; build first (scripts/build)")
    pytest.skip(f"no {missing[0]}: this build has no node side (configure "
                "found no hwloc or libnuma)")


def boot_guest(programs, **kw):
    """numavm.boot(programs=..., **kw), or the test skipped with the
    reason no guest can run here; the boot time goes to stderr."""
    reason = numavm.unavailable_reason()
    if reason:
        pytest.skip(f"qemu NUMA guest cannot run here: {reason}")
    t0 = time.monotonic()
    vm = numavm.boot(programs=programs, **kw)
    sys.stderr.write(f"\nnumavm: {kw.get('nodes')}-node guest booted in "
                     f"{vm.boot_seconds:.2f} s ({time.monotonic() - t0:.2f}"
                     " s with the distance check)\n")
    return vm


def guest_fixtures(programs):
    """The two guests of the suite as module-scoped fixtures, (vm2, vm4):
    2 nodes with 2 CPUs each (a task's CPUs map to a node through hwloc
    as on a real socket: CPUs 0-1 on node 0, 2-3 on node 1), and 4 nodes
    at the distances of "Dynamic memory placement of applications on a NUMA
    system" (NTUA thesis, 2020); programs() names the programs to put in
    them (called when a guest boots, so that a module without them
    skips)."""
    @pytest.fixture(scope="module")
    def vm2():
        vm = boot_guest(programs(), nodes=2, cpus=4, mem=512)
        yield vm
        vm.shutdown()

    @pytest.fixture(scope="module")
    def vm4():
        vm = boot_guest(programs(), nodes=4, cpus=4, mem=512,
                        distances=numavm.SEED000_DISTANCES)
        yield vm
        vm.shutdown()

    return vm2, vm4
