/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/reading/preload-probe.c: an ordinary program, not linked with libfastcpu. */

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * Calls glibc's sched_getcpu() and getcpu() as any program would; run with
 * LD_PRELOAD, they must be libfastcpu's and answer what the kernel says on
 * every CPU it may run on. Prints the backend that served it.
 */
static int check_cpu(int cpu)
{
	unsigned int kc, kn, c = ~0u, n = ~0u;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		return 0;	/* not ours to test */
	errno = EDOM;
	for (int i = 0; i < 1000; i++) {
		if (syscall(SYS_getcpu, &kc, &kn, NULL) != 0 || (int)kc != cpu ||
		    sched_getcpu() != cpu || getcpu(&c, &n) != 0 ||
		    c != kc || n != kn || errno != EDOM) {
			fprintf(stderr, "preload-probe: CPU %d: kernel %u/%u, "
				"sched_getcpu %d, getcpu %u/%u\n", cpu, kc, kn,
				sched_getcpu(), c, n);
			return 1;
		}
	}
	return 0;
}

int main(void)
{
	const char *(*backend)(void) =
		(const char *(*)(void))dlsym(RTLD_DEFAULT, "fastcpu_backend");
	cpu_set_t allowed;
	int failures = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return 1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &allowed))
			failures += check_cpu(cpu);
	printf("preload-probe: %s, served by %s\n", failures ? "FAILED" : "right",
	       backend ? backend() : "glibc (libfastcpu not loaded)");
	return failures ? 1 : 0;
}
