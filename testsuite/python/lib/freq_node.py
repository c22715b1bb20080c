# SPDX-License-Identifier: GPL-2.0-or-later
"""A loopback node of 2 sockets x 8 cores with a synthetic topology to
match and a fake cpufreq tree (contribs/loopback's fake_cpufreq: 16 CPUs,
one domain per package, originals ORIGINAL), and profiles whose EDP
minima the controller turns into frequencies: the CPU frequency tests of
test_node.py and test_time_share.py."""
import os
import tempfile
import time

from cosched_loopback import fake_cpufreq

SYNTHETIC_2X8 = "Topology=synthetic:package:2 [numa] core:8 pu:1"

ORIGINAL = {"governor": "schedutil", "min": 800000, "max": 3000000,
            "setspeed": 0}
# EDP at 2 threads: 2.2 GHz 10 s x 1000 J = 10000; 1.5 GHz 12 s x 600 J =
# 7200 (minimum) for p15; 1.8 GHz 11 s x 700 J = 7700 for p18.
EDP15 = [(2, 2200000, 10.0, 1000.0), (2, 1500000, 12.0, 600.0)]
EDP18 = [(2, 2200000, 10.0, 1000.0), (2, 1800000, 11.0, 700.0)]


def freq_cluster(make_cluster, slurm_conf_extra=(), trees=("n1",), nodes=1):
    """Nodes of 2 sockets x 8 cores, a synthetic topology to match, and a
    fake cpufreq tree for each node in trees; profiles p15 and p18."""
    w = tempfile.mkdtemp(prefix="cosched-cluster-")
    for n in trees:
        fake_cpufreq.create(os.path.join(w, "sysfs", n))
    conf = ["CoschedPolicy=app_aware", "PowerPolicy=edp", SYNTHETIC_2X8,
            f"SysfsRoot={w}/sysfs/%n"]
    c = make_cluster(nodes=nodes, sockets=2, cores=8, workdir=w,
                     cosched_conf_extra=conf,
                     slurm_conf_extra=list(slurm_conf_extra))
    c.cosched_lines = conf
    c.write_profile("p15", "cpu", 0.1, edp=EDP15)
    c.write_profile("p18", "cpu", 0.1, edp=EDP18)
    c.run(["scontrol", "reconfigure"])
    return c


def sysfs_root(c, node="n1"):
    return os.path.join(c.workdir, "sysfs", node)


def domain(c, cpu, node="n1"):
    """The setting of cpu's domain, as fake_cpufreq reads it."""
    return fake_cpufreq.setting(sysfs_root(c, node), cpu)


def domain_now(c, cpu, node="n1"):
    """The same, or a text saying why it could not be read: a file read
    between the writer's truncation and its write (the node writes each
    value with O_TRUNC, then write())."""
    try:
        return domain(c, cpu, node)
    except ValueError as e:
        return f"unreadable mid-write ({e})"


def wait_domain(c, cpu, want, timeout=20, node="n1"):
    deadline = time.monotonic() + timeout
    while True:
        got = domain_now(c, cpu, node)
        if got == want:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"CPU {cpu}'s domain is {got}, not {want}")
        time.sleep(0.2)


def userspace(khz):
    return {"governor": "userspace", "min": 800000, "max": khz,
            "setspeed": khz}


def journal_domains(c, node="n1"):
    path = os.path.join(c.workdir, "spool", node, "cosched",
                        "cpufreq.journal")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [l for l in f if l.startswith("domain ")]
