#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/packaging/install-prefix.sh TARBALL: the release tarball installed as a user
# without root would (--prefix under a temporary directory, which the
# dynamic loader does not search), then the installed `fastcpu run` and
# `fastcpu count`: the child must really have the library (by path: by
# name the loader would not find it, and would only warn); and a CMake and
# a Meson project built against it (consumers.sh).
set -eu
[ $# = 1 ] || { echo "usage: tests/packaging/install-prefix.sh TARBALL" >&2; exit 2; }
tarball=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
name=$(basename "$tarball" .tar.xz)
prefix=$work/home/.local
tar xf "$tarball" -C "$work"
cd "$work/$name"
{ ./configure --prefix="$prefix" && make -j"$(nproc)" && make install; } >"$work/build.log" 2>&1 ||
	{ tail -30 "$work/build.log"; exit 1; }
fail() { echo "install-prefix.sh: $*" >&2; exit 1; }

got=$("$prefix/bin/fastcpu" run -- printenv LD_PRELOAD)
[ "$got" = "$prefix/lib/libfastcpu.so.0" ] || fail "run preloads '$got', not the installed path"
# shellcheck disable=SC2016 # the child's own $$
maps=$("$prefix/bin/fastcpu" run -- sh -c 'grep -c libfastcpu /proc/$$/maps' 2>&1)
[ "$maps" -gt 0 ] 2>/dev/null || fail "the child does not map the library: $maps"
"$prefix/bin/fastcpu" count -- "$prefix/bin/fastcpu" info >/dev/null 2>"$work/count.err" ||
	fail "count: $(cat "$work/count.err")"
grep -q '^  sched_getcpu(): ' "$work/count.err" || fail "count printed: $(cat "$work/count.err")"
sh "$here/consumers.sh" "$prefix"
echo "install-prefix.sh: installed in $prefix, fastcpu run and count preload $got"
