/* SPDX-License-Identifier: MIT */
#include "cmd/opt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct opt *find_long(const struct opt *o, const char *name, size_t len)
{
	for (; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static const struct opt *find_short(const struct opt *o, char c)
{
	for (; o->name; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

static int choice_ok(const char *choices, const char *v)
{
	size_t len = strlen(v);
	for (const char *p = choices; *p;) {
		const char *bar = strchr(p, '|');
		size_t l = bar ? (size_t)(bar - p) : strlen(p);
		if (l == len && !strncmp(p, v, l))
			return 1;
		p += l + (bar ? 1 : 0);
	}
	return 0;
}

static int set_value(const struct opt *o, const char *v, char *err, size_t errlen)
{
	char *end;
	switch (o->type) {
	case OPT_FLAG:
		*(int *)o->dst = 1;
		break;
	case OPT_STR:
		if (!*v) {
			snprintf(err, errlen, "--%s: empty value", o->name);
			return -1;
		}
		*(const char **)o->dst = v;
		break;
	case OPT_LIST: {
		struct opt_list *l = o->dst;
		if (!*v || l->n >= OPT_LIST_MAX) {
			snprintf(err, errlen, "--%s: %s", o->name, *v ? "given too often" : "empty value");
			return -1;
		}
		l->v[l->n++] = v;
		break;
	}
	case OPT_CHOICE:
		if (!choice_ok(o->choices, v)) {
			snprintf(err, errlen, "--%s: '%s' is not one of %s", o->name, v, o->choices);
			return -1;
		}
		*(const char **)o->dst = v;
		break;
	case OPT_U64: {
		errno = 0;
		if (*v == '-' || !*v) {
			snprintf(err, errlen, "--%s: '%s' is not a positive whole number", o->name, v);
			return -1;
		}
		unsigned long long x = strtoull(v, &end, 10);
		if (errno || *end || x < o->min || x > o->max) {
			snprintf(err, errlen, "--%s: '%s' is not a whole number from %.0f to %.0f",
				 o->name, v, o->min, o->max);
			return -1;
		}
		*(uint64_t *)o->dst = x;
		break;
	}
	case OPT_DOUBLE: {
		errno = 0;
		double x = strtod(v, &end);
		if (errno || *end || !*v || !isfinite(x) || x < o->min || x > o->max) {
			snprintf(err, errlen, "--%s: '%s' is not a number from %g to %g", o->name, v,
				 o->min, o->max);
			return -1;
		}
		*(double *)o->dst = x;
		break;
	}
	}
	if (o->seen)
		*o->seen = 1;
	return 0;
}

int opt_parse(const struct opt *opts, int argc, char **argv, char **pos, int maxpos, int *npos,
	      char *err, size_t errlen)
{
	*npos = 0;
	int only_pos = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const struct opt *o = NULL;
		const char *val = NULL;
		if (only_pos || a[0] != '-' || !a[1]) {
			if (*npos >= maxpos) {
				if (maxpos > 0)
					snprintf(err, errlen, "unexpected argument '%s' (at most %d arguments)", a, maxpos);
				else
					snprintf(err, errlen, "unexpected argument '%s'", a);
				return -1;
			}
			pos[(*npos)++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = 1;
			continue;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
			o = find_long(opts, a + 2, len);
			if (!o) {
				snprintf(err, errlen, "unknown option '%.*s'", (int)len + 2, a);
				return -1;
			}
			if (eq)
				val = eq + 1;
		} else {
			o = find_short(opts, a[1]);
			if (!o) {
				snprintf(err, errlen, "unknown option '-%c'", a[1]);
				return -1;
			}
			if (a[2])
				val = a + 2;
		}
		if (o->type == OPT_FLAG) {
			if (val) {
				snprintf(err, errlen, "--%s takes no value", o->name);
				return -1;
			}
		} else if (!val) {
			if (i + 1 >= argc) {
				snprintf(err, errlen, "--%s needs a value (%s)", o->name, o->arg);
				return -1;
			}
			val = argv[++i];
		}
		if (set_value(o, val, err, errlen))
			return -1;
	}
	return 0;
}

void opt_help(FILE *f, const struct opt *o)
{
	for (; o->name; o++) {
		char left[64];
		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		fprintf(f, "  %-26s %s\n", left, o->help);
	}
}

int opt_command(const char *name, const struct opt *opts, int argc, char **argv, char **pos,
		int maxpos, int *npos, const int *help, void (*usage)(FILE *, const struct opt *))
{
	char err[1536];
	if (opt_parse(opts, argc, argv, pos, maxpos, npos, err, sizeof(err))) {
		fprintf(stderr, "scalebench %s: %s\n", name, err);
		return EXIT_USAGE;
	}
	if (*help) {
		usage(stdout, opts);
		return EXIT_OK;
	}
	return OPT_GO;
}
