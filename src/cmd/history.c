/* SPDX-License-Identifier: MIT */
/* scalebench history: list the runs stored in the history database; and
 * the hook by which `run` stores its result there (run_store_history). */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "opt.h"

int run_store_history(const struct run_result *r, const char *cmd, const char *dbspec, int no_db,
		      int quiet)
{
	if (no_db)
		return EXIT_OK;
	char err[1024];
	struct db *d;
	int64_t id = 0;
	if (db_open(dbspec, DB_WRITE, &d, err, sizeof(err))) {
		fprintf(stderr, "scalebench %s: not stored in the history: %s\n", cmd, err);
		return EXIT_RUNTIME;
	}
	int rc = db_store(d, r, &id, err, sizeof(err));
	if (rc)
		fprintf(stderr, "scalebench %s: not stored in the history: %s\n", cmd, err);
	else if (!quiet)
		fprintf(stderr, "scalebench %s: stored as run %lld in %s\n", cmd, (long long)id,
			d->label);
	db_close(d);
	return rc ? EXIT_RUNTIME : EXIT_OK;
}

struct list_ctx {
	int json, count;
	json_t *arr;
};

static int print_row(void *ctx, const struct db_run *m)
{
	struct list_ctx *c = ctx;
	c->count++;
	if (c->json) {
		json_array_append_new(
			c->arr, json_pack("{s:I,s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:s,s:b,s:s}", "id",
					  (json_int_t)m->id, "started", m->started, "stored",
					  m->stored, "host", m->host, "kernel", m->kernel, "fs_type",
					  m->fs_type, "tool_version", m->tool_version, "benches",
					  m->nbenches, "bench_names", m->benches, "interrupted",
					  m->interrupted, "command_line", m->command_line));
		return 0;
	}
	if (c->count == 1)
		printf("%6s  %-20s  %-16s  %-18s  %-6s  %s\n", "id", "started", "host", "kernel", "fs",
		       "benches");
	printf("%6lld  %-20s  %-16.16s  %-18.18s  %-6.6s  %s%s\n", (long long)m->id, m->started,
	       m->host, m->kernel, *m->fs_type ? m->fs_type : "-", m->benches,
	       m->interrupted ? "  (interrupted)" : "");
	return 0;
}

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f, "usage: scalebench history [options]\n\n"
		   "List the runs stored in the history database, newest first. Every\n"
		   "`scalebench run` stores its result there unless given --no-db.\n\n");
	opt_help(f, opts);
	fprintf(f, "\nThe database is $XDG_DATA_HOME/scalebench/results.db (default\n"
		   "~/.local/share/scalebench/results.db), a SQLite file, or a PostgreSQL\n"
		   "database named by a postgresql:// URL.\n"
		   "\nexit: 0 listed (possibly nothing), 1 the database could not be read,\n"
		   "2 bad arguments.\n");
}

int cmd_history(int argc, char **argv)
{
	const char *dbspec = NULL, *bench = NULL, *host = NULL, *since = NULL, *format = "text";
	const char *kernel = NULL, *fs = NULL;
	uint64_t limit = 0;
	int help = 0;
	const struct opt opts[] = {
		{"bench", 'b', OPT_STR, "NAME", "only runs that measured this bench", 0, 0, NULL, &bench, NULL},
		{"host", 0, OPT_STR, "HOST", "only runs made on this host (its name, or its run --host-label)", 0, 0, NULL, &host, NULL},
		{"kernel", 0, OPT_STR, "RELEASE", "only runs on this kernel release (uname -r, exactly)", 0, 0, NULL, &kernel, NULL},
		{"fs", 0, OPT_STR, "TYPE", "only runs whose --dir was on this file system type (ext4, xfs, tmpfs...)", 0, 0, NULL, &fs, NULL},
		{"since", 's', OPT_STR, "DATE", "only runs started at or after DATE (2026-12-01 or 2026-12-01T08:00:00Z)", 0, 0, NULL, &since, NULL},
		{"limit", 'n', OPT_U64, "N", "at most N runs", 1, 1e9, NULL, &limit, NULL},
		{"db", 0, OPT_STR, "PATH|URL", "the history database (default: see below)", 0, 0, NULL, &dbspec, NULL},
		{"format", 'f', OPT_CHOICE, "FMT", "text (default) or json", 0, 0, "text|json", &format, NULL},
		{"help", 'h', OPT_FLAG, NULL, "this help", 0, 0, NULL, &help, NULL},
		{0},
	};
	char err[1024], *pos[1];
	int npos;
	if (opt_parse(opts, argc, argv, pos, 0, &npos, err, sizeof(err))) {
		fprintf(stderr, "scalebench history: %s\n", err);
		return EXIT_USAGE;
	}
	if (help) {
		usage(stdout, opts);
		return EXIT_OK;
	}
	if (since && (strlen(since) < 4 || since[0] < '0' || since[0] > '9')) {
		fprintf(stderr, "scalebench history: --since: '%s' is not a date such as 2026-12-01\n",
			since);
		return EXIT_USAGE;
	}
	struct db *d;
	if (db_open(dbspec, DB_READ, &d, err, sizeof(err))) {
		fprintf(stderr, "scalebench history: %s\n", err);
		return EXIT_RUNTIME;
	}
	struct db_filter f = {.bench = bench, .host = host, .kernel = kernel, .fs_type = fs, .since = since, .limit = (int64_t)limit};
	struct list_ctx c = {.json = !strcmp(format, "json")};
	if (c.json)
		c.arr = json_array();
	int rc = db_list(d, &f, print_row, &c, err, sizeof(err));
	db_close(d);
	if (rc) {
		fprintf(stderr, "scalebench history: %s\n", err);
		json_decref(c.arr);
		return EXIT_RUNTIME;
	}
	if (c.json) {
		json_dumpf(c.arr, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(c.arr);
	} else if (!c.count) {
		fprintf(stderr, "scalebench history: no runs%s\n",
			bench || host || kernel || fs || since ? " match" : " stored yet");
	}
	return fflush(stdout) ? EXIT_RUNTIME : EXIT_OK;
}
