/* SPDX-License-Identifier: MIT */
/* Minimal unit-test harness: CHECK counts, t_done() prints the tally in
 * the form tests/run.sh adds up ("N passed, N failed") and sets the exit. */
#ifndef SB_T_H
#define SB_T_H
#include <stdio.h>

static int t_passed, t_failed;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (cond) {                                                    \
			t_passed++;                                            \
		} else {                                                       \
			t_failed++;                                            \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
		}                                                              \
	} while (0)

static inline int t_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, t_passed, t_failed);
	return t_failed ? 1 : 0;
}
#endif
