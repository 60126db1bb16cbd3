/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/harness/respawn.c: run one test again in a new process with its settings. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

/*
 * The library reads FASTCPU_* once, at load: a test that needs settings
 * runs its body in a new process of this program, started with them in its
 * environment, through the same Check runner (main() sees
 * FASTCPU_TEST_RESPAWN="name index" and runs just that test, unforked).
 * The calling test checks the exit status and what it wrote on stderr.
 */
#define MAX_RESPAWNING 64

static const TTest *respawning[MAX_RESPAWNING];
static int respawning_count;

void test_add_respawning(TCase *tc, const TTest *t, int start, int end)
{
	if (respawning_count == MAX_RESPAWNING) {
		fputs("respawn.c: raise MAX_RESPAWNING\n", stderr);
		exit(2);
	}
	respawning[respawning_count++] = t;
	tcase_add_loop_test(tc, t, start, end);
}

int test_run_respawned(void)
{
	const char *spec = getenv("FASTCPU_TEST_RESPAWN");
	char name[128];
	int index;
	SRunner *sr;
	Suite *s;
	TCase *tc;

	if (sscanf(spec, "%127s %d", name, &index) != 2)
		return 2;
	for (int k = 0; k < respawning_count; k++) {
		if (strcmp(respawning[k]->name, name) != 0)
			continue;
		s = suite_create("respawned");
		tc = tcase_create(name);
		tcase_set_timeout(tc, 0);
		tcase_add_loop_test(tc, respawning[k], index, index + 1);
		suite_add_tcase(s, tc);
		sr = srunner_create(s);
		srunner_set_fork_status(sr, CK_NOFORK);
		srunner_run_all(sr, CK_SILENT);
		if (srunner_ntests_run(sr) != 1) {
			fprintf(stdout, "%s did not run\n", name);
			return 2;
		}
		k = srunner_ntests_failed(sr);
		if (k != 0) {
			TestResult **r = srunner_failures(sr);

			fprintf(stdout, "%s:%d: %s\n", tr_lfile(r[0]),
				tr_lno(r[0]), tr_msg(r[0]));
			free(r);
		}
		srunner_free(sr);
		return k == 0 ? 0 : 1;
	}
	fprintf(stdout, "no respawning test %s\n", name);
	return 2;
}

static char *read_all(FILE *f)
{
	static char text[2][8192];
	static int which;
	char *out = text[which ^= 1];
	size_t len;

	rewind(f);
	len = fread(out, 1, sizeof(text[0]) - 1, f);
	out[len] = '\0';
	fclose(f);
	return out;
}

const char *test_respawn(const char *fn, int index, const char *const env[])
{
	char name[128], spec[160], self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *out = tmpfile(), *err = tmpfile();
	const char *stdout_text;
	int status;
	pid_t pid;

	if (test_respawned())
		return NULL;
	/* START_TEST(x) defines x_fn; the registry knows it as x. */
	snprintf(name, sizeof(name), "%.*s", (int)(strlen(fn) - 3), fn);
	snprintf(spec, sizeof(spec), "%s %d", name, index);
	ck_assert(out != NULL && err != NULL && len > 0);
	self[len] = '\0';	/* valgrind and qemu-user name their client */
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		for (int k = 0; env != NULL && env[k] != NULL; k++)
			putenv((char *)env[k]);
		setenv("FASTCPU_TEST_RESPAWN", spec, 1);
		/* The one test runs whatever the caller selected. */
		unsetenv("CK_RUN_SUITE");
		unsetenv("CK_RUN_CASE");
		unsetenv("CK_INCLUDE_TAGS");
		unsetenv("CK_EXCLUDE_TAGS");
		dup2(fileno(out), STDOUT_FILENO);
		dup2(fileno(err), STDERR_FILENO);
		execl(self, "check-fastcpu", (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	stdout_text = read_all(out);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "%s in a new process (%s): status %#x: %s", name,
		      env && env[0] ? env[0] : "no settings", status, stdout_text);
	return read_all(err);
}
