# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# m4/fastcpu_glibc_symbol_version.m4
#
# FASTCPU_GLIBC_SYMBOL_VERSION(VARIABLE, FUNCTION, PROLOGUE, CALL)
# Sets VARIABLE to the version node (e.g. GLIBC_2.3.4 on x86-64, GLIBC_2.17
# on arm64) that a program calling FUNCTION is bound to by this toolchain's
# libc, or to the empty string where symbols carry no version (musl).
# objdump -T prints the version as (GLIBC_2.3.4) since binutils 2.37, bare
# before, and on ppc64 the local entry offset (0x60) after it.
AC_DEFUN([FASTCPU_GLIBC_SYMBOL_VERSION], [
AC_REQUIRE([AC_PROG_CC])
AC_CHECK_TOOL([OBJDUMP], [objdump], [false])
AC_CACHE_CHECK([the libc version node of $2], [fastcpu_cv_version_$2], [
	fastcpu_cv_version_$2=
	AC_LINK_IFELSE([AC_LANG_PROGRAM([$3], [$4])], [
		fastcpu_cv_version_$2=`$OBJDUMP -T conftest$EXEEXT 2>/dev/null |
			sed -n 's/.*[[ (]]\(GLIBC_[[0-9.]]*\))\{0,1\} \(.* \)\{0,1\}$2$/\1/p' | head -n 1`
	])
	AS_IF([test -z "$fastcpu_cv_version_$2"], [fastcpu_cv_version_$2=none])
])
AS_IF([test "x$fastcpu_cv_version_$2" = xnone], [$1=], [$1=$fastcpu_cv_version_$2])
])
