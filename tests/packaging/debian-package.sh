#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/packaging/debian-package.sh WORKDIR: build the Debian packages from what git
# has committed (dpkg-buildpackage -us -uc -b, tests included), lintian them
# (no errors allowed), install them, use them as a user would (fastcpu info,
# fastcpu run, a consumer built with pkg-config, a CMake and a Meson
# project), and purge them again.
# Needs root, git, debhelper, lintian.
set -eu
work=$(realpath "$1")
top=$(git rev-parse --show-toplevel)
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$work/libfastcpu-${version%-*}
rm -rf "$work" && mkdir -p "$src"
git -C "$top" archive HEAD | tar -x -C "$src"
# As the README has it: the packages are built in the tree its first
# command configured and built in place.
(cd "$src" && autoreconf -fi && ./configure && make) >"$work/in-place.log" 2>&1 ||
	{ tail -20 "$work/in-place.log"; exit 1; }
(cd "$src" && dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
	{ tail -40 "$work/build.log"; exit 1; }
echo "built: $(cd "$work" && ls ./*.deb | tr '\n' ' ')"
lintian --fail-on error "$work"/*.changes
debs="$work/libfastcpu0_${version}_*.deb $work/libfastcpu-dev_${version}_*.deb $work/fastcpu-tools_${version}_*.deb"
trap 'apt-get purge -y -qq libfastcpu0 libfastcpu-dev fastcpu-tools >/dev/null 2>&1 || true' EXIT
# shellcheck disable=SC2086 # the globs are meant to expand
apt-get install -y -qq $debs >/dev/null
fastcpu --version
fastcpu info
# shellcheck disable=SC2046 # pkg-config's words are meant to split
cc "$top/tests/packaging/package-consumer.c" -o "$work/consumer" -pthread $(pkg-config --cflags --libs fastcpu)
"$work/consumer"
fastcpu run -- "$work/consumer"
sh "$top/tests/packaging/consumers.sh"
# Installed, it preloads by name: each child's own word size finds its copy.
[ "$(fastcpu run -- printenv LD_PRELOAD)" = libfastcpu.so.0 ]
fastcpu bench --quick --runs 11 | tail -n 4
man -w fastcpu.3 fastcpu.1 fastcpu-bench.1 >/dev/null
# The guide the manual pages point to.
ls /usr/share/doc/libfastcpu0/README.md* >/dev/null
echo "debian-package.sh: packages build, pass lintian, install and work"
