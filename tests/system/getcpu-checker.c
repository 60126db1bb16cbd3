/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/system/getcpu-checker.c: an ordinary program, built against glibc
 * alone, that the booted guests of check-system.sh run everywhere (as root,
 * through sudo, in sandboxed services): whoever serves its sched_getcpu()
 * and getcpu() must agree with the kernel's system call on every CPU. */

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define THREADS 4
#define CALLS 2000

struct result {
	int wrong;		/* 0: every answer matched the kernel's */
	char why[160];
};

static cpu_set_t allowed;
static struct result results[THREADS];

/* Pinned to each allowed CPU in turn, every answer must be that CPU and the
 * kernel's node; errno must not move on success. A CPU that cannot be
 * pinned to (gone offline) is not ours to test. */
static void *check(void *arg)
{
	struct result *r = arg;

	for (int cpu = 0; cpu < CPU_SETSIZE && !r->wrong; cpu++) {
		cpu_set_t one;

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0)
			continue;
		for (int i = 0; i < CALLS; i++) {
			unsigned int kc = ~0u, kn = ~0u, c = ~0u, n = ~0u;
			int s;

			errno = EDOM;
			if (syscall(SYS_getcpu, &kc, &kn, NULL) != 0) {
				snprintf(r->why, sizeof(r->why),
					 "syscall(SYS_getcpu) failed: %s", strerror(errno));
				r->wrong = 1;
				break;
			}
			errno = EDOM;
			s = sched_getcpu();
			if (s != cpu || (int)kc != cpu || errno != EDOM) {
				snprintf(r->why, sizeof(r->why),
					 "pinned to CPU %d: sched_getcpu %d (errno %d), kernel %u",
					 cpu, s, errno, kc);
				r->wrong = 1;
				break;
			}
			if (getcpu(&c, &n) != 0 || c != kc || n != kn || errno != EDOM) {
				snprintf(r->why, sizeof(r->why),
					 "pinned to CPU %d: getcpu %u/%u (errno %d), kernel %u/%u",
					 cpu, c, n, errno, kc, kn);
				r->wrong = 1;
				break;
			}
			if (i % 256 == 0)
				sched_yield();
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t threads[THREADS];
	int wrong = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
		printf("checker: WRONG: sched_getaffinity: %s\n", strerror(errno));
		return 1;
	}
	for (int t = 0; t < THREADS; t++)
		if (pthread_create(&threads[t], NULL, check, &results[t]) != 0) {
			printf("checker: WRONG: cannot start thread %d\n", t);
			return 1;
		}
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	for (int t = 0; t < THREADS; t++)
		if (results[t].wrong) {
			if (!wrong)
				printf("checker: WRONG, thread %d: %s", t, results[t].why);
			else
				printf("; thread %d: %s", t, results[t].why);
			wrong = 1;
		}
	if (wrong) {
		printf("\n");
		return 1;
	}
	printf("checker: right, %d threads\n", THREADS);
	return 0;
}
