# SPDX-License-Identifier: GPL-2.0-or-later
"""One code base, several Slurm series (cosched(8), SLURM VERSIONS).

scripts/test builds the plugins for the host's Slurm and for each other
series in a root of scripts/slurm-root, and runs these tests in both
places; COSCHED_OTHER_BUILDDIR names the other build.
"""

import os
import re
import subprocess

import pytest

from cosched_loopback.cluster import ClusterStartError, default_builddir

# What differs between Slurm series: run on every series (scripts/test).
pytestmark = pytest.mark.series


def _running_version():
    out = subprocess.run(["slurmctld", "-V"], capture_output=True,
                         text=True, check=True).stdout
    return re.search(r"(\d+\.\d+\.\d+)", out).group(1)


def _built_series(builddir):
    """The Slurm series a build directory was configured for."""
    with open(os.path.join(builddir, "Makefile")) as f:
        m = re.search(r"^SLURM_SERIES = (\S+)$", f.read(), re.M)
    assert m, f"{builddir}/Makefile names no SLURM_SERIES"
    return m.group(1)


def test_build_targets_the_running_slurm():
    """configure chose the series of the Slurm the daemons here run."""
    running = _running_version()
    assert running.startswith(_built_series(default_builddir()) + ".")


@pytest.mark.cluster
def test_plugins_of_another_series_are_refused_at_start(make_cluster):
    """Plugins built for another Slurm series are refused when slurmctld
    starts, and the daemon stops rather than run without its select plugin
    (or crash).  The message names the versions: Slurm's own check names
    the plugin's version after the line naming the daemon's; a plugin built
    on a newer system is refused one step earlier, by the loader, naming
    the C library version it needs."""
    other = os.environ.get("COSCHED_OTHER_BUILDDIR")
    if not other or not os.path.exists(
            os.path.join(other, "plugins", "select_cons_tres_cosched.so")):
        pytest.skip("no build for another Slurm series here "
                    "(scripts/test sets COSCHED_OTHER_BUILDDIR)")
    running = _running_version()
    assert not running.startswith(_built_series(other) + ".")
    with pytest.raises(ClusterStartError) as e:
        make_cluster(nodes=1, builddir=other)
    log = str(e.value)
    plugin = os.path.join(other, "plugins", "select_cons_tres_cosched.so")
    assert f"slurmctld version {running} started" in log, log
    slurm_check = re.search(r"Incompatible Slurm plugin (\S+) version "
                            r"\((\d+\.\d+\.\d+)\)", log)
    loader = re.search(r"dlopen\((\S+)\): \S+ version `(GLIBC_[\d.]+)' "
                       r"not found", log)
    assert slurm_check or loader, log
    if slurm_check:
        assert slurm_check.group(1) == plugin
        assert slurm_check.group(2).startswith(_built_series(other) + ".")
    else:
        assert loader.group(1) == plugin
    # Up to 24.11 the plugin loader is fatal itself; from 25.05
    # select_g_init() fails and slurmctld says so.
    assert ("fatal: Can't find plugin for select/cons_tres_cosched" in log
            or "fatal: failed to initialize node selection plugin" in log), log
