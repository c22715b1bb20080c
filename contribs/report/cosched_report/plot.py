# SPDX-License-Identifier: GPL-2.0-or-later
"""--plot: one figure of 12 x 9 inches (1200 x 900 pixels at the default
100 dpi) with (1) the energy per policy and (2) per application as bars,
and (3) per node, the power over time: each job's average power stacked
over its [Start, End) on that node, a step function.

series() computes what is drawn, without matplotlib, for --json's "plot"
too; draw() draws it with matplotlib's Agg renderer (Debian:
python3-matplotlib).  Jobs whose energy is unknown are left out and the
figure says how many.  A job on several nodes is drawn on each with its
average power divided evenly among them (sacct gives a step's energy
summed over its nodes, not node by node).
"""

import re

WIDTH_IN, HEIGHT_IN = 12, 9
DEFAULT_DPI = 100
MAX_NODES = 6       # nodes drawn in (3); the others are counted
MAX_BARS = 30       # bars in (1) and (2); the rest make one bar
MAX_LEGEND = 8      # jobs named in a node's legend


def _natural(name):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _label(name, key):
    """What a bar is called: its name, "(no record)" for the jobs without
    a policy, "-" for those without an application."""
    if name is not None:
        return name
    return "(no record)" if key == "policy" else "-"


def _bars(jobs, key):
    """[{name, label, energy_j}] per value of key, in name order; past
    MAX_BARS the largest MAX_BARS - 1 and one bar for the rest."""
    sums = {}
    for j in jobs:
        name = j[key] if j[key] not in ("", None) else None
        sums[name] = sums.get(name, 0) + j["energy_j"]
    order = lambda n: (n is None, n or "")
    names = sorted(sums, key=order)
    rest = []
    if len(names) > MAX_BARS:
        big = sorted(names, key=lambda n: -sums[n])
        names, rest = sorted(big[:MAX_BARS - 1], key=order), big[MAX_BARS - 1:]
    out = [{"name": n, "label": _label(n, key), "energy_j": sums[n]}
           for n in names]
    if rest:
        out.append({"name": None, "label": f"({len(rest)} others)",
                    "energy_j": sum(sums[n] for n in rest)})
    return out


def series(jobs, dpi=DEFAULT_DPI, path=None):
    """What the figure draws (cosched-report(1), JSON, "plot")."""
    known = [j for j in jobs if j["energy_j"] is not None]
    timed = [j for j in known if j["runtime_s"] and j["end"] and j["nodes"]]
    t0 = min((j["start"] for j in timed), default=None)
    per_node = {}
    for j in timed:
        watts = j["avg_power_w"] / len(j["nodes"])
        for n in j["nodes"]:
            per_node.setdefault(n, []).append(
                {"job_id": j["job_id"], "watts": watts,
                 "start_s": j["start"] - t0, "end_s": j["end"] - t0})
    nodes = sorted(per_node, key=_natural)
    drawn = []
    for n in nodes[:MAX_NODES]:
        spans = sorted(per_node[n], key=lambda s: (s["start_s"], s["job_id"]))
        points = sorted({s["start_s"] for s in spans} |
                        {s["end_s"] for s in spans})
        steps = [[t, sum(s["watts"] for s in spans
                         if s["start_s"] <= t < s["end_s"])] for t in points]
        drawn.append({"node": n, "jobs": spans, "steps": steps})
    return {
        "file": path, "dpi": dpi,
        "width_px": WIDTH_IN * dpi, "height_px": HEIGHT_IN * dpi,
        "jobs_drawn": len(known), "left_out_unknown": len(jobs) - len(known),
        "t0": t0,
        "energy_by_policy": _bars(known, "policy"),
        "energy_by_app": _bars(known, "app"),
        "power_by_node": drawn,
        "nodes_not_drawn": max(0, len(nodes) - MAX_NODES),
    }


def load_matplotlib():
    """matplotlib set up for files (Agg; SVG text kept as text; no
    mathtext in names); ImportError when it is not installed."""
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "cosched-report"
    matplotlib.rcParams["text.parse_math"] = False
    from matplotlib.figure import Figure
    return Figure


def _bar_panel(ax, bars, title, escape):
    labels = [escape(b["label"]) for b in bars]
    ax.bar(range(len(bars)), [b["energy_j"] for b in bars], color="#4c72b0")
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels(labels, rotation=30 if len(bars) > 4 else 0,
                       ha="right" if len(bars) > 4 else "center",
                       fontsize=8)
    ax.set_ylabel("J")
    ax.set_title(title, fontsize=10)
    if not bars:
        ax.text(0.5, 0.5, "no job with known energy", ha="center",
                va="center", transform=ax.transAxes)


def draw(s, path, fmt, escape):
    """Draw series s into path (fmt: png or svg); OSError when the file
    cannot be written."""
    Figure = load_matplotlib()
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=s["dpi"],
                 layout="constrained")
    gs = fig.add_gridspec(2, 2, height_ratios=[1, 1.4])
    _bar_panel(fig.add_subplot(gs[0, 0]), s["energy_by_policy"],
               "(1) energy per policy", escape)
    _bar_panel(fig.add_subplot(gs[0, 1]), s["energy_by_app"],
               "(2) energy per application", escape)
    nodes = s["power_by_node"]
    # One colour per job, the same on every node it ran on.
    ids = sorted({sp["job_id"] for n in nodes for sp in n["jobs"]})
    cmap = matplotlib_colormap("tab20")
    colour = {j: cmap(i % 20) for i, j in enumerate(ids)}
    sub = gs[1, :].subgridspec(max(1, len(nodes)), 1)
    first = None
    for i, node in enumerate(nodes):
        ax = fig.add_subplot(sub[i, 0], sharex=first)
        first = first or ax
        xs = [p[0] for p in node["steps"]]
        base = [0.0] * len(xs)
        for span in node["jobs"]:
            top = [b + (span["watts"] if span["start_s"] <= x < span["end_s"]
                        else 0) for b, x in zip(base, xs)]
            ax.fill_between(xs, base, top, step="post", alpha=0.85,
                            color=colour[span["job_id"]],
                            label=escape(f"job {span['job_id']}"))
            base = top
        ax.step(xs, base, where="post", color="black", linewidth=0.8)
        ax.set_ylabel(escape(f"{node['node']} (W)"), fontsize=8)
        if len(node["jobs"]) <= MAX_LEGEND:
            ax.legend(fontsize=7, loc="upper right")
        if i == 0:
            ax.set_title("(3) power per node over time: each job's average "
                         "power, stacked", fontsize=10)
        if i == len(nodes) - 1:
            ax.set_xlabel("seconds since the first job's start")
    if not nodes:
        ax = fig.add_subplot(sub[0, 0])
        ax.set_title("(3) power per node over time", fontsize=10)
        ax.text(0.5, 0.5, "no job with known energy", ha="center",
                va="center", transform=ax.transAxes)
    words = []
    if s["left_out_unknown"]:
        n = s["left_out_unknown"]
        words.append(f"energy unknown for {n} job{'s' if n != 1 else ''}: "
                     "left out of this figure")
    if s["nodes_not_drawn"]:
        words.append(f"{s['nodes_not_drawn']} more nodes not drawn")
    fig.suptitle("; ".join(words) or "every job's energy is known",
                 fontsize=9)
    # No date in the file: the same report draws the same bytes.
    fig.savefig(path, format=fmt, dpi=s["dpi"],
                metadata={"Date": None} if fmt == "svg" else None)


def matplotlib_colormap(name):
    import matplotlib
    return matplotlib.colormaps[name]
