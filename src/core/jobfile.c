/* SPDX-License-Identifier: MIT */
/* Job files: the syntax, in the habit of fio's job files (docs/studies.md).
 *
 * Our own reader, not libinih: a job file needs `include` lines (fio's
 * form, a line with no '=', which inih's Debian build refuses, as it is
 * compiled without INI_ALLOW_NO_VALUE), a file and line for every error
 * in any included file (inih's handler knows a line number only, of the
 * file it is reading), and it must refuse what it does not understand:
 * inih's build splits a line longer than 200 bytes into two silently,
 * reads an indented line as the continuation of the previous value, and
 * goes on after an error. This file is 250 lines, fuzzed
 * (fuzz/fuzz_jobfile.c) and unit-tested (tests/unit/test_jobfile.c).
 *
 * Every error stops the reading and says FILE:LINE: what. Nothing here
 * knows a key; the commands check those (src/cmd/jobrun.c), with the
 * file and line each key carries. */
#include "core/jobfile.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A job file larger than this is not a job file (bytes). */
#define JOBFILE_SIZE_MAX (1u << 20)
/* A value after its variables are expanded, at most (bytes). */
#define JOBFILE_VALUE_MAX (4 * JOBFILE_LINE_MAX)

struct pstate {
	struct jobfile *jf;
	jobfile_lookup lookup;
	void *ctx;
	char *stack[JOBFILE_INCLUDE_DEPTH + 1]; /* the files being read (real paths), outermost first */
	int depth;
	int cur; /* section index, -1 before the first */
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 4, 5))) static int fail(struct pstate *ps, const char *file,
							int line, const char *fmt, ...)
{
	char what[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(ps->err, ps->errlen, "%.512s:%d: %s", file, line, what);
	return -1;
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	return s;
}

/* $name, ${name} and $$ in v, into out. 0 or -1 (message set). */
static int expand(struct pstate *ps, const char *file, int line, const char *v, char *out,
		  size_t outlen)
{
	size_t o = 0;
	for (const char *p = v; *p;) {
		const char *add = p;
		size_t alen = 1;
		char name[128];
		if (*p == '$') {
			const char *s = p + 1, *e;
			if (*s == '$') {
				alen = 1;
				p += 2;
				goto put;
			}
			int braced = *s == '{';
			if (braced)
				s++;
			for (e = s; (*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || *e == '_' ||
				    (e > s && *e >= '0' && *e <= '9');
			     e++)
				;
			if (e == s || (braced && *e != '}') || (size_t)(e - s) >= sizeof(name))
				return fail(ps, file, line, "a $ that names no variable (write $$ for a dollar "
						"sign, ${NAME} or $NAME for a variable)");
			memcpy(name, s, (size_t)(e - s));
			name[e - s] = 0;
			add = ps->lookup ? ps->lookup(ps->ctx, name) : NULL;
			if (!add)
				return fail(ps, file, line, "$%s: no such variable (scalebench's are $ncpus; "
						"any other is read from the environment, and %s is not set there)",
					    name, name);
			alen = strlen(add);
			p = e + braced;
		} else {
			p++;
		}
	put:
		if (o + alen >= outlen || o + alen >= JOBFILE_VALUE_MAX)
			return fail(ps, file, line, "the value is longer than %d bytes once its variables "
					"are expanded", JOBFILE_VALUE_MAX);
		memcpy(out + o, add, alen);
		o += alen;
	}
	out[o] = 0;
	return 0;
}

static int add_section(struct pstate *ps, const char *file, int line, const char *name)
{
	struct jobfile *jf = ps->jf;
	for (int i = 0; i < jf->nsec; i++)
		if (!strcmp(jf->sec[i].name, name)) {
			char first[600];
			snprintf(first, sizeof(first), "%s:%d", jf->sec[i].file, jf->sec[i].line);
			return fail(ps, file, line, "section [%s] given twice (first at %s)", name, first);
		}
	if (jf->nsec >= JOBFILE_SECTIONS_MAX)
		return fail(ps, file, line, "more than %d sections", JOBFILE_SECTIONS_MAX);
	struct jobsec *ns = realloc(jf->sec, (size_t)(jf->nsec + 1) * sizeof(*ns));
	if (!ns)
		return fail(ps, file, line, "out of memory");
	jf->sec = ns;
	struct jobsec *s = &jf->sec[jf->nsec];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	s->file = strdup(file);
	s->line = line;
	jf->nsec++;
	if (!s->name || !s->file)
		return fail(ps, file, line, "out of memory");
	ps->cur = jf->nsec - 1;
	return 0;
}

static int add_key(struct pstate *ps, const char *file, int line, const char *key, const char *value)
{
	struct jobsec *s = &ps->jf->sec[ps->cur];
	for (int i = 0; i < s->nkv; i++)
		if (!strcmp(s->kv[i].key, key)) {
			char first[600];
			snprintf(first, sizeof(first), "%s:%d", s->kv[i].file, s->kv[i].line);
			return fail(ps, file, line, "%s given twice in this section (first at %s)", key, first);
		}
	if (s->nkv >= JOBFILE_KEYS_MAX)
		return fail(ps, file, line, "more than %d keys in one section", JOBFILE_KEYS_MAX);
	struct jobkv *nk = realloc(s->kv, (size_t)(s->nkv + 1) * sizeof(*nk));
	if (!nk)
		return fail(ps, file, line, "out of memory");
	s->kv = nk;
	struct jobkv *kv = &s->kv[s->nkv++];
	kv->key = strdup(key);
	kv->value = strdup(value);
	kv->file = strdup(file);
	kv->line = line;
	if (!kv->key || !kv->value || !kv->file)
		return fail(ps, file, line, "out of memory");
	return 0;
}

static int load_file(struct pstate *ps, const char *path, const char *from, int fromline);

/* One line, already trimmed and not a comment. dir: the directory that
 * relative includes start from ("" for the working directory). */
static int parse_line(struct pstate *ps, const char *file, int line, const char *dir, char *s)
{
	static char val[JOBFILE_VALUE_MAX + 1];
	if (*s == '[') {
		size_t n = strlen(s);
		if (s[n - 1] != ']')
			return fail(ps, file, line, "a section header ends with ']'");
		s[n - 1] = 0;
		char *name = trim(s + 1);
		int ok = *name != 0;
		for (char *c = name; ok && *c; c++)
			ok = name_char(*c);
		if (!ok)
			return fail(ps, file, line, "[%s]: a section name is letters, digits, '.', '_' "
					"and '-'", name);
		return add_section(ps, file, line, name);
	}
	if (!strncmp(s, "include", 7) && (s[7] == ' ' || s[7] == '\t' || !s[7])) {
		char *p = trim(s + 7);
		if (!*p)
			return fail(ps, file, line, "include: which file?");
		if (expand(ps, file, line, p, val, sizeof(val)))
			return -1;
		char full[PATH_MAX];
		int n = val[0] == '/' || !*dir ? snprintf(full, sizeof(full), "%s", val)
					       : snprintf(full, sizeof(full), "%s/%s", dir, val);
		if (n < 0 || (size_t)n >= sizeof(full))
			return fail(ps, file, line, "include %.200s: path too long", val);
		return load_file(ps, full, file, line);
	}
	char *eq = strchr(s, '=');
	if (eq)
		*eq = 0;
	char *key = trim(s), *value = eq ? trim(eq + 1) : "";
	int ok = *key != 0;
	for (char *c = key; ok && *c; c++)
		ok = name_char(*c);
	if (!ok)
		return fail(ps, file, line, "'%s' is not a key (letters, digits, '.', '_', '-'), a "
				"[section] or an include line", key);
	if (ps->cur < 0)
		return fail(ps, file, line, "%s: outside any section (begin with [global] or [NAME])", key);
	if (expand(ps, file, line, value, val, sizeof(val)))
		return -1;
	return add_key(ps, file, line, key, val);
}

static int parse_text(struct pstate *ps, const char *file, const char *dir, const char *text,
		      size_t len)
{
	char buf[JOBFILE_LINE_MAX + 2];
	if (memchr(text, 0, len))
		return fail(ps, file, 1, "not a text file (it holds a NUL byte)");
	int line = 0;
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		line++;
		if (n && text[at + n - 1] == '\r')
			n--;
		if (n > JOBFILE_LINE_MAX)
			return fail(ps, file, line, "line longer than %d bytes", JOBFILE_LINE_MAX);
		memcpy(buf, text + at, n);
		buf[n] = 0;
		at += (nl ? (size_t)(nl - (text + at)) + 1 : len - at);
		if (line == 1 && !memcmp(buf, "\xef\xbb\xbf", 3)) /* a UTF-8 byte order mark */
			memmove(buf, buf + 3, strlen(buf + 3) + 1);
		char *s = trim(buf);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (parse_line(ps, file, line, dir, s))
			return -1;
	}
	return 0;
}

static int load_file(struct pstate *ps, const char *path, const char *from, int fromline)
{
	char real[PATH_MAX];
	const char *where = from ? from : path;
	int wline = from ? fromline : 0;
	if (!realpath(path, real)) {
		if (from)
			return fail(ps, where, wline, "include %s: %s", path, strerror(errno));
		snprintf(ps->err, ps->errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < ps->depth; i++)
		if (!strcmp(ps->stack[i], real)) {
			char chain[2048] = "";
			for (int k = i; k < ps->depth; k++)
				snprintf(chain + strlen(chain), sizeof(chain) - strlen(chain), "%s -> ",
					 ps->stack[k]);
			return fail(ps, where, wline, "include loop: %.700s%.200s", chain, real);
		}
	if (ps->depth > JOBFILE_INCLUDE_DEPTH)
		return fail(ps, where, wline, "includes nested deeper than %d", JOBFILE_INCLUDE_DEPTH);
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (from)
			return fail(ps, where, wline, "include %s: %s", path, strerror(errno));
		snprintf(ps->err, ps->errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) { /* a directory, a FIFO, a device */
		fclose(f);
		if (from)
			return fail(ps, where, wline, "include %.200s: not a regular file", path);
		snprintf(ps->err, ps->errlen, "%s: not a regular file", path);
		return -1;
	}
	char *text = malloc(JOBFILE_SIZE_MAX + 1);
	size_t len = text ? fread(text, 1, JOBFILE_SIZE_MAX + 1, f) : 0;
	int rerr = ferror(f);
	fclose(f);
	if (!text || rerr || len > JOBFILE_SIZE_MAX) {
		free(text);
		snprintf(ps->err, ps->errlen, "%s: %s", path,
			 !text ? "out of memory" : rerr ? "cannot be read" : "larger than 1 MiB: not a job file");
		return -1;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	else
		dir[0] = 0;
	if (!(ps->stack[ps->depth] = strdup(real))) {
		free(text);
		snprintf(ps->err, ps->errlen, "%s: out of memory", path);
		return -1;
	}
	ps->depth++;
	int rc = parse_text(ps, path, dir, text, len);
	free(ps->stack[--ps->depth]);
	free(text);
	return rc;
}

int jobfile_load(const char *path, jobfile_lookup lookup, void *ctx, struct jobfile *jf, char *err,
		 size_t errlen)
{
	memset(jf, 0, sizeof(*jf));
	struct pstate ps = {.jf = jf, .lookup = lookup, .ctx = ctx, .cur = -1, .err = err, .errlen = errlen};
	int rc = load_file(&ps, path, NULL, 0);
	if (rc)
		jobfile_free(jf);
	return rc;
}

int jobfile_parse(const char *name, const char *text, size_t len, jobfile_lookup lookup, void *ctx,
		  struct jobfile *jf, char *err, size_t errlen)
{
	memset(jf, 0, sizeof(*jf));
	struct pstate ps = {.jf = jf, .lookup = lookup, .ctx = ctx, .cur = -1, .err = err, .errlen = errlen};
	int rc = parse_text(&ps, name, "", text, len);
	if (rc)
		jobfile_free(jf);
	return rc;
}

void jobfile_free(struct jobfile *jf)
{
	for (int i = 0; i < jf->nsec; i++) {
		struct jobsec *s = &jf->sec[i];
		for (int k = 0; k < s->nkv; k++) {
			free(s->kv[k].key);
			free(s->kv[k].value);
			free(s->kv[k].file);
		}
		free(s->kv);
		free(s->name);
		free(s->file);
	}
	free(jf->sec);
	memset(jf, 0, sizeof(*jf));
}

const struct jobsec *jobfile_section(const struct jobfile *jf, const char *name)
{
	for (int i = 0; i < jf->nsec; i++)
		if (!strcmp(jf->sec[i].name, name))
			return &jf->sec[i];
	return NULL;
}

const struct jobkv *jobsec_get(const struct jobsec *s, const char *key)
{
	for (int i = 0; s && i < s->nkv; i++)
		if (!strcmp(s->kv[i].key, key))
			return &s->kv[i];
	return NULL;
}
