#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/percpu/header-builds.sh: <fastcpu.h>'s inline operations, whose critical
# sections ask the compiler for registers, built as users build (every
# optimisation level; position-independent or not) with -Wall -Werror, and
# run: tests/percpu/percpu-ops-probe.c, on this build's architecture (cross builds
# too: an i386 build without optimisation has the fewest registers).
set -eu
: "${CC:?set by make check}" "${FASTCPU_INCLUDE:?set by make check}" "${FASTCPU_LIB:?set by make check}"
probe=$(dirname "$0")/percpu-ops-probe.c
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
builds=0
# The build's compiler, and clang where it is installed and makes programs
# for this build's machine (its constraints are its own).
compilers=$CC
if command -v clang >/dev/null 2>&1 &&
	[ "$(clang -dumpmachine 2>/dev/null | cut -d- -f1)" = "$($CC -dumpmachine | cut -d- -f1)" ]; then
	compilers="$compilers|clang"
fi
IFS='|'
for cc in $compilers; do
	IFS=' '
	for level in -O0 -O1 -O2 -O3 -Os; do
		for model in "-fPIE -pie" "-fno-pie -no-pie" "-fPIC"; do
			# shellcheck disable=SC2086 # the compiler's and the model's words
			$cc -Wall -Wextra -Werror $level $model -I"$FASTCPU_INCLUDE" -o "$dir/probe" \
				"$probe" "$FASTCPU_LIB" ||
				{ echo "header-builds.sh: $cc $level $model does not build it" >&2; exit 1; }
			LD_LIBRARY_PATH=$(dirname "$FASTCPU_LIB") "$dir/probe" ||
				{ echo "header-builds.sh: built by $cc with $level $model, it runs wrong" >&2; exit 1; }
			builds=$((builds + 1))
		done
	done
	IFS='|'
done
echo "header-builds.sh: the per-CPU operations build and run in $builds ways ($compilers)"
