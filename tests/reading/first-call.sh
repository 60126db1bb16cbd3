#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/reading/first-call.sh: where the library registers its own rseq area, a
# thread's first call makes that one system call, and asks the kernel who is
# calling (gettid) only once the process has made a vfork child, which runs
# on its parent's TLS and must leave it alone (lib/task-tls.c). Where the
# library has no vfork stub (static link, other architectures, the generic
# build) every first call asks.
set -eu
: "${FASTCPU_LIB:?set by make check}"
if [ -n "${FASTCPU_TEST_EMULATED-}" ] || ! command -v strace >/dev/null ||
	! strace -f -o /dev/null /bin/true 2>/dev/null; then
	echo "first-call.sh: no working strace here (or emulated); skipped"
	exit 77
fi
log=${TMPDIR:-/tmp}/fastcpu-first-call.$$
trap 'rm -f "$log"' EXIT
# trace PRELOAD [DLOPEN]: the probe, with PRELOAD preloaded (may be empty),
# asking the library at DLOPEN if given.
trace() {
	GLIBC_TUNABLES=glibc.pthread.rseq=0 FASTCPU_BACKEND=rseq LD_PRELOAD=$1 \
		strace -f -qq -e trace=write,gettid,rseq -o "$log" ./first-call-probe ${2+"$2"} ||
		{ echo "first-call.sh: the probe failed"; cat "$log"; exit 1; }
}

# count PHASE SYSCALL: calls between the phase's two markers.
count() {
	awk -v begin="\"$1<\"" -v end="\"$1>\"" -v call="$2(" '
		index($0, begin) { inside = 1; next }
		index($0, end) { inside = 0 }
		inside && index($0, call) { n++ }
		END { print n + 0 }' "$log"
}
# expect PHASE SYSCALL TEST N WHY: TEST is test(1)'s -eq or -ge.
expect() {
	got=$(count "$1" "$2")
	[ "$got" "$3" "$4" ] && return
	echo "first-call.sh: phase $1: $got $2 calls, expected $3 $4 ($5)"
	cat "$log"
	exit 1
}
# The vfork child leaves its parent's TLS alone, and a thread after it asks.
after_vfork() {
	expect C gettid -ge 1 "the vfork child asks (again before a cache store)"
	expect C rseq -eq 0 "the vfork child registers nothing on its parent's TLS"
	expect B gettid -eq 1 "after a vfork, a new thread asks"
	expect B rseq -eq 1 "and registers"
}

trace "$FASTCPU_LIB"
expect A rseq -eq 1 "a fresh thread registers"
if readelf --dyn-syms -W "$FASTCPU_LIB" | grep -qw vfork; then
	expect A gettid -eq 0 "no vfork yet: no need to ask who calls"
else
	echo "first-call.sh: no vfork stub in this build: every first call asks"
	expect A gettid -eq 1 "no stub: asks who calls"
fi
after_vfork

# Loaded by dlopen, the library's vfork is not the one the program calls.
trace "" "$FASTCPU_LIB"
expect A rseq -eq 1 "a fresh thread registers"
expect A gettid -eq 1 "the stubs are not in use: every first call asks"
after_vfork
echo "first-call.sh: ok"
