/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/preempted.c: the per-CPU lock's holder preempted, with and without the kernel's help. */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "fastcpu-bench.h"
#include "fastcpu.h"
#include "runner.h"

#define STRIDE 64
#define PR_RSEQ_SLICE_EXTENSION_ 79	/* Linux 7.0 */
#define PR_RSEQ_SLICE_SET_ 2

static struct {
	char *slots;
	int cpu;
	volatile int stop;
	bool extend;
	pthread_barrier_t start;
	struct run {
		long acquisitions;	/* the waiter's */
		long found_taken;
		double wait_ns;		/* waiter CPU ns per acquisition */
		long granted;		/* the holder's: extensions the kernel gave */
	} run;
} p;

/* The thread's area's flags word and slice_ctrl bytes, where it has one. */
static const volatile unsigned char *slice_bytes(void)
{
	const volatile int *cpu_id =
		fastcpu_tls_word_(fastcpu_published_(&fastcpu_percpu_cpu_id_offset));

	return *cpu_id >= 0 ? (const volatile unsigned char *)cpu_id : NULL;
}

static void pin_here(void)
{
	bench_pin(p.cpu);
	(void)fastcpu_sched_getcpu();
	(void)prctl(PR_RSEQ_SLICE_EXTENSION_, PR_RSEQ_SLICE_SET_, p.extend ? 1 : 0, 0, 0);
}

static void spin_ns(double ns)
{
	double t0 = bench_now_ns();

	while (bench_now_ns() - t0 < ns)
		;
}

static void *holder(void *unused)
{
	const volatile unsigned char *a;

	(void)unused;
	pin_here();
	a = slice_bytes();
	pthread_barrier_wait(&p.start);
	while (!p.stop) {
		int slot = fastcpu_percpu_lock(p.slots, STRIDE, FASTCPU_BY_CPU);
		bool granted;

		spin_ns(2000);
		granted = a != NULL && a[25];
		fastcpu_percpu_unlock(p.slots, STRIDE, slot);
		p.run.granted += granted;
		spin_ns(2000);
	}
	return NULL;
}

static void *waiter(void *seconds)
{
	double until, waited = 0;

	pin_here();
	pthread_barrier_wait(&p.start);
	until = bench_now_ns() + *(double *)seconds * 1e9;
	while (bench_now_ns() < until) {
		double t0 = bench_thread_cpu_ns();
		int slot = fastcpu_percpu_cmpstore(p.slots, STRIDE, FASTCPU_BY_CPU, 0, 1, NULL);

		if (slot < 0) {
			p.run.found_taken++;
			slot = fastcpu_percpu_lock(p.slots, STRIDE, FASTCPU_BY_CPU);
			waited += bench_thread_cpu_ns() - t0;
		}
		fastcpu_percpu_unlock(p.slots, STRIDE, slot);
		p.run.acquisitions++;
		spin_ns(500);
	}
	p.stop = 1;
	p.run.wait_ns = p.run.acquisitions ? waited / (double)p.run.acquisitions : 0;
	return NULL;
}

/* One run, its rows keyed ..._with_extension or ..._without_extension. */
static void run(bool extend, double seconds, struct rows *out)
{
	const char *with = extend ? "with" : "without";
	char key[ROW_KEY], name[96];
	pthread_t h, w;

	memset(p.slots, 0, (size_t)fastcpu_cid_limit() * STRIDE);
	memset(&p.run, 0, sizeof(p.run));
	p.stop = 0;
	p.extend = extend;
	pthread_barrier_init(&p.start, NULL, 2);
	pthread_create(&h, NULL, holder, NULL);
	pthread_create(&w, NULL, waiter, &seconds);
	pthread_join(w, NULL);
	pthread_join(h, NULL);
	pthread_barrier_destroy(&p.start);
	for (int i = 0; i < 4; i++) {
		static const char *const what[4][2] = {
			{ "waiter", "waiter ns per acquisition" }, { "acquisitions", "acquisitions" },
			{ "found_taken", "found taken" }, { "granted", "extensions granted" },
		};
		const double v[4] = { p.run.wait_ns, (double)p.run.acquisitions,
				      (double)p.run.found_taken, (double)p.run.granted };

		snprintf(key, sizeof(key), "%s_%s_extension", what[i][0], with);
		snprintf(name, sizeof(name), "%s, %s the extension", what[i][1], with);
		rows_add(out, "preempted-lock", key, name, 2, i ? UNIT_COUNT : UNIT_NS, v[i], v[i]);
	}
}

/* Whether the kernel offers the extension: its flag in the area's flags. */
static void *probe_offered(void *offered)
{
	const volatile unsigned char *a;

	(void)fastcpu_sched_getcpu();
	a = slice_bytes();
	*(bool *)offered = a && (*(const volatile unsigned int *)(const volatile void *)(a + 12) & 0x20);
	return NULL;
}

void preempted_measure(int arg, struct rows *out)
{
	double seconds = bench.quick ? 0.2 : 1.0;
	bool offered = false;
	pthread_t probe;

	(void)arg;
	p.cpu = bench.first_cpu;
	p.slots = aligned_alloc(STRIDE, (size_t)fastcpu_cid_limit() * STRIDE);
	if (p.slots == NULL)
		return;
	pthread_create(&probe, NULL, probe_offered, &offered);
	pthread_join(probe, NULL);
	rows_add(out, "preempted-lock", "extension_offered", "the time-slice extension offered", 2,
		 UNIT_COUNT, offered, offered);
	run(false, seconds, out);
	if (offered)
		run(true, seconds, out);
	free(p.slots);
}
