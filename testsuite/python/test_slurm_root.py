# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/slurm-root leaves nothing behind (cosched-slurm-root(1)).

Whatever ends a `scripts/slurm-root run` (the command returning, SIGTERM,
SIGKILL), no process started inside the root survives it, and the mounts
it makes (proc, dev, sys, run, tmp, the project tree) are never seen by the
host: they live in a mount namespace of the command's own.
"""

import os
import signal
import subprocess
import time

import pytest

SCRIPT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..",
                                       "scripts", "slurm-root"))


def _root():
    if os.environ.get("COSCHED_SLURM_ROOT"):
        pytest.skip("runs on the host, not inside a root")
    if os.geteuid() != 0:
        pytest.skip("scripts/slurm-root needs root")
    root = subprocess.run([SCRIPT, "path"], capture_output=True, text=True,
                          check=True).stdout.strip()
    if not os.path.exists(os.path.join(root, ".bootstrapped")):
        pytest.skip(f"no root in {root} (scripts/test sets one up)")
    return os.path.realpath(root)


def _inside(root):
    """Processes whose root directory is the root."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{pid}/root") == root:
                pids.append(int(pid))
        except OSError:
            continue
    return pids


def _host_mounts_under(root):
    with open("/proc/self/mounts") as f:
        return [line.split()[1] for line in f
                if line.split()[1].startswith(root + "/")]


def _wait(cond, what, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.parametrize("how", ["returns", "SIGTERM", "SIGKILL"])
def test_run_leaves_no_process_and_no_mount(how):
    root = _root()
    assert _inside(root) == [], "a process was left inside before the test"
    # A command that leaves two processes behind when it returns.
    cmd = ("sleep 600 & sleep 600 & exit 0" if how == "returns"
           else "sleep 600 & sleep 600")
    p = subprocess.Popen([SCRIPT, "run", "/bin/sh", "-c", cmd],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        if how != "returns":
            _wait(lambda: len(_inside(root)) >= 3, "the command to start")
            assert _host_mounts_under(root) == []
            p.send_signal(getattr(signal, how))
        p.wait(30)
        _wait(lambda: _inside(root) == [], "every process inside to end")
        assert _host_mounts_under(root) == []
        if how == "returns":
            assert p.returncode == 0, p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()


def _setup_refused(tmp_path, tarball, series):
    """scripts/slurm-root --slurm series --source tarball setup, in a cache
    of the test's own: it must fail before creating anything there."""
    if os.environ.get("COSCHED_SLURM_ROOT"):
        pytest.skip("runs on the host, not inside a root")
    if os.geteuid() != 0:
        pytest.skip("scripts/slurm-root needs root")
    cache = tmp_path / "cache"
    env = dict(os.environ, COSCHED_ROOT_CACHE=str(cache))
    p = subprocess.run([SCRIPT, "--slurm", series, "--source", str(tarball),
                        "setup"], capture_output=True, text=True, env=env,
                       timeout=60)
    assert p.returncode != 0, p.stdout
    assert not cache.exists(), "a refused tarball created a root"
    return p.stderr


def test_setup_refuses_a_tarball_that_is_not_upstreams(tmp_path):
    # Named as upstream's 26.05.3 tarball, but other bytes.
    fake = tmp_path / "slurm-26.05.3.tar.gz"
    fake.write_bytes(b"not Slurm")
    err = _setup_refused(tmp_path, fake, "26.05")
    assert "has sha256" in err and "upstream's is a14044d1" in err, err


def test_setup_refuses_a_tarball_of_another_series(tmp_path):
    # A Slurm tree whose META says 25.11.7, given for 26.05.
    tree = tmp_path / "slurm-25.11.7"
    tree.mkdir()
    (tree / "META").write_text("  Major:\t25\n  Minor:\t11\n  Micro:\t7\n")
    tarball = tmp_path / "my-slurm.tar.gz"
    subprocess.run(["tar", "-C", str(tmp_path), "-czf", str(tarball),
                    "slurm-25.11.7"], check=True)
    err = _setup_refused(tmp_path, tarball, "26.05")
    assert "is Slurm 25.11.7, not 26.05" in err, err
