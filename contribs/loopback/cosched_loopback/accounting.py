# SPDX-License-Identifier: GPL-2.0-or-later
"""slurmdbd on a MariaDB server of its own, for a test cluster's accounting.

The server is nobody else's: a data directory, socket, pid file and port
(127.0.0.1, chosen free like the cluster's) inside the cluster's folder, a
configuration file of its own so nothing of the host's MariaDB set-up is
read, and little memory (a 32 MB buffer pool, no performance schema): the
tests run beside other work on a small machine.  slurmdbd stores into it
through a database user made for it and authenticates with the cluster's
munged.  Both daemons are stopped by pid; slurmdbd alone can be stopped and
started again (stop_slurmdbd(), start_slurmdbd()) on the same port and
data, as a site restarts it under a running cluster.
"""

import os
import pwd
import secrets
import subprocess

from .daemons import (ClusterStartError, daemon_logs, free_ports,
                      spawn_daemon, terminate, wait_for)

START_TIMEOUT = 60
DB_NAME = "slurm_acct_db"
DB_USER = "slurmdbd"


class AccountingDB:
    """MariaDB and slurmdbd for the cluster whose slurm.conf is in workdir.

    slurmdbd reads slurmdbd.conf from the directory of SLURM_CONF (it has
    no option naming the file), so both files live in workdir; MariaDB's
    files go under workdir/accounting, the logs into workdir/log like the
    cluster's.  munge_socket: the cluster's munged.  ports: (MariaDB's,
    slurmdbd's), else chosen free here.  slurm_user: the cluster's
    SlurmUser, who must own slurmdbd.conf.  conf_extra: lines appended to
    slurmdbd.conf.  keep: as Cluster's (the daemons may outlive this
    process; detach()).
    """

    def __init__(self, workdir, munge_socket, ports=None, slurm_user="root",
                 conf_extra=(), keep=False):
        self.workdir = workdir
        self.dir = os.path.join(workdir, "accounting")
        self.munge_socket = munge_socket
        self.db_port, self.dbd_port = ports or free_ports(2)
        self.slurm_user = slurm_user
        self.conf_extra = list(conf_extra)
        self.keep = keep
        self.my_cnf = os.path.join(self.dir, "my.cnf")
        self.socket = os.path.join(self.dir, "mariadb.sock")
        self.conf = os.path.join(workdir, "slurmdbd.conf")
        # Never printed in a log or a message; the server only listens on
        # 127.0.0.1 anyway.
        self.password = secrets.token_hex(16)
        self.env = dict(os.environ,
                        SLURM_CONF=os.path.join(workdir, "slurm.conf"))
        self.procs = {}          # "mariadbd", "slurmdbd" -> Popen
        self.last_sacctmgr = ""  # its error while waiting for slurmdbd

    def slurm_conf_lines(self):
        """slurm.conf's lines that send slurmctld's records here (and let
        sacct and sacctmgr ask)."""
        return ["AccountingStorageType=accounting_storage/slurmdbd",
                "AccountingStorageHost=127.0.0.1",
                f"AccountingStoragePort={self.dbd_port}",
                # Toward slurmdbd Slurm's daemons and clients take the
                # munge socket from here, not from AuthInfo.
                f"AccountingStoragePass=socket={self.munge_socket}"]

    def logs(self, lines=60):
        out = daemon_logs(self.workdir, ["slurmdbd", "mariadbd"], lines)
        if self.last_sacctmgr:
            out += f"===== sacctmgr (last try) =====\n{self.last_sacctmgr}"
        return out

    def _wait(self, cond, what, timeout=START_TIMEOUT):
        wait_for(cond, what, dict(self.procs), self.logs, timeout)

    # -- MariaDB ---------------------------------------------------------
    def _write_my_cnf(self):
        """MariaDB's whole configuration: with --defaults-file the server,
        mariadb-install-db and the client read this file and no other."""
        d = self.dir
        lines = [
            "[mysqld]",
            # The harness runs as root, like the cluster's daemons.
            "user=root",
            f"datadir={d}/data",
            f"socket={self.socket}",
            f"pid-file={d}/mariadbd.pid",
            f"log-error={self.workdir}/log/mariadbd.log",
            "bind-address=127.0.0.1",
            f"port={self.db_port}",
            "skip-name-resolve",
            "performance_schema=OFF",
            "innodb_buffer_pool_size=32M",
            "innodb_log_file_size=8M",
            # A test's records need not survive a crash of the machine.
            "innodb_flush_log_at_trx_commit=2",
            # slurmdbd's recommendation: its long transactions wait for
            # a lock rather than fail.  (It logs that the buffer pool and
            # log are below its recommendations: so they are, on purpose.)
            "innodb_lock_wait_timeout=900",
            # MariaDB 11.8 (Debian 13) turns snapshot isolation on, which
            # makes slurmdbd stop at a write conflict (25.11 on say so
            # at start); "loose-" lets 10.11 (Debian 12), which has no
            # such option, start.
            "loose-innodb_snapshot_isolation=OFF",
            "aria_pagecache_buffer_size=8M",
            "key_buffer_size=1M",
            "max_connections=30",
            "[client]",
            f"socket={self.socket}",
            "user=root",
        ]
        with open(self.my_cnf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def sql(self, statements):
        """Run SQL as MariaDB's root (over the socket); its output."""
        r = subprocess.run(
            ["mariadb", f"--defaults-file={self.my_cnf}", "--batch",
             "-e", statements], capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise ClusterStartError(
                f"mariadb -e failed ({r.returncode}): {r.stderr}\n"
                f"{self.logs()}")
        return r.stdout

    def _db_answers(self):
        try:
            return (os.path.exists(self.socket) and
                    self.sql("SELECT 1").split() == ["1", "1"])
        except ClusterStartError:
            return False

    def start_mariadb(self):
        """A data directory (made once: a retried start keeps it), the
        server, and slurmdbd's database user with a new password."""
        os.makedirs(self.dir, exist_ok=True)
        os.makedirs(os.path.join(self.workdir, "log"), exist_ok=True)
        self._write_my_cnf()
        if not os.path.isdir(os.path.join(self.dir, "data", "mysql")):
            r = subprocess.run(
                ["mariadb-install-db", f"--defaults-file={self.my_cnf}",
                 "--skip-test-db"], capture_output=True, text=True,
                timeout=120)
            if r.returncode != 0:
                raise ClusterStartError(
                    f"mariadb-install-db failed ({r.returncode}):\n"
                    f"{r.stdout}{r.stderr}\n{self.logs()}")
        self.procs["mariadbd"] = spawn_daemon(
            self.workdir, "mariadbd",
            ["mariadbd", f"--defaults-file={self.my_cnf}"], self.env,
            self.keep)
        self._wait(self._db_answers, "mariadbd to answer")
        # slurmdbd connects over TCP: from 127.0.0.1 under skip-name-resolve.
        user = f"'{DB_USER}'@'127.0.0.1'"
        self.sql(f"CREATE DATABASE IF NOT EXISTS {DB_NAME}; "
                 f"CREATE OR REPLACE USER {user} "
                 f"IDENTIFIED BY '{self.password}'; "
                 f"GRANT ALL ON {DB_NAME}.* TO {user};")

    # -- slurmdbd --------------------------------------------------------
    def _write_conf(self):
        w = self.workdir
        lines = [
            "AuthType=auth/munge",
            f"AuthInfo=socket={self.munge_socket}",
            # slurmdbd refuses a DbdHost that is not this host's name or
            # "localhost"; it listens on DbdAddr.
            "DbdHost=localhost",
            "DbdAddr=127.0.0.1",
            f"DbdPort={self.dbd_port}",
            f"SlurmUser={self.slurm_user}",
            f"PidFile={w}/slurmdbd.pid",
            f"LogFile={w}/log/slurmdbd.log",
            "DebugLevel=verbose",
            "StorageType=accounting_storage/mysql",
            "StorageHost=127.0.0.1",
            f"StoragePort={self.db_port}",
            f"StorageUser={DB_USER}",
            f"StoragePass={self.password}",
            f"StorageLoc={DB_NAME}",
        ] + self.conf_extra
        # slurmdbd refuses a file others may read (it holds StoragePass)
        # or that its SlurmUser does not own.
        fd = os.open(self.conf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.chmod(self.conf, 0o600)
        pw = pwd.getpwnam(self.slurm_user)
        os.chown(self.conf, pw.pw_uid, pw.pw_gid)

    def _dbd_answers(self):
        """sacctmgr, by slurm.conf's AccountingStorageHost/Port, gets an
        answer: slurmdbd listens, authenticates through munge and reaches
        its database."""
        r = subprocess.run(["sacctmgr", "-n", "-P", "show", "cluster"],
                           env=self.env, capture_output=True, text=True,
                           timeout=20)
        self.last_sacctmgr = "" if r.returncode == 0 else r.stderr
        return r.returncode == 0

    def start_slurmdbd(self):
        """slurmdbd in the foreground; back once it answers sacctmgr, which
        needs the cluster's slurm.conf naming it (slurm_conf_lines()).  Its
        first start makes the tables (a few seconds)."""
        self._write_conf()
        self.procs["slurmdbd"] = spawn_daemon(
            self.workdir, "slurmdbd", ["slurmdbd", "-D"], self.env,
            self.keep)
        self._wait(self._dbd_answers, "slurmdbd to answer")

    def stop_slurmdbd(self):
        """slurmdbd alone (SIGTERM, SIGKILL after 20 s); MariaDB keeps the
        data for start_slurmdbd()."""
        terminate(self.procs.pop("slurmdbd", None))

    # -- both ------------------------------------------------------------
    def start(self):
        """MariaDB, then slurmdbd; on failure both are stopped and the
        ClusterStartError carries their logs."""
        try:
            self.start_mariadb()
            self.start_slurmdbd()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self):
        """slurmdbd, then MariaDB (SIGTERM, SIGKILL after 20 s each).
        Never raises: it runs in teardown and error paths."""
        self.stop_slurmdbd()
        terminate(self.procs.pop("mariadbd", None))

    def detach(self):
        """Leave both daemons running (Cluster.detach()); stop_kept()
        stops them by their process names."""
        self.procs.clear()
