#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/kernels/matrix.sh TARBALL BUILD KERNEL...: the library on Debian's own
# kernels, each booted under qemu-system (tests/kernels/boot.sh) with the Check
# suite in both rseq setups, every backend asked for, the tool and a quick
# benchmark (emulated: its times mean nothing). KERNEL is ARCH:SUITE (amd64,
# arm64, ppc64el, s390x, riscv64; bullseye, bookworm, trixie, sid,
# experimental): the newest kernel SUITE has for ARCH; or
# ARCH:SUITE:PACKAGE, that package's kernel (trixie-backports keeps every
# linux-binary-VERSION it shipped: arm64's 6.19.x and 7.0.4-7.0.13 resumed
# preempted sequences, which the library's guard must catch).
#
# BUILD is the native (x86-64) build tree; other architectures use the
# cross-built TARBALL that tests/platforms/cross.sh makes (built here if missing).
# Downloads are kept in FASTCPU_KERNELS_DIR (default
# ${TMPDIR:-/tmp}/fastcpu-kernels). Prints a table kernel x setup with the
# counts; exits 1 if any guest failed or hung.
set -eu
[ $# -ge 3 ] || { echo "usage: tests/kernels/matrix.sh TARBALL BUILD ARCH:SUITE..." >&2; exit 2; }
tarball=$(realpath "$1") build=$(realpath "$2")
shift 2
here=$(realpath "$(dirname "$0")")
work=${FASTCPU_KERNELS_DIR:-${TMPDIR:-/tmp}/fastcpu-kernels}
mkdir -p "$work"
work=$(realpath "$work")
name=$(basename "$tarball" .tar.xz)
# A guest's whole run is about 3 minutes under TCG for x86-64 on this
# machine's kind, more for the others; twice that is a hang.
seconds=${FASTCPU_GUEST_SECONDS:-1200}

triplet_of() {
	case $1 in
	amd64) echo x86_64-linux-gnu ;;
	arm64) echo aarch64-linux-gnu ;;
	ppc64el) echo powerpc64le-linux-gnu ;;
	s390x) echo s390x-linux-gnu ;;
	riscv64) echo riscv64-linux-gnu ;;
	*) echo "matrix.sh: no architecture $1" >&2; return 1 ;;
	esac
}

# The build tree and C library for ARCH's guests.
tree_of() {
	if [ "$1" = amd64 ]; then
		echo "$build /lib/x86_64-linux-gnu"
		return
	fi
	t=$(triplet_of "$1")
	cross=${FASTCPU_CROSS_DIR:-${TMPDIR:-/tmp}/fastcpu-cross}/$name-$t/$name
	# Built from this very tarball (make check-cross's tree is), else again.
	if [ ! "$cross/tests/check-fastcpu" -nt "$tarball" ]; then
		FASTCPU_CROSS_BUILD_ONLY=1 sh "$here/../platforms/cross.sh" "$tarball" "$1" >&2
	fi
	echo "$(realpath "$cross") /usr/$t/lib"
}

# The table's rows for one guest's LOG: one per rseq setup (the Check suite:
# checks passed, skipped as the suite named them, failed) and one for the
# other programs (one check each, node-table's five); seconds as the guest
# counted them.
rows() {
	tr -d '\r' <"$1" | awk -v k="$2" -v a="$3" '
		function row(run, pass, skip, fail, secs) {
			printf "| %s | %s | %s | %d | %d | %d | %d |\n", k, a, run, pass, skip, fail, secs
		}
		/^matrix: skip: / { skipped++ }
		/^matrix: result / {
			run = $3; rc = $4; sub("rc=", "", rc); secs = $NF; sub("seconds=", "", secs)
			n = 1; bad = (rc != 0)
			if (match($0, /checks=\[[0-9]+ [0-9]+ [0-9]+\]/)) {
				split(substr($0, RSTART + 8, RLENGTH - 9), c, " ")
				n = c[1]; bad = c[2] + c[3]
				if (bad == 0 && rc != 0) bad = 1
			}
			if (run ~ /^(glibc|own)-rseq(-exact)?$/) {
				row(run, n - bad, skipped, bad, secs)
			} else {
				opass += n - bad; ofail += bad; osecs += secs; oskip += skipped
			}
			skipped = 0
		}
		END { if (opass + ofail) row("tool, bench, probes", opass, oskip, ofail, osecs) }'
}

# boot_and_count MODE LOG: one boot of the kernel in $image (boot.sh's
# MODE), its rows added to the table; false if the guest failed or hung.
boot_and_count() {
	log=$2 start=$(date +%s) ok=true
	echo "matrix.sh: $arch $suite: Linux $version, booting, $1 (log: $log)"
	if why=$(sh "$here/boot.sh" "$arch" "$image" "$initrd" "$log" "$seconds" "$1"); then
		status=ok
	else
		status="FAILED: $why"
		ok=false
	fi
	grep -a '^matrix: ' "$log" | grep -av '^matrix: result' || true
	rows "$log" "$version" "$arch" >>"$table"
	again=$(find "$work" -maxdepth 1 -name "${log##*/}.before-tests.*" | wc -l)
	[ "$again" = 0 ] ||
		echo "| $version | $arch | booted again: $again boot(s) panicked or stalled before the tests | | | | |" >>"$table"
	[ "$status" = ok ] || echo "| $version | $arch | ${status#FAILED: } | 0 | 0 | 1 | |" >>"$table"
	if grep -aq '^matrix: result .* rc=[1-9]' "$log"; then
		status="FAILED: $(grep -a '^matrix: result .* rc=[1-9]' "$log" | cut -d' ' -f3 | tr '\n' ' ')"
		ok=false
		grep -a ':[FE]:' "$log" || true
	fi
	echo "matrix.sh: $arch $suite: $1: $status ($(($(date +%s) - start))s)"
	$ok
}

failed=0
table=$work/table.md
printf '| kernel | arch | setup | passed | skipped | failed | seconds |\n|---|---|---|--:|--:|--:|--:|\n' >"$table"
for kernel in "$@"; do
	arch=${kernel%%:*} suite=${kernel#*:} package=linux-image label=
	case $suite in
	*:*) package=${suite#*:} suite=${suite%%:*} label=-$package ;;
	esac
	triplet=$(triplet_of "$arch")
	# The kernel from SUITE; the guest's busybox from sid whatever the kernel.
	if ! unpacked=$(sh "$here/fetch.sh" "$work" "$arch" "$suite" "$package") ||
		! busybox=$(sh "$here/fetch.sh" "$work" "$arch" sid busybox-static); then
		echo "matrix.sh: $arch $suite: FAILED: no kernel or busybox to boot"
		failed=1
		continue
	fi
	image=$(find "$unpacked" -name 'vmlinu[xz]*' -type f | head -n 1)
	version=$(cut -d' ' -f2 "$unpacked/.done")
	initrd=$work/$arch.cpio.gz
	# shellcheck disable=SC2046 # two words: the tree and its C library
	sh "$here/initramfs.sh" "$initrd" $(tree_of "$arch") "$triplet" "$busybox" 2>&1 ||
		{ failed=1; continue; }
	# Every kernel boots twice: the whole suite under TCG's threads, and
	# the exact boot under instruction counting (about 20 s). A kernel
	# named by its package is kept for one fault: the suite alone there.
	modes="full exact"
	[ -z "$label" ] || modes="suite exact"
	for mode in $modes; do
		boot_and_count "$mode" "$work/$arch-$suite$label-$mode.log" || failed=1
	done
done
cat "$table"
exit $failed
