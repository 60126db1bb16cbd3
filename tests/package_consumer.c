/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/package_consumer.c: a program built against installed or unpacked
 * packages with pkg-config (debian-package.sh, rpm-package.sh). */

#include <fastcpu.h>
#include <stdio.h>

int main(void)
{
	unsigned int cpu, node;
	int now = fastcpu_current_cpu();

	if (now < 0 || fastcpu_getcpu(&cpu, &node) != 0)
		return 1;
	printf("consumer: CPU %d via %s\n", now, fastcpu_backend());
	return 0;
}
