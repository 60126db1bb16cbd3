#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/percpu/fork-handlers.sh: a program's fork handlers that allocate, registered before the library loads.
set -eu
: "${FASTCPU_LIB:?set by make check}"
./fork-handlers-probe "$FASTCPU_LIB"
GLIBC_TUNABLES=glibc.pthread.rseq=0 ./fork-handlers-probe "$FASTCPU_LIB"
