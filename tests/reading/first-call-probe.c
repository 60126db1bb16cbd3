/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/reading/first-call-probe.c: a thread's first sched_getcpu, a vfork child's,
 * then another thread's, each between markers that strace shows
 * (first-call.sh): write(-1, "A<") ... write(-1, "A>"). With a library's
 * path, dlopen()s it and asks its fastcpu_sched_getcpu instead. */

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

static int (*ask)(void) = sched_getcpu;

static void mark(char phase, char edge)
{
	char m[2] = { phase, edge };

	if (write(-1, m, sizeof(m)) >= 0)
		_exit(2);
}

static void *first_call(void *phase)
{
	int cpu;

	mark(*(const char *)phase, '<');
	cpu = ask();
	mark(*(const char *)phase, '>');
	return (void *)(intptr_t)(cpu >= 0);
}

static int in_new_thread(const char *phase)
{
	pthread_t t;
	void *ok;

	if (pthread_create(&t, NULL, first_call, (void *)phase) != 0 ||
	    pthread_join(t, &ok) != 0)
		return 0;
	return ok != NULL;
}

int main(int argc, char **argv)
{
	int ok, status;
	pid_t pid;

	if (argc > 1) {
		void *lib = dlopen(argv[1], RTLD_NOW);

		if (lib == NULL ||
		    (ask = (int (*)(void))dlsym(lib, "fastcpu_sched_getcpu")) == NULL)
			return 3;
	}
	ok = in_new_thread("A");
	pid = vfork();

	if (pid == 0)
		_exit(first_call("C") != NULL ? 0 : 1);
	ok &= pid > 0 && waitpid(pid, &status, 0) == pid &&
	      WIFEXITED(status) && WEXITSTATUS(status) == 0;
	ok &= in_new_thread("B");
	return ok ? 0 : 1;
}
