#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/reading/dlopen.sh: dlopen()/dlclose() with glibc's rseq area and without it.
set -eu
: "${FASTCPU_LIB:?set by make check}"
./dlopen-probe "$FASTCPU_LIB"
GLIBC_TUNABLES=glibc.pthread.rseq=0 ./dlopen-probe "$FASTCPU_LIB"
