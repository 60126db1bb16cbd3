#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/kernels/initramfs.sh OUT BUILD LIBDIR TRIPLET BUSYBOX: the initramfs
# a matrix guest boots into, written to OUT (gzip'd cpio).
#
# BUILD is a configured and built tree of the library for the guest's
# architecture (native or cross); its programs go into the guest at the same
# absolute path, so the paths the tests were built with hold there too.
# LIBDIR holds the target's C library (the host's, or libc6-*-cross's), whose
# libraries the programs need are copied into /lib/TRIPLET. BUSYBOX is the
# unpacked busybox-static package for that architecture.
set -eu
[ $# = 5 ] || { echo "usage: tests/kernels/initramfs.sh OUT BUILD LIBDIR TRIPLET BUSYBOX" >&2; exit 2; }
out=$(realpath "$1") build=$(realpath "$2") libdir=$3 triplet=$4 busybox=$5
here=$(dirname "$0")
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT INT TERM

is_elf() { [ "$(head -c 4 "$1" | tail -c 3)" = ELF ]; }

# Copies FILE to the same path in the guest; a libtool wrapper script is
# replaced by the program it runs (.libs/NAME).
put() {
	src=$1
	if ! is_elf "$src" && [ -e "$(dirname "$src")/.libs/$(basename "$src")" ]; then
		src=$(dirname "$src")/.libs/$(basename "$src")
	fi
	mkdir -p "$root$(dirname "$1")"
	cp -L "$src" "$root$1"
}

# The shared libraries ELF needs, from LIBDIR, and its program interpreter,
# each once.
copy_needed() {
	interp=$(readelf -l "$1" 2>/dev/null |
		sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		mkdir -p "$root$(dirname "$interp")"
		cp -L "$libdir/$(basename "$interp")" "$root$interp"
	fi
	for lib in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		case $lib in libfastcpu.so.*) continue ;; esac
		[ ! -e "$root/lib/$triplet/$lib" ] || continue
		[ -e "$libdir/$lib" ] ||
			{ echo "initramfs.sh: $lib (needed by $1) not in $libdir" >&2; exit 1; }
		cp -L "$libdir/$lib" "$root/lib/$triplet/$lib"
		copy_needed "$root/lib/$triplet/$lib"
	done
}

mkdir -p "$root/bin" "$root/lib/$triplet" "$root/proc" "$root/sys" "$root/dev" \
	"$root/tmp" "$root/etc"
bb=$(ls "$busybox/bin/busybox" "$busybox/usr/bin/busybox" 2>/dev/null | head -n 1)
cp "$bb" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$here/guest-init.sh" "$root/init"
chmod +x "$root/init"

# The library, the test programs the guest runs (and those they start), the
# tool and the benchmark.
for f in "$build"/lib/.libs/libfastcpu.so.0 tests/check-fastcpu tests/preload-probe \
	tests/node-table tests/ctor-probe tools/fastcpu bench/fastcpu-bench; do
	case $f in /*) ;; *) f=$build/$f ;; esac
	put "$f"
done
for f in $(find "$root$build" -type f); do
	copy_needed "$f"
done
# glibc's pthread_cancel unwinds with libgcc_s, which it loads only then:
# no program names it, and the cancellation tests need it.
[ -e "$root/lib/$triplet/libgcc_s.so.1" ] || cp -L "$libdir/libgcc_s.so.1" "$root/lib/$triplet/"
echo "BUILD=$build" >"$root/etc/matrix.env"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
