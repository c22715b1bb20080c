# SPDX-License-Identifier: GPL-2.0-or-later
"""The report of cosched-bench-controller: its runs summarized per variant
(medians and ranges over the repeats, each run also against its repeat's
cons_tres run) and the tables it prints from that summary."""

import statistics

# cosched-bench-controller puts contribs/loopback on the path.
from cosched_loopback.cpu_groups import CpuGroups

BASELINE = "cons_tres"
# The fields of task/cosched's timing line per step, in its order.
STEP_TIMING_KEYS = ["total", "init", "start", "record", "sampler", "tasks",
                    "end", "waited"]
TIMING_KEYS = ["calls", "cosched_cpu_us_per_call", "cosched_wall_us_per_call",
               "cons_tres_cpu_us_per_call", "cons_tres_wall_us_per_call",
               "begin_end_cpu_us_per_call", "plugin_cpu_us_per_job",
               "cosched_wall_us_per_job"]


def summarize(runs, variants):
    """A row per variant: the medians of its runs, their ranges, and each
    run's jobs/s against the cons_tres run of its repeat."""
    base = statistics.median(r["jobs_per_s"] for r in runs
                             if r["variant"] == BASELINE)
    # Each repeat runs every variant back to back: against the same
    # repeat's cons_tres run, what drifts between repeats drops out.
    base_of = {r["repeat"]: r["jobs_per_s"] for r in runs
               if r["variant"] == BASELINE}
    rows = []
    for v in variants:
        mine = [r for r in runs if r["variant"] == v]
        rates = [r["jobs_per_s"] for r in mine]
        ctld = [r["slurmctld_cpu_ms_per_job"] for r in mine]
        # cons_tres's own runs against their median: the spread within
        # which these repeats cannot tell a variant from cons_tres.
        if v == BASELINE:
            paired = [x / base for x in rates]
        else:
            paired = [r["jobs_per_s"] / base_of[r["repeat"]] for r in mine
                      if base_of.get(r["repeat"])]
        row = {"variant": v, "runs": len(mine),
               "jobs_per_s": statistics.median(rates),
               "jobs_per_s_min": min(rates), "jobs_per_s_max": max(rates),
               "ratio": round(statistics.median(rates) / base, 4),
               "paired_ratio": round(statistics.median(paired), 4)
               if paired else None,
               "paired_ratio_min": round(min(paired), 4) if paired else None,
               "paired_ratio_max": round(max(paired), 4) if paired else None,
               "slurmctld_cpu_ms_per_job": statistics.median(ctld),
               "slurmctld_cpu_ms_min": min(ctld),
               "slurmctld_cpu_ms_max": max(ctld),
               "machine_cpu_ms_per_job": statistics.median(
                   r["machine_cpu_ms_per_job"] for r in mine)}
        parts = [r["cpu_ms_per_job_by_part"] for r in mine]
        if all(parts):
            for role in CpuGroups.ROLES:
                row[f"{role}_part_cpu_ms_per_job"] = statistics.median(
                    p[role] for p in parts)
            nodes = [p["nodes"] for p in parts]
            row["nodes_cpu_ms_min"] = min(nodes)
            row["nodes_cpu_ms_max"] = max(nodes)
        steps = [r.get("step_timing_us") for r in mine]
        if all(steps):
            row["step_timing_us"] = {
                k: statistics.median(t[k] for t in steps)
                for k in ["steps"] + STEP_TIMING_KEYS}
        exited = [r.get("exited_cpu_ms_per_job") for r in mine]
        if all(e is not None for e in exited):
            names = set().union(*exited)
            row["exited_cpu_ms_per_job"] = {
                comm: statistics.median(e.get(comm, 0.0) for e in exited)
                for comm in sorted(names)}
        if v != BASELINE:
            for k in TIMING_KEYS:
                row[k] = statistics.median(r["timing"][k] for r in mine)
        rows.append(row)
    return rows


def cpu_table(rows):
    """Where each run's CPU went, per job: slurmctld's own (the control
    plane), and the whole machine's (every daemon of the loopback
    cluster, which shares its CPUs with slurmctld)."""
    base_row = next(r for r in rows if r["variant"] == BASELINE)
    base = base_row["slurmctld_cpu_ms_per_job"]
    # The nodes' part (CpuGroups): the slurmd daemons, steps and jobs,
    # which a real cluster spreads over its nodes, not slurmctld's.
    parts = all("nodes_part_cpu_ms_per_job" in r for r in rows)
    nbase = base_row.get("nodes_part_cpu_ms_per_job")
    out = [f"{'CPU ms per job':<18} {'slurmctld':>9} {'min..max':>13} "
           f"{'ratio':>6} {'machine':>8}" +
           (f" {'nodes':>7} {'min..max':>13} {'ratio':>6}" if parts else "")]
    for r in rows:
        spread = (f"{r['slurmctld_cpu_ms_min']:.2f}.."
                  f"{r['slurmctld_cpu_ms_max']:.2f}")
        line = (f"{r['variant']:<18} {r['slurmctld_cpu_ms_per_job']:>9.2f} "
                f"{spread:>13} "
                f"{r['slurmctld_cpu_ms_per_job'] / base if base else 0:>6.3f} "
                f"{r['machine_cpu_ms_per_job']:>8.2f}")
        if parts:
            nodes = r["nodes_part_cpu_ms_per_job"]
            nspread = (f"{r['nodes_cpu_ms_min']:.2f}.."
                       f"{r['nodes_cpu_ms_max']:.2f}")
            line += (f" {nodes:>7.2f} {nspread:>13} "
                     f"{nodes / nbase if nbase else 0:>6.3f}")
        out.append(line)
    return "\n".join(out)


def paired_table(rows, repeats):
    """Jobs/s of each run against the cons_tres run of its repeat
    (median, min..max), beside cons_tres's own spread: a difference
    inside that spread is not one these repeats can see.  None for a
    single repeat (the ratio says the same then)."""
    if repeats < 2:
        return None
    base = next(r for r in rows if r["variant"] == BASELINE)
    out = [f"{'paired jobs/s':<18} {'ratio':>7} {'min..max':>13}   "
           f"(each run against its repeat's cons_tres run)"]
    for r in rows:
        if r["paired_ratio"] is None:
            continue
        spread = f"{r['paired_ratio_min']:.3f}..{r['paired_ratio_max']:.3f}"
        out.append(f"{r['variant']:<18} {r['paired_ratio']:>7.3f} "
                   f"{spread:>13}" +
                   ("   (its runs against their median)"
                    if r is base else ""))
    return "\n".join(out)


EXITED_COLUMNS = 4


def exited_table(rows):
    """The CPU a job of the threads that exited during the runs, by
    program (medians over a variant's runs): the EXITED_COLUMNS programs
    that spent most over all variants, the rest as other; None where
    taskstats was not had."""
    if not all("exited_cpu_ms_per_job" in r for r in rows):
        return None
    spent = {}
    for r in rows:
        for comm, ms in r["exited_cpu_ms_per_job"].items():
            spent[comm] = spent.get(comm, 0.0) + ms
    top = sorted(spent, key=lambda c: -spent[c])[:EXITED_COLUMNS]
    width = max([15] + [len(c) for c in top])
    out = [f"{'exited, ms/job':<18} " +
           " ".join(f"{c:>{width}}" for c in top) +
           f" {'other':>7} {'total':>7}"]
    for r in rows:
        e = r["exited_cpu_ms_per_job"]
        other = sum(ms for comm, ms in e.items() if comm not in top)
        out.append(f"{r['variant']:<18} " +
                   " ".join(f"{e.get(c, 0.0):>{width}.2f}" for c in top) +
                   f" {other:>7.2f} {sum(e.values()):>7.2f}")
    return "\n".join(out)


def step_table(rows):
    """task/cosched's time per step on the nodes, a row per variant
    (medians over the runs of each run's median); None when a run had no
    step timing lines."""
    if not all("step_timing_us" in r for r in rows):
        return None
    out = [f"{'task/cosched, us':<18} {'steps':>6} " +
           " ".join(f"{k:>7}" for k in STEP_TIMING_KEYS) +
           "   (CPU in slurmstepd a step; waited: wall)"]
    for r in rows:
        t = r["step_timing_us"]
        out.append(f"{r['variant']:<18} {t['steps']:>6g} " +
                   " ".join(f"{t[k]:>7.0f}" for k in STEP_TIMING_KEYS))
    return "\n".join(out)


def table(rows):
    head1 = (f"{'':<18} {'':>7} {'':>13} {'':>6} {'job_test':>8}  "
             f"{'cosched us/call':>15}  {'cons_tres us/call':>17}  "
             f"{'plugin':>7}")
    head2 = (f"{'variant':<18} {'jobs/s':>7} {'min..max':>13} {'ratio':>6} "
             f"{'calls':>8}  {'CPU':>7} {'wall':>7}  {'CPU':>8} {'wall':>8}  "
             f"{'us/job':>7}")
    out = [head1, head2]
    for r in rows:
        spread = f"{r['jobs_per_s_min']:.1f}..{r['jobs_per_s_max']:.1f}"
        line = (f"{r['variant']:<18} {r['jobs_per_s']:>7.1f} {spread:>13} "
                f"{r['ratio']:>6.3f} ")
        if "calls" in r:
            line += (f"{r['calls']:>8g}  {r['cosched_cpu_us_per_call']:>7.2f} "
                     f"{r['cosched_wall_us_per_call']:>7.2f}  "
                     f"{r['cons_tres_cpu_us_per_call']:>8.2f} "
                     f"{r['cons_tres_wall_us_per_call']:>8.2f}  "
                     f"{r['plugin_cpu_us_per_job']:>7.2f}")
        else:
            line += (f"{'-':>8}  {'-':>7} {'-':>7}  {'-':>8} {'-':>8}  "
                     f"{'-':>7}")
        out.append(line)
    return "\n".join(out)
