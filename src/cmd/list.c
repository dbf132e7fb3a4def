/* SPDX-License-Identifier: MIT */
/* scalebench list: every bench with its axis and one line. */
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "bench.h"
#include "cmd.h"
#include "opt.h"

int cmd_list(int argc, char **argv)
{
	const char *format = "text";
	int help = 0;
	const struct opt opts[] = {
		{"format", 0, OPT_CHOICE, "FMT", "text (default) or json", 0, 0, "text|json", &format, NULL},
		{"help", 'h', OPT_FLAG, NULL, "this help", 0, 0, NULL, &help, NULL},
		{0},
	};
	char err[256], *pos[1];
	int npos;
	if (opt_parse(opts, argc, argv, pos, 0, &npos, err, sizeof(err))) {
		fprintf(stderr, "scalebench list: %s\n", err);
		return EXIT_USAGE;
	}
	if (help) {
		printf("usage: scalebench list [--format text|json]\n\n");
		opt_help(stdout, opts);
		return EXIT_OK;
	}
	if (!strcmp(format, "json")) {
		json_t *a = json_array();
		for (int i = 0; i < bench_count; i++) {
			const struct bench *b = bench_table[i];
			json_array_append_new(
				a, json_pack("{s:s,s:i,s:s,s:s,s:s,s:I,s:I,s:I,s:s?}", "name", b->name,
					     "version", b->version, "axis", b->axis, "summary", b->summary,
					     "op", b->op_desc, "quick_max_n", (json_int_t)b->quick_max_n,
					     "default_max_n", (json_int_t)b->default_max_n, "full_max_n",
					     (json_int_t)b->full_max_n, "unavailable", b->unavailable));
		}
		json_dumpf(a, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(a);
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
	return EXIT_OK;
}
