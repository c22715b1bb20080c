# SPDX-License-Identifier: GPL-2.0-or-later
"""Jobs from sacct's lines: each job's energy, runtime, co-runners and
savings against its application's runs under policy none, and the sums
over users, accounts, partitions, applications, classes and policies.

A job's energy is the sum of ConsumedEnergyRaw over all its step lines
(batch, extern, 0, 1, ...), never its job line's: Slurm's job line is the
sum of its srun steps only, and with acct_gather_energy/cosched the batch
step has a share of its own (cosched(8), ENERGY, "In Slurm's accounting").
An empty field is Slurm's NO_VAL, unknown, never 0: one unknown step line
makes the job's energy unknown, except the extern step's, which no
sampler measures (counted when known, else left out).

Figures are never invented: a job whose energy is unknown has no power,
EDP or savings, and a sum over jobs one of which is unknown is unknown (the
sum of the known ones is given beside it, with how many are unknown).
"""

import bisect
import statistics

from . import accounting, record

# Why a job's energy is unknown, most telling first.
UNKNOWN = {
    "running": "still running: Slurm accounts a step's energy when it ends",
    "no_steps": "no step lines in Slurm's accounting (no step ran, or "
                "slurmdbd does not have them yet)",
    "no_energy": "their nodes measured no energy (no RAPL, or no cosched "
                 "sampler measured a step), see cosched(8) ENERGY",
}
GROUPS = ("user", "account", "partition", "app", "class", "policy")
# Job states after which nothing more is accounted (sacct's State).
_ENDED = {"BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED",
          "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "REQUEUED", "REVOKED",
          "TIMEOUT"}


def _step_energy(value):
    """ConsumedEnergyRaw -> int joules, or None (empty: unknown)."""
    value = value.strip()
    return int(value) if value.isdigit() else None


def _job_id_key(job):
    raw = job["job_id_raw"]
    return (int(raw) if raw.isdigit() else 0, raw)


def build_jobs(rows, now):
    """sacct's job and step lines -> (jobs that ran, count of jobs that
    never started).  Each job a dict (the keys of cosched-report(1),
    JSON, "jobs")."""
    jobs, steps = {}, {}
    for row in rows:
        raw = row["JobIDRaw"]
        if "." in raw:
            steps.setdefault(raw.split(".", 1)[0], []).append(row)
        else:
            jobs[raw] = row
    out, never = [], 0
    for raw, row in jobs.items():
        start = accounting.epoch(row["Start"])
        if start is None:
            never += 1
            continue
        out.append(_job(raw, row, steps.get(raw, []), start, now))
    out.sort(key=_job_id_key)
    return out, never


def _job(raw, row, step_rows, start, now):
    state = row["State"].split()[0] if row["State"] else ""
    end = accounting.epoch(row["End"])
    # A resized job's earlier record ends RESIZING, with its end set.
    running = end is None or state not in _ENDED | {"RESIZING"}
    try:
        runtime = int(row["ElapsedRaw"])
    except ValueError:
        runtime = max(0, (end or now) - start)
    try:
        nodes = accounting.expand_hostlist(row["NodeList"])
    except ValueError:
        nodes = []
    energy, unknown = 0, None
    for s in step_rows:
        e = _step_energy(s["ConsumedEnergyRaw"])
        if e is not None:
            energy += e
        elif not s["JobIDRaw"].endswith(".extern"):
            unknown = "no_energy"
    if not step_rows:
        unknown = "no_steps"
    if running:
        unknown = "running"
    if unknown:
        energy = None
    rec, rec_error = record.from_admin_comment(row["AdminComment"], raw)
    rec = rec or {}
    job = {
        "job_id": row["JobID"], "job_id_raw": raw, "name": row["JobName"],
        "user": row["User"], "account": row["Account"],
        "partition": row["Partition"], "nodelist": row["NodeList"],
        "nodes": nodes, "state": state, "start": start,
        "end": None if running else end, "runtime_s": runtime,
        "steps": len(step_rows), "energy_j": energy,
        "energy_unknown": unknown,
        "kwh": None if energy is None else energy / 3.6e6,
        "avg_power_w": energy / runtime if energy is not None and runtime
        else None,
        "edp_js": None if energy is None else energy * runtime,
        "record": "valid" if rec else ("invalid" if rec_error else "none"),
        "record_error": rec_error,
        "app": rec.get("app") or row["JobName"],
        "class": rec.get("class"), "policy": rec.get("policy"),
        "record_state": rec.get("state"), "freq_khz": rec.get("freq_khz"),
        "co_runners": [], "baseline_j": None, "baseline_runs": 0,
        "savings": None,
    }
    # The end co-runners are counted to: now for a job still running.
    job["_until"] = end if end is not None and not running else now
    return job


def add_co_runners(jobs, span_rows, now):
    """Each job's co_runners: the other jobs (of span_rows, every job
    sacct shows in the jobs' time span) whose [Start, End) overlapped its
    own on a node they shared.  A job still running counts until now; one
    that ran less than a second (sacct's times are whole seconds) holds
    [Start, Start + 1)."""
    per_node = {}   # node -> [(start, end, raw, shown)], sorted by start
    for row in span_rows:
        if "." in row["JobIDRaw"]:
            continue
        start = accounting.epoch(row["Start"])
        if start is None:
            continue
        state = row["State"].split()[0] if row["State"] else ""
        end = accounting.epoch(row["End"])
        if end is None or state not in _ENDED:
            end = now
        end = max(end, start + 1)   # less than a second: its second
        try:
            nodes = accounting.expand_hostlist(row["NodeList"])
        except ValueError:
            continue
        for n in nodes:
            per_node.setdefault(n, []).append(
                (start, end, row["JobIDRaw"], row["JobID"]))
    # Per node its jobs by start, and its longest job: a job overlapping
    # [s, e) started after s minus that.
    index = {}
    for n, spans in per_node.items():
        spans.sort()
        index[n] = ([sp[0] for sp in spans], spans,
                    max(sp[1] - sp[0] for sp in spans))
    for job in jobs:
        s, e = job["start"], max(job["_until"], job["start"] + 1)
        found = {}
        for n in job["nodes"]:
            if n not in index:
                continue
            starts, spans, longest = index[n]
            lo = bisect.bisect_left(starts, s - longest)
            hi = bisect.bisect_left(starts, e)
            for os_, oe, raw, shown in spans[lo:hi]:
                if raw != job["job_id_raw"] and s < oe:
                    found[raw] = shown
        job["co_runners"] = [found[r] for r in sorted(
            found, key=lambda r: (int(r) if r.isdigit() else 0, r))]


def baselines(jobs):
    """{app: [energy of each of its runs under policy none]}: the jobs
    whose record says policy=none and whose energy is known."""
    out = {}
    for j in jobs:
        if j["policy"] == "none" and j["energy_j"] is not None:
            out.setdefault(j["app"], []).append(j)
    return out


def add_savings(jobs):
    """Each job's baseline_j (the median energy of its application's runs
    under policy none), baseline_runs and savings (1 - energy/baseline);
    None where there is no baseline or the energy is unknown."""
    base = baselines(jobs)
    for j in jobs:
        runs = base.get(j["app"], [])
        j["baseline_runs"] = len(runs)
        j["_baseline_ids"] = {r["job_id_raw"] for r in runs}
        if runs:
            j["baseline_j"] = statistics.median(r["energy_j"] for r in runs)
        if j["baseline_j"] and j["energy_j"] is not None:
            j["savings"] = 1 - j["energy_j"] / j["baseline_j"]


def group_key(job, by):
    """The job's name in a grouping (None: no such value, shown "-")."""
    v = job[by]
    return v if v not in ("", None) else None


def aggregate(jobs, by):
    """The jobs summed per value of by (one of GROUPS), sorted by name
    (None last): dicts of cosched-report(1), JSON, "aggregates"."""
    groups = {}
    for j in jobs:
        groups.setdefault(group_key(j, by), []).append(j)
    out = []
    for name in sorted(groups, key=lambda n: (n is None, n or "")):
        members = groups[name]
        known = [j for j in members if j["energy_j"] is not None]
        unknown = len(members) - len(known)
        runtime = sum(j["runtime_s"] for j in members)
        known_j = sum(j["energy_j"] for j in known)
        energy = None if unknown else known_j
        compared = [j for j in known if j["baseline_j"]]
        base_sum = sum(j["baseline_j"] for j in compared)
        base_ids = set()
        for j in compared:
            base_ids |= j["_baseline_ids"]
        out.append({
            "name": name, "jobs": len(members), "unknown_jobs": unknown,
            "runtime_s": runtime, "energy_j": energy,
            "known_energy_j": known_j,
            "kwh": None if energy is None else energy / 3.6e6,
            "avg_power_w": energy / runtime if energy is not None and runtime
            else None,
            "savings": 1 - sum(j["energy_j"] for j in compared) / base_sum
            if base_sum else None,
            "savings_jobs": len(compared) if base_sum else 0,
            "baseline_runs": len(base_ids) if base_sum else 0,
        })
    return out


def unknown_counts(jobs):
    """{reason key: jobs} over the jobs whose energy is unknown."""
    out = {}
    for j in jobs:
        if j["energy_unknown"]:
            out[j["energy_unknown"]] = out.get(j["energy_unknown"], 0) + 1
    return out


def notes(jobs, never):
    """The lines printed after the table: why energies are unknown, jobs
    left out, records not used."""
    out = []
    for key, n in sorted(unknown_counts(jobs).items(),
                         key=lambda kv: list(UNKNOWN).index(kv[0])):
        out.append(f"energy unknown for {n} job{'s' if n != 1 else ''}: "
                   f"{UNKNOWN[key]}")
    zero = sum(1 for j in jobs if j["energy_j"] == 0 and j["runtime_s"] >= 1)
    if zero:
        out.append(f"energy 0 J for {zero} job{'s' if zero != 1 else ''} "
                   "that ran 1 s or more: Slurm accounts 0 where no energy "
                   "plugin measures (AcctGatherEnergyType=acct_gather_energy"
                   "/none); acct_gather_energy/cosched leaves it unknown "
                   "instead, see cosched(8) ENERGY")
    if never:
        out.append(f"{never} job{'s' if never != 1 else ''} in the window "
                   "never started (pending, or cancelled before starting): "
                   "left out")
    bad = [j for j in jobs if j["record"] == "invalid"]
    for j in bad[:10]:
        out.append(f"decision record of job {j['job_id']} not used: "
                   f"{j['record_error']}")
    if len(bad) > 10:
        out.append(f"and {len(bad) - 10} more jobs whose decision record "
                   "was not used (--json: record_error)")
    return out


def public(job):
    """The job without the report's working keys (those starting "_")."""
    return {k: v for k, v in job.items() if not k.startswith("_")}
