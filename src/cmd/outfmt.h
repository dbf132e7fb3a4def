/* SPDX-License-Identifier: MIT */
/* The formats a command prints a result in on stdout (run and matrix
 * --format, show --format): one table (outfmt.c) gives each option its
 * choices and its --help words and does the writing, so that a format is
 * added in one place (docs/architecture.md). */
#ifndef SB_OUTFMT_H
#define SB_OUTFMT_H

#include <jansson.h>
#include "core/result.h"

enum outfmt_cmd {
	OUTFMT_RUN = 1u << 0,  /* run, matrix: the result just measured */
	OUTFMT_SHOW = 1u << 1, /* show: a stored result */
};

/* What a writer may use: the result; doc, the stored document (show; NULL:
 * made from r); cmp, show --baseline's comparison (or NULL); label, the
 * run's name in a table ("#12", a file); output, run -o's file (text says
 * where the result went), or NULL. */
struct outfmt_job {
	const struct run_result *r;
	const json_t *doc, *cmp;
	const char *label, *output;
};

/* The option's choices for cmd ("text|json|kcidb|lava|lkp|ktap") and its
 * --help words ("what goes to stdout: text (the summary, default), ...");
 * static strings. */
const char *outfmt_choices(unsigned cmd);
const char *outfmt_help(unsigned cmd);
/* Write j in format name (one of the choices) to stdout: 0, or -1 when
 * the writing failed. */
int outfmt_write(const char *name, const struct outfmt_job *j);

#endif
