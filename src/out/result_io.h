/* SPDX-License-Identifier: MIT */
/* The result (core/result.h) in and out: the JSON document (json.c) and
 * the human summary (text.c). */
#ifndef SB_RESULT_IO_H
#define SB_RESULT_IO_H

#include <stdio.h>
#include <jansson.h>
#include "core/result.h"

/* src/out/json.c */
json_t *result_to_json(const struct run_result *r);
int result_from_json(const json_t *j, struct run_result *r, char *err, size_t errlen);
/* One bench of the result (how a worker process hands its bench back). */
json_t *bench_to_json(const struct bench_result *b);
int bench_from_json(const json_t *o, struct bench_result *b, char *err, size_t errlen);
/* Atomic: a temporary file in the same directory, renamed on success. */
int result_write_file(const struct run_result *r, const char *path, char *err, size_t errlen);
int result_read_file(const char *path, struct run_result *r, char *err, size_t errlen);

/* src/out/text.c */
void result_print_text(const struct run_result *r, FILE *f);

#endif
