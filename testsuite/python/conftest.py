# SPDX-License-Identifier: GPL-2.0-or-later
"""pytest fixtures for cosched's cluster tests (real Slurm daemons)."""

import collections
import os
import shutil
import signal
import sys

import pytest

# The loopback cluster is a component of its own (contribs/loopback), which
# the demo and the benchmarks use too; lib/ holds what only the tests use.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "contribs", "loopback"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))

from cosched_loopback.cluster import Cluster, default_builddir  # noqa: E402


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "cluster: starts real Slurm daemons on loopback")
    # The test command's matrix (scripts/test) selects by these two:
    # every "slurm" test runs on the newest series and on Debian 13's,
    # the "series" ones (what differs between series) on every series,
    # and the rest once.
    config.addinivalue_line(
        "markers", "slurm: needs the Slurm series under test (its daemons,"
        " headers or plugins); every cluster test is one")
    config.addinivalue_line(
        "markers", "series: checks what differs between Slurm series"
        " (plugin load, placement and records, node enforcement, energy"
        " in sacct, restart, status): run on every series")
    # SIGTERM/SIGHUP (CI timeout, closed terminal) unwind like Ctrl-C, so
    # fixtures stop their daemons; the daemons also get SIGTERM if this
    # process dies without unwinding (PR_SET_PDEATHSIG, cosched_loopback/cluster.py).
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)


_CLUSTER_FIXTURES = {"cluster", "make_cluster"}


def pytest_collection_modifyitems(config, items):
    # A test that starts a cluster needs Slurm, whether or not its author
    # remembered the marker: the matrix must not run it on no series.
    for item in items:
        if (item.get_closest_marker("cluster") or item.get_closest_marker("series")
                or _CLUSTER_FIXTURES & set(getattr(item, "fixturenames", ()))):
            item.add_marker(pytest.mark.slurm)


# Seconds per test file (setup, call and teardown), printed at the end: the
# test command's budget is spent per file, and that is where it is cut.
_file_seconds = collections.defaultdict(float)


def pytest_runtest_logreport(report):
    _file_seconds[report.nodeid.split("::")[0]] += report.duration


def pytest_terminal_summary(terminalreporter):
    if not _file_seconds:
        return
    terminalreporter.write_sep("-", "seconds per test file")
    for name, secs in sorted(_file_seconds.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"{secs:7.1f} {name}")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


def require_environment():
    if os.geteuid() != 0:
        pytest.skip("cluster tests start slurmd, which must run as root")
    missing = [d for d in ("slurmctld", "slurmd", "munged", "sbatch")
               if shutil.which(d) is None]
    if missing:
        pytest.fail("missing Slurm programs: " + ", ".join(missing) +
                    " (run scripts/install-deps)")
    plugins = os.path.join(default_builddir(), "plugins")
    if not os.path.exists(os.path.join(plugins,
                                       "select_cons_tres_cosched.so")):
        pytest.fail(f"no built plugins in {plugins}: build first "
                    "(scripts/test does)")


@pytest.fixture
def make_cluster(request):
    """Factory: make_cluster(**Cluster kwargs) -> started Cluster.

    Every cluster made is stopped at teardown; when the test failed, the
    daemons' logs are printed first.
    """
    require_environment()
    made = []

    def factory(**kw):
        c = Cluster(**kw)
        made.append(c)
        return c.start()

    yield factory
    rep = getattr(request.node, "rep_call", None)
    failed = rep is None or rep.failed
    for c in made:
        try:
            if failed:
                sys.stderr.write(f"\n--- logs of cluster in {c.workdir} ---\n")
                sys.stderr.write(c.logs())
        finally:
            c.stop()
            if not failed:
                shutil.rmtree(c.workdir, ignore_errors=True)


@pytest.fixture
def cluster(make_cluster):
    """The default cluster: 4 nodes of 2 sockets x 4 cores."""
    return make_cluster()
