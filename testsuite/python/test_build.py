# SPDX-License-Identifier: GPL-2.0-or-later
"""The build: configure's checks and make install's atomic rename."""

import os
import re
import shutil
import subprocess

import pytest

from cosched_loopback.cluster import default_builddir

# What differs between Slurm series: run on every series (scripts/test).
pytestmark = pytest.mark.series

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
CONFIGURE = os.path.join(TOP, "configure")


def _configure(builddir, *args, env=None, quiet=True):
    os.makedirs(builddir, exist_ok=True)
    return subprocess.run([CONFIGURE] + (["-q"] if quiet else []) +
                          list(args), cwd=builddir,
                          capture_output=True, text=True, timeout=300,
                          env=env)


@pytest.fixture(scope="module")
def slurm_version():
    with open("/usr/include/slurm/slurm_version.h") as f:
        for line in f:
            if line.startswith("#define SLURM_VERSION_NUMBER"):
                n = int(line.split()[-1], 16)
                return f"{n >> 16}.{(n >> 8) & 255:02d}.{n & 255}"
    pytest.fail("no SLURM_VERSION_NUMBER in slurm_version.h")


def test_configure_refuses_missing_slurm_source(tmp_path):
    r = _configure(tmp_path / "b", "--with-slurm-source=/nonexistent/slurm")
    assert r.returncode != 0
    assert ("no Slurm source in /nonexistent/slurm: run scripts/install-deps"
            in r.stderr), r.stderr


def test_configure_refuses_other_slurm_version(tmp_path, slurm_version):
    fake = tmp_path / "slurm-22.05.7"
    (fake / "src" / "common").mkdir(parents=True)
    (fake / "src" / "common" / "xmalloc.h").write_text("")
    (fake / "META").write_text(
        "  Meta:\t\t1\n  Name:\t\tslurm\n  Major:\t\t22\n  Minor:\t\t05\n"
        "  Micro:\t\t7\n  Version:\t22.05.7\n")
    r = _configure(tmp_path / "b", f"--with-slurm-source={fake}")
    assert r.returncode != 0
    assert (f"is 22.05.7 but the target Slurm is {slurm_version}: "
            "select and task plugins must match exactly") in r.stderr, r.stderr


def test_configure_names_missing_package(tmp_path):
    # Hide every pkg-config file: the first library checked is missing.
    env = dict(os.environ, PKG_CONFIG_LIBDIR=str(tmp_path / "nopc"),
               PKG_CONFIG_PATH="")
    r = _configure(tmp_path / "b", env=env)
    assert r.returncode != 0
    assert ("jansson not found: install the Debian package libjansson-dev"
            in r.stderr), r.stderr


def _fake_prefix(tmp_path, version_number=None):
    """A Slurm installation prefix made of the system's headers (with
    another version number when given) and a plugin directory."""
    prefix = tmp_path / "opt-slurm"
    shutil.copytree("/usr/include/slurm", prefix / "include" / "slurm")
    if version_number is not None:
        h = prefix / "include" / "slurm" / "slurm_version.h"
        h.write_text(re.sub(r"(?m)^#define SLURM_VERSION_NUMBER .*$",
                            f"#define SLURM_VERSION_NUMBER {version_number:#x}",
                            h.read_text()))
    (prefix / "lib" / "slurm").mkdir(parents=True)
    (prefix / "lib" / "slurm" / "select_cons_tres.so").write_bytes(b"")
    return prefix


def _host_slurm_source():
    with open(os.path.join(default_builddir(), "Makefile")) as f:
        return re.search(r"^SLURM_SOURCE = (\S+)$", f.read(), re.M).group(1)


def test_configure_for_another_slurm_prefix(tmp_path, slurm_version):
    """--with-slurm=PREFIX (an upstream build in /opt/slurm, say): headers
    from there, plugins installed there, the source given explicitly; a
    series without a compatibility file is refused naming those there
    are."""
    prefix = _fake_prefix(tmp_path)
    r = _configure(tmp_path / "b1", f"--with-slurm={prefix}")
    assert r.returncode != 0
    assert "--with-slurm=PREFIX needs --with-slurm-source=DIR" in r.stderr
    r = _configure(tmp_path / "b2", f"--with-slurm={prefix}",
                   f"--with-slurm-source={_host_slurm_source()}",
                   "--without-check", quiet=False)
    assert r.returncode == 0, r.stderr
    assert f"checking plugin directory... {prefix}/lib/slurm" in r.stdout
    assert f"target Slurm version... {slurm_version}" in r.stdout
    other = _fake_prefix(tmp_path / "o", (23 << 16) | (2 << 8) | 7)
    r = _configure(tmp_path / "b3", f"--with-slurm={other}",
                   f"--with-slurm-source={_host_slurm_source()}")
    assert r.returncode != 0
    assert ("Slurm 23.02 is not supported (supported: 22.05, 24.11, "
            "25.11, 26.05); doc/porting-slurm.md says what a port needs"
            ) in r.stderr


def _only_jansson_pc(tmp_path):
    """A pkg-config directory where only jansson can be found."""
    pc = tmp_path / "pc"
    pc.mkdir()
    found = subprocess.run(["pkg-config", "--variable=pcfiledir", "jansson"],
                           capture_output=True, text=True, check=True)
    (pc / "jansson.pc").write_text(
        open(os.path.join(found.stdout.strip(), "jansson.pc")).read())
    return dict(os.environ, PKG_CONFIG_LIBDIR=str(pc), PKG_CONFIG_PATH="")


def test_configure_optional_libraries(tmp_path):
    """Check and hwloc are optional, as Slurm's optional libraries are:
    missing, they are left out and the summary says so; --with-X insists
    and names the Debian package; --without-X leaves a present one out."""
    env = _only_jansson_pc(tmp_path)
    r = _configure(tmp_path / "b1", "--without-papi", env=env, quiet=False)
    assert r.returncode == 0, r.stderr
    summary = r.stdout[r.stdout.index("Plugins (installed into"):]
    assert re.search(r"Unit tests \(Check\)\s+no: make check runs only",
                     summary), summary
    assert re.search(r"hwloc \(node topology\)\s+no", summary), summary
    # The node side needs hwloc: a controller-only build, and it says so.
    assert re.search(r"task/cosched\s+NOT BUILT: needs hwloc and libnuma",
                     summary), summary
    assert re.search(r"PAPI \(profiler\)\s+no", summary), summary
    assert re.search(r"libnuma \(memory binding\)\s+yes", summary), summary
    r = _configure(tmp_path / "b2", "--with-check", env=env)
    assert r.returncode != 0
    assert ("--with-check given but check was not found: install the "
            "Debian package check") in r.stderr, r.stderr


# What make install puts into the plugin directory: the plugins and
# cosched_ctld.so, which the select plugin loads in slurmctld.
PLUGINS = ("select_cons_tres_cosched.so", "task_cosched.so",
           "spank_cosched.so", "acct_gather_energy_cosched.so",
           "cosched_ctld.so")


def test_make_install_renames_into_place(tmp_path):
    builddir = default_builddir()
    dest = tmp_path / "plugins"
    bindir = tmp_path / "bin"
    sbindir = tmp_path / "sbin"
    libexecdir = tmp_path / "libexec"

    def install():
        # bindir, sbindir and libexecdir too: install-exec installs the
        # commands, the sampler and the representative programs, which
        # must not land in the host's /usr/local.
        subprocess.run(["make", "-s", "install-exec", f"plugindir={dest}",
                        f"bindir={bindir}", f"sbindir={sbindir}",
                        f"libexecdir={libexecdir}"],
                       cwd=builddir, check=True, capture_output=True,
                       timeout=300)

    install()
    for p in PLUGINS:
        with open(os.path.join(builddir, "plugins", p), "rb") as built:
            assert (dest / p).read_bytes() == built.read()
    assert sorted(os.listdir(dest)) == sorted(PLUGINS)  # no temporaries
    assert sorted(os.listdir(bindir)) == ["cosched-model-check",
                                          "cosched-numa", "cosched-report",
                                          "cosched-status"]
    assert sorted(os.listdir(sbindir)) == [
        "cosched-calibrate", "cosched-characterise", "cosched-node",
        "cosched-numad"]
    assert "cosched-sampler" in os.listdir(libexecdir / "cosched")
    # PAPI's backend beside it, where the sampler loads it from, and no
    # libtool archive (test_sampler_papi_module.py).
    if os.path.exists(os.path.join(builddir, "src", "node",
                                   "cosched_counters_papi.so")):
        assert "cosched_counters_papi.so" in os.listdir(libexecdir / "cosched")
    assert not [f for f in os.listdir(libexecdir / "cosched")
                if f.endswith(".la")]
    r = subprocess.run([str(bindir / "cosched-status"), "--version"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and "cosched-status" in r.stdout, r
    # The report tool runs where it is installed (its own interpreter
    # line, nothing of the source tree).
    r = subprocess.run([str(bindir / "cosched-model-check"), "--help"],
                       capture_output=True, text=True, timeout=30,
                       cwd=tmp_path)
    assert r.returncode == 0 and "PROFILEDIR" in r.stdout, r
    # ... and judges records with the cosched-status installed beside it.
    (tmp_path / "store" / "jobs").mkdir(parents=True)
    r = subprocess.run([str(bindir / "cosched-model-check"),
                        str(tmp_path / "store")], capture_output=True,
                       text=True, timeout=30, cwd=tmp_path,
                       env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 0 and "0 step records" in r.stdout, r
    # cosched-report finds its modules where install put them
    # (pkglibexecdir), nothing of the source tree.
    r = subprocess.run([str(bindir / "cosched-report"), "--help"],
                       capture_output=True, text=True, timeout=30,
                       cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 0 and "--starttime" in r.stdout, r
    assert sorted(os.listdir(libexecdir / "cosched" / "cosched_report")) == [
        "__init__.py", "accounting.py", "cli.py", "energy.py", "output.py",
        "plot.py", "record.py"]

    # A daemon holding the old file keeps it: install replaces the name,
    # never the bytes of the file already open.
    held = open(dest / PLUGINS[0], "rb")
    old_ino = os.fstat(held.fileno()).st_ino
    old_bytes = held.read()
    install()
    assert os.stat(dest / PLUGINS[0]).st_ino != old_ino
    held.seek(0)
    assert held.read() == old_bytes
    held.close()
    assert sorted(os.listdir(dest)) == sorted(PLUGINS)


POLICIES = ("gang", "greedy_thread", "miss_rate_balance", "miss_rate_bound",
            "app_aware")
ROW = re.compile(r"^(\w+)\s+(batch|incremental|saturated|rank\(64\)|round)"
                 r"\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+(.*)$")


def _counts(text):
    """"200 placed 3 rej" -> {"placed": 200, "rej": 3}; "12 gangs, rr 1"
    -> {"gangs": 12, "rr": 1}."""
    return {k: int(v) for v, k in re.findall(r"(\d+) (\w+)", text)}


def test_policy_benchmark_results_add_up():
    """The benchmark's results, read and checked here (not its own "all
    results checked" line): at N and 2N jobs every incremental placement
    succeeds, a saturated run (4N and 8N jobs) places or rejects every job
    and places some, a ranked run accounts for every job, a batch plan has
    between one gang and one gang per job, every policy has every form.
    Placement validity itself (each job once, no socket over capacity) is
    the unit tests' (test_gang.c: batch plans of all policies, the index
    against the ranking)."""
    bench = os.path.join(default_builddir(), "research", "bench",
                         "cosched-bench-policies")
    n = 200
    r = subprocess.run([bench, str(n)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {}
    for line in r.stdout.splitlines():
        m = ROW.match(line)
        if m:
            policy, form, results = m.groups()
            # the two result columns: at N and at 2N
            halves = re.split(r"\s{2,}", results.strip())
            assert len(halves) == 2, line
            rows[(policy, form)] = [_counts(h) for h in halves]
    for policy in POLICIES:
        for form in ("batch", "incremental", "saturated", "rank(64)"):
            assert (policy, form) in rows, (policy, form, r.stdout)
    assert ("miss_rate_bound", "round") in rows
    for (policy, form), per_size in rows.items():
        for jobs, got in zip((n, 2 * n), per_size):
            if form == "incremental":
                assert got == {"placed": jobs}, (policy, form, got)
            elif form == "saturated":
                assert got["placed"] + got["rej"] == 4 * jobs, (policy, got)
                assert got["placed"] > 0, (policy, got)
            elif form == "rank(64)":
                assert got["placed"] + got["rej"] == jobs, (policy, got)
            elif form == "batch":
                assert 1 <= got["gangs"] <= jobs, (policy, got)
                if policy == "gang":
                    assert got["gangs"] == jobs, got
            else:
                assert got["moves"] >= 0, got
    bad = subprocess.run([bench, "ten"], capture_output=True, text=True)
    assert bad.returncode == 2 and "ten" in bad.stderr, bad.stderr
