#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/commands/bench-smoke.sh: the benchmark keeps building and running. No timing
# is judged here: speed is the benchmark's business (make bench).
set -eu
bench=../bench/fastcpu-bench
out=$($bench --quick --runs 5 --json)
for key in '"machine"' '"reading"' '"forced"' '"counters"' '"preempted_lock"' '"targets"'; do
	case $out in
	*"$key"*) ;;
	*) echo "bench-smoke.sh: no $key in --json output" >&2; exit 1 ;;
	esac
done
$bench --quick --runs 5 | grep -q '^Table 4'
$bench --quick --runs 5 | grep -q '^Table 9'
$bench --quick --runs 5 --csv | grep -q '^counters,"global pthread mutex",1,'
if $bench --bogus 2>/dev/null; then
	echo "bench-smoke.sh: an unknown option must fail" >&2
	exit 1
fi
# Per-CPU memory: every allocator this machine has, the object cache
# always (the list and glibc need nothing installed).
memory=$(../bench/fastcpu-memory-bench --quick --csv-file memory-smoke.csv)
for line in '^Table 8 (a)' '^Table 8 (b)' '^Table 8 (c)' 'objcache pair / glibc' \
	    "^objcache's floor"; do
	printf '%s\n' "$memory" | grep -q "$line" ||
		{ echo "bench-smoke.sh: the memory benchmark says no '$line'" >&2; exit 1; }
done
grep -q '^8a,libfastcpu objcache,pair 64,1,' memory-smoke.csv
rm -f memory-smoke.csv
echo "bench runs: $(printf '%s\n' "$out" | grep -c '_ns')" numbers, and the memory tables
