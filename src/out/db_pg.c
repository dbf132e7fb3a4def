/* SPDX-License-Identifier: MIT */
/* History in a shared PostgreSQL database (libpq), for a fleet of hosts
 * reporting to one place. Same tables and columns as db_sqlite.c
 * (docs/history.md); migrations run under a transaction-scoped advisory
 * lock so that two hosts upgrading at once do not race, and every run is
 * written in one transaction. */
#include "out/db.h"
#include "sys/sys.h"

#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpq is loaded the first time a postgresql:// database is used, not
 * linked: it brings some twenty libraries (TLS, Kerberos, LDAP) whose
 * mappings every fork would copy, and proc.fork measures fork. */
static struct {
	void *h;
	PGconn *(*connectdb)(const char *);
	ConnStatusType (*status)(const PGconn *);
	char *(*errormessage)(const PGconn *);
	void (*finish)(PGconn *);
	PGresult *(*exec)(PGconn *, const char *);
	PGresult *(*execparams)(PGconn *, const char *, int, const Oid *, const char *const *,
				const int *, const int *, int);
	ExecStatusType (*resultstatus)(const PGresult *);
	void (*clear)(PGresult *);
	int (*ntuples)(const PGresult *);
	char *(*getvalue)(const PGresult *, int, int);
	int (*getisnull)(const PGresult *, int, int);
} pq;

static int pq_load(char *err, size_t errlen)
{
	static const struct db_sym syms[] = {
		{"PQconnectdb", (void **)&pq.connectdb}, {"PQstatus", (void **)&pq.status},
		{"PQerrorMessage", (void **)&pq.errormessage}, {"PQfinish", (void **)&pq.finish},
		{"PQexec", (void **)&pq.exec}, {"PQexecParams", (void **)&pq.execparams},
		{"PQresultStatus", (void **)&pq.resultstatus}, {"PQclear", (void **)&pq.clear},
		{"PQntuples", (void **)&pq.ntuples}, {"PQgetvalue", (void **)&pq.getvalue},
		{"PQgetisnull", (void **)&pq.getisnull},
	};
	return db_load_lib(&pq.h, "libpq.so.5", "PostgreSQL", "libpq5", syms,
			   (int)(sizeof(syms) / sizeof(syms[0])), err, errlen);
}
#define PQconnectdb pq.connectdb
#define PQstatus pq.status
#define PQerrorMessage pq.errormessage
#define PQfinish pq.finish
#define PQexec pq.exec
#define PQexecParams pq.execparams
#define PQresultStatus pq.resultstatus
#define PQclear pq.clear
#define PQntuples pq.ntuples
#define PQgetvalue pq.getvalue
#define PQgetisnull pq.getisnull

#define MIGRATION_LOCK "7435120551"

static const char *const migrations[] = {
	"CREATE TABLE runs ("
	" id BIGSERIAL PRIMARY KEY,"
	" started TEXT NOT NULL, finished TEXT, stored TEXT NOT NULL,"
	" host TEXT NOT NULL, kernel TEXT, fs_type TEXT, tool_version TEXT,"
	" command_line TEXT, schema_version INTEGER NOT NULL, interrupted INTEGER NOT NULL,"
	" duration_s DOUBLE PRECISION, document TEXT NOT NULL);"
	"CREATE INDEX runs_started ON runs(started);"
	"CREATE INDEX runs_host ON runs(host);"
	"CREATE TABLE benches ("
	" run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL,"
	" status TEXT NOT NULL, verdict TEXT, exponent DOUBLE PRECISION,"
	" exponent_lo DOUBLE PRECISION, exponent_hi DOUBLE PRECISION, ratio DOUBLE PRECISION,"
	" PRIMARY KEY (run_id, idx));"
	"CREATE INDEX benches_name ON benches(name);"
	"CREATE TABLE points ("
	" run_id BIGINT NOT NULL, bench_idx INTEGER NOT NULL, rep INTEGER NOT NULL,"
	" idx INTEGER NOT NULL, n BIGINT NOT NULL, samples BIGINT, batch INTEGER,"
	" min_ns DOUBLE PRECISION, mean_ns DOUBLE PRECISION, p50_ns DOUBLE PRECISION,"
	" p90_ns DOUBLE PRECISION, p99_ns DOUBLE PRECISION, p999_ns DOUBLE PRECISION,"
	" max_ns DOUBLE PRECISION, cv DOUBLE PRECISION, stop TEXT,"
	" PRIMARY KEY (run_id, bench_idx, rep, idx),"
	" FOREIGN KEY (run_id, bench_idx) REFERENCES benches(run_id, idx) ON DELETE CASCADE);",
};
#define NMIGRATIONS (int)(sizeof(migrations) / sizeof(migrations[0]))

/* Trims libpq's trailing newline. */
static int fail(PGconn *c, const char *what, char *err, size_t errlen)
{
	const char *m = c ? PQerrorMessage(c) : "out of memory";
	size_t l = strlen(m);
	while (l && (m[l - 1] == '\n' || m[l - 1] == ' '))
		l--;
	snprintf(err, errlen, "%s: %.*s", what, (int)l, m);
	return -1;
}

static int cmd(PGconn *c, const char *sql, const char *what, char *err, size_t errlen)
{
	PGresult *res = PQexec(c, sql);
	int ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
	PQclear(res);
	return ok ? 0 : fail(c, what, err, errlen);
}

/* Runs a parameterized statement; NULL entries of v are SQL NULL. */
static PGresult *params(PGconn *c, const char *sql, int n, const char *const *v)
{
	return PQexecParams(c, sql, n, NULL, v, NULL, NULL, 0);
}

static int migrate(PGconn *c, char *err, size_t errlen)
{
	if (cmd(c, "BEGIN", "begin", err, errlen))
		return -1;
	if (cmd(c, "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ")", "lock", err, errlen) ||
	    cmd(c, "SET LOCAL client_min_messages = warning", "set", err, errlen) ||
	    cmd(c, "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
		   " applied TEXT NOT NULL)", "create schema_migrations", err, errlen))
		goto rollback;
	PGresult *res = PQexec(c, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
	int have = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1
			   ? atoi(PQgetvalue(res, 0, 0)) : -1;
	PQclear(res);
	if (have < 0) {
		fail(c, "read schema version", err, errlen);
		goto rollback;
	}
	if (have > NMIGRATIONS) {
		snprintf(err, errlen, "schema version %d is newer than this scalebench's (%d)", have,
			 NMIGRATIONS);
		goto rollback;
	}
	for (int v = have; v < NMIGRATIONS; v++) {
		char ver[16], now[40];
		snprintf(ver, sizeof(ver), "%d", v + 1);
		sys_iso_utc(NULL, 0, now, sizeof(now));
		const char *pv[] = {ver, now};
		if (cmd(c, migrations[v], "migrate", err, errlen))
			goto rollback;
		res = params(c, "INSERT INTO schema_migrations VALUES ($1, $2)", 2, pv);
		int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
		PQclear(res);
		if (!ok) {
			fail(c, "record migration", err, errlen);
			goto rollback;
		}
	}
	return cmd(c, "COMMIT", "commit migration", err, errlen);
rollback:
	PQclear(PQexec(c, "ROLLBACK"));
	return -1;
}

static int pg_open(struct db *d, const char *target, int create, char *err, size_t errlen)
{
	(void)create; /* the server's database exists; its tables are made on first use */
	if (pq_load(err, errlen))
		return -1;
	PGconn *c = PQconnectdb(target);
	if (!c || PQstatus(c) != CONNECTION_OK) {
		fail(c, "connect", err, errlen);
		PQfinish(c);
		return -1;
	}
	if (migrate(c, err, errlen)) {
		PQfinish(c);
		return -1;
	}
	d->impl = c;
	return 0;
}

static void pg_close(struct db *d)
{
	PQfinish(d->impl);
}

/* Formats v into buf ("%.17g"), or NULL when not finite. */
static const char *real(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		return NULL;
	snprintf(buf, len, "%.17g", v);
	return buf;
}

static int insert(PGconn *c, const char *sql, int n, const char *const *v, const char *what,
		  char *err, size_t errlen)
{
	PGresult *res = params(c, sql, n, v);
	int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	PQclear(res);
	return ok ? 0 : fail(c, what, err, errlen);
}

static int store_bench(PGconn *c, const char *id, int i, const struct bench_result *br,
		       char *err, size_t errlen)
{
	char idx[16], ver[16], e[4][32];
	snprintf(idx, sizeof(idx), "%d", i);
	snprintf(ver, sizeof(ver), "%d", br->version);
	const char *bv[] = {id, idx, br->name, ver, bench_status_name(br->status),
			    growth_name(br->v.cls), real(br->v.exponent, e[0], 32),
			    real(br->v.exp_lo, e[1], 32), real(br->v.exp_hi, e[2], 32),
			    real(br->v.ratio, e[3], 32)};
	if (insert(c, "INSERT INTO benches VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)", 10, bv,
		   "insert bench", err, errlen))
		return -1;
	for (int k = 0; k < br->nreps; k++)
		for (int j = 0; j < br->reps[k].npts; j++) {
			const struct point *p = &br->reps[k].pts[j];
			char rep[16], pj[16], n[24], smp[24], bat[16], s[9][32];
			snprintf(rep, sizeof(rep), "%d", k);
			snprintf(pj, sizeof(pj), "%d", j);
			snprintf(n, sizeof(n), "%llu", (unsigned long long)p->n);
			snprintf(smp, sizeof(smp), "%llu", (unsigned long long)p->samples);
			snprintf(bat, sizeof(bat), "%u", p->batch);
			const char *pv[] = {id, idx, rep, pj, n, smp, bat,
					    real(p->st.min, s[0], 32), real(p->st.mean, s[1], 32),
					    real(p->st.p50, s[2], 32), real(p->st.p90, s[3], 32),
					    real(p->st.p99, s[4], 32), real(p->st.p999, s[5], 32),
					    real(p->st.max, s[6], 32), real(p->st.cv, s[7], 32),
					    point_stop_name(p->stop)};
			if (insert(c, "INSERT INTO points VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,"
				      "$11,$12,$13,$14,$15,$16)", 16, pv, "insert point", err,
				   errlen))
				return -1;
		}
	return 0;
}

static int pg_store(struct db *d, const struct run_result *r, const char *doc, int64_t *id,
		    char *err, size_t errlen)
{
	PGconn *c = d->impl;
	struct db_run m;
	db_run_meta(r, &m);
	char now[40], sv[16], intr[4], dur[32], *cl = db_join_argv(r);
	if (!cl)
		return fail(NULL, "store", err, errlen);
	sys_iso_utc(NULL, 0, now, sizeof(now));
	snprintf(sv, sizeof(sv), "%d", r->schema_version);
	snprintf(intr, sizeof(intr), "%d", r->interrupted ? 1 : 0);
	const char *v[] = {m.started, r->finished, now, m.host, m.kernel, m.fs_type,
			   m.tool_version, cl, sv, intr, real(r->duration_s, dur, sizeof(dur)), doc};
	if (cmd(c, "BEGIN", "begin", err, errlen)) {
		free(cl);
		return -1;
	}
	int rc = -1;
	PGresult *res = params(c, "INSERT INTO runs (started, finished, stored, host, kernel,"
				  " fs_type, tool_version, command_line, schema_version, interrupted,"
				  " duration_s, document) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)"
				  " RETURNING id", 12, v);
	free(cl);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		fail(c, "insert run", err, errlen);
		PQclear(res);
		goto out;
	}
	char idbuf[24];
	snprintf(idbuf, sizeof(idbuf), "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	*id = strtoll(idbuf, NULL, 10);
	for (int i = 0; i < r->nbenches; i++)
		if (store_bench(c, idbuf, i, &r->benches[i], err, errlen))
			goto out;
	rc = cmd(c, "COMMIT", "commit", err, errlen);
out:
	if (rc)
		PQclear(PQexec(c, "ROLLBACK"));
	return rc;
}

static void col(PGresult *res, int row, int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s", PQgetisnull(res, row, i) ? "" : PQgetvalue(res, row, i));
}

static int pg_list(struct db *d, const struct db_filter *f,
		   int (*fn)(void *ctx, const struct db_run *row), void *ctx, char *err,
		   size_t errlen)
{
	PGconn *c = d->impl;
	char lim[24];
	snprintf(lim, sizeof(lim), "%lld", (long long)(f->limit > 0 ? f->limit : INT64_MAX));
	const char *v[] = {f->bench, f->host, f->since, lim, f->kernel, f->fs_type};
	PGresult *res = params(
		c,
		"SELECT r.id, r.started, r.stored, r.host, r.kernel, r.fs_type, r.tool_version,"
		" r.command_line, r.interrupted,"
		" (SELECT COUNT(*) FROM benches b WHERE b.run_id = r.id),"
		" (SELECT string_agg(name, ' ' ORDER BY idx) FROM benches b WHERE b.run_id = r.id)"
		" FROM runs r"
		" WHERE ($1::text IS NULL OR EXISTS (SELECT 1 FROM benches b WHERE b.run_id = r.id"
		"        AND b.name = $1))"
		"   AND ($2::text IS NULL OR r.host = $2) AND ($3::text IS NULL OR r.started >= $3)"
		"   AND ($5::text IS NULL OR r.kernel = $5) AND ($6::text IS NULL OR r.fs_type = $6)"
		" ORDER BY r.started DESC, r.id DESC LIMIT $4::bigint",
		6, v);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		fail(c, "list", err, errlen);
		PQclear(res);
		return -1;
	}
	for (int i = 0, n = PQntuples(res); i < n; i++) {
		struct db_run m;
		memset(&m, 0, sizeof(m));
		m.id = strtoll(PQgetvalue(res, i, 0), NULL, 10);
		col(res, i, 1, m.started, sizeof(m.started));
		col(res, i, 2, m.stored, sizeof(m.stored));
		col(res, i, 3, m.host, sizeof(m.host));
		col(res, i, 4, m.kernel, sizeof(m.kernel));
		col(res, i, 5, m.fs_type, sizeof(m.fs_type));
		col(res, i, 6, m.tool_version, sizeof(m.tool_version));
		col(res, i, 7, m.command_line, sizeof(m.command_line));
		m.interrupted = atoi(PQgetvalue(res, i, 8));
		m.nbenches = atoi(PQgetvalue(res, i, 9));
		col(res, i, 10, m.benches, sizeof(m.benches));
		if (fn(ctx, &m))
			break;
	}
	PQclear(res);
	return 0;
}

static int pg_get(struct db *d, int64_t id, char **doc, char *err, size_t errlen)
{
	PGconn *c = d->impl;
	char idbuf[24];
	snprintf(idbuf, sizeof(idbuf), "%lld", (long long)id);
	const char *v[] = {idbuf};
	*doc = NULL;
	PGresult *res = params(c, "SELECT document FROM runs WHERE id = $1::bigint", 1, v);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		fail(c, "get", err, errlen);
	else if (PQntuples(res) != 1)
		snprintf(err, errlen, "no run %lld (see `scalebench history`)", (long long)id);
	else if (!(*doc = strdup(PQgetvalue(res, 0, 0))))
		snprintf(err, errlen, "run %lld: out of memory", (long long)id);
	PQclear(res);
	return *doc ? 0 : -1;
}

const struct db_ops db_pg_ops = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.store = pg_store,
	.list = pg_list,
	.get = pg_get,
};
