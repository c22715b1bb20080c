# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-report's command line: options (sacct's -S, -E, -u, -A, -j and
-a passed through), the two sacct queries, and exit statuses: 0; 1 when
sacct fails (its message) or the figure cannot be drawn; 2 for a bad
option or value, named."""

import argparse
import os
import re
import sys
import time

from . import PROG, RECORD_MAJOR, VERSION, accounting, energy, output, plot
from .output import escape

SYSTEM_PYTHON = "/usr/bin/python3"
_JOB = re.compile(r"\d+(_\d+)?(\+\d+)?")


class Usage(Exception):
    """A bad option or value: exit 2 with this message."""


def parser():
    ap = argparse.ArgumentParser(
        prog=PROG, allow_abbrev=False,
        description="Each job's energy from Slurm's accounting (sacct), "
        "per job or summed per user, account, partition, application, "
        "class or policy, with cosched's decisions.",
        epilog="See cosched-report(1).")
    ap.add_argument("-S", "--starttime", metavar="TIME",
                    help="passed to sacct -S (default: sacct's)")
    ap.add_argument("-E", "--endtime", metavar="TIME",
                    help="passed to sacct -E (default: sacct's)")
    ap.add_argument("-u", "--user", "--uid", metavar="USERS",
                    help="passed to sacct -u: these users' jobs")
    ap.add_argument("-A", "--account", "--accounts", metavar="ACCOUNTS",
                    help="passed to sacct -A: these accounts' jobs")
    ap.add_argument("-j", "--jobs", metavar="JOBIDS",
                    help="passed to sacct -j: these jobs (ids separated "
                    "by commas)")
    ap.add_argument("-a", "--allusers", action="store_true",
                    help="passed to sacct -a: every user's jobs that sacct "
                    "shows you")
    ap.add_argument("--by", default="job",
                    choices=("job",) + energy.GROUPS,
                    help="one row per job (default) or per group")
    ap.add_argument("--csv", action="store_true", help="print CSV")
    ap.add_argument("--json", action="store_true",
                    help="print one JSON document")
    ap.add_argument("--plot", metavar="FILE",
                    help="also draw the figure into FILE.png or FILE.svg")
    ap.add_argument("--dpi", type=int, default=plot.DEFAULT_DPI,
                    help=f"the figure's resolution (default "
                    f"{plot.DEFAULT_DPI}: {plot.WIDTH_IN * plot.DEFAULT_DPI}"
                    f"x{plot.HEIGHT_IN * plot.DEFAULT_DPI} pixels)")
    ap.add_argument("-V", "--version", action="version",
                    version=f"{PROG} (cosched {VERSION}); reads decision "
                    f"records cosched/{RECORD_MAJOR}.x")
    return ap


def _has_control(text):
    return escape(text) != text.replace("\\", "\\\\")


def check(a):
    """Values argparse does not judge; raises Usage naming the option."""
    for opt, value in (("-S/--starttime", a.starttime),
                       ("-E/--endtime", a.endtime), ("-u/--user", a.user),
                       ("-A/--account", a.account), ("-j/--jobs", a.jobs),
                       ("--plot", a.plot)):
        if value is None:
            continue
        if not value.strip() or _has_control(value):
            raise Usage(f"{opt} '{escape(value)}': expected a value without "
                        "control characters")
    if a.jobs is not None:
        for item in a.jobs.split(","):
            if not _JOB.fullmatch(item):
                raise Usage(f"-j/--jobs '{escape(a.jobs)}': '{escape(item)}' "
                            "is not a job id (123, 123_4 or 123+1; steps are "
                            "not reported alone)")
    if a.csv and a.json:
        raise Usage("--csv and --json: choose one")
    if a.plot is not None:
        fmt = a.plot.rsplit(".", 1)[-1].lower() if "." in a.plot else ""
        if fmt not in ("png", "svg"):
            raise Usage(f"--plot '{escape(a.plot)}': expected a file name "
                        "ending in .png or .svg")
    if not 10 <= a.dpi <= 1000:
        raise Usage(f"--dpi {a.dpi}: expected 10 to 1000")


def sacct_args(a):
    out = []
    for flag, value in (("-S", a.starttime), ("-E", a.endtime),
                        ("-u", a.user), ("-A", a.account), ("-j", a.jobs)):
        if value is not None:
            out += [flag, value]
    if a.allusers:
        out.append("-a")
    return out


def sacct_failed(e, a):
    """A sacct error on the caller's query: Usage when it refused one of
    the caller's values (a time, a user), else the error as it is."""
    msg = e.message
    if "Invalid time specification" in msg:
        named = [(o, v) for o, v in (("-S/--starttime", a.starttime),
                                     ("-E/--endtime", a.endtime))
                 if v is not None and v in msg] or \
                [("-S/--starttime", a.starttime), ("-E/--endtime", a.endtime)]
        opts = " or ".join(f"{o} '{escape(v)}'" for o, v in named
                           if v is not None)
        return Usage(f"{opts}: sacct does not take this time "
                     f"({escape(msg)})")
    m = re.search(r"Invalid user id: (.*)", msg)
    if m and a.user is not None:
        return Usage(f"-u/--user '{escape(a.user)}': no such user "
                     f"({escape(msg)})")
    return e


def _matplotlib_or_reexec(argv):
    """Import matplotlib for --plot; a python3 without it (a pyenv or
    venv first on PATH) hands over to the system's, which Debian's
    python3-matplotlib serves.  Returns an error message or None."""
    try:
        plot.load_matplotlib()
        return None
    except ImportError as e:
        launcher = os.path.abspath(sys.argv[0])
        if os.path.exists(SYSTEM_PYTHON) and os.path.isfile(launcher) and \
                os.path.realpath(sys.executable) != \
                os.path.realpath(SYSTEM_PYTHON):
            sys.stdout.flush()
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, launcher, *argv])
        return (f"--plot needs matplotlib: {e} (Debian: python3-matplotlib;"
                " scripts/install-deps installs it)")


def all_steps(job_ids, chunk=200):
    """Every step line of these jobs, whatever the window."""
    steps = []
    for i in range(0, len(job_ids), chunk):
        ids = ",".join(job_ids[i:i + chunk])
        steps += [r for r in accounting.sacct_rows(
                      ["-j", ids], accounting.JOB_FIELDS)
                  if "." in r["JobIDRaw"]]
    return steps


def report(a, now):
    """The two sacct queries and everything computed from them."""
    try:
        rows = accounting.sacct_rows(sacct_args(a), accounting.JOB_FIELDS)
        if a.starttime or a.endtime:
            # sacct gives only the steps that overlap -S/-E: a job's
            # steps outside the window would be missing from its sum.
            # All of them, by job id (sacct -j without a window: since
            # the epoch).
            ids = [r["JobIDRaw"] for r in rows if "." not in r["JobIDRaw"]]
            rows = [r for r in rows if "." not in r["JobIDRaw"]] + \
                all_steps(ids)
    except accounting.SacctError as e:
        raise sacct_failed(e, a)
    jobs, never = energy.build_jobs(rows, now)
    if jobs:
        # Every job sacct shows the caller over the jobs' span: their
        # co-runners, whoever's they are (as far as sacct shows them).
        span = ["-a", "-X",
                "-S", accounting.sacct_time(min(j["start"] for j in jobs)),
                "-E", accounting.sacct_time(max(j["_until"] for j in jobs))]
        energy.add_co_runners(
            jobs, accounting.sacct_rows(span, accounting.SPAN_FIELDS), now)
    energy.add_savings(jobs)
    return jobs, never


def main(argv=None):
    try:
        return _main(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:
        # The reader went away (| head): nothing more to say to it.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _main(argv):
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(errors="backslashreplace")
    ap = parser()
    a = ap.parse_args(argv)
    try:
        check(a)
    except Usage as e:
        ap.error(str(e))
    if a.plot is not None:
        why = _matplotlib_or_reexec(argv)
        if why:
            print(f"{PROG}: {why}", file=sys.stderr)
            return 1
    try:
        jobs, never = report(a, int(time.time()))
    except Usage as e:
        ap.error(str(e))
    except accounting.SacctError as e:
        print(f"{PROG}: sacct failed: " + "\n".join(
            escape(l) for l in e.message.splitlines()), file=sys.stderr)
        return 1
    aggregates = {g: energy.aggregate(jobs, g) for g in energy.GROUPS}
    notes = energy.notes(jobs, never)
    series = plot.series(jobs, a.dpi, a.plot)
    if a.plot is not None:
        try:
            plot.draw(series, a.plot, a.plot.rsplit(".", 1)[-1].lower(),
                      escape)
        except (OSError, ValueError) as e:
            print(f"{PROG}: --plot {escape(a.plot)}: {escape(str(e))}",
                  file=sys.stderr)
            return 1
    rows = jobs if a.by == "job" else aggregates[a.by]
    if a.json:
        window = {"starttime": a.starttime, "endtime": a.endtime}
        output.write_json(output.document(
            jobs, aggregates, a.by, window, energy.unknown_counts(jobs),
            notes, never, series, energy.public), sys.stdout)
    elif a.csv:
        output.write_csv(rows, a.by, sys.stdout, sys.stdout.isatty())
        for n in notes:
            print(escape(n), file=sys.stderr)
    else:
        output.table(rows, a.by, notes, sys.stdout)
    return 0
