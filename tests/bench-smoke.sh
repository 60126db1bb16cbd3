#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/bench-smoke.sh: the benchmark keeps building and running. No timing
# is judged here: speed is the benchmark's business (make bench).
set -eu
bench=../bench/fastcpu-bench
out=$($bench --quick --runs 5 --json)
for key in '"machine"' '"reading"' '"forced"' '"counters"' '"targets"'; do
	case $out in
	*"$key"*) ;;
	*) echo "bench-smoke.sh: no $key in --json output" >&2; exit 1 ;;
	esac
done
$bench --quick --runs 5 | grep -q '^Table 4'
$bench --quick --runs 5 --csv | grep -q '^counters,"global pthread mutex",1,'
if $bench --bogus 2>/dev/null; then
	echo "bench-smoke.sh: an unknown option must fail" >&2
	exit 1
fi
echo "bench runs: $(printf '%s\n' "$out" | grep -c '_ns')" numbers
