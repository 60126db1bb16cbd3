#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/run-setup.sh: run the Check suite in the process setup a .setup file
# describes (environment assignments, one a line; # starts a comment).
set -eu
setup=$1
vars=$(grep -v '^#' "$setup" || true)
echo "setup $(basename "$setup"): ${vars:-default environment}"
# shellcheck disable=SC2086 # one assignment a word, by design
exec env $vars $FASTCPU_TEST_WRAPPER ./check_fastcpu
