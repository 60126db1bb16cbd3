#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/commands/tool.sh: the fastcpu command (uninstalled: run takes --library).
set -eu
: "${FASTCPU_LIB:?set by make check}" "${FASTCPU_BENCH_DIR:?set by make check}"
fastcpu=../tools/fastcpu
fail() { echo "tool.sh: $*" >&2; exit 1; }

$fastcpu --version | grep -q '^fastcpu (libfastcpu) [0-9]' || fail "--version"
$fastcpu --help | grep -q 'fastcpu run' || fail "--help"
for bad in "" bogus "info --xml" "run" "run --library" "count" "count --bogus --"; do
	# shellcheck disable=SC2086 # word splitting wanted
	if $fastcpu $bad >/dev/null 2>"$$.err"; then fail "'$bad' succeeded"; fi
	status=0; $fastcpu $bad >/dev/null 2>&1 || status=$?
	[ "$status" = 2 ] || fail "'$bad' exited $status, not 2"
	grep -q '^usage: fastcpu run' "$$.err" || fail "'$bad' printed no usage"
done
rm -f "$$.err"

info=$($fastcpu info)
echo "$info"
for line in 'kernel rseq:' 'glibc rseq:' 'vDSO getcpu:' 'RDPID:' 'backend:' 'why:' 'CPUs, nodes:' \
	'possible CPUs:'; do
	echo "$info" | grep -q "^$line" || fail "info has no '$line'"
done
json=$($fastcpu info --json)
case $json in
'{"version": '*'"backend": "'*'"cpus": '*'}') ;;
*) fail "info --json: $json" ;;
esac
FASTCPU_BACKEND=syscall $fastcpu info | grep -q '^backend: *syscall+cache' ||
	fail "info does not show a forced backend"
FASTCPU_POSSIBLE_CPUS=8192 $fastcpu info | grep -q '^possible CPUs: *8192' ||
	fail "info does not show FASTCPU_POSSIBLE_CPUS"

# run: preloads, appends to LD_PRELOAD, never twice.
$fastcpu run --library "$FASTCPU_LIB" -- ./preload-probe | grep -q 'served by \(rseq\|rdpid\|vdso\|syscall\)' ||
	fail "run did not preload the library"
got=$(LD_PRELOAD=/nonexistent/other.so $fastcpu run --library "$FASTCPU_LIB" -- \
	printenv LD_PRELOAD 2>/dev/null)
[ "$got" = "/nonexistent/other.so $FASTCPU_LIB" ] || fail "run replaced LD_PRELOAD: $got"
got=$(LD_PRELOAD=$FASTCPU_LIB $fastcpu run --library "$FASTCPU_LIB" -- printenv LD_PRELOAD)
[ "$got" = "$FASTCPU_LIB" ] || fail "run added the library twice: $got"
status=0; $fastcpu run --library "$FASTCPU_LIB" -- /nonexistent/command 2>/dev/null || status=$?
[ "$status" = 127 ] || fail "a missing command exited $status, not 127"
# Run from the build tree, it preloads the build tree's library.
got=$($fastcpu run -- printenv LD_PRELOAD)
[ "$(realpath "$got")" = "$(realpath "$FASTCPU_LIB")" ] || fail "run preloads $got, not this build's library"
$fastcpu run -- ./preload-probe >/dev/null || fail "run without --library"
# An entry that merely contains the name is another library.
got=$(LD_PRELOAD=/opt/old$FASTCPU_LIB $fastcpu run --library "$FASTCPU_LIB" -- printenv LD_PRELOAD 2>/dev/null)
[ "$got" = "/opt/old$FASTCPU_LIB $FASTCPU_LIB" ] || fail "run took /opt/old$FASTCPU_LIB for its library: $got"
# A library that is not there: a clear line and a failure, never the
# program running without it.
status=0; $fastcpu run --library /nonexistent/libfastcpu.so.0 -- true 2>"$$.err" || status=$?
[ "$status" = 127 ] && grep -q 'cannot preload /nonexistent/libfastcpu.so.0' "$$.err" ||
	fail "a missing library: status $status, $(cat "$$.err")"
rm -f "$$.err"
# count: the command's own output and exit status; every call counted, in
# every thread, of the command's process or, with --children, of all.
client=$FASTCPU_BENCH_DIR/client-counter
threads=$(nproc)	# client-counter runs a thread per allowed CPU
out=$($fastcpu count --library "$FASTCPU_LIB" -- sh -c 'echo the output; exit 3' 2>"$$.err") &&
	fail "count lost the exit status" || [ $? = 3 ] || fail "count changed the exit status"
[ "$out" = "the output" ] || fail "count changed the output: $out"
$fastcpu count --library "$FASTCPU_LIB" -- "$client" 10000 >/dev/null 2>"$$.err"
grep -q "^  sched_getcpu(): $((10000 * threads)) calls" "$$.err" ||
	fail "count: $(cat "$$.err")"
grep -q "^  $threads thread(s) asked, in 1 process(es)" "$$.err" || fail "count: threads: $(cat "$$.err")"
grep -q '^  glibc.pthread.rseq=0 ' "$$.err" && grep -q '^  no rseq: ' "$$.err" ||
	fail "count: no costs: $(cat "$$.err")"
# Its files go with it, the uncounted children's too, under $TMPDIR.
mkdir "$$.tmp"
TMPDIR=$PWD/$$.tmp $fastcpu count --library "$FASTCPU_LIB" -- \
	sh -c "ls \"\$TMPDIR\" | grep -q '^fastcpu-count\.' || exit 9
	       $client 1000 >/dev/null; $client 1000 >/dev/null" 2>"$$.err" ||
	fail "count: not under TMPDIR, or failed: $(cat "$$.err")"
grep -q "^  sched_getcpu(): 0 calls" "$$.err" || fail "count took a child's calls: $(cat "$$.err")"
left=$(ls -A "$$.tmp")
[ -z "$left" ] || fail "count left in TMPDIR: $left $(ls -A "$$.tmp"/* 2>/dev/null)"
rmdir "$$.tmp"
$fastcpu count --children --library "$FASTCPU_LIB" -- \
	sh -c "$client 1000 >/dev/null; $client 1000 >/dev/null" 2>"$$.err"
grep -q "^  sched_getcpu(): $((2000 * threads)) calls" "$$.err" ||
	fail "count --children: $(cat "$$.err")"
# --output: the report in the file, nothing of it on stderr; a path that
# cannot be written costs no run.
$fastcpu count --output "$$.report" --library "$FASTCPU_LIB" -- "$client" 1000 >/dev/null 2>"$$.err"
grep -q "^  sched_getcpu(): $((1000 * threads)) calls" "$$.report" || fail "count --output: $(cat "$$.report")"
[ ! -s "$$.err" ] || fail "count --output wrote on stderr: $(cat "$$.err")"
status=0; $fastcpu count --output /nonexistent/report -- touch "$$.ran" 2>"$$.err" || status=$?
[ "$status" = 127 ] && [ ! -e "$$.ran" ] && grep -q '/nonexistent/report' "$$.err" ||
	fail "count --output to a bad path: status $status, $(cat "$$.err")"
rm -f "$$.err" "$$.report"
echo "tool.sh: fastcpu run, count, info, --help, --version and bad usage behave"
