# SPDX-License-Identifier: GPL-2.0-or-later
"""Slurm's accounting as sacct shows it to the caller: sacct --parsable2
run and its lines read back into rows, and the host lists in them.

Nothing here reads the database: every figure comes from `sacct`, run
with the caller's environment (SLURM_CONF included), so a user sees what
sacct shows that user (PrivateData applies).  Times are asked for as Unix
seconds (SLURM_TIME_FORMAT=%s, for sacct alone).

Fields are separated by a delimiter made afresh for every run (sacct takes
a string): a job's name or a comment cannot hold it, so no user can forge
a field or a line.  Fields may hold line ends (AdminComment has several
lines; sacct prints them as they are), so rows are found by counting
fields, the first and last field of every row being the job id (which
never holds a line end), and each row is checked by those two.
"""

import os
import re
import secrets
import subprocess
import time

SACCT_TIMEOUT = 600

# One job line and its steps: what the report reads of each.
JOB_FIELDS = ("JobIDRaw", "JobID", "JobName", "User", "Account", "Partition",
              "NodeList", "State", "Start", "End", "ElapsedRaw",
              "ConsumedEnergyRaw", "AdminComment")
# Every job in a time span, for the co-runners (job lines only).
SPAN_FIELDS = ("JobIDRaw", "JobID", "NodeList", "State", "Start", "End")

_JOBID_RAW = re.compile(r"\d+(\.[A-Za-z0-9_+-]+)?")


class SacctError(Exception):
    """sacct failed: message is what it said (or why it could not run)."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status


def sacct_rows(args, fields, sacct="sacct"):
    """Run sacct with args and -o fields; one dict per line (job and step
    lines alike), keyed by field name, in sacct's order."""
    delim = "\x1f" + secrets.token_hex(8) + "\x1e"
    argv = [sacct, "--parsable2", "--noheader", f"--delimiter={delim}",
            "-o", ",".join(fields + ("JobIDRaw",)), *args]
    env = dict(os.environ, SLURM_TIME_FORMAT="%s")
    try:
        r = subprocess.run(argv, env=env, capture_output=True,
                           timeout=SACCT_TIMEOUT, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise SacctError(f"{sacct}: not found (Slurm's client commands "
                         "must be on PATH)")
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SacctError(f"{sacct}: {e}")
    out = r.stdout.decode("utf-8", "replace")
    err = r.stderr.decode("utf-8", "replace").strip()
    if r.returncode != 0:
        raise SacctError(err or f"{sacct} exited with status {r.returncode}",
                         r.returncode)
    return parse_rows(out, delim, fields)


def parse_rows(text, delim, fields):
    """sacct --parsable2 --noheader output with -o fields + (JobIDRaw,)
    -> [dict]; raises SacctError when a row does not check."""
    if not text:
        return []
    n = len(fields) + 1
    tokens = text.split(delim)
    rows, cur = [], [tokens[0]]
    for tok in tokens[1:]:
        if len(cur) == n - 1:
            # The row's last field (a job id: no line end), then the next
            # row's first.
            last, _, first = tok.partition("\n")
            cur.append(last)
            rows.append(cur)
            cur = [first]
        else:
            cur.append(tok)
    if cur != [""]:
        raise SacctError("sacct's output does not parse: a line with "
                         f"{len(cur)} of {n} fields at its end")
    out = []
    for row in rows:
        if row[0] != row[-1] or not _JOBID_RAW.fullmatch(row[0]):
            raise SacctError("sacct's output does not parse: a line "
                             f"starting {row[0][:40]!r}")
        out.append(dict(zip(fields, row)))
    return out


def epoch(value):
    """sacct's Start or End (SLURM_TIME_FORMAT=%s) -> int, or None when
    not set ("Unknown", "None")."""
    value = value.strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def sacct_time(t):
    """Unix seconds -> a time sacct's -S and -E take (local time)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


def _expand_group(body):
    """"1-3,07" -> ["1", "2", "3", "07"]: zero padding of the lower bound
    kept, as Slurm keeps it."""
    out = []
    for part in body.split(","):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise ValueError(f"bad range {part!r}")
        if not sep:
            out.append(lo)
            continue
        width = len(lo) if lo.startswith("0") else 0
        a, b = int(lo), int(hi)
        if b < a or b - a > 100000:
            raise ValueError(f"bad range {part!r}")
        out += [str(i).zfill(width) for i in range(a, b + 1)]
    return out


def _expand_name(name):
    """"rack[1-2]-n[1,3]" -> every combination, in Slurm's order."""
    m = re.search(r"\[([^\[\]]*)\]", name)
    if not m:
        if "[" in name or "]" in name:
            raise ValueError(f"unbalanced brackets in {name!r}")
        return [name]
    head, tail = name[:m.start()], name[m.end():]
    return [head + i + rest for i in _expand_group(m.group(1))
            for rest in _expand_name(tail)]


def expand_hostlist(text):
    """A Slurm host list ("n[1-3],n7", "gpu[01-02]-ib") -> node names;
    [] for none ("", "None assigned"); ValueError when it does not read."""
    text = text.strip()
    if not text or text.startswith("None"):
        return []
    names, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced brackets in {text!r}")
        if ch == "," and depth == 0:
            names.append(cur)
            cur = ""
        else:
            cur += ch
    names.append(cur)
    out, seen = [], set()
    for n in names:
        for x in _expand_name(n) if n else ():
            if x not in seen:
                seen.add(x)
                out.append(x)
    return out
