# SPDX-License-Identifier: GPL-2.0-or-later
"""A local Slurm cluster on loopback with the cosched plugins.

The README's main job (cosched-demo), the benchmarks that run real jobs
(cosched-bench-controller, cosched-bench-jobs) and the cluster tests all
start their clusters here:

  cluster       munged, slurmctld and N slurmd on 127.0.0.1 (Cluster)
  daemons       what starting one daemon takes: a free port, its log, stop
  accounting    slurmdbd with a MariaDB server of its own
  fake_cpufreq  cpufreq trees under a sysfs root, for nodes without one
  fake_powercap powercap (RAPL) trees that count like the kernel's
  cpu_groups    a process group's CPU time, read from /proc
  task_exits    the CPU time of processes that exit, by taskstats

Hardware this machine lacks is a fake tree under a root prefix, and every
caller says so where it uses one.
"""
