# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched is GPL-2.0-or-later (COPYING): every source file says so in an
SPDX line near its top, the way the plugins' Slurm does in its licence
headers.  Data (JSON, fuzz corpora and dictionaries, workloads) and prose
(Markdown, NEWS) carry none."""

import os
import re
import shutil
import subprocess

import pytest

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
TAG = "SPDX-License-Identifier: GPL-2.0-or-later"
NOT_SOURCE = re.compile(r"(^testsuite/fuzz/corpus/|\.(json|md|dict|txt)$|"
                        r"^\.gitignore$|^NEWS$|^COPYING$)")


def source_files():
    """The files git has or would add (tracked and untracked, not ignored)
    that are source."""
    if not shutil.which("git"):
        pytest.skip("git is not installed here (a Slurm root has none): the "
                    "file list comes from git, and the host's run checks it")
    r = subprocess.run(["git", "-C", TOP, "ls-files", "--cached", "--others",
                        "--exclude-standard"], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("not a git checkout: the file list comes from git")
    return [f for f in sorted(set(r.stdout.split()))
            if not NOT_SOURCE.search(f) and
            os.path.isfile(os.path.join(TOP, f))]


def missing_tag(top, names):
    """The names whose first three lines do not carry the SPDX tag."""
    out = []
    for name in names:
        with open(os.path.join(top, name), encoding="utf-8") as f:
            head = [f.readline() for _ in range(3)]
        if not any(TAG in line for line in head):
            out.append(name)
    return out


def test_copying_is_the_gpl_2():
    text = open(os.path.join(TOP, "COPYING")).read()
    assert "GNU GENERAL PUBLIC LICENSE" in text and "Version 2" in text


def test_every_source_file_carries_the_spdx_line():
    assert missing_tag(TOP, source_files()) == []


def test_check_finds_a_file_without_it(tmp_path):
    (tmp_path / "a.c").write_text(f"/* {TAG} */\nint a;\n")
    (tmp_path / "b.c").write_text("/* b.c */\nint b;\n")
    (tmp_path / "run").write_text(f"#!/bin/sh\n# {TAG}\n")
    assert missing_tag(str(tmp_path), ["a.c", "b.c", "run"]) == ["b.c"]
