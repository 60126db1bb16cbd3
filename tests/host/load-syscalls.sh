#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/host/load-syscalls.sh: preloading the library into a program that never
# asks for the CPU makes no system call beyond loading any shared object.
set -eu
: "${FASTCPU_LIB:?set by make check}"
# strace sees the emulator's calls, not the program's, under qemu-user.
if [ -n "${FASTCPU_TEST_EMULATED-}" ] ||
	! sh "$(dirname "$0")/../harness/same-machine.sh" /bin/true "$FASTCPU_LIB"; then
	echo "load-syscalls.sh: /bin/true is not this library's machine, or emulated; skipped"
	exit 77
fi
exec sh "$(dirname "$0")/../../bench/startup.sh" --syscalls-only "$FASTCPU_LIB"
