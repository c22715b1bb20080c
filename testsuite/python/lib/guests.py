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
from cluster import default_builddir  # noqa: E402


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
