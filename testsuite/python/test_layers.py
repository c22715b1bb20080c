# SPDX-License-Identifier: GPL-2.0-or-later
"""The decision core's layers import only downward (src/libcosched/Makefile.am).

The layer order is the "# LAYERS = ..." line of src/libcosched/Makefile.am,
each file's layer the library whose _SOURCES list it.  A file may include
cosched headers of its own layer and of the layers below, never above; no
core file may include Slurm or hardware headers, and only the store layer
may include jansson (the select plugin, which every client command loads,
links the layers up to io).

Includes are not the whole story: a file calls what another file defines,
and two files of one layer that call each other (directly or round a
longer loop) are one module in two files, which can be neither tested nor
linked apart.  The link check builds the file graph "a.c calls a function
b.c defines" from the built objects (nm: defined and undefined symbols) when
COSCHED_BUILDDIR holds a build, and from the sources otherwise, and fails on
any cycle inside a layer, naming it (a.c -> b.c -> a.c) with the symbols
that make each step, and on any call into a higher layer.
"""

import os
import re
import shutil
import subprocess

import pytest

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src", "libcosched")

# Headers the core must never see, whatever the layer: it is free of Slurm
# and of hardware (the plugins and node programs are the adapters).
FORBIDDEN = re.compile(r'^(slurm/|src/|papi\.h$|numa\.h$|numaif\.h$|hwloc)')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def read_layers(makefile_am):
    text = open(makefile_am).read()
    m = re.search(r"^#\s*LAYERS\s*=\s*(.+)$", text, re.M)
    assert m, f"{makefile_am}: no '# LAYERS = ...' line"
    order = m.group(1).split()
    text = text.replace("\\\n", " ")
    layer_of = {}
    for rank, layer in enumerate(order):
        m = re.search(rf"^libcosched_{layer}_la_SOURCES\s*=(.*)$", text, re.M)
        assert m, f"{makefile_am}: no libcosched_{layer}_la_SOURCES"
        for name in m.group(1).split():
            assert name not in layer_of, f"{name} is in two layers"
            layer_of[name] = rank
    return order, layer_of


def violations(srcdir):
    """Every layering violation in srcdir, as readable strings."""
    order, layer_of = read_layers(os.path.join(srcdir, "Makefile.am"))
    found = []
    for name in sorted(os.listdir(srcdir)):
        if not name.endswith((".c", ".h")):
            continue
        if name not in layer_of:
            found.append(f"{name}: in no layer's _SOURCES")
            continue
        mine = layer_of[name]
        text = open(os.path.join(srcdir, name)).read()
        for kind, inc in INCLUDE.findall(text):
            if FORBIDDEN.match(inc):
                found.append(f"{name} ({order[mine]}) includes {inc}: the "
                             "core is free of Slurm and hardware")
            elif inc == "jansson.h" and order[mine] != "store":
                found.append(f"{name} ({order[mine]}) includes jansson.h: "
                             "only the store layer may")
            elif kind == '"':
                if inc not in layer_of:
                    found.append(f"{name} includes {inc}, which is not a "
                                 "file of the core")
                elif layer_of[inc] > mine:
                    found.append(f"{name} ({order[mine]}) includes {inc} "
                                 f"({order[layer_of[inc]]}): upward")
    return found


def test_no_upward_include():
    assert violations(SRC) == []


def test_every_layer_holds_files():
    order, layer_of = read_layers(os.path.join(SRC, "Makefile.am"))
    assert order == ["base", "model", "policy", "io", "store"]
    for rank, layer in enumerate(order):
        assert any(r == rank for r in layer_of.values()), layer


def _tree(tmp_path, files):
    am = ("# LAYERS = base io store\n"
          "libcosched_base_la_SOURCES = low.c low.h\n"
          "libcosched_io_la_SOURCES = mid.c\n"
          "libcosched_store_la_SOURCES = \\\n\thigh.c high.h\n")
    (tmp_path / "Makefile.am").write_text(am)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return str(tmp_path)


def test_checker_finds_an_upward_include(tmp_path):
    """The check itself can fail: a base file including a higher header, a
    file in no layer, a Slurm header and jansson in io (below store) are
    found; jansson in store is not."""
    src = _tree(tmp_path, {
        "low.h": "",
        "low.c": '#include "low.h"\n#include "high.h"\n',
        "mid.c": '#include "low.h"\n#include <jansson.h>\n',
        "high.h": '#include <slurm/slurm.h>\n',
        "high.c": '#include "high.h"\n#include "low.h"\n#include <jansson.h>\n',
        "stray.c": "",
    })
    found = violations(src)
    assert any("low.c (base) includes high.h (store): upward" in v
               for v in found), found
    assert any("stray.c: in no layer" in v for v in found), found
    assert any("includes slurm/slurm.h" in v for v in found), found
    assert any("mid.c (io) includes jansson.h" in v for v in found), found
    assert not any(v.startswith("high.c") for v in found), found
    assert len(found) == 4, found


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


def object_dir(builddir):
    """The directory of libtool's objects of the core in a build, or None."""
    if not builddir:
        return None
    d = os.path.join(builddir, "src", "libcosched", ".libs")
    if os.path.isdir(d) and any(n.endswith(".o") for n in os.listdir(d)):
        return d
    return None


def symbols_from_objects(objdir, names):
    """{file: (defined, used)} from nm of the objects in objdir: the
    external symbols each defines (any section) and the undefined ones it
    needs.  Object names map to their source (libtool prefixes per-target
    objects with "libNAME_la-"); objects of files no longer in the tree are
    left out."""
    out = {}
    for obj in sorted(os.listdir(objdir)):
        if not obj.endswith(".o"):
            continue
        src = re.sub(r"^lib\w+?_la-", "", obj)[:-2] + ".c"
        if src not in names:
            continue
        nm = subprocess.run(["nm", "-P", "-g", os.path.join(objdir, obj)],
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
    """Cycles inside a layer and calls into a higher layer, as readable
    strings."""
    order, layer_of = read_layers(os.path.join(srcdir, "Makefile.am"))
    graph = link_graph(symbols)
    found = []
    for a in sorted(graph):
        for b, syms in sorted(graph[a].items()):
            if layer_of[b] > layer_of[a]:
                found.append(f"{a} ({order[layer_of[a]]}) calls "
                             f"{', '.join(syms)} of {b} "
                             f"({order[layer_of[b]]}): upward")
    for rank, layer in enumerate(order):
        inner = {a: {b: s for b, s in graph[a].items()
                     if layer_of[b] == rank}
                 for a in graph if layer_of[a] == rank}
        for cycle in _cycles(inner):
            steps = [f"{cycle[i]} -> {cycle[i + 1]} "
                     f"({', '.join(inner[cycle[i]][cycle[i + 1]])})"
                     for i in range(len(cycle) - 1)]
            found.append(f"link cycle in {layer}: {' -> '.join(cycle)}: "
                         + "; ".join(steps))
    return found


def _core_sources(srcdir):
    _, layer_of = read_layers(os.path.join(srcdir, "Makefile.am"))
    return sorted(n for n in layer_of if n.endswith(".c") and
                  os.path.exists(os.path.join(srcdir, n)))


def test_no_link_cycle_in_sources():
    names = _core_sources(SRC)
    assert link_violations(SRC, symbols_from_sources(SRC, names)) == []


def test_no_link_cycle_in_objects():
    objdir = object_dir(os.environ.get("COSCHED_BUILDDIR"))
    if not objdir:
        pytest.skip("no built objects of the core (set COSCHED_BUILDDIR to "
                    "a build): the source check above stands in")
    if not shutil.which("nm"):
        pytest.skip("nm not found: the source check above stands in")
    names = _core_sources(SRC)
    symbols = symbols_from_objects(objdir, names)
    missing = sorted(set(names) - set(symbols))
    assert not missing, f"no object in {objdir} for {missing}: rebuild"
    assert link_violations(SRC, symbols) == []


_PLANTED = {
    "low.h": "int low_a(void);\nint low_b(void);\n",
    # A cycle inside base: low.c -> low2.c -> low.c.
    "low.c": '#include "low.h"\nint low_b(void);\n'
             "int low_a(void)\n{\n\treturn low_b() + 1;\n}\n",
    "low2.c": '#include "low.h"\n'
              "int low_b(void)\n{\n\treturn 2;\n}\n"
              "int low_c(void)\n{\n\treturn low_a();\n}\n",
    # An upward call: mid.c (io) uses high.c (store), no include needed.
    "mid.c": "int high_x(void);\nint mid_y(void)\n{\n\treturn high_x();\n}\n",
    # (declared before use: gcc 14, Debian 13's, refuses an implicit
    # declaration outright)
    "high.c": "int low_a(void);\n"
              "static int helper(void)\n{\n\treturn 1;\n}\n"
              "int high_x(void)\n{\n\treturn helper() + low_a();\n}\n",
}


def _planted_tree(tmp_path):
    am = ("# LAYERS = base io store\n"
          "libcosched_base_la_SOURCES = low.c low2.c low.h\n"
          "libcosched_io_la_SOURCES = mid.c\n"
          "libcosched_store_la_SOURCES = high.c\n")
    (tmp_path / "Makefile.am").write_text(am)
    for name, text in _PLANTED.items():
        (tmp_path / name).write_text(text)
    return str(tmp_path)


def _check_planted(found):
    assert any(v.startswith("link cycle in base: low.c -> low2.c -> low.c:")
               and "low.c -> low2.c (low_b)" in v
               and "low2.c -> low.c (low_a)" in v for v in found), found
    assert any(v == "mid.c (io) calls high_x of high.c (store): upward"
               for v in found), found
    # store calling base is downward, and a static helper is no link.
    assert len(found) == 2, found


def test_link_check_finds_planted_cycle_in_sources(tmp_path):
    """The link check itself can fail: a cycle between two base files and
    a call from io into store are found, in the sources."""
    src = _planted_tree(tmp_path)
    _check_planted(link_violations(
        src, symbols_from_sources(src, ["low.c", "low2.c", "mid.c",
                                        "high.c"])))


def test_link_check_finds_planted_cycle_in_objects(tmp_path):
    """The same in objects the compiler made, read with nm."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if not cc or not shutil.which("nm"):
        pytest.skip("no C compiler or no nm here")
    src = _planted_tree(tmp_path)
    objdir = tmp_path / ".libs"
    objdir.mkdir()
    for name in ("low.c", "low2.c", "mid.c", "high.c"):
        subprocess.run([cc, "-c", "-o", str(objdir / (name[:-2] + ".o")),
                        os.path.join(src, name)], check=True)
    _check_planted(link_violations(
        src, symbols_from_objects(str(objdir), ["low.c", "low2.c", "mid.c",
                                                "high.c"])))
