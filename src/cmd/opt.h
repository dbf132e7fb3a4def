/* SPDX-License-Identifier: MIT */
/* Option tables: one per command; they drive parsing, validation and the
 * option part of --help, so the three cannot disagree. */
#ifndef SB_OPT_H
#define SB_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type { OPT_FLAG, OPT_STR, OPT_U64, OPT_DOUBLE, OPT_CHOICE, OPT_LIST };

#define OPT_LIST_MAX 32
struct opt_list { const char *v[OPT_LIST_MAX]; int n; }; /* OPT_LIST: repeatable */

struct opt {
	const char *name;   /* long name without "--" */
	char short_name;    /* 0 if none */
	enum opt_type type;
	const char *arg;    /* metavariable for --help */
	const char *help;
	double min, max;    /* OPT_U64 / OPT_DOUBLE range */
	const char *choices;/* OPT_CHOICE: "text|json" */
	void *dst;          /* int*, const char**, uint64_t*, double*, const char**, struct opt_list* */
	int *seen;          /* optional: set to 1 when given */
};

/* Parses argv[0..argc) (argv[0] is the first argument, not the command).
 * Non-option words go to pos (at most maxpos). "--" ends options.
 * Returns 0, or -1 with a one-line message in err. */
int opt_parse(const struct opt *opts, int argc, char **argv, char **pos, int maxpos, int *npos,
	      char *err, size_t errlen);
void opt_help(FILE *f, const struct opt *opts);
/* A command's options, the same way in every command: opt_parse, and on
 * an error one line "scalebench NAME: ..." on stderr and EXIT_USAGE; then,
 * when *help was set, usage on stdout and EXIT_OK; else OPT_GO, the
 * command goes on with pos[0..*npos). */
#define OPT_GO (-1)
int opt_command(const char *name, const struct opt *opts, int argc, char **argv, char **pos,
		int maxpos, int *npos, const int *help, void (*usage)(FILE *, const struct opt *));

/* Exit codes (documented in --help, the man page and docs/cli.md). */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,  /* the harness itself failed: could not write, no memory */
	EXIT_USAGE = 2,    /* bad arguments, unknown bench, unusable --dir or output */
	EXIT_REGRESSION = 3, /* compare: a significant regression */
	EXIT_SIGNAL = 128, /* + signal number: interrupted, partial result written */
};

#endif
