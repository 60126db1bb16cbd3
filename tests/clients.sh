#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/clients.sh: real users of sched_getcpu() from Debian's packages,
# unmodified, with libfastcpu preloaded: jemalloc's per-CPU arenas and
# liburcu's per-CPU call_rcu workers. LD_DEBUG=bindings must show their own
# sched_getcpu references bound to libfastcpu, in both rseq setups. A client
# that is not installed is skipped (both missing: exit 77).
set -eu
: "${FASTCPU_LIB:?set by make check}"
ran=0

# bound PROGRAM_OR_LIB LOG: the reference from PROGRAM_OR_LIB went to us.
bound() {
	grep -E "binding file [^ ]*$1[^ ]* \[0\] to [^ ]*libfastcpu\.so[^ ]* \[0\]: normal symbol \`sched_getcpu'" "$2" >/dev/null
}

jemalloc=$(ldconfig -p 2>/dev/null | awk '/libjemalloc\.so\.2 /{ print $NF; exit }')
if [ -n "$jemalloc" ]; then
	for tunables in "" glibc.pthread.rseq=0; do
		log=$(mktemp)
		GLIBC_TUNABLES=$tunables MALLOC_CONF=percpu_arena:percpu \
			LD_DEBUG=bindings LD_PRELOAD="$jemalloc $FASTCPU_LIB" \
			./malloc_workload 2>"$log"
		bound libjemalloc "$log" ||
			{ echo "clients.sh: jemalloc's sched_getcpu not bound to libfastcpu" >&2; exit 1; }
		echo "jemalloc percpu_arena (GLIBC_TUNABLES=$tunables): served by libfastcpu"
		rm -f "$log"
	done
	ran=1
else
	echo "clients.sh: libjemalloc2 not installed; jemalloc skipped"
fi

if [ -x ./client_urcu ]; then
	for tunables in "" glibc.pthread.rseq=0; do
		log=$(mktemp)
		GLIBC_TUNABLES=$tunables LD_DEBUG=bindings LD_PRELOAD="$FASTCPU_LIB" \
			./client_urcu 2>"$log"
		bound liburcu "$log" ||
			{ echo "clients.sh: liburcu's sched_getcpu not bound to libfastcpu" >&2; exit 1; }
		echo "liburcu per-CPU call_rcu (GLIBC_TUNABLES=$tunables): served by libfastcpu"
		rm -f "$log"
	done
	ran=1
else
	echo "clients.sh: liburcu-dev not installed at configure time; liburcu skipped"
fi
[ "$ran" = 1 ] || exit 77
