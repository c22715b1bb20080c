"""The decision core's layers import only downward (src/libcosched/Makefile.am).

The layer order is the "# LAYERS = ..." line of src/libcosched/Makefile.am,
each file's layer the library whose _SOURCES list it.  A file may include
cosched headers of its own layer and of the layers below, never above; no
core file may include Slurm or hardware headers, and only the store layer
may include jansson (the select plugin, which every client command loads,
links the layers up to io).
"""

import os
import re

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
