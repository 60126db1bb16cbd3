#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/commands/bench-smoke.sh: the benchmark keeps building and running. No timing
# is judged here: speed is the benchmark's business (make bench).
set -eu
bench=../bench/fastcpu-bench
out=$($bench --quick --runs 5 --json)
for key in '"machine"' '"rows"' '"table": "reading"' '"table": "setup"' '"table": "counters"' \
	'"table": "preempted-lock"' '"table": "counter-tree"' '"aims"'; do
	case $out in
	*"$key"*) ;;
	*) echo "bench-smoke.sh: no $key in --json output" >&2; exit 1 ;;
	esac
done
text=$($bench --quick --runs 5)
for table in 'Table 4' 'Table 9' 'Table 10'; do
	printf '%s\n' "$text" | grep -q "^$table" ||
		{ echo "bench-smoke.sh: no $table" >&2; exit 1; }
done
# The setup table: every row ran in a process of its own, or says why it
# cannot here (a setup of the other rseq run, no seccomp under qemu-user).
rows=$(printf '%s\n' "$text" | sed -n '/^Table 10/,/^$/p')
if printf '%s\n' "$rows" | grep -e 'its process failed' -e 'no stand-in owner'; then
	echo "bench-smoke.sh: a row of the setup table did not run" >&2
	exit 1
fi
# Everywhere at least the six forced rows (a backend the machine lacks
# falls back) and the three owners that never register (the fallback
# serves them) run: under qemu-user, with no rseq, seccomp or vfork, only
# those.
ran=$(printf '%s\n' "$rows" | grep -c -e ' rseq (' -e ' rdpid' -e ' vdso' -e ' syscall' || true)
[ "$ran" -ge 9 ] || { echo "bench-smoke.sh: only $ran rows of the setup table ran" >&2; exit 1; }
csv=$($bench --quick --runs 5 --csv)
printf '%s\n' "$csv" | grep -q '^counters,global_mutex,"global pthread mutex",1,'
# The counter tree's table: a line for each count of CPUs, each from a
# process of its own.
for line in here cpus_64 cpus_256 cpus_1024 here_no_sequences; do
	printf '%s\n' "$csv" | grep -q "^counter-tree,$line\.tree\.add_1_thread,.*,1,ns\$" ||
		{ echo "bench-smoke.sh: no counter tree add at $line" >&2; exit 1; }
done
printf '%s\n' "$csv" | grep -q '^counter-tree,cpus_1024\.kernel_tree\.bound,.*,1,count$'
# make bench plots both CSVs (where gnuplot is): a case's words hold
# quotes ("the library's"), which once ended gnuplot's title early.
printf '%s\n' "$csv" >bench-smoke.csv
sh "$FASTCPU_INCLUDE/../bench/plot.sh" bench-smoke.csv bench-smoke.svg >/dev/null ||
	{ echo "bench-smoke.sh: plot.sh failed on the benchmark's CSV" >&2; exit 1; }
printf '%s\n' "$text" | grep -q '^The counter tree (#46)'
# The JSON whole (a setup row's numbers come from a process of their own),
# each row with its table and key.
json=$($bench --quick --runs 5 --json)
printf '%s\n' "$json" | tail -n 1 | grep -qx '}'
printf '%s\n' "$json" | grep -q '{"table": "reading", "key": "glibc_sched_getcpu", '
if $bench --bogus 2>/dev/null; then
	echo "bench-smoke.sh: an unknown option must fail" >&2
	exit 1
fi
# Per-CPU memory: every allocator this machine has, the object cache
# always (the list and glibc need nothing installed).
memory=$(env -u FASTCPU_BENCH_PROCESSES ../bench/fastcpu-memory-bench --quick \
	--csv-file memory-smoke.csv)
for line in '^Table 8 (a)' '^Table 8 (b)' '^Table 8 (c)' '^Table 8 (d)' '^Table 8 (e)' \
	    'objcache pair / glibc' "^In the objcache's process" '^The aims' \
	    "^glibc's area " "^the library's own area " '(fewer than 20: a short run)' \
	    "worst pair / median over processes, glibc's area" \
	    "worst pair / median over processes, own area"; do
	printf '%s\n' "$memory" | grep -q "$line" ||
		{ echo "bench-smoke.sh: the memory benchmark says no '$line'" >&2; exit 1; }
done
# Every CSV begins with the key: table,key.
head -n 1 memory-smoke.csv | grep -q '^table,key,case,threads,best,median,worst,processes,unit$'
sh "$FASTCPU_INCLUDE/../bench/plot.sh" memory-smoke.csv memory-smoke.svg >/dev/null ||
	{ echo "bench-smoke.sh: plot.sh failed on the memory benchmark's CSV" >&2; exit 1; }
# Where no process had an area (qemu-user), every setup of 8 (e) is "not
# here": its panel says so (gnuplot once refused the empty histogram).
sed '/^8e,/s/,[0-9.]*,[0-9.]*,[0-9.]*,[0-9]*,\([a-z]*\)$/,,,,0,\1/' memory-smoke.csv >memory-none.csv
sh "$FASTCPU_INCLUDE/../bench/plot.sh" memory-none.csv memory-none.svg >/dev/null ||
	{ echo "bench-smoke.sh: plot.sh failed where no setup of 8 (e) was here" >&2; exit 1; }
grep -q '^8a,objcache\.pair_64,"libfastcpu objcache: pair 64",0,' memory-smoke.csv
grep -q '^8b,objcache\.cold_set,' memory-smoke.csv
# Table 8 (e): best, median and worst over the quick run's 5 processes a
# setup, each of the 5 run where the setup is here (no rseq under
# qemu-user; no area of glibc's before 2.35: a line "not here").
for setup in "glibc_area|glibc's area" "own_area|the library's own area"; do
	key=${setup%%|*} name=${setup#*|}
	printf '%s\n' "$memory" | grep -q "^$name  *0 n/a: not here\$" && continue
	printf '%s\n' "$memory" | grep -q "^$name  *5 " &&
	grep -q "^8e,$key\.objcache_pair_64,\"$name: objcache pair 64\",0,[0-9.]*,[0-9.]*,[0-9.]*,5,ns\$" \
		memory-smoke.csv &&
	grep -q "^aims,$key\.worst_to_median,.*,5,ratio\$" memory-smoke.csv ||
		{ echo "bench-smoke.sh: Table 8 (e) has not 5 processes of $name" >&2; exit 1; }
done
rm -f memory-smoke.csv memory-smoke.svg memory-none.csv memory-none.svg bench-smoke.csv bench-smoke.svg
echo "bench runs: $(printf '%s\n' "$out" | grep -c '"median"') rows, and the memory tables"
