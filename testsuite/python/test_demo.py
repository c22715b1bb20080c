"""The demo's --keep: the cluster outlives the demo and stays usable until
the command the demo prints stops it, leaving no process behind
(cosched-demo(1))."""

import os
import re
import subprocess
import sys

import pytest

from cluster import Cluster, cluster_processes, default_builddir, stop_kept
from conftest import require_environment

DEMO = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..",
                                     "contribs", "demo", "cosched-demo"))


@pytest.mark.cluster
def test_demo_keep_leaves_usable_cluster_until_stop():
    require_environment()
    r = subprocess.run([sys.executable, DEMO, "--keep", "--jobs", "1",
                        "--builddir", default_builddir()],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"export SLURM_CONF=(\S+)", r.stdout)
    assert m, r.stdout
    workdir = os.path.dirname(m.group(1))
    stopped = False
    try:
        # The demo has exited: its cluster answers and runs a new job...
        c = Cluster(workdir=workdir)
        jobid = c.sbatch("--wrap=echo kept-cluster-runs")
        c.wait_state(jobid, "COMPLETED")
        assert "kept-cluster-runs" in c.job_output(jobid)
        # ...next to the demo's own job, still running under its slurmd.
        assert c.job(1)["JobState"] == "RUNNING"
        assert any(p["comm"] == "slurmstepd" for p in cluster_processes(workdir))
        # The printed command stops everything.
        m = re.search(r"stop it with: (.+)", r.stdout)
        assert m, r.stdout
        s = subprocess.run(m.group(1), shell=True, capture_output=True,
                           text=True, timeout=120)
        stopped = True
        assert s.returncode == 0, s.stdout + s.stderr
        assert "had to be killed" not in s.stdout + s.stderr, s.stdout + s.stderr
        assert cluster_processes(workdir) == []
        assert not os.path.exists(workdir)
    finally:
        if not stopped and os.path.isdir(workdir):
            stop_kept(workdir)


def test_relative_builddir_gives_absolute_plugin_dir(tmp_path, monkeypatch):
    """cosched-demo --builddir build: slurm.conf's PluginDir and the
    plugstack path are absolute, as the daemons and the jobs' srun read them
    from other directories (a relative one failed every srun in the jobs:
    "PluginDir: build/plugins: No such file or directory")."""
    monkeypatch.chdir(os.path.dirname(default_builddir()))
    rel = os.path.basename(default_builddir())
    c = Cluster(builddir=rel, workdir=str(tmp_path / "c"))
    c._write_configs()
    conf = open(c.conf).read()
    plugin_dir = re.search(r"(?m)^PluginDir=(\S+)$", conf).group(1)
    assert all(os.path.isabs(d) for d in plugin_dir.split(":")), plugin_dir
    plugstack = open(os.path.join(c.workdir, "plugstack.conf")).read()
    assert plugstack.split()[1].startswith("/"), plugstack
