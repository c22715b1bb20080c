# SPDX-License-Identifier: GPL-2.0-or-later
"""A cosched-numad of a test's own on this machine, in the foreground with
its own cosched.conf and log, and cosched-numa to ask it (as root, or as
another user through runuser)."""

import os
import subprocess
import time

import pytest

from cosched_loopback.cluster import default_builddir


def numad_bin(name):
    p = os.path.join(default_builddir(), "src", "numad", name)
    if not os.access(p, os.X_OK):
        pytest.skip(f"no {p}: this build has no node side")
    return p


class NumadDaemon:
    """Started on conf, logging to log, answering on sock once up;
    slurm_user: its -u."""

    def __init__(self, conf, log, sock, slurm_user):
        self.conf, self.log = conf, log
        self.proc = subprocess.Popen(
            [numad_bin("cosched-numad"), "-D", "-f", conf, "-L", log,
             "-u", slurm_user], stdin=subprocess.DEVNULL)
        t0 = time.monotonic()
        while not os.path.exists(sock):
            assert self.proc.poll() is None, self.text()
            assert time.monotonic() - t0 < 10, self.text()
            time.sleep(0.05)

    def text(self):
        try:
            with open(self.log) as f:
                return f.read()
        except OSError:
            return ""

    def numa(self, *args, user=None, timeout=30):
        argv = [numad_bin("cosched-numa"), "-f", self.conf, *map(str, args)]
        if user:
            argv = ["runuser", "-u", user, "--", *argv]
        return subprocess.run(argv, capture_output=True, text=True,
                              timeout=timeout)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
