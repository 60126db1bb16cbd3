/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tools/tool.h: what the fastcpu command's files share. */

#ifndef FASTCPU_TOOL_H
#define FASTCPU_TOOL_H

#include <stdbool.h>
#include <stdio.h>

/* The usage lines (options.c); the same on stderr, and the exit status for
 * a usage error. */
void tool_usage(FILE *out);
int tool_usage_error(void);

/* What run and count take before "--" and the command after it. */
struct tool_options {
	const char *library;	/* --library PATH */
	const char *output;	/* --output FILE (count) */
	bool children;		/* --children (count) */
	char **command;
};
/* Reads argv into o, taking --output and --children only if with_count;
 * 0, or the usage error's exit status (options.c). */
int tool_options(int argc, char **argv, bool with_count, struct tool_options *o);

/* The library this command runs with, as an LD_PRELOAD entry (preload.c):
 * its name where the dynamic loader finds that very file by name, so that
 * each child gets the copy of its own word size; else its path. */
const char *tool_own_library(void);
/* LD_PRELOAD with lib added after what it holds (first is put before it
 * instead, where not NULL), neither twice; NULL without memory. */
char *tool_preload_list(const char *first, const char *lib);
/* Whether path can be preloaded; if not, one line on stderr. */
int tool_can_preload(const char *path);
/* The library a child preloads: asked (--library) if it can be, NULL (said
 * on stderr) if not; this command's own where none was asked for. */
const char *tool_library(const char *asked);

/* The subcommands (run.c, info.c, count.c). */
int cmd_run(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_count(int argc, char **argv);

#endif /* FASTCPU_TOOL_H */
