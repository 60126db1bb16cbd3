# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# m4/fastcpu_glibc_symbol_versions.m4
#
# FASTCPU_GLIBC_SYMBOL_VERSIONS(PREFIX, FUNCTION, PROLOGUE, CALL)
# Sets PREFIX_VERSIONS to every version node this toolchain's libc defines
# FUNCTION at (sched_setaffinity: GLIBC_2.3.4 and GLIBC_2.3.3 on x86-64,
# GLIBC_2.17 on arm64), the one a new program is bound to first. With a libc
# that versions no symbols (musl) it is empty; with glibc an empty answer
# stops configure: the library would interpose the wrong ABI.
# objdump -T prints a version as (GLIBC_2.3.4) since binutils 2.37, bare
# before, and on ppc64 the local entry offset (0x60) after it; a version
# hidden from new links (a compat one) always in parentheses.
AC_DEFUN([FASTCPU_GLIBC_SYMBOL_VERSIONS], [
AC_REQUIRE([AC_PROG_CC])
AC_REQUIRE([FASTCPU_CHECK_GLIBC])
AC_CHECK_TOOL([OBJDUMP], [objdump], [false])
m4_pushdef([fastcpu_versions_of], [sed -n 's/.*[[ (]]\(GLIBC_[[0-9.]]*\))\{0,1\} \(.* \)\{0,1\}$2$/\1/p'])
AC_CACHE_CHECK([the libc version nodes of $2], [fastcpu_cv_versions_$2], [
	fastcpu_cv_versions_$2=
	AC_LINK_IFELSE([AC_LANG_PROGRAM([$3], [$4])], [
		fastcpu_cv_versions_$2=`$OBJDUMP -T conftest$EXEEXT 2>/dev/null |
			fastcpu_versions_of | head -n 1`
	])
	AS_IF([test -n "$fastcpu_cv_versions_$2"], [
		for fastcpu_lib in libc.so.6 libpthread.so.0; do
			fastcpu_path=`$CC $CFLAGS $LDFLAGS -print-file-name=$fastcpu_lib`
			test -f "$fastcpu_path" || continue
			for fastcpu_v in `$OBJDUMP -T "$fastcpu_path" 2>/dev/null | fastcpu_versions_of`; do
				AS_CASE([" $fastcpu_cv_versions_$2 "], [*" $fastcpu_v "*], [],
					[fastcpu_cv_versions_$2="$fastcpu_cv_versions_$2 $fastcpu_v"])
			done
		done
	])
	AS_IF([test -z "$fastcpu_cv_versions_$2"], [fastcpu_cv_versions_$2=none])
])
m4_popdef([fastcpu_versions_of])
AS_IF([test "x$fastcpu_cv_versions_$2" = xnone], [$1_VERSIONS=], [$1_VERSIONS=$fastcpu_cv_versions_$2])
AS_IF([test "x$fastcpu_is_glibc" = xyes && test -z "$$1_VERSIONS"],
	[AC_MSG_ERROR([cannot read the glibc version node of $2 with $OBJDUMP -T: the library must interpose exactly that version; install binutils or set OBJDUMP])])
])

# FASTCPU_CHECK_GLIBC: fastcpu_is_glibc=yes when the C library is glibc.
AC_DEFUN([FASTCPU_CHECK_GLIBC], [
AC_CACHE_CHECK([whether the C library is glibc], [fastcpu_cv_is_glibc], [
	AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <features.h>
#ifndef __GLIBC__
# error not glibc
#endif]], [])], [fastcpu_cv_is_glibc=yes], [fastcpu_cv_is_glibc=no])
])
fastcpu_is_glibc=$fastcpu_cv_is_glibc
])
