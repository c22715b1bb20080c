# SPDX-License-Identifier: GPL-2.0-or-later
"""A real Slurm cluster on loopback for cosched's tests.

munged, slurmctld and N slurmd daemons ("slurmd -N <name>") run from
Debian's packages on 127.0.0.1 with ports chosen free at start, so two runs
never collide; with accounting=True also a slurmdbd with a MariaDB server of
its own (cosched_loopback/accounting.py).  PluginDir lists the build's plugins before
Debian's.  Every daemon started here is stopped by pid, and ends with the
process that started it, unless the cluster is kept (keep=True, detach(),
stop_kept()); a failed start raises ClusterStartError carrying the daemons'
logs.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from .daemons import (ClusterStartError, daemon_logs, free_ports, log_path,
                      spawn_daemon, terminate, wait_for)

# The decision record's one Python reader, cosched-report's.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "report"))
from cosched_report import record as _record  # noqa: E402

DEBIAN_PLUGINDIR = "/usr/lib/x86_64-linux-gnu/slurm-wlm"
START_TIMEOUT = 60
JOB_TIMEOUT = 60


DAEMONS = ("munged", "slurmctld", "slurmscriptd", "slurmd", "slurmstepd",
           "slurmdbd", "mariadbd")
# Job states after which a job's accounting record changes no more.
FINAL_STATES = {"BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED",
                "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "TIMEOUT"}


def _read_proc(pid, name):
    try:
        with open(f"/proc/{pid}/{name}", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _running(pid):
    """Whether pid exists and is no zombie (a zombie runs nothing)."""
    stat = _read_proc(pid, "stat")
    return bool(stat) and stat[stat.rindex(b")") + 2:][:1] != b"Z"


def _opens_under(pid, under):
    """Whether pid has a file under the directory `under` open."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(under):
                return True
        except OSError:
            pass
    return False


def _ancestors():
    pids, pid = set(), os.getpid()
    while pid > 1:
        pids.add(pid)
        stat = _read_proc(pid, "stat")
        try:
            pid = int(stat[stat.rindex(b")") + 2:].split()[1])
        except (ValueError, IndexError):
            break
    return pids


def cluster_processes(workdir):
    """The processes of the cluster in workdir that are still alive: its
    daemons and step daemons (munged, slurmctld, slurmd, slurmstepd,
    slurmdbd, mariadbd naming workdir on their command line or in
    SLURM_CONF, or holding a file under it open: Slurm 24.11's slurmstepd
    shows neither, but writes its node's log; "slurmctld-wlm" and the like
    count as their daemon), and its
    jobs' processes (SLURM_JOB_ID and that SLURM_CONF in their
    environment).  Never this process or its ancestors.  A list of
    {"pid", "comm", "cmdline"}."""
    conf = os.path.join(workdir, "slurm.conf").encode()
    under = os.path.join(workdir, "")
    skip = _ancestors()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in skip:
            continue
        pid = int(entry)
        if not _running(pid):
            continue
        comm = _read_proc(pid, "comm").decode(errors="replace").strip()
        # Debian 13 installs the daemons as slurmctld-wlm, slurmd-wlm and
        # slurmstepd-wlm behind alternatives links, and Slurm 24.11 re-execs
        # the real file on scontrol reconfigure: the same daemon.
        if comm.endswith("-wlm") and comm[:-4] in DAEMONS:
            comm = comm[:-4]
        cmdline = _read_proc(pid, "cmdline")
        env = _read_proc(pid, "environ").split(b"\0")
        in_env = b"SLURM_CONF=" + conf in env
        if ((comm in DAEMONS and (under.encode() in cmdline or in_env or
                                  _opens_under(pid, under))) or
                (in_env and any(v.startswith(b"SLURM_JOB_ID=") for v in env))):
            found.append({"pid": pid, "comm": comm,
                          "cmdline": cmdline.replace(b"\0", b" ").decode(
                              errors="replace").strip()})
    return found


def _cancel_jobs(env, timeout=15):
    """Cancel every job and wait (bounded) until slurmctld lists none
    (completing jobs too: their cores are free only then, and no slurmstepd
    or task outlives its slurmd).  True when none is listed; never
    raises."""
    try:
        subprocess.run(["scancel", "--quiet", "-u", "root"], env=env,
                       capture_output=True, timeout=5)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r = subprocess.run(["squeue", "-h", "-o", "%i"], env=env,
                               capture_output=True, text=True, timeout=5)
            if r.returncode == 0 and not r.stdout.strip():
                return True
            time.sleep(0.3)
    except subprocess.TimeoutExpired:
        pass
    return False


def _wait_gone(pids, timeout):
    """Wait until none of pids (not our children) runs; True if so."""
    deadline = time.monotonic() + timeout
    while True:
        alive = [p for p in pids if _running(p)]
        if not alive or time.monotonic() >= deadline:
            return not alive
        time.sleep(0.2)


def stop_kept(workdir, timeout=30, log=print):
    """Stop a cluster left running by Cluster.detach(), from any process:
    cancel its jobs and wait for their steps to end, stop its slurmd,
    slurmctld, slurmdbd, mariadbd and munged (SIGTERM, in that order, each
    waited for; slurmctld hands its last records to slurmdbd), then
    end whatever process of it is left (cluster_processes(): SIGTERM, then
    SIGKILL), and remove workdir.  Returns the processes that had to be
    killed that way (none when the cluster stopped cleanly)."""
    env = dict(os.environ, SLURM_CONF=os.path.join(workdir, "slurm.conf"))
    procs = cluster_processes(workdir)
    if any(p["comm"] == "slurmctld" for p in procs):
        _cancel_jobs(env, timeout)
        _wait_gone([p["pid"] for p in procs if p["comm"] == "slurmstepd"],
                   timeout)
    for comm in ("slurmd", "slurmctld", "slurmdbd", "mariadbd", "munged"):
        pids = [p["pid"] for p in cluster_processes(workdir)
                if p["comm"] == comm]
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        _wait_gone(pids, timeout)
    left = cluster_processes(workdir)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in cluster_processes(workdir):
            try:
                os.kill(p["pid"], sig)
            except ProcessLookupError:
                pass
        if _wait_gone([p["pid"] for p in left], 5):
            break
    if left:
        log(f"{len(left)} process(es) of the cluster in {workdir} had to be "
            "killed: " + "; ".join(f"{p['pid']} {p['cmdline']}" for p in left))
    shutil.rmtree(workdir, ignore_errors=True)
    return left


def default_builddir():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get(
        "COSCHED_BUILDDIR",
        os.path.normpath(os.path.join(here, "..", "..", "..", "build")))


def expand(ids):
    """"0-2,5" -> [0, 1, 2, 5]."""
    out = []
    for part in ids.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        elif part:
            out.append(int(part))
    return out


def expand_hostlist(nodes):
    """"n[1-2,4]" or "n1" -> ["n1", "n2", "n4"]."""
    m = re.fullmatch(r"(\w+?)\[([\d,-]+)\]", nodes)
    if not m:
        return nodes.split(",")
    return [f"{m.group(1)}{i}" for i in expand(m.group(2))]


def sampler_test_conf(workdir):
    """cosched.conf lines that make each step's sampler read counts from a
    file (this machine has no PMU) and the nodes' RAPL from
    WORKDIR/sysfs/NODE (fake_powercap.py trees), every 0.2 s: what the
    energy ledger needs to split known joules by the documented rule."""
    counts = os.path.join(workdir, "counters")
    with open(counts, "w") as f:
        f.write("instructions 1000000000\ncycles 2000000000\n"
                "LLC-load-misses 1000000\ntask-clock 500000000\n")
    return [f"SysfsRoot={workdir}/sysfs/%n", "SampleInterval=0.2",
            f"SampleBackend=test:{counts}",
            "SampleEvents=task-clock,instructions,cycles,LLC-load-misses"]


def parse_record(text):
    """A decision record line (a line end around it allowed) -> dict of
    its keys, values as written, the reason unquoted
    (contribs/report/cosched_report/record.py)."""
    return _record.parse(text.strip())


def _start_batch_jobs_at_once(extra):
    """slurm.conf's extra lines, with batch_sched_delay=0 in
    SchedulerParameters unless they set it: by default slurmctld waits up
    to 3 s after a batch job's submission before it schedules, which a
    test of a few jobs after each other spends many times over, and which
    changes no placement (each job is still placed alone, in order)."""
    extra = list(extra)
    for i, line in enumerate(extra):
        key, _, value = line.partition("=")
        if key.strip().lower() == "schedulerparameters":
            if "batch_sched_delay=" not in value:
                extra[i] = f"{line},batch_sched_delay=0"
            return extra
    return extra + ["SchedulerParameters=batch_sched_delay=0"]


class Cluster:
    """One loopback cluster.

    nodes, sockets, cores, threads: declared topology of every node.
    slurm_conf_extra / cosched_conf_extra: lines appended to the configs.
    select_type: SelectType (default the cosched wrapper).
    plugin_dirs: PluginDir's directories (default: the build's plugins,
    then Debian's).
    debug: SlurmctldDebug and SlurmdDebug ("debug": the plugins log their
    routine decisions at debug level, and the tests read them).
    keep: the daemons may outlive this process (no parent-death signal):
    detach() then leaves them running, and stop_kept() stops them from
    any process.  Until detach(), stop() and cleanup() stop them as usual.
    accounting: also run slurmdbd on a MariaDB server of the cluster's own
    (cosched_loopback/accounting.py), started before slurmctld, which sends it the
    jobs' records (sacct(), wait_accounted()); slurmdbd_conf_extra: lines
    appended to its slurmdbd.conf.
    """

    def __init__(self, nodes=4, sockets=2, cores=4, threads=1,
                 real_memory=2000, def_mem_per_cpu=100,
                 select_type="select/cons_tres_cosched",
                 task_plugin="task/affinity,task/cosched",
                 slurm_conf_extra=(), cosched_conf_extra=(),
                 builddir=None, plugindir=None, plugin_dirs=None,
                 debug="debug", workdir=None, name="cosched",
                 keep=False, accounting=False, slurmdbd_conf_extra=()):
        self.nodes = [f"n{i}" for i in range(1, nodes + 1)]
        self.sockets, self.cores, self.threads = sockets, cores, threads
        self.real_memory = real_memory
        self.def_mem_per_cpu = def_mem_per_cpu
        self.select_type = select_type
        self.task_plugin = task_plugin
        self.slurm_conf_extra = list(slurm_conf_extra)
        self.cosched_conf_extra = list(cosched_conf_extra)
        # Absolute: the daemons and the jobs' srun read slurm.conf's
        # PluginDir and plugstack.conf from other directories.
        self.builddir = os.path.abspath(builddir or default_builddir())
        self.plugindir = plugindir or os.path.join(self.builddir, "plugins")
        self.plugin_dirs = list(plugin_dirs or [self.plugindir,
                                                DEBIAN_PLUGINDIR])
        self.debug = debug
        self.name = name
        self.keep = keep
        self.accounting = accounting
        self.slurmdbd_conf_extra = list(slurmdbd_conf_extra)
        self.accounting_db = None  # AccountingDB, made by _write_configs
        self.workdir = workdir or tempfile.mkdtemp(prefix="cosched-cluster-")
        os.makedirs(self.workdir, exist_ok=True)
        os.chmod(self.workdir, 0o755)
        self.conf = os.path.join(self.workdir, "slurm.conf")
        self.procs = {}          # name -> Popen
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.started = False

    # -- configuration -------------------------------------------------
    def _write_configs(self):
        w = self.workdir
        for sub in ["state", "log", "jobs"] + [f"spool/{n}"
                                               for n in self.nodes]:
            os.makedirs(os.path.join(w, sub), exist_ok=True)
        os.chmod(os.path.join(w, "jobs"), 0o1777)
        ports = free_ports(1 + len(self.nodes) +
                            (2 if self.accounting else 0))
        self.ctld_port = ports.pop(0)
        node_ports = ports[:len(self.nodes)]
        accounting = ["JobAcctGatherType=jobacct_gather/none",
                      "AccountingStorageType=accounting_storage/none"]
        if self.accounting:
            # Imported here: cosched_loopback/accounting.py builds on this module.
            from .accounting import AccountingDB
            self.accounting_db = AccountingDB(
                w, f"{w}/munge.sock", ports=ports[len(self.nodes):],
                conf_extra=self.slurmdbd_conf_extra, keep=self.keep)
            # The tasks' usage every second (jobacct_gather/linux: the
            # cluster tracks processes by linuxproc, not cgroup), and the
            # energy TRES as doc/cosched.8 configures it for
            # acct_gather_energy/cosched (Slurm tracks it by default too).
            accounting = [
                "JobAcctGatherType=jobacct_gather/linux",
                "JobAcctGatherFrequency=task=1",
                *self.accounting_db.slurm_conf_lines(),
                "AccountingStorageTRES=energy"]
        plugstack = os.path.join(w, "plugstack.conf")
        with open(plugstack, "w") as f:
            f.write(f"required {self.plugindir}/spank_cosched.so\n")
        host = socket.gethostname().split(".")[0]
        lines = [
            f"ClusterName={self.name}",
            f"SlurmctldHost={host}(127.0.0.1)",
            f"SlurmctldPort={self.ctld_port}",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"AuthInfo=socket={w}/munge.sock",
            f"StateSaveLocation={w}/state",
            f"SlurmdSpoolDir={w}/spool/%n",
            f"SlurmctldPidFile={w}/slurmctld.pid",
            f"SlurmdPidFile={w}/slurmd-%n.pid",
            f"SlurmctldLogFile={w}/log/slurmctld.log",
            f"SlurmdLogFile={w}/log/slurmd-%n.log",
            f"SlurmctldDebug={self.debug}",
            f"SlurmdDebug={self.debug}",
            f"PluginDir={':'.join(self.plugin_dirs)}",
            f"PlugStackConfig={plugstack}",
            f"SelectType={self.select_type}",
            "SelectTypeParameters=CR_Core_Memory",
            f"TaskPlugin={self.task_plugin}",
            "ProctrackType=proctrack/linuxproc",
            *accounting,
            "JobCompType=jobcomp/none",
            "MpiDefault=none",
            "SchedulerType=sched/backfill",
            "SlurmdParameters=config_overrides",
            "ReturnToService=2",
            "MinJobAge=600",
            "KillWait=2",
            "InactiveLimit=0",
            "SlurmdTimeout=60",
            f"DefMemPerCPU={self.def_mem_per_cpu}",
        ]
        for name, port in zip(self.nodes, node_ports):
            lines.append(
                f"NodeName={name} NodeAddr=127.0.0.1 NodeHostname=localhost "
                f"Port={port} Sockets={self.sockets} "
                f"CoresPerSocket={self.cores} ThreadsPerCore={self.threads} "
                f"RealMemory={self.real_memory} State=UNKNOWN")
        lines.append(f"PartitionName=main Nodes={','.join(self.nodes)} "
                     "Default=YES MaxTime=INFINITE State=UP")
        lines += _start_batch_jobs_at_once(self.slurm_conf_extra)
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.profile_dir = os.path.join(w, "profiles")
        os.makedirs(self.profile_dir, exist_ok=True)
        self.write_cosched_conf(self.cosched_conf_extra)

    def write_cosched_conf(self, lines):
        """cosched.conf beside slurm.conf (where slurmctld finds it), with
        ProfileDir in the cluster's folder and this build's
        cosched-sampler unless lines set them."""
        lines = list(lines)
        if not any(l.lower().startswith("profiledir=") for l in lines):
            lines.insert(0, f"ProfileDir={self.profile_dir}")
        # The sampler of this build, not an installed one.
        if not any(l.lower().startswith("samplerprogram=") for l in lines):
            lines.insert(0, "SamplerProgram=" + os.path.join(
                self.builddir, "src", "node", "cosched-sampler"))
        with open(os.path.join(self.workdir, "cosched.conf"), "w") as f:
            f.write("\n".join(lines) + "\n")

    def reconfigure(self, cosched_conf=None):
        """scontrol reconfigure, after writing cosched_conf (lines) if
        given."""
        if cosched_conf is not None:
            self.write_cosched_conf(cosched_conf)
        self.run(["scontrol", "reconfigure"])

    def write_profile(self, app, category, mpki, edp=(), threads=2):
        """Place a measured profile in the store: derived metrics that the
        default thresholds classify as category (cpu, lim or mem), and the
        given EDP points [(threads, freq_khz, time_s, energy_j)]."""
        bw = {"cpu": 0.01, "lim": 0.2, "mem": 0.7}[category]
        peak = 15000e6
        prof = {
            "schema_version": 1, "app": app, "runs_merged": 1,
            "derived": {
                "ipc": 1.5 if category == "cpu" else 0.6, "mpki": mpki,
                "llc_miss_bw": bw * peak, "mem_traffic_bw": bw * peak,
                "llc_to_core_bw": None,
                "llc_miss_bw_per_thread": bw * peak / threads,
                "mem_traffic_bw_per_thread": bw * peak / threads,
                "llc_to_core_bw_per_thread": None,
                "mem_uops_fraction": None, "bw_fraction": bw,
                "threads": float(threads), "power_w": None},
            "edp": [{"threads": t, "freq_khz": f, "time_s": ts,
                     "energy_j": e, "samples": 1} for t, f, ts, e in edp],
            "runs": []}
        path = os.path.join(self.profile_dir, f"{app}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(prof, f)
        os.rename(path + ".tmp", path)

    # -- daemons -------------------------------------------------------
    def log_path(self, daemon):
        return log_path(self.workdir, daemon)

    def logs(self, lines=60):
        names = ["munged", "slurmctld"] + [f"slurmd-{n}" for n in self.nodes]
        if self.accounting:
            names += ["slurmdbd", "mariadbd"]
        return daemon_logs(self.workdir, names, lines)

    def _spawn(self, name, argv):
        self.procs[name] = spawn_daemon(self.workdir, name, argv, self.env,
                                        self.keep)

    def _start_munged(self):
        w = self.workdir
        key = os.path.join(w, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        self._spawn("munged", [
            "munged", "--foreground", "--force",
            f"--socket={w}/munge.sock", f"--key-file={key}",
            f"--pid-file={w}/munged.pid",
            f"--seed-file={w}/munged.seed"])
        self._wait(lambda: os.path.exists(f"{w}/munge.sock"),
                   "munged socket", ["munged"], 15)

    def start_slurmctld(self, clear_state=False):
        argv = ["slurmctld", "-D", "-f", self.conf]
        if clear_state:
            argv.append("-c")
        self._spawn("slurmctld", argv)
        self._wait(self._ctld_responds, "slurmctld to answer",
                   ["slurmctld"], START_TIMEOUT)

    def start_slurmd(self, node):
        self._spawn(f"slurmd-{node}",
                    ["slurmd", "-D", "-N", node, "-f", self.conf])

    def _ctld_responds(self):
        r = subprocess.run(["scontrol", "ping"], env=self.env,
                           capture_output=True, text=True, timeout=20)
        return r.returncode == 0 and "UP" in r.stdout

    def _nodes_idle(self):
        r = self.run(["sinfo", "-h", "-N", "-o", "%N %t"], check=False)
        states = dict(l.split() for l in r.stdout.splitlines() if l.strip())
        return (len(states) == len(self.nodes) and
                all(s == "idle" for s in states.values()))

    def _wait(self, cond, what, daemons, timeout):
        wait_for(cond, what, {d: self.procs.get(d) for d in daemons},
                 self.logs, timeout)

    def _registered(self):
        """Whether slurmdbd lists this cluster with its slurmctld's
        address: slurmctld has registered (adding the cluster, its root
        account and root's association on first contact), so sacctmgr can
        add accounts and users on it."""
        r = self.run(["sacctmgr", "-n", "-P", "show", "cluster",
                      "format=cluster,controlhost"], check=False, timeout=20)
        return any(l.split("|")[0] == self.name and l.split("|")[1]
                   for l in r.stdout.splitlines() if "|" in l)

    def start(self):
        for attempt in (1, 2):
            self._write_configs()
            try:
                self._start_munged()
                if self.accounting:
                    self.accounting_db.start()
                self.start_slurmctld(clear_state=True)
                if self.accounting:
                    self._wait(self._registered,
                               "slurmctld to register with slurmdbd",
                               ["slurmctld"], START_TIMEOUT)
                for n in self.nodes:
                    self.start_slurmd(n)
                self._wait(self._nodes_idle, "all nodes idle",
                           ["slurmctld"] +
                           [f"slurmd-{n}" for n in self.nodes],
                           START_TIMEOUT)
                break
            except ClusterStartError as e:
                self.stop()
                if attempt == 1 and "Address already in use" in str(e):
                    continue  # another run took a port: new ports
                raise
            except BaseException:
                self.stop()
                raise
        self.started = True
        return self

    def _stop_proc(self, name, sig=signal.SIGTERM, timeout=20):
        terminate(self.procs.pop(name, None), sig, timeout)

    def stop_slurmctld(self):
        self._stop_proc("slurmctld")

    def restart_slurmctld(self):
        self.stop_slurmctld()
        self.start_slurmctld(clear_state=False)
        self._wait(self._nodes_responding, "nodes to respond again",
                   ["slurmctld"], START_TIMEOUT)

    def _nodes_responding(self):
        r = self.run(["sinfo", "-h", "-N", "-o", "%N %t"], check=False)
        states = [l.split()[1] for l in r.stdout.splitlines() if l.strip()]
        return (len(states) == len(self.nodes) and
                not any(s.endswith("*") or s in ("down", "unk")
                        for s in states))

    def _alive(self, name):
        p = self.procs.get(name)
        return p is not None and p.poll() is None

    def cancel_all(self, timeout=30):
        """Cancel every job; True once slurmctld lists none (_cancel_jobs)."""
        return _cancel_jobs(self.env, timeout)

    def stop(self):
        """Stop every daemon this cluster started, by pid.  Never raises:
        it runs in teardown and error paths."""
        try:
            if self._alive("slurmctld") and any(
                    self._alive(n) for n in self.procs
                    if n.startswith("slurmd-")):
                self.cancel_all(timeout=15)
        finally:
            for name in [n for n in self.procs if n.startswith("slurmd-")]:
                self._stop_proc(name)
            self._stop_proc("slurmctld")
            # After slurmctld, which hands it the records it still holds.
            if self.accounting_db is not None:
                self.accounting_db.stop()
            self._stop_proc("munged")
            self.started = False

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def detach(self):
        """Leave the daemons running after this process ends (a cluster
        made with keep=True): stop() and cleanup() no longer touch them;
        stop_kept(workdir) stops them, from any process."""
        if not self.keep:
            raise RuntimeError("detach() needs a cluster made with keep=True:"
                               " the others' daemons end with this process")
        self.procs.clear()
        if self.accounting_db is not None:
            self.accounting_db.detach()
        self.started = False

    # -- client commands -------------------------------------------------
    def run(self, argv, check=True, timeout=60, **kw):
        r = subprocess.run(argv, env=self.env, capture_output=True,
                           text=True, timeout=timeout, **kw)
        if check and r.returncode != 0:
            raise AssertionError(
                f"{' '.join(argv)} failed ({r.returncode}):\n"
                f"{r.stdout}{r.stderr}")
        return r

    def sbatch(self, *args, script=None):
        argv = ["sbatch", "--parsable", f"--chdir={self.workdir}/jobs",
                f"--output={self.workdir}/jobs/%j.out"] + list(args)
        if script is None and not any(a.startswith("--wrap") for a in args):
            argv.append("--wrap=sleep 600")
        r = self.run(argv, input=script)
        return int(r.stdout.strip().split(";")[0])

    def job(self, jobid):
        """scontrol -d show job as a dict, plus 'alloc': [(nodes, cpu_ids)]."""
        r = self.run(["scontrol", "-d", "-o", "show", "job", str(jobid)])
        text = r.stdout.strip()
        info = dict(re.findall(r"(\w+)=(\S*)", text))
        info["alloc"] = re.findall(r"\bNodes=(\S+) CPU_IDs=(\S+)", text)
        return info

    def record(self, jobid):
        """The job's cosched decision record (SystemComment) as a dict, or
        None when it has none."""
        r = self.run(["scontrol", "show", "job", str(jobid)])
        for line in r.stdout.splitlines():
            line = line.strip()
            if line.startswith("SystemComment=cosched/"):
                return parse_record(line[len("SystemComment="):])
        return None

    def job_sockets(self, jobid):
        """{node: sorted sockets} of a running job, from CPU_IDs."""
        out = {}
        for nodes, ids in self.job(jobid)["alloc"]:
            for node in expand_hostlist(nodes):
                out.setdefault(node, set()).update(
                    c // (self.cores * self.threads) for c in expand(ids))
        return {n: sorted(s) for n, s in out.items()}

    def release(self, jobids):
        self.run(["scontrol", "release", ",".join(map(str, jobids))])

    def wait_state(self, jobid, states, timeout=JOB_TIMEOUT):
        states = {states} if isinstance(states, str) else set(states)
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            info = self.job(jobid)
            last = info["JobState"]
            if last in states:
                return last
            time.sleep(0.2)
        raise AssertionError(
            f"job {jobid} is {last} (Reason={info.get('Reason')}), not "
            f"{sorted(states)} after {timeout}s")

    def sacct(self, *args, user=None):
        """sacct with args, as user (runuser) when given: one dict per row,
        keyed by the field names sacct prints in its header.  Fields are
        split at a control character, not "|", which a job's name may
        hold."""
        argv = ["sacct", "--parsable2", "--delimiter=\x1f", *args]
        if user is not None:
            argv = ["runuser", "-u", user, "--", *argv]
        lines = self.run(argv).stdout.splitlines()
        if not lines:
            return []
        header = lines[0].split("\x1f")
        return [dict(zip(header, l.split("\x1f"))) for l in lines[1:]]

    def wait_accounted(self, jobid,
                       fields="JobID,State,ExitCode",
                       timeout=JOB_TIMEOUT):
        """The job's row in slurmdbd (sacct -X -o fields, which must name
        State) once it holds a final state.  slurmctld sends a job's
        records to slurmdbd asynchronously (queued while slurmdbd is away,
        retried every 10 s), so for a while after the job ended sacct may
        not know it or still say RUNNING."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = self.sacct("-X", "-j", str(jobid), "-o", fields)
            except AssertionError as e:  # slurmdbd does not answer (yet)
                last = str(e)
            else:
                # "CANCELLED by 0": the state is the first word.
                if last and last[0]["State"].split()[0] in FINAL_STATES:
                    return last[0]
            time.sleep(0.5)
        raise AssertionError(f"job {jobid}'s record in slurmdbd after "
                             f"{timeout}s: {last}")

    def add_accounting_user(self, user, account):
        """user in account in slurmdbd (sacctmgr), once slurmctld has the
        association: slurmdbd pushes it to slurmctld, which gives it to
        the user's jobs at submission."""
        self.run(["sacctmgr", "-i", "add", "account", account])
        self.run(["sacctmgr", "-i", "add", "user", user,
                  f"account={account}"])
        deadline = time.monotonic() + 30
        while f"UserName={user}" not in self.run(
                ["scontrol", "show", "assoc_mgr", f"users={user}",
                 "flags=assoc"]).stdout:
            assert time.monotonic() < deadline, f"no association for {user}"
            time.sleep(0.5)

    def energy_ledger(self, node="n1"):
        """The node's energy ledger (SlurmdSpoolDir/cosched/energy.ledger)
        as text, None when the node has none (no step present)."""
        path = os.path.join(self.workdir, "spool", node, "cosched",
                            "energy.ledger")
        try:
            with open(path) as f:
                return f.read()
        except FileNotFoundError:
            return None

    def job_output(self, jobid):
        with open(f"{self.workdir}/jobs/{jobid}.out") as f:
            return f.read()

