/* SPDX-License-Identifier: MIT */
/* scalebench list: every bench with its axis and one line; with BENCH or
 * FAMILY, those benches in full with their parameters; --params-md and
 * --params-man print every bench's parameter table as docs/benches.md and
 * the man page carry it (tests/integration/params.sh compares them). */
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "core/bench.h"
#include "bench/table.h"
#include "cmd/cmd.h"
#include "cmd/opt.h"
#include "core/param.h"
#include "core/result.h"

#define MAX_LIST 64
#define MAX_LIST_BENCHES 128

int cmd_list(int argc, char **argv)
{
	const char *format = "text";
	int help = 0, md = 0, man = 0;
	const struct opt opts[] = {
		{"format", 0, OPT_CHOICE, "FMT", "text (default) or json", 0, 0, "text|json", &format, NULL},
		{"params-md", 0, OPT_FLAG, NULL, "every bench's parameters as the Markdown table of docs/benches.md", 0, 0, NULL, &md, NULL},
		{"params-man", 0, OPT_FLAG, NULL, "every bench's parameters as the roff block of the man page", 0, 0, NULL, &man, NULL},
		{"help", 'h', OPT_FLAG, NULL, "this help", 0, 0, NULL, &help, NULL},
		{0},
	};
	char err[256], *pos[MAX_LIST];
	int npos;
	if (opt_parse(opts, argc, argv, pos, MAX_LIST, &npos, err, sizeof(err))) {
		fprintf(stderr, "scalebench list: %s\n", err);
		return EXIT_USAGE;
	}
	if (help) {
		printf("usage: scalebench list [BENCH|FAMILY ...] [--format text|json]\n"
		       "       scalebench list --params-md | --params-man\n\n"
		       "Without BENCH: every bench, its axis and what is timed. With BENCH (or a\n"
		       "FAMILY such as io): those benches in full, with the parameters they take\n"
		       "(`run BENCH -p NAME=VALUE`): type or allowed values, default, meaning.\n\n");
		opt_help(stdout, opts);
		return EXIT_OK;
	}
	if (md || man) {
		if (md)
			param_print_md(stdout, bench_table, bench_count);
		else
			param_print_man(stdout, bench_table, bench_count);
		return fflush(stdout) ? EXIT_RUNTIME : EXIT_OK;
	}
	const struct bench *sel[MAX_LIST_BENCHES];
	int nsel = 0;
	for (int p = 0; p < npos; p++) {
		size_t wl = strlen(pos[p]);
		int found = 0;
		for (int i = 0; i < bench_count; i++) {
			const char *nm = bench_table[i]->name;
			if (strncmp(nm, pos[p], wl) || (nm[wl] && (nm[wl] != '.' || memchr(pos[p], '.', wl))))
				continue;
			found = 1;
			int dup = 0;
			for (int k = 0; k < nsel; k++)
				dup |= sel[k] == bench_table[i];
			if (!dup && nsel < MAX_LIST_BENCHES)
				sel[nsel++] = bench_table[i];
		}
		if (!found) {
			fprintf(stderr, "scalebench list: unknown bench or family '%s' (see `scalebench list`)\n",
				pos[p]);
			return EXIT_USAGE;
		}
	}
	if (!strcmp(format, "json")) {
		json_t *a = json_array();
		for (int i = 0; i < (npos ? nsel : bench_count); i++) {
			const struct bench *b = npos ? sel[i] : bench_table[i];
			json_array_append_new(
				a, json_pack("{s:s,s:i,s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:s?,s:o}", "name", b->name,
					     "version", b->version, "axis", b->axis, "axis_kind",
					     axis_kind_name((int)b->axis_kind), "summary", b->summary,
					     "op", b->op_desc, "quick_max_n", (json_int_t)b->quick_max_n,
					     "default_max_n", (json_int_t)b->default_max_n, "full_max_n",
					     (json_int_t)b->full_max_n, "unavailable", b->unavailable,
					     "params", param_json(b)));
		}
		json_dumpf(a, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(a);
		return EXIT_OK;
	}
	if (npos) {
		for (int i = 0; i < nsel; i++) {
			if (i)
				putchar('\n');
			param_print_text(stdout, sel[i]);
		}
		return EXIT_OK;
	}
	printf("%-12s %-30s %s\n", "bench", "axis (N)", "what is timed");
	for (int i = 0; i < bench_count; i++) {
		const struct bench *b = bench_table[i];
		printf("%-12s %-30s %s", b->name, b->axis, b->summary);
		if (b->needs & NEED_ROOT)
			printf(" [root]");
		if (b->unavailable)
			printf(" [unavailable: %s]", b->unavailable);
		putchar('\n');
	}
	printf("\n`scalebench list BENCH` shows a bench's parameters (run BENCH -p NAME=VALUE).\n");
	return EXIT_OK;
}
