#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/packaging/readme-roots.sh SUITE...: the README's commands, exactly as written
# and in order, in a fresh Debian root of each SUITE (debootstrap, minbase),
# as a newcomer runs them: each block marked "run by tests/packaging/readme-roots.sh"
# (build and bench, tests, install, Debian packages, fastcpu info, run and
# count, then the C example's build), in bash, as root, all in one tree
# holding what git has committed. The placeholders the README names are
# supplied before the first block that names one: app.c is the README's
# first C block, ./your-program a program that asks sched_getcpu(); the
# compiled example is run at the end. Needs root,
# debootstrap and Debian's archive (FASTCPU_DEBIAN_MIRROR); the roots are made
# afresh in FASTCPU_README_ROOTS (default $TMPDIR/fastcpu-readme-roots).
set -eu
[ $# -gt 0 ] || { echo "usage: tests/packaging/readme-roots.sh SUITE..." >&2; exit 2; }
top=$(git rev-parse --show-toplevel)
work=${FASTCPU_README_ROOTS:-${TMPDIR:-/tmp}/fastcpu-readme-roots}
mirror=${FASTCPU_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$work"
work=$(realpath "$work")
root=
. "$top/tests/harness/root-mounts.sh"
trap '[ -z "$root" ] || root_unmount "$root"' EXIT
trap 'exit 1' INT TERM

# extract DIR: the marked sh blocks as DIR/block1.sh, block2.sh ... and the
# first C block as DIR/app.c.
extract() {
	awk -v dir="$1" '
		/^<!-- run by tests\/packaging\/readme-roots.sh -->$/ { marked = 1; next }
		/^```sh$/ && marked { n++; file = dir "/block" n ".sh"; inside = 1; marked = 0; next }
		/^```c$/ && !c { c = 1; file = dir "/app.c"; inside = 1; next }
		/^```/ { inside = 0; marked = 0; next }
		inside { print > file }
	' "$top/README.md"
}

# in_root LOG COMMAND: COMMAND in bash inside the root, in the tree. make
# bench runs each of its steps short there: this checks that the commands
# work, and the numbers are CI's own job (.ci/run's quick benchmark).
in_root() {
	chroot "$root" /usr/bin/env FASTCPU_BENCH_QUICK=1 /bin/bash -c "cd /root/libfastcpu && $2" \
		>"$1" 2>&1
}

for suite in "$@"; do
	root=$work/$suite
	root_remove "$root"
	rm -f "$root".*.log
	mkdir -p "$root"
	t0=$(date +%s)
	debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
		{ tail -20 "$root.debootstrap.log"; exit 1; }
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	root_mount "$root"
	mkdir -p "$root/root/libfastcpu" "$root/root/readme"
	git -C "$top" archive HEAD | tar -x -C "$root/root/libfastcpu"
	extract "$root/root/readme"
	echo "readme-roots.sh: $suite root made in $(($(date +%s) - t0)) s"
	blocks=$(ls "$root"/root/readme/block*.sh | wc -l)
	[ "$blocks" -ge 6 ] || { echo "readme-roots.sh: only $blocks marked blocks in the README" >&2; exit 1; }
	n=1
	while [ "$n" -le "$blocks" ]; do
		block=$root/root/readme/block$n.sh
		if [ ! -f "$root/root/libfastcpu/app.c" ] && grep -q -e 'your-program' -e 'app\.c' "$block"; then
			cp "$root/root/readme/app.c" "$root/root/libfastcpu/app.c"
			printf '#define _GNU_SOURCE\n#include <sched.h>\nint main(void) { return sched_getcpu() < 0; }\n' \
				>"$root/root/libfastcpu/your-program.c"
			in_root "$root.placeholders.log" "cc -o your-program your-program.c"
		fi
		t=$(date +%s)
		if ! in_root "$root.block$n.log" "bash -e /root/readme/block$n.sh"; then
			echo "readme-roots.sh: $suite: this README command failed:" >&2
			cat "$block" >&2
			tail -40 "$root.block$n.log" >&2
			exit 1
		fi
		echo "readme-roots.sh: $suite: ok in $(($(date +%s) - t)) s: $(head -n 1 "$block" | cut -c 1-90)"
		n=$((n + 1))
	done
	in_root "$root.example.log" "./a.out" || { cat "$root.example.log"; exit 1; }
	echo "readme-roots.sh: $suite: the README's C example runs: $(cat "$root.example.log")"
	grep -E '^(fastcpu-bench|this machine has|libfastcpu|backend)' "$root".block*.log | head -n 6 || true
	root_remove "$root"
	root=
	echo "readme-roots.sh: $suite: every README command worked, $(($(date +%s) - t0)) s in all"
done
