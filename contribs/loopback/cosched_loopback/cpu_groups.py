# SPDX-License-Identifier: GPL-2.0-or-later
"""CpuGroups: where a loopback cluster's CPU time went, by part, exited
processes included (cosched-bench-controller(1))."""

import os
import re
import time


class CpuGroups:
    """The CPU time of the cluster's parts, exited processes included:
    slurmctld, the nodes (the slurmd daemons and everything they start:
    slurmstepd, the jobs, the sampler) and the rest (munged, this script
    and the commands it runs), each a cgroup of its own (cgroup v1
    cpuacct, else cgroup v2) that the processes spawned next inherit.
    Where neither can be made (no cgroup file system, not writable), the
    figures are missing and the run goes on."""

    ROLES = ("slurmctld", "nodes", "rest")

    def __init__(self):
        self.base = self.home = None
        for root, usage in (("/sys/fs/cgroup/cpuacct", "cpuacct.usage"),
                            ("/sys/fs/cgroup/unified", "cpu.stat"),
                            ("/sys/fs/cgroup", "cpu.stat")):
            if not os.path.exists(os.path.join(root, usage)) and not (
                    usage == "cpu.stat" and os.path.exists(
                        os.path.join(root, "cgroup.controllers"))):
                continue
            base = os.path.join(root, f"cosched-bench-{os.getpid()}")
            try:
                os.mkdir(base)
                for role in self.ROLES:
                    os.mkdir(os.path.join(base, role))
            except OSError:
                self._remove(base)
                continue
            self.root, self.usage_file, self.base = root, usage, base
            self.home = self._current()
            return

    def _current(self):
        """This process's cgroup under self.root (to go back to)."""
        v1 = self.usage_file == "cpuacct.usage"
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, ctrls, path = line.rstrip("\n").split(":", 2)
                if (v1 and "cpuacct" in ctrls.split(",")) or \
                        (not v1 and ctrls == ""):
                    return os.path.join(self.root, path.lstrip("/"))
        return self.root

    @staticmethod
    def _remove(base):
        for role in CpuGroups.ROLES:
            try:
                os.rmdir(os.path.join(base, role))
            except OSError:
                pass
        try:
            os.rmdir(base)
        except OSError:
            pass

    def enter(self, role):
        if self.base:
            with open(os.path.join(self.base, role, "cgroup.procs"),
                      "w") as f:
                f.write(str(os.getpid()))

    def seconds(self):
        """{role: CPU seconds so far}, or None."""
        if not self.base:
            return None
        out = {}
        for role in self.ROLES:
            with open(os.path.join(self.base, role, self.usage_file)) as f:
                text = f.read()
            if self.usage_file == "cpuacct.usage":
                out[role] = int(text) / 1e9
            else:
                m = re.search(r"^usage_usec (\d+)", text, re.M)
                out[role] = int(m.group(1)) / 1e6 if m else 0.0
        return out

    def close(self):
        """Back home; the groups go when the daemons in them have."""
        if not self.base:
            return
        try:
            with open(os.path.join(self.home, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        except OSError:
            pass
        for _ in range(50):
            self._remove(self.base)
            if not os.path.exists(self.base):
                break
            time.sleep(0.1)
        self.base = None
