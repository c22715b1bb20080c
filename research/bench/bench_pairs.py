# SPDX-License-Identifier: GPL-2.0-or-later
"""The pair table of this machine for cosched-bench-jobs --timeshare: each
program of contribs/apps alone on one core, and each pair side by side on
two cores, outside any cluster; and what the best plan of time slices
would gain over another, computed from that table.

A pair runs both programs with --loop, each pinned to its own core, until
each has reported one complete run: the first to finish goes on running,
so each measured run had its partner running beside it throughout.  Times
are the programs' own CPU times (what they report as cpu_s), the measure
the time-shared jobs report too, since a suspended job's wall clock runs
on while its CPU time does not.
"""

import itertools
import os
import select
import subprocess
import time


def _report(line):
    """A program's report line (app=... cpu_s=... wall_s=...) -> dict."""
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def solo_time(argv, core=0, timeout=600):
    """The CPU time of one run of argv alone, pinned to core."""
    out = subprocess.run(["taskset", "-c", str(core), *argv],
                         capture_output=True, text=True, check=True,
                         timeout=timeout).stdout
    return float(_report(out.splitlines()[0])["cpu_s"])


def pair_times(argv_a, argv_b, timeout=600):
    """(CPU time of a's first run, of b's first run), a on core 0 and b on
    core 1, each looping until both have reported once."""
    procs = [subprocess.Popen(["taskset", "-c", str(core), *argv, "--loop"],
                              stdout=subprocess.PIPE, text=True)
             for core, argv in ((0, argv_a), (1, argv_b))]
    first = [None, None]
    deadline = time.monotonic() + timeout
    try:
        while None in first:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"pair {argv_a[0]} {argv_b[0]}: no report "
                                   f"after {timeout} s")
            ready, _, _ = select.select(
                [p.stdout for i, p in enumerate(procs) if first[i] is None],
                [], [], left)
            for i, p in enumerate(procs):
                if p.stdout in ready:
                    line = p.stdout.readline()
                    if not line:
                        raise RuntimeError(f"{argv_a[0] if i == 0 else argv_b[0]}"
                                           f" exited ({p.wait()}) in a pair")
                    first[i] = float(_report(line)["cpu_s"])
    finally:
        for p in procs:
            p.kill()
            p.wait()
            p.stdout.close()
    return first[0], first[1]


def measure(argv_of, apps, log=None):
    """solo {app: s}, slowdown {(victim, co-runner): x} for every pair of
    apps (each unordered pair run once, both sides measured).  argv_of:
    app -> its command line."""
    # Alone before the pairs and after them, the quicker run kept: what
    # the host's other tenants take from a run (its share of the L3
    # above all) only ever slows it.
    solo = {a: solo_time(argv_of(a)) for a in apps}
    times = {}
    for a, b in itertools.combinations_with_replacement(apps, 2):
        times[(a, b)], times[(b, a)] = pair_times(argv_of(a), argv_of(b))
    solo = {a: min(solo[a], solo_time(argv_of(a))) for a in apps}
    slowdown = {(a, b): t / solo[a] for (a, b), t in times.items()}
    if log:
        for a, b in itertools.combinations_with_replacement(apps, 2):
            log(f"  pair {a}+{b}: {a} {slowdown[(a, b)]:.2f}, "
                f"{b} {slowdown[(b, a)]:.2f}")
    return solo, slowdown


def pair_duration(a, b, solo, slowdown):
    """Seconds a slice pair {a, b} holds the node: both run side by side
    until the first ends, then the other alone."""
    if b is None:
        return solo[a]
    ta, tb = solo[a] * slowdown[(a, b)], solo[b] * slowdown[(b, a)]
    if ta > tb:
        a, b, ta, tb = b, a, tb, ta
    return ta + solo[b] * (1 - ta / tb)


def plan_time(pairs, solo, slowdown):
    """Seconds of a plan: its pairs run one after another (a time-shared
    node of two cores runs one pair at a time)."""
    return sum(pair_duration(a, b, solo, slowdown) for a, b in pairs)


def _matchings(items):
    if not items:
        yield []
        return
    if len(items) == 1:
        yield [(items[0], None)]
        return
    first, rest = items[0], items[1:]
    for i, other in enumerate(rest):
        for m in _matchings(rest[:i] + rest[i + 1:]):
            yield [(first, other)] + m
    if len(items) % 2:
        for m in _matchings(rest):
            yield [(first, None)] + m


def queue_order_plan(queue):
    """The pairs of plain cons_tres under gang: it takes idle cores first,
    so on two cores the 1st and 2nd jobs of the queue share the slices,
    the 3rd and 4th the next ones, and so on."""
    return [(queue[i], queue[i + 1] if i + 1 < len(queue) else None)
            for i in range(0, len(queue), 2)]


def in_order_plan(queue, solo, slowdown, slots=4):
    """(seconds, pairs) of the quickest pairing that keeps the queue's
    order of start, Slurm's priority: the node holds `slots` jobs (cores
    times FORCE:N), so the first `slots` jobs are paired among
    themselves, the next `slots` among themselves, and so on.  The
    model is the one of plan_time: each block's pairs end together."""
    total, pairs = 0.0, []
    for i in range(0, len(queue), slots):
        t, m = best_plan(queue[i:i + slots], solo, slowdown)
        total += t
        pairs += m
    return total, pairs


def order_gains(queue, solo, slowdown, slots=4, limit=8):
    """For every distinct order of the queue's programs, what keeping
    that order allows: the gain of in_order_plan over queue_order_plan.
    None for queues longer than `limit` (too many orders to list)."""
    if len(queue) > limit:
        return None
    gains = []
    for order in set(itertools.permutations(queue)):
        order = list(order)
        gang = plan_time(queue_order_plan(order), solo, slowdown)
        gains.append(1 - in_order_plan(order, solo, slowdown, slots)[0]
                     / gang)
    return gains


def best_plan(queue, solo, slowdown):
    """(seconds, pairs) of the quickest pairing of the queue's jobs."""
    best = None
    for m in _matchings(list(queue)):
        t = plan_time(m, solo, slowdown)
        if best is None or t < best[0] - 1e-9:
            best = (t, m)
    return best


def fmt_plan(pairs):
    return " ".join("{" + a + ("," + b if b else "") + "}" for a, b in pairs)


def taskset_available():
    return any(os.access(os.path.join(d, "taskset"), os.X_OK)
               for d in os.environ.get("PATH", "/usr/bin").split(":"))
