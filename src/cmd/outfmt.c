/* SPDX-License-Identifier: MIT */
/* The output formats of run, matrix and show (see outfmt.h). */
#include "cmd/outfmt.h"

#include <stdio.h>
#include <string.h>
#include "out/report.h"
#include "out/result_io.h"

static int w_text(const char *name, const struct outfmt_job *j)
{
	(void)name;
	result_print_text(j->r, stdout);
	if (j->output)
		printf("result: %s\n", j->output);
	return 0;
}

/* The stored document itself when there is one (show), so nothing is lost. */
static int w_json(const char *name, const struct outfmt_job *j)
{
	(void)name;
	json_t *made = j->doc ? NULL : result_to_json(j->r);
	const json_t *doc = j->doc ? j->doc : made;
	int rc = !doc || json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ? -1 : 0;
	putchar('\n');
	json_decref(made);
	return rc;
}

static int w_csv(const char *name, const struct outfmt_job *j)
{
	(void)name;
	const struct run_result *rs[] = {j->r};
	const char *labels[] = {j->label ? j->label : ""};
	report_write_csv(rs, labels, 1, stdout);
	return 0;
}

/* src/out/fleet.c knows each of these by name */
static int w_fleet(const char *name, const struct outfmt_job *j)
{
	return fleet_write(stdout, fleet_format_from_name(name), j->r, j->cmp) ? -1 : 0;
}

/* The table: name, its words in --help (consecutive formats with the same
 * words are listed together before them), the commands that offer it. */
#define FLEET_WORDS "kernel-testing systems, docs/fleet.md"
static const struct outfmt {
	const char *name, *words;
	unsigned cmds;
	int (*write)(const char *name, const struct outfmt_job *j);
} fmts[] = {
	{"text", "the summary, default", OUTFMT_RUN | OUTFMT_SHOW, w_text},
	{"json", "the result document", OUTFMT_RUN | OUTFMT_SHOW, w_json},
	{"csv", "one row per bench and point", OUTFMT_SHOW, w_csv},
	{"kcidb", FLEET_WORDS, OUTFMT_RUN | OUTFMT_SHOW, w_fleet},
	{"lava", FLEET_WORDS, OUTFMT_RUN | OUTFMT_SHOW, w_fleet},
	{"lkp", FLEET_WORDS, OUTFMT_RUN | OUTFMT_SHOW, w_fleet},
	{"ktap", FLEET_WORDS, OUTFMT_RUN | OUTFMT_SHOW, w_fleet},
};
#define NFMTS (int)(sizeof(fmts) / sizeof(fmts[0]))

/* cmd is one bit: index 0 for run, 1 for show */
static int slot(unsigned cmd) { return cmd == OUTFMT_SHOW; }

const char *outfmt_choices(unsigned cmd)
{
	static char buf[2][128];
	char *b = buf[slot(cmd)];
	b[0] = 0;
	for (int i = 0; i < NFMTS; i++)
		if (fmts[i].cmds & cmd)
			snprintf(b + strlen(b), sizeof(buf[0]) - strlen(b), "%s%s", *b ? "|" : "", fmts[i].name);
	return b;
}

const char *outfmt_help(unsigned cmd)
{
	static char buf[2][512];
	char *b = buf[slot(cmd)];
	size_t len = sizeof(buf[0]);
	int n = 0;
	snprintf(b, len, "what goes to stdout:");
	for (int i = 0; i < NFMTS; i++) {
		if (!(fmts[i].cmds & cmd))
			continue;
		snprintf(b + strlen(b), len - strlen(b), "%s %s", n++ ? "," : "", fmts[i].name);
		int k = i + 1; /* the next offered: its words said together with these? */
		while (k < NFMTS && !(fmts[k].cmds & cmd))
			k++;
		if (k == NFMTS || strcmp(fmts[k].words, fmts[i].words))
			snprintf(b + strlen(b), len - strlen(b), " (%s)", fmts[i].words);
	}
	return b;
}

int outfmt_write(const char *name, const struct outfmt_job *j)
{
	for (int i = 0; i < NFMTS; i++)
		if (!strcmp(fmts[i].name, name))
			return fmts[i].write(name, j);
	return -1;
}
