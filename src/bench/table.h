/* SPDX-License-Identifier: MIT */
/* The bench table, generated from list.h (table.c): above the contract
 * (core/bench.h), since it names every bench. */
#ifndef SB_TABLE_H
#define SB_TABLE_H

#include "core/bench.h"

extern const struct bench *const bench_table[];
extern const int bench_count;
const struct bench *bench_find(const char *name);

#endif
