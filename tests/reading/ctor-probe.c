/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/reading/ctor-probe.c: the inline reads before main, from a constructor. */

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fastcpu.h"

/* The library's constructor may not have run yet (a static link orders
 * constructors as it likes): the very first reads, at any time, go through
 * the anchor and the slow path. Built shared and static (ctor-probe-static). */
static int answer = -3, kernel = -4, pair = -5, cid = -6, limit = -7;
static unsigned int node = ~0u, kernel_node = ~1u;

__attribute__((constructor(101))) static void ask_in_constructor(void)
{
	for (int tries = 0; tries < 100 && (answer != kernel || pair != kernel ||
					    node != kernel_node); tries++) {
		unsigned int c, n;

		answer = fastcpu_current_cpu();
		pair = fastcpu_current_cpu_node(&node);
		if (syscall(SYS_getcpu, &c, &n, NULL) != 0)
			return;
		kernel = (int)c;
		kernel_node = n;
	}
	cid = fastcpu_current_cid();
	limit = fastcpu_cid_limit();
}

int main(void)
{
	int now;

	if (answer < 0 || answer != kernel || pair != kernel || node != kernel_node) {
		fprintf(stderr, "ctor-probe: constructor read CPU %d, pair %d/%u, kernel said %d/%u\n",
			answer, pair, node, kernel, kernel_node);
		return 1;
	}
	now = fastcpu_current_cid();
	if (cid < 0 || cid >= limit || now < 0 || now >= limit ||
	    fastcpu_cid_limit() != limit) {
		fprintf(stderr, "ctor-probe: concurrency ids %d then %d, limit %d then %d\n",
			cid, now, limit, fastcpu_cid_limit());
		return 1;
	}
	printf("ctor-probe: CPU %d node %u from a constructor via %s; cid %d of %d\n",
	       answer, node, fastcpu_backend(), cid, limit);
	return 0;
}
