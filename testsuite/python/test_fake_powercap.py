# SPDX-License-Identifier: GPL-2.0-or-later
"""The fake powercap tree (cosched_loopback/fake_powercap.py) counts like the kernel.

The C unit tests (testsuite/unit/test_rapl.c) and, later, the profiler's
cluster tests take their energy figures from this generator: its counter
must wrap exactly as documented, or the tests would check the code against
a wrong model.  No daemons, no root needed.
"""

import os
import subprocess
import sys

from cosched_loopback import fake_powercap

GEN = os.path.join(os.path.dirname(__file__), "..", "..", "contribs",
                   "loopback", "cosched_loopback", "fake_powercap.py")


def test_layout_and_zones(tmp_path):
    root = str(tmp_path / "r")
    zones = fake_powercap.create(root, packages=2, uncore=True)
    assert zones == {
        "intel-rapl:0": "package-0", "intel-rapl:0:0": "core",
        "intel-rapl:0:1": "uncore", "intel-rapl:0:2": "dram",
        "intel-rapl:1": "package-1", "intel-rapl:1:0": "core",
        "intel-rapl:1:1": "uncore", "intel-rapl:1:2": "dram"}
    assert fake_powercap.zones(root) == zones
    assert fake_powercap.zone(root, 1, "dram") == "intel-rapl:1:2"
    link = os.path.join(root, "sys", "class", "powercap", "intel-rapl:1:2")
    assert os.readlink(link) == ("../../devices/virtual/powercap/intel-rapl/"
                                 "intel-rapl:1/intel-rapl:1:2")
    energy = os.path.join(fake_powercap.zone_path(root, "intel-rapl:0"),
                          "energy_uj")
    assert os.stat(energy).st_mode & 0o777 == 0o400   # CVE-2020-8694


def test_advance_wraps_like_the_kernel(tmp_path):
    root = str(tmp_path / "r")
    fake_powercap.create(root, packages=1, max_range=1000, energy=900)
    assert fake_powercap.advance(root, "intel-rapl:0", 100) == 1000
    assert fake_powercap.advance(root, "intel-rapl:0", 1) == 0
    assert fake_powercap.advance(root, "intel-rapl:0", 1500) == 499
    # the DRAM zone keeps its own range
    assert fake_powercap.max_range(root, "intel-rapl:0:1") == \
        fake_powercap.DRAM_MAX_RANGE


def test_command_line(tmp_path):
    root = str(tmp_path / "r")
    run = lambda *a: subprocess.run([sys.executable, GEN, *a], check=True,
                                    capture_output=True, text=True).stdout
    run("create", root, "--vendor", "amd", "--packages", "1", "--dies", "2",
        "--max-range", "50")
    assert run("zone", root, "0-die-1", "core") == "intel-rapl:1:0\n"
    assert run("advance", root, "intel-rapl:1:0", "60") == "9\n"
    run("unreadable", root, "intel-rapl:1:0")
    assert os.path.isdir(os.path.join(
        fake_powercap.zone_path(root, "intel-rapl:1:0"), "energy_uj"))
    run("readable", root, "intel-rapl:1:0")
    assert run("show", root).splitlines() == [
        "intel-rapl:0 name=package-0-die-0 energy_uj=0 max_energy_range_uj=50",
        "intel-rapl:0:0 name=core energy_uj=0 max_energy_range_uj=50",
        "intel-rapl:1 name=package-0-die-1 energy_uj=0 max_energy_range_uj=50",
        "intel-rapl:1:0 name=core energy_uj=9 max_energy_range_uj=50"]
    run("create", str(tmp_path / "bare"), "--no-powercap")
    assert fake_powercap.zones(str(tmp_path / "bare")) == {}
