#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A fake cpufreq sysfs tree for cosched's tests.

These machines have no cpufreq, so the node code (src/node/cpufreq.c)
runs against a tree laid out as a real kernel lays it out, under a root
prefix (cosched.conf SysfsRoot=ROOT):

  ROOT/sys/devices/system/cpu/{online,possible,present}      "0-15"
  ROOT/sys/devices/system/cpu/cpuN/topology/physical_package_id
  ROOT/sys/devices/system/cpu/cpuN/cpufreq -> ../cpufreq/policyK
  ROOT/sys/devices/system/cpu/cpufreq/policyK/   (K: the domain's first CPU)
      affected_cpus related_cpus                 "0 1 2 3 4 5 6 7"
      cpuinfo_min_freq cpuinfo_max_freq cpuinfo_transition_latency
      scaling_available_governors                "performance powersave ... \\n"
      scaling_available_frequencies              ascending, trailing space
      scaling_driver scaling_cur_freq
      scaling_governor scaling_min_freq scaling_max_freq
      scaling_setspeed           "<unsupported>" unless the governor is
                                 userspace (as the kernel shows it)

The files are plain files: nothing enforces what a kernel would (a write
of an unknown governor is taken as written), so tests check what cosched
writes, not what a kernel would accept.

Degradation:
  - a node without cpufreq: create(..., cpufreq=False) makes the cpuN
    directories without cpufreq (what these development machines have);
  - an unwritable file: make_unwritable() replaces the file by a directory
    holding the old value as "value" (as root, chmod stops no write; open()
    for writing a directory fails with EISDIR whoever you are), and
    make_writable() puts the file back with the value it had.

Use from Python (cluster tests):
    sys.path.insert(0, "contribs/loopback")
    from cosched_loopback import fake_cpufreq
    fake_cpufreq.create(root, cpus=16, packages=2, domains="package")
    fake_cpufreq.setting(root, cpu)  -> {"governor":..., "min":..., ...}

Use from C unit tests and shells (the same module as a program):
    fake_cpufreq.py create ROOT [--cpus 16] [--packages 2]
        [--domains package|cpu] [--governor schedutil]
        [--governors "performance powersave userspace ondemand schedutil"]
        [--freq-min 800000] [--freq-max 3000000] [--freq-step 100000]
        [--no-available-frequencies] [--no-cpufreq]
    fake_cpufreq.py unwritable ROOT CPU FILE
    fake_cpufreq.py writable ROOT CPU FILE
    fake_cpufreq.py show ROOT          one line per domain
"""

import argparse
import os
import sys

GOVERNORS = ("performance", "powersave", "userspace", "ondemand",
             "schedutil")
CPU_DIR = os.path.join("sys", "devices", "system", "cpu")


def cpu_dir(root):
    return os.path.join(root, CPU_DIR)


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _ranges(ids):
    """"0-7,9" from a sorted list."""
    out, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return ",".join(out)


def create(root, cpus=16, packages=2, domains="package",
           governor="schedutil", governors=GOVERNORS, freq_min=800000,
           freq_max=3000000, freq_step=100000, available_frequencies=True,
           cpufreq=True, scaling_min=None, scaling_max=None):
    """Make ROOT/sys/devices/system/cpu; returns the list of domains, each
    the list of its CPUs.  CPUs are numbered package by package (cpus /
    packages each); domains="package" gives one frequency domain a
    package, "cpu" one a CPU."""
    if cpus < 1 or packages < 1 or cpus % packages:
        raise ValueError(f"{cpus} CPUs do not split into {packages} packages")
    if domains not in ("package", "cpu"):
        raise ValueError(f"domains must be package or cpu, not {domains!r}")
    if governor not in governors:
        raise ValueError(f"initial governor {governor!r} not in {governors}")
    base = cpu_dir(root)
    os.makedirs(base, exist_ok=True)
    every = _ranges(list(range(cpus)))
    for name in ("online", "possible", "present"):
        _write(os.path.join(base, name), every + "\n")
    per_package = cpus // packages
    for cpu in range(cpus):
        topo = os.path.join(base, f"cpu{cpu}", "topology")
        os.makedirs(topo, exist_ok=True)
        _write(os.path.join(topo, "physical_package_id"),
               f"{cpu // per_package}\n")
        _write(os.path.join(topo, "core_id"), f"{cpu % per_package}\n")
    if not cpufreq:
        return []
    if domains == "package":
        groups = [list(range(p * per_package, (p + 1) * per_package))
                  for p in range(packages)]
    else:
        groups = [[cpu] for cpu in range(cpus)]
    freqs = list(range(freq_min, freq_max + 1, freq_step))
    if freqs[-1] != freq_max:
        freqs.append(freq_max)
    lo = freq_min if scaling_min is None else scaling_min
    hi = freq_max if scaling_max is None else scaling_max
    for group in groups:
        policy = os.path.join(base, "cpufreq", f"policy{group[0]}")
        os.makedirs(policy, exist_ok=True)
        cpulist = " ".join(str(c) for c in group) + "\n"
        files = {
            "affected_cpus": cpulist,
            "related_cpus": cpulist,
            "cpuinfo_min_freq": f"{freq_min}\n",
            "cpuinfo_max_freq": f"{freq_max}\n",
            "cpuinfo_transition_latency": "10000\n",
            "scaling_driver": "acpi-cpufreq\n",
            "scaling_available_governors": " ".join(governors) + " \n",
            "scaling_governor": governor + "\n",
            "scaling_min_freq": f"{lo}\n",
            "scaling_max_freq": f"{hi}\n",
            "scaling_cur_freq": f"{hi}\n",
            "scaling_setspeed": (f"{hi}\n" if governor == "userspace"
                                 else "<unsupported>\n"),
        }
        if available_frequencies:
            files["scaling_available_frequencies"] = \
                " ".join(str(f) for f in freqs) + " \n"
        for name, text in files.items():
            _write(os.path.join(policy, name), text)
        for cpu in group:
            link = os.path.join(base, f"cpu{cpu}", "cpufreq")
            if os.path.lexists(link):
                os.unlink(link)
            os.symlink(os.path.join("..", "cpufreq", f"policy{group[0]}"),
                       link)
    return groups


def policy_dir(root, cpu):
    """The policy directory of cpu (the link resolved)."""
    return os.path.realpath(os.path.join(cpu_dir(root), f"cpu{cpu}",
                                         "cpufreq"))


def read(root, cpu, name):
    with open(os.path.join(policy_dir(root, cpu), name)) as f:
        return f.read().rstrip("\n")


def setting(root, cpu):
    """What cosched changes, as the files hold it now: governor, min,
    max, and setspeed (0 unless the governor is userspace)."""
    gov = read(root, cpu, "scaling_governor")
    return {
        "governor": gov,
        "min": int(read(root, cpu, "scaling_min_freq")),
        "max": int(read(root, cpu, "scaling_max_freq")),
        "setspeed": (int(read(root, cpu, "scaling_setspeed"))
                     if gov == "userspace" else 0),
    }


def make_unwritable(root, cpu, name):
    """Replace the policy file by a directory (keeping its value inside):
    every open() for writing fails with EISDIR, root's too."""
    path = os.path.join(policy_dir(root, cpu), name)
    with open(path) as f:
        value = f.read()
    os.unlink(path)
    os.mkdir(path)
    _write(os.path.join(path, "value"), value)


def make_writable(root, cpu, name):
    """Undo make_unwritable(): the file again, with the value it had."""
    path = os.path.join(policy_dir(root, cpu), name)
    with open(os.path.join(path, "value")) as f:
        value = f.read()
    os.unlink(os.path.join(path, "value"))
    os.rmdir(path)
    _write(path, value)


def domains(root):
    """The policy directories and their CPUs, by first CPU."""
    out = {}
    policies = os.path.join(cpu_dir(root), "cpufreq")
    if not os.path.isdir(policies):
        return out
    for name in sorted(os.listdir(policies)):
        with open(os.path.join(policies, name, "related_cpus")) as f:
            cpus = [int(c) for c in f.read().split()]
        out[cpus[0]] = cpus
    return dict(sorted(out.items()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("create", help="make ROOT/sys/devices/system/cpu")
    c.add_argument("root")
    c.add_argument("--cpus", type=int, default=16)
    c.add_argument("--packages", type=int, default=2)
    c.add_argument("--domains", choices=("package", "cpu"),
                   default="package")
    c.add_argument("--governor", default="schedutil")
    c.add_argument("--governors", default=" ".join(GOVERNORS))
    c.add_argument("--freq-min", type=int, default=800000)
    c.add_argument("--freq-max", type=int, default=3000000)
    c.add_argument("--freq-step", type=int, default=100000)
    c.add_argument("--scaling-min", type=int)
    c.add_argument("--scaling-max", type=int)
    c.add_argument("--no-available-frequencies", action="store_true")
    c.add_argument("--no-cpufreq", action="store_true")
    for name in ("unwritable", "writable"):
        u = sub.add_parser(name, help=f"make a policy file {name}")
        u.add_argument("root")
        u.add_argument("cpu", type=int)
        u.add_argument("file")
    s = sub.add_parser("show", help="one line per domain")
    s.add_argument("root")
    a = ap.parse_args(argv)
    if a.cmd == "create":
        create(a.root, cpus=a.cpus, packages=a.packages, domains=a.domains,
               governor=a.governor, governors=tuple(a.governors.split()),
               freq_min=a.freq_min, freq_max=a.freq_max,
               freq_step=a.freq_step,
               available_frequencies=not a.no_available_frequencies,
               cpufreq=not a.no_cpufreq, scaling_min=a.scaling_min,
               scaling_max=a.scaling_max)
    elif a.cmd == "unwritable":
        make_unwritable(a.root, a.cpu, a.file)
    elif a.cmd == "writable":
        make_writable(a.root, a.cpu, a.file)
    else:
        for first, cpus in domains(a.root).items():
            st = setting(a.root, first)
            print(f"domain {first} cpus={_ranges(cpus)} "
                  f"governor={st['governor']} min={st['min']} "
                  f"max={st['max']} setspeed={st['setspeed']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
