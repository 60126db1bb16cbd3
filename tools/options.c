/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tools/options.c: the fastcpu command's usage and its options. */

#include <stdio.h>
#include <string.h>

#include "tool.h"

static const char usage[] =
	"usage: fastcpu run [--library PATH] -- COMMAND [ARGS...]\n"
	"       fastcpu count [--children] [--output FILE] [--library PATH]\n"
	"                     -- COMMAND [ARGS...]\n"
	"       fastcpu info [--json]\n"
	"       fastcpu bench [BENCH-OPTIONS...]\n"
	"       fastcpu --help | --version\n";

void tool_usage(FILE *out)
{
	fputs(usage, out);
}

int tool_usage_error(void)
{
	tool_usage(stderr);
	return 2;
}

int tool_options(int argc, char **argv, bool with_count, struct tool_options *o)
{
	int i = 0;

	*o = (struct tool_options){ NULL, NULL, false, NULL };
	while (i < argc && strcmp(argv[i], "--") != 0) {
		if (strcmp(argv[i], "--library") == 0 && i + 1 < argc)
			o->library = argv[i + 1], i += 2;
		else if (with_count && strcmp(argv[i], "--output") == 0 && i + 1 < argc)
			o->output = argv[i + 1], i += 2;
		else if (with_count && strcmp(argv[i], "--children") == 0)
			o->children = true, i++;
		else
			return tool_usage_error();
	}
	if (i + 1 >= argc)
		return tool_usage_error();
	o->command = argv + i + 1;
	return 0;
}
