/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/packaging/consumers/consumer.c: a program whose build finds
 * libfastcpu with CMake or Meson (CMakeLists.txt, meson.build): an inline
 * read and a per-CPU counter, checked. */

#include <fastcpu.h>
#include <stdio.h>

int main(void)
{
	struct fastcpu_counter *counter = fastcpu_counter_new();
	int cpu = fastcpu_current_cpu();
	long sum;

	if (counter == NULL || cpu < 0)
		return 1;
	for (int i = 0; i < 1000; i++)
		fastcpu_counter_add(counter, 1);
	sum = fastcpu_counter_sum(counter);
	fastcpu_counter_free(counter);
	printf("consumer: CPU %d, counter %ld, served by %s\n", cpu, sum, fastcpu_backend());
	return sum == 1000 ? 0 : 1;
}
