#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-select-syms.sh SLURM_SELECT_C COMPAT_C
#
# The wrapper fills its copy of Slurm's slurm_select_ops_t from a table of
# symbol names (cosched_select_syms[] in the compatibility file COMPAT_C);
# the struct's members are in the order of Slurm's own table,
# node_select_syms[] in src/common/select.c (22.05) or
# src/interfaces/select.c (24.11).
# A count check cannot see two names swapped or one renamed: compare the
# two lists name by name, in order, and fail the build on any difference.
set -eu

# The quoted strings of the array that starts at the line matching $2.
names() {
	sed -n "/$2/,/};/p" "$1" | grep -o '"[^"]*"' | tr -d '"'
}

slurm=$(names "$1" 'node_select_syms\[\] *=') || true
ours=$(names "$2" 'cosched_select_syms\[\] *=') || true
if [ -z "$slurm" ]; then
	echo "check-select-syms: no node_select_syms[] in $1" >&2
	exit 1
fi
if [ -z "$ours" ]; then
	echo "check-select-syms: no cosched_select_syms[] in $2" >&2
	exit 1
fi
if [ "$slurm" != "$ours" ]; then
	echo "check-select-syms: cosched_select_syms[] in $2 differs from Slurm's node_select_syms[] in $1" >&2
	echo "(< Slurm, > cosched):" >&2
	dir=$(mktemp -d)
	printf '%s\n' "$slurm" >"$dir/slurm"
	printf '%s\n' "$ours" >"$dir/cosched"
	diff "$dir/slurm" "$dir/cosched" >&2 || true
	rm -rf "$dir"
	exit 1
fi
echo "check-select-syms: $(printf '%s\n' "$ours" | wc -l) names match $1"
