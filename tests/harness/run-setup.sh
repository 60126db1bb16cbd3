#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/harness/run-setup.sh: run the Check suite in the process setup a .setup file
# describes (environment assignments, one a line; # starts a comment).
set -eu
setup=$1
vars=$(grep -v '^#' "$setup" || true)
echo "setup $(basename "$setup"): ${vars:-default environment}"
# qemu-user answers rseq with ENOSYS: there glibc registers no area in any
# setup, and turning its registration off would run the default setup again.
case $vars in
*glibc.pthread.rseq=0*)
	if [ -n "${FASTCPU_TEST_EMULATED-}" ]; then
		echo "emulated: no rseq in any setup, the default setup's run covers this one; skipped"
		exit 77
	fi
	;;
esac
# shellcheck disable=SC2086 # one assignment a word, by design
exec env $vars $FASTCPU_TEST_WRAPPER ./check-fastcpu
