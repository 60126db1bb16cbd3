# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 The libfastcpu authors
# m4/fastcpu_probe_cflags.m4
#
# FASTCPU_PROBE_CFLAGS(VARIABLE, FLAGS)
# Appends to VARIABLE each of FLAGS that the C compiler accepts without a
# warning, so the list works with any gcc or clang version.
AC_DEFUN([FASTCPU_PROBE_CFLAGS], [
for fastcpu_flag in $2; do
	AC_MSG_CHECKING([whether $CC accepts $fastcpu_flag])
	fastcpu_save_CFLAGS="$CFLAGS"
	CFLAGS="$CFLAGS -Werror $fastcpu_flag"
	AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
		[AC_MSG_RESULT([yes]); $1="${$1} $fastcpu_flag"],
		[AC_MSG_RESULT([no])])
	CFLAGS="$fastcpu_save_CFLAGS"
done
])
