/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/cpulist.c: the reader of sysfs CPU lists ("0-3,8,10-11"). */

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "cpulist.h"
#include "internal.h"
#include "util.h"

/*
 * Read with read(2) into a small stack buffer: this runs at first use,
 * which may be in a signal handler on a small alternate stack, so no stdio
 * and no allocation; by the system call itself, no cancellation point
 * (util.c), errno kept.
 */
struct list_reader {
	int fd;
	int pos, len;
	char buf[64];
};

enum { END = -1, READ_ERROR = -2 };

/* The next character of the file, END at its end, or READ_ERROR: a list cut
 * short by an error must not pass for a shorter list. */
static int next_char(struct list_reader *r)
{
	if (r->pos == r->len) {
		long n;

		do
			n = fastcpu_read_nocancel(r->fd, r->buf, sizeof(r->buf));
		while (n == -EINTR);
		if (n <= 0)
			return n == 0 ? END : READ_ERROR;
		r->pos = 0;
		r->len = (int)n;
	}
	return (unsigned char)r->buf[r->pos++];
}

/*
 * An item counts only with digits and once ended by ',', a newline or the
 * end of the file: an empty list (a memory-only node's cpulist is "\n")
 * gives nothing, and anything else ends the list, even "0-7:2/4" (a
 * bitmap_parselist() form meaning fewer CPUs than 0-7). Numbers stop
 * growing at FASTCPU_MAX_CPUS, and no number at or above it is given.
 */
void fastcpu_cpulist_read(int fd, void (*fn)(unsigned long, void *), void *arg)
{
	struct list_reader r = { .fd = fd };
	unsigned long first = 0, n = 0;
	bool digits = false, range = false;
	int c;

	for (;;) {
		c = next_char(&r);
		if (c >= '0' && c <= '9') {
			if (n < FASTCPU_MAX_CPUS)
				n = n * 10 + (unsigned long)(c - '0');
			digits = true;
			continue;
		}
		if (!digits)
			return;
		if (c == '-' && !range) {
			first = n;
			range = true;
		} else if (c == ',' || c == '\n' || c == END) {
			for (unsigned long i = range ? first : n;
			     i <= n && i < FASTCPU_MAX_CPUS; i++)
				fn(i, arg);
			if (c != ',')
				return;
			range = false;
		} else {
			return;
		}
		n = 0;
		digits = false;
	}
}

void fastcpu_cpulist_read_file(const char *path,
			       void (*fn)(unsigned long, void *), void *arg)
{
	int fd = fastcpu_open_nocancel(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		fastcpu_cpulist_read(fd, fn, arg);
		fastcpu_close_nocancel(fd);
	}
}
