#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/system/autopkgtest.sh DEBS_DIR: debian/tests (Debian's autopkgtest
# convention) run by the real autopkgtest on the .deb files in DEBS_DIR, on
# this machine (the null runner): the packages and the tests' dependencies
# are installed here, as on a CI testbed, and the packages purged again
# unless they were installed before. The source given to autopkgtest is this
# tree as git sees it, new files included, without what builds leave. Needs
# root and autopkgtest.
set -eu
[ $# = 1 ] || { echo "usage: tests/system/autopkgtest.sh DEBS_DIR" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "autopkgtest.sh: needs root (it installs the packages)" >&2; exit 2; }
command -v autopkgtest >/dev/null || { echo "autopkgtest.sh: apt-get install autopkgtest" >&2; exit 2; }
debs=$(realpath "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)

set --
for name in libfastcpu0 libfastcpu-dev fastcpu-tools; do
	for deb in "$debs/${name}"_*.deb; do
		[ -f "$deb" ] || { echo "autopkgtest.sh: no $name .deb in $debs" >&2; exit 2; }
		set -- "$@" "$deb"
	done
done

tmp=$(mktemp -d)
installed=$(dpkg-query -W -f '${db:Status-Abbrev}\n' libfastcpu0 2>/dev/null || true)
cleanup() {
	case $installed in
	ii*) ;;
	*) apt-get purge -y -qq libfastcpu0 libfastcpu-dev fastcpu-tools >/dev/null 2>&1 || true ;;
	esac
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

src=$tmp/libfastcpu
mkdir -p "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && xargs -0 tar -cf - --no-recursion --ignore-failed-read) | tar -xf - -C "$src"
else
	cp -a "$top/." "$src"
fi

rc=0
autopkgtest --summary-file="$tmp/summary" --output-dir="$tmp/out" "$@" "$src/" -- null || rc=$?
echo "autopkgtest.sh: summary (autopkgtest exit $rc)"
cat "$tmp/summary"
# 0: all passed; 2: some skipped, none failed; 8: no tests ran.
case $rc in
0 | 2) echo "autopkgtest.sh: debian/tests pass on the packages" ;;
*) exit 1 ;;
esac
