/* SPDX-License-Identifier: MIT */
/* Job files onto the commands' options (docs/studies.md).
 *
 * A job file's keys are the commands' own long option names (max-n or
 * max_n, repeat, tasks, budget, dir, quick...), so that a job file and a
 * command line say the same thing in the same words; a key that is no
 * option is a bench parameter (what -p KEY=VALUE sets), checked against
 * the section's benches. [global] holds what applies to the whole run
 * (matrix's fs and fresh, in-process, cpus...) and defaults for every
 * section; each other section is one job: `bench = NAME ...` and its own
 * options and parameters. Every key is checked where it was written, with
 * the same parser and the same messages as the command line, before
 * anything is made. The command line comes last and wins, as in fio; its
 * --quick drops the file's sizes (max-n, min-n, repeat): the quick form
 * of a study. */
#include "cmd/jobrun.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/job.h"
#include "core/jobfile.h"
#include "core/param.h"
#include "core/registry.h"

/* Options that apply to the whole run: [global] or the command line only. */
static const char *const global_only[] = {"output", "format", "db", "no-db", "report", "host-label",
					  "quiet", "in-process", "cpus", "mem-limit", "help", NULL};
/* Where a run writes, not what it runs: not recorded in the job. */
static const char *const not_recorded[] = {"output", "format", "db", "no-db", "report",
					   "host-label", "quiet", "help", NULL};
/* Words for the reader (the report's study view), not options. */
static const char *const global_meta[] = {"study", "title", "description", NULL};
static const char *const section_meta[] = {"title", "axis", "reference", "reference-us", "note", NULL};
/* The file's sizes, which the command line's --quick replaces. */
static const char *const sizes[] = {"max-n", "min-n", "repeat", "full", NULL};

static int in_list(const char *const *l, const char *k)
{
	for (; *l; l++)
		if (!strcmp(*l, k))
			return 1;
	return 0;
}

static const struct opt *opt_by_name(const struct opt *o, const char *name)
{
	for (; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

/* max_n -> max-n when that is an option of tbl; otherwise key as it is. */
static const char *norm_key(const struct opt *tbl, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%s", key);
	for (char *c = buf; *c; c++)
		if (*c == '_')
			*c = '-';
	return opt_by_name(tbl, buf) ? buf : key;
}

static const char *lookup_var(void *ctx, const char *name)
{
	static char ncpus[24];
	(void)ctx;
	if (!strcmp(name, "ncpus")) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		snprintf(ncpus, sizeof(ncpus), "%ld", n > 0 ? n : 1);
		return ncpus;
	}
	return getenv(name);
}

int jobrun_is_file(const char *w)
{
	size_t n = strlen(w);
	return strchr(w, '/') || (n > 4 && !strcmp(w + n - 4, ".job"));
}

/* One key of a job file through the option table's own parser. */
static int apply_kv(const struct opt *tbl, const struct opt *o, const struct jobkv *kv, char *err,
		    size_t errlen)
{
	char flag[96], e[1024];
	char *av[2] = {flag, kv->value};
	int np;
	snprintf(flag, sizeof(flag), "--%s", o->name);
	if (o->type == OPT_FLAG) {
		const char *v = kv->value;
		if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false"))
			return 0;
		if (*v && strcmp(v, "1") && strcmp(v, "yes") && strcmp(v, "true")) {
			snprintf(err, errlen, "%s:%d: %s: a switch: the key alone, or = 1 or 0", kv->file,
				 kv->line, kv->key);
			return -1;
		}
	} else if (o->type == OPT_LIST) {
		snprintf(err, errlen, "%s:%d: %s: write a parameter as its own key (KEY = VALUE), "
			 "not %s = KEY=VALUE", kv->file, kv->line, kv->key, kv->key);
		return -1;
	}
	if (opt_parse(tbl, o->type == OPT_FLAG ? 1 : 2, av, NULL, 0, &np, e, sizeof(e))) {
		snprintf(err, errlen, "%s:%d: %s", kv->file, kv->line, e);
		return -1;
	}
	return 0;
}

/* The command line's options, as (option, value) pairs; argv was parsed
 * once already, so it is well formed. */
struct cli_pair {
	const struct opt *o;
	const char *v; /* NULL for a switch */
};

static int cli_pairs(const struct opt *opts, int argc, char **argv, struct cli_pair *out, int cap)
{
	int n = 0;
	for (int i = 0; i < argc && n < cap; i++) {
		const char *a = argv[i], *val = NULL;
		const struct opt *o = NULL;
		if (!strcmp(a, "--"))
			break;
		if (a[0] != '-' || !a[1])
			continue;
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
			for (const struct opt *p = opts; p->name && !o; p++)
				if (strlen(p->name) == len && !strncmp(p->name, a + 2, len))
					o = p;
			if (eq)
				val = eq + 1;
		} else {
			for (const struct opt *p = opts; p->name && !o; p++)
				if (p->short_name == a[1])
					o = p;
			if (a[2])
				val = a + 2;
		}
		if (!o)
			continue;
		if (o->type != OPT_FLAG && !val && i + 1 < argc)
			val = argv[++i];
		out[n++] = (struct cli_pair){o, o->type == OPT_FLAG ? NULL : val};
	}
	return n;
}

static int cli_has(const struct cli_pair *cp, int ncp, const char *name)
{
	for (int i = 0; i < ncp; i++)
		if (!strcmp(cp[i].o->name, name))
			return 1;
	return 0;
}

static int add_word(char **words, int *n, const char *w)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(words[i], w))
			return 0;
	if (*n >= MAX_SELECT || !(words[*n] = strdup(w)))
		return -1;
	(*n)++;
	return 0;
}

/* The CLI's -p KEY=VALUE keys, for "the command line wins". */
static int cli_param_has(const struct runner *rn, const char *key)
{
	size_t kl = strlen(key);
	for (int i = 0; i < rn->a.params.n; i++)
		if (!strncmp(rn->a.params.v[i], key, kl) && rn->a.params.v[i][kl] == '=')
			return 1;
	return 0;
}

static int sel_knows(const struct bench *const *sel, int nsel, const char *key)
{
	for (int i = 0; i < nsel; i++)
		if (param_known(sel[i], key))
			return 1;
	return 0;
}

/* An option every sweeping command takes (RUNNER_OPTS): a job section's. */
static int is_runner_opt(const char *k)
{
	static struct runner dummy;
	const struct opt tbl[] = {RUNNER_OPTS(dummy.a), {0}};
	return opt_by_name(tbl, k) != NULL;
}

static void set_str(json_t *o, const char *k, const char *v)
{
	json_object_set_new(o, k, json_string(v ? v : ""));
}

/* Is label one of the comma-separated list? */
static int in_csv(const char *list, const char *label)
{
	size_t n = strlen(label);
	for (const char *p = list; p && *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l == n && !strncmp(p, label, n))
			return 1;
		p = c ? c + 1 : NULL;
	}
	return 0;
}

/* Every label of sub (comma-separated) is one of all's. */
static int fs_subset(const char *sub, const char *all, char *err, size_t errlen)
{
	char tmp[1024];
	snprintf(tmp, sizeof(tmp), "%s", sub);
	int any = 0;
	for (char *w = strtok(tmp, ","); w; w = strtok(NULL, ","), any = 1)
		if (!in_csv(all, w)) {
			snprintf(err, errlen, "%s is not among the run's file systems (%s)", w, all);
			return -1;
		}
	if (!any)
		snprintf(err, errlen, "which file systems?");
	return any ? 0 : -1;
}

/* What load_section's steps share: the section, its option table, its benches, its keys. */
struct section_ctx {
	struct jobsec_plan *p;
	const struct jobsec *s;
	const char *cmd;
	const struct opt *tbl;
	const struct bench *sel[SEL_SLOTS];
	int nsel;
	int quick_cli, full_cli;
	const char *fs_all;
	json_t *keys;
	char *err;
	size_t errlen;
};

/* The section's bench = key: its words (also the plan's), its benches selected. */
static int section_benches(struct section_ctx *c, struct jobplan *plan)
{
	struct jobsec_plan *p = c->p;
	const struct jobsec *s = c->s;
	const struct jobkv *bk = jobsec_get(s, "bench");
	if (!bk || !*bk->value) {
		snprintf(c->err, c->errlen, "%s:%d: [%s]: which bench? (bench = NAME, as `scalebench list` "
			 "names it; a family such as net is every bench of it)", s->file, s->line, s->name);
		return -1;
	}
	char tmp[JOBFILE_LINE_MAX + 1];
	snprintf(tmp, sizeof(tmp), "%s", bk->value);
	for (char *w = strtok(tmp, " ,\t"); w; w = strtok(NULL, " ,\t"))
		if (add_word(p->words, &p->nwords, w) || add_word(plan->words, &plan->nwords, w)) {
			snprintf(c->err, c->errlen, "%s:%d: more than %d bench names", bk->file, bk->line,
				 MAX_SELECT);
			return -1;
		}
	char e[1024];
	if (runner_select(p->words, p->nwords, c->sel, &c->nsel, e, sizeof(e))) {
		snprintf(c->err, c->errlen, "%s:%d: %s", bk->file, bk->line, e);
		return -1;
	}
	set_str(c->keys, "bench", bk->value);
	return 0;
}

/* A section's fs = key: a subset of the matrix run's file systems. */
static int section_fs(struct section_ctx *c, const struct jobkv *kv)
{
	char e[1024];
	if (!c->fs_all) {
		snprintf(c->err, c->errlen, "%s:%d: fs: a section's file systems are for "
			 "matrix FILE.job", kv->file, kv->line);
		return -1;
	}
	if (fs_subset(kv->value, c->fs_all, e, sizeof(e))) {
		snprintf(c->err, c->errlen, "%s:%d: fs: %s", kv->file, kv->line, e);
		return -1;
	}
	c->p->only_fs = kv->value;
	set_str(c->keys, "fs", kv->value);
	return 0;
}

/* A key naming a runner option (o): applied to the section's runner unless the command line decides. */
static int section_option(struct section_ctx *c, int l, const struct opt *o, const char *k,
			  const struct jobkv *kv)
{
	if (in_list(global_only, k)) {
		if (l == 1) {
			snprintf(c->err, c->errlen, "%s:%d: %s: only in [global] (it applies to the whole "
				 "run)", kv->file, kv->line, k);
			return -1;
		}
		return 0;
	}
	if ((c->quick_cli && in_list(sizes, k)) || (c->full_cli && !strcmp(k, "quick")))
		return 0; /* the command line's --quick or --full decides */
	if (!strcmp(k, "dir") && strcmp(c->cmd, "run")) {
		if (l == 1) {
			snprintf(c->err, c->errlen, "%s:%d: dir: only in [global] for %s (where "
				 "its images are made)", kv->file, kv->line, c->cmd);
			return -1;
		}
		return 0;
	}
	if (apply_kv(c->tbl, o, kv, c->err, c->errlen))
		return -1;
	if (o->type == OPT_FLAG && (!strcmp(kv->value, "0") || !strcmp(kv->value, "no") ||
				    !strcmp(kv->value, "false")))
		json_object_del(c->keys, k);
	else
		set_str(c->keys, k, o->type == OPT_FLAG ? "" : kv->value);
	return 0;
}

/* One key of [global] (l 0) or of the section (l 1): an option, a parameter or a meta key. */
static int section_key(struct section_ctx *c, int l, const struct jobkv *kv)
{
	char nb[128], e[1024];
	const char *k = norm_key(c->tbl, kv->key, nb, sizeof(nb));
	const struct opt *o = opt_by_name(c->tbl, k);
	if (!strcmp(k, "bench") && l == 0) {
		snprintf(c->err, c->errlen, "%s:%d: bench: in a job section, not [global]", kv->file, kv->line);
		return -1;
	}
	if (!strcmp(k, "bench") || (l == 0 && in_list(global_meta, k)))
		return 0;
	if (l == 1 && in_list(section_meta, k)) {
		set_str(c->keys, k, kv->value);
		return 0;
	}
	if (l == 1 && !strcmp(k, "fs"))
		return section_fs(c, kv);
	if (o)
		return section_option(c, l, o, k, kv);
	if (l == 0 && !sel_knows(c->sel, c->nsel, k))
		return 0; /* a [global] parameter of other sections' benches */
	if (l == 0 && opt_by_name(c->tbl, k) == NULL && jobsec_get(c->s, kv->key))
		return 0; /* the section sets it */
	json_t *one = json_pack("{s:s}", k, kv->value);
	int bad = !one || param_validate(c->sel, c->nsel, bench_table, bench_count, one, e, sizeof(e));
	json_decref(one);
	if (bad) {
		snprintf(c->err, c->errlen, "%s:%d: [%s]: %s", kv->file, kv->line, c->s->name, e);
		return -1;
	}
	set_str(c->keys, k, kv->value);
	return 0;
}

/* The command line over the file: its runner options (not its -p). */
static int section_cli_options(struct section_ctx *c, struct runner *sub, const struct cli_pair *cp,
			       int ncp)
{
	for (int i = 0; i < ncp; i++) {
		const struct opt *o = opt_by_name(c->tbl, cp[i].o->name);
		if (!o || in_list(global_only, o->name) || o->type == OPT_LIST ||
		    (!strcmp(o->name, "dir") && strcmp(c->cmd, "run")))
			continue;
		struct jobkv kv = {.key = (char *)o->name, .value = (char *)(cp[i].v ? cp[i].v : ""),
				   .file = "command line", .line = 0};
		if (apply_kv(c->tbl, o, &kv, c->err, c->errlen))
			return -1;
		set_str(c->keys, o->name, cp[i].v ? cp[i].v : "");
		if (!strcmp(o->name, "quick"))
			sub->a.full = 0, json_object_del(c->keys, "full");
		if (!strcmp(o->name, "full"))
			sub->a.quick = 0, json_object_del(c->keys, "quick");
		if (!strcmp(o->name, "decide"))
			sub->a.no_decide = 0, json_object_del(c->keys, "no-decide");
		if (!strcmp(o->name, "no-decide"))
			sub->a.decide = 0, json_object_del(c->keys, "decide");
	}
	return 0;
}

/* The runner's -p list: the file's parameters (those the command line does not set), then the command line's. */
static int section_params(struct section_ctx *c, struct runner *sub, const struct runner *rn)
{
	struct jobsec_plan *p = c->p;
	const struct jobsec *s = c->s;
	const char *k;
	json_t *v;
	sub->a.params.n = 0;
	json_object_foreach(c->keys, k, v) {
		if (opt_by_name(c->tbl, k) || in_list(section_meta, k) || !strcmp(k, "bench") ||
		    !strcmp(k, "fs"))
			continue;
		if (cli_param_has(rn, k))
			continue;
		if (p->nparam_strs >= OPT_LIST_MAX || sub->a.params.n >= OPT_LIST_MAX) {
			snprintf(c->err, c->errlen, "%s:%d: [%s]: more than %d parameters", s->file, s->line,
				 s->name, OPT_LIST_MAX);
			return -1;
		}
		char *kvs = malloc(strlen(k) + strlen(json_string_value(v)) + 2);
		if (!kvs) {
			snprintf(c->err, c->errlen, "out of memory");
			return -1;
		}
		sprintf(kvs, "%s=%s", k, json_string_value(v));
		p->param_strs[p->nparam_strs++] = kvs;
		sub->a.params.v[sub->a.params.n++] = kvs;
	}
	for (int i = 0; i < rn->a.params.n; i++) {
		const char *eq = strchr(rn->a.params.v[i], '=');
		char key[128];
		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - rn->a.params.v[i]) : 0, rn->a.params.v[i]);
		if (!eq || !sel_knows(c->sel, c->nsel, key))
			continue; /* another section's, or none's: the whole run's check says so */
		if (sub->a.params.n >= OPT_LIST_MAX) {
			snprintf(c->err, c->errlen, "[%s]: more than %d parameters", s->name, OPT_LIST_MAX);
			return -1;
		}
		sub->a.params.v[sub->a.params.n++] = rn->a.params.v[i];
		set_str(c->keys, key, eq + 1);
	}
	return 0;
}

/* One job section: its runner, prepared; its keys recorded in keys. */
static int load_section(struct jobplan *plan, struct jobsec_plan *p, const struct jobsec *s,
			const struct jobsec *g, const char *cmd, const struct runner *rn,
			const struct cli_pair *cp, int ncp, const char *fs_all, json_t *keys, char *err,
			size_t errlen)
{
	struct runner *sub = &p->sub;
	runner_defaults(sub, cmd);
	const struct opt tbl[] = {
		{"dir", 'd', OPT_STR, "PATH", "", 0, 0, NULL, &sub->a.dir, NULL},
		RUNNER_OPTS(sub->a),
		{0},
	};
	struct section_ctx c = {.p = p, .s = s, .cmd = cmd, .tbl = tbl, .fs_all = fs_all, .keys = keys,
				.err = err, .errlen = errlen};
	if (section_benches(&c, plan))
		return -1;
	c.quick_cli = cli_has(cp, ncp, "quick");
	c.full_cli = cli_has(cp, ncp, "full");
	/* [global]'s keys first, then the section's: options, then parameters */
	const struct jobsec *layers[2] = {g, s};
	for (int l = 0; l < 2; l++)
		for (int i = 0; layers[l] && i < layers[l]->nkv; i++)
			if (section_key(&c, l, &layers[l]->kv[i]))
				return -1;
	if (section_cli_options(&c, sub, cp, ncp) || section_params(&c, sub, rn))
		return -1;
	char e[1024];
	if (runner_prepare(sub, p->words, p->nwords, e, sizeof(e))) {
		snprintf(err, errlen, "%s:%d: [%s]: %s", s->file, s->line, s->name, e);
		return -1;
	}
	if (!strcmp(cmd, "run") && runner_check_dir(sub->a.dir, e, sizeof(e))) {
		snprintf(err, errlen, "%s:%d: [%s]: %s", s->file, s->line, s->name, e);
		return -1;
	}
	return 0;
}

/* The section as the core's job description (job.h) hands each of its
 * benches to a worker: one struct job per bench, encoded by job_to_json,
 * before the run (no scratch directory or clock yet). NULL: no memory. */
static json_t *resolved_jobs(const struct jobsec_plan *p, const char *cmd)
{
	json_t *arr = json_array();
	for (int i = 0; arr && i < p->sub.nsel; i++) {
		const struct bench *b = p->sub.sel[i];
		struct job j;
		job_init(&j);
		json_t *params = json_object(), *o = NULL;
		const char *k;
		json_t *v;
		json_object_foreach(p->sub.over, k, v)
			if (param_known(b, k))
				json_object_set(params, k, v);
		j.params = params;
		if (params && job_from_sweep(&j, b->name, &p->sub.so) == 0 &&
		    job_set(&j.dir, strcmp(cmd, "run") ? NULL : p->sub.a.dir) == 0)
			o = job_to_json(&j);
		job_clear(&j);
		if (!o || json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

int jobrun_load(struct jobplan *plan, const char *path, const char *cmd, const struct opt *opts,
		struct runner *rn, int argc, char **argv, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	struct jobfile *jf = calloc(1, sizeof(*jf));
	if (!jf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	plan->jf = jf;
	if (jobfile_load(path, lookup_var, NULL, jf, err, errlen))
		return -1;
	const struct jobsec *g = jobfile_section(jf, "global");
	if (jf->nsec - (g ? 1 : 0) == 0) {
		snprintf(err, errlen, "%s: no job in it (a section [NAME] with bench = ...)", path);
		return -1;
	}
	struct cli_pair cp[256];
	int ncp = cli_pairs(opts, argc, argv, cp, 256);
	plan->doc = json_pack("{s:s,s:{},s:[]}", "file", path, "global", "jobs");
	json_t *gdoc = json_object_get(plan->doc, "global"), *jobs = json_object_get(plan->doc, "jobs");
	/* [global] onto the command's options; its parameters are checked
	 * below against the sections' benches */
	for (int i = 0; g && i < g->nkv; i++) {
		const struct jobkv *kv = &g->kv[i];
		char nb[128];
		const char *k = norm_key(opts, kv->key, nb, sizeof(nb));
		const struct opt *o = opt_by_name(opts, k);
		if (in_list(global_meta, k)) {
			set_str(gdoc, k, kv->value);
			continue;
		}
		if (in_list(section_meta, k) || !strcmp(k, "bench")) {
			snprintf(err, errlen, "%s:%d: %s: in a job section, not [global]", kv->file, kv->line, k);
			return -1;
		}
		if (!o)
			continue; /* a parameter: checked with the sections */
		if (!strcmp(k, "help")) {
			snprintf(err, errlen, "%s:%d: help: not a key of a job file", kv->file, kv->line);
			return -1;
		}
		if (apply_kv(opts, o, kv, err, errlen))
			return -1;
	}
	/* the command line again, over the file (its -p list anew) */
	rn->a.params.n = 0;
	char *pos[MAX_SELECT];
	int npos;
	if (opt_parse(opts, argc, argv, pos, MAX_SELECT, &npos, err, errlen))
		return -1;
	/* what the whole run keeps: [global]'s own options, the command line's over them */
	for (int i = 0; g && i < g->nkv; i++) {
		char nb[128];
		const char *k = norm_key(opts, g->kv[i].key, nb, sizeof(nb));
		const struct opt *o = opt_by_name(opts, k);
		if (!o || in_list(not_recorded, k))
			continue;
		if (in_list(global_only, k) || !is_runner_opt(k))
			set_str(gdoc, k, o->type == OPT_FLAG ? "" : g->kv[i].value);
	}
	for (int i = 0; i < ncp; i++) {
		const char *k = cp[i].o->name;
		if (in_list(not_recorded, k) || cp[i].o->type == OPT_LIST)
			continue;
		if (in_list(global_only, k) || !is_runner_opt(k))
			set_str(gdoc, k, cp[i].v ? cp[i].v : "");
	}
	int nsec = jf->nsec - (g ? 1 : 0);
	plan->sec = calloc((size_t)nsec, sizeof(*plan->sec));
	if (!plan->sec) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < jf->nsec; i++) {
		const struct jobsec *s = &jf->sec[i];
		if (s == g)
			continue;
		struct jobsec_plan *p = &plan->sec[plan->nsec++];
		json_t *keys = json_object();
		json_array_append_new(jobs, json_pack("{s:s,s:o}", "name", s->name, "keys", keys));
		if (!(p->name = strdup(s->name))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		const struct opt *fso = opt_by_name(opts, "fs");
		const char *fs_all = fso ? *(const char **)fso->dst : NULL;
		if (load_section(plan, p, s, g, cmd, rn, cp, ncp, fs_all, keys, err, errlen))
			return -1;
		json_t *res = resolved_jobs(p, cmd);
		if (!res) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		json_object_set_new(json_array_get(jobs, json_array_size(jobs) - 1), "resolved", res);
	}
	/* a [global] parameter that no section's bench takes is a typo */
	for (int i = 0; g && i < g->nkv; i++) {
		const struct jobkv *kv = &g->kv[i];
		char nb[128];
		const char *k = norm_key(opts, kv->key, nb, sizeof(nb));
		if (opt_by_name(opts, k) || in_list(global_meta, k))
			continue;
		int taken = 0;
		for (int s = 0; s < plan->nsec && !taken; s++)
			taken = sel_knows(plan->sec[s].sub.sel, plan->sec[s].sub.nsel, k);
		if (!taken) {
			json_t *one = json_pack("{s:s}", k, kv->value);
			char e[1024] = "";
			const struct bench *all[SEL_SLOTS];
			int nall = 0;
			for (int s = 0; s < plan->nsec; s++)
				for (int b = 0; b < plan->sec[s].sub.nsel && nall < SEL_SLOTS; b++)
					all[nall++] = plan->sec[s].sub.sel[b];
			param_validate(all, nall, bench_table, bench_count, one, e, sizeof(e));
			json_decref(one);
			snprintf(err, errlen, "%s:%d: %s", kv->file, kv->line,
				 *e ? e : "not an option, and no job's bench takes it as a parameter");
			return -1;
		}
	}
	return 0;
}

int jobrun_sweep(struct runner *rn, const struct jobplan *plan, const char *dir, const char *target)
{
	const struct bench *sel[SEL_SLOTS];
	memcpy(sel, rn->sel, sizeof(sel));
	int nsel = rn->nsel, fit = rn->a.fit_oversub, worst = EXIT_OK;
	json_t *over = rn->over;
	struct sweep_opts so = rn->so;
	uint64_t repeat = rn->a.repeat;
	for (int k = 0; k < plan->nsec && !reg_stop_requested(); k++) {
		const struct runner *s = &plan->sec[k].sub;
		if (target && plan->sec[k].only_fs && !in_csv(plan->sec[k].only_fs, target))
			continue;
		memcpy(rn->sel, s->sel, sizeof(rn->sel));
		rn->nsel = s->nsel;
		rn->over = s->over;
		rn->so = s->so;
		rn->so.clk = so.clk;
		rn->so.exe = so.exe;
		rn->so.progress = so.progress;
		rn->so.progress_ctx = so.progress_ctx;
		rn->so.net = &rn->net;
		rn->a.repeat = s->a.repeat;
		rn->a.fit_oversub = s->a.fit_oversub;
		int nb0 = rn->r.nbenches;
		int ec = runner_sweep(rn, target ? dir : s->a.dir, target);
		for (int i = nb0; i < rn->r.nbenches; i++)
			if (!rn->r.benches[i].job && !(rn->r.benches[i].job = strdup(plan->sec[k].name)))
				ec = EXIT_RUNTIME;
		if (ec > worst)
			worst = ec;
	}
	memcpy(rn->sel, sel, sizeof(sel));
	rn->nsel = nsel;
	rn->over = over;
	rn->so = so;
	rn->a.repeat = repeat;
	rn->a.fit_oversub = fit;
	return worst;
}

void jobrun_free(struct jobplan *plan)
{
	for (int i = 0; i < plan->nsec; i++) {
		struct jobsec_plan *p = &plan->sec[i];
		json_decref(p->sub.over);
		for (int k = 0; k < p->nwords; k++)
			free(p->words[k]);
		for (int k = 0; k < p->nparam_strs; k++)
			free(p->param_strs[k]);
		free(p->name);
	}
	free(plan->sec);
	for (int k = 0; k < plan->nwords; k++)
		free(plan->words[k]);
	json_decref(plan->doc);
	if (plan->jf) {
		jobfile_free(plan->jf);
		free(plan->jf);
	}
	memset(plan, 0, sizeof(*plan));
}

/* One line "key = value", $ written $$ so that reading it back gives value. */
static int print_kv(FILE *f, const char *k, const json_t *v, char *err, size_t errlen)
{
	const char *s = json_string_value(v);
	if (!s || strpbrk(s, "\r\n")) {
		snprintf(err, errlen, "the job's %s is not one line of text", k);
		return -1;
	}
	fputs(k, f);
	if (*s) {
		fputs(" = ", f);
		for (; *s; s++)
			fputs(*s == '$' ? "$$" : (char[2]){*s, 0}, f);
	}
	fputc('\n', f);
	return 0;
}

/* A section from its resolved jobs (job.h, decoded by job_from_json, as a
 * worker would): the benches, N range, passes, scale, tasks, parameters;
 * what the description does not hold, or holds only derived (budget, ci,
 * dir, decide), from the keys the file gave; the words for the report. */
static int print_resolved(FILE *f, const json_t *keys, const json_t *res, char *err, size_t errlen)
{
	size_t n = json_array_size(res);
	struct job *js = calloc(n ? n : 1, sizeof(*js));
	int rc = js ? 0 : -1;
	char bench[2048] = "", num[64], e[512];
	if (!js)
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; !rc && i < n; i++)
		if (job_from_json(json_array_get(res, i), &js[i], e, sizeof(e))) {
			snprintf(err, errlen, "the job's description of its bench %zu: %s", i, e);
			rc = -1;
			n = i;
		} else {
			snprintf(bench + strlen(bench), sizeof(bench) - strlen(bench), "%s%s", *bench ? " " : "",
				 js[i].bench);
		}
	if (!rc && !n) {
		snprintf(err, errlen, "a job that ran no bench");
		rc = -1;
	}
	if (!rc) {
		const struct job *j = &js[0];
		static const char *const words[] = {"title", "axis", "reference", "reference-us", "note", "fs",
						    "budget", "ci", "dir", "decide", "fit-oversubscribed", NULL};
		json_t *b = json_string(bench);
		rc = print_kv(f, "bench", b, err, errlen);
		json_decref(b);
		for (int w = 0; !rc && words[w]; w++)
			if (json_object_get(keys, words[w]))
				rc = print_kv(f, words[w], json_object_get(keys, words[w]), err, errlen);
#define PRINT_NUM(key, cond, fmt, val)                                     \
	if (!rc && (cond)) {                                               \
		snprintf(num, sizeof(num), fmt, val);                      \
		json_t *t_ = json_string(num);                             \
		rc = print_kv(f, key, t_, err, errlen);                    \
		json_decref(t_);                                           \
	}
		PRINT_NUM("min-n", j->min_n, "%llu", (unsigned long long)j->min_n)
		PRINT_NUM("max-n", j->max_n, "%llu", (unsigned long long)j->max_n)
		/* a repeat the file or command line did not give stays unsaid: -r K
		 * keeps K repetitions, none given lets --decide add some */
		PRINT_NUM("repeat", j->repeat != 1 || json_object_get(keys, "repeat"), "%d", j->repeat)
		PRINT_NUM("tasks", j->tasks, "%llu", (unsigned long long)j->tasks)
		PRINT_NUM("max-latency", j->max_latency_ns > 0, "%.17g", j->max_latency_ns / 1e3)
#undef PRINT_NUM
		json_t *flag = json_string("");
		if (!rc && j->quick)
			rc = print_kv(f, "quick", flag, err, errlen);
		if (!rc && j->full)
			rc = print_kv(f, "full", flag, err, errlen);
		if (!rc && j->no_decide && !j->tasks)
			rc = print_kv(f, "no-decide", flag, err, errlen);
		if (!rc && j->profile && !j->profile_at && !j->profile_apart)
			rc = print_kv(f, "profile", flag, err, errlen);
		if (!rc && j->profile_apart)
			rc = print_kv(f, "profile-apart", flag, err, errlen);
		json_decref(flag);
		if (!rc && j->profile_at) {
			json_t *at = json_string(j->profile_at);
			rc = print_kv(f, "profile-at", at, err, errlen);
			json_decref(at);
		}
		json_t *params = json_object();
		for (size_t i = 0; i < n; i++)
			json_object_update(params, js[i].params);
		const char *k;
		json_t *v;
		json_object_foreach(params, k, v)
			if (!rc)
				rc = print_kv(f, k, v, err, errlen);
		json_decref(params);
	}
	for (size_t i = 0; js && i < n; i++)
		job_clear(&js[i]);
	free(js);
	return rc;
}

int jobrun_print(FILE *f, const json_t *job, const char *origin, char *err, size_t errlen)
{
	const json_t *g = json_object_get(job, "global"), *jobs = json_object_get(job, "jobs");
	if (!json_is_object(g) || !json_is_array(jobs)) {
		snprintf(err, errlen, "%s: the result records no job (it was not run from a job file)", origin);
		return -1;
	}
	const char *file = json_string_value(json_object_get(job, "file"));
	fprintf(f, "# The job of %s (from %s), includes and variables resolved:\n"
		   "# scalebench run THIS_FILE runs the same benches, parameters and N.\n",
		origin, file ? file : "a job file");
	const char *k;
	json_t *v;
	fprintf(f, "[global]\n");
	json_object_foreach((json_t *)g, k, v)
		if (print_kv(f, k, v, err, errlen))
			return -1;
	size_t i;
	json_t *j;
	json_array_foreach(jobs, i, j) {
		const char *name = json_string_value(json_object_get(j, "name"));
		const json_t *keys = json_object_get(j, "keys"), *res = json_object_get(j, "resolved");
		if (!name || !json_is_object(keys)) {
			snprintf(err, errlen, "%s: job %zu has no name or keys", origin, i);
			return -1;
		}
		fprintf(f, "\n[%s]\n", name);
		if (json_is_array(res)) {
			if (print_resolved(f, keys, res, err, errlen))
				return -1;
			continue;
		}
		json_object_foreach((json_t *)keys, k, v)
			if (print_kv(f, k, v, err, errlen))
				return -1;
	}
	return 0;
}
