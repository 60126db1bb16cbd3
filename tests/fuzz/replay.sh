#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/fuzz/replay.sh: each fuzz target, built with this compiler and
# without libFuzzer (tests/fuzz/replay.c), run over its committed corpus:
# the real inputs and every one that once found a defect (make check-fuzz
# fuzzes them; this keeps what it found found, without clang).
set -eu
corpus=$(dirname "$0")/corpus
for target in elf cpulist settings; do
	printf 'fuzz-%s: ' "$target"
	$FASTCPU_TEST_WRAPPER ./fuzz-replay-"$target" "$corpus/$target"
done
