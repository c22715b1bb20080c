# SPDX-License-Identifier: GPL-2.0-or-later
"""The report as an aligned table (sacct's layout: a header, a line of
dashes, one row per job or group), as CSV and as one JSON document.

Strings that users and sites control (job names, accounts, AdminComment
text) are escaped for the table: no control character reaches the
terminal (a line end is \\n, ESC is \\x1b, a backslash is \\\\).  CSV holds
them as they are (RFC 4180), a text cell that would start a spreadsheet
formula prefixed with ', every cell holding a line end, a quote or a
comma or so prefixed quoted, and escaped like the table when standard
output is a terminal.  JSON escapes every control
character as JSON does.
"""

import json
import unicodedata

from . import RECORD_MAJOR, SCHEMA

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def escape(text):
    """text with every control or format character (Unicode Cc, Cf, Zl,
    Zp: ESC, line ends, bidirectional overrides) written as an escape."""
    out = []
    for ch in str(text):
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs"):
            o = ord(ch)
            out.append(f"\\x{o:02x}" if o < 0x100 else
                       f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")
        else:
            out.append(ch)
    return "".join(out)


def _text(v):
    return "-" if v in (None, "") else str(v)


def _int(v):
    return "-" if v is None else str(int(v))


def _energy(v):
    return "unknown" if v is None else str(int(v))


def _kwh(v):
    return "-" if v is None else f"{v:.6f}"


def _watts(v):
    return "-" if v is None else f"{v:.1f}"


def _pct(v):
    return "-" if v is None else f"{v * 100:.1f}%"


def _list(v):
    return ",".join(v) if v else "-"


# (header, key, format, right-aligned)
JOB_COLUMNS = (
    ("JobID", "job_id", _text, False),
    ("User", "user", _text, False),
    ("Account", "account", _text, False),
    ("Partition", "partition", _text, False),
    ("NodeList", "nodelist", _text, False),
    ("State", "state", _text, False),
    ("App", "app", _text, False),
    ("Class", "class", _text, False),
    ("Policy", "policy", _text, False),
    ("FreqKHz", "freq_khz", _int, True),
    ("RuntimeS", "runtime_s", _int, True),
    ("EnergyJ", "energy_j", _energy, True),
    ("KWh", "kwh", _kwh, True),
    ("AvgW", "avg_power_w", _watts, True),
    ("EDPJs", "edp_js", _int, True),
    ("CoRunners", "co_runners", _list, False),
    ("Saved", "savings", _pct, True),
    ("BaseRuns", "baseline_runs", _int, True),
)
GROUP_COLUMNS = (
    ("Jobs", "jobs", _int, True),
    ("Unknown", "unknown_jobs", _int, True),
    ("RuntimeS", "runtime_s", _int, True),
    ("EnergyJ", "energy_j", _energy, True),
    ("KnownJ", "known_energy_j", _int, True),
    ("KWh", "kwh", _kwh, True),
    ("AvgW", "avg_power_w", _watts, True),
    ("Saved", "savings", _pct, True),
    ("Compared", "savings_jobs", _int, True),
    ("BaseRuns", "baseline_runs", _int, True),
)
# --by's key -> the header of its first column.
BY_HEADER = {"user": "User", "account": "Account", "partition": "Partition",
             "app": "App", "class": "Class", "policy": "Policy"}


def columns(by):
    if by == "job":
        return JOB_COLUMNS
    return ((BY_HEADER[by], "name", _text, False),) + GROUP_COLUMNS


def cells(rows, by):
    """[header, row...], each a list of strings (not yet escaped)."""
    cols = columns(by)
    return [[h for h, _, _, _ in cols]] + [
        [fmt(r[key]) for _, key, fmt, _ in cols] for r in rows]


def table(rows, by, notes, out):
    """The aligned table, then the notes, one a line."""
    cols = columns(by)
    grid = [[escape(c) for c in line] for line in cells(rows, by)]
    widths = [max(len(line[i]) for line in grid) for i in range(len(cols))]

    def line(values):
        return " ".join(v.rjust(w) if right else v.ljust(w)
                        for v, w, (_, _, _, right) in
                        zip(values, widths, cols)).rstrip()

    out.write(line(grid[0]) + "\n")
    out.write(" ".join("-" * w for w in widths) + "\n")
    for values in grid[1:]:
        out.write(line(values) + "\n")
    for n in notes:
        out.write(escape(n) + "\n")


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# A spreadsheet ends a row at any of these, even where RFC 4180 says a
# reader should not, unless the cell is quoted.
_QUOTE_FOR = ("\r", "\n", '"', ",")


def csv_text(text):
    """A text cell as a spreadsheet will show it and never run: one that
    starts like a formula (=, +, -, @, or a tab or carriage return before
    one) gets a leading ' (OWASP's advice against CSV injection); job
    names are the users' own."""
    if len(text) > 1 and text.startswith(_FORMULA_START):
        return "'" + text
    return text     # "-", the table's "none", is no formula


def csv_cell(text):
    """One cell as written: quoted when it holds a line end, a quote or a
    comma, or starts like a formula (then already prefixed by csv_text),
    so that the prefix and the whole cell stay inside one pair of quotes;
    Python's csv quotes a lone CR only when it is in the line terminator,
    so a CR before a formula would start a row of its own."""
    if text.startswith("'") or any(c in text for c in _QUOTE_FOR):
        return '"' + text.replace('"', '""') + '"'
    return text


def write_csv(rows, by, out, terminal):
    """The table's cells as CSV (header first), each cell as csv_cell
    writes it, text cells kept from running as formulas (csv_text;
    numbers, the right-aligned columns, are left as they are); escaped as
    the table's when out is a terminal."""
    text_col = [not right for _, _, _, right in columns(by)]
    for i, line in enumerate(cells(rows, by)):
        if i:
            line = [csv_text(c) if t else c for c, t in zip(line, text_col)]
        if terminal:
            line = [escape(c) for c in line]
        out.write(",".join(csv_cell(c) for c in line) + "\n")


def document(jobs, aggregates, by, window, unknown, notes, never, plot,
             public):
    """The --json document (cosched-report(1), JSON)."""
    return {
        "schema": SCHEMA,
        "record_schema": f"cosched/{RECORD_MAJOR}",
        "by": by,
        "window": window,
        "jobs": [public(j) for j in jobs],
        "aggregates": aggregates,
        "unknown_energy": unknown,
        "never_started": never,
        "notes": notes,
        "plot": plot,
    }


def write_json(doc, out):
    json.dump(doc, out, indent=1, ensure_ascii=True)
    out.write("\n")
