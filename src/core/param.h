/* SPDX-License-Identifier: MIT */
/* Bench parameters: what a bench declares (struct bench_param_spec in
 * bench.h) checked against what the user gives with -p KEY=VALUE, before
 * any work, and described for `list`, the man page and docs/benches.md. */
#ifndef SB_PARAM_H
#define SB_PARAM_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "core/bench.h"

/* The i-th parameter b lists (from 0): the core's own placement first
 * (a bench with .placement), then b's table; NULL past the end. run
 * --tasks' as and shared are not listed (param_find knows them). */
const struct bench_param_spec *param_at(const struct bench *b, int i);
/* The spec of key for b (its table, or a parameter the core owns), or
 * NULL (not declared). */
const struct bench_param_spec *param_find(const struct bench *b, const char *key);
/* 1 if b takes key: declared in its table, or, for a bench without a
 * table, set by one of its variants. */
int param_known(const struct bench *b, const char *key);
/* The value agrees with the spec: 0, or -1 with why in err ("an integer
 * in 1..4096, not '0'"). */
int param_check_value(const struct bench_param_spec *sp, const char *value, char *err,
		      size_t errlen);
/* "integer 1..4096", "0|1", "psync|libaio|io_uring|mmap", "text". */
void param_type_desc(const struct bench_param_spec *sp, char *buf, size_t len);
/* Levenshtein distance (bytes), capped at 255. */
unsigned param_distance(const char *a, const char *b);
/* Every key of over against the selected benches: known to one at least,
 * and of a value every bench that knows it accepts. 0, or -1 with a
 * message in err (a usage error) that names the benches of all (the
 * whole table, nall of them) that take an unknown key. */
int param_validate(const struct bench *const *sel, int nsel, const struct bench *const *all, int nall,
		   const json_t *over, char *err, size_t errlen);
/* Where a variant selection failed: err says which values b's variants
 * have for the keys of over. */
void param_no_variant(const struct bench *b, const json_t *over, char *err, size_t errlen);

/* The parameters of b as text (`list BENCH`), a Markdown table, a man
 * page (roff) block, JSON. */
void param_print_text(FILE *f, const struct bench *b);
void param_print_md(FILE *f, const struct bench *const *all, int nall);
void param_print_man(FILE *f, const struct bench *const *all, int nall);
json_t *param_json(const struct bench *b);

#endif
