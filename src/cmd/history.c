/* SPDX-License-Identifier: MIT */
/* scalebench history: list the runs stored in the history database; and
 * the hook by which `run` stores its result there (run_store_history). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "out/db.h"
#include "cmd/noisedb.h"
#include "cmd/opt.h"

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

/* history --spread: the distinct host, kernel and file system of the
 * matching runs; each is one configuration with its own floors. */
struct conf {
	char host[128], kernel[128], fs[32];
};
struct confs {
	struct conf *v;
	int n;
};

static int add_conf(void *ctx, const struct db_run *m)
{
	struct confs *c = ctx;
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].host, m->host) && !strcmp(c->v[i].kernel, m->kernel) &&
		    !strcmp(c->v[i].fs, m->fs_type))
			return 0;
	struct conf *v = realloc(c->v, (size_t)(c->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	c->v = v;
	v = &c->v[c->n++];
	snprintf(v->host, sizeof(v->host), "%s", m->host);
	snprintf(v->kernel, sizeof(v->kernel), "%s", m->kernel);
	snprintf(v->fs, sizeof(v->fs), "%s", m->fs_type);
	return 0;
}

/* bench filter on a compare key: "fs.stat" matches fs.stat, fs.stat[x=1]
 * and fs.stat@ext4 */
static int key_is(const char *key, const char *bench)
{
	size_t n = strlen(bench);
	return !strncmp(key, bench, n) && (!key[n] || key[n] == '[' || key[n] == '@');
}

/* One row per configuration and bench: the run-to-run spread that
 * compare --noise-floor uses (src/core/noise.c). */
static int print_spread(struct db *d, const struct db_filter *f, int json)
{
	char err[1024];
	struct confs c = {0};
	json_t *arr = json ? json_array() : NULL;
	int rc = db_list(d, f, add_conf, &c, err, sizeof(err)), rows = 0;
	for (int i = 0; !rc && i < c.n; i++) {
		struct db_filter g = *f;
		g.host = c.v[i].host;
		g.kernel = c.v[i].kernel;
		g.fs_type = c.v[i].fs;
		struct noise_set ns = {0};
		int nruns;
		rc = noise_from_db(d, &g, NULL, &ns, &nruns, err, sizeof(err));
		for (int k = 0; !rc && ns.floors && k < ns.n; k++) {
			const struct cmp_floor *fl = &ns.floors[k];
			if (f->bench && !key_is(fl->key, f->bench))
				continue;
			if (json) {
				json_array_append_new(
					arr, json_pack("{s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:o}", "host",
						       c.v[i].host, "kernel", c.v[i].kernel, "fs_type",
						       c.v[i].fs, "bench", fl->key, "version",
						       fl->version, "runs", fl->runs, "points",
						       fl->points, "spread_pct",
						       isfinite(fl->spread) ? json_real(100 * fl->spread)
									    : json_null()));
				continue;
			}
			if (!rows++)
				printf("%-16s  %-18s  %-6s  %-32s  %4s  %6s  %8s\n", "host", "kernel",
				       "fs", "bench", "runs", "points", "spread");
			char sp[24] = "-";
			if (isfinite(fl->spread))
				snprintf(sp, sizeof(sp), "%.2f%%", 100 * fl->spread);
			printf("%-16.16s  %-18.18s  %-6.6s  %-32.32s  %4d  %6d  %8s\n", c.v[i].host,
			       c.v[i].kernel, *c.v[i].fs ? c.v[i].fs : "-", fl->key, fl->runs,
			       fl->points, sp);
		}
		noise_free(&ns);
	}
	free(c.v);
	if (rc) {
		fprintf(stderr, "scalebench history: %s\n", err);
		json_decref(arr);
		return EXIT_RUNTIME;
	}
	if (json) {
		json_dumpf(arr, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(arr);
	} else if (!rows) {
		fprintf(stderr, "scalebench history: no runs%s\n",
			f->bench || f->host || f->kernel || f->fs_type || f->since ? " match"
										    : " stored yet");
	}
	return fflush(stdout) ? EXIT_RUNTIME : EXIT_OK;
}

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f, "usage: scalebench history [options]\n\n"
		   "List the runs stored in the history database, newest first. Every\n"
		   "`scalebench run` stores its result there unless given --no-db.\n"
		   "With --spread, one row per host, kernel, file system and bench instead:\n"
		   "the run-to-run spread of the matching runs (standard deviation of each\n"
		   "run's mean log median over the N they all measured; 2%% = runs usually\n"
		   "2%% apart), which compare --noise-floor uses.\n\n");
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
	int help = 0, spread = 0;
	const struct opt opts[] = {
		{"spread", 0, OPT_FLAG, NULL, "per bench, the run-to-run spread of the runs (compare --noise-floor)", 0, 0, NULL, &spread, NULL},
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
	int orc = opt_command("history", opts, argc, argv, pos, 0, &npos, &help, usage);
	if (orc != OPT_GO)
		return orc;
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
	if (spread) {
		int rc = print_spread(d, &f, !strcmp(format, "json"));
		db_close(d);
		return rc;
	}
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
