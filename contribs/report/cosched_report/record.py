# SPDX-License-Identifier: GPL-2.0-or-later
"""The decision record (cosched(8), DECISION RECORD) as Python reads it:
the one reader of the record's text in Python, which the loopback
cluster shares (contribs/loopback/cosched_loopback/cluster.py).  The
report reads it from a job's AdminComment: slurmctld copies the record line there
(RecordInAdminComment, cosched.conf(5)) because Slurm sends AdminComment
to slurmdbd and never SystemComment.

The record is the one line of AdminComment that starts with "cosched/";
every other line is the site's and is ignored.  A record is read as
cosched(8) says readers read it, with what a report needs:
  - two lines starting with "cosched/": neither is believed (invalid);
  - cosched/MAJOR[.MINOR]: MAJOR must be this report's (1); a newer
    minor's keys this report does not know are skipped, quoted values too;
  - KEY=VALUE pairs separated by one blank, VALUE a run of non-blanks or
    a double-quoted string with \\" and \\\\ escapes;
  - job, state, policy and scope must be there, and job must be the job's
    own id (Slurm copies a comment to the job it splits off an array).
"""

import re

from . import RECORD_MAJOR

_TAG = re.compile(r"cosched/(\d+)(?:\.(\d+))?")
_KEY = re.compile(r"[a-z][a-z0-9_]*")
_NAME = re.compile(r"[a-z][a-z0-9_]*")
REQUIRED = ("job", "state", "policy", "scope")


class RecordError(ValueError):
    pass


def _shorten(text, n=40):
    return text if len(text) <= n else text[:n] + "..."


def _pairs(text):
    """'a=1 b="x \\"y\\""' -> [("a", "1"), ("b", 'x "y"')]."""
    out, i, n = [], 0, len(text)
    while i < n:
        eq = text.find("=", i)
        if eq < 0:
            raise RecordError(f"no '=' in {_shorten(text[i:])!r}")
        key = text[i:eq]
        if not _KEY.fullmatch(key):
            raise RecordError(f"bad key {_shorten(key)!r}")
        i = eq + 1
        if i < n and text[i] == '"':
            i += 1
            val = []
            while True:
                if i >= n:
                    raise RecordError(f"{key}: unterminated quoted value")
                ch = text[i]
                if ch == "\\":
                    if i + 1 >= n or text[i + 1] not in '"\\':
                        raise RecordError(f"{key}: bad escape")
                    val.append(text[i + 1])
                    i += 2
                elif ch == '"':
                    i += 1
                    break
                else:
                    val.append(ch)
                    i += 1
            value = "".join(val)
        else:
            end = text.find(" ", i)
            end = n if end < 0 else end
            value = text[i:end]
            i = end
        out.append((key, value))
        if i < n:
            if text[i] != " " or i + 1 >= n:
                raise RecordError(f"{key}: bytes after its value")
            i += 1
    return out


def parse(line):
    """A record line -> dict of its keys, each value as the record writes
    it (a quoted one unquoted; schema under "schema"); RecordError when it
    cannot be believed."""
    tag, _, rest = line.partition(" ")
    m = _TAG.fullmatch(tag)
    if not m:
        raise RecordError(f"bad schema {_shorten(tag)!r}")
    if int(m.group(1)) != RECORD_MAJOR:
        raise RecordError(f"decision record schema {tag} is not "
                          f"cosched/{RECORD_MAJOR}.x, which this report reads")
    rec = {"schema": tag}
    for key, value in _pairs(rest):
        if key in rec:
            raise RecordError(f"{key} given twice")
        rec[key] = value
    for key in REQUIRED:
        if key not in rec:
            raise RecordError(f"no {key}")
    for key in ("state", "policy", "scope", "class"):
        if key in rec and not _NAME.fullmatch(rec[key]):
            raise RecordError(f"{key}={_shorten(rec[key])!r}")
    if "freq_khz" in rec:
        f = rec["freq_khz"]
        if not (f.isdigit() and 1 <= int(f) <= 100000000):
            raise RecordError(f"freq_khz={_shorten(f)!r}")
    return rec


def from_admin_comment(admin_comment, job_id_raw):
    """(record dict or None, error or None) for a job's AdminComment:
    (None, None) when it holds no record.  freq_khz, which the report
    counts with, is an int."""
    lines = [l.rstrip("\r") for l in admin_comment.split("\n")]
    found = [l for l in lines if l.startswith("cosched/")]
    if not found:
        return None, None
    if len(found) > 1:
        return None, (f"{len(found)} lines start with cosched/: "
                      "neither is believed")
    try:
        rec = parse(found[0])
    except RecordError as e:
        return None, str(e)
    if rec["job"] != str(job_id_raw):
        return None, (f"the record names job {_shorten(rec['job'])}, not "
                      f"{job_id_raw} (copied from another job)")
    if "freq_khz" in rec:
        rec["freq_khz"] = int(rec["freq_khz"])
    return rec, None
