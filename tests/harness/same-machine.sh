#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/harness/same-machine.sh A B: succeeds when the ELF files A and B are for the
# same machine, so one can be preloaded into the other (not so for host
# programs when the library was cross-built: tests/platforms/cross.sh).
machine() { readelf -h "$1" 2>/dev/null | sed -n 's/^ *\(Class\|Machine\): *//p'; }
[ -n "$(machine "$1")" ] && [ "$(machine "$1")" = "$(machine "$2")" ]
