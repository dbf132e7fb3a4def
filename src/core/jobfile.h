/* SPDX-License-Identifier: MIT */
/* Job files (docs/studies.md): the text of `scalebench run FILE.job`, read
 * into sections of key = value lines, every line remembered with its file
 * and line number so that whatever later refuses a key can name where it
 * was written. This layer knows the syntax only (sections, comments,
 * include, variables); which keys exist and what their values may be is
 * the commands' business (src/cmd/jobrun.c). */
#ifndef SB_JOBFILE_H
#define SB_JOBFILE_H

#include <stddef.h>

/* Limits, each far above any real job file and each an error when passed:
 * a line's length in bytes, the depth of nested includes, the number of
 * sections and of keys in one section. */
#define JOBFILE_LINE_MAX 4096
#define JOBFILE_INCLUDE_DEPTH 16
#define JOBFILE_SECTIONS_MAX 256
#define JOBFILE_KEYS_MAX 128

struct jobkv {
	char *key, *value; /* value: variables expanded; "" for a bare key */
	char *file;        /* where it was written (as the including file named it) */
	int line;
};

struct jobsec {
	char *name;        /* "global" for [global] */
	char *file;
	int line;
	struct jobkv *kv;
	int nkv;
};

struct jobfile {
	struct jobsec *sec; /* in file order, included files where included */
	int nsec;
};

/* A variable's value ($name or ${name}), or NULL when it has none. */
typedef const char *(*jobfile_lookup)(void *ctx, const char *name);

/* Reads path (and the files it includes) into jf. Syntax:
 *   # or ; at the start of a line: a comment; blank lines are skipped
 *   [name]        a section (letters, digits, . _ -; each name once)
 *   key = value   in a section (a key once per section); "key" alone: ""
 *   include PATH  the lines of PATH here (relative to the including file)
 *   $name ${name} in a value: lookup(ctx, name); $$ is one $
 * 0, or -1 with "FILE:LINE: what" in err (jf then empty). */
int jobfile_load(const char *path, jobfile_lookup lookup, void *ctx, struct jobfile *jf,
		 char *err, size_t errlen);
/* The same over text in memory, named name in messages; includes are
 * relative to the working directory. For tests and the fuzzer. */
int jobfile_parse(const char *name, const char *text, size_t len, jobfile_lookup lookup,
		  void *ctx, struct jobfile *jf, char *err, size_t errlen);
void jobfile_free(struct jobfile *jf);

/* The section named name, or NULL. */
const struct jobsec *jobfile_section(const struct jobfile *jf, const char *name);
/* The key's entry in s, or NULL. */
const struct jobkv *jobsec_get(const struct jobsec *s, const char *key);

#endif
