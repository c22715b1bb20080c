# SPDX-License-Identifier: GPL-2.0-or-later
"""What a built object links against and leaves for others to provide,
read with binutils (readelf, nm): the checks of test_plugin_deps.py (the
plugins) and test_sampler_papi_module.py (the sampler and its PAPI
module) read the same things the same way."""
import re
import subprocess


def needed(path):
    """The shared libraries path names (DT_NEEDED)."""
    out = subprocess.run(["readelf", "-d", path], capture_output=True,
                         text=True, check=True).stdout
    return set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))


def unversioned_undefined(path):
    """Undefined symbols without a version: left for the program that
    loads path (or a library without symbol versions) to provide."""
    out = subprocess.run(["nm", "-u", path], capture_output=True, text=True,
                         check=True).stdout
    syms = []
    for line in out.splitlines():
        kind, name = line.split()[-2:]
        if kind == "U" and "@" not in name:
            syms.append(name)
    return syms


def dynamic_defined(path):
    """The dynamic symbols path defines, without their versions."""
    out = subprocess.run(["nm", "-D", "--defined-only", path],
                         capture_output=True, text=True, check=True).stdout
    return [line.split()[-1].split("@")[0] for line in out.splitlines()
            if line.strip()]
