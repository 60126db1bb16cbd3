#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/percpu/late-key.sh: a thread's first object cache use in a signal handler, the library loaded after many keys.
set -eu
: "${FASTCPU_LIB:?set by make check}"
FASTCPU_SEQUENCES=off ./late-key-probe "$FASTCPU_LIB" early
FASTCPU_SEQUENCES=off ./late-key-probe "$FASTCPU_LIB" late
