/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tools/fastcpu.c: the fastcpu command: run, info, bench. */

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "fastcpu.h"
#include "private.h"	/* what the library sees, for this tool only */
#include "rseq-abi.h"	/* AT_RSEQ_* where libc headers lack them */

static const char usage[] =
	"usage: fastcpu run [--library PATH] -- COMMAND [ARGS...]\n"
	"       fastcpu info [--json]\n"
	"       fastcpu bench [BENCH-OPTIONS...]\n"
	"       fastcpu --help | --version\n";

static const char help[] =
	"\n"
	"  run    run COMMAND with libfastcpu preloaded (added to LD_PRELOAD,\n"
	"         after what is there already)\n"
	"  info   what this machine and process offer, and what libfastcpu binds\n"
	"  bench  the benchmark against the system libc (fastcpu-bench)\n"
	"\n"
	"FASTCPU_BACKEND and FASTCPU_CACHE choose the mechanism; see fastcpu(3).\n";

static int fail_usage(void)
{
	fputs(usage, stderr);
	return 2;
}

/* Whether LD_PRELOAD's list (space- or colon-separated) has entry. */
static bool preloads(const char *list, const char *entry)
{
	size_t len = strlen(entry);

	for (const char *p = list; *p != '\0'; p += strcspn(p, " :")) {
		p += strspn(p, " :");
		if (strncmp(p, entry, len) == 0 && (p[len] == '\0' || p[len] == ' ' ||
						    p[len] == ':'))
			return true;
	}
	return false;
}

/* LD_PRELOAD with lib appended, unless it is in there already. */
static char *preload_with(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	size_t len;
	char *value;

	if (old == NULL || *old == '\0')
		return strdup(lib);
	if (preloads(old, lib))
		return strdup(old);
	len = strlen(old) + 1 + strlen(lib) + 1;
	value = malloc(len);
	if (value != NULL)
		snprintf(value, len, "%s %s", old, lib);
	return value;
}

/*
 * The library this command runs with: the installed one, or the build
 * tree's when run from there. Installed where the dynamic linker looks by
 * itself, it is preloaded by its name, so that each child finds the copy
 * of its own word size (a 32-bit child of a 64-bit shell); else by path.
 */
static const char *own_library(void)
{
	char *loaded, *installed;
	bool same;
	Dl_info info;

	if (dladdr((void *)fastcpu_backend, &info) == 0 || info.dli_fname == NULL)
		return FASTCPU_LIBRARY_PATH;
	/* Merged /usr: the loader may say /lib where libdir says /usr/lib. */
	loaded = realpath(info.dli_fname, NULL);
	installed = realpath(FASTCPU_LIBRARY_PATH, NULL);
	same = loaded && installed && strcmp(loaded, installed) == 0;
	free(loaded);
	free(installed);
	if (same && getenv("LD_LIBRARY_PATH") == NULL)
		return FASTCPU_LIBRARY_SONAME;
	return info.dli_fname;
}

static int cmd_run(int argc, char **argv)
{
	const char *lib = NULL;
	char *preload;
	int i = 0;

	while (i < argc && strcmp(argv[i], "--") != 0) {
		if (strcmp(argv[i], "--library") == 0 && i + 1 < argc)
			lib = argv[i + 1], i += 2;
		else
			return fail_usage();
	}
	if (i + 1 >= argc)
		return fail_usage();
	if (lib == NULL)
		lib = own_library();
	else if (access(lib, R_OK) != 0) {
		fprintf(stderr, "fastcpu: cannot preload %s: %s\n", lib, strerror(errno));
		return 127;
	}
	preload = preload_with(lib);
	if (preload == NULL || setenv("LD_PRELOAD", preload, 1) != 0) {
		perror("fastcpu: LD_PRELOAD");
		return 127;
	}
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "fastcpu: %s: %s\n", argv[i + 1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

struct facts {
	unsigned long rseq_feature_size, rseq_align;
	long glibc_rseq_size;	/* -1: this glibc has no rseq support */
	long cpus, nodes;
	const char *backend, *why;
	/* The library's own view: its vDSO lookup, right under any libc and
	 * "absent" where it would not use it (riscv's is a syscall). */
	struct fastcpu_private_facts lib;
};

static long count_nodes(void)
{
	long n = 0;
	char path[64];

	for (int i = 0; i < 4096; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", i);
		if (access(path, F_OK) == 0)
			n++;
	}
	return n ? n : 1;
}

static const char *explain(const struct facts *f)
{
	switch (f->lib.area) {
	case FASTCPU_AREA_GLIBC:
		return "glibc registered an rseq area for every thread: one load of its cpu_id";
	case FASTCPU_AREA_PROGRAM:
		return "an rseq owner the program loaded (librseq, tcmalloc) registered the area: libfastcpu reads it";
	case FASTCPU_AREA_OWN:
		return "glibc did not register rseq: libfastcpu registered its own area";
	case FASTCPU_AREA_NONE:
		break;
	}
	if (getenv("FASTCPU_BACKEND") != NULL && *getenv("FASTCPU_BACKEND") != '\0' &&
	    strcmp(getenv("FASTCPU_BACKEND"), "auto") != 0)
		return "chosen by FASTCPU_BACKEND";
	if (f->rseq_feature_size == 0 && f->glibc_rseq_size <= 0)
		return "no rseq for this thread (old kernel, sandbox or emulator): the best fallback";
	return "rseq refused for this thread: the best fallback";
}

static void gather(struct facts *f)
{
	const unsigned int *rseq_size = dlsym(RTLD_DEFAULT, "__rseq_size");

	f->rseq_feature_size = getauxval(AT_RSEQ_FEATURE_SIZE);
	f->rseq_align = getauxval(AT_RSEQ_ALIGN);
	f->glibc_rseq_size = rseq_size ? (long)*rseq_size : -1;
	f->cpus = sysconf(_SC_NPROCESSORS_CONF);
	f->nodes = count_nodes();
	f->backend = fastcpu_backend();
	fastcpu_private_facts(&f->lib);
	f->why = explain(f);
}

static int cmd_info(int argc, char **argv)
{
	bool json = argc == 1 && strcmp(argv[0], "--json") == 0;
	struct facts f;
	unsigned int cpu = 0, node = 0;

	if (argc > 1 || (argc == 1 && !json))
		return fail_usage();
	gather(&f);
	if (fastcpu_getcpu(&cpu, &node) != 0)
		cpu = node = ~0u;
	if (json) {
		printf("{\"version\": \"%s\", \"kernel_rseq_feature_size\": %lu, "
		       "\"kernel_rseq_align\": %lu, \"glibc_rseq_size\": %ld, "
		       "\"vdso_getcpu\": %s, \"rdpid\": %s, \"backend\": \"%s\", "
		       "\"why\": \"%s\", \"cache_clock\": \"%s\", \"cpus\": %ld, "
		       "\"nodes\": %ld, \"cpu\": %d, \"node\": %d}\n",
		       PACKAGE_VERSION, f.rseq_feature_size, f.rseq_align,
		       f.glibc_rseq_size, f.lib.vdso_getcpu ? "true" : "false",
		       f.lib.rdpid ? "true" : "false", f.backend, f.why, f.lib.tick, f.cpus,
		       f.nodes, (int)cpu, (int)node);
		return 0;
	}
	printf("libfastcpu %s\n", PACKAGE_VERSION);
	printf("kernel rseq:      %s", f.rseq_feature_size ? "" : "feature size not advertised (Linux < 6.3)\n");
	if (f.rseq_feature_size)
		printf("feature size %lu, alignment %lu\n", f.rseq_feature_size, f.rseq_align);
	if (f.glibc_rseq_size > 0)
		printf("glibc rseq:       registered, __rseq_size %ld\n", f.glibc_rseq_size);
	else if (f.glibc_rseq_size == 0)
		printf("glibc rseq:       not registered (__rseq_size 0: disabled or refused)\n");
	else
#ifdef __GLIBC__
		printf("glibc rseq:       not supported by this glibc (< 2.35)\n");
#else
		printf("glibc rseq:       not glibc: this libc registers no rseq area\n");
#endif
	printf("vDSO getcpu:      %s\n", f.lib.vdso_getcpu ? "present" : "absent");
	printf("RDPID:            %s\n", f.lib.rdpid ? "present" : "absent");
	printf("backend:          %s\n", f.backend);
	printf("why:              %s\n", f.why);
	printf("cache clock:      %s\n", f.lib.tick);
	printf("CPUs, nodes:      %ld, %ld (this thread: CPU %d, node %d)\n",
	       f.cpus, f.nodes, (int)cpu, (int)node);
	return 0;
}

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
		return fail_usage();
	if (strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		fputs(help, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("fastcpu (libfastcpu) %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 2, argv + 2);
	if (strcmp(argv[1], "info") == 0)
		return cmd_info(argc - 2, argv + 2);
	if (strcmp(argv[1], "bench") == 0)
		return cmd_bench(argv + 2);
	return fail_usage();
}
