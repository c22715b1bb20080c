# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-sampler loads PAPI only when SampleBackend asks for it.

Linked in, libpapi and libpfm cost every step's sampler about 1.6 ms of
CPU at exec (doc/bench-profiler.md), although the default backend, perf,
never calls them.  The PAPI backend is a module, cosched_counters_papi.so,
beside the sampler (src/node/node.am, src/node/counters_module.c):
  - the sampler needs no libpapi, and a step counted with perf never maps
    it;
  - the module needs libpapi, exports one function and leaves no symbol
    for the sampler to provide;
  - SampleBackend=papi and auto load it (auto then says why PAPI was
    passed over, here a machine without a PMU, or counts with it);
  - a sampler whose module cannot be loaded still starts, and its record
    says why: papi counts nothing, auto counts with perf.
The sampler runs here as task/cosched starts it (a SOCK_SEQPACKET pair on
fd 3), on a real task, outside any cluster.
"""
import json
import os
import re
import shutil
import socket
import subprocess

import pytest

from cosched_loopback.cluster import default_builddir
from elf import dynamic_defined, needed, unversioned_undefined

MODULE = "cosched_counters_papi.so"


def _sampler():
    path = os.path.join(default_builddir(), "src", "node", "cosched-sampler")
    if not os.path.exists(path):
        pytest.fail(f"{path} not built (scripts/test builds it)")
    return path


def _module():
    path = os.path.join(default_builddir(), "src", "node", MODULE)
    if not os.path.exists(path):
        pytest.skip("cosched built without PAPI: no module")
    return path


def _step(sampler, backend, out, events="task-clock,PAPI_TOT_INS"):
    """One step: the sampler attached to a task that runs 0.3 s of CPU;
    returns (its record, the libraries it had mapped while counting)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    fd = theirs.fileno()
    if fd == 3:          # dup2 onto itself would keep CLOEXEC
        fd = os.dup(fd)
    task = subprocess.Popen(["python3", "-c",
                             "import time\nt = time.process_time()\n"
                             "while time.process_time() - t < 0.3: pass"])
    pid = os.posix_spawn(sampler, [
        sampler, "--job", "1", "--step", "0", "--interval", "1",
        "--events", events, "--backend", backend, "--out", out],
        os.environ, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDWR, 0),
            (os.POSIX_SPAWN_DUP2, fd, 3)])
    if fd != theirs.fileno():
        os.close(fd)
    theirs.close()
    try:
        ours.settimeout(30)
        ours.send(f"attach {task.pid}".encode())
        ours.recv(512)
        with open(f"/proc/{pid}/maps") as f:
            maps = {os.path.basename(line.split()[-1])
                    for line in f if "/" in line}
        task.wait(timeout=30)
        ours.send(f"exit {task.pid} 0".encode())
        ours.send(b"end")
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    finally:
        ours.close()
        if task.poll() is None:
            task.kill()
    with open(out) as f:
        return json.load(f), maps


def _libpapi(maps):
    return {m for m in maps if m.startswith(("libpapi", "libpfm"))}


def test_sampler_needs_no_libpapi():
    libs = needed(_sampler())
    assert not _libpapi(libs), libs


def test_module_exports_one_function_and_needs_libpapi():
    path = _module()
    assert any(n.startswith("libpapi.so") for n in needed(path))
    assert dynamic_defined(path) == ["cosched_counters_papi_module"], \
        dynamic_defined(path)
    # Every symbol it leaves undefined is libpapi's (PAPI_*, unversioned)
    # or a versioned one of glibc: none for the sampler to provide.
    left = unversioned_undefined(path)
    assert left and all(s.startswith("PAPI_") for s in left), left


def test_perf_never_maps_libpapi(tmp_path):
    _module()
    rec, maps = _step(_sampler(), "perf", str(tmp_path / "perf.json"))
    assert rec["backend"] == "perf", rec
    assert not _libpapi(maps), sorted(maps)
    assert MODULE not in maps, sorted(maps)
    assert rec["events"]["task-clock"] > 0.2e9, rec


def test_auto_and_papi_load_the_module(tmp_path):
    _module()
    rec, maps = _step(_sampler(), "auto", str(tmp_path / "auto.json"))
    assert MODULE in maps and _libpapi(maps), sorted(maps)
    if rec["backend"] != "papi":
        # No PMU here (most VMs): PAPI itself says why, not the loader.
        assert re.match(r"perf \(auto: PAPI( cannot attach to a task here|"
                        r"'s perf_event component is disabled): \S",
                        rec["backend"]), rec
        assert rec["events"]["task-clock"] > 0.2e9, rec
    rec, maps = _step(_sampler(), "papi", str(tmp_path / "papi.json"))
    assert MODULE in maps, sorted(maps)
    assert rec["backend"] == "papi", rec


def test_a_module_that_cannot_load_is_a_reason(tmp_path):
    """The sampler copied where no module is: it starts, and says why."""
    _module()
    alone = tmp_path / "bin"
    alone.mkdir()
    sampler = str(alone / "cosched-sampler")
    shutil.copy2(_sampler(), sampler)
    rec, maps = _step(sampler, "papi", str(tmp_path / "papi.json"))
    want = (f"PAPI's module not loaded: {alone}/{MODULE}: cannot open "
            "shared object file: No such file or directory")
    assert rec["backend"] == f"papi ({want})", rec
    assert not rec["events"], rec
    assert not _libpapi(maps), sorted(maps)
    rec, _ = _step(sampler, "auto", str(tmp_path / "auto.json"))
    assert rec["backend"] == f"perf (auto: {want})", rec
    assert rec["events"]["task-clock"] > 0.2e9, rec
    # A file that is not the module: refused, said, nothing counted.
    with open(alone / MODULE, "w") as f:
        f.write("not a shared object\n")
    rec, _ = _step(sampler, "papi", str(tmp_path / "bad.json"))
    assert rec["backend"].startswith(
        f"papi (PAPI's module not loaded: {alone}/{MODULE}: "), rec
    assert not rec["events"], rec
