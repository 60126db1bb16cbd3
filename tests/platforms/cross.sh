#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/platforms/cross.sh TARBALL ARCH: the release tarball cross-built for ARCH with
# Debian's cross toolchain (gcc-TRIPLET) and its whole test suite run there:
# under qemu-user for aarch64, ppc64el, s390x and riscv64, natively for i386
# (an x86-64 kernel runs i386 code, rseq included). qemu-user answers rseq
# with ENOSYS and has no vDSO (7.2), so those runs test the fallback ladder:
# the syscall, the cache and its per-architecture clock.
#
# Check is built from its Debian source for the target, once per ARCH, in
# FASTCPU_CROSS_DIR (default ${TMPDIR:-/tmp}/fastcpu-cross). Needs root the
# first time an emulator must be registered with binfmt_misc.
# FASTCPU_CROSS_BUILD_ONLY=1 stops after the build (tests/kernels/matrix.sh
# boots the tree on real kernels).
set -eu
usage() {
	echo "usage: tests/platforms/cross.sh TARBALL aarch64|ppc64el|s390x|riscv64|i386" >&2
	exit 2
}
[ $# = 2 ] || usage
tarball=$(realpath "$1")
case $2 in
aarch64 | arm64) triplet=aarch64-linux-gnu qemu=aarch64 ;;
ppc64el | ppc64le) triplet=powerpc64le-linux-gnu qemu=ppc64le ;;
s390x) triplet=s390x-linux-gnu qemu=s390x ;;
riscv64) triplet=riscv64-linux-gnu qemu=riscv64 ;;
i386 | i686) triplet=i686-linux-gnu qemu= ;;
*) usage ;;
esac
command -v "$triplet-gcc" >/dev/null ||
	{ echo "cross.sh: no $triplet-gcc: apt-get install gcc-$triplet" >&2; exit 1; }
work=${FASTCPU_CROSS_DIR:-${TMPDIR:-/tmp}/fastcpu-cross}
mkdir -p "$work"
work=$(realpath "$work")
jobs=$(nproc)

# The emulator, registered as the kernel's handler for ARCH's binaries
# (flags OPF from Debian's own binfmt.d file: argv[0] kept, loaded now).
if [ -n "$qemu" ]; then
	binfmt=/proc/sys/fs/binfmt_misc
	[ -e $binfmt/register ] || mount -t binfmt_misc binfmt_misc $binfmt
	if [ ! -e "$binfmt/qemu-$qemu" ]; then
		conf=/usr/lib/binfmt.d/qemu-$qemu.conf
		[ -r "$conf" ] ||
			{ echo "cross.sh: no $conf: apt-get install qemu-user-static" >&2; exit 1; }
		cat "$conf" >$binfmt/register
	fi
	# The target's dynamic linker and libraries, from libc6-dev-*-cross;
	# the suite skips what qemu-user cannot do (seccomp, raw clone).
	export QEMU_LD_PREFIX=/usr/$triplet FASTCPU_TEST_EMULATED=1
elif [ ! -e /lib/ld-linux.so.2 ]; then
	echo "cross.sh: no i386 dynamic linker: apt-get install libc6-i386" >&2
	exit 1
fi

# Check, static, for the target.
check=$work/check-$triplet
if [ ! -e "$check/lib/pkgconfig/check.pc" ]; then
	src=$(ls -d "$work"/check-0.*/ 2>/dev/null | head -n 1)
	if [ -z "$src" ]; then
		(cd "$work" && apt-get source --download-only check >/dev/null 2>&1 &&
			tar xf check_*.orig.tar.gz) ||
			{ echo "cross.sh: apt-get source check failed: add a deb-src line" >&2; exit 1; }
		src=$(ls -d "$work"/check-0.*/ | head -n 1)
	fi
	rm -rf "$check.build" && mkdir -p "$check.build"
	(cd "$check.build" &&
		"$src/configure" --host="$triplet" --prefix="$check" \
			--disable-shared --enable-subunit=no --disable-build-docs &&
		make -j"$jobs" -C lib && make -j"$jobs" -C src &&
		make -C src install && make install-pcdataDATA install-includeHEADERS
	) >"$check.log" 2>&1 || { tail -20 "$check.log"; exit 1; }
	rm -rf "$check.build"
fi

# The tarball, configured as a distribution would: only the target's
# pkg-config files are seen (Check here; no liburcu for the target).
name=$(basename "$tarball" .tar.xz)
build=$work/$name-$triplet
rm -rf "$build" && mkdir -p "$build"
tar xf "$tarball" -C "$build"
cd "$build/$name"
echo "cross.sh: $triplet, $($triplet-gcc --version | head -n 1)${qemu:+, $(qemu-$qemu-static --version | head -n 1)}"
./configure --host="$triplet" --enable-Werror \
	PKG_CONFIG_LIBDIR="$check/lib/pkgconfig" >configure.log 2>&1 ||
	{ tail -30 configure.log; exit 1; }
sed -n '/^  libfastcpu/,/^$/p' configure.log
make -j"$jobs" >make.log 2>&1 || { tail -30 make.log; exit 1; }
if [ -n "${FASTCPU_CROSS_BUILD_ONLY-}" ]; then
	make -j"$jobs" check TESTS= >make.log 2>&1 || { tail -30 make.log; exit 1; }
	exit 0
fi
make -j"$jobs" check || { cat tests/test-suite.log; exit 1; }
./bench/fastcpu-bench --quick 2>/dev/null
