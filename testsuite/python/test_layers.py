# SPDX-License-Identifier: GPL-2.0-or-later
"""The decision core's layers are its folders (src/libcosched/*/), and a
file includes and calls only its own folder and the layers its folder's
README.md names on its "Uses:" line.

Each folder is one layer: its README.md says what it holds and which
layers it stands on; src/libcosched/Makefile.am builds it as
libcosched_<folder>.la from exactly its files.  The declared "Uses:"
graph has no cycle, so no layer depends on one above it.  No core file may
include Slurm or hardware headers, and only the store layer may include
jansson (the select plugin, which slurmctld loads, links no store).

Includes are not the whole story: a file calls what another file defines,
and two files of one layer that call each other (directly or round a
longer loop) are one module in two files, which can be neither tested nor
linked apart.  The link check builds the file graph "a.c calls a function
b.c defines" from the built objects (nm: defined and undefined symbols) when
COSCHED_BUILDDIR holds a build, and from the sources otherwise, and fails on
any cycle inside a layer, naming it (a.c -> b.c -> a.c) with the symbols
that make each step, and on any call into a layer not on the "Uses:" line.

The same holds outside the core: the files of one plugin, program or
library (task/cosched's parts, cosched-numad's, the node's energy ledger
and its text form) call each other one way only, checked in the built
objects with the same graph.
"""

import os
import re
import shutil
import subprocess

import pytest

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src", "libcosched")
LAYERS = ["base", "io", "model", "conf", "policy", "store"]

# Headers the core must never see, whatever the layer: it is free of Slurm
# and of hardware (the plugins and node programs are the adapters).
FORBIDDEN = re.compile(r'^(slurm/|src/(?!libcosched/)|papi\.h$|numa\.h$|'
                       r'numaif\.h$|hwloc)')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
USES = re.compile(r"^Uses:\s*(.*)$", re.M)


class Layers:
    """The folders of srcdir that hold a README.md, the layers each may
    use, and every C file's layer (files named "folder/name")."""

    def __init__(self, srcdir):
        self.srcdir = srcdir
        self.uses = {}
        self.layer_of = {}
        self.problems = []
        for d in sorted(os.listdir(srcdir)):
            readme = os.path.join(srcdir, d, "README.md")
            if not os.path.isfile(readme):
                continue
            m = USES.search(open(readme).read())
            if not m:
                self.problems.append(f"{d}/README.md: no 'Uses:' line")
                continue
            words = re.findall(r"[a-z_]+", m.group(1))
            self.uses[d] = set() if words[:1] == ["nothing"] else set(words)
            for name in sorted(os.listdir(os.path.join(srcdir, d))):
                if name.endswith((".c", ".h")):
                    self.layer_of[f"{d}/{name}"] = d
        for d, used in sorted(self.uses.items()):
            for u in sorted(used - set(self.uses)):
                self.problems.append(f"{d}/README.md uses {u}, which is no "
                                     "layer")
        cycle = self._cycle()
        if cycle:
            self.problems.append("the Uses lines make a cycle: "
                                 + " -> ".join(cycle))

    def _cycle(self):
        state = {}

        def visit(d, path):
            state[d] = 1
            for u in sorted(self.uses.get(d, ())):
                if state.get(u) == 1:
                    return path + [d, u]
                if u in self.uses and u not in state:
                    found = visit(u, path + [d])
                    if found:
                        return found
            state[d] = 2
            return None

        for d in sorted(self.uses):
            if d not in state:
                found = visit(d, [])
                if found:
                    return found[found.index(found[-1]):]
        return None

    def may_use(self, a, b):
        """Whether a file of layer a may include or call layer b."""
        return a == b or b in self.uses[a]

    def resolve(self, name, inc):
        """The core file an include of name's names, or None."""
        if inc.startswith("src/libcosched/"):
            inc = inc[len("src/libcosched/"):]
        elif "/" not in inc:
            inc = f"{self.layer_of[name]}/{inc}"
        return inc if inc in self.layer_of else None


def makefile_problems(layers):
    """Each layer is built as libcosched_<layer>.la from exactly its files,
    and no core file lies outside a layer."""
    text = open(os.path.join(layers.srcdir, "Makefile.am")).read()
    text = text.replace("\\\n", " ")
    found = []
    for d in sorted(layers.uses):
        m = re.search(rf"^libcosched_{d}_la_SOURCES\s*=(.*)$", text, re.M)
        if not m:
            found.append(f"Makefile.am: no libcosched_{d}_la_SOURCES")
            continue
        listed = set(m.group(1).split())
        mine = {n for n, layer in layers.layer_of.items() if layer == d}
        for n in sorted(mine - listed):
            found.append(f"{n}: not in libcosched_{d}_la_SOURCES")
        for n in sorted(listed - mine):
            found.append(f"libcosched_{d}_la_SOURCES lists {n}, which is "
                         f"no file of {d}/")
    for root, _, names in os.walk(layers.srcdir):
        rel = os.path.relpath(root, layers.srcdir)
        for name in names:
            path = name if rel == "." else f"{rel}/{name}"
            if name.endswith((".c", ".h")) and path not in layers.layer_of:
                found.append(f"{path}: in no layer's folder")
    return found


def violations(srcdir):
    """Every layering violation in srcdir, as readable strings."""
    layers = Layers(srcdir)
    found = layers.problems + makefile_problems(layers)
    for name, mine in sorted(layers.layer_of.items()):
        text = open(os.path.join(srcdir, name)).read()
        for kind, inc in INCLUDE.findall(text):
            if FORBIDDEN.match(inc):
                found.append(f"{name} includes {inc}: the core is free of "
                             "Slurm and hardware")
            elif inc == "jansson.h" and mine != "store":
                found.append(f"{name} includes jansson.h: only the store "
                             "layer may")
            elif kind == '"':
                other = layers.resolve(name, inc)
                if not other:
                    found.append(f"{name} includes {inc}, which is not a "
                                 "file of the core")
                elif not layers.may_use(mine, layers.layer_of[other]):
                    found.append(f"{name} includes {other}: {mine} does "
                                 f"not use {layers.layer_of[other]}")
    return found


def test_no_upward_include():
    assert violations(SRC) == []


def test_every_layer_holds_files():
    layers = Layers(SRC)
    assert sorted(layers.uses) == sorted(LAYERS)
    for layer in LAYERS:
        assert any(v == layer for v in layers.layer_of.values()), layer


def test_policy_and_store_stand_apart():
    """The node's programs read cosched.conf and profiles without linking
    a placement policy: conf uses no policy, store none either."""
    layers = Layers(SRC)
    assert "policy" not in layers.uses["conf"]
    assert "policy" not in layers.uses["store"]
    assert "store" not in layers.uses["policy"]


def _tree(tmp_path, layers, files):
    """A core of layers {name: uses} and files {"layer/name": text}."""
    am = ""
    for layer, uses in layers.items():
        (tmp_path / layer).mkdir()
        (tmp_path / layer / "README.md").write_text(
            f"# {layer}\n\nUses: {uses}\n")
        mine = [n for n in files if n.startswith(layer + "/")]
        am += f"libcosched_{layer}_la_SOURCES = \\\n\t{' '.join(mine)}\n"
    (tmp_path / "Makefile.am").write_text(am)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return str(tmp_path)


def test_checker_finds_an_upward_include(tmp_path):
    """The check itself can fail: a base file including a higher header, a
    file in no layer, a Slurm header and jansson in io (below store) are
    found; jansson in store is not."""
    src = _tree(tmp_path, {"low": "nothing", "mid": "low",
                           "high": "low mid"}, {
        "low/low.h": "",
        "low/low.c": '#include "low.h"\n'
                     '#include "src/libcosched/high/high.h"\n',
        "mid/mid.c": '#include "src/libcosched/low/low.h"\n'
                     '#include <jansson.h>\n',
        "high/high.h": '#include <slurm/slurm.h>\n',
        "high/high.c": '#include "high.h"\n'
                       '#include "src/libcosched/low/low.h"\n',
    })
    (tmp_path / "stray.c").write_text("")
    found = violations(src)
    assert any("low/low.c includes high/high.h: low does not use high" in v
               for v in found), found
    assert any("stray.c: in no layer's folder" in v for v in found), found
    assert any("includes slurm/slurm.h" in v for v in found), found
    assert any("mid/mid.c includes jansson.h" in v for v in found), found
    assert not any(v.startswith("high/high.c") for v in found), found
    assert len(found) == 4, found


def test_checker_finds_a_cycle_of_uses_and_an_unlisted_file(tmp_path):
    src = _tree(tmp_path, {"low": "high", "high": "low"},
                {"low/a.c": "", "high/b.c": ""})
    (tmp_path / "low" / "c.c").write_text("")
    found = violations(src)
    assert any(v.startswith("the Uses lines make a cycle: ")
               for v in found), found
    assert "low/c.c: not in libcosched_low_la_SOURCES" in found, found


# ---- link-level dependencies ---------------------------------------------

# C keywords and the like, never a function of the core.
_NOT_A_FUNCTION = {"if", "for", "while", "switch", "return", "sizeof",
                   "defined", "else", "do", "case"}
_DEFINITION = re.compile(r"^([A-Za-z_][\w \t\*]*?)\b([A-Za-z_]\w*)[ \t]*\(",
                         re.M)
_IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")
_COMMENT_OR_STRING = re.compile(
    r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def _strip(text):
    """Comments and string literals out (a name in them is no call); the
    newlines kept, so line starts stay line starts."""
    return _COMMENT_OR_STRING.sub(lambda m: "\n" * m.group(0).count("\n"),
                                  text)


def _closing_paren(text, start):
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def symbols_from_sources(srcdir, names):
    """{file: (defined, used)} read from the C sources: a definition is a
    function at the start of a line, not static, whose parameter list is
    followed by its body; a use is any identifier.  Global variables are
    not seen here (the objects show them)."""
    out = {}
    for name in names:
        text = _strip(open(os.path.join(srcdir, name)).read())
        defined = set()
        for m in _DEFINITION.finditer(text):
            head, fn = m.group(1).split(), m.group(2)
            if (fn in _NOT_A_FUNCTION or not head or
                    head[0] in ("static", "typedef", "extern", "return")):
                continue
            close = _closing_paren(text, m.end() - 1)
            if close >= 0 and text[close + 1:].lstrip().startswith("{"):
                defined.add(fn)
        out[name] = (defined, set(_IDENTIFIER.findall(text)) - defined)
    return out


def object_files(builddir, names):
    """{name: object} for the core's files names ("layer/file.c") built in
    builddir (libtool's objects; per-target ones are prefixed
    "libNAME_la-"), or None when there is no such build."""
    if not builddir:
        return None
    found = {}
    for name in names:
        layer, base = name.split("/")
        libs = os.path.join(builddir, "src", "libcosched", layer, ".libs")
        for obj in (base[:-2] + ".o", f"libcosched_{layer}_la-{base[:-2]}.o"):
            if os.path.isfile(os.path.join(libs, obj)):
                found[name] = os.path.join(libs, obj)
    return found or None


def symbols_from_objects(objects):
    """{file: (defined, used)} from nm of each file's object: the external
    symbols it defines (any section) and the undefined ones it needs."""
    out = {}
    for src, obj in sorted(objects.items()):
        nm = subprocess.run(["nm", "-P", "-g", obj],
                            capture_output=True, text=True, check=True)
        defined, used = set(), set()
        for line in nm.stdout.splitlines():
            fields = line.split()
            if len(fields) < 2:
                continue
            (used if fields[1] in ("U", "w", "v") else defined).add(fields[0])
        out[src] = (defined, used)
    return out


def link_graph(symbols):
    """{a: {b: sorted symbols a uses that b defines}} for a != b."""
    owner = {}
    for name, (defined, _) in symbols.items():
        for sym in defined:
            owner.setdefault(sym, name)
    graph = {name: {} for name in symbols}
    for name, (_, used) in symbols.items():
        for sym in sorted(used):
            other = owner.get(sym)
            if other and other != name:
                graph[name].setdefault(other, []).append(sym)
    return graph


def _cycles(graph):
    """One cycle (as a list of files, first repeated last) through every
    strongly connected set of more than one file (Tarjan)."""
    index, low, stack, on_stack, sets = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                members.append(w)
                if w == v:
                    break
            if len(members) > 1:
                sets.append(set(members))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    found = []
    for members in sets:
        # The shortest way from the smallest name back to itself, breadth
        # first; back[w] = v means v calls w on the way.
        start = min(members)
        back = {start: None}
        queue, last = [start], None
        while queue and last is None:
            v = queue.pop(0)
            for w in sorted(graph[v]):
                if w == start:
                    last = v
                    break
                if w in members and w not in back:
                    back[w] = v
                    queue.append(w)
        path = []
        while last is not None:
            path.append(last)
            last = back[last]
        found.append(path[::-1] + [start])
    return found


def link_violations(srcdir, symbols):
    """Cycles inside a layer and calls into a layer not used, as readable
    strings."""
    layers = Layers(srcdir)
    of = layers.layer_of
    graph = link_graph(symbols)
    found = []
    for a in sorted(graph):
        for b, syms in sorted(graph[a].items()):
            if not layers.may_use(of[a], of[b]):
                found.append(f"{a} calls {', '.join(syms)} of {b}: "
                             f"{of[a]} does not use {of[b]}")
    for layer in sorted(layers.uses):
        inner = {a: {b: s for b, s in graph[a].items() if of[b] == layer}
                 for a in graph if of[a] == layer}
        found += [f"link cycle in {layer}: {_cycle_text(inner, cycle)}"
                  for cycle in _cycles(inner)]
    return found


def _cycle_text(graph, cycle):
    """"a.c -> b.c -> a.c: a.c -> b.c (sym); b.c -> a.c (sym)"."""
    steps = [f"{cycle[i]} -> {cycle[i + 1]} "
             f"({', '.join(graph[cycle[i]][cycle[i + 1]])})"
             for i in range(len(cycle) - 1)]
    return f"{' -> '.join(cycle)}: " + "; ".join(steps)


def _core_sources(srcdir):
    return sorted(n for n in Layers(srcdir).layer_of if n.endswith(".c"))


def test_no_link_cycle_in_sources():
    names = _core_sources(SRC)
    assert link_violations(SRC, symbols_from_sources(SRC, names)) == []


def test_no_link_cycle_in_objects():
    names = _core_sources(SRC)
    objects = object_files(os.environ.get("COSCHED_BUILDDIR"), names)
    if not objects:
        pytest.skip("no built objects of the core (set COSCHED_BUILDDIR to "
                    "a build): the source check above stands in")
    if not shutil.which("nm"):
        pytest.skip("nm not found: the source check above stands in")
    missing = sorted(set(names) - set(objects))
    assert not missing, f"no object for {missing}: rebuild"
    assert link_violations(SRC, symbols_from_objects(objects)) == []


_PLANTED = {
    "low/low.h": "int low_a(void);\nint low_b(void);\n",
    # A cycle inside low: low.c -> low2.c -> low.c.
    "low/low.c": '#include "low.h"\nint low_b(void);\n'
                 "int low_a(void)\n{\n\treturn low_b() + 1;\n}\n",
    "low/low2.c": '#include "low.h"\n'
                  "int low_b(void)\n{\n\treturn 2;\n}\n"
                  "int low_c(void)\n{\n\treturn low_a();\n}\n",
    # A call into a layer not used: mid.c calls high.c, no include needed.
    "mid/mid.c": "int high_x(void);\n"
                 "int mid_y(void)\n{\n\treturn high_x();\n}\n",
    # (declared before use: gcc 14, Debian 13's, refuses an implicit
    # declaration outright)
    "high/high.c": "int low_a(void);\n"
                   "static int helper(void)\n{\n\treturn 1;\n}\n"
                   "int high_x(void)\n{\n\treturn helper() + low_a();\n}\n",
}
_PLANTED_SOURCES = ["low/low.c", "low/low2.c", "mid/mid.c", "high/high.c"]


def _planted_tree(tmp_path):
    return _tree(tmp_path, {"low": "nothing", "mid": "low",
                            "high": "low mid"}, _PLANTED)


def _check_planted(found):
    assert any(v.startswith("link cycle in low: low/low.c -> low/low2.c -> "
                            "low/low.c:")
               and "low/low.c -> low/low2.c (low_b)" in v
               and "low/low2.c -> low/low.c (low_a)" in v
               for v in found), found
    assert any(v == "mid/mid.c calls high_x of high/high.c: mid does not "
               "use high" for v in found), found
    # high calling low is allowed, and a static helper is no link.
    assert len(found) == 2, found


def test_link_check_finds_planted_cycle_in_sources(tmp_path):
    """The link check itself can fail: a cycle between two files of one
    layer and a call into a layer not used are found, in the sources."""
    src = _planted_tree(tmp_path)
    _check_planted(link_violations(
        src, symbols_from_sources(src, _PLANTED_SOURCES)))


def test_link_check_finds_planted_cycle_in_objects(tmp_path):
    """The same in objects the compiler made, read with nm."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if not cc or not shutil.which("nm"):
        pytest.skip("no C compiler or no nm here")
    src = _planted_tree(tmp_path)
    objects = {}
    for name in _PLANTED_SOURCES:
        obj = tmp_path / (name.replace("/", "_")[:-2] + ".o")
        subprocess.run([cc, "-c", "-o", str(obj), os.path.join(src, name)],
                       check=True)
        objects[name] = str(obj)
    _check_planted(link_violations(src, symbols_from_objects(objects)))


# ---- the programs' files ---------------------------------------------------

_TARGET_OBJECT = re.compile(r"^(\w+)-(\w+)\.o$")


def program_objects(builddir):
    """{program: {file: object}} for every plugin, program and library a
    build made outside the core: automake names the object of file.c built
    for target T "T-file.o" (libtool's in .libs/), so the objects of one
    target are one program's files.  {} when there is no such build."""
    programs = {}
    src = os.path.join(builddir, "src") if builddir else ""
    if not src or not os.path.isdir(src):
        return programs
    for root, _, names in os.walk(src):
        rel = os.path.relpath(root, src)
        if rel.split(os.sep)[0] == "libcosched":
            continue
        if os.path.basename(rel) == ".libs":
            rel = os.path.dirname(rel)
        for name in names:
            m = _TARGET_OBJECT.match(name)
            if m:
                program = f"src/{rel}/{m.group(1)}"
                programs.setdefault(program, {})[m.group(2) + ".c"] = \
                    os.path.join(root, name)
    return programs


def program_cycles(programs):
    """Every cycle among the files of one program, as readable strings."""
    found = []
    for program, objects in sorted(programs.items()):
        graph = link_graph(symbols_from_objects(objects))
        found += [f"link cycle in {program}: {_cycle_text(graph, cycle)}"
                  for cycle in _cycles(graph)]
    return found


# Programs whose files still call each other round a loop, each pair one
# module in two files: the select plugin and its Slurm series' symbol
# table.  Listed so that every other
# program is held to the rule, and taken off once parted.
_STILL_CYCLIC = {
    "src/plugins/select/cons_tres_cosched/select_cons_tres_cosched_la",
}


def test_no_link_cycle_in_programs():
    """task/cosched's parts call task_cosched_common.c, never back into
    task_cosched.c; cosched-numad's call common.c, never back into
    cosched_numad.c (its main); and so on for every program of the build."""
    builddir = os.environ.get("COSCHED_BUILDDIR")
    programs = program_objects(builddir)
    if not programs:
        pytest.skip("no build (set COSCHED_BUILDDIR to one)")
    if not shutil.which("nm"):
        pytest.skip("nm not found")
    # The programs this check was written for are there, so that a
    # change of the objects' names cannot make it pass by finding none.
    for program, files in [
            ("src/plugins/task/cosched/task_cosched_la",
             {"task_cosched.c", "task_cosched_common.c",
              "task_cosched_cpufreq.c"}),
            ("src/numad/cosched_numad",
             {"cosched_numad.c", "common.c", "state.c"}),
            ("src/node/libcosched_energy_la",
             {"energy_ledger.c", "energy_ledger_text.c"})]:
        assert files <= set(programs.get(program, {})), (program, programs)
    assert program_cycles({p: o for p, o in programs.items()
                           if p not in _STILL_CYCLIC}) == []
    for program in sorted(_STILL_CYCLIC & set(programs)):
        assert program_cycles({program: programs[program]}), \
            f"{program} has no cycle left: take it off _STILL_CYCLIC"


def test_program_check_finds_planted_cycle(tmp_path):
    """The check itself can fail: two files of one program that call each
    other (low.c and low2.c of the planted core, built for one target) are
    found; a file of another target is not part of it."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if not cc or not shutil.which("nm"):
        pytest.skip("no C compiler or no nm here")
    (tmp_path / "tree").mkdir()
    src = _planted_tree(tmp_path / "tree")
    build = tmp_path / "build" / "src" / "prog" / ".libs"
    build.mkdir(parents=True)
    for target, name in [("prog_la", "low/low.c"), ("prog_la", "low/low2.c"),
                         ("other", "high/high.c")]:
        obj = build / f"{target}-{os.path.basename(name)[:-2]}.o"
        subprocess.run([cc, "-c", "-o", str(obj), os.path.join(src, name)],
                       check=True)
    programs = program_objects(str(tmp_path / "build"))
    assert sorted(programs) == ["src/prog/other", "src/prog/prog_la"]
    found = program_cycles(programs)
    assert found == ["link cycle in src/prog/prog_la: low.c -> low2.c -> "
                     "low.c: low.c -> low2.c (low_b); low2.c -> low.c "
                     "(low_a)"], found
