# SPDX-License-Identifier: GPL-2.0-or-later
"""TaskExits: the CPU time of the threads that exit while it listens, by
program name, from the kernel's taskstats interface
(Documentation/accounting/taskstats.rst), for cosched-bench-controller(1).

Why taskstats and not BSD process accounting (acct(2)): acct rounds each
process's user and system time down to its 10 ms unit, so a step daemon
of 8 ms or a sampler of 0.3 ms counts as nothing, and a sum over many
short processes says less than half of what they spent.  taskstats
gives each exiting thread's cpu_run_real_total, the scheduler's own
nanoseconds.

It needs root (CAP_NET_ADMIN), a kernel with CONFIG_TASKSTATS, and the
first network namespace (the kernel sends exit events there only); where
any is missing, start() says why in .error and the figures are None.
Every thread that exits on the machine while it listens is counted: run
nothing else beside what is measured."""

import errno
import os
import socket
import struct
import subprocess
import threading
import time

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLMSG_ERROR = 2
NLM_F_REQUEST, NLM_F_ACK = 1, 4
TASKSTATS_CMD_GET = 1
TASKSTATS_CMD_ATTR_REGISTER_CPUMASK = 3
TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK = 4
TASKSTATS_TYPE_PID = 1
TASKSTATS_TYPE_STATS = 3
TASKSTATS_TYPE_AGGR_PID = 4       # one thread's (AGGR_TGID repeats them)
# struct taskstats (linux/taskstats.h), the fields read here; their
# offsets have not moved since version 1.
TS_CPU_RUN_REAL_TOTAL = 64        # __u64, nanoseconds on a CPU
TS_COMM = 80                      # char[32]
TS_COMM_LEN = 32


def _attr(kind, payload):
    n = 4 + len(payload)
    return struct.pack("HH", n, kind) + payload + b"\0" * (-n % 4)


def _attrs(buf):
    i, out = 0, []
    while i + 4 <= len(buf):
        n, kind = struct.unpack_from("HH", buf, i)
        if n < 4:
            break
        out.append((kind & 0x3fff, buf[i + 4:i + n]))
        i += (n + 3) & ~3
    return out


def _messages(buf):
    """(type, payload after the netlink header) of each message."""
    i = 0
    while i + 16 <= len(buf):
        n, kind = struct.unpack_from("IH", buf, i)
        if n < 16:
            break
        yield kind, buf[i + 16:i + n]
        i += (n + 3) & ~3


class TaskExits:
    def __init__(self):
        self.error = None
        self.sock = self.family = self.thread = None
        self.stopping = threading.Event()
        self.by_comm = {}         # comm: [threads, cpu ns]
        self.dropped = 0          # times the kernel had to drop events

    def _send(self, family, cmd, attrs, flags=NLM_F_REQUEST):
        body = struct.pack("BBH", cmd, 1, 0) + attrs
        self.sock.send(struct.pack("IHHII", 16 + len(body), family, flags,
                                   0, 0) + body)

    def _request(self, family, cmd, attrs):
        """Send and read the answer (the first message that comes: only
        before any exit event may)."""
        self._send(family, cmd, attrs, NLM_F_REQUEST | NLM_F_ACK)
        for kind, payload in _messages(self.sock.recv(65536)):
            if kind == NLMSG_ERROR:
                code = struct.unpack_from("i", payload)[0]
                if code:
                    raise OSError(-code, os.strerror(-code))
                return None
            return payload
        raise OSError(errno.EPROTO, "no answer from the kernel")

    @staticmethod
    def _cpus():
        with open("/sys/devices/system/cpu/online") as f:
            return f.read().strip()

    def start(self):
        """Listen; False (with .error) where taskstats cannot be had."""
        try:
            self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                      NETLINK_GENERIC)
            self.sock.bind((0, 0))
            # Room for bursts of exits while the reader waits for a CPU
            # (SO_RCVBUFFORCE passes rmem_max as root).
            self.sock.setsockopt(socket.SOL_SOCKET, 33, 32 << 20)
            reply = self._request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                  _attr(CTRL_ATTR_FAMILY_NAME,
                                        b"TASKSTATS\0"))
            for kind, value in _attrs((reply or b"")[4:]):
                if kind == CTRL_ATTR_FAMILY_ID:
                    self.family = struct.unpack_from("H", value)[0]
            if self.family is None:
                raise OSError(errno.ENOENT, "no TASKSTATS family")
            self._request(self.family, TASKSTATS_CMD_GET,
                          _attr(TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
                                self._cpus().encode() + b"\0"))
            self._probe()
        except OSError as e:
            self.error = f"taskstats: {e.strerror or e}"
            if self.sock:
                self.sock.close()
                self.sock = None
            return False
        self.sock.settimeout(0.2)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        return True

    def _probe(self):
        """The kernel sends exit events to listeners in the first network
        namespace only: elsewhere (a container, a Slurm root entered
        with its own namespaces) registering succeeds and nothing comes.
        A child that exits at once must be seen within a second."""
        child = subprocess.Popen(["true"])
        child.wait()
        self.sock.settimeout(0.2)
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                buf = self.sock.recv(65536)
            except socket.timeout:
                continue
            if child.pid in self._pids(buf):
                return
        raise OSError(errno.ENOMSG, "no exit event reached this process "
                      "(another network namespace?)")

    def _exits(self, buf):
        """{attribute type: value} of each thread's exit event in buf
        (TASKSTATS_TYPE_PID, TASKSTATS_TYPE_STATS)."""
        for kind, payload in _messages(buf):
            if kind != self.family:
                continue
            for akind, agg in _attrs(payload[4:]):
                if akind == TASKSTATS_TYPE_AGGR_PID:
                    yield dict(_attrs(agg))

    def _pids(self, buf):
        """The thread ids of the exit events in buf."""
        return [struct.unpack_from("I", e[TASKSTATS_TYPE_PID])[0]
                for e in self._exits(buf) if e.get(TASKSTATS_TYPE_PID)]

    def _take(self, buf):
        for e in self._exits(buf):
            stats = e.get(TASKSTATS_TYPE_STATS)
            if not stats or len(stats) < TS_COMM + TS_COMM_LEN:
                continue
            ns = struct.unpack_from("Q", stats, TS_CPU_RUN_REAL_TOTAL)[0]
            comm = stats[TS_COMM:TS_COMM + TS_COMM_LEN].split(
                b"\0", 1)[0].decode("ascii", "replace")
            entry = self.by_comm.setdefault(comm, [0, 0])
            entry[0] += 1
            entry[1] += ns

    def _read(self):
        end = None
        while True:
            if self.stopping.is_set():
                # What was sent before stop() still comes in: read on
                # until 0.2 s pass without an event, or at most 1 s.
                now = time.monotonic()
                end = end or now + 1.0
                if now >= end:
                    return
            try:
                buf = self.sock.recv(65536)
            except socket.timeout:
                if self.stopping.is_set():
                    return
                continue
            except OSError as e:
                if e.errno == errno.ENOBUFS:
                    self.dropped += 1
                    continue
                return
            self._take(buf)

    def stop(self):
        """Stop listening: ({comm: (threads, CPU seconds)}, drops), or
        (None, 0) where start() failed or stop() came already.  The
        events already sent are read first (up to 1 s of them)."""
        if not self.sock:
            return None, 0
        self.stopping.set()
        self.thread.join()
        try:
            # No answer asked: events may still be queued before it.
            self._send(self.family, TASKSTATS_CMD_GET,
                       _attr(TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
                             self._cpus().encode() + b"\0"))
        except OSError:
            pass
        self.sock.close()
        self.sock = None
        return ({comm: (n, ns / 1e9) for comm, (n, ns) in
                 self.by_comm.items()}, self.dropped)
