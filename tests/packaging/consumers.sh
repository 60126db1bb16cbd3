#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/packaging/consumers.sh [PREFIX]: the consumer of tests/packaging/consumers/
# built as a CMake project (find_package(fastcpu CONFIG), the target
# fastcpu::fastcpu) and as a Meson project (dependency('fastcpu'), through
# pkg-config), out of tree, against libfastcpu installed under PREFIX (a
# prefix the dynamic loader does not search: the programs run with
# LD_LIBRARY_PATH) or, without one, where the system's packages put it; each
# program run. Needs cmake, meson and ninja.
set -eu
src=$(cd "$(dirname "$0")/consumers" && pwd)
prefix=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
run_env=
if [ -n "$prefix" ]; then
	pc=$(find "$prefix" -name fastcpu.pc | head -n 1)
	[ -n "$pc" ] || { echo "consumers.sh: no fastcpu.pc under $prefix" >&2; exit 1; }
	libdir=$(dirname "$(dirname "$pc")")
	export CMAKE_PREFIX_PATH="$prefix" PKG_CONFIG_PATH="$(dirname "$pc")"
	run_env="LD_LIBRARY_PATH=$libdir"
fi
for tool in cmake meson ninja; do
	command -v "$tool" >/dev/null 2>&1 || { echo "consumers.sh: no $tool" >&2; exit 1; }
done
cmake -S "$src" -B "$work/cmake" >"$work/cmake.log" 2>&1 &&
	cmake --build "$work/cmake" >>"$work/cmake.log" 2>&1 ||
	{ tail -20 "$work/cmake.log"; echo "consumers.sh: the CMake project does not build" >&2; exit 1; }
meson setup "$work/meson" "$src" >"$work/meson.log" 2>&1 &&
	ninja -C "$work/meson" >>"$work/meson.log" 2>&1 ||
	{ tail -20 "$work/meson.log"; echo "consumers.sh: the Meson project does not build" >&2; exit 1; }
for build in cmake meson; do
	printf '%s: ' "$build"
	env $run_env "$work/$build/consumer"
done
# Each found the library it was asked to.
for build in cmake meson; do
	found=$(env $run_env ldd "$work/$build/consumer" | awk '/libfastcpu/ { print $3 }')
	case $found in
	"${prefix:-/}"*) ;;
	*) echo "consumers.sh: the $build consumer runs with '$found'" >&2; exit 1 ;;
	esac
done
echo "consumers.sh: the CMake and the Meson project build and run with ${prefix:-the system's} libfastcpu"
