/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/fuzz/seed-object.c: the shared objects of the ELF fuzz corpus. */

/*
 * Every symbol the library looks up, in a real shared object (the ELF
 * reader's corpus, corpus/elf/object-*.so), built once and committed:
 *   gcc -O2 -fPIC -shared -nostdlib -s -Wl,--version-script=seed-object.map \
 *	-Wl,-z,noseparate-code -Wl,-z,max-page-size=4096 \
 *	-Wl,--hash-style=gnu|sysv|both -o corpus/elf/object-STYLE.so seed-object.c
 */
__thread char __rseq_abi[32] __attribute__((tls_model("initial-exec"), aligned(32)));
__thread unsigned int __rseq_refcount __attribute__((tls_model("initial-exec")));
long rseq_offset;

int rseq_register_current_thread(void);
int rseq_register_current_thread(void)
{
	return 0;
}

long __vdso_getcpu(unsigned int *cpu, unsigned int *node, void *unused);
long __vdso_getcpu(unsigned int *cpu, unsigned int *node, void *unused)
{
	(void)unused;
	*cpu = *node = 0;
	return 0;
}

int __vdso_clock_gettime(int clock, void *ts);
int __vdso_clock_gettime(int clock, void *ts)
{
	(void)ts;
	return clock;
}
