# SPDX-License-Identifier: GPL-2.0-or-later
"""numavm: a qemu guest with real NUMA nodes, for tests on a one-node host.

These development machines have one NUMA node and no usable KVM, so
multi-node behaviour is tested in a qemu guest under TCG: Debian's cloud
kernel (NUMA built in), an initramfs made here from busybox-static plus the
test programs and their shared libraries, 2 or 4 NUMA nodes with the
distances asked for.  Commands go to the guest over a second serial port
and come back framed (base64 bodies, a per-command id, the exit status),
so any output, binary or not, and its status return intact; the first
serial port is the kernel console, kept in a log for failures.

    import numavm
    with numavm.boot(nodes=2, programs=["build/.../numa_bind_check"]) as vm:
        rc, out, err = vm.run(["numa_bind_check", "--nodes", "1"])
        rc, out, err = vm.run("cat /sys/devices/system/node/node1/distance")

boot() raises Unavailable (a sentence naming what is missing: qemu, the
kernel, busybox) where a guest cannot run, so a test can skip with it.

The kernel is never installed on the host: `apt-get download` fetches
linux-image-cloud-amd64's image package into a cache (default
/var/cache/cosched/numavm, COSCHED_NUMAVM_CACHE overrides) and `dpkg-deb
-x` extracts it there (`python3 numavm.py fetch-kernel`; scripts/install-deps
runs it).  No module package is needed: NUMA, the 8250 serial port, ACPI
power-off and the initramfs are built into that kernel.
"""

import base64
import ctypes
import glob
import os
import queue
import re
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections import namedtuple

CACHE = os.environ.get("COSCHED_NUMAVM_CACHE", "/var/cache/cosched/numavm")
KERNEL_META = "linux-image-cloud-amd64"
QEMU = "qemu-system-x86_64"
BUSYBOX = "/bin/busybox"

# The machine of "Dynamic memory placement of applications on a NUMA system"
# (NTUA thesis, 2020) (a 4-socket Xeon E5-4620): the distances the NUMA
# manager's rules were measured on.
SEED000_DISTANCES = (
    (10, 21, 21, 30),
    (21, 10, 30, 21),
    (21, 30, 10, 21),
    (30, 21, 21, 10),
)

BOOT_TIMEOUT = 60       # seconds; a 2-node guest boots in a few here
_READY = b"@@NUMAVM READY"

Result = namedtuple("Result", "rc stdout stderr")


class Unavailable(RuntimeError):
    """No guest can run here; the message says what is missing."""


class GuestError(RuntimeError):
    """The guest failed (did not boot, died, broke the protocol, or a
    command timed out); the message ends with the console's last lines."""


# -- the kernel ---------------------------------------------------------

def _kernel_dirs(cache):
    return sorted(glob.glob(os.path.join(cache, "linux-image-*", "boot",
                                         "vmlinuz-*")))


def kernel_path(cache=None):
    """The cached kernel image (newest), or raise Unavailable."""
    cache = cache or CACHE
    found = _kernel_dirs(cache)
    if not found:
        raise Unavailable(
            f"no guest kernel in {cache}: run scripts/install-deps (or "
            f"python3 testsuite/numavm/numavm.py fetch-kernel), which "
            f"downloads {KERNEL_META}'s image with apt-get download")
    # Version order, not text order: 6.1.0-56 after 6.1.0-9.
    def key(path):
        return [int(x) if x.isdigit() else x
                for x in re.split(r"(\d+)", path)]
    return max(found, key=key)


def _image_package():
    """The versioned image package the meta package depends on now."""
    out = subprocess.run(["apt-cache", "depends", KERNEL_META],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"Depends:\s*(linux-image-\S+)", out)
    if not m:
        raise RuntimeError(f"apt-cache depends {KERNEL_META}: no image "
                           f"package in {out!r}")
    return m.group(1)


def fetch_kernel(cache=None, log=print):
    """Download and extract the cloud kernel into the cache (idempotent:
    nothing is fetched when the current image package is there).  Returns
    the vmlinuz path."""
    cache = cache or CACHE
    pkg = _image_package()
    dest = os.path.join(cache, pkg)
    done = glob.glob(os.path.join(dest, "boot", "vmlinuz-*"))
    if done:
        return done[0]
    os.makedirs(cache, exist_ok=True)
    work = tempfile.mkdtemp(prefix="fetch-", dir=cache)
    try:
        # apt-get downloads as its sandbox user _apt into the working
        # directory; a root-only directory makes it warn and fetch as root.
        _give_to_apt(work)
        subprocess.run(["apt-get", "download", "-qq", pkg], cwd=work,
                       check=True, stdout=subprocess.DEVNULL)
        debs = glob.glob(os.path.join(work, "*.deb"))
        if len(debs) != 1:
            raise RuntimeError(f"apt-get download {pkg} gave {debs}")
        tree = os.path.join(work, "tree")
        subprocess.run(["dpkg-deb", "-x", debs[0], tree], check=True)
        if not glob.glob(os.path.join(tree, "boot", "vmlinuz-*")):
            raise RuntimeError(f"{debs[0]}: no boot/vmlinuz-*")
        # Only the image is kept (the modules are not needed): the
        # cache stays at the size of the kernel, about 14 MB.
        os.makedirs(os.path.join(work, "keep"))
        os.rename(os.path.join(tree, "boot"),
                  os.path.join(work, "keep", "boot"))
        os.rename(os.path.join(work, "keep"), dest)
        log(f"numavm: {pkg} extracted into {dest}")
        # The kernels the mirror has moved past are not booted again.
        for old in glob.glob(os.path.join(cache, "linux-image-*")):
            if old != dest:
                shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return glob.glob(os.path.join(dest, "boot", "vmlinuz-*"))[0]


def _give_to_apt(path):
    if os.geteuid() != 0:
        return
    try:
        import pwd
        os.chown(path, pwd.getpwnam("_apt").pw_uid, -1)
    except (KeyError, OSError):
        pass


def unavailable_reason(cache=None, need_kernel=True):
    """Why no guest can run here (a sentence), or None; need_kernel=False
    when the caller brings its own kernel image."""
    if os.environ.get("COSCHED_SLURM_ROOT"):
        return ("inside a Slurm root (COSCHED_SLURM_ROOT): the qemu NUMA "
                "guest runs on the host only")
    if not shutil.which(QEMU):
        return (f"no {QEMU}: install Debian's qemu-system-x86 "
                "(scripts/install-deps does)")
    if not os.access(BUSYBOX, os.X_OK):
        return (f"no {BUSYBOX}: install Debian's busybox-static "
                "(scripts/install-deps does)")
    if need_kernel:
        try:
            kernel_path(cache)
        except Unavailable as e:
            return str(e)
    return None


# -- the initramfs ------------------------------------------------------

class _Cpio:
    """An uncompressed cpio archive in the kernel's "newc" format.  Left
    uncompressed on purpose: under TCG, unpacking costs less than
    decompressing, and the kernel accepts it as it is."""

    def __init__(self):
        self.data = bytearray()
        self.ino = 1
        self.names = set()

    def _entry(self, name, mode, body=b"", nlink=1):
        name = name.lstrip("/")
        if name in self.names:
            return
        self.names.add(name)
        fields = [self.ino, mode, 0, 0, nlink, 0, len(body), 0, 0, 0, 0,
                  len(name) + 1, 0]
        self.ino += 1
        hdr = b"070701" + b"".join(b"%08X" % v for v in fields)
        self.data += hdr + name.encode() + b"\0"
        self.data += b"\0" * (-len(self.data) % 4)
        self.data += body
        self.data += b"\0" * (-len(self.data) % 4)

    def dir(self, name):
        parts = name.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            self._entry("/".join(parts[:i]), stat.S_IFDIR | 0o755, nlink=2)

    def file(self, name, body, mode=0o755):
        self.dir(os.path.dirname(name.strip("/")) or ".")
        self._entry(name, stat.S_IFREG | mode, body)

    def symlink(self, name, target):
        self.dir(os.path.dirname(name.strip("/")) or ".")
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def finish(self):
        self._entry("TRAILER!!!", 0, nlink=1)
        self.data += b"\0" * (-len(self.data) % 512)
        return bytes(self.data)


# PID 1.  The console (ttyS0) gets the kernel's messages; the agent talks
# on ttyS1 in raw mode (no echo, no CR/LF translation), so the framing
# below passes through the tty unchanged.  The agent is PID 1's child, not
# PID 1 itself: every orphan in the guest (each command's `timeout`
# watcher, a test's daemon and its children) is re-parented to PID 1, and
# the SIGCHLD of its exit interrupts the poll() in busybox's `read`, which
# throws away the part of the line read so far; ash then reads the rest
# as a line of its own, and the request is lost (the idle-guest flake: a
# request split across such an exit hung the guest every time).  PID 1
# (this shell, in its wait for the agent) reaps the orphans instead;
# should the agent ever exit, the guest powers off, so the host sees
# "qemu exited" at once.
_INIT = r"""#!/bin/sh
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mkdir -p /root
stty -F /dev/ttyS1 raw -echo
# Every received byte raises an interrupt (the 16550's default trigger
# is 8).  Added for the idle-guest flake before its cause (the SIGCHLD,
# above) was found; harmless, so kept.
echo 1 >/sys/class/tty/ttyS1/rx_trig_bytes 2>/dev/null
/agent </dev/ttyS1 >/dev/ttyS1 2>/dev/console
echo "numavm: the agent exited with status $?" >/dev/console
poweroff -f
"""

# The command loop.  A request is one line "ID TIMEOUT BASE64-SCRIPT"; the
# reply is "@@OUT ID", stdout in base64, "@@ERR ID", stderr in base64,
# "@@END ID STATUS".  Bodies in base64 cannot contain a frame line, and the
# id lets the host drop the late reply of a command it gave up on.
_AGENT = r"""#!/bin/sh
echo "@@NUMAVM READY"
while IFS= read -r line; do
	set -- $line
	case "$1" in
	poweroff) sync; poweroff -f ;;
	esac
	id=$1; limit=$2
	echo "$3" | base64 -d >/tmp/.cmd
	timeout "$limit" sh /tmp/.cmd </dev/null >/tmp/.out 2>/tmp/.err
	rc=$?
	echo "@@OUT $id"; base64 </tmp/.out
	echo "@@ERR $id"; base64 </tmp/.err
	echo "@@END $id $rc"
done
"""


def _ldd(path):
    """The shared objects path needs (paths as the loader names them),
    the program interpreter included."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True)
    if out.returncode != 0:
        if "not a dynamic executable" in out.stdout + out.stderr:
            return []
        raise RuntimeError(f"ldd {path}: {out.stderr.strip()}")
    libs = []
    for line in out.stdout.splitlines():
        line = line.strip()
        if "=> not found" in line:
            raise RuntimeError(f"ldd {path}: {line}")
        m = re.match(r"\S+ => (/\S+) \(", line) or re.match(r"(/\S+) \(",
                                                            line)
        if m:
            libs.append(m.group(1))
    return libs


def _guest_path(path):
    """Where a host library goes in the guest: Debian's merged /usr has
    /lib and /lib64 as links to /usr/lib*, and the guest has the same
    links, so everything is stored under /usr."""
    for top in ("/lib/", "/lib64/"):
        if path.startswith(top):
            return "/usr" + path
    return path


def _is_libtool_wrapper(path):
    with open(path, "rb") as f:
        head = f.read(4096)
    return head.startswith(b"#!") and b"libtool" in head


def build_initramfs(programs=(), files=None):
    """The initramfs as bytes: busybox with every applet linked in /bin,
    /init and the agent, each program in /usr/local/bin with its shared
    libraries and the loader, and files ({guest path: host path or
    bytes})."""
    cpio = _Cpio()
    for d in ("bin", "sbin", "usr/bin", "usr/sbin", "usr/lib", "usr/lib64",
              "usr/local/bin", "proc", "sys", "dev", "tmp", "root", "etc"):
        cpio.dir(d)
    cpio.symlink("lib", "usr/lib")
    cpio.symlink("lib64", "usr/lib64")
    with open(BUSYBOX, "rb") as f:
        cpio.file("bin/busybox", f.read())
    # busybox-static needs nothing more; Debian's dynamic busybox (which
    # conflicts with it, so a host may have that one) brings its libc.
    libs = _ldd(BUSYBOX)
    applets = subprocess.run([BUSYBOX, "--list-full"], capture_output=True,
                             text=True, check=True).stdout.split()
    for applet in applets:
        cpio.symlink(applet, "/bin/busybox")
    cpio.file("init", _INIT.encode())
    cpio.file("agent", _AGENT.encode())
    for prog in programs:
        if _is_libtool_wrapper(prog):
            raise RuntimeError(f"{prog} is a libtool wrapper script, not "
                               "the program: link it statically against "
                               "the build's libraries")
        with open(prog, "rb") as f:
            cpio.file("usr/local/bin/" + os.path.basename(prog), f.read())
        libs += [lib for lib in _ldd(prog) if lib not in libs]
    for lib in libs:
        with open(os.path.realpath(lib), "rb") as f:
            cpio.file(_guest_path(lib), f.read())
    for guest, host in (files or {}).items():
        if isinstance(host, (bytes, bytearray)):
            cpio.file(guest, bytes(host), 0o644)
        else:
            with open(host, "rb") as f:
                cpio.file(guest, f.read(), os.stat(host).st_mode & 0o777)
    return cpio.finish()


# -- the machine --------------------------------------------------------

def _die_with_parent():
    """preexec_fn: qemu gets SIGTERM if the test process dies, so a killed
    test run leaves no guest behind."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG,
                                                   signal.SIGTERM)


def _check_distances(nodes, distances):
    if distances is None:
        return None
    d = [list(map(int, row)) for row in distances]
    if len(d) != nodes or any(len(row) != nodes for row in d):
        raise ValueError(f"distances: a {nodes}x{nodes} matrix is needed")
    for i in range(nodes):
        if d[i][i] != 10:
            # qemu (and ACPI's SLIT) fix a node's distance to itself at 10.
            raise ValueError(f"distances[{i}][{i}] = {d[i][i]}: must be 10")
        for j in range(nodes):
            if i != j and not 10 < d[i][j] <= 255:
                raise ValueError(f"distances[{i}][{j}] = {d[i][j]}: "
                                 "11 to 255 between two nodes")
    return d


def qemu_argv(kernel, initrd, console_log, nodes, cpus, mem, distances,
              monitor=None):
    """The qemu command line (also for reading: what the guest is)."""
    if cpus % nodes or mem % nodes:
        raise ValueError(f"cpus={cpus} and mem={mem} must divide by "
                         f"nodes={nodes}")
    per_cpu, per_mem = cpus // nodes, mem // nodes
    argv = [QEMU, "-accel", "tcg", "-machine", "pc", "-cpu", "max",
            "-nodefaults", "-no-user-config", "-display", "none",
            "-no-reboot", "-m", f"{mem}M",
            # One socket per node: hwloc in the guest then sees packages
            # that match the nodes, as on the multi-socket machines the
            # task plugin is for.
            "-smp", f"{cpus},sockets={nodes},cores={per_cpu},threads=1",
            "-kernel", kernel, "-initrd", initrd,
            # sysrq_always_enabled: Debian's default mask leaves out the
            # task and CPU dumps that _diagnostics() asks for.
            "-append", "console=ttyS0 quiet panic=-1 mitigations=off "
                       "sysrq_always_enabled rdinit=/init",
            "-chardev", f"file,id=console,path={console_log}",
            "-device", "isa-serial,chardev=console",
            "-chardev", "stdio,id=cmd,signal=off",
            "-device", "isa-serial,chardev=cmd"]
    if monitor:
        # The human monitor, for sendkey: a guest that stops answering is
        # asked for its blocked tasks and CPU backtraces (SysRq w and l).
        argv += ["-monitor", f"unix:{monitor},server=on,wait=off"]
    for n in range(nodes):
        first = n * per_cpu
        cpu_list = (f"{first}" if per_cpu == 1 else
                    f"{first}-{first + per_cpu - 1}")
        argv += ["-object", f"memory-backend-ram,id=m{n},size={per_mem}M",
                 "-numa", f"node,nodeid={n},cpus={cpu_list},memdev=m{n}"]
    for i in range(nodes):
        for j in range(nodes):
            if distances and i != j:
                argv += ["-numa", f"dist,src={i},dst={j},"
                                  f"val={distances[i][j]}"]
    return argv


def _close_pipes(proc):
    """Close the pipes to a qemu that has ended."""
    for f in (proc.stdin, proc.stdout, proc.stderr):
        try:
            f.close()
        except OSError:
            pass


class VM:
    """A booted guest: run() commands in it, then shutdown() (or use it
    as a context manager)."""

    def __init__(self, nodes=2, distances=None, cpus=None, mem=512,
                 programs=(), files=None, kernel=None,
                 boot_timeout=BOOT_TIMEOUT):
        if nodes < 1:
            raise ValueError("nodes: at least 1")
        reason = unavailable_reason(need_kernel=not kernel)
        if reason:
            raise Unavailable(reason)
        self.nodes = nodes
        self.cpus = cpus or nodes
        self.mem = mem
        self.distances = _check_distances(nodes, distances)
        self.workdir = tempfile.mkdtemp(prefix="numavm-")
        self.console_log = os.path.join(self.workdir, "console.log")
        self.monitor = os.path.join(self.workdir, "monitor.sock")
        self._proc = None
        self._stuck = False
        self._lines = queue.Queue()
        self._next_id = 1
        try:
            initrd = os.path.join(self.workdir, "initramfs.cpio")
            t0 = time.monotonic()
            with open(initrd, "wb") as f:
                f.write(build_initramfs(programs, files))
            self.initramfs_seconds = time.monotonic() - t0
            self.argv = qemu_argv(kernel or kernel_path(), initrd,
                                  self.console_log, nodes, self.cpus, mem,
                                  self.distances, self.monitor)
            self._start(boot_timeout)
        except BaseException:
            self.shutdown()
            raise

    def _start(self, boot_timeout):
        """Start qemu and wait for the agent.  A boot that hangs is tried
        once more: seen about once in twenty CI runs, a TCG guest with more
        vCPUs than the host has cores wedges during boot (the console shows
        only "soft lockup ... kworker") though the same image booted in
        3 s a moment before; that is the emulator's, not the guest's code.
        The failed attempt's console is kept as console.log.boot1 and its
        diagnostics go to stderr."""
        try:
            self._start_once(boot_timeout)
        except GuestError as e:
            if not self._stuck:
                raise
            sys.stderr.write("\nnumavm: the guest did not finish booting; "
                             "starting it once more:\n"
                             f"{str(e)[-2000:]}\n")
            self._stop_qemu(keep_console=".boot1")
            self._start_once(boot_timeout)

    def _stop_qemu(self, keep_console):
        """Kill qemu; its console is kept as console.log + keep_console."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            _close_pipes(proc)
        try:
            os.replace(self.console_log, self.console_log + keep_console)
        except OSError:
            pass

    def _start_once(self, boot_timeout):
        t0 = time.monotonic()
        self._lines = queue.Queue()
        self._stuck = False
        self._proc = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._wait_ready(boot_timeout)
        self.boot_seconds = time.monotonic() - t0

    def reboot(self, boot_timeout=BOOT_TIMEOUT):
        """Stop qemu and boot the same guest again (same machine, same
        initramfs): for a test harness whose guest stopped answering.
        The old console is kept as console.log.1."""
        self._stop_qemu(keep_console=".1")
        self._start(boot_timeout)

    # The reader thread turns qemu's stdout (the guest's ttyS1) into lines;
    # None marks the end (qemu exited).
    def _read(self):
        for line in iter(self._proc.stdout.readline, b""):
            self._lines.put(line.rstrip(b"\n"))
        self._lines.put(None)

    def _line(self, deadline, what):
        left = deadline - time.monotonic()
        try:
            line = self._lines.get(timeout=max(left, 0))
        except queue.Empty:
            self._stuck = True
            self._dump_guest_state()
            raise GuestError(f"{what}: no answer from the guest in time"
                             + self._diagnostics()) from None
        if line is None:
            raise GuestError(f"{what}: qemu exited" + self._diagnostics())
        return line

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while self._line(deadline, "boot") != _READY:
            pass

    def console(self):
        """The guest's console so far (kernel messages), as text."""
        try:
            with open(self.console_log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def _dump_guest_state(self, settle=3.0):
        """Ask a guest that stopped answering what it is doing, through the
        monitor: SysRq 7 (the console gets everything, "quiet" or not),
        w (blocked tasks) and l (backtraces of all CPUs), printed on the
        console that _diagnostics() shows.  Best effort."""
        if not self._proc or self._proc.poll() is not None:
            return
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(5)
                s.connect(self.monitor)
                for key in ("7", "w", "l"):
                    s.sendall(f"sendkey alt-sysrq-{key}\n".encode())
                    time.sleep(0.5)
        except OSError as e:
            sys.stderr.write(f"numavm: no monitor for a dump: {e}\n")
            return
        time.sleep(settle)

    def _diagnostics(self, lines=80):
        text = "\n--- guest console (last lines) ---\n"
        text += "\n".join(self.console().splitlines()[-lines:])
        if self._proc and self._proc.poll() is not None:
            err = self._proc.stderr.read().decode(errors="replace")
            text += (f"\n--- qemu exited with {self._proc.returncode} ---\n"
                     + err[-2000:])
        return text

    def run(self, command, timeout=60, text=True):
        """Run command (argv list, or a shell command line for the guest's
        busybox sh) in the guest with stdin empty; returns Result(rc,
        stdout, stderr), str or bytes per text.  Raises GuestError when no
        status comes back within timeout (the guest kills the command
        then, so the machine stays usable)."""
        if self._proc is None or self._proc.poll() is not None:
            raise GuestError("run: the guest is not running"
                             + self._diagnostics())
        if not isinstance(command, str):
            command = shlex.join(command)
        cid = self._next_id
        self._next_id += 1
        script = base64.b64encode(command.encode()).decode()
        limit = max(1, int(timeout))
        started = time.monotonic()
        self._proc.stdin.write(f"{cid} {limit} {script}\n".encode())
        self._proc.stdin.flush()
        # The host waits a little longer than the guest's own limit, so
        # a command killed there still reports its status here.
        deadline = time.monotonic() + limit + 10
        what = f"run {command!r}"
        bodies = {b"OUT": [], b"ERR": []}
        part = None
        while True:
            line = self._line(deadline, what)
            m = re.match(rb"@@(OUT|ERR|END) (\d+)(?: (\d+))?$", line)
            if m and int(m.group(2)) != cid:
                part = None         # a late reply to an abandoned command
                continue
            if not m:
                if part is not None:
                    part.append(line)
                continue
            if m.group(1) == b"END":
                break
            part = bodies[m.group(1)]
        rc = int(m.group(3))
        out = base64.b64decode(b"".join(bodies[b"OUT"]))
        err = base64.b64decode(b"".join(bodies[b"ERR"]))
        if text:
            out, err = (out.decode(errors="replace"),
                        err.decode(errors="replace"))
        # busybox timeout gives the killed command's status, 128 + SIGTERM:
        # that status after the whole limit is the guest's timeout, not
        # the command's answer.
        if rc == 128 + signal.SIGTERM and time.monotonic() - started >= limit:
            raise GuestError(f"{what}: timed out after {limit} s (killed "
                             f"in the guest; stdout so far: {out[-500:]!r}, "
                             f"stderr: {err[-500:]!r})")
        return Result(rc, out, err)

    def node_distances(self):
        """The guest kernel's distance matrix (sysfs), one row per node."""
        r = self.run("for d in /sys/devices/system/node/node[0-9]*; do "
                     "echo ${d##*node} $(cat $d/distance); done")
        if r.rc:
            raise GuestError(f"node distances: {r.stderr}")
        rows = {}
        for line in r.stdout.splitlines():
            node, *dist = line.split()
            rows[int(node)] = [int(x) for x in dist]
        return [rows[n] for n in sorted(rows)]

    def shutdown(self, timeout=15):
        """Power the guest off (qemu stopped by pid if it does not go);
        the work directory goes with it.  Safe to call twice.  A guest
        that stopped answering could not read the power-off, so it is
        stopped at once."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if self._stuck and proc.poll() is None:
                proc.terminate()
            if proc.poll() is None:
                try:
                    proc.stdin.write(b"poweroff\n")
                    proc.stdin.flush()
                except OSError:
                    pass
                try:
                    proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    proc.terminate()
                    try:
                        proc.wait(5)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
            _close_pipes(proc)
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()
        return False

    def __del__(self):
        if getattr(self, "_proc", None) is not None:
            self.shutdown()


def boot(nodes=2, distances=None, cpus=None, mem=512, programs=(),
         files=None, check=True, **kw):
    """Boot a guest with nodes NUMA nodes (cpus and mem, in MiB, split
    evenly; cpus defaults to one per node) and return its VM.  distances:
    a nodes x nodes matrix (10 on the diagonal) or None for qemu's default
    (10 local, 20 remote).  With check, the guest's own view (node count,
    and the distances when given) is compared with what was asked before
    the VM is returned."""
    vm = VM(nodes=nodes, distances=distances, cpus=cpus, mem=mem,
            programs=programs, files=files, **kw)
    if check:
        try:
            got = vm.node_distances()
            want = vm.distances or [[10 if i == j else 20
                                     for j in range(nodes)]
                                    for i in range(nodes)]
            if got != want:
                raise GuestError(f"the guest's node distances are {got}, "
                                 f"asked {want}" + vm._diagnostics())
        except BaseException:
            vm.shutdown()
            raise
    return vm


def _main(argv):
    if argv[1:] == ["fetch-kernel"]:
        print(fetch_kernel())
        return 0
    if argv[1:2] == ["boot"]:
        # numavm.py boot NODES [PROGRAM...]: boot, time it, show the
        # guest's nodes, shut down (a quick check by hand).
        nodes = int(argv[2]) if len(argv) > 2 else 2
        dist = SEED000_DISTANCES if nodes == 4 else None
        t0 = time.monotonic()
        with boot(nodes=nodes, distances=dist, programs=argv[3:]) as vm:
            print(f"booted in {vm.boot_seconds:.2f} s (initramfs "
                  f"{vm.initramfs_seconds:.2f} s)")
            print(vm.run("cat /sys/devices/system/node/online; "
                         "grep -H . /sys/devices/system/node/node*/cpulist"
                         " /sys/devices/system/node/node*/distance").stdout,
                  end="")
        print(f"total {time.monotonic() - t0:.2f} s")
        return 0
    sys.stderr.write("usage: numavm.py fetch-kernel | boot [NODES "
                     "[PROGRAM...]]\n")
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
