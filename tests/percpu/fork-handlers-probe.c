/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/fork-handlers-probe.c: fork handlers that allocate, registered before the library loads. */

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The program registers fork handlers that allocate per-CPU memory, then
 * dlopen()s the library and allocates once: the library's own handlers
 * (registered at its load; 0.4's at its first allocation) come after the
 * program's, so its prepare handler runs first and holds the allocator's
 * lock while the program's prepare handler allocates. That
 * allocation, in the forking thread, goes through; the fork completes (an
 * alarm ends a hung one) and every handler gets a new, zeroed counter. A
 * second thread lives meanwhile: glibc takes its fork handlers' own lock
 * only in a process with threads (a handler registered during the fork,
 * as 0.4's allocator did at its first allocation, then waits for good).
 */
static void *(*counter_new)(void);
static long (*counter_sum)(const void *);
static void (*counter_free)(void *);
static int handlers_ok;
static pthread_barrier_t forked;

static void *bystander(void *unused)
{
	(void)unused;
	pthread_barrier_wait(&forked);
	return NULL;
}

static void handler_allocates(void)
{
	void *c = counter_new != NULL ? counter_new() : NULL;

	if (c == NULL)
		return;
	if (counter_sum(c) == 0)
		handlers_ok++;
	counter_free(c);
}

int main(int argc, char **argv)
{
	void *lib;
	pthread_t other;
	pid_t pid;
	int status;

	if (argc < 2 || pthread_atfork(handler_allocates, handler_allocates, handler_allocates) != 0)
		return 2;
	if ((lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) == NULL) {
		fprintf(stderr, "fork-handlers-probe: %s\n", dlerror());
		return 2;
	}
	*(void **)&counter_new = dlsym(lib, "fastcpu_counter_new");
	*(void **)&counter_sum = dlsym(lib, "fastcpu_counter_sum");
	*(void **)&counter_free = dlsym(lib, "fastcpu_counter_free");
	if (!counter_new || !counter_sum || !counter_free) {
		fprintf(stderr, "fork-handlers-probe: the counter's symbols are missing\n");
		return 2;
	}
	counter_free(counter_new());
	pthread_barrier_init(&forked, NULL, 2);
	if (pthread_create(&other, NULL, bystander, NULL) != 0)
		return 2;
	alarm(30);
	pid = fork();
	if (pid == 0)
		_exit(handlers_ok == 2 ? 0 : 1);
	alarm(0);
	pthread_barrier_wait(&forked);
	pthread_join(other, NULL);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || handlers_ok != 2) {
		fprintf(stderr, "fork-handlers-probe: handlers %d, child status %d\n", handlers_ok,
			status);
		return 1;
	}
	return 0;
}
