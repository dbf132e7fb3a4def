/* SPDX-License-Identifier: MIT */
/* compare --ab SIDE_A SIDE_B [run options] [BENCH|FAMILY ...]: both sides
 * measured in one invocation, so that what drifts on a virtual machine
 * over tens of seconds moves both alike and cancels in the comparison.
 *
 * One mechanism for every kind of side (two builds, two file systems, two
 * settings): a side is a scalebench binary, a --dir and -p settings, and
 * for each selected bench and each repetition pair k the side's binary
 * runs `run BENCH -r 1 --no-db -q -o TMP ...` for A and for B back to
 * back, the order alternating (AB, BA, AB ..., starting with the other
 * side on every other bench) so that neither side always goes first. A
 * child is a whole `run`: its own snapshot, scratch directory, workers
 * and cleanup; what it hands back is a normal result file, read and
 * removed at once. Each side's repetitions are then merged into one
 * normal result (bench_fit over all of them) that records the pairing:
 * "ab" at the top, {pair, order} on each repetition (docs/result-schema.md).
 * compare tests two such sides on their pairs (compare.c).
 *
 * Before any work: both specs parsed, the binaries executable, the
 * directories usable, the benches and parameters checked as `run` would
 * (runner_prepare with this binary's bench table), the output files'
 * directories writable; a problem is exit 2 naming it. Ctrl-C (or
 * SIGTERM) reaches the running child, which cleans up after itself; then
 * the temporary directory goes and nothing is written. */
#include "cmd/ab.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/runner.h"
#include "core/clock.h"
#include "core/cmpstat.h"
#include "core/compare.h"
#include "core/registry.h"
#include "core/spawn.h"
#include "core/verdict.h"
#include "out/result_io.h"
#include "sys/sys.h"

#define AB_MAX_ARGS (2 * OPT_LIST_MAX + 40)

struct ab_side {
	const char *spec;
	char *buf;          /* the spec's copy, cut into its values */
	char label[40];
	const char *bin;    /* bin=: its path; NULL: this scalebench */
	const char *dir;    /* dir=: NULL: the command's --dir (or run's default) */
	const char *p[OPT_LIST_MAX];
	int np;
	char exe[4096];     /* what is started */
	char out[4096];     /* PREFIX-a.json, or "" */
};

/* A side: "-" (or "") for nothing different, else comma-separated
 * bin=PATH, dir=PATH, p=KEY=VALUE (repeatable), label=NAME. */
static int parse_side(struct ab_side *s, const char *spec, const char *which, char *err,
		      size_t errlen)
{
	s->spec = spec;
	snprintf(s->label, sizeof(s->label), "%s", which);
	s->buf = strdup(spec);
	if (!s->buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!strcmp(spec, "-") || !*spec)
		return 0;
	int have_label = 0;
	for (char *save = NULL, *tok = strtok_r(s->buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq || eq == tok || !eq[1]) {
			snprintf(err, errlen, "side %s '%.200s': '%.80s' is not KEY=VALUE (bin=PATH, "
				 "dir=PATH, p=KEY=VALUE, label=NAME, comma-separated; - for none)",
				 which, spec, tok);
			return -1;
		}
		*eq = 0;
		const char *v = eq + 1;
		if (!strcmp(tok, "bin") || !strcmp(tok, "dir")) {
			const char **dst = tok[0] == 'b' ? &s->bin : &s->dir;
			if (*dst) {
				snprintf(err, errlen, "side %s '%.200s': %s= given twice", which, spec, tok);
				return -1;
			}
			*dst = v;
		} else if (!strcmp(tok, "p")) {
			if (!strchr(v, '=') || *v == '=') {
				snprintf(err, errlen, "side %s '%.200s': p=%.80s is not p=KEY=VALUE", which,
					 spec, v);
				return -1;
			}
			if (s->np >= OPT_LIST_MAX) {
				snprintf(err, errlen, "side %s: more than %d p=", which, OPT_LIST_MAX);
				return -1;
			}
			s->p[s->np++] = v;
		} else if (!strcmp(tok, "label")) {
			size_t n = strlen(v);
			int ok = !have_label && n < sizeof(s->label);
			for (size_t i = 0; ok && i < n; i++)
				ok = (unsigned char)v[i] > ' ' && v[i] != 0x7f;
			if (!ok) {
				snprintf(err, errlen, "side %s '%.200s': label=%.80s: %s", which, spec, v,
					 have_label ? "given twice"
						    : "1 to 39 printable characters, no spaces");
				return -1;
			}
			have_label = 1;
			snprintf(s->label, sizeof(s->label), "%s", v);
		} else {
			snprintf(err, errlen, "side %s '%.200s': unknown key '%.40s' (bin=PATH, dir=PATH, "
				 "p=KEY=VALUE, label=NAME)", which, spec, tok);
			return -1;
		}
	}
	return 0;
}

/* The side's binary is a file this user can execute; its absolute path
 * into s->exe (this scalebench's own when bin= is not given). */
static int check_side(struct ab_side *s, const char *which, char *err, size_t errlen)
{
	if (!s->bin) {
		int rc = sys_self_exe("scalebench", s->exe, sizeof(s->exe));
		if (rc) {
			snprintf(err, errlen, "cannot find this scalebench's executable to run side %s: %s",
				 which, strerror(-rc));
			return -1;
		}
	} else {
		struct stat st;
		if (!strchr(s->bin, '/')) {
			snprintf(err, errlen, "side %s: bin=%.200s: give a path (./%.200s)", which, s->bin,
				 s->bin);
			return -1;
		}
		const char *why = stat(s->bin, &st) ? strerror(errno)
				  : !S_ISREG(st.st_mode)    ? "not a regular file"
				  : access(s->bin, X_OK)    ? "not executable"
							    : NULL;
		if (why) {
			snprintf(err, errlen, "side %s: bin=%.200s: %s", which, s->bin, why);
			return -1;
		}
		if (!realpath(s->bin, s->exe)) {
			snprintf(err, errlen, "side %s: bin=%.200s: %s", which, s->bin, strerror(errno));
			return -1;
		}
	}
	if (s->dir && runner_check_dir(s->dir, err, errlen)) {
		char m[1024];
		snprintf(m, sizeof(m), "side %s: dir=: %.900s", which, err);
		snprintf(err, errlen, "%s", m);
		return -1;
	}
	return 0;
}

/* What `run` would refuse, refused now: the benches, this side's and the
 * common parameters (with this binary's bench table), --quick with
 * --full, the output file. */
static int check_run(const struct ab_args *a, const struct ab_side *s, const char *which, char **words,
		     int nwords, char *err, size_t errlen)
{
	struct runner rn;
	runner_defaults(&rn, "compare --ab");
	rn.a.quick = a->quick;
	rn.a.full = a->full;
	rn.a.repeat = 1;
	rn.a.repeat_seen = 1;
	rn.a.cpus = a->cpus;
	rn.a.output = s->out[0] ? s->out : NULL;
	for (int i = 0; i < a->params.n && rn.a.params.n < OPT_LIST_MAX; i++)
		rn.a.params.v[rn.a.params.n++] = a->params.v[i];
	for (int i = 0; i < s->np; i++) {
		if (rn.a.params.n >= OPT_LIST_MAX) {
			snprintf(err, errlen, "side %s: more than %d -p in all", which, OPT_LIST_MAX);
			return -1;
		}
		rn.a.params.v[rn.a.params.n++] = s->p[i];
	}
	char m[1024];
	int rc = runner_prepare(&rn, words, nwords, m, sizeof(m));
	json_decref(rn.over);
	if (rc)
		snprintf(err, errlen, "side %s: %.900s", which, m);
	return rc;
}

/* The command line of one child: side s, bench name, into file out. */
static int child_argv(const struct ab_args *a, const struct ab_side *s, const char *bench,
		      const char *out, char **av, char (*num)[32])
{
	int n = 0, k = 0;
	av[n++] = (char *)s->exe;
	av[n++] = "run";
	av[n++] = (char *)bench;
	av[n++] = "-r";
	av[n++] = "1";
	av[n++] = "--no-db";
	av[n++] = "-q";
	av[n++] = "-f";
	av[n++] = "text";
	av[n++] = "-o";
	av[n++] = (char *)out;
	if (a->quick)
		av[n++] = "--quick";
	if (a->full)
		av[n++] = "--full";
	if (a->max_n) {
		snprintf(num[k], 32, "%llu", (unsigned long long)a->max_n);
		av[n++] = "-n";
		av[n++] = num[k++];
	}
	if (a->min_n) {
		snprintf(num[k], 32, "%llu", (unsigned long long)a->min_n);
		av[n++] = "--min-n";
		av[n++] = num[k++];
	}
	if (a->budget_seen) {
		snprintf(num[k], 32, "%.17g", a->budget);
		av[n++] = "-b";
		av[n++] = num[k++];
	}
	if (a->ci_seen) {
		snprintf(num[k], 32, "%.17g", a->ci_pct);
		av[n++] = "--ci";
		av[n++] = num[k++];
	}
	const char *dir = s->dir ? s->dir : a->dir;
	if (dir) {
		av[n++] = "--dir";
		av[n++] = (char *)dir;
	}
	if (a->cpus) {
		av[n++] = "--cpus";
		av[n++] = (char *)a->cpus;
	}
	for (int i = 0; i < a->params.n; i++) {
		av[n++] = "-p";
		av[n++] = (char *)a->params.v[i];
	}
	for (int i = 0; i < s->np; i++) {
		av[n++] = "-p";
		av[n++] = (char *)s->p[i];
	}
	av[n] = NULL;
	return n;
}

/* Runs one child to its end (registered: an error or exit of ours kills
 * it). An interrupt of ours is passed on to it (it stops, cleans up and
 * exits); Ctrl-C reaches it anyway (the same process group). Its status,
 * or -1 with err. */
static int run_child(char *const *av, int *status, char *err, size_t errlen)
{
	char say[4200];
	snprintf(say, sizeof(say), "scalebench compare --ab: cannot start %s", av[0]);
	/* its summary goes nowhere: ours is the comparison */
	const struct spawn_opts so = {.flags = SPAWN_DIES_WITH_PARENT | SPAWN_STDOUT_NULL,
				      .exec_fail = say, .what = "a side's run"};
	struct spawn c;
	if (spawn_start(&c, av[0], av, &so, err, errlen))
		return -1;
	int rc = spawn_wait(&c, SPAWN_PASS);
	if (rc) {
		snprintf(err, errlen, "waitpid: %s", strerror(-rc));
		return -1;
	}
	*status = c.status;
	return 0;
}

/* got's bench b (name and variant, target) into acc: a new bench, or its
 * repetitions appended to the one acc has; got's bench is left empty. */
static int merge_bench(struct run_result *acc, struct bench_result *b, int pair, int order,
		       double started_s)
{
	char kb[200], ka[200];
	compare_bench_key(b, kb, sizeof(kb));
	struct bench_result *d = NULL;
	for (int i = 0; i < acc->nbenches && !d; i++)
		if (acc->benches[i].name && !strcmp(compare_bench_key(&acc->benches[i], ka, sizeof(ka)), kb))
			d = &acc->benches[i];
	for (int r = 0; r < b->nreps; r++) {
		b->reps[r].ab_pair = pair;
		b->reps[r].ab_order = order;
		b->reps[r].started_s = started_s;
	}
	if (!d) {
		struct bench_result *n = result_add_bench(acc);
		if (!n)
			return -1;
		*n = *b;
		memset(b, 0, sizeof(*b));
		return 0;
	}
	for (int r = 0; r < b->nreps; r++) {
		struct repetition *rep = bench_add_rep(d);
		if (!rep)
			return -1;
		*rep = b->reps[r];
		memset(&b->reps[r], 0, sizeof(b->reps[r]));
	}
	for (int i = 0; i < b->nnotes; i++) {
		int dup = 0;
		for (int j = 0; j < d->nnotes && !dup; j++)
			dup = !strcmp(d->notes[j], b->notes[i]);
		if (!dup)
			bench_add_note(d, "%s", b->notes[i]);
	}
	if (b->status != BS_OK && d->status == BS_OK) {
		d->status = b->status;
		d->skip_reason = b->skip_reason;
		b->skip_reason = NULL;
	}
	return 0;
}

/* A child's result into the side's: the first one is the side's header
 * (snapshot, clock, options); the benches of every one are merged. */
static int merge_result(struct run_result *acc, int *have, struct run_result *got, int pair,
			int order, double started_s)
{
	for (int i = 0; i < got->nbenches; i++)
		if (merge_bench(acc, &got->benches[i], pair, order, started_s))
			return -1;
	if (!*have) {
		struct bench_result *keep = acc->benches;
		int nkeep = acc->nbenches;
		for (int i = 0; i < got->nbenches; i++)
			bench_result_clear(&got->benches[i]);
		free(got->benches);
		*acc = *got;
		acc->benches = keep;
		acc->nbenches = nkeep;
		memset(got, 0, sizeof(*got));
		*have = 1;
		return 0;
	}
	free(acc->finished);
	acc->finished = got->finished;
	got->finished = NULL;
	acc->interrupted |= got->interrupted;
	result_free(got);
	return 0;
}

/* The keys both sides set with p= to different values (k=v1, k=v2): a
 * bench's variant names them ("tracer=ptrace"), so they are dropped from
 * its variant on both sides for the benches to match (the value stays in
 * the bench's params and in ab.spec). Into keys (room for OPT_LIST_MAX). */
static int differing_keys(const struct ab_side *sd, char (*keys)[64])
{
	int n = 0;
	for (int i = 0; i < sd[0].np; i++)
		for (int j = 0; j < sd[1].np; j++) {
			size_t ki = strcspn(sd[0].p[i], "="), kj = strcspn(sd[1].p[j], "=");
			if (ki != kj || ki >= 64 || strncmp(sd[0].p[i], sd[1].p[j], ki) ||
			    !strcmp(sd[0].p[i], sd[1].p[j]))
				continue;
			int dup = 0;
			for (int k = 0; k < n && !dup; k++)
				dup = strlen(keys[k]) == ki && !strncmp(keys[k], sd[0].p[i], ki);
			if (!dup && n < OPT_LIST_MAX)
				snprintf(keys[n++], 64, "%.*s", (int)ki, sd[0].p[i]);
		}
	return n;
}

/* b's variant without the entries KEY=... of keys (NULL when none is left). */
static void drop_variant_keys(struct bench_result *b, char (*keys)[64], int nkeys)
{
	if (!b->variant || !nkeys)
		return;
	size_t len = strlen(b->variant), o = 0;
	char *out = malloc(len + 1);
	if (!out)
		return;
	for (const char *p = b->variant; *p;) {
		size_t e = strcspn(p, ","), k = strcspn(p, "=");
		int drop = 0;
		for (int i = 0; i < nkeys && !drop; i++)
			drop = k < e && strlen(keys[i]) == k && !strncmp(p, keys[i], k);
		if (!drop) {
			if (o)
				out[o++] = ',';
			memcpy(out + o, p, e);
			o += e;
		}
		p += e + (p[e] == ',');
	}
	out[o] = 0;
	free(b->variant);
	b->variant = o ? out : NULL;
	if (!o)
		free(out);
}

/* The merged side: every bench refitted over all its repetitions; the
 * command line, the duration, the repetitions and the pairing recorded. */
static int finish_side(struct run_result *r, const struct ab_side *s, const char *side, const char *id,
		       int pairs, double duration, int argc, char **argv, char (*keys)[64], int nkeys)
{
	for (int i = 0; i < r->nbenches; i++) {
		drop_variant_keys(&r->benches[i], keys, nkeys);
		bench_fit(&r->benches[i]);
	}
	for (int i = 0; i < r->argc; i++)
		free(r->argv[i]);
	free(r->argv);
	r->argv = calloc((size_t)argc + 1, sizeof(char *));
	r->argc = 0;
	for (int i = 0; r->argv && i < argc; i++)
		if ((r->argv[r->argc] = strdup(argv[i])))
			r->argc++;
	r->duration_s = duration;
	if (!r->options)
		r->options = json_object();
	json_object_set_new(r->options, "repeat", json_integer(pairs));
	json_object_set_new(r->options, "output", s->out[0] ? json_string(s->out) : json_null());
	r->ab = json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:s}", "id", id, "side", side, "label", s->label,
			  "spec", s->spec, "binary", s->exe, "pairs", pairs, "order", "alternating");
	json_t *dk = json_array();
	for (int i = 0; i < nkeys; i++)
		json_array_append_new(dk, json_string(keys[i]));
	if (r->ab && nkeys) /* the settings the sides differ in, off the variants */
		json_object_set_new(r->ab, "variant_keys_dropped", dk);
	else
		json_decref(dk);
	return r->ab && r->argv ? 0 : -1;
}

static void free_sides(struct ab_side *s)
{
	for (int i = 0; i < 2; i++)
		free(s[i].buf);
}

/* What the pairs of one compare --ab share. */
struct ab_run_ctx {
	const struct ab_args *a;
	struct ab_side *sd;
	struct run_result *rs; /* [2]: the sides as merged so far */
	const struct bench *const *sel;
	const char *scratch;
	uint64_t t0;
	int have[2];
};

/* Pair k (0-based, of `of` planned so far) of selected bench b: both
 * sides' runs back to back, the order AB, BA, ... alternating with k, and
 * the other way on the next bench; each result merged into its side. 0, or
 * an exit code with err. */
static int ab_pair(struct ab_run_ctx *c, int b, int k, int of, char *err, size_t errlen)
{
	const struct ab_args *a = c->a;
	const struct bench *bn = c->sel[b];
	char *av[AB_MAX_ARGS];
	char num[8][32], out[4200];
	int first = (b + k) % 2;
	if (!a->quiet)
		fprintf(stderr, "compare --ab: %s, pair %d of %d (%s, then %s)\n", bn->name, k + 1,
			of, c->sd[first].label, c->sd[!first].label);
	for (int o = 0; o < 2; o++) {
		int s = o ? !first : first, status = 0;
		snprintf(out, sizeof(out), "%s/%d-%d-%c.json", c->scratch, b, k, 'a' + s);
		child_argv(a, &c->sd[s], bn->name, out, av, num);
		double at = (double)(clock_ns() - c->t0) / 1e9;
		if (run_child(av, &status, err, errlen))
			return EXIT_RUNTIME;
		if (reg_stop_requested()) {
			snprintf(err, errlen, "interrupted by signal %d: nothing written",
				 (int)reg_interrupted);
			return EXIT_SIGNAL + (int)reg_interrupted;
		}
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		if (code != EXIT_OK && code != EXIT_RUNTIME && code != EXIT_REGRESSION) {
			char how[64];
			snprintf(err, errlen, "side %s: `%.900s run %s` %s (its message above)",
				 c->sd[s].label, c->sd[s].exe, bn->name,
				 spawn_status_text(status, 0, how, sizeof(how)));
			return code == EXIT_USAGE ? EXIT_USAGE : EXIT_RUNTIME;
		}
		struct run_result got;
		char m[512];
		memset(&got, 0, sizeof(got));
		if (result_read_file(out, &got, m, sizeof(m))) {
			result_free(&got);
			snprintf(err, errlen, "side %s: %s: no result (%s)", c->sd[s].label, bn->name, m);
			return EXIT_RUNTIME;
		}
		unlink(out);
		if (merge_result(&c->rs[s], &c->have[s], &got, k + 1, o + 1, at)) {
			result_free(&got);
			snprintf(err, errlen, "out of memory");
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

/* Whether a compare's bench key ("name", "name[variant]", "name@target")
 * is of the bench called name. */
static int key_of(const char *key, const char *name)
{
	size_t n = strlen(name);
	return key && !strncmp(key, name, n) && (!key[n] || key[n] == '[' || key[n] == '@');
}

/* --detect: what each selected bench's repetition test would find 9 times
 * in 10 now (docs/compare.md, "Power": detectable), the smaller of its
 * sweep and top-third tests, the largest over the bench's variants (NAN:
 * no variant tested on repetitions). The sides as merged so far are
 * copied, finished as they will be and compared with the options the
 * final compare uses. 0, or -1 when out of memory. */
static int detectable_now(struct ab_run_ctx *c, int nsel, const char *id, char (*keys)[64], int nkeys,
			  double *det)
{
	struct run_result cp[2];
	memset(cp, 0, sizeof(cp));
	int rc = -1, reg = 0;
	json_t *j = NULL;
	for (int s = 0; s < 2; s++) {
		char m[256];
		json_t *t = result_to_json(&c->rs[s]);
		int bad = !t || result_from_json(t, &cp[s], m, sizeof(m));
		json_decref(t);
		if (bad || finish_side(&cp[s], &c->sd[s], s ? "b" : "a", id, (int)c->a->repeat, 0, 0,
				       NULL, keys, nkeys))
			goto out;
	}
	if (!(j = compare_results(&cp[0], "A", &cp[1], "B", c->a->cmp, &reg)))
		goto out;
	for (int b = 0; b < nsel; b++)
		det[b] = NAN;
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(j, "benches"), i, e) {
		json_t *d = json_object_get(json_object_get(e, "repetition_test"), "detectable");
		double sw = json_number_value(json_object_get(d, "sweep_pct"));
		double tp = json_number_value(json_object_get(d, "top_pct"));
		double v = !json_is_number(json_object_get(d, "top_pct")) ? sw
			   : !json_is_number(json_object_get(d, "sweep_pct")) ? tp
									       : fmin(sw, tp);
		const char *w = json_string_value(json_object_get(e, "word"));
		if (w && !strcmp(w, "insufficient")) /* too few pairs to test at all */
			v = INFINITY;
		if (!(v > 0))
			continue;
		const char *key = json_string_value(json_object_get(e, "name"));
		for (int b = 0; b < nsel; b++)
			if (key_of(key, c->sel[b]->name) && !(det[b] >= v))
				det[b] = v;
	}
	rc = 0;
out:
	json_decref(j);
	for (int s = 0; s < 2; s++)
		result_free(&cp[s]);
	return rc;
}

/* --detect PCT (sequential, on the variance only): after the first pairs,
 * a bench whose test would find only a change larger than PCT gets more
 * pairs, about as many as its standard error says it needs (the change
 * found falls as 1/sqrt(pairs)), at most doubling its pairs at a time and
 * up to --max-pairs, then is looked at again. What decides is each
 * bench's spread, never the change measured, so the tests keep their
 * false-alarm rate (Stein's two-stage design). added[b]: pairs added. */
static int top_up(struct ab_run_ctx *c, int nsel, const char *id, char (*keys)[64], int nkeys,
		  int *added, char *err, size_t errlen)
{
	const struct ab_args *a = c->a;
	int pairs = (int)a->repeat, maxp = (int)a->max_pairs;
	double *det = calloc((size_t)nsel + 1, sizeof(double));
	int rc = 0;
	if (!det) {
		snprintf(err, errlen, "out of memory");
		return EXIT_RUNTIME;
	}
	for (int round = 0; round < 16; round++) {
		if (detectable_now(c, nsel, id, keys, nkeys, det)) {
			snprintf(err, errlen, "out of memory");
			rc = EXIT_RUNTIME;
			break;
		}
		int more = 0;
		for (int b = 0; b < nsel; b++) {
			int have = pairs + added[b];
			int want = cmp_pairs_wanted(have, det[b], a->detect_pct, maxp);
			if (want <= have)
				continue;
			if (!a->quiet && isinf(det[b]))
				fprintf(stderr, "compare --ab: %s: too few pairs to test (--detect %g%%): "
						"%d more\n", c->sel[b]->name, a->detect_pct, want - have);
			else if (!a->quiet)
				fprintf(stderr, "compare --ab: %s finds %.1f%% with %d pairs (--detect %g%%): "
						"%d more\n", c->sel[b]->name, det[b], have, a->detect_pct,
					want - have);
			for (int k = have; k < want; k++)
				if ((rc = ab_pair(c, b, k, want, err, errlen)))
					goto out;
			added[b] = want - pairs;
			more = 1;
		}
		if (!more)
			break;
	}
out:
	free(det);
	return rc;
}

/* The top-up in the side's "ab": the target, the cap and each bench's
 * pairs added (0 for the others). */
static int record_top_up(struct run_result *r, const struct ab_args *a, const struct bench *const *sel,
			 int nsel, const int *added)
{
	json_t *ad = json_object();
	for (int b = 0; ad && b < nsel; b++)
		json_object_set_new(ad, sel[b]->name, json_integer(added[b]));
	if (!ad)
		return -1;
	json_object_set_new(r->ab, "detect_pct", json_real(a->detect_pct));
	json_object_set_new(r->ab, "max_pairs", json_integer((json_int_t)a->max_pairs));
	json_object_set_new(r->ab, "pairs_added", ad);
	return 0;
}

int ab_run(struct ab_args *a, char **pos, int npos, int argc, char **argv,
	   struct run_result rs[2], char (*labels)[64])
{
	char err[1024];
	struct ab_side sd[2];
	memset(sd, 0, sizeof(sd));
	memset(rs, 0, 2 * sizeof(*rs));
	static const char *const which[2] = {"A", "B"};
	int rc = EXIT_USAGE;
	if (npos < 2) {
		snprintf(err, sizeof(err), "--ab needs two sides: compare --ab SIDE_A SIDE_B [BENCH ...] "
			 "(a side: - or bin=PATH,dir=PATH,p=KEY=VALUE,label=NAME)");
		goto fail;
	}
	if (!a->repeat_seen)
		a->repeat = 5;
	if (a->repeat < 2) {
		snprintf(err, sizeof(err), "--ab needs at least 2 repetition pairs (-r 2; default 5)");
		goto fail;
	}
	for (int i = 0; i < 2; i++) {
		if (parse_side(&sd[i], pos[i], which[i], err, sizeof(err)))
			goto fail;
		if (a->output) {
			int n = snprintf(sd[i].out, sizeof(sd[i].out), "%s-%c.json", a->output, 'a' + i);
			if (n < 0 || (size_t)n >= sizeof(sd[i].out)) {
				snprintf(err, sizeof(err), "-o %.200s: too long", a->output);
				goto fail;
			}
		}
	}
	if (!strcmp(sd[0].label, sd[1].label)) {
		snprintf(err, sizeof(err), "both sides are labelled '%s': give them different label=",
			 sd[0].label);
		goto fail;
	}
	if (a->dir && runner_check_dir(a->dir, err, sizeof(err)))
		goto fail;
	const struct bench *sel[SEL_SLOTS];
	int nsel = 0;
	for (int i = 0; i < 2; i++)
		if (check_side(&sd[i], which[i], err, sizeof(err)) ||
		    check_run(a, &sd[i], which[i], pos + 2, npos - 2, err, sizeof(err)))
			goto fail;
	if (runner_select(pos + 2, npos - 2, sel, &nsel, err, sizeof(err)))
		goto fail;

	/* the work: every bench, every pair, both sides back to back */
	rc = EXIT_RUNTIME;
	int r0 = reg_init();
	if (r0) {
		snprintf(err, sizeof(err), "cannot install signal handlers: %s", strerror(-r0));
		goto fail;
	}
	const char *tmp = getenv("TMPDIR");
	char scratch[4096], id[96], ts[32];
	int mk = reg_mkscratch(tmp && *tmp ? tmp : "/tmp", "scalebench-ab", scratch, sizeof(scratch));
	if (mk) {
		snprintf(err, sizeof(err), "cannot make a temporary directory: %s", strerror(-mk));
		goto fail;
	}
	sys_iso_utc(NULL, 0, ts, sizeof(ts));
	snprintf(id, sizeof(id), "%s-%ld", ts, (long)getpid());
	int pairs = (int)a->repeat;
	struct ab_run_ctx c = {.a = a, .sd = sd, .rs = rs, .sel = sel, .scratch = scratch,
			       .t0 = clock_ns()};
	for (int b = 0; b < nsel; b++)
		for (int k = 0; k < pairs; k++)
			if ((rc = ab_pair(&c, b, k, pairs, err, sizeof(err))))
				goto fail;
	char keys[OPT_LIST_MAX][64];
	int nkeys = differing_keys(sd, keys);
	int added[SEL_SLOTS] = {0};
	if (a->detect_pct > 0 && (rc = top_up(&c, nsel, id, keys, nkeys, added, err, sizeof(err))))
		goto fail;
	double dur = (double)(clock_ns() - c.t0) / 1e9;
	for (int s = 0; s < 2; s++)
		if (finish_side(&rs[s], &sd[s], s ? "b" : "a", id, pairs, dur, argc, argv, keys, nkeys) ||
		    (a->detect_pct > 0 && record_top_up(&rs[s], a, sel, nsel, added))) {
			snprintf(err, sizeof(err), "out of memory");
			goto fail;
		}
	reg_cleanup();
	for (int s = 0; s < 2; s++)
		if (sd[s].out[0] && result_write_file(&rs[s], sd[s].out, err, sizeof(err))) {
			char m[1024];
			snprintf(m, sizeof(m), "cannot write %.300s: %.600s", sd[s].out, err);
			snprintf(err, sizeof(err), "%s", m);
			if (s)
				unlink(sd[0].out); /* both or neither */
			goto fail;
		}
	for (int s = 0; s < 2; s++)
		snprintf(labels[s], 64, "%s", sd[s].label);
	free_sides(sd);
	return EXIT_OK;
fail:
	fprintf(stderr, "scalebench compare --ab: %s\n", err);
	reg_cleanup();
	for (int s = 0; s < 2; s++)
		result_free(&rs[s]);
	memset(rs, 0, 2 * sizeof(*rs));
	free_sides(sd);
	return rc;
}
