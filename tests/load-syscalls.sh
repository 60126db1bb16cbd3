#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/load-syscalls.sh: preloading the library into a program that never
# asks for the CPU makes no system call beyond loading any shared object.
set -eu
: "${FASTCPU_LIB:?set by make check}"
exec sh "$(dirname "$0")/../bench/startup.sh" --syscalls-only "$FASTCPU_LIB"
