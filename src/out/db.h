/* SPDX-License-Identifier: MIT */
/* The history database: every run's result, stored with searchable
 * metadata beside the full JSON document. Two backends behind one small
 * interface, chosen by the spelling of the target:
 *   "postgresql://..." or "postgres://..."  -> PostgreSQL (db_pg.c, libpq)
 *   anything else                          -> a SQLite file (db_sqlite.c)
 * Both hold the same schema (docs/history.md), versioned by a
 * schema_migrations table; a run is written in one transaction, so a crash
 * or a signal mid-write leaves the database as it was. */
#ifndef SB_DB_H
#define SB_DB_H

#include <stddef.h>
#include <stdint.h>
#include "core/result.h"

#define DB_SCHEMA_VERSION 1

struct db;

/* One row of `history`. */
struct db_run {
	int64_t id;
	char started[40], host[128], kernel[128], fs_type[32], tool_version[32];
	char stored[40];
	int nbenches, interrupted;
	char command_line[256];
	char benches[256]; /* "fs.create fs.open ..." (truncated) */
};

struct db_filter {
	const char *bench; /* runs holding this bench */
	const char *host;
	const char *kernel;  /* the snapshot's kernel release, exactly */
	const char *fs_type; /* the snapshot's file system type of --dir */
	const char *since; /* ISO 8601 prefix, compared as text: "2026-12-01" */
	int64_t limit;     /* 0: all */
};

/* Per-backend operations; err names the database and what failed. */
struct db_ops {
	const char *name;
	/* create: make the database if it does not exist (writers only) */
	int (*open)(struct db *d, const char *target, int create, char *err, size_t errlen);
	void (*close)(struct db *d);
	/* Stores r (and doc, its JSON text) in one transaction; *id = new run id. */
	int (*store)(struct db *d, const struct run_result *r, const char *doc, int64_t *id,
		     char *err, size_t errlen);
	/* Calls fn for each matching run, newest first. */
	int (*list)(struct db *d, const struct db_filter *f,
		    int (*fn)(void *ctx, const struct db_run *row), void *ctx, char *err,
		    size_t errlen);
	/* The stored JSON document of run id (malloc'd), or -1 and err. */
	int (*get)(struct db *d, int64_t id, char **doc, char *err, size_t errlen);
};

struct db {
	const struct db_ops *ops;
	char label[256]; /* the path or URL without its password, for messages */
	void *impl;
};

extern const struct db_ops db_sqlite_ops, db_pg_ops;

/* $XDG_DATA_HOME/scalebench/results.db, else ~/.local/share/scalebench/results.db.
 * Returns -1 when neither variable is set. */
int db_default_path(char *buf, size_t len);
/* Opens target (NULL: the default path). DB_WRITE creates the database
 * (and the default path's directory) when missing; DB_READ refuses a
 * database that does not exist, saying so. */
enum db_mode { DB_READ = 0, DB_WRITE = 1 };
int db_open(const char *target, enum db_mode mode, struct db **out, char *err, size_t errlen);
void db_close(struct db *d);
int db_store(struct db *d, const struct run_result *r, int64_t *id, char *err, size_t errlen);
int db_list(struct db *d, const struct db_filter *f,
	    int (*fn)(void *ctx, const struct db_run *row), void *ctx, char *err, size_t errlen);
/* Reads run id back into r, validating the stored document like a file;
 * with doc non-NULL, also gives the parsed document (caller decrefs). */
int db_get_result(struct db *d, int64_t id, struct run_result *r, json_t **doc, char *err,
		  size_t errlen);
int db_get_doc(struct db *d, int64_t id, char **doc, char *err, size_t errlen);

/* Helpers shared by the backends. */
void db_run_meta(const struct run_result *r, struct db_run *m); /* fills all but id/stored */
/* The text of the run's command line, space separated (malloc'd). */
char *db_join_argv(const struct run_result *r);
/* "12" -> 12; -1 if s is not a positive decimal id. */
int64_t db_parse_id(const char *s);
/* A client library a backend loads (dlopen) the first time it is used
 * rather than links, to keep it out of the process proc.fork forks: once
 * *handle is set, 0; else dlopen soname and resolve every symbol into its
 * slot; -1 and err naming `what`, the library and its Debian package. */
struct db_sym {
	const char *name;
	void **slot; /* (void **)&table.function */
};
int db_load_lib(void **handle, const char *soname, const char *what, const char *package,
		const struct db_sym *syms, int nsyms, char *err, size_t errlen);

/* A result named on a command line: an existing file, else a history id
 * (a number, or "#12") looked up in dbspec (NULL: the default database).
 * FILE@TARGET or ID@TARGET: one file system of a matrix result, its
 * benches and snapshot as a run with --dir there would have them (so two
 * file systems of one matrix can be compared). label receives a short
 * name for tables and legends. */
int result_load_spec(const char *spec, const char *dbspec, struct run_result *r, char *label,
		     size_t labellen, char *err, size_t errlen);

#endif
