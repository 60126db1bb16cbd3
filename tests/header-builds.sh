#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/header-builds.sh: <fastcpu.h>'s inline operations, whose critical
# sections ask the compiler for registers, built as users build (every
# optimisation level; position-independent or not) with -Wall -Werror, and
# run: tests/percpu_ops_probe.c, on this build's architecture (cross builds
# too: an i386 build without optimisation has the fewest registers).
set -eu
: "${CC:?set by make check}" "${FASTCPU_INCLUDE:?set by make check}" "${FASTCPU_LIB:?set by make check}"
probe=$(dirname "$0")/percpu_ops_probe.c
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
builds=0
for level in -O0 -O1 -O2 -O3 -Os; do
	for model in "-fPIE -pie" "-fno-pie -no-pie" "-fPIC"; do
		# shellcheck disable=SC2086 # the model's words
		$CC -Wall -Wextra -Werror $level $model -I"$FASTCPU_INCLUDE" -o "$dir/probe" \
			"$probe" "$FASTCPU_LIB" ||
			{ echo "header-builds.sh: $CC $level $model does not build it" >&2; exit 1; }
		LD_LIBRARY_PATH=$(dirname "$FASTCPU_LIB") "$dir/probe" ||
			{ echo "header-builds.sh: built with $level $model, it runs wrong" >&2; exit 1; }
		builds=$((builds + 1))
	done
done
echo "header-builds.sh: the per-CPU operations build and run in $builds ways"
