/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/node.h: the CPU-to-node table from sysfs. */

#ifndef FASTCPU_NODE_H
#define FASTCPU_NODE_H

#include <stdint.h>

/* The NUMA node of a CPU from sysfs, read once on first need (node.c); -1
 * when the table does not know the CPU: ask the kernel then. */
int fastcpu_node_of_cpu(unsigned int cpu);
/* Fills a zeroed table of FASTCPU_MAX_CPUS entries (node + 1) from a sysfs
 * node directory (a parameter so that tests can give it fake trees). */
void fastcpu_node_table_fill(uint16_t *nodes, const char *dir);

#endif /* FASTCPU_NODE_H */
