/* SPDX-License-Identifier: MIT */
/* scalebench: how does the cost of an operating-system operation grow as
 * the load grows? Thin dispatcher: one file per subcommand in src/cmd/. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opt.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scalebench COMMAND [ARGS]\n\n"
		"commands:\n"
		"  run [BENCH|FAMILY ...]   sweep benches and say how their cost grows\n"
		"  matrix [BENCH|FAMILY ...] the same benches on several file systems (root)\n"
		"  list [BENCH]             the benches, with their axis; a bench's parameters (-p)\n"
		"  serve                    the server side of net.* for `run --peer` on another host\n"
		"  history                  the runs stored in the history database\n"
		"  show ID|FILE             one run (text, json, csv, or kcidb, lava, lkp, ktap)\n"
		"  compare A B [C ...]      what changed between results, with a statistical test\n"
		"                           (or --latest-per-host: every host against one)\n"
		"  report RESULT ...        a self-contained HTML report (or csv)\n"
		"  help                     this text; `scalebench COMMAND --help` for one command\n"
		"  version                  the version (also --version)\n\n"
		"quick start: scalebench run --quick -o result.json\n"
		"exit codes: 0 done, 1 harness failure, 2 bad arguments or target,\n"
		"            3 compare found a significant regression,\n"
		"            128+signal interrupted (partial result written)\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: scalebench COMMAND [ARGS] (try `scalebench help`)\n");
		return EXIT_USAGE;
	}
	const char *c = argv[1];
	if (!strcmp(c, "run"))
		return cmd_run(argc - 2, argv + 2, argc, argv);
	if (!strcmp(c, "matrix"))
		return cmd_matrix(argc - 2, argv + 2, argc, argv);
	if (!strcmp(c, "list"))
		return cmd_list(argc - 2, argv + 2);
	if (!strcmp(c, "serve"))
		return cmd_serve(argc - 2, argv + 2);
	if (!strcmp(c, "history"))
		return cmd_history(argc - 2, argv + 2);
	if (!strcmp(c, "show"))
		return cmd_show(argc - 2, argv + 2);
	if (!strcmp(c, "compare"))
		return cmd_compare(argc - 2, argv + 2, argc, argv);
	if (!strcmp(c, "report"))
		return cmd_report(argc - 2, argv + 2);
	if (!strcmp(c, "__task")) /* internal: a task process of run --tasks (tasks.c) */
		return cmd_task(argc - 2, argv + 2);
	if (!strcmp(c, "__worker")) /* internal: one bench of a run (worker.h) */
		return cmd_worker(argc - 2, argv + 2);
	if (!strcmp(c, "help") || !strcmp(c, "--help") || !strcmp(c, "-h")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(c, "version") || !strcmp(c, "--version") || !strcmp(c, "-V")) {
		printf("scalebench %s\n", SB_VERSION);
		return EXIT_OK;
	}
	fprintf(stderr, "scalebench: unknown command '%s' (try `scalebench help`)\n", c);
	return EXIT_USAGE;
}
