#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/platforms/musl.sh TARBALL: the release tarball built with musl-gcc (library
# and fastcpu tool; the benchmark and the Check suite are glibc's), then a
# musl program served by it, preloaded and linked: tests/platforms/musl-probe.c.
# musl never registers rseq, so the library registers its own area in every
# thread. Needs musl-tools. Work in FASTCPU_MUSL_DIR (default
# ${TMPDIR:-/tmp}/fastcpu-musl).
set -eu
tarball=$(realpath "$1")
command -v musl-gcc >/dev/null ||
	{ echo "musl.sh: no musl-gcc: apt-get install musl-tools" >&2; exit 1; }
work=${FASTCPU_MUSL_DIR:-${TMPDIR:-/tmp}/fastcpu-musl}
name=$(basename "$tarball" .tar.xz)
rm -rf "$work" && mkdir -p "$work"
tar xf "$tarball" -C "$work"
cd "$work/$name"
echo "musl.sh: $(musl-gcc --version | head -n 1), musl $(dpkg-query -W -f='${Version}' musl 2>/dev/null || echo '?')"
./configure CC=musl-gcc --enable-Werror PKG_CONFIG_LIBDIR=/nonexistent \
	>configure.log 2>&1 || { tail -30 configure.log; exit 1; }
{ make -j"$(nproc)" -C lib && make -j"$(nproc)" -C tools; } >make.log 2>&1 ||
	{ tail -30 make.log; exit 1; }
lib=$PWD/lib/.libs/libfastcpu.so.0
ldd=$(readelf -d "$lib" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
[ "$ldd" = "libc.so " ] || { echo "musl.sh: libfastcpu needs $ldd, not musl's libc.so alone" >&2; exit 1; }

probe=tests/platforms/musl-probe.c
musl-gcc -O2 -Wall -Wextra -Werror -Ilib -o musl-probe "$probe"
musl-gcc -O2 -Wall -Wextra -Werror -o musl-probe-linked "$probe" \
	-DMUSL_PROBE_LINKED -Ilib -Iinclude -Llib/.libs -lfastcpu
if ./musl-probe >/dev/null 2>&1; then
	echo "musl.sh: the probe passed without libfastcpu: it proves nothing" >&2
	exit 1
fi
LD_PRELOAD=$lib ./musl-probe
LD_LIBRARY_PATH=lib/.libs ./musl-probe-linked
FASTCPU_BACKEND=syscall LD_PRELOAD=$lib ./musl-probe
# The tool itself, a musl program linked with the library (not libtool's
# wrapper script: that is run by the host's glibc shell).
info=$(LD_LIBRARY_PATH=lib/.libs tools/.libs/fastcpu info)
echo "$info" | grep '^backend: *rseq' ||
	{ echo "musl.sh: fastcpu info under musl: $info" >&2; exit 1; }
