/* SPDX-License-Identifier: MIT */
/* History in an embedded SQLite file. WAL journal and a busy timeout, so
 * that concurrent runs wait for each other instead of failing; every
 * write in one BEGIN IMMEDIATE transaction, so a crash mid-write rolls
 * back on the next open. Schema: docs/history.md (same as db_pg.c). */
#include "out/db.h"
#include "sys/sys.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUSY_TIMEOUT_MS 30000

/* SQLite is loaded the first time a history database is opened, after the
 * benches have run, not linked: its 1.3 MiB made every fork of the process
 * ~5% dearer on the machine the docs were written on, and proc.fork
 * measures fork of this process (docs/benches.md, "The forking process").
 * The functions keep their names (macros below) and their types (taken
 * from sqlite3.h). */
#define SQ_FUNCS(X)                                                                        \
	X(open_v2) X(close) X(busy_timeout) X(extended_result_codes) X(errmsg) X(exec)     \
	X(prepare_v2) X(step) X(finalize) X(reset) X(clear_bindings) X(bind_int)           \
	X(bind_int64) X(bind_double) X(bind_null) X(bind_text) X(column_int)               \
	X(column_int64) X(column_text) X(last_insert_rowid)
static struct {
	void *h;
#define X(f) __typeof__(sqlite3_##f) *f;
	SQ_FUNCS(X)
#undef X
} sq;

static int sq_load(char *err, size_t errlen)
{
	static const struct db_sym syms[] = {
#define X(f) {"sqlite3_" #f, (void **)&sq.f},
		SQ_FUNCS(X)
#undef X
	};
	return db_load_lib(&sq.h, "libsqlite3.so.0", "SQLite", "libsqlite3-0", syms,
			   (int)(sizeof(syms) / sizeof(syms[0])), err, errlen);
}
#define sqlite3_open_v2 sq.open_v2
#define sqlite3_close sq.close
#define sqlite3_busy_timeout sq.busy_timeout
#define sqlite3_extended_result_codes sq.extended_result_codes
#define sqlite3_errmsg sq.errmsg
#define sqlite3_exec sq.exec
#define sqlite3_prepare_v2 sq.prepare_v2
#define sqlite3_step sq.step
#define sqlite3_finalize sq.finalize
#define sqlite3_reset sq.reset
#define sqlite3_clear_bindings sq.clear_bindings
#define sqlite3_bind_int sq.bind_int
#define sqlite3_bind_int64 sq.bind_int64
#define sqlite3_bind_double sq.bind_double
#define sqlite3_bind_null sq.bind_null
#define sqlite3_bind_text sq.bind_text
#define sqlite3_column_int sq.column_int
#define sqlite3_column_int64 sq.column_int64
#define sqlite3_column_text sq.column_text
#define sqlite3_last_insert_rowid sq.last_insert_rowid

/* Migration k brings the schema from version k to k+1. Never edit one
 * that has shipped: append. */
static const char *const migrations[] = {
	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" started TEXT NOT NULL, finished TEXT, stored TEXT NOT NULL,"
	" host TEXT NOT NULL, kernel TEXT, fs_type TEXT, tool_version TEXT,"
	" command_line TEXT, schema_version INTEGER NOT NULL, interrupted INTEGER NOT NULL,"
	" duration_s REAL, document TEXT NOT NULL);"
	"CREATE INDEX runs_started ON runs(started);"
	"CREATE INDEX runs_host ON runs(host);"
	"CREATE TABLE benches ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL,"
	" status TEXT NOT NULL, verdict TEXT, exponent REAL, exponent_lo REAL,"
	" exponent_hi REAL, ratio REAL, PRIMARY KEY (run_id, idx));"
	"CREATE INDEX benches_name ON benches(name);"
	"CREATE TABLE points ("
	" run_id INTEGER NOT NULL, bench_idx INTEGER NOT NULL, rep INTEGER NOT NULL,"
	" idx INTEGER NOT NULL, n INTEGER NOT NULL, samples INTEGER, batch INTEGER,"
	" min_ns REAL, mean_ns REAL, p50_ns REAL, p90_ns REAL, p99_ns REAL, p999_ns REAL,"
	" max_ns REAL, cv REAL, stop TEXT,"
	" PRIMARY KEY (run_id, bench_idx, rep, idx),"
	" FOREIGN KEY (run_id, bench_idx) REFERENCES benches(run_id, idx) ON DELETE CASCADE);",
};
#define NMIGRATIONS (int)(sizeof(migrations) / sizeof(migrations[0]))

static int fail(sqlite3 *h, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", what, h ? sqlite3_errmsg(h) : "out of memory");
	return -1;
}

static int exec(sqlite3 *h, const char *sql, const char *what, char *err, size_t errlen)
{
	return sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : fail(h, what, err, errlen);
}

static int migrate(sqlite3 *h, char *err, size_t errlen)
{
	if (exec(h, "BEGIN IMMEDIATE", "begin", err, errlen))
		return -1;
	if (exec(h, "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
		    " applied TEXT NOT NULL)", "create schema_migrations", err, errlen))
		goto rollback;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", -1,
			       &st, NULL) != SQLITE_OK) {
		fail(h, "read schema version", err, errlen);
		goto rollback;
	}
	int have = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (have < 0 || have > NMIGRATIONS) {
		snprintf(err, errlen, "schema version %d is newer than this scalebench's (%d)", have,
			 NMIGRATIONS);
		goto rollback;
	}
	for (int v = have; v < NMIGRATIONS; v++) {
		char buf[128], now[40];
		sys_iso_utc(NULL, 0, now, sizeof(now));
		snprintf(buf, sizeof(buf), "INSERT INTO schema_migrations VALUES (%d, '%s')", v + 1,
			 now);
		if (exec(h, migrations[v], "migrate", err, errlen) ||
		    exec(h, buf, "record migration", err, errlen))
			goto rollback;
	}
	return exec(h, "COMMIT", "commit migration", err, errlen);
rollback:
	sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

static int sq_open(struct db *d, const char *target, int create, char *err, size_t errlen)
{
	sqlite3 *h = NULL;
	if (sq_load(err, errlen))
		return -1;
	if (!create && access(target, F_OK)) {
		snprintf(err, errlen, "no history database here (nothing stored yet? see --db)");
		return -1;
	}
	if (sqlite3_open_v2(target, &h, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0),
			    NULL) != SQLITE_OK) {
		fail(h, "open", err, errlen);
		sqlite3_close(h);
		return -1;
	}
	sqlite3_busy_timeout(h, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(h, 1);
	/* journal_mode returns a row: exec ignores it. A file that is not a
	 * database fails here with "file is not a database". */
	if (exec(h, "PRAGMA journal_mode=WAL", "set WAL mode", err, errlen) ||
	    exec(h, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL", "pragma", err, errlen) ||
	    migrate(h, err, errlen)) {
		sqlite3_close(h);
		return -1;
	}
	d->impl = h;
	return 0;
}

static void sq_close(struct db *d)
{
	sqlite3_close(d->impl);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static int step_done(sqlite3 *h, sqlite3_stmt *st, const char *what, char *err, size_t errlen)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : fail(h, what, err, errlen);
}

static int store_benches(sqlite3 *h, int64_t id, const struct run_result *r, char *err,
			 size_t errlen)
{
	sqlite3_stmt *b = NULL, *p = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(h, "INSERT INTO benches VALUES (?,?,?,?,?,?,?,?,?,?)", -1, &b,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "INSERT INTO points VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &p, NULL) != SQLITE_OK) {
		fail(h, "prepare", err, errlen);
		goto out;
	}
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *br = &r->benches[i];
		sqlite3_bind_int64(b, 1, id);
		sqlite3_bind_int(b, 2, i);
		bind_text(b, 3, br->name);
		sqlite3_bind_int(b, 4, br->version);
		bind_text(b, 5, bench_status_name(br->status));
		bind_text(b, 6, growth_name(br->v.cls));
		bind_real(b, 7, br->v.exponent);
		bind_real(b, 8, br->v.exp_lo);
		bind_real(b, 9, br->v.exp_hi);
		bind_real(b, 10, br->v.ratio);
		if (step_done(h, b, "insert bench", err, errlen))
			goto out;
		for (int k = 0; k < br->nreps; k++)
			for (int j = 0; j < br->reps[k].npts; j++) {
				const struct point *pt = &br->reps[k].pts[j];
				sqlite3_bind_int64(p, 1, id);
				sqlite3_bind_int(p, 2, i);
				sqlite3_bind_int(p, 3, k);
				sqlite3_bind_int(p, 4, j);
				sqlite3_bind_int64(p, 5, (sqlite3_int64)pt->n);
				sqlite3_bind_int64(p, 6, (sqlite3_int64)pt->samples);
				sqlite3_bind_int(p, 7, (int)pt->batch);
				bind_real(p, 8, pt->st.min);
				bind_real(p, 9, pt->st.mean);
				bind_real(p, 10, pt->st.p50);
				bind_real(p, 11, pt->st.p90);
				bind_real(p, 12, pt->st.p99);
				bind_real(p, 13, pt->st.p999);
				bind_real(p, 14, pt->st.max);
				bind_real(p, 15, pt->st.cv);
				bind_text(p, 16, point_stop_name(pt->stop));
				if (step_done(h, p, "insert point", err, errlen))
					goto out;
			}
	}
	rc = 0;
out:
	sqlite3_finalize(b);
	sqlite3_finalize(p);
	return rc;
}

static int sq_store(struct db *d, const struct run_result *r, const char *doc, int64_t *id,
		    char *err, size_t errlen)
{
	sqlite3 *h = d->impl;
	struct db_run m;
	db_run_meta(r, &m);
	char now[40], *cmd = db_join_argv(r);
	sys_iso_utc(NULL, 0, now, sizeof(now));
	if (!cmd)
		return fail(NULL, "store", err, errlen);
	if (exec(h, "BEGIN IMMEDIATE", "begin", err, errlen)) {
		free(cmd);
		return -1;
	}
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(h, "INSERT INTO runs (started, finished, stored, host, kernel,"
				  " fs_type, tool_version, command_line, schema_version,"
				  " interrupted, duration_s, document)"
				  " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		fail(h, "prepare", err, errlen);
		goto out;
	}
	bind_text(st, 1, m.started);
	bind_text(st, 2, r->finished);
	bind_text(st, 3, now);
	bind_text(st, 4, m.host);
	bind_text(st, 5, m.kernel);
	bind_text(st, 6, m.fs_type);
	bind_text(st, 7, m.tool_version);
	bind_text(st, 8, cmd);
	sqlite3_bind_int(st, 9, r->schema_version);
	sqlite3_bind_int(st, 10, r->interrupted);
	bind_real(st, 11, r->duration_s);
	bind_text(st, 12, doc);
	if (step_done(h, st, "insert run", err, errlen))
		goto out;
	*id = sqlite3_last_insert_rowid(h);
	if (store_benches(h, *id, r, err, errlen))
		goto out;
	rc = exec(h, "COMMIT", "commit", err, errlen);
out:
	sqlite3_finalize(st);
	free(cmd);
	if (rc)
		sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static void col(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	snprintf(buf, len, "%s", t ? (const char *)t : "");
}

static int sq_list(struct db *d, const struct db_filter *f,
		   int (*fn)(void *ctx, const struct db_run *row), void *ctx, char *err,
		   size_t errlen)
{
	sqlite3 *h = d->impl;
	sqlite3_stmt *st;
	const char *sql =
		"SELECT r.id, r.started, r.stored, r.host, r.kernel, r.fs_type, r.tool_version,"
		" r.command_line, r.interrupted,"
		" (SELECT COUNT(*) FROM benches b WHERE b.run_id = r.id),"
		" (SELECT group_concat(name, ' ') FROM"
		"   (SELECT name FROM benches b WHERE b.run_id = r.id ORDER BY idx))"
		" FROM runs r"
		" WHERE (?1 IS NULL OR EXISTS (SELECT 1 FROM benches b WHERE b.run_id = r.id"
		"        AND b.name = ?1))"
		"   AND (?2 IS NULL OR r.host = ?2) AND (?3 IS NULL OR r.started >= ?3)"
		"   AND (?5 IS NULL OR r.kernel = ?5) AND (?6 IS NULL OR r.fs_type = ?6)"
		" ORDER BY r.started DESC, r.id DESC LIMIT ?4";
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(h, "list", err, errlen);
	bind_text(st, 1, f->bench);
	bind_text(st, 2, f->host);
	bind_text(st, 3, f->since);
	sqlite3_bind_int64(st, 4, f->limit > 0 ? f->limit : -1);
	bind_text(st, 5, f->kernel);
	bind_text(st, 6, f->fs_type);
	int rc, stop = 0;
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_run m;
		memset(&m, 0, sizeof(m));
		m.id = sqlite3_column_int64(st, 0);
		col(st, 1, m.started, sizeof(m.started));
		col(st, 2, m.stored, sizeof(m.stored));
		col(st, 3, m.host, sizeof(m.host));
		col(st, 4, m.kernel, sizeof(m.kernel));
		col(st, 5, m.fs_type, sizeof(m.fs_type));
		col(st, 6, m.tool_version, sizeof(m.tool_version));
		col(st, 7, m.command_line, sizeof(m.command_line));
		m.interrupted = sqlite3_column_int(st, 8);
		m.nbenches = sqlite3_column_int(st, 9);
		col(st, 10, m.benches, sizeof(m.benches));
		stop = fn(ctx, &m);
	}
	if (!stop && rc != SQLITE_DONE) {
		fail(h, "list", err, errlen);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int sq_get(struct db *d, int64_t id, char **doc, char *err, size_t errlen)
{
	sqlite3 *h = d->impl;
	sqlite3_stmt *st;
	*doc = NULL;
	if (sqlite3_prepare_v2(h, "SELECT document FROM runs WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return fail(h, "get", err, errlen);
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		if (!t)
			snprintf(err, errlen, "run %lld: stored document is empty", (long long)id);
		else if (!(*doc = strdup((const char *)t)))
			snprintf(err, errlen, "run %lld: out of memory", (long long)id);
	} else if (rc == SQLITE_DONE) {
		snprintf(err, errlen, "no run %lld (see `scalebench history`)", (long long)id);
	} else {
		fail(h, "get", err, errlen);
	}
	sqlite3_finalize(st);
	return *doc ? 0 : -1;
}

const struct db_ops db_sqlite_ops = {
	.name = "sqlite",
	.open = sq_open,
	.close = sq_close,
	.store = sq_store,
	.list = sq_list,
	.get = sq_get,
};
