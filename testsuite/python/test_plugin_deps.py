# SPDX-License-Identifier: GPL-2.0-or-later
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
  - none carries the profile store, the JSON form or the profile cache;
    the select plugin may carry the gang policies, the socket index and
    the cosched.conf parser (slurmctld runs them there), the task plugin
    the cosched.conf parser (and the policy layer its checks use), the
    SPANK plugin none of them;
  - the task plugin may need libhwloc and libnuma, which the daemons that
    load it (slurmd, slurmstepd) link themselves.
What needs jansson lives in cosched_ctld.so, which only slurmctld loads
(the select plugin dlopen()s it there): it needs jansson, exports nothing
but its table cosched_ctld_api, and leaves no symbol to the process; a
program linking no jansson (helpers/ctld_probe.c, as the select plugin)
loads it and reads a profile's class through it.
"""

import os
import re
import subprocess

import shutil

import pytest

from cosched_loopback.cluster import DEBIAN_PLUGINDIR, default_builddir
from elf import dynamic_defined, needed, unversioned_undefined

# What differs between Slurm series: run on every series (scripts/test).
pytestmark = pytest.mark.series

PLUGINS = ["select_cons_tres_cosched.so", "spank_cosched.so",
           "task_cosched.so", "acct_gather_energy_cosched.so"]
GLIBC = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0",
         "ld-linux-x86-64.so.2"}
# Code that must not travel into any plugin: the store, the JSON form
# (jansson) and the profile cache - cosched_ctld.so's.
STORE_ONLY = re.compile(
    r"\b(json_\w+|cosched_store_\w+|cosched_profile_(to|from)_json|"
    r"cosched_profile_cache_\w+)$")
# Placement: the gang policies, the socket index, Miss-Rate Bound, the
# occupancy and the placement engine.  Only the select plugin runs them
# (in slurmctld); the node's plugins and programs read cosched.conf, whose
# layer sits below the policies (src/libcosched/conf: the parameters'
# bounds such as cosched_mrb_weight_range live there), without them.
PLACEMENT = re.compile(
    r"\b(cosched_gang_\w+|cosched_socket_index_\w+|"
    r"cosched_mrb_(?!\w*_range$)\w+|cosched_occupancy_\w+|"
    r"cosched_place_\w+)$")
# The controller's decisions and configuration: the SPANK plugin, which
# srun loads too, has no use for either.
POLICY = re.compile(
    rf"{PLACEMENT.pattern}|\b(cosched_mrb_\w+|cosched_conf_\w+)$")
NODE_ONLY = re.compile(f"{STORE_ONLY.pattern}|{PLACEMENT.pattern}")
CONTROLLER_ONLY = {"select_cons_tres_cosched.so": STORE_ONLY,
                   "spank_cosched.so": re.compile(
                       f"{STORE_ONLY.pattern}|{POLICY.pattern}"),
                   "task_cosched.so": NODE_ONLY,
                   "acct_gather_energy_cosched.so": NODE_ONLY}
# The node's programs: the sampler writes profiles (the store is its), the
# NUMA manager and its client only read cosched.conf; none places jobs.
NODE_PROGRAMS = {"src/node/cosched-sampler": PLACEMENT,
                 "src/node/cosched-node": NODE_ONLY,
                 "src/numad/cosched-numad": NODE_ONLY,
                 "src/numad/cosched-numa": NODE_ONLY}
# Libraries a plugin may need beyond glibc: only those every daemon that
# loads it already brings (Debian's slurmd links hwloc and libnuma, its
# slurmstepd hwloc; both come in the slurmd package): a host that runs
# the daemon has them.
DAEMON_LIBS = {"task_cosched.so": {"libhwloc.so.15", "libnuma.so.1"}}
CTLD = "cosched_ctld.so"


def _plugin(name):
    path = os.path.join(default_builddir(), "plugins", name)
    if not os.path.exists(path):
        pytest.fail(f"{path} not built (scripts/test builds it)")
    return path


DAEMONS = {"select_cons_tres_cosched.so": ("slurmctld", "slurmd", "srun"),
           "task_cosched.so": ("slurmd", "slurmstepd"),
           "spank_cosched.so": ("srun", "slurmstepd"),
           # slurmctld loads energy plugins too (checking slurm.conf).
           "acct_gather_energy_cosched.so": ("slurmctld", "slurmd",
                                             "slurmstepd")}


def slurm_provides(programs):
    """The dynamic symbols Slurm's library and these programs define."""
    plugindir = DEBIAN_PLUGINDIR
    objects = [os.path.join(plugindir, "libslurmfull.so")]
    for prog in programs:
        path = shutil.which(prog) or os.path.join("/usr/sbin", prog)
        objects.append(os.path.realpath(path))
    names = set()
    for obj in objects:
        names.update(dynamic_defined(obj))
    return names


def defined(path):
    out = subprocess.run(["nm", path], capture_output=True, text=True,
                         check=True).stdout
    return [line.split()[-1] for line in out.splitlines()
            if len(line.split()) == 3]


@pytest.mark.parametrize("name", PLUGINS)
def test_plugin_needs_only_glibc(name):
    path = _plugin(name)
    extra = DAEMON_LIBS.get(name, set())
    assert needed(path) <= GLIBC | extra, needed(path)
    assert "libjansson.so.4" not in needed(path)
    # What it needs beyond glibc, a daemon that loads it links too.
    linked = set()
    for prog in DAEMONS[name]:
        linked |= needed(os.path.realpath(
            shutil.which(prog) or os.path.join("/usr/sbin", prog)))
    assert needed(path) - GLIBC <= linked, (needed(path) - GLIBC, linked)


# Functions of slurmctld's libslurmfull the controller calls, only in
# slurmctld: functions bind lazily (Slurm's loader uses RTLD_LAZY), so
# a client that lacks them still loads the plugin.  Never data: a variable
# must resolve at load time (the controller looks slurmctld's up with
# dlsym()).
CTLD_FUNCTIONS = {"select_cons_tres_cosched.so": {
    "cr_get_coremap_offset", "find_job_record", "get_job_resources_bit",
    "get_job_resources_offset", "next_node"},
    # libslurmfull's, in slurmd and slurmstepd; and slurmd's and
    # slurmstepd's own configuration, which both define (data: it resolves
    # at load, and only these two daemons load the task plugin).
    "task_cosched.so": {"log_build_step_id_str", "conf"}}


def library_symbols(path):
    """The functions the non-glibc libraries a plugin needs define (hwloc
    has no symbol versions: its names come unversioned)."""
    names = set()
    for lib in needed(path) - GLIBC:
        out = subprocess.run(["bash", "-c", f"nm -D --defined-only "
                              f"$(ldconfig -p | awk '$1 == \"{lib}\" "
                              f"{{print $NF; exit}}')"],
                             capture_output=True, text=True)
        names.update(l.split()[-1].split("@")[0]
                     for l in out.stdout.splitlines() if l.strip())
    return names


@pytest.mark.parametrize("name", PLUGINS)
def test_plugin_leaves_only_slurm_symbols_to_the_host(name):
    path = _plugin(name)
    libs = library_symbols(path)
    foreign = [s for s in unversioned_undefined(path)
               if not s.startswith(("slurm_", "spank_")) and
               s not in CTLD_FUNCTIONS.get(name, ()) and s not in libs]
    assert foreign == [], foreign


def test_select_plugin_leaves_only_functions_to_slurmctld():
    """Every non-slurm_ symbol the select plugin leaves is a function of
    slurmctld's Slurm (nm: 'U' and, in libslurmfull, 'T'), never data."""
    path = _plugin("select_cons_tres_cosched.so")
    left = set(unversioned_undefined(path)) - {
        s for s in unversioned_undefined(path)
        if s.startswith(("slurm_", "spank_"))}
    # 24.11's compatibility file needs no cr_get_coremap_offset: a subset.
    assert left and left <= CTLD_FUNCTIONS["select_cons_tres_cosched.so"], \
        left
    full = os.path.join(DEBIAN_PLUGINDIR, "libslurmfull.so")
    out = subprocess.run(["nm", "-D", "--defined-only", full],
                         capture_output=True, text=True, check=True).stdout
    kinds = {l.split()[-1].split("@")[0]: l.split()[-2]
             for l in out.splitlines() if len(l.split()) == 3}
    slurmctld = os.path.realpath(shutil.which("slurmctld") or
                                 "/usr/sbin/slurmctld")
    out = subprocess.run(["nm", "-D", "--defined-only", slurmctld],
                         capture_output=True, text=True, check=True).stdout
    kinds.update({l.split()[-1].split("@")[0]: l.split()[-2]
                  for l in out.splitlines() if len(l.split()) == 3})
    assert {s: kinds.get(s) for s in left} == {s: "T" for s in left}


@pytest.mark.parametrize("name", PLUGINS)
def test_target_slurm_provides_what_plugin_needs(name):
    path = _plugin(name)
    provided = slurm_provides(DAEMONS[name])
    assert len(provided) > 1000, "nm read too little of Slurm"
    missing = [s for s in unversioned_undefined(path)
               if (s.startswith(("slurm_", "spank_")) or
                   s in CTLD_FUNCTIONS.get(name, ())) and s not in provided]
    assert missing == [], missing


@pytest.mark.parametrize("name", PLUGINS)
def test_plugin_carries_no_controller_code(name):
    path = _plugin(name)
    carried = [s for s in defined(path) if CONTROLLER_ONLY[name].search(s)]
    assert carried == [], carried
    # The check looks at the right thing: the option parser is there.
    assert "cosched_option_set" in defined(path)


@pytest.mark.parametrize("name", sorted(NODE_PROGRAMS))
def test_node_program_carries_no_placement(name):
    path = os.path.join(default_builddir(), name)
    if not os.path.exists(path):
        pytest.fail(f"{path} not built (scripts/test builds it)")
    carried = [s for s in defined(path) if NODE_PROGRAMS[name].search(s)]
    assert carried == [], carried
    # The check looks at the right thing: cosched.conf's reader is there.
    assert "cosched_conf_parse_file_for" in defined(path) or \
        "cosched_conf_parse_file" in defined(path)


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
    assert any(STORE_ONLY.search(s) for s in defined(prog))
    assert any(POLICY.search(s) for s in defined(prog))
    # and the select plugin, which places, carries what PLACEMENT names.
    assert any(PLACEMENT.search(s)
               for s in defined(_plugin("select_cons_tres_cosched.so")))


def test_patterns_tell_store_from_policy():
    """The patterns themselves: the select plugin's allows the policies and
    the configuration, not the store; the SPANK plugin's refuses both."""
    select = CONTROLLER_ONLY["select_cons_tres_cosched.so"]
    spank = CONTROLLER_ONLY["spank_cosched.so"]
    for sym in ("cosched_store_load", "cosched_profile_from_json",
                "json_loads", "cosched_profile_cache_refresh"):
        assert select.search(sym) and spank.search(sym), sym
    for sym in ("cosched_gang_rank", "cosched_socket_index_best",
                "cosched_conf_parse_file", "cosched_mrb_update"):
        assert not select.search(sym) and spank.search(sym), sym
    for sym in ("cosched_option_set", "cosched_classify_effective"):
        assert not select.search(sym) and not spank.search(sym), sym
    # The node's plugins read cosched.conf, bounds included, but place
    # nothing.
    task = CONTROLLER_ONLY["task_cosched.so"]
    for sym in ("cosched_place_job", "cosched_gang_rank",
                "cosched_occupancy_add", "cosched_mrb_update",
                "cosched_store_load"):
        assert task.search(sym), sym
    for sym in ("cosched_conf_parse_file", "cosched_mrb_weight_range",
                "cosched_option_set"):
        assert not task.search(sym), sym


# --- cosched_ctld.so ---------------------------------------------------

def _loader(name):
    return name.startswith("ld-linux")


def test_ctld_needs_jansson_and_glibc_only():
    path = _plugin(CTLD)
    libs = {n for n in needed(path) if not _loader(n)}
    assert "libjansson.so.4" in libs, libs
    assert libs - GLIBC == {"libjansson.so.4"}, libs


def test_ctld_exports_only_its_table():
    path = _plugin(CTLD)
    out = subprocess.run(["nm", "-D", "--defined-only", path],
                         capture_output=True, text=True, check=True).stdout
    exported = [line.split()[-1] for line in out.splitlines()
                if line.strip()]
    assert exported == ["cosched_ctld_api"], exported
    kind = [line.split()[-2] for line in out.splitlines() if line.strip()]
    assert kind in (["D"], ["R"]), kind    # data, not a function


def test_ctld_leaves_nothing_to_slurmctld():
    """Every symbol it needs comes from a library it names (a versioned
    glibc or jansson symbol): nothing resolves by chance from slurmctld or
    from the select plugin's copy of the core."""
    path = _plugin(CTLD)
    assert unversioned_undefined(path) == []


def test_ctld_carries_the_store_and_the_select_plugin_does_not():
    ctld = defined(_plugin(CTLD))
    for sym in ("cosched_profile_cache_refresh", "cosched_profile_from_json",
                "cosched_ctld_api"):
        assert sym in ctld, sym
    select = defined(_plugin("select_cons_tres_cosched.so"))
    assert not any(STORE_ONLY.search(s) for s in select)


def _profile(app, ipc, mpki, bw_fraction, threads=4):
    """A profile in the store's JSON form (cosched.conf(5) PROFILES,
    src/libcosched/store/profile_json.h): one run merged."""
    cycles = 2.2e9 * 10 * threads
    instructions = cycles * ipc
    misses = instructions * mpki / 1000
    return {
        "schema_version": 1,
        "app": app,
        "runs_merged": 1,
        "derived": {
            "ipc": ipc, "mpki": mpki,
            "llc_miss_bw": misses * 64 / 10,
            "mem_traffic_bw": None, "llc_to_core_bw": None,
            "llc_miss_bw_per_thread": misses * 64 / 10 / threads,
            "mem_traffic_bw_per_thread": None,
            "llc_to_core_bw_per_thread": None,
            "mem_uops_fraction": None,
            "bw_fraction": bw_fraction,
            "threads": float(threads),
            "power_w": None,
        },
        "edp": [{"threads": threads, "freq_khz": 2200000, "time_s": 10.0,
                 "energy_j": None, "samples": 1}],
        "runs": [{"instructions": instructions, "cycles": cycles,
                  "llc_misses": misses, "runtime_s": 10.0,
                  "threads": threads, "freq_khz": 2200000}],
    }


def test_ctld_loaded_by_a_program_without_jansson(tmp_path):
    """helpers/ctld-probe parses no JSON itself and links no jansson; it
    dlopen()s cosched_ctld.so (RTLD_NOW: every symbol resolves), refreshes
    a cache over a store with a streaming profile, a compute-bound one and
    a corrupt one, and reads each class back."""
    import json
    probe = os.path.join(default_builddir(), "testsuite", "python",
                         "helpers", "ctld-probe")
    if not os.path.exists(probe):
        pytest.fail(f"{probe} not built (scripts/build builds it)")
    assert "libjansson.so.4" not in needed(probe)
    store = tmp_path / "profiles"
    store.mkdir()
    (store / "stream.json").write_text(
        json.dumps(_profile("stream", 0.5, 5.02, 0.8), indent=1))
    (store / "ep.A.json").write_text(
        json.dumps(_profile("ep.A", 2.0, 0.01, 0.001)))
    (store / "broken.json").write_text('{"schema_version": 1, "app": ')
    out = subprocess.run([probe, _plugin(CTLD), str(store), "stream",
                          "ep.A", "broken", "absent"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("refresh 2 nbad 1 "), lines
    assert "broken.json" in lines[0], lines
    stream = lines[1].split()
    assert stream[:2] == ["stream", "mem"], lines
    assert stream[3] == "profile" and float(stream[4]) == 5.02, lines
    assert stream[5] == "1", lines
    assert lines[2].split()[:2] == ["ep.A", "cpu"], lines
    assert lines[2].split()[3] == "profile", lines
    assert lines[3] == "broken absent", lines
    assert lines[4] == "absent absent", lines
