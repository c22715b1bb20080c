"""Plugins link what they use, and nothing a host may lack.

Every client command (sbatch, squeue, ...) loads the select plugin, and
plugstack.conf loads the SPANK plugin "required" in sbatch, salloc, srun and
every slurmstepd: on a login or compute image without libjansson (Debian's
slurm-client does not depend on it) a plugin needing it would break every
command and every step.  So, read from the built files:
  - each plugin needs no shared library beyond glibc's (libc, libm, libdl,
    libpthread);
  - every symbol it leaves undefined without a version is one Slurm's
    processes provide (slurm_*, spank_*): a math function left to whatever
    the host process happens to have loaded would fail in a process that
    has not; and the target Slurm does provide it (libslurmfull or the
    daemon that loads the plugin: a name that exists in one Slurm series
    and not in another, like slurm_strlcpy, fails only when first called);
  - none carries the profile store, the JSON form or the gang policies.
"""

import os
import re
import subprocess

import shutil

import pytest

from cluster import DEBIAN_PLUGINDIR, default_builddir

PLUGINS = ["select_cons_tres_cosched.so", "spank_cosched.so",
           "task_cosched.so"]
GLIBC = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0"}
# Code that must not travel into a plugin: the store and the JSON form
# (jansson), the gang policies (slurmctld-side only, not yet linked).
CONTROLLER_ONLY = re.compile(
    r"\b(json_\w+|cosched_store_\w+|cosched_profile_(to|from)_json|"
    r"cosched_gang_plan|cosched_gang_rank|cosched_socket_index_\w+|"
    r"cosched_mrb_\w+|cosched_conf_\w+)$")


def _plugin(name):
    path = os.path.join(default_builddir(), "plugins", name)
    if not os.path.exists(path):
        pytest.fail(f"{path} not built (scripts/test builds it)")
    return path


def needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True,
                         text=True, check=True).stdout
    return set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))


def unversioned_undefined(path):
    out = subprocess.run(["nm", "-u", path], capture_output=True, text=True,
                         check=True).stdout
    syms = []
    for line in out.splitlines():
        kind, name = line.split()[-2:]
        if kind == "U" and "@" not in name:
            syms.append(name)
    return syms


DAEMONS = {"select_cons_tres_cosched.so": ("slurmctld", "slurmd", "srun"),
           "task_cosched.so": ("slurmd", "slurmstepd"),
           "spank_cosched.so": ("srun", "slurmstepd")}


def slurm_provides(programs):
    """The dynamic symbols Slurm's library and these programs define."""
    plugindir = DEBIAN_PLUGINDIR
    objects = [os.path.join(plugindir, "libslurmfull.so")]
    for prog in programs:
        path = shutil.which(prog) or os.path.join("/usr/sbin", prog)
        objects.append(os.path.realpath(path))
    names = set()
    for obj in objects:
        out = subprocess.run(["nm", "-D", "--defined-only", obj],
                             capture_output=True, text=True, check=True)
        names.update(line.split()[-1].split("@")[0]
                     for line in out.stdout.splitlines() if line.strip())
    return names


def defined(path):
    out = subprocess.run(["nm", path], capture_output=True, text=True,
                         check=True).stdout
    return [line.split()[-1] for line in out.splitlines()
            if len(line.split()) == 3]


@pytest.mark.parametrize("name", PLUGINS)
def test_plugin_needs_only_glibc(name):
    path = _plugin(name)
    assert needed(path) <= GLIBC, needed(path)
    assert "libjansson.so.4" not in needed(path)


@pytest.mark.parametrize("name", PLUGINS)
def test_plugin_leaves_only_slurm_symbols_to_the_host(name):
    path = _plugin(name)
    foreign = [s for s in unversioned_undefined(path)
               if not s.startswith(("slurm_", "spank_"))]
    assert foreign == [], foreign


@pytest.mark.parametrize("name", PLUGINS)
def test_target_slurm_provides_what_plugin_needs(name):
    path = _plugin(name)
    provided = slurm_provides(DAEMONS[name])
    assert len(provided) > 1000, "nm read too little of Slurm"
    missing = [s for s in unversioned_undefined(path)
               if s.startswith(("slurm_", "spank_")) and s not in provided]
    assert missing == [], missing


@pytest.mark.parametrize("name", PLUGINS)
def test_plugin_carries_no_controller_code(name):
    path = _plugin(name)
    carried = [s for s in defined(path) if CONTROLLER_ONLY.search(s)]
    assert carried == [], carried
    # The check looks at the right thing: the option parser is there.
    assert "cosched_option_set" in defined(path)


def test_checks_see_a_library_that_needs_jansson():
    """The same readings on the unit test program that links the whole
    core find jansson and the controller code, so the checks above can
    fail."""
    prog = os.path.join(default_builddir(), "testsuite", "unit",
                        "test_store")
    if not os.path.exists(prog):
        pytest.skip("unit test programs not built here (make check builds "
                    "them; scripts/test builds them on the host only)")
    assert "libjansson.so.4" in needed(prog)
    assert any(CONTROLLER_ONLY.search(s) for s in defined(prog))
