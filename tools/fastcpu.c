/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tools/fastcpu.c: the fastcpu command: run, count, info, bench. */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static const char help[] =
	"\n"
	"  run    run COMMAND with libfastcpu preloaded (added to LD_PRELOAD,\n"
	"         after what is there already)\n"
	"  count  run COMMAND preloaded and counting its sched_getcpu() and getcpu()\n"
	"         calls (its child processes' too, with --children); then say on\n"
	"         stderr (or in FILE) how often it asked and the time preloading\n"
	"         saves it\n"
	"  info   what this machine and process offer, and what libfastcpu binds\n"
	"  bench  the benchmark against the system libc (fastcpu-bench)\n"
	"\n"
	"FASTCPU_BACKEND and FASTCPU_CACHE choose the mechanism; see fastcpu(3).\n";

static int cmd_bench(char **argv)
{
	argv[-1] = (char *)FASTCPU_BENCH_PATH;
	execv(FASTCPU_BENCH_PATH, argv - 1);
	fprintf(stderr, "fastcpu: %s: %s\n", FASTCPU_BENCH_PATH, strerror(errno));
	return 127;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return tool_usage_error();
	if (strcmp(argv[1], "--help") == 0) {
		tool_usage(stdout);
		fputs(help, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("fastcpu (libfastcpu) %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 2, argv + 2);
	if (strcmp(argv[1], "count") == 0)
		return cmd_count(argc - 2, argv + 2);
	if (strcmp(argv[1], "info") == 0)
		return cmd_info(argc - 2, argv + 2);
	if (strcmp(argv[1], "bench") == 0)
		return cmd_bench(argv + 2);
	return tool_usage_error();
}
