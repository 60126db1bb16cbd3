#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/commands/clients-bound.sh: real users of sched_getcpu() from Debian's packages,
# unmodified, with libfastcpu preloaded: jemalloc's per-CPU arenas and
# liburcu's per-CPU call_rcu workers, driven by the benchmark's clients
# (bench/client-*.c: programs built against glibc alone), and RocksDB's own
# db_bench with its per-core statistics, briefly. LD_DEBUG=bindings must show their own
# sched_getcpu references bound to libfastcpu, in both rseq setups. A client
# that is not installed is skipped (both missing: exit 77).
set -eu
: "${FASTCPU_LIB:?set by make check}" "${FASTCPU_BENCH_DIR:?set by make check}"
ran=0

# served NAME LIBRARY PRELOAD COMMAND...: run COMMAND with PRELOAD, in both
# rseq setups; LIBRARY's own sched_getcpu reference must go to libfastcpu.
served() {
	name=$1 library=$2 preload=$3
	shift 3
	for tunables in "" glibc.pthread.rseq=0; do
		log=$(mktemp)
		GLIBC_TUNABLES=$tunables LD_DEBUG=bindings LD_PRELOAD=$preload "$@" 2>"$log"
		if ! grep -E "binding file [^ ]*$library[^ ]* \[0\] to [^ ]*libfastcpu\.so[^ ]* \[0\]: normal symbol \`sched_getcpu'" \
			"$log" >/dev/null; then
			echo "clients.sh: $name's sched_getcpu not bound to libfastcpu" >&2
			exit 1
		fi
		echo "$name (GLIBC_TUNABLES=$tunables): served by libfastcpu"
		rm -f "$log"
	done
	ran=1
}

jemalloc=$(ldconfig -p 2>/dev/null | awk '/libjemalloc\.so\.2 /{ print $NF; exit }')
if [ -n "$jemalloc" ] && sh "$(dirname "$0")/../harness/same-machine.sh" "$jemalloc" "$FASTCPU_LIB"; then
	MALLOC_CONF=percpu_arena:percpu served "jemalloc percpu_arena" libjemalloc \
		"$jemalloc $FASTCPU_LIB" "$FASTCPU_BENCH_DIR/client-malloc" 20000
else
	echo "clients.sh: no libjemalloc2 for this library's machine; jemalloc skipped"
fi
if [ -x "$FASTCPU_BENCH_DIR/client-rcu" ]; then
	served "liburcu per-CPU call_rcu" liburcu "$FASTCPU_LIB" "$FASTCPU_BENCH_DIR/client-rcu" 20000
else
	echo "clients.sh: liburcu-dev not installed at configure time; liburcu skipped"
fi
db_bench=$(command -v db_bench || true)
if [ -n "$db_bench" ] && sh "$(dirname "$0")/../harness/same-machine.sh" "$db_bench" "$FASTCPU_LIB"; then
	db=$(mktemp -d)
	served "RocksDB db_bench --statistics" librocksdb "$FASTCPU_LIB" \
		db_bench --benchmarks=fillseq,readrandom --num=2000 --threads=2 --statistics=1 \
		--db="$db/db"
	rm -rf "$db"
else
	echo "clients.sh: no rocksdb-tools for this library's machine; RocksDB skipped"
fi
[ "$ran" = 1 ] || exit 77
