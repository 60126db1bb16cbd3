/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tools/count-shim.c: fastcpu count's counter, preloaded before libfastcpu. */

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "count.h"
#include "fastcpu.h"

/*
 * Defines sched_getcpu and getcpu ahead of libfastcpu, counts each call in
 * the calling thread's own slot (no lock, no atomic instruction, nothing
 * allocated: a plain increment of a line no other thread writes), apart
 * where the thread reads no rseq area (<fastcpu.h>'s inline read finds
 * none: the fallback answers, and a thread's first call), and passes it
 * on to libfastcpu's. Only fastcpu count loads it: a process
 * without it pays nothing. A call made in a signal handler that lands in
 * the middle of its own thread's increment may go uncounted.
 */
/* Declared here too: glibc before 2.29 and musl before 1.2.4 declare no getcpu. */
int sched_getcpu(void);
int getcpu(unsigned int *cpu, unsigned int *node);

static struct fastcpu_count_file *counts;
static __thread struct fastcpu_count_slot *mine
	__attribute__((tls_model("initial-exec")));

static struct fastcpu_count_slot *my_slot(void)
{
	struct fastcpu_count_slot *s = mine;
	unsigned int i;

	if (__builtin_expect(s != NULL, 1))
		return s;
	if (counts == NULL)
		return NULL;
	i = __atomic_fetch_add(&counts->threads, 1, __ATOMIC_RELAXED);
	s = &counts->slot[i < FASTCPU_COUNT_SLOTS ? i : FASTCPU_COUNT_SLOTS - 1];
	mine = s;
	return s;
}

__attribute__((visibility("default"))) int sched_getcpu(void)
{
	struct fastcpu_count_slot *s = my_slot();

	if (s != NULL) {
		s->sched_getcpu++;
		s->sched_fallback += *fastcpu_cpu_id_word_() < 0;
	}
	return fastcpu_sched_getcpu();
}

__attribute__((visibility("default"))) int getcpu(unsigned int *cpu, unsigned int *node)
{
	struct fastcpu_count_slot *s = my_slot();

	if (s != NULL) {
		s->getcpu++;
		s->getcpu_fallback += *fastcpu_cpu_id_word_() < 0;
	}
	return fastcpu_getcpu(cpu, node);
}

/* This process's file, FASTCPU_COUNT_DIR/PID; an exec keeps the pid, and
 * the new image adds to the same file. */
static void map_counts(void)
{
	const char *dir = getenv("FASTCPU_COUNT_DIR");
	char path[4096];
	int fd;

	counts = NULL;
	mine = NULL;
	if (dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/%ld", dir, (long)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (ftruncate(fd, sizeof(*counts)) == 0) {
		void *p = mmap(NULL, sizeof(*counts), PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);

		if (p != MAP_FAILED)
			counts = p;
	}
	close(fd);
}

/* A forked child counts in a file of its own, from zero; the parent's
 * mapping, which it shares, it leaves alone. */
static void in_child(void)
{
	if (counts != NULL)
		munmap(counts, sizeof(*counts));
	map_counts();
}

__attribute__((constructor)) static void at_load(void)
{
	map_counts();
	pthread_atfork(NULL, NULL, in_child);
}
