#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A fake powercap (RAPL) sysfs tree for cosched's tests.

These machines have no RAPL, so the node code (src/node/rapl.c)
runs against a tree laid out as a real kernel lays it out, under a root
prefix (cosched.conf SysfsRoot=ROOT):

  ROOT/sys/devices/virtual/powercap/intel-rapl/          the control type
      enabled
      intel-rapl:N/                  one zone a package (N: the zone index)
          name                       "package-P\\n" (P: the package id)
          energy_uj                  "123456\\n", mode 0400 (root only, as
                                     since CVE-2020-8694)
          max_energy_range_uj        "262143328850\\n"
          enabled
          intel-rapl:N:M/            its subzones, numbered in the kernel's
              name                   order: "core", "uncore", "dram"
              energy_uj max_energy_range_uj enabled
  ROOT/sys/class/powercap/intel-rapl     -> ../../devices/virtual/powercap/intel-rapl
  ROOT/sys/class/powercap/intel-rapl:N   -> ../../devices/.../intel-rapl:N
  ROOT/sys/class/powercap/intel-rapl:N:M -> ../../devices/.../intel-rapl:N/intel-rapl:N:M

AMD processors (family 17h on) appear in the same form, named the same way,
with a package and a core zone and no DRAM zone: --vendor amd.

The counters behave as the kernel's: energy_uj counts up from 0 to
max_energy_range_uj and then starts again at 0, so advancing a zone by uj
gives (value + uj) mod (max_energy_range_uj + 1).  Nothing ties the zones
together (the core counter is a part of the package's in a real package):
tests advance each zone as they mean it.

Degradation:
  - no powercap at all: create(..., powercap=False) makes ROOT/sys without
    class/powercap (what these development machines have);
  - a zone missing: core=False, dram=False;
  - an unreadable counter: make_unreadable() replaces energy_uj by a
    directory holding the old value as "value" (as root, chmod stops no
    read; reading a directory fails with EISDIR whoever you are), and
    make_readable() puts the file back.

Use from Python:
    sys.path.insert(0, "contribs/loopback")
    from cosched_loopback import fake_powercap
    fake_powercap.create(root, packages=2)
    z = fake_powercap.zone(root, 0, "dram")    -> "intel-rapl:0:1"
    fake_powercap.advance(root, z, 5000000)    -> the new energy_uj

Use from C unit tests and shells (the same module as a program):
    fake_powercap.py create ROOT [--packages 2] [--no-core] [--no-dram]
        [--uncore] [--psys] [--vendor intel|amd] [--dies 1]
        [--max-range UJ] [--dram-max-range UJ] [--energy UJ]
        [--no-powercap]
    fake_powercap.py zone ROOT PACKAGE KIND     prints the zone's directory
                                                name (KIND: package, core,
                                                uncore, dram; PACKAGE: 0 or
                                                0-die-1)
    fake_powercap.py advance ROOT ZONE UJ       prints the new energy_uj
    fake_powercap.py set ROOT ZONE UJ
    fake_powercap.py unreadable ROOT ZONE
    fake_powercap.py readable ROOT ZONE
    fake_powercap.py show ROOT                  one line per zone
"""

import argparse
import os
import re
import sys

CLASS_DIR = os.path.join("sys", "class", "powercap")
DEVICE_DIR = os.path.join("sys", "devices", "virtual", "powercap",
                          "intel-rapl")
# Typical ranges: 2^32 energy units of 61 uJ (packages, cores) and of
# 15.3 uJ (server DRAM).
MAX_RANGE = 262143328850
DRAM_MAX_RANGE = 65712999613


def class_dir(root):
    return os.path.join(root, CLASS_DIR)


def _write(path, text, mode=0o444):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def _zone_files(path, name, energy, max_range):
    os.makedirs(path, exist_ok=True)
    _write(os.path.join(path, "name"), name + "\n")
    _write(os.path.join(path, "energy_uj"), f"{energy}\n", 0o400)
    _write(os.path.join(path, "max_energy_range_uj"), f"{max_range}\n")
    _write(os.path.join(path, "enabled"), "1\n", 0o644)


def _link(root, zone_rel):
    """ROOT/sys/class/powercap/<basename> -> ../../devices/.../zone_rel."""
    link = os.path.join(class_dir(root), os.path.basename(zone_rel))
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(os.path.join("..", "..", "devices", "virtual", "powercap",
                            "intel-rapl", zone_rel), link)


def create(root, packages=2, core=True, dram=True, uncore=False, psys=False,
           vendor="intel", dies=1, max_range=MAX_RANGE,
           dram_max_range=DRAM_MAX_RANGE, energy=0, powercap=True):
    """Make the tree; returns {zone directory name: zone name}."""
    if packages < 1 or dies < 1:
        raise ValueError("packages and dies must be at least 1")
    if vendor not in ("intel", "amd"):
        raise ValueError(f"vendor must be intel or amd, not {vendor!r}")
    if vendor == "amd":
        dram = uncore = psys = False
    os.makedirs(os.path.join(root, "sys", "devices", "system", "cpu"),
                exist_ok=True)
    if not powercap:
        return {}
    dev = os.path.join(root, DEVICE_DIR)
    os.makedirs(dev, exist_ok=True)
    _write(os.path.join(dev, "enabled"), "1\n", 0o644)
    os.makedirs(class_dir(root), exist_ok=True)
    top = os.path.join(class_dir(root), "intel-rapl")
    if not os.path.lexists(top):
        os.symlink(os.path.join("..", "..", "devices", "virtual", "powercap",
                                "intel-rapl"), top)
    zones, n = {}, 0
    for pkg in range(packages):
        for die in range(dies):
            name = f"package-{pkg}" if dies == 1 else f"package-{pkg}-die-{die}"
            zdir = f"intel-rapl:{n}"
            _zone_files(os.path.join(dev, zdir), name, energy, max_range)
            _link(root, zdir)
            zones[zdir] = name
            subs = [k for k, on in (("core", core), ("uncore", uncore),
                                    ("dram", dram)) if on]
            for m, kind in enumerate(subs):
                sdir = f"{zdir}:{m}"
                _zone_files(os.path.join(dev, zdir, sdir), kind, energy,
                            dram_max_range if kind == "dram" else max_range)
                _link(root, os.path.join(zdir, sdir))
                zones[sdir] = kind
            n += 1
    if psys:
        zdir = f"intel-rapl:{n}"
        _zone_files(os.path.join(dev, zdir), "psys", energy, max_range)
        _link(root, zdir)
        zones[zdir] = "psys"
    return zones


def zone_path(root, zone):
    """The directory of zone ("intel-rapl:0:1"), its link resolved."""
    if not re.fullmatch(r"intel-rapl:\d+(:\d+)?", zone):
        raise ValueError(f"not a zone directory name: {zone!r}")
    return os.path.realpath(os.path.join(class_dir(root), zone))


def _read(path):
    with open(path) as f:
        return f.read().rstrip("\n")


def zones(root):
    """{zone directory name: zone name}, in the kernel's order."""
    out = {}
    base = class_dir(root)
    if not os.path.isdir(base):
        return out
    key = lambda z: [int(x) for x in z.split(":")[1:]]
    for z in sorted((z for z in os.listdir(base)
                     if re.fullmatch(r"intel-rapl:\d+(:\d+)?", z)), key=key):
        out[z] = _read(os.path.join(zone_path(root, z), "name"))
    return out


def zone(root, package, kind):
    """The zone directory name of package's kind (package, core, uncore,
    dram); package is a package id (0) or "0-die-1"."""
    parent = None
    for z, name in zones(root).items():
        if z.count(":") == 1:
            parent = z if name == f"package-{package}" else None
            if parent and kind == "package":
                return z
        elif parent and z.startswith(parent + ":") and name == kind:
            return z
    raise KeyError(f"no {kind} zone for package {package} under {root}")


def energy(root, zone):
    return int(_read(os.path.join(zone_path(root, zone), "energy_uj")))


def max_range(root, zone):
    return int(_read(os.path.join(zone_path(root, zone),
                                  "max_energy_range_uj")))


def set_energy(root, zone, uj):
    path = os.path.join(zone_path(root, zone), "energy_uj")
    if not 0 <= uj <= max_range(root, zone):
        raise ValueError(f"{uj} outside 0 .. {max_range(root, zone)}")
    _write(path, f"{uj}\n", 0o400)


def advance(root, zone, uj):
    """Count uj more in zone, wrapping past max_energy_range_uj to 0 as the
    kernel does; returns the new energy_uj."""
    if uj < 0:
        raise ValueError("energy only counts up")
    value = (energy(root, zone) + uj) % (max_range(root, zone) + 1)
    set_energy(root, zone, value)
    return value


def make_unreadable(root, zone):
    """Replace energy_uj by a directory (keeping its value inside): every
    read fails with EISDIR, root's too."""
    path = os.path.join(zone_path(root, zone), "energy_uj")
    value = _read(path)
    os.unlink(path)
    os.mkdir(path)
    _write(os.path.join(path, "value"), value + "\n")


def make_readable(root, zone):
    """Undo make_unreadable()."""
    path = os.path.join(zone_path(root, zone), "energy_uj")
    value = _read(os.path.join(path, "value"))
    os.unlink(os.path.join(path, "value"))
    os.rmdir(path)
    _write(path, value + "\n", 0o400)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("create", help="make ROOT/sys/class/powercap")
    c.add_argument("root")
    c.add_argument("--packages", type=int, default=2)
    c.add_argument("--no-core", action="store_true")
    c.add_argument("--no-dram", action="store_true")
    c.add_argument("--uncore", action="store_true",
                   help="a PP1 (graphics) subzone, as client parts have")
    c.add_argument("--psys", action="store_true")
    c.add_argument("--vendor", choices=("intel", "amd"), default="intel")
    c.add_argument("--dies", type=int, default=1)
    c.add_argument("--max-range", type=int, default=MAX_RANGE)
    c.add_argument("--dram-max-range", type=int, default=DRAM_MAX_RANGE)
    c.add_argument("--energy", type=int, default=0)
    c.add_argument("--no-powercap", action="store_true")
    z = sub.add_parser("zone", help="print a zone's directory name")
    z.add_argument("root")
    z.add_argument("package")
    z.add_argument("kind", choices=("package", "core", "uncore", "dram"))
    for name in ("advance", "set"):
        a = sub.add_parser(name, help=f"{name} a zone's energy_uj")
        a.add_argument("root")
        a.add_argument("zone")
        a.add_argument("uj", type=int)
    for name in ("unreadable", "readable"):
        u = sub.add_parser(name, help=f"make a zone's energy_uj {name}")
        u.add_argument("root")
        u.add_argument("zone")
    s = sub.add_parser("show", help="one line per zone")
    s.add_argument("root")
    a = ap.parse_args(argv)
    if a.cmd == "create":
        create(a.root, packages=a.packages, core=not a.no_core,
               dram=not a.no_dram, uncore=a.uncore, psys=a.psys,
               vendor=a.vendor, dies=a.dies, max_range=a.max_range,
               dram_max_range=a.dram_max_range, energy=a.energy,
               powercap=not a.no_powercap)
    elif a.cmd == "zone":
        print(zone(a.root, a.package, a.kind))
    elif a.cmd == "advance":
        print(advance(a.root, a.zone, a.uj))
    elif a.cmd == "set":
        set_energy(a.root, a.zone, a.uj)
    elif a.cmd == "unreadable":
        make_unreadable(a.root, a.zone)
    elif a.cmd == "readable":
        make_readable(a.root, a.zone)
    else:
        for zd, name in zones(a.root).items():
            print(f"{zd} name={name} energy_uj={energy(a.root, zd)} "
                  f"max_energy_range_uj={max_range(a.root, zd)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
