#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/packaging/rpm-package.sh BUILD: in the configured build tree BUILD, "make rpm"
# (the test suite left to make check) and "make rpmlint" (no errors), then
# each binary package unpacked with rpm2cpio into one root and used from
# there: the unpacked fastcpu tool on the unpacked library, and a consumer
# built with the unpacked pkg-config file. Needs rpm, rpmlint, cpio.
set -eu
build=$(realpath "$1")
make -C "$build" rpm RPMBUILD_FLAGS="--without check" >"$build/rpm.log" 2>&1 ||
	{ tail -40 "$build/rpm.log"; exit 1; }
echo "built: $(cd "$build/rpmbuild" && ls SRPMS/*.rpm RPMS/*/*.rpm | tr '\n' ' ')"
make -s -C "$build" rpmlint
root=$build/rpm-root
rm -rf "$root" && mkdir -p "$root"
for package in "$build"/rpmbuild/RPMS/*/*.rpm; do
	(cd "$root" && rpm2cpio "$package" | cpio -idm --quiet)
done
lib=$(echo "$root"/usr/lib*/libfastcpu.so.0)
libdir=$(dirname "$lib")
[ -f "$lib" ] || { echo "rpm-package.sh: no libfastcpu.so.0 in the packages" >&2; exit 1; }
ls "$root"/usr/share/doc/fastcpu*/README.md "$root"/usr/share/man/man3/fastcpu.3* \
	"$root"/usr/share/man/man1/fastcpu.1* >/dev/null

LD_LIBRARY_PATH=$libdir "$root/usr/bin/fastcpu" info
flags=$(PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$libdir/pkgconfig \
	pkg-config --cflags --libs fastcpu)
case $flags in
*"$root"*) ;;
*) echo "rpm-package.sh: pkg-config gave '$flags', not the unpacked root's" >&2; exit 1 ;;
esac
# shellcheck disable=SC2086 # pkg-config's words are meant to split
cc "$(dirname "$0")/package-consumer.c" -o "$root/consumer" -pthread $flags
LD_LIBRARY_PATH=$libdir "$root/consumer"
LD_LIBRARY_PATH=$libdir ldd "$root/consumer" | grep -F "$lib" >/dev/null ||
	{ echo "rpm-package.sh: the consumer did not load the unpacked library" >&2; exit 1; }
echo "rpm-package.sh: packages build, pass rpmlint, unpack and work"
