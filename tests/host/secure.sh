#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# tests/host/secure.sh: in a setuid (AT_SECURE) process the FASTCPU_* variables
# are ignored, silently; in the same program without setuid they are read.
# Needs root to make a setuid binary and setpriv to drop to nobody.
set -eu
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	echo "secure.sh: needs root and setpriv; skipped"
	exit 77
fi
dir=$(mktemp -d "$PWD/secure.XXXXXX")
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
# The probe carries libfastcpu inside (-static-libtool-libs): a setuid
# program would not find an uninstalled library by LD_LIBRARY_PATH. Linked
# so, the library keeps the cache off and says so when FASTCPU_CACHE=on:
# that line shows the settings were read.
cp ./secure-probe "$dir/plain"
cp ./secure-probe "$dir/setuid"
chmod 755 "$dir/plain"
chmod 4755 "$dir/setuid"
as_nobody() {
	FASTCPU_BACKEND=syscall FASTCPU_CACHE=on setpriv --reuid=65534 \
		--regid=65534 --clear-groups "$@"
}
plain=$(as_nobody "$dir/plain" 2>&1)
echo "not setuid: $plain"
case $plain in
*"FASTCPU_CACHE=on needs the shared library"*"secure=0 backend=syscall cpu_ok=1") ;;
*) echo "secure.sh: FASTCPU_* not honoured in a plain process" >&2; exit 1 ;;
esac
secure=$(as_nobody "$dir/setuid" 2>&1)
echo "setuid: $secure"
case $secure in
*secure=0*) echo "secure.sh: setuid did not take (nosuid file system?); skipped"; exit 77 ;;
*FASTCPU_CACHE*)
	echo "secure.sh: FASTCPU_* honoured in an AT_SECURE process" >&2; exit 1 ;;
"secure=1 backend="*" cpu_ok=1") ;;
*) echo "secure.sh: unexpected output" >&2; exit 1 ;;
esac
# A bad value must not even be warned about there: nothing is read.
bad=$(FASTCPU_BACKEND=bogus setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$dir/setuid" 2>&1)
case $bad in
"secure=1 backend="*" cpu_ok=1") ;;
*) echo "secure.sh: output in an AT_SECURE process: $bad" >&2; exit 1 ;;
esac
