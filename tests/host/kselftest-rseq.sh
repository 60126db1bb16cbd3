#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/host/kselftest-rseq.sh LIB [WORKDIR]: the kernel's own rseq selftests,
# from Debian's linux-source package, built unmodified and run with LIB
# preloaded, with glibc's rseq area and with glibc.pthread.rseq=0 (the tests
# then register their own area before the library could). basic_test checks
# sched_getcpu() itself on every CPU, so its binding to LIB is checked too.
# run_param_test.sh's whole matrix (each test with delays injected at each of
# the sequences' 9 points: the tests' own sequences, which LIB only answers
# around) runs once, where the tests register their own area; with glibc's,
# param_test runs each test and its compare-twice form with the defaults.
set -eu
lib=$(realpath "$1")
work=${2:-$(mktemp -d)}
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
if [ -z "$tarball" ]; then
	echo "kselftest-rseq.sh: no /usr/src/linux-source-*.tar.xz (apt-get install linux-source)"
	exit 77
fi
top=$(basename "$tarball" .tar.xz)
echo "kselftest-rseq.sh: $top"
tar -xJf "$tarball" -C "$work" "$top/tools/include" \
	"$top/tools/testing/selftests/lib.mk" "$top/tools/testing/selftests/kselftest.h" \
	"$top/tools/testing/selftests/rseq"
cd "$work/$top/tools/testing/selftests/rseq"
# OUTPUT given: lib.mk leaves it empty when make runs inside another make.
make -s OUTPUT="$PWD" KHDR_INCLUDES="-isystem /usr/include" >/dev/null
for tunables in "" glibc.pthread.rseq=0; do
	echo "== GLIBC_TUNABLES=$tunables"
	GLIBC_TUNABLES=$tunables LD_DEBUG=bindings LD_PRELOAD=$lib ./basic_test 2>bindings.log
	if ! grep -E "binding file ./basic_test .* to [^ ]*libfastcpu[^ ]* \[0\]: normal symbol \`sched_getcpu'" \
		bindings.log >/dev/null; then
		echo "kselftest-rseq.sh: basic_test's sched_getcpu not bound to libfastcpu" >&2
		exit 1
	fi
	GLIBC_TUNABLES=$tunables LD_PRELOAD=$lib ./basic_percpu_ops_test
	if [ -n "$tunables" ]; then
		GLIBC_TUNABLES=$tunables LD_PRELOAD=$lib bash ./run_param_test.sh >param.log 2>&1 ||
			{ tail -20 param.log; exit 1; }
		echo "run_param_test.sh: $(grep -c '^Running' param.log) runs passed"
		continue
	fi
	threads=$((6 * $(nproc)))
	runs=0
	for test in s l b "b -M" m "m -M" i r; do
		for program in ./param_test ./param_test_compare_twice; do
			# shellcheck disable=SC2086 # the test's words
			LD_PRELOAD=$lib $program -T $test -r 1000 -t "$threads" >param.log 2>&1 ||
				{ echo "$program -T $test:"; tail -20 param.log; exit 1; }
			runs=$((runs + 1))
		done
	done
	echo "param_test: $runs runs with the default parameters passed"
done
