/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/fuzz/replay.c: a fuzz target run on each file of its corpus. */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * Built with any compiler, without libFuzzer: make check runs each target
 * over its committed corpus (tests/fuzz/corpus/TARGET: real inputs, and
 * every input that once found a defect), so a regression shows without
 * clang. A file that does not end the target normally fails the run.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	static uint8_t data[1 << 20];
	size_t size;

	if (f == NULL) {
		perror(path);
		return 1;
	}
	size = fread(data, 1, sizeof(data), f);
	fclose(f);
	LLVMFuzzerTestOneInput(data, size);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *ent;

		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			bad |= replay_file(argv[i]);
			files++;
			continue;
		}
		d = opendir(argv[i]);
		while (d != NULL && (ent = readdir(d)) != NULL) {
			char path[4096];

			if (ent->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], ent->d_name);
			bad |= replay_file(path);
			files++;
		}
		if (d != NULL)
			closedir(d);
	}
	printf("replay: %d inputs, all ended normally\n", files);
	return bad || files == 0;
}
