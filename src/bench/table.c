/* SPDX-License-Identifier: MIT */
/* The bench table, generated from list.h. */
#include <string.h>
#include "bench/table.h"

#define BENCH(x) extern const struct bench bench_##x;
#include "bench/list.h"
#undef BENCH

const struct bench *const bench_table[] = {
#define BENCH(x) &bench_##x,
#include "bench/list.h"
#undef BENCH
};
const int bench_count = (int)(sizeof(bench_table) / sizeof(bench_table[0]));

const struct bench *bench_find(const char *name)
{
	for (int i = 0; i < bench_count; i++)
		if (!strcmp(bench_table[i]->name, name))
			return bench_table[i];
	return NULL;
}
