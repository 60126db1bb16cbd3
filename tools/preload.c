/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tools/preload.c: which library a child preloads, and how it is named. */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fastcpu.h"
#include "tool.h"

/* Whether LD_PRELOAD's list (space- or colon-separated) has entry. */
static bool preloads(const char *list, const char *entry)
{
	size_t len = strlen(entry);

	for (const char *p = list; *p != '\0'; p += strcspn(p, " :")) {
		p += strspn(p, " :");
		if (strncmp(p, entry, len) == 0 && (p[len] == '\0' || p[len] == ' ' ||
						    p[len] == ':'))
			return true;
	}
	return false;
}

char *tool_preload_list(const char *first, const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	size_t len;
	char *value;

	if (old == NULL)
		old = "";
	len = (first ? strlen(first) + 1 : 0) + strlen(old) + 1 + strlen(lib) + 1;
	value = malloc(len);
	if (value == NULL)
		return NULL;
	snprintf(value, len, "%s%s%s", first ? first : "", first && *old ? " " : "", old);
	if (!preloads(value, lib))
		snprintf(value + strlen(value), len - strlen(value), "%s%s",
			 *value ? " " : "", lib);
	return value;
}

int tool_can_preload(const char *path)
{
	if (access(path, R_OK) == 0)
		return 0;
	fprintf(stderr, "fastcpu: cannot preload %s: %s\n", path, strerror(errno));
	return -1;
}

/*
 * Whether the dynamic loader, asked for the name alone by a program with no
 * run path and no LD_LIBRARY_PATH, loads the file at path: its cache
 * (/etc/ld.so.cache, which ldconfig writes) names each library by its path,
 * and must name this one and no other for that name. Installed under a
 * prefix the loader does not search ($HOME/.local, /opt), or before
 * ldconfig ran, the library is not there, and a child must be given its
 * path.
 */
static bool loader_finds(const char *path, const char *name)
{
	int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	size_t name_len = strlen(name), mine = 0, others = 0;
	char *ours = realpath(path, NULL);
	struct stat st;
	const char *cache;

	if (fd < 0 || ours == NULL) {
		if (fd >= 0)
			close(fd);
		free(ours);
		return false;
	}
	if (fstat(fd, &st) != 0 || st.st_size == 0 ||
	    (cache = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		free(ours);
		return false;
	}
	close(fd);
	/* Each entry of the string table is a NUL-terminated path. */
	for (size_t at = 0; at + name_len < (size_t)st.st_size; at++) {
		const char *s;

		if (memcmp(cache + at, name, name_len) != 0 || cache[at + name_len] != '\0' ||
		    at == 0 || cache[at - 1] != '/')
			continue;
		s = cache + at;
		while (s > cache && s[-1] != '\0')
			s--;
		if (*s == '/') {
			/* Merged /usr: the cache may say /lib, libdir /usr/lib. */
			char *real = realpath(s, NULL);

			if (real != NULL && strcmp(real, ours) == 0)
				mine++;
			else
				others++;
			free(real);
		}
	}
	munmap((void *)(uintptr_t)cache, (size_t)st.st_size);
	free(ours);
	return mine > 0 && others == 0;
}

/*
 * The library this command runs with: the installed one, or the build
 * tree's when run from there. By its name where the loader finds it by
 * name alone (a 32-bit child of a 64-bit shell then gets its own copy);
 * else by path (a child of the other word size then gets the loader's
 * harmless "wrong ELF class" line and runs without it).
 */
const char *tool_own_library(void)
{
	static char installed_path[4096];
	char *loaded, *installed;
	bool same;
	Dl_info info;

	if (dladdr((void *)fastcpu_backend, &info) == 0 || info.dli_fname == NULL)
		return FASTCPU_LIBRARY_PATH;
	/* Merged /usr: the loader may say /lib where libdir says /usr/lib. */
	loaded = realpath(info.dli_fname, NULL);
	installed = realpath(FASTCPU_LIBRARY_PATH, NULL);
	same = loaded && installed && strcmp(loaded, installed) == 0;
	free(loaded);
	free(installed);
	if (!same || getenv("LD_LIBRARY_PATH") != NULL)
		return info.dli_fname;
	snprintf(installed_path, sizeof(installed_path), "%s", FASTCPU_LIBRARY_PATH);
	if (loader_finds(installed_path, FASTCPU_LIBRARY_SONAME))
		return FASTCPU_LIBRARY_SONAME;
	return installed_path;
}

const char *tool_library(const char *asked)
{
	if (asked == NULL)
		return tool_own_library();
	return tool_can_preload(asked) == 0 ? asked : NULL;
}
