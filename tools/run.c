/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tools/run.c: fastcpu run: a command with the library preloaded. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

int cmd_run(int argc, char **argv)
{
	struct tool_options o;
	const char *lib;
	char *preload;
	int bad = tool_options(argc, argv, false, &o);

	if (bad)
		return bad;
	if ((lib = tool_library(o.library)) == NULL)
		return 127;
	preload = tool_preload_list(NULL, lib);
	if (preload == NULL || setenv("LD_PRELOAD", preload, 1) != 0) {
		perror("fastcpu: LD_PRELOAD");
		return 127;
	}
	execvp(o.command[0], o.command);
	fprintf(stderr, "fastcpu: %s: %s\n", o.command[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
