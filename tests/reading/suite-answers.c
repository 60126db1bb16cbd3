/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/reading/suite-answers.c: right answers in this process's default setup. */

#include <dlfcn.h>
#include <string.h>

#include "expect.h"
#include "fastcpu.h"
#include "helpers.h"

/* Linked with -lfastcpu, the glibc names resolve to the library. */
START_TEST(glibc_names_bind_to_library)
{
	Dl_info a, b;

	ck_assert(dladdr((void *)sched_getcpu, &a) != 0);
	ck_assert(dladdr((void *)getcpu, &b) != 0);
	ck_assert_ptr_nonnull(strstr(a.dli_fname, "libfastcpu"));
	ck_assert_ptr_nonnull(strstr(b.dli_fname, "libfastcpu"));
}
END_TEST

START_TEST(default_backend_is_best)
{
	char buf[64];

	ck_assert_str_eq(fastcpu_backend(),
			 expect_backend_name(NULL, NULL, expect_rseq_ok(),
					     buf, sizeof(buf)));
}
END_TEST

START_TEST(main_thread_every_cpu)
{
	test_check_all_cpus();
}
END_TEST

START_TEST(new_threads_every_cpu)
{
	test_check_all_cpus_in_thread();
}
END_TEST

/* Before anything else ran: FASTCPU_1.0's inline read (through
 * fastcpu_cpu_id_ref) finds a negative marker, never an uninitialised
 * pointer; today's finds the word published at load, which is negative
 * until the thread's area is registered (the library's own) or already the
 * kernel's answer (glibc registered it before main). */
START_TEST(inline_safe_before_first_call)
{
	int cpu = test_first_allowed(), word;

	test_pin(cpu);
	ck_assert_int_lt(*fastcpu_cpu_id_ref, 0);
	if (expect_rseq_ok())
		ck_assert_msg(fastcpu_cpu_id_offset != 0, "nothing published at load");
	word = *fastcpu_cpu_id_word_();
	ck_assert_msg(word < 0 || word == cpu, "word %d on CPU %d", word, cpu);
	ck_assert_int_eq(fastcpu_current_cpu(), cpu);
	ck_assert_int_eq(fastcpu_sched_getcpu(), cpu);
	if (expect_rseq_ok())
		ck_assert_int_eq(*fastcpu_cpu_id_word_(), cpu);
}
END_TEST

/* FASTCPU_1.0's programs read fastcpu_cpu_id_ref inline and call their
 * fastcpu_sched_getcpu (its own version) while it is negative: that one
 * attaches the thread, so their reads are inline from then on (today's
 * answers from the published word and need not). */
START_TEST(old_abi_read_attaches)
{
	int (*old)(void) = (int (*)(void))dlvsym(RTLD_DEFAULT, "fastcpu_sched_getcpu",
						 "FASTCPU_1.0");
	int cpu = test_first_allowed();

	ck_assert_msg(old != NULL, "no fastcpu_sched_getcpu@FASTCPU_1.0: %s", dlerror());
	test_pin(cpu);
	ck_assert_int_eq(old(), cpu);
	ck_assert_int_ge(*fastcpu_cpu_id_ref, expect_rseq_ok() ? 0 : -2);
	if (expect_rseq_ok())
		ck_assert_int_eq(*fastcpu_cpu_id_ref, cpu);
}
END_TEST

Suite *suite_answers(void)
{
	Suite *s = suite_create("answers");
	TCase *tc = tcase_create("default");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, glibc_names_bind_to_library);
	tcase_add_test(tc, inline_safe_before_first_call);
	tcase_add_test(tc, old_abi_read_attaches);
	tcase_add_test(tc, default_backend_is_best);
	tcase_add_test(tc, main_thread_every_cpu);
	tcase_add_test(tc, new_threads_every_cpu);
	suite_add_tcase(s, tc);
	return s;
}
