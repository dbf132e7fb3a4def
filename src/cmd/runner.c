/* SPDX-License-Identifier: MIT */
#include "cmd/runner.h"
#include "core/probe.h"
#include "core/profile.h"
#include "core/tasks.h"
#include "out/report.h"

#include <errno.h>
#include <stddef.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <unistd.h>

#include "core/clock.h"
#include "cmd/cmd.h"
#include "core/param.h"
#include "cmd/fsspec.h"
#include "core/registry.h"
#include "sys/sys.h"
#include "core/verdict.h"
#include "cmd/worker.h"

void runner_defaults(struct runner *rn, const char *cmd)
{
	memset(rn, 0, sizeof(*rn));
	rn->cmd = cmd;
	rn->a.format = "text";
	rn->a.repeat = 1;
	rn->a.ci_pct = 2.0;
	const char *tmp = getenv("TMPDIR");
	rn->a.dir = tmp && *tmp ? tmp : "/tmp";
	rn->net.family = AF_INET;
	rn->net.srv_nsfd = -1;
}

int runner_check_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	if (stat(dir, &st)) {
		snprintf(err, errlen, "--dir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--dir %s: not a directory", dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK)) {
		snprintf(err, errlen, "--dir %s: not writable: %s", dir, strerror(errno));
		return -1;
	}
	/* Kernel pseudo file systems hold no files of ours; root passes the
	 * access() check above on them, and the scratch directory would fail
	 * only after the run has begun. */
	static const char *const pseudo[] = {"proc", "sysfs", "cgroup", "cgroup2", "debugfs",
					     "tracefs", "securityfs", "pstore", "bpf", "configfs",
					     "efivarfs", "devpts", "mqueue", "fusectl", "binfmt_misc",
					     "selinuxfs", "nsfs", "rpc_pipefs", "autofs", NULL};
	char type[64];
	if (sys_fs_type(dir, type, sizeof(type)) == 0)
		for (int i = 0; pseudo[i]; i++)
			if (!strcmp(type, pseudo[i])) {
				snprintf(err, errlen, "--dir %s: a %s pseudo file system, which holds no "
					 "files of ours; choose a directory on a real file system or tmpfs",
					 dir, type);
				return -1;
			}
	/* Whatever else refuses a directory (read-only mount, no space,
	 * a FUSE file system that refuses mkdir) is found now, by making one
	 * and removing it at once. */
	char probe[4096];
	snprintf(probe, sizeof(probe), "%s/.scalebench-probe.XXXXXX", dir);
	if (!mkdtemp(probe)) {
		snprintf(err, errlen, "--dir %s: cannot make a directory there: %s", dir, strerror(errno));
		return -1;
	}
	if (rmdir(probe)) {
		snprintf(err, errlen, "--dir %s: cannot remove the probe directory %s: %s", dir, probe,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* The output file's directory must exist and be writable before any work. */
static int check_output(const char *opt, const char *path, char *err, size_t errlen)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", path);
	const char *d = dirname(buf);
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s %s: is a directory", opt, path);
		return -1;
	}
	if (access(d, W_OK | X_OK)) {
		snprintf(err, errlen, "%s %s: cannot write in %s: %s", opt, path, d, strerror(errno));
		return -1;
	}
	/* root passes access() where no file can be made (/proc, a read-only
	 * mount, a full disk...): make the temporary file the result will be
	 * written through (result_write_file: PATH.tmp.XXXXXX, renamed), and
	 * remove it at once, so that the run cannot end unable to write */
	char probe[4096];
	int n = snprintf(probe, sizeof(probe), "%s.tmp.XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(probe)) {
		snprintf(err, errlen, "%s %s: path too long", opt, path);
		return -1;
	}
	int fd = mkstemp(probe);
	if (fd < 0) {
		snprintf(err, errlen, "%s %s: cannot make a file there: %s", opt, path, strerror(errno));
		return -1;
	}
	close(fd);
	unlink(probe);
	return 0;
}

static int select_benches(char **pos, int npos, const struct bench **sel, int *nsel, char *err,
			  size_t errlen)
{
	*nsel = 0;
	if (npos == 0) {
		for (int i = 0; i < bench_count; i++)
			sel[(*nsel)++] = bench_table[i];
		return 0;
	}
	for (int p = 0; p < npos; p++) {
		const char *w = pos[p];
		size_t wl = strlen(w);
		if (wl > 2 && !strcmp(w + wl - 2, ".*"))
			wl -= 2; /* "fs.*" = "fs" */
		int found = 0;
		for (int i = 0; i < bench_count; i++) {
			const char *nm = bench_table[i]->name;
			int match = !strncmp(nm, w, wl) &&
				    (nm[wl] == 0 || (nm[wl] == '.' && !memchr(w, '.', wl)));
			if (!match)
				continue;
			found = 1;
			int dup = 0;
			for (int k = 0; k < *nsel; k++)
				dup |= sel[k] == bench_table[i];
			if (dup)
				continue;
			if (*nsel >= SEL_SLOTS) { /* cannot happen while sel has a slot per bench */
				snprintf(err, errlen, "more than %d benches selected", SEL_SLOTS);
				return -1;
			}
			sel[(*nsel)++] = bench_table[i];
		}
		if (!found) {
			snprintf(err, errlen, "unknown bench or family '%s' (see `scalebench list`)", w);
			return -1;
		}
	}
	return 0;
}

int runner_select(char **words, int nwords, const struct bench **sel, int *nsel, char *err,
		  size_t errlen)
{
	return select_benches(words, nwords, sel, nsel, err, errlen);
}

/* -p key=value ... as a JSON object of strings. */
static int params_json(const struct opt_list *l, json_t **out, char *err, size_t errlen)
{
	*out = json_object();
	for (int i = 0; i < l->n; i++) {
		const char *eq = strchr(l->v[i], '=');
		if (!eq || eq == l->v[i] || strchr(l->v[i], ',')) {
			snprintf(err, errlen, "--param '%s': not of the form KEY=VALUE%s", l->v[i],
				 eq && eq != l->v[i] && strchr(eq, ',')
					 ? " (a value holds no comma: give each KEY=VALUE its own -p; a CPU "
					   "list is written 0-1 or 0+2)"
					 : "");
			json_decref(*out);
			*out = NULL;
			return -1;
		}
		char key[128];
		json_t *val = json_string(eq + 1); /* NULL: not UTF-8 */
		const char *why = eq - l->v[i] >= (ptrdiff_t)sizeof(key) - 1 ? "key too long"
				  : !val					 ? "not UTF-8 text"
										 : NULL;
		if (!why) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - l->v[i]), l->v[i]);
			if (json_object_get(*out, key))
				why = "given twice (one value per key; without -p every variant runs)";
		}
		if (why || json_object_set_new(*out, key, val)) {
			snprintf(err, errlen, "--param '%.80s': %s", l->v[i], why ? why : "out of memory");
			if (why)
				json_decref(val);
			json_decref(*out);
			*out = NULL;
			return -1;
		}
	}
	return 0;
}

/* The variants of b that agree with the overrides (NULL alone for a bench
 * without variants); count returned, -1 if none agrees. */
static int bench_variants(const struct bench *b, const json_t *over, const char **out, int cap)
{
	int k = 0;
	if (!b->variants) {
		out[k++] = NULL;
		return k;
	}
	for (const char *const *v = b->variants; *v && k < cap; v++) {
		json_t *p;
		if (sweep_params(*v, over, &p) == 0) {
			out[k++] = *v;
			json_decref(p);
		}
	}
	return k ? k : -1;
}

uint64_t runner_space_bytes(const struct runner *rn, const struct bench **which)
{
	uint64_t most = 0;
	const char *vars[64];
	*which = NULL;
	for (int i = 0; i < rn->nsel; i++) {
		const struct bench *b = rn->sel[i];
		int nv = bench_variants(b, rn->over, vars, 64);
		for (int vi = 0; vi < nv; vi++) {
			uint64_t need = (b->space_mib ? b->space_mib : 64) << 20;
			json_t *p = NULL;
			if (b->space_bytes && sweep_params(vars[vi], rn->over, &p) == 0) {
				struct bench_env env;
				memset(&env, 0, sizeof(env));
				env.dirfd = -1;
				env.max_n = sweep_max_n(b, &rn->so);
				env.quick = rn->a.quick;
				env.params = p;
				env.bench = b; /* bench_param's defaults come from its table */
				need = b->space_bytes(&env);
			}
			json_decref(p);
			if (need > most || !*which) {
				most = need;
				*which = b;
			}
		}
	}
	return most;
}

/* --tasks K|auto into *k (0: not given), checked against the selected
 * benches; -p as= and shared= only with it. 0, or -1 with a message. */
static int runner_tasks(const struct runner *rn, uint64_t *k, char *err, size_t errlen)
{
	const char *v = rn->a.tasks;
	*k = 0;
	if (v) {
		char *end;
		unsigned long long x = strtoull(v, &end, 10);
		if (!strcmp(v, "auto"))
			*k = tasks_default_max(rn->a.quick);
		else if (*v >= '0' && *v <= '9' && !*end && x >= 1 && x <= TASKS_MAX)
			*k = x;
		else {
			snprintf(err, errlen, "--tasks: '%.40s' is not a count of tasks in 1..%d or auto", v,
				 TASKS_MAX);
			return -1;
		}
		for (int i = 0; i < rn->nsel; i++)
			if (rn->sel[i]->tasks == BENCH_TASKS_NONE) {
				char names[512] = "";
				for (int j = 0; j < bench_count; j++)
					if (bench_table[j]->tasks && strlen(names) + 40 < sizeof(names))
						snprintf(names + strlen(names), sizeof(names) - strlen(names),
							 "%s%s", names[0] ? ", " : "", bench_table[j]->name);
				snprintf(err, errlen, "--tasks: %s is not a per-op bench that tasks can share "
						      "(those that are: %s)", rn->sel[i]->name, names);
				return -1;
			}
		return 0;
	}
	static const char *const keys[] = {"as", "shared"};
	for (int i = 0; i < 2; i++)
		if (json_object_get(rn->over, keys[i])) {
			snprintf(err, errlen, "-p %s=...: a parameter of the tasks axis; give --tasks K too",
				 keys[i]);
			return -1;
		}
	return 0;
}

int runner_prepare(struct runner *rn, char **pos, int npos, char *err, size_t errlen)
{
	struct run_args *a = &rn->a;
	if (a->quick && a->full) {
		snprintf(err, errlen, "--quick and --full exclude each other");
		return -1;
	}
	if (a->decide && a->no_decide) {
		snprintf(err, errlen, "--decide and --no-decide exclude each other");
		return -1;
	}
	if (a->host_label) {
		size_t n = strlen(a->host_label), ok = 0 < n && n < 128;
		for (size_t i = 0; ok && i < n; i++)
			ok = (unsigned char)a->host_label[i] > ' ' && a->host_label[i] != 0x7f;
		if (!ok) {
			snprintf(err, errlen, "--host-label: '%.40s' is not a host name (1 to 127 "
					      "printable characters, no spaces)", a->host_label);
			return -1;
		}
	}
	if (a->cpus && sys_set_cpus(a->cpus, err, errlen))
		return -1;
	if (select_benches(pos, npos, rn->sel, &rn->nsel, err, errlen) ||
	    params_json(&a->params, &rn->over, err, errlen) ||
	    param_validate(rn->sel, rn->nsel, bench_table, bench_count, rn->over, err, errlen) ||
	    (a->output && check_output("-o", a->output, err, errlen)) ||
	    (a->report && check_output("--report", a->report, err, errlen)))
		return -1;
	const char *vars[64];
	for (int i = 0; i < rn->nsel; i++) {
		const struct bench *b = rn->sel[i];
		int nv = bench_variants(b, rn->over, vars, 64);
		if (nv < 0) {
			param_no_variant(b, rn->over, err, errlen);
			return -1;
		}
		for (int v = 0; b->check && !b->unavailable && v < nv; v++) {
			json_t *p = NULL;
			char why[400];
			int bad = sweep_params(vars[v], rn->over, &p) == 0 && b->check(p, why, sizeof(why));
			json_decref(p);
			if (bad) {
				snprintf(err, errlen, "%s: %s", b->name, why);
				return -1;
			}
		}
	}
	if (a->mem_limit) {
		rn->mem_limit = fs_size_parse(a->mem_limit);
		if (rn->mem_limit < (16ull << 20)) {
			snprintf(err, errlen, "--mem-limit: '%s' is not a size of at least 16M", a->mem_limit);
			return -1;
		}
		if (a->in_process) {
			snprintf(err, errlen, "--mem-limit needs worker processes (not --in-process)");
			return -1;
		}
		if (geteuid() != 0) {
			snprintf(err, errlen, "--mem-limit needs root (it makes a memory cgroup)");
			return -1;
		}
		char why[512];
		if (sys_memcg_check(why, sizeof(why))) {
			snprintf(err, errlen, "--mem-limit: %s", why);
			return -1;
		}
	}
	if (a->max_latency_seen) { /* a bound finer than the clock cannot be checked */
		struct timespec res = {0, 1};
		clock_getres(CLOCK_MONOTONIC, &res);
		double res_ns = (double)res.tv_sec * 1e9 + (double)res.tv_nsec;
		if (a->max_latency_us * 1e3 < res_ns || a->max_latency_us <= 0) {
			snprintf(err, errlen, "--max-latency %g: below the clock's resolution (%g ns)",
				 a->max_latency_us, res_ns);
			return -1;
		}
	}
	uint64_t tasks = 0;
	if (runner_tasks(rn, &tasks, err, errlen))
		return -1;
	rn->so = (struct sweep_opts){
		.max_n = a->max_n, .min_n = a->min_n, .quick = a->quick, .full = a->full, .repeat = (int)a->repeat,
		.ci_target = a->ci_pct / 100.0, .min_samples = 200, .op_timeout_s = 10,
		/* sequential testing (verdict.c): by default when the user left the
		 * repetitions to us (no -r); -r K keeps exactly K unless --decide */
		.decide = !a->no_decide && (a->decide || !a->repeat_seen) && !tasks, .tasks = tasks,
		.no_decide = a->no_decide || tasks || (a->repeat_seen && !a->decide),
	};
	rn->so.net = &rn->net;
	rn->so.max_latency_ns = a->max_latency_seen ? a->max_latency_us * 1e3 : 0;
	if (a->profile_at) { /* checked here: a usage error before any work */
		uint64_t at[PROFILE_AT_MAX];
		if (profile_at_parse(a->profile_at, at, err, errlen) < 0)
			return -1;
		a->profile = 1;
		rn->so.profile_at = a->profile_at;
	}
	if (a->profile_apart)
		a->profile = 1;
	rn->so.profile = a->profile;
	rn->so.profile_apart = a->profile_apart;
	rn->so.budget_s = a->budget_seen ? a->budget : a->quick ? 0.2 : a->full ? 1.0 : 0.5;
	/* Benches that spend their whole budget (throughput over time) get a
	 * quarter of it in the quick suite, which must stay within a minute. */
	rn->so.run_budget_s = a->budget_seen || !a->quick ? rn->so.budget_s : 0.05;
	return 0;
}

/* ---- progress on stderr, with an ETA, only when it is a terminal ---- */
static void progress_cb(void *ctx, const struct sweep_progress *p)
{
	struct progress *pg = ctx;
	if (!p->growing && p->point != pg->last_point) {
		pg->done++;
		pg->last_point = p->point;
	}
	if (!pg->on)
		return;
	double el = (double)(clock_ns() - pg->t0) / 1e9;
	char eta[32] = "?";
	if (pg->done > 1 && pg->total >= pg->done) {
		double rem = el / (pg->done - 1) * (pg->total - pg->done + 1);
		snprintf(eta, sizeof(eta), "%.0fs", rem);
	}
	fprintf(stderr, "\r\033[K%s%s[%d/%d] %s rep %d/%d  %s N=%llu (point %d/%d)  %.0fs elapsed, ETA %s",
		pg->target ? pg->target : "", pg->target ? " " : "", pg->ibench, pg->nbench, p->bench,
		p->rep, p->nreps, p->growing ? "building" : "measuring", (unsigned long long)p->n,
		p->point, p->npoints, el, eta);
	fflush(stderr);
}

static json_t *options_json(const struct runner *rn)
{
	const struct run_args *a = &rn->a;
	return json_pack("{s:b,s:s?,s:b,s:s,s:s?,s:s?,s:I,s:f,s:f,s:f,s:I,s:s,s:I,s:f,s:O,s:s,s:b}", "profile", a->profile, "profile_at", a->profile_at, "profile_apart", a->profile_apart, "dir", a->dir, "cpus", a->cpus, "output",
			 a->output, "max_n", (json_int_t)a->max_n, "budget_s", rn->so.budget_s, "run_budget_s", rn->so.run_budget_s,
			 "ci_target", rn->so.ci_target, "repeat", (json_int_t)a->repeat, "scale",
			 a->full ? "full" : a->quick ? "quick" : "default", "min_samples",
			 (json_int_t)rn->so.min_samples, "op_timeout_s", rn->so.op_timeout_s,
			 "params", rn->over, "isolation", rn->exe[0] ? "worker" : "in-process", "decide",
			 rn->so.decide);
}

/* --mem-limit in the options: the limit and the cgroup, or null. */
static json_t *mem_limit_json(const struct runner *rn)
{
	if (!rn->cgroup[0])
		return json_null();
	return json_pack("{s:I,s:s,s:i}", "bytes", (json_int_t)rn->mem_limit, "cgroup", rn->cgroup,
			 "cgroup_version", rn->cg_version);
}

int runner_start(struct runner *rn, int argc, char **argv)
{
	int rc = reg_init();
	if (rc)
		return rc;
	clock_calibrate(&rn->clk);
	rn->so.clk = &rn->clk;
	/* the machine-speed probe's reference: the fastest of five readings */
	probe_reference(&rn->r.probe_ref, 5);
	rn->r.has_probe_ref = 1;
	rn->so.probe_ref = rn->r.probe_ref;
	rn->so.has_probe_ref = 1;
	/* this binary: the workers start from it (rn->exe; "" in-process), and
	 * so do run --tasks' task processes, in-process too (so.exe, tasks.c) */
	int serc = sys_self_exe(argv[0], rn->self, sizeof(rn->self));
	if (serc == 0)
		rn->so.exe = rn->self;
	if (!rn->a.in_process && serc) {
		fprintf(stderr, "scalebench %s: cannot find its own executable (%s): every bench runs "
			"inside this process\n", rn->cmd, strerror(-serc));
		rn->exe[0] = 0;
	} else if (!rn->a.in_process) {
		snprintf(rn->exe, sizeof(rn->exe), "%s", rn->self);
	}
	if (rn->mem_limit && rn->exe[0]) {
		char name[64], why[512];
		snprintf(name, sizeof(name), "scalebench-%d", (int)getpid());
		rc = sys_memcg_make(name, rn->mem_limit, rn->cgroup, sizeof(rn->cgroup), &rn->cg_version,
				    why, sizeof(why));
		if (rc) {
			fprintf(stderr, "scalebench %s: --mem-limit: %s\n", rn->cmd, why);
			return rc;
		}
		if ((rc = reg_add_cgroup(rn->cgroup))) { /* it removed the cgroup */
			fprintf(stderr, "scalebench %s: --mem-limit: registry: %s\n", rn->cmd, strerror(-rc));
			return rc;
		}
		worker_set_cgroup(rn->cgroup);
	} else if (rn->mem_limit) {
		fprintf(stderr, "scalebench %s: --mem-limit needs worker processes\n", rn->cmd);
		return -ENOEXEC;
	}
	struct run_result *r = &rn->r;
	char ts[32];
	sys_iso_utc(NULL, 0, ts, sizeof(ts));
	r->schema_version = SB_SCHEMA_VERSION;
	r->tool_version = strdup(SB_VERSION);
	r->started = strdup(ts);
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	r->host = strdup(rn->a.host_label ? rn->a.host_label : host);
	r->clock = rn->clk;
	r->options = options_json(rn);
	if (r->options)
		json_object_set_new(r->options, "mem_limit", mem_limit_json(rn));
	if (rn->a.host_label && r->options) /* the label does not hide the machine's own name */
		json_object_set_new(r->options, "hostname", json_string(host));
	if (rn->so.tasks && r->options)
		json_object_set_new(r->options, "tasks", json_integer((json_int_t)rn->so.tasks));
	if (rn->a.max_latency_seen && r->options)
		json_object_set_new(r->options, "max_latency_us", json_real(rn->a.max_latency_us));
	r->argv = calloc((size_t)argc + 1, sizeof(char *));
	if (!r->tool_version || !r->started || !r->host || !r->argv)
		return -ENOMEM;
	for (int i = 0; i < argc; i++) {
		if (!(r->argv[i] = strdup(argv[i])))
			return -ENOMEM;
		r->argc = i + 1;
	}
	rn->pg.on = !rn->a.quiet && isatty(2);
	rn->pg.t0 = clock_ns();
	rn->so.progress = progress_cb;
	rn->so.progress_ctx = &rn->pg;
	return 0;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

int runner_describe(struct bench_result *br, const struct bench *b, const char *variant,
		    const char *target)
{
	br->variant = dup_or_null(variant);
	br->target = dup_or_null(target);
	br->unit = strdup(b->unit ? b->unit : "op");
	br->name = strdup(b->name);
	br->axis = strdup(b->axis);
	br->summary = strdup(b->summary);
	br->op_desc = strdup(b->op_desc);
	br->version = b->version;
	br->axis_kind = (int)b->axis_kind;
	if (b->axis_kind == AXIS_CATEGORY && b->ncategories > 0 &&
	    (br->categories = calloc((size_t)b->ncategories, sizeof(char *))))
		for (int i = 0; i < b->ncategories; i++)
			if ((br->categories[i] = strdup(b->categories[i])))
				br->ncategories = i + 1;
	br->axis_tasks = !!(b->flags & BENCH_AXIS_TASKS);
	long nc = sysconf(_SC_NPROCESSORS_ONLN);
	br->cpus_online = nc > 0 && nc < 1000000 ? (int)nc : 0;
	return (variant && !br->variant) || (target && !br->target) || !br->unit || !br->name ||
			       !br->axis || !br->summary || !br->op_desc ||
			       br->ncategories < (b->axis_kind == AXIS_CATEGORY ? b->ncategories : 0)
		       ? -ENOMEM
		       : 0;
}

/* A -p key that another selected bench takes is not this bench's: it
 * neither reaches the bench nor appears among its parameters in the result. */
static void drop_foreign(const struct bench *b, json_t *params)
{
	const char *k;
	json_t *v;
	void *tmp;
	if (params)
		json_object_foreach_safe(params, tmp, k, v) {
			if (!param_known(b, k))
				json_object_del(params, k);
		}
}

int runner_fio(struct runner *rn, FILE *out, char *err, size_t errlen)
{
	const char *vars[64];
	uint64_t series[64];
	int any = 0;
	for (int i = 0; i < rn->nsel; i++) {
		const struct bench *b = rn->sel[i];
		if (!b->fio) {
			fprintf(out, "# %s: no fio equivalent\n", b->name);
			continue;
		}
		uint64_t max_n = sweep_max_n(b, &rn->so);
		int np = sweep_series_for(b, max_n, series, 64);
		double rt = (b->flags & BENCH_FULL_BUDGET) ? rn->so.run_budget_s : rn->so.budget_s;
		int nv = bench_variants(b, rn->over, vars, 64);
		for (int vi = 0; vi < nv; vi++) {
			json_t *p = NULL;
			if (sweep_params(vars[vi], rn->over, &p)) {
				json_decref(p);
				continue;
			}
			struct bench_env env;
			memset(&env, 0, sizeof(env));
			env.dirfd = -1;
			env.dir = rn->a.dir;
			env.max_n = max_n;
			env.quick = rn->a.quick;
			env.params = p;
			env.bench = b;
			fprintf(out, "# %s [%s]%s\n", b->name, vars[vi] ? vars[vi] : "",
				b->unavailable ? " (not in this build)" : "");
			for (int k = 0; k < np; k++) {
				char line[8192];
				if (rn->so.min_n && series[k] < rn->so.min_n)
					continue;
				if (b->fio(&env, series[k], rt, line, sizeof(line)) == 0) {
					fprintf(out, "%s\n", line);
					any = 1;
				}
			}
			json_decref(p);
		}
	}
	if (!any) {
		snprintf(err, errlen, "--fio: none of the selected benches has a fio equivalent "
				      "(the io.* benches do)");
		return -1;
	}
	return 0;
}

/* matrix --fresh: the scratch directory's file system made anew (the
 * scratch directory with it, at the same path in the new mount). 0, or
 * EXIT_RUNTIME with the message printed. */
static int renew_target(struct runner *rn, char *scratch, size_t len)
{
	char err[1024];
	const char *dir = NULL;
	int rc = reg_remove_tree(scratch);
	if (rc) {
		fprintf(stderr, "scalebench %s: could not remove %s: %s\n", rn->cmd, scratch, strerror(-rc));
		return EXIT_RUNTIME;
	}
	scratch[0] = 0; /* gone; made again below */
	if (rn->renew(rn->renew_ctx, &dir, err, sizeof(err))) {
		if (!reg_stop_requested())
			fprintf(stderr, "scalebench %s: %s: a fresh file system: %s\n", rn->cmd,
			rn->pg.target ? rn->pg.target : "", err);
		return EXIT_RUNTIME;
	}
	if ((rc = reg_mkscratch(dir, "scalebench", scratch, len))) {
		fprintf(stderr, "scalebench %s: %s: cannot make a scratch directory: %s\n", rn->cmd, dir,
			strerror(-rc));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* The benches' repetitions are interleaved: repetition r of every bench
 * (and variant) before repetition r + 1 of any, so that a bench's
 * repetitions are spread over the whole run instead of back to back.
 * What changes on a time scale of seconds to minutes (the host's
 * scheduling of this virtual machine, a neighbour, the frequency)
 * then shows up between a bench's repetitions, which compare's test
 * takes as its unit of replication, instead of shifting all three
 * alike (docs/compare.md: "Interleaved repetitions"). One job a bench
 * and variant that runs. */
struct rjob {
	const struct bench *b;
	size_t idx;  /* in r->benches (which may move as it grows) */
	int ibench, stop, ran;
	uint64_t ns; /* time its repetitions took (--decide's budget) */
};

/* Every selected bench and variant into the result, the skipped ones
 * settled at once and the others into jobs. EXIT_OK, or EXIT_RUNTIME
 * (out of memory: the listing stops there). */
static int list_jobs(struct runner *rn, const char *target, struct rjob *jobs, int *njobs)
{
	struct run_result *r = &rn->r;
	const char *vars[64];
	uid_t euid = geteuid();
	for (int i = 0; i < rn->nsel; i++) {
		const struct bench *b = rn->sel[i];
		int nv = bench_variants(b, rn->over, vars, 64);
		for (int vi = 0; vi < nv; vi++) {
			struct bench_result *br = result_add_bench(r);
			if (!br)
				return EXIT_RUNTIME;
			sweep_params(vars[vi], rn->over, &br->params);
			drop_foreign(b, br->params);
			if (runner_describe(br, b, vars[vi], target))
				return EXIT_RUNTIME;
			br->fit_oversub = rn->a.fit_oversub;
			const char *skip = b->unavailable;
			if (!skip && (b->needs & NEED_ROOT) && euid != 0)
				skip = "needs root";
			if (skip) {
				br->status = BS_SKIPPED;
				br->skip_reason = strdup(skip);
				continue;
			}
			jobs[(*njobs)++] = (struct rjob){.b = b, .idx = (size_t)r->nbenches - 1, .ibench = i + 1};
		}
	}
	return EXIT_OK;
}

/* The repetitions, interleaved (above): in this process or one worker
 * each. matrix --fresh: the file system is made anew before each but the
 * first; *lost when that failed (nothing more runs). 0, or -1 when one
 * failed. */
static int run_repetitions(struct runner *rn, char *scratch, size_t len, struct rjob *jobs, int njobs,
			   int *lost)
{
	struct run_result *r = &rn->r;
	char err[512];
	int fresh_used = 0, failed = 0, rc;
	for (int rep = 0; rep < (int)rn->a.repeat && !*lost; rep++) {
		for (int k = 0; k < njobs && !reg_stop_requested(); k++) {
			struct rjob *j = &jobs[k];
			if (j->stop)
				continue;
			if (rn->renew && fresh_used++ && renew_target(rn, scratch, len)) {
				failed = 1;
				*lost = 1;
				break;
			}
			struct bench_result *br = &r->benches[j->idx];
			rn->pg.ibench = j->ibench;
			rn->pg.last_point = 0;
			uint64_t t0 = clock_ns();
			int had = br->nreps;
			j->ran = 1;
			if (!rn->exe[0]) {
				struct sweep_opts one = rn->so;
				one.rep_first = rep;
				one.rep_count = 1;
				if (sweep_bench(j->b, &one, br) < 0) {
					fprintf(stderr, "scalebench %s: %s: harness failure\n", rn->cmd, j->b->name);
					failed = 1;
					j->stop = 1;
				}
				if (br->status == BS_SKIPPED)
					j->stop = 1;
			} else if ((rc = worker_rep(rn->exe, j->b, &rn->so, rep, rn->pg.on, br, &j->stop, err,
						    sizeof(err)))) {
				if (rc < 0)
					fprintf(stderr, "scalebench %s: %s\n", rn->cmd, err);
				failed = 1;
			}
			br = &r->benches[j->idx];
			for (int q = had; q < br->nreps; q++)
				br->reps[q].started_s = (double)(t0 - rn->pg.t0) / 1e9;
			j->ns += clock_ns() - t0;
		}
	}
	return failed ? -1 : 0;
}

/* Each bench settled: the verdict, and --decide's points (in workers, or
 * here); --decide's rounds on a fresh file system of their own under
 * matrix --fresh, made only when rounds follow (all the bench's rounds on
 * it; none once one could not be made). 0, or -1 when one failed. */
static int settle_jobs(struct runner *rn, char *scratch, size_t len, struct rjob *jobs, int njobs,
		       int *lost)
{
	int failed = 0;
	/* the run's time for rounds (--quick: a fifth of its sweeps'), spent
	 * on the cheapest benches first */
	uint64_t all = 0, longest = 0, pool;
	int *order = malloc((size_t)(njobs ? njobs : 1) * sizeof(*order));
	if (!order)
		return -1;
	for (int k = 0; k < njobs; k++) {
		all += jobs[k].ns;
		longest = jobs[k].ns > longest ? jobs[k].ns : longest;
		order[k] = k;
		for (int q = k; q > 0 && jobs[order[q - 1]].ns > jobs[order[q]].ns; q--) {
			int t = order[q];
			order[q] = order[q - 1];
			order[q - 1] = t;
		}
	}
	pool = verdict_run_pool(&rn->so, all, longest);
	for (int kk = 0; kk < njobs; kk++) {
		struct rjob *j = &jobs[pool == UINT64_MAX ? kk : order[kk]];
		rn->pg.ibench = j->ibench;
		rn->pg.last_point = 0;
		struct sweep_opts so = rn->so;
		verdict_settle(&rn->r.benches[j->idx], so.repeat); /* do rounds follow? */
		int fresh = rn->renew && verdict_undecided(j->b, &so, &rn->r.benches[j->idx]) &&
			    !*lost && !reg_stop_requested();
		if (fresh && renew_target(rn, scratch, len)) {
			failed = 1;
			*lost = 1;
		} else if (fresh) {
			so.fresh_rounds = 1;
		}
		if (*lost) {
			so.decide = 0;
			so.no_decide = 1;
		}
		struct bench_result *br = &rn->r.benches[j->idx];
		struct worker_here wh = {.exe = rn->exe, .b = j->b, .so = &so, .want_progress = rn->pg.on,
					 .br = br};
		struct sweep_here sh = {.b = j->b, .so = &so, .br = br};
		struct verdict_ops ops = rn->exe[0] ? (struct verdict_ops){&wh, worker_measure_point,
									    "in a fresh worker", NULL}
						    : (struct verdict_ops){&sh, sweep_measure_point,
									    "measured afresh (its load built from zero)", NULL};
		ops.pool_ns = pool == UINT64_MAX ? NULL : &pool;
		if (verdict_bench(j->b, &so, br, j->ns, &ops))
			failed = 1;
	}
	free(order);
	return failed ? -1 : 0;
}

/* Stopped (Ctrl-C) before a bench began: it is not in the result, as the
 * benches after it were never listed before interleaving. */
static void drop_unrun(struct run_result *r, struct rjob *jobs, int njobs)
{
	for (int k = njobs - 1; k >= 0; k--) {
		if (jobs[k].ran)
			continue;
		bench_result_clear(&r->benches[jobs[k].idx]);
		memmove(&r->benches[jobs[k].idx], &r->benches[jobs[k].idx + 1],
			((size_t)r->nbenches - jobs[k].idx - 1) * sizeof(*r->benches));
		r->nbenches--;
	}
}

int runner_sweep(struct runner *rn, const char *dir, const char *target)
{
	char scratch[4096];
	int rc = reg_mkscratch(dir, "scalebench", scratch, sizeof(scratch));
	if (rc) {
		fprintf(stderr, "scalebench %s: %s: cannot make a scratch directory: %s\n", rn->cmd, dir,
			strerror(-rc));
		return EXIT_RUNTIME;
	}
	struct run_result *r = &rn->r;
	json_t *snap = sys_snapshot(scratch);
	if (target) {
		if (!r->targets)
			r->targets = json_object();
		json_object_set_new(r->targets, target, json_pack("{s:o}", "snapshot", snap));
	} else {
		json_decref(r->snapshot);
		r->snapshot = snap;
	}
	rn->so.scratch = scratch;
	rn->pg.target = target;
	const char *vars[64];
	uint64_t series[64];
	rn->pg.nbench = rn->nsel;
	for (int i = 0; i < rn->nsel; i++)
		rn->pg.total += (rn->so.tasks ? tasks_series(rn->so.tasks, series, 64)
				 : sweep_series_for(rn->sel[i], sweep_max_n(rn->sel[i], &rn->so), series, 64)) *
				(int)rn->a.repeat * bench_variants(rn->sel[i], rn->over, vars, 64);

	struct rjob *jobs = calloc((size_t)rn->nsel * 64, sizeof(*jobs));
	if (!jobs) {
		fprintf(stderr, "scalebench %s: out of memory\n", rn->cmd);
		reg_remove_tree(scratch);
		return EXIT_RUNTIME;
	}
	int njobs = 0, lost = 0;
	int exit_code = list_jobs(rn, target, jobs, &njobs);
	if (run_repetitions(rn, scratch, sizeof(scratch), jobs, njobs, &lost))
		exit_code = EXIT_RUNTIME;
	if (settle_jobs(rn, scratch, sizeof(scratch), jobs, njobs, &lost))
		exit_code = EXIT_RUNTIME;
	drop_unrun(r, jobs, njobs);
	free(jobs);
	if (rn->pg.on)
		fprintf(stderr, "\r\033[K");
	rc = scratch[0] ? reg_remove_tree(scratch) : 0;
	if (rc) {
		fprintf(stderr, "scalebench %s: could not remove %s: %s\n", rn->cmd, scratch, strerror(-rc));
		exit_code = EXIT_RUNTIME;
	}
	return exit_code;
}

int runner_finish(struct runner *rn, int exit_code)
{
	struct run_result *r = &rn->r;
	char ts[32], err[512];
	r->interrupted = reg_stop_requested();
	sys_iso_utc(NULL, 0, ts, sizeof(ts));
	r->finished = strdup(ts);
	r->duration_s = (double)(clock_ns() - rn->pg.t0) / 1e9;
	reg_cleanup(); /* before writing: nothing of ours outlives a failed write */
	if (rn->a.output && result_write_file(r, rn->a.output, err, sizeof(err))) {
		fprintf(stderr, "scalebench %s: cannot write the result: %s\n", rn->cmd, err);
		exit_code = EXIT_RUNTIME;
	}
	if (run_store_history(r, rn->cmd, rn->a.db, rn->a.no_db, rn->a.quiet))
		exit_code = EXIT_RUNTIME;
	if (rn->a.report && run_write_report(r, rn->cmd, rn->a.report))
		exit_code = EXIT_RUNTIME;
	struct outfmt_job job = {.r = r, .output = rn->a.output};
	if (outfmt_write(rn->a.format, &job))
		exit_code = EXIT_RUNTIME;
	if (fflush(stdout))
		exit_code = EXIT_RUNTIME;
	/* --max-latency: a sample over the bound fails the run as a regression does */
	for (int i = 0; i < r->nbenches; i++)
		for (int k = 0; k < r->benches[i].nreps; k++) {
			const struct failure *f = r->benches[i].reps[k].fail;
			if (f && !strcmp(f->kind, "bound")) {
				/* the bench's own words (bench.h, fail_data), else the failure's */
				const char *why = json_string_value(
					json_object_get(json_object_get(f->state, "bench"), "why"));
				if (exit_code == EXIT_OK)
					exit_code = EXIT_REGRESSION;
				fprintf(stderr, "scalebench %s: %s: --max-latency %g us exceeded: %s (N=%llu)\n",
					rn->cmd, r->benches[i].name, rn->a.max_latency_us, why ? why : f->msg,
					(unsigned long long)f->n);
			}
		}
	if (r->interrupted) {
		fprintf(stderr, "scalebench %s: interrupted by signal %d; partial result%s%s\n", rn->cmd,
			(int)reg_interrupted, rn->a.output ? " written to " : " printed",
			rn->a.output ? rn->a.output : "");
		exit_code = EXIT_SIGNAL + (int)reg_interrupted;
	}
	result_free(r);
	json_decref(rn->over);
	rn->over = NULL;
	return exit_code;
}
