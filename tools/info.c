/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tools/info.c: fastcpu info: what this machine and process offer. */

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "fastcpu.h"
#include "private.h"	/* what the library sees, for this tool only */
#include "rseq-abi.h"	/* AT_RSEQ_* where libc headers lack them */
#include "tool.h"

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

int cmd_info(int argc, char **argv)
{
	bool json = argc == 1 && strcmp(argv[0], "--json") == 0;
	struct facts f;
	unsigned int cpu = 0, node = 0;

	if (argc > 1 || (argc == 1 && !json))
		return tool_usage_error();
	gather(&f);
	if (fastcpu_getcpu(&cpu, &node) != 0)
		cpu = node = ~0u;
	if (json) {
		printf("{\"version\": \"%s\", \"kernel_rseq_feature_size\": %lu, "
		       "\"kernel_rseq_align\": %lu, \"glibc_rseq_size\": %ld, "
		       "\"vdso_getcpu\": %s, \"rdpid\": %s, \"backend\": \"%s\", "
		       "\"why\": \"%s\", \"cache_clock\": \"%s\", \"cpus\": %ld, "
		       "\"nodes\": %ld, \"cpu\": %d, \"node\": %d, \"sequences\": %s, "
		       "\"sequences_why\": \"%s\", \"possible_cpus\": %d, "
		       "\"kernel_possible_cpus\": %d}\n",
		       PACKAGE_VERSION, f.rseq_feature_size, f.rseq_align,
		       f.glibc_rseq_size, f.lib.vdso_getcpu ? "true" : "false",
		       f.lib.rdpid ? "true" : "false", f.backend, f.why, f.lib.tick, f.cpus,
		       f.nodes, (int)cpu, (int)node, f.lib.sequences ? "true" : "false",
		       f.lib.sequences_why, f.lib.possible_cpus, f.lib.kernel_possible_cpus);
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
	printf("sequences:        %s\n", f.lib.sequences_why);
	printf("CPUs, nodes:      %ld, %ld (this thread: CPU %d, node %d)\n",
	       f.cpus, f.nodes, (int)cpu, (int)node);
	if (f.lib.possible_cpus != f.lib.kernel_possible_cpus)
		printf("possible CPUs:    %d (FASTCPU_POSSIBLE_CPUS; the kernel's %d)\n",
		       f.lib.possible_cpus, f.lib.kernel_possible_cpus);
	else
		printf("possible CPUs:    %d\n", f.lib.possible_cpus);
	return 0;
}
