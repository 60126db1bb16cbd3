/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/ctor_probe.c: the inline fast path before main, from a constructor. */

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fastcpu.h"

/* The library has no constructor to rely on: the very first read, at any
 * time, goes through the marker and the slow path. */
static int answer = -3, kernel = -4;

__attribute__((constructor(101))) static void ask_in_constructor(void)
{
	for (int tries = 0; tries < 100 && answer != kernel; tries++) {
		unsigned int cpu;

		answer = fastcpu_current_cpu();
		if (syscall(SYS_getcpu, &cpu, NULL, NULL) != 0)
			return;
		kernel = (int)cpu;
	}
}

int main(void)
{
	if (answer < 0 || answer != kernel) {
		fprintf(stderr, "ctor_probe: constructor read %d, kernel said %d\n",
			answer, kernel);
		return 1;
	}
	printf("ctor_probe: CPU %d from a constructor via %s\n", answer,
	       fastcpu_backend());
	return 0;
}
