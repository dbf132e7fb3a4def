/* SPDX-License-Identifier: MIT */
/* Bench parameters, checked before any work (see param.h and bench.h).
 *
 * A -p KEY=VALUE that no selected bench takes is refused, with the keys
 * they do take and the closest of them by edit distance: a typo must not
 * run the default and look like a measurement of what was asked. A value
 * is checked against the type of every selected bench that takes the key
 * (integer range, one of an enum's values, 0 or 1), so that a bench never
 * silently falls back to its default on a value it cannot use. */
#include "core/param.h"
#include "core/tasks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct bench_param_spec bench_no_params[] = {{0}}; /* bench.h */

/* ---- the parameters the core owns (bench.h: declared here, never in a
 * bench's table) ---- */

/* placement, for a bench with .placement (sweep_place.c pins by it): one spec
 * per default, the bench's .placement choosing. */
#define PLACEMENT_HELP "where the bench and its server, helpers, workers or threads run: same CPU, spread (each side on the next allowed CPU), or free (docs/method.md)"
static const struct bench_param_spec placement_specs[] = {
	BP_ENUM("placement", "same", "same|spread|free", PLACEMENT_HELP),
	BP_ENUM("placement", "spread", "same|spread|free", PLACEMENT_HELP),
	BP_ENUM("placement", "free", "same|spread|free", PLACEMENT_HELP),
};

static const struct bench_param_spec *placement_spec(const struct bench *b)
{
	for (size_t i = 0; b->placement && i < sizeof(placement_specs) / sizeof(placement_specs[0]); i++)
		if (!strcmp(placement_specs[i].def, b->placement))
			return &placement_specs[i];
	return NULL;
}

const struct bench_param_spec *param_at(const struct bench *b, int i)
{
	const struct bench_param_spec *pl = placement_spec(b);
	if (pl && i-- == 0)
		return pl;
	for (int k = 0; b->params && b->params[k].name; k++)
		if (k == i)
			return &b->params[k];
	return NULL;
}

const struct bench_param_spec *param_find(const struct bench *b, const char *key)
{
	const struct bench_param_spec *sp;
	for (int i = 0; (sp = param_at(b, i)); i++)
		if (!strcmp(sp->name, key))
			return sp;
	return tasks_param_find(b, key); /* as=, shared= of the tasks axis */
}

/* A read of a key the bench's table does not declare is a bug of the
 * bench: a -p of that key would have been refused before the run. Said
 * once per key on stderr; fatal when SCALEBENCH_PARAM_STRICT is set (the
 * tests set it), as an assertion. */
static void param_undeclared(const struct bench *b, const char *key)
{
	static char said[8][64];
	for (int i = 0; i < 8; i++) {
		if (!strcmp(said[i], key))
			return;
		if (!said[i][0]) {
			snprintf(said[i], sizeof(said[i]), "%s", key);
			break;
		}
	}
	fprintf(stderr, "scalebench: bug: %s reads parameter '%s', which its .params does not declare\n",
		b->name, key);
	const char *strict = getenv("SCALEBENCH_PARAM_STRICT");
	if (strict && *strict && strcmp(strict, "0"))
		abort();
}

/* The one place a default is filled in: from the declared spec. */
const char *bench_param(const struct bench_env *env, const char *key)
{
	const struct bench *b = env->bench;
	const struct bench_param_spec *sp = b ? param_find(b, key) : NULL;
	if (b && b->params && !sp)
		param_undeclared(b, key);
	json_t *v = env->params ? json_object_get(env->params, key) : NULL;
	if (json_is_string(v))
		return json_string_value(v);
	return sp && !(sp->flags & BP_DERIVED) ? sp->def : NULL;
}

uint64_t bench_param_u64(const struct bench_env *env, const char *key)
{
	const char *v = bench_param(env, key);
	if (!v)
		return 0;
	char *end;
	unsigned long long x = strtoull(v, &end, 0);
	return (*v && !*end) ? x : 0;
}

/* 1 if the variant "k=v,k=v" sets key. */
static int variant_sets(const char *variant, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = variant; p && *p;) {
		if (!strncmp(p, key, kl) && p[kl] == '=')
			return 1;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

int param_known(const struct bench *b, const char *key)
{
	if (param_find(b, key))
		return 1;
	if (b->params)
		return 0;
	for (const char *const *v = b->variants; v && *v; v++)
		if (variant_sets(*v, key))
			return 1;
	return 0;
}

unsigned param_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 255;
	unsigned row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned cost = a[i - 1] == b[j - 1] ? 0 : 1;
			unsigned best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb] > 255 ? 255 : row[lb];
}

/* Close enough to be a typo of want: a third of its letters, at least 2. */
static int near(const char *got, const char *want, unsigned *d)
{
	*d = param_distance(got, want);
	size_t l = strlen(want);
	return *d <= (l / 3 > 2 ? l / 3 : 2) && *d < l;
}

/* Appends s to buf (with sep if not first); stops quietly when full. */
static void append(char *buf, size_t len, const char *sep, const char *s)
{
	size_t u = strlen(buf), sl = *buf ? strlen(sep) : 0, l = strlen(s);
	if (u + sl + l + 1 > len)
		return;
	memcpy(buf + u, sep, sl);
	memcpy(buf + u + sl, s, l + 1);
}

/* 1 if item is one of the sep-separated items of list. */
static int list_has(const char *list, const char *sep, const char *item)
{
	size_t il = strlen(item), sl = strlen(sep);
	for (const char *p = list; p && *p;) {
		const char *e = strstr(p, sep);
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == il && !strncmp(p, item, il))
			return 1;
		p = e ? e + sl : NULL;
	}
	return 0;
}

/* 1 if value is one of "a|b|c". */
static int enum_has(const char *values, const char *value)
{
	size_t vl = strlen(value);
	for (const char *p = values; p;) {
		const char *bar = strchr(p, '|');
		size_t l = bar ? (size_t)(bar - p) : strlen(p);
		if (l == vl && !strncmp(p, value, l))
			return 1;
		p = bar ? bar + 1 : NULL;
	}
	return 0;
}

void param_type_desc(const struct bench_param_spec *sp, char *buf, size_t len)
{
	switch (sp->type) {
	case BP_TYPE_U64:
		snprintf(buf, len, "integer %llu..%llu", (unsigned long long)sp->min,
			 (unsigned long long)sp->max);
		break;
	case BP_TYPE_BOOL:
		snprintf(buf, len, "0|1");
		break;
	case BP_TYPE_ENUM:
		snprintf(buf, len, "%s", sp->values ? sp->values : "");
		break;
	case BP_TYPE_FILE:
		snprintf(buf, len, "path of a file");
		break;
	default:
		snprintf(buf, len, "text");
	}
}

/* An enum's values: "a, b, c" (all) or those this build has. */
static void enum_list(const struct bench_param_spec *sp, int built_only, char *buf, size_t len)
{
	char one[64];
	buf[0] = 0;
	for (const char *p = sp->values; p;) {
		const char *bar = strchr(p, '|');
		snprintf(one, sizeof(one), "%.*s", (int)(bar ? (size_t)(bar - p) : strlen(p)), p);
		if (!built_only || !sp->absent || !sp->absent(one))
			append(buf, len, ", ", one);
		p = bar ? bar + 1 : NULL;
	}
}

int param_check_value(const struct bench_param_spec *sp, const char *value, char *err,
		      size_t errlen)
{
	char desc[256];
	param_type_desc(sp, desc, sizeof(desc));
	switch (sp->type) {
	case BP_TYPE_U64:
	case BP_TYPE_BOOL: {
		char *end;
		errno = 0;
		unsigned long long x = *value >= '0' && *value <= '9' ? strtoull(value, &end, 0) : 0;
		int ok = *value >= '0' && *value <= '9' && !*end && errno == 0 && x >= sp->min &&
			 x <= sp->max;
		if (ok)
			return 0;
		if (sp->type == BP_TYPE_BOOL)
			snprintf(err, errlen, "0 or 1, not '%.40s'", value);
		else
			snprintf(err, errlen, "an integer in %llu..%llu, not '%.40s'",
				 (unsigned long long)sp->min, (unsigned long long)sp->max, value);
		return -1;
	}
	case BP_TYPE_ENUM: {
		char all[256], built[256];
		enum_list(sp, 0, all, sizeof(all));
		enum_list(sp, 1, built, sizeof(built));
		if (enum_has(sp->values, value))
			return 0;
		char hint[96] = "", one[64];
		unsigned best = 255, d;
		for (const char *p = sp->values; p;) {
			const char *bar = strchr(p, '|');
			snprintf(one, sizeof(one), "%.*s", (int)(bar ? (size_t)(bar - p) : strlen(p)), p);
			if (near(value, one, &d) && d < best) {
				best = d;
				snprintf(hint, sizeof(hint), " (did you mean %s?)", one);
			}
			p = bar ? bar + 1 : NULL;
		}
		snprintf(err, errlen, "one of %s, not '%.40s'%s; this build has %s", all, value, hint,
			 *built ? built : "none of them");
		return -1;
	}
	case BP_TYPE_FILE: {
		struct stat st;
		if (stat(value, &st)) {
			snprintf(err, errlen, "the path of an existing file; '%.200s': %s", value,
				 strerror(errno));
			return -1;
		}
		if (!S_ISREG(st.st_mode) || access(value, R_OK)) {
			snprintf(err, errlen, "the path of a readable regular file, which '%.200s' is not",
				 value);
			return -1;
		}
		return 0;
	}
	default:
		if (*value)
			return 0;
		snprintf(err, errlen, "a non-empty text");
		return -1;
	}
}

/* The keys the selected benches take, ", "-separated, test-only ones left
 * out; best is set to the closest to key, if one is close. */
static void known_keys(const struct bench *const *sel, int nsel, const char *key, char *buf,
		       size_t len, char *best, size_t bestlen)
{
	unsigned bd = 255, d;
	buf[0] = 0;
	best[0] = 0;
	for (int i = 0; i < nsel; i++) {
		const struct bench *b = sel[i];
		char names[32][48];
		int n = 0;
		if (b->params) {
			const struct bench_param_spec *sp;
			for (int k = 0; (sp = param_at(b, k)) && n < 32; k++)
				if (!(sp->flags & BP_TEST_ONLY))
					snprintf(names[n++], sizeof(names[0]), "%s", sp->name);
		} else {
			for (const char *const *v = b->variants; v && *v; v++) {
				for (const char *p = *v; p && *p && n < 32;) {
					const char *eq = strchr(p, '=');
					if (!eq)
						break;
					snprintf(names[n++], sizeof(names[0]), "%.*s", (int)(eq - p), p);
					p = strchr(eq, ',');
					if (p)
						p++;
				}
			}
		}
		for (int k = 0; k < n; k++) {
			if (list_has(buf, ", ", names[k]))
				continue;
			append(buf, len, ", ", names[k]);
			if (near(key, names[k], &d) && d < bd) {
				bd = d;
				snprintf(best, bestlen, "%s", names[k]);
			}
		}
	}
}

int param_validate(const struct bench *const *sel, int nsel, const struct bench *const *all, int nall,
		   const json_t *over, char *err, size_t errlen)
{
	const char *key;
	json_t *jv;
	json_object_foreach((json_t *)over, key, jv) {
		const char *value = json_string_value(jv);
		int known = 0;
		for (int i = 0; i < nsel; i++) {
			const struct bench *b = sel[i];
			if (!param_known(b, key))
				continue;
			known++;
			const struct bench_param_spec *sp = param_find(b, key);
			char why[600];
			if (sp && value && param_check_value(sp, value, why, sizeof(why))) {
				snprintf(err, errlen, "--param %s=%.40s: %s's %s is %s", key, value, b->name,
					 key, why);
				return -1;
			}
		}
		if (known)
			continue;
		char keys[1024], best[48];
		known_keys(sel, nsel, key, keys, sizeof(keys), best, sizeof(best));
		char hint[400] = "", others[300] = "";
		for (int i = 0; i < nall; i++)
			if (param_find(all[i], key))
				append(others, sizeof(others), ", ", all[i]->name);
		if (*best)
			snprintf(hint, sizeof(hint), " (did you mean %s?)", best);
		else if (*others)
			snprintf(hint, sizeof(hint), " (%s is a parameter of %s)", key, others);
		const char *who = nsel == 1 ? sel[0]->name : "the selected benches";
		if (*keys)
			snprintf(err, errlen, "--param %.60s: no selected bench takes this parameter%s; %s take%s: %s (see `scalebench list BENCH`)",
				 key, hint, who, nsel == 1 ? "s" : "", keys);
		else
			snprintf(err, errlen, "--param %.60s: %s take%s no parameters", key, who,
				 nsel == 1 ? "s" : "");
		return -1;
	}
	return 0;
}

void param_no_variant(const struct bench *b, const json_t *over, char *err, size_t errlen)
{
	char have[600] = "";
	const char *key;
	json_t *jv;
	json_object_foreach((json_t *)over, key, jv) {
		size_t kl = strlen(key);
		char vals[400] = "";
		for (const char *const *v = b->variants; v && *v; v++) {
			for (const char *p = *v; p && *p;) {
				if (!strncmp(p, key, kl) && p[kl] == '=') {
					char one[64];
					const char *c = strchr(p, ',');
					snprintf(one, sizeof(one), "%.*s",
						 (int)(c ? (size_t)(c - p - kl - 1) : strlen(p + kl + 1)),
						 p + kl + 1);
					if (!list_has(vals, "|", one))
						append(vals, sizeof(vals), "|", one);
				}
				p = strchr(p, ',');
				if (p)
					p++;
			}
		}
		if (*vals) {
			char one[480];
			snprintf(one, sizeof(one), "%s=%s", key, vals);
			append(have, sizeof(have), ", ", one);
		}
	}
	snprintf(err, errlen, "no variant of %s agrees with the --param given; its variants have %s",
		 b->name, *have ? have : "none of these keys");
}

/* ---- descriptions ---- */

void param_print_text(FILE *f, const struct bench *b)
{
	fprintf(f, "%s (version %d): %s\n", b->name, b->version, b->summary);
	fprintf(f, "  axis (N):   %s\n  timed:      %s\n", b->axis, b->op_desc);
	fprintf(f, "  verdict:    %s\n",
		b->axis_kind == AXIS_CONCURRENCY
			? (b->flags & BENCH_AXIS_TASKS
				   ? "throughput (Universal Scalability Law): a concurrency axis counting "
				     "tasks (points above the online CPUs left out of the fit)"
				   : "throughput (Universal Scalability Law): a concurrency axis")
		: b->axis_kind == AXIS_SIZE     ? "cost per KiB: a size axis"
		: b->axis_kind == AXIS_CATEGORY ? "the tail (p99) per category and the worst: a category "
						  "axis, no growth fitted"
						: "how the cost grows: a load axis");
	if (b->unavailable)
		fprintf(f, "  unavailable in this build: %s\n", b->unavailable);
	if (b->variants) {
		fprintf(f, "  variants:  ");
		for (const char *const *v = b->variants; *v; v++)
			fprintf(f, " %s", *v);
		fputc('\n', f);
	}
	if (b->tasks) /* the tasks axis's own parameters (tasks.c) */
		fprintf(f, "  run --tasks: yes; -p as=proc|thread%s\n",
			b->tasks == BENCH_TASKS_DIR ? ", -p shared=0|1 (one directory for all the tasks)" : "");
	if (!b->params) {
		fprintf(f, "  parameters: none declared%s\n",
			b->variants ? " (only the keys its variants set are taken)" : "");
		return;
	}
	const struct bench_param_spec *sp;
	if (!param_at(b, 0)) {
		fprintf(f, "  parameters: none\n");
		return;
	}
	fprintf(f, "  parameters (-p KEY=VALUE):\n");
	fprintf(f, "    %-14s %-28s %-10s %s\n", "name", "values", "default", "meaning");
	for (int k = 0; (sp = param_at(b, k)); k++) {
		char desc[256];
		param_type_desc(sp, desc, sizeof(desc));
		fprintf(f, "    %-14s %-28s %-10s %s%s\n", sp->name, desc, sp->def ? sp->def : "-",
			sp->help, sp->flags & BP_TEST_ONLY ? " [for tests]" : "");
		if (sp->type == BP_TYPE_ENUM && sp->absent) {
			char all[256], built[256];
			enum_list(sp, 0, all, sizeof(all));
			enum_list(sp, 1, built, sizeof(built));
			if (strcmp(all, built))
				fprintf(f, "    %-14s this build has: %s\n", "", *built ? built : "none");
		}
	}
}

/* Markdown cell: '|' escaped. */
static void md_cell(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

void param_print_md(FILE *f, const struct bench *const *all, int nall)
{
	fprintf(f, "| bench | parameter | values | default | meaning |\n|---|---|---|---|---|\n");
	for (int i = 0; i < nall; i++) {
		const struct bench *b = all[i];
		const struct bench_param_spec *sp;
		for (int k = 0; (sp = param_at(b, k)); k++) {
			if (sp->flags & BP_TEST_ONLY)
				continue;
			char desc[256];
			param_type_desc(sp, desc, sizeof(desc));
			fprintf(f, "| %s | `%s` | ", b->name, sp->name);
			md_cell(f, desc);
			fprintf(f, " | ");
			md_cell(f, sp->def ? sp->def : "-");
			fprintf(f, " | ");
			md_cell(f, sp->help);
			fprintf(f, " |\n");
		}
	}
}

/* roff text: backslash and hyphen escaped. */
static void roff(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

void param_print_man(FILE *f, const struct bench *const *all, int nall)
{
	for (int i = 0; i < nall; i++) {
		const struct bench *b = all[i];
		int any = 0;
		const struct bench_param_spec *sp;
		for (int k = 0; (sp = param_at(b, k)); k++) {
			if (sp->flags & BP_TEST_ONLY)
				continue;
			if (!any++)
				fprintf(f, ".TP\n.B %s\n", b->name);
			else
				fprintf(f, ".br\n");
			char desc[256];
			param_type_desc(sp, desc, sizeof(desc));
			fprintf(f, "\\fB");
			roff(f, sp->name);
			fprintf(f, "\\fR=");
			roff(f, desc);
			fprintf(f, " (default ");
			roff(f, sp->def ? sp->def : "none");
			fprintf(f, "): ");
			roff(f, sp->help);
			fputc('\n', f);
		}
	}
}

json_t *param_json(const struct bench *b)
{
	if (!b->params)
		return json_null();
	json_t *a = json_array();
	const struct bench_param_spec *sp;
	for (int k = 0; a && (sp = param_at(b, k)); k++) {
		static const char *const tn[] = {"?", "u64", "bool", "enum", "string", "file"};
		json_t *o = json_pack("{s:s,s:s,s:s?,s:s}", "name", sp->name, "type",
				      tn[sp->type <= BP_TYPE_FILE ? sp->type : 0], "default", sp->def,
				      "help", sp->help);
		if (!o)
			continue;
		if (sp->type == BP_TYPE_U64) {
			json_object_set_new(o, "min", json_integer((json_int_t)sp->min));
			json_object_set_new(o, "max", json_integer((json_int_t)sp->max));
		}
		if (sp->type == BP_TYPE_ENUM) {
			char all[256], built[256];
			enum_list(sp, 0, all, sizeof(all));
			enum_list(sp, 1, built, sizeof(built));
			json_object_set_new(o, "values", json_string(sp->values));
			json_object_set_new(o, "in_build", json_string(built));
		}
		if (sp->flags & BP_TEST_ONLY)
			json_object_set_new(o, "test_only", json_true());
		json_array_append_new(a, o);
	}
	return a;
}
