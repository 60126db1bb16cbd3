#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/platforms/oldglibc.sh TARBALL [ROOT]: the release tarball built and tested
# inside a Debian bullseye root (glibc 2.31: no rseq in glibc, the users who
# gain most), then its benchmark run there. Needs root and debootstrap; the
# root is made once (about a minute) and reused if ROOT already holds one.
set -eu
tarball=$(realpath "$1")
root=${2:-${TMPDIR:-/tmp}/fastcpu-bullseye}
mkdir -p "$root"
root=$(realpath "$root")
name=$(basename "$tarball" .tar.xz)

if [ ! -x "$root/usr/bin/gcc" ]; then
	echo "oldglibc.sh: debootstrap bullseye into $root"
	debootstrap --variant=minbase \
		--include=build-essential,pkg-config,check,xz-utils \
		bullseye "$root" http://deb.debian.org/debian >"$root.log" 2>&1 ||
		{ tail -20 "$root.log"; exit 1; }
fi
. "$(dirname "$0")/../harness/root-mounts.sh"
root_unmount "$root"
root_mount "$root"
trap 'root_unmount "$root"' EXIT
trap 'exit 1' INT TERM
cp "$tarball" "$root/tmp/"
chroot "$root" /bin/sh -eu -c "
	cd /tmp && rm -rf $name && tar xf $name.tar.xz && cd $name
	echo \"oldglibc.sh: \$(ldd --version | head -n 1)\"
	./configure --enable-Werror >/dev/null
	make -j$(nproc) >/dev/null
	make check || { cat tests/test-suite.log; exit 1; }
	./bench/fastcpu-bench --quick 2>/dev/null
"
