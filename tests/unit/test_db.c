/* SPDX-License-Identifier: MIT */
/* The SQLite history backend on a real temporary database: store, list
 * with filters, read back equal; a corrupted row, a file that is not a
 * database and a schema from the future give errors, not crashes. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "out/db.h"
#include "out/result_io.h"
#include "t.h"
#include "core/verdict.h"

static void make_result(struct run_result *r, const char *host, const char *started,
			const char *bench)
{
	memset(r, 0, sizeof(*r));
	r->schema_version = SB_SCHEMA_VERSION;
	r->tool_version = strdup("0.0.1");
	r->host = strdup(host);
	r->started = strdup(started);
	r->finished = strdup(started);
	r->argc = 2;
	r->argv = calloc(2, sizeof(char *));
	r->argv[0] = strdup("scalebench");
	r->argv[1] = strdup("run 'quoted'; DROP TABLE runs;--");
	r->options = json_object();
	r->snapshot = json_pack("{s:{s:s},s:{s:s}}", "kernel", "release", "6.1.0", "filesystem",
				"type", "tmpfs");
	struct bench_result *b = result_add_bench(r);
	b->name = strdup(bench);
	b->version = 2;
	struct repetition *rep = bench_add_rep(b);
	struct hist *h = hist_new();
	for (int i = 0; i < 3; i++) {
		struct point *p = rep_add_point(rep);
		hist_reset(h);
		for (int k = 0; k < 40; k++)
			hist_add(h, 500.0 * (i + 1) + k);
		p->n = (uint64_t)10 << i;
		p->batch = 1;
		p->samples = p->ops = h->count;
		hist_summary(h, &p->st);
		point_set_bins(p, h);
	}
	hist_free(h);
	rep_fit(rep, 0);
	bench_fit(b);
}

struct rows {
	int n;
	int64_t ids[8];
	char hosts[8][128];
};

static int collect(void *ctx, const struct db_run *m)
{
	struct rows *r = ctx;
	if (r->n < 8) {
		r->ids[r->n] = m->id;
		snprintf(r->hosts[r->n], sizeof(r->hosts[0]), "%s", m->host);
	}
	r->n++;
	return 0;
}

static int raw_exec(const char *path, const char *sql)
{
	sqlite3 *h;
	int rc = sqlite3_open(path, &h) == SQLITE_OK &&
		 sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK;
	sqlite3_close(h);
	return rc ? 0 : -1;
}

int main(void)
{
	char dir[] = "/tmp/sbdbtest.XXXXXX", path[256], err[1024];
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/h.db", dir);

	struct db *d;
	CHECK(db_open(path, DB_READ, &d, err, sizeof(err)) < 0 && strstr(err, "no history database"), "read of a missing db: %s", err);
	CHECK(db_open(path, DB_WRITE, &d, err, sizeof(err)) == 0, "open: %s", err);
	struct run_result r1, r2;
	make_result(&r1, "alpha", "2026-12-01T10:00:00Z", "fs.create");
	make_result(&r2, "beta", "2026-12-03T10:00:00Z", "fs.stat");
	json_object_set_new(r2.snapshot, "kernel", json_pack("{s:s}", "release", "6.6.0-x"));
	json_object_set_new(r2.snapshot, "filesystem", json_pack("{s:s}", "type", "xfs"));
	int64_t id1 = 0, id2 = 0;
	CHECK(db_store(d, &r1, &id1, err, sizeof(err)) == 0, "store 1: %s", err);
	CHECK(db_store(d, &r2, &id2, err, sizeof(err)) == 0, "store 2: %s", err);
	CHECK(id1 > 0 && id2 > id1, "ids %lld %lld", (long long)id1, (long long)id2);

	struct rows rows = {0};
	struct db_filter all = {0};
	CHECK(db_list(d, &all, collect, &rows, err, sizeof(err)) == 0, "list");
	CHECK(rows.n == 2 && rows.ids[0] == id2 && !strcmp(rows.hosts[0], "beta"), "newest first");
	struct db_filter byb = {.bench = "fs.create"}, byh = {.host = "beta"},
			 since = {.since = "2026-12-02"}, none = {.host = "gamma"};
	memset(&rows, 0, sizeof(rows));
	db_list(d, &byb, collect, &rows, err, sizeof(err));
	CHECK(rows.n == 1 && rows.ids[0] == id1, "--bench");
	memset(&rows, 0, sizeof(rows));
	db_list(d, &byh, collect, &rows, err, sizeof(err));
	CHECK(rows.n == 1 && rows.ids[0] == id2, "--host");
	memset(&rows, 0, sizeof(rows));
	db_list(d, &since, collect, &rows, err, sizeof(err));
	CHECK(rows.n == 1 && rows.ids[0] == id2, "--since");
	memset(&rows, 0, sizeof(rows));
	db_list(d, &none, collect, &rows, err, sizeof(err));
	CHECK(rows.n == 0, "no match");
	struct db_filter byk = {.kernel = "6.6.0-x"}, byfs = {.fs_type = "tmpfs"},
			 both = {.kernel = "6.1.0", .fs_type = "xfs"}, kprefix = {.kernel = "6.6"};
	memset(&rows, 0, sizeof(rows));
	db_list(d, &byk, collect, &rows, err, sizeof(err));
	CHECK(rows.n == 1 && rows.ids[0] == id2, "--kernel");
	memset(&rows, 0, sizeof(rows));
	db_list(d, &byfs, collect, &rows, err, sizeof(err));
	CHECK(rows.n == 1 && rows.ids[0] == id1, "--fs");
	memset(&rows, 0, sizeof(rows));
	db_list(d, &both, collect, &rows, err, sizeof(err));
	CHECK(rows.n == 0, "--kernel and --fs combine");
	memset(&rows, 0, sizeof(rows));
	db_list(d, &kprefix, collect, &rows, err, sizeof(err));
	CHECK(rows.n == 0, "--kernel matches the whole release, not a prefix");

	/* read back: the same document */
	struct run_result back;
	json_t *doc = NULL;
	CHECK(db_get_result(d, id1, &back, &doc, err, sizeof(err)) == 0, "get: %s", err);
	json_t *orig = result_to_json(&r1);
	CHECK(doc && json_equal(doc, orig), "document round trip");
	CHECK(back.nbenches == 1 && back.benches[0].reps[0].npts == 3, "structure");
	CHECK(!strcmp(back.argv[1], r1.argv[1]), "hostile argv kept as data");
	json_decref(orig);
	json_decref(doc);
	result_free(&back);
	CHECK(db_get_result(d, 999, &back, NULL, err, sizeof(err)) < 0 && strstr(err, "no run 999"),
	      "missing id: %s", err);
	db_close(d);

	/* corrupted rows */
	char sql[256];
	snprintf(sql, sizeof(sql), "UPDATE runs SET document = '{\"schema_version\": 1, \"tool' WHERE id = %lld", (long long)id1);
	CHECK(raw_exec(path, sql) == 0, "corrupt row 1");
	snprintf(sql, sizeof(sql), "UPDATE runs SET document = '{\"schema_version\": 7}' WHERE id = %lld", (long long)id2);
	CHECK(raw_exec(path, sql) == 0, "corrupt row 2");
	CHECK(db_open(path, DB_READ, &d, err, sizeof(err)) == 0, "reopen: %s", err);
	CHECK(db_get_result(d, id1, &back, NULL, err, sizeof(err)) < 0 &&
	      strstr(err, "not valid JSON") && strstr(err, "h.db") && strstr(err, "run 1"),
	      "truncated document: %s", err);
	CHECK(db_get_result(d, id2, &back, NULL, err, sizeof(err)) < 0 &&
	      strstr(err, "schema_version 7"), "wrong version: %s", err);
	db_close(d);

	/* a schema newer than this build */
	CHECK(raw_exec(path, "INSERT INTO schema_migrations VALUES (99, 'future')") == 0, "future");
	CHECK(db_open(path, DB_READ, &d, err, sizeof(err)) < 0 && strstr(err, "newer"), "future: %s", err);

	/* a file that is not a database */
	char junk[256];
	snprintf(junk, sizeof(junk), "%s/junk.db", dir);
	FILE *f = fopen(junk, "w");
	fputs("this is not a sqlite database, just some text that is long enough......\n", f);
	fclose(f);
	CHECK(db_open(junk, DB_READ, &d, err, sizeof(err)) < 0 && strstr(err, "junk.db") &&
	      strstr(err, "not a database"), "junk: %s", err);
	/* a directory that does not exist */
	CHECK(db_open("/nonexistent/dir/h.db", DB_WRITE, &d, err, sizeof(err)) < 0 &&
	      strstr(err, "/nonexistent/dir/h.db"), "missing dir: %s", err);

	CHECK(db_parse_id("12") == 12 && db_parse_id("#7") == 7 && db_parse_id("x") < 0 &&
	      db_parse_id("0") < 0 && db_parse_id("") < 0 && db_parse_id("1234567890123456") < 0,
	      "ids");

	result_free(&r1);
	result_free(&r2);
	snprintf(sql, sizeof(sql), "rm -rf '%s'", dir);
	CHECK(system(sql) == 0, "cleanup");
	return t_done("test_db");
}
