# SPDX-License-Identifier: GPL-2.0-or-later
"""Users other than root on a loopback cluster: the tests where one
user's jobs must not steer another's (test_profiler.py, test_learn.py)
create them, open the cluster to them and submit as them."""
import os
import pwd
import subprocess


def open_to_users(c):
    """Let users other than root read the cluster's configuration and
    reach its munged, as on a real cluster."""
    for d, _, files in os.walk(c.workdir):
        os.chmod(d, os.stat(d).st_mode | 0o055)
        for f in files:
            p = os.path.join(d, f)
            # slurmctld renames its state files into place as it saves
            # them: a temporary one may be gone already.
            try:
                if not os.path.islink(p):
                    os.chmod(p, os.stat(p).st_mode | 0o044)
            except FileNotFoundError:
                pass


def local_user(name):
    """A local user for a second job owner (created once, no home): its
    uid."""
    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home",
                        "--shell", "/usr/sbin/nologin", name], check=True)
        return pwd.getpwnam(name).pw_uid


def sbatch_as(c, user, *args):
    """sbatch as user (working in /tmp, no output file): the job id."""
    r = subprocess.run(
        ["runuser", "-u", user, "--", "sbatch", "--parsable",
         "--chdir=/tmp", "--output=/dev/null", *args],
        env=c.env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().split(";")[0])
