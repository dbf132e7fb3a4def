/* SPDX-License-Identifier: MIT */
/* The human summary: a few lines of findings (what grows, what stopped,
 * what stalled, what stayed unclear), one line per bench grouped by family
 * (cost at the smallest and the largest N, p99 at the largest, verdict
 * with exponent), then notes (each text once, with the benches it is
 * about), repetitions and failures. The whole table is in the JSON. */
#include "core/result.h"
#include "out/result_io.h"
#include "core/profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct point *first_point(const struct bench_result *b, int last)
{
	const struct point *best = NULL;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (!best || (last ? p->n > best->n : p->n < best->n))
				best = p;
		}
	return best;
}

static void print_verdict(FILE *f, const struct verdict *v)
{
	fprintf(f, "%-10s", growth_name(v->cls));
	if (v->cls != GROWTH_NONE && isfinite(v->exponent))
		fprintf(f, " n^%.2f [%.2f,%.2f] x%.2f", v->exponent, v->exp_lo, v->exp_hi, v->ratio);
}

/* "1.23M" */
static char *fmt_rate(double x, char *buf, size_t len)
{
	if (!isfinite(x))
		snprintf(buf, len, "-");
	else if (x >= 1e9)
		snprintf(buf, len, "%.3gG", x / 1e9);
	else if (x >= 1e6)
		snprintf(buf, len, "%.3gM", x / 1e6);
	else if (x >= 1e3)
		snprintf(buf, len, "%.3gk", x / 1e3);
	else
		snprintf(buf, len, "%.3g", x);
	return buf;
}

/* The throughput verdict of a concurrency axis (usl.c), the headline
 * there: word, contention, coherency, efficiency at the largest N. */
static void print_usl(FILE *f, const struct bench_result *br)
{
	const struct usl *u = &br->usl;
	char x[32], w[48];
	double r, n0, x0, n1, x1;
	const char *trend = u->cls == USL_NONE ? bench_ops_trend(br, &r) : NULL;
	if (trend && bench_ops_range(br, &n0, &x0, &n1, &x1) == 0) {
		/* no fit (too few N): what the throughput did, as measured */
		char y2[32];
		snprintf(w, sizeof(w), "%s x%.3g", trend, r);
		fprintf(f, "%-10s %s %s/s@N=%g, %s@N=%g (no fit", w, fmt_rate(x0, x, sizeof(x)),
			br->unit ? br->unit : "op", n0, fmt_rate(x1, y2, sizeof(y2)), n1);
		if (u->noversub && !u->oversub_fitted)
			fprintf(f, "; %d oversubscribed point%s left out", u->noversub,
				u->noversub == 1 ? "" : "s");
		fputc(')', f);
		return;
	}
	if (u->cls == USL_RETROGRADE)
		fprintf(f, "retrograde past N*=%.3g", u->peak_n);
	else
		fprintf(f, "%-10s", usl_word(u->cls));
	char kbuf[32];
	snprintf(kbuf, sizeof(kbuf), "%.2g", u->kappa);
	if (u->lambda > 0)
		fprintf(f, " sigma %.3f [%.3f,%.3f] kappa %s eff %.2f %s %s/s@max", u->sigma,
			u->sigma_lo, u->sigma_hi, u->kappa_fixed ? "0 (held)" : kbuf, u->efficiency,
			fmt_rate(u->x_nmax, x, sizeof(x)), br->unit ? br->unit : "op");
	else if (u->noversub && !u->oversub_fitted)
		fprintf(f, " (%d oversubscribed point%s left out)", u->noversub,
			u->noversub == 1 ? "" : "s");
	char y[32];
	if (!(u->lambda > 0) && bench_ops_range(br, &n0, &x0, &n1, &x1) == 0) /* what it measured */
		fprintf(f, " (no fit) %s %s/s@N=%g, %s@N=%g", fmt_rate(x0, x, sizeof(x)),
			br->unit ? br->unit : "op", n0, fmt_rate(x1, y, sizeof(y)), n1);
}

enum headline { HL_GROWTH, HL_USL, HL_PER_KIB, HL_CATEGORY };

/* Which headline a bench gets, by its axis kind: throughput (concurrency),
 * cost per KiB (size; *c0, *c1 at the smallest and the largest N), the
 * tail per category and the worst (category), or how the cost grows
 * (load, and a size axis with no point that moved bytes). The summary and
 * the matrix cells both choose here. */
static enum headline headline_of(const struct bench_result *br, double *c0, double *c1)
{
	double n0, n1;
	if (br->axis_kind == 1 /* AXIS_CONCURRENCY */)
		return HL_USL;
	if (br->axis_kind == 3 /* AXIS_CATEGORY */)
		return HL_CATEGORY;
	if (br->axis_kind == 2 /* AXIS_SIZE */ && bench_per_kib(br, &n0, c0, &n1, c1) == 0)
		return HL_PER_KIB;
	return HL_GROWTH;
}

static void print_headline(FILE *f, const struct bench_result *br)
{
	double c0, c1;
	char a[32], b[32];
	switch (headline_of(br, &c0, &c1)) {
	case HL_USL:
		print_usl(f, br);
		break;
	case HL_PER_KIB:
		fprintf(f, "per KiB %s@min %s@max", fmt_ns(c0, a, sizeof(a)), fmt_ns(c1, b, sizeof(b)));
		break;
	case HL_CATEGORY: {
		char hl[1024];
		fputs(*bench_category_headline(br, hl, sizeof(hl)) ? hl : "-", f);
		break;
	}
	default:
		print_verdict(f, &br->v);
	}
}

/* ---- results with targets (matrix): one row per bench, one column per
 * target, each cell the cost at the largest N and the verdict ---- */

static int target_index(const char **t, int *nt, int cap, const char *name)
{
	for (int i = 0; i < *nt; i++)
		if (!strcmp(t[i], name))
			return i;
	if (*nt >= cap)
		return -1;
	t[*nt] = name;
	return (*nt)++;
}

static void matrix_cell_bw(const struct bench_result *br, char *buf, size_t len)
{
	const struct point *hi = first_point(br, 1);
	if (hi && hi->bytes_per_s > 0)
		snprintf(buf, len, "%.4g", hi->bytes_per_s / (1 << 20));
	else
		snprintf(buf, len, "-");
}

static void matrix_cell(const struct bench_result *br, char *buf, size_t len)
{
	char a[32], b[40], k[32], nm[64];
	double c0, c1, r;
	const char *trend;
	const struct point *hi = first_point(br, 1);
	if (br->status == BS_SKIPPED) {
		snprintf(buf, len, "skipped");
		return;
	}
	if (!hi) {
		snprintf(buf, len, "%s", bench_status_name(br->status));
		return;
	}
	/* the summary's headline, short: its word, or the cost per KiB at the
	 * largest N (a size axis: cost grows with the bytes, a class says nothing) */
	switch (headline_of(br, &c0, &c1)) {
	case HL_USL:
		trend = br->usl.cls == USL_NONE ? bench_ops_trend(br, &r) : NULL;
		snprintf(b, sizeof(b), "%s", trend ? trend : usl_word(br->usl.cls));
		break;
	case HL_PER_KIB:
		snprintf(b, sizeof(b), "%s/KiB", fmt_ns(c1, k, sizeof(k)));
		break;
	case HL_CATEGORY: /* the worst category's p99 */
		if (bench_category_worst(br, nm, sizeof(nm), &c0, &r) == 0) {
			snprintf(buf, len, "p99 %s %.20s%s", fmt_ns(c0, a, sizeof(a)), nm,
				 br->status == BS_OK ? "" : "!");
			return;
		}
		snprintf(b, sizeof(b), "-");
		break;
	default:
		snprintf(b, sizeof(b), "%s", growth_name(br->v.cls));
	}
	snprintf(buf, len, "%s %s%s", fmt_ns(hi->st.p50, a, sizeof(a)), b, br->status == BS_OK ? "" : "!");
}

/* One row per bench (and variant, at its first occurrence), one column
 * per target; bw: only benches that move data, under its own heading. */
static void print_table(const struct run_result *r, FILE *f, const char **t, int nt, int w,
			void (*cellf)(const struct bench_result *, char *, size_t), int bw)
{
	char lb[160], cell[64];
	int any = 0;
	for (int i = 0; i < r->nbenches && bw; i++) {
		const struct point *hi = first_point(&r->benches[i], 1);
		any |= hi && hi->bytes_per_s > 0;
	}
	if (bw && !any)
		return;
	if (bw)
		fprintf(f, "\nbandwidth at the largest N, MiB/s\n");
	fprintf(f, "%-*s", w, "bench");
	for (int k = 0; k < nt; k++)
		fprintf(f, "  %-18.18s", t[k]);
	fputc('\n', f);
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *br = &r->benches[i];
		bench_label(br, lb, sizeof(lb));
		int seen = 0; /* a row per bench and variant, at its first occurrence */
		for (int j = 0; j < i && !seen; j++) {
			char l2[160];
			seen = !strcmp(bench_label(&r->benches[j], l2, sizeof(l2)), lb);
		}
		int moves = 0; /* bw: does this row move data on some target? */
		for (int j = i; j < r->nbenches && bw && !seen; j++) {
			char l2[160];
			const struct point *hp = first_point(&r->benches[j], 1);
			moves |= !strcmp(bench_label(&r->benches[j], l2, sizeof(l2)), lb) && hp &&
				 hp->bytes_per_s > 0;
		}
		if (seen || (bw && !moves))
			continue;
		fprintf(f, "%-*s", w, lb);
		for (int k = 0; k < nt; k++) {
			snprintf(cell, sizeof(cell), "-");
			for (int j = i; j < r->nbenches; j++) {
				char l2[160];
				const struct bench_result *bj = &r->benches[j];
				if (bj->target && !strcmp(bj->target, t[k]) &&
				    !strcmp(bench_label(bj, l2, sizeof(l2)), lb)) {
					cellf(bj, cell, sizeof(cell));
					break;
				}
			}
			fprintf(f, "  %-18s", cell);
		}
		fputc('\n', f);
	}
}

#define MAX_TARGETS 16
#define MAX_PHASES 24

/* ---- per-phase tables (matrix): for a bench whose points carry
 * extra.phases (fs.fileserver, work.round2), one table per bench and
 * variant: one row per target, one column per phase at the largest N,
 * each cell files/s and MiB/s, or requests/s and p99 for an HTTP phase
 * (a phase with "requests_s"), and a last column counting the findings
 * (stalls and dips). Any bench that writes phases this way gets it. ---- */

static json_t *phases_of(const struct bench_result *br)
{
	const struct point *hi = first_point(br, 1);
	json_t *ph = hi ? json_object_get(hi->extra, "phases") : NULL;
	return json_is_object(ph) ? ph : NULL;
}

static int is_rate_phase(json_t *o)
{
	return json_is_object(o) && (json_object_get(o, "files_s") || json_object_get(o, "requests_s"));
}

static void phase_cell(json_t *o, char *buf, size_t len)
{
	char a[32];
	json_t *rq = json_object_get(o, "requests_s");
	if (!o)
		snprintf(buf, len, "-");
	else if (rq)
		snprintf(buf, len, "%.0f/s p99 %s", json_number_value(rq),
			 fmt_ns(json_number_value(json_object_get(o, "p99_us")) * 1e3, a, sizeof(a)));
	else if (json_number_value(json_object_get(o, "mib_s")) <= 0) /* delete moves no data */
		snprintf(buf, len, "%.0f/s", json_number_value(json_object_get(o, "files_s")));
	else
		snprintf(buf, len, "%.0f/s %.1fMiB/s", json_number_value(json_object_get(o, "files_s")),
			 json_number_value(json_object_get(o, "mib_s")));
}

static void print_phase_tables(const struct run_result *r, FILE *f, const char **t, int nt)
{
	char lb[160], l2[160], cell[64];
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *bi = &r->benches[i];
		bench_label(bi, lb, sizeof(lb));
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(bench_label(&r->benches[j], l2, sizeof(l2)), lb) &&
			       phases_of(&r->benches[j]);
		if (seen || !phases_of(bi))
			continue;
		const char *col[MAX_PHASES];
		int nc = 0;
		for (int j = i; j < r->nbenches; j++) { /* columns: every phase of this bench, in order */
			if (strcmp(bench_label(&r->benches[j], l2, sizeof(l2)), lb) || !phases_of(&r->benches[j]))
				continue;
			const char *k;
			json_t *v;
			json_object_foreach(phases_of(&r->benches[j]), k, v) {
				int have = 0;
				for (int c = 0; c < nc; c++)
					have |= !strcmp(col[c], k);
				if (!have && nc < MAX_PHASES && is_rate_phase(v))
					col[nc++] = k;
			}
		}
		fprintf(f, "\n%s per phase at the largest N (files/s MiB/s; HTTP: requests/s p99)\n", lb);
		fprintf(f, "%-12s", "fs");
		for (int c = 0; c < nc; c++)
			fprintf(f, "  %-22.22s", col[c]);
		fprintf(f, "  %s\n", "stalls");
		for (int k = 0; k < nt; k++) {
			const struct bench_result *bt = NULL;
			for (int j = i; j < r->nbenches && !bt; j++)
				if (r->benches[j].target && !strcmp(r->benches[j].target, t[k]) &&
				    !strcmp(bench_label(&r->benches[j], l2, sizeof(l2)), lb))
					bt = &r->benches[j];
			json_t *ph = bt ? phases_of(bt) : NULL;
			fprintf(f, "%-12s", t[k]);
			for (int c = 0; c < nc; c++) {
				phase_cell(ph ? json_object_get(ph, col[c]) : NULL, cell, sizeof(cell));
				fprintf(f, "  %-22s", cell);
			}
			const struct point *hi = bt ? first_point(bt, 1) : NULL;
			json_t *fi = hi ? json_object_get(hi->extra, "findings") : NULL;
			if (ph)
				fprintf(f, "  %d\n", (int)json_array_size(fi));
			else
				fprintf(f, "  %s\n", bt ? bench_status_name(bt->status) : "-");
		}
	}
}

static void print_matrix(const struct run_result *r, FILE *f)
{
	const char *t[MAX_TARGETS];
	int nt = 0, w = 12;
	char lb[160];
	const char *key;
	json_t *tv;
	json_object_foreach(r->targets, key, tv)
		target_index(t, &nt, MAX_TARGETS, key);
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *br = &r->benches[i];
		if (br->target)
			target_index(t, &nt, MAX_TARGETS, br->target);
		int l = (int)strlen(bench_label(br, lb, sizeof(lb)));
		w = l > w ? l : w;
	}
	fprintf(f, "file systems side by side: median cost at the largest N and the headline: growth class,\n"
		   "throughput word (concurrency axes) or cost per KiB at the largest N (size axes); ! = not ok\n");
	for (int k = 0; k < nt; k++) {
		json_t *o = r->targets ? json_object_get(r->targets, t[k]) : NULL;
		json_t *sk = json_object_get(o, "skipped"), *wall = json_object_get(o, "wall_s");
		json_t *dev = json_object_get(o, "device"), *sz = json_object_get(o, "size_bytes");
		char size[64] = "";
		if (json_is_integer(sz))
			snprintf(size, sizeof(size), " %lld MiB,", (long long)(json_integer_value(sz) >> 20));
		if (json_is_string(sk))
			fprintf(f, "  %-16s skipped: %s\n", t[k], json_string_value(sk));
		else
			fprintf(f, "  %-16s %s%s%s wall %.1f s\n", t[k],
				json_is_string(dev) ? json_string_value(dev) : "",
				json_is_string(dev) ? "," : "", size, json_number_value(wall));
	}
	json_t *from = NULL;
	for (int k = 0; k < nt && !from; k++)
		from = json_object_get(r->targets ? json_object_get(r->targets, t[k]) : NULL, "size_from");
	if (json_is_string(from))
		fprintf(f, "  image size: %s\n", json_string_value(from));
	print_table(r, f, t, nt, w, matrix_cell, 0);
	print_table(r, f, t, nt, w, matrix_cell_bw, 1);
	print_phase_tables(r, f, t, nt);
}

/* The length of a bench name's family ("fs" of "fs.create"). */
static size_t family_len(const char *name)
{
	const char *dot = name ? strchr(name, '.') : NULL;
	return dot ? (size_t)(dot - name) : name ? strlen(name) : 0;
}

static int same_family(const char *a, const char *b)
{
	size_t la = family_len(a);
	return la == family_len(b) && !strncmp(a, b, la);
}

/* Appends s to buf (len), with ", " before all but the first; "..." once
 * full. */
static void list_add(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);
	if (used + 4 >= len)
		return;
	int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", s);
	if (n < 0 || (size_t)n >= len - used)
		snprintf(buf + len - 4, 4, "...");
}

/* A condition of the scratch file system that moves the fs and work
 * benches' figures (docs/method.md): said among the findings when such
 * a bench ran; the note under the summary has the details. */
static void print_fs_condition(const struct run_result *r, FILE *f)
{
	const json_t *fs = json_object_get(r->snapshot, "filesystem");
	if (!json_is_false(json_object_get(fs, "journal")))
		return;
	int n = 0, shadowed = 0;
	double worst = 0;
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *b = &r->benches[i];
		n += b->status != BS_SKIPPED && bench_makes_files(b->name);
		int hit, all;
		double s = reps_inode_worst(b->reps, b->nreps, 0, &hit, &all);
		if (hit) {
			shadowed++;
			worst = s > worst ? s : worst;
		}
	}
	if (!n)
		return;
	const char *t = json_string_value(json_object_get(fs, "type"));
	fprintf(f, "  scratch  %s without a journal: the cost of files made after deletions (%d fs/work "
		   "bench%s) depends on what ran in the minutes before (note below)",
		t ? t : "file system", n, n == 1 ? "" : "es");
	if (shadowed) /* the probe of sweep.c, inode_probe */
		fprintf(f, "; %d bench%s measured in the shadow of such deletions (a file made cost "
			   "up to %.0fx a hard link): run again in a few minutes, or on a fresh file "
			   "system",
			shadowed, shadowed == 1 ? "" : "es", worst);
	fputc('\n', f);
}

/* The machine-speed probe's word (probe.h), when it read the machine slow
 * around any point: how many points, how slow, how many were measured
 * again, and how many stayed slow (measured again as often as the cap
 * allowed, or not at all); and the scheduler's, when other processes
 * crowded a load axis's point (CPU_LOST_CROWDED): how many, the most CPU
 * lost, how many lost it between their samples alone (kept as they are),
 * how many stayed crowded. Nothing when the machine was steady. */
static void print_unsteady(const struct run_result *r, FILE *f)
{
	int probed = 0, first = 0, slow = 0, again = 0, nb = 0, crowd = 0, cagain = 0, crowded = 0,
	    nbc = 0, between = 0;
	double worst = NAN, lost = NAN;
	for (int i = 0; i < r->nbenches; i++) {
		struct unsteady u;
		bench_unsteady(&r->benches[i], &u);
		probed += u.probed;
		first += u.slow_first;
		slow += u.slow;
		again += u.remeasured - u.crowded_only; /* crowding's are said below */
		nb += u.slow_first > 0;
		crowd += u.crowded_first;
		crowded += u.crowded;
		cagain += u.crowded_again;
		between += u.crowded_between;
		nbc += u.crowded_first > 0;
		if (!isnan(u.max_slowness) && (isnan(worst) || u.max_slowness > worst))
			worst = u.max_slowness;
		if (!isnan(u.max_lost) && (isnan(lost) || u.max_lost > lost))
			lost = u.max_lost;
	}
	if (!probed)
		return;
	if (first)
		fprintf(f, "  unsteady the machine ran up to x%.2f slower (probe) around %d of %d points in "
			   "%d bench%s: %d measured again, %d still slow\n",
			worst, first, probed, nb, nb == 1 ? "" : "es", again, slow);
	if (crowd && between)
		fprintf(f, "  crowded  other processes took up to %.2f of a CPU from the bench's tasks around "
			   "%d of %d points in %d bench%s: %d between the samples alone (kept), %d measured "
			   "again, %d still crowded\n",
			lost, crowd, probed, nbc, nbc == 1 ? "" : "es", between, cagain, crowded);
	else if (crowd)
		fprintf(f, "  crowded  other processes took up to %.2f of a CPU from the bench's tasks around "
			   "%d of %d points in %d bench%s: %d measured again, %d still crowded\n",
			lost, crowd, probed, nbc, nbc == 1 ? "" : "es", cagain, crowded);
}

static void cpu_flush(char *buf, size_t len, const char *name, const char *label, int count)
{
	char item[200];
	if (!count)
		return;
	if (count > 1)
		snprintf(item, sizeof(item), "%s (%d variants)", name, count);
	else
		snprintf(item, sizeof(item), "%s", label);
	list_add(buf, len, item);
}

/* Above this many times cpus_online x the throughput at the smallest N, a
 * saturating concurrency axis is not levelling off at the CPUs. */
#define CPU_BOUND_SLACK 1.25

/* The findings on top: benches whose cost grows, that stopped on a failure
 * or limit, that stalled (a bench's own "findings" in a point's extras),
 * and how many stayed unclear. */
static void print_findings(const struct run_result *r, FILE *f)
{
	char grows[1024] = "", stops[1024] = "", stalls[1024] = "", unclear[1024] = "", lb[160],
	     item[400], sat[1024] = "", retro[1024] = "", cpubound[1024] = "", tails[1024] = "";
	int nunclear = 0, nmeasured = 0, ncpu = 0, cpus = 0, cpu_cnt = 0, nadded = 0, radded = 0;
	char cpu_last[160] = "", cpu_lb[160] = "";
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *br = &r->benches[i];
		if (br->status == BS_SKIPPED)
			continue;
		nmeasured++;
		int ra = bench_added_reps(br);
		nadded += ra > 0;
		radded += ra;
		bench_label(br, lb, sizeof(lb));
		if (br->axis_kind == 1) { /* concurrency: throughput is the headline */
			const struct usl *u = &br->usl;
			double x0, x1, n0, n1;
			/* throughput levelling off at the CPUs: the concurrency adds
			 * no CPU, so at most cpus_online times one's throughput is
			 * what a CPU-bound axis can give; said once, below */
			if (u->cls == USL_SATURATES && br->cpus_online > 0 &&
			    bench_ops_range(br, &n0, &x0, &n1, &x1) == 0 && n1 > br->cpus_online &&
			    x1 <= CPU_BOUND_SLACK * br->cpus_online * x0) {
				ncpu++;
				cpus = br->cpus_online;
				/* one entry per bench name: "io.randread (6 variants)" */
				int same = ncpu > 1 && !strcmp(cpu_last, br->name);
				if (same)
					cpu_cnt++;
				else {
					cpu_flush(cpubound, sizeof(cpubound), cpu_last, cpu_lb, cpu_cnt);
					snprintf(cpu_last, sizeof(cpu_last), "%s", br->name);
					snprintf(cpu_lb, sizeof(cpu_lb), "%s", lb);
					cpu_cnt = 1;
				}
			} else if (u->cls == USL_SATURATES) {
				snprintf(item, sizeof(item), "%s (efficiency %.2f at N=%g)", lb,
					 u->efficiency, u->nmax);
				list_add(sat, sizeof(sat), item);
			} else if (u->cls == USL_RETROGRADE) {
				snprintf(item, sizeof(item), "%s past N*=%.3g", lb, u->peak_n);
				list_add(retro, sizeof(retro), item);
			} else if (u->cls == USL_UNCLEAR) {
				nunclear++;
				list_add(unclear, sizeof(unclear), lb);
			}
		} else if (br->axis_kind == 2) {
			/* size: cost per KiB is the headline, a cost growing with the
			 * request size is no finding */
		} else if (br->axis_kind == 3) {
			/* category: no growth to judge; the worst category's tail */
			char nm[64], a[32];
			double p99, ratio;
			if (bench_category_worst(br, nm, sizeof(nm), &p99, &ratio) == 0) {
				struct cat_tail c[1];
				int w;
				bench_category_tails(br, c, 1, &w);
				if (isfinite(ratio) && c[0].name)
					snprintf(item, sizeof(item), "%s: worst %s, p99 %s (%.3gx %s)", lb,
						 nm, fmt_ns(p99, a, sizeof(a)), ratio, c[0].name);
				else
					snprintf(item, sizeof(item), "%s: worst %s, p99 %s", lb, nm,
						 fmt_ns(p99, a, sizeof(a)));
				list_add(tails, sizeof(tails), item);
			}
		} else if (br->v.cls >= GROWTH_LOGN && br->v.cls <= GROWTH_WORSE) {
			if (br->v.tie != GROWTH_UNCLEAR)
				snprintf(item, sizeof(item), "%s %s (x%.2f, or %s)", lb,
					 growth_name(br->v.cls), br->v.ratio, growth_name(br->v.tie));
			else
				snprintf(item, sizeof(item), "%s %s (x%.2f)", lb, growth_name(br->v.cls),
					 br->v.ratio);
			list_add(grows, sizeof(grows), item);
		} else if (br->v.cls == GROWTH_UNCLEAR) {
			nunclear++;
			list_add(unclear, sizeof(unclear), lb);
		}
		for (int k = 0; k < br->nreps; k++)
			if (br->reps[k].fail) {
				snprintf(item, sizeof(item), "%s %s at N=%llu", lb, br->reps[k].fail->kind,
					 (unsigned long long)br->reps[k].fail->n);
				list_add(stops, sizeof(stops), item);
				break;
			}
		int stalled = 0;
		for (int k = 0; k < br->nreps && !stalled; k++)
			for (int j = 0; j < br->reps[k].npts && !stalled; j++) {
				json_t *fd = json_object_get(br->reps[k].pts[j].extra, "findings");
				if (json_is_array(fd) && json_array_size(fd)) {
					const char *t = json_string_value(json_array_get(fd, 0));
					snprintf(item, sizeof(item), "%s: %.160s", lb, t ? t : "see the JSON");
					list_add(stalls, sizeof(stalls), item);
					stalled = 1;
				}
			}
	}
	fprintf(f, "findings:\n");
	if (*grows)
		fprintf(f, "  grows    %s\n", grows);
	if (*stops)
		fprintf(f, "  stops    %s\n", stops);
	if (*stalls)
		fprintf(f, "  stalls   %s\n", stalls);
	if (*sat)
		fprintf(f, "  saturates %s\n", sat);
	if (*retro)
		fprintf(f, "  retrograde %s\n", retro);
	if (*tails)
		fprintf(f, "  tail     %s\n", tails);
	cpu_flush(cpubound, sizeof(cpubound), cpu_last, cpu_lb, cpu_cnt);
	if (ncpu)
		fprintf(f, "  expected %d concurrency bench%s level off at the %d CPUs (throughput at "
			   "most %d x one's, as CPU-bound work does): %s\n",
			ncpu, ncpu == 1 ? "" : "es", cpus, cpus, cpubound);
	if (nunclear)
		fprintf(f, "  unclear  %d of %d: %s (why below)\n", nunclear, nmeasured, unclear);
	if (nadded)
		fprintf(f, "  added    %d repetition%s to %d bench%s whose verdict was undecided after "
			   "the sweep (--decide; what they settled: notes below)\n",
			radded, radded == 1 ? "" : "s", nadded, nadded == 1 ? "" : "es");
	if (!*grows && !*stops && !*stalls && !*sat && !*retro && !*tails && !nunclear && !ncpu)
		fprintf(f, "  nothing grows, stops or stalls (%d bench%s O(1) or on a parameter axis)\n",
			nmeasured, nmeasured == 1 ? "" : "es");
	print_unsteady(r, f);
	print_fs_condition(r, f);
	fputc('\n', f);
}

/* Each note once: with the one bench it is about, "NAME (all K variants)"
 * when every variant of one bench carries it, else the list of them. */
static void print_notes(const struct run_result *r, FILE *f, int *any)
{
	char lb[160], names[1024], nm[200];
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *bi = &r->benches[i];
		for (int k = 0; k < bi->nnotes; k++) {
			const char *text = bi->notes[k];
			int seen = 0;
			for (int j = 0; j < i && !seen; j++) /* said already, with an earlier bench */
				for (int q = 0; q < r->benches[j].nnotes && !seen; q++)
					seen = !strcmp(r->benches[j].notes[q], text);
			if (seen)
				continue;
			int nwith = 0, allsame = 1, nvariants = 0;
			names[0] = 0;
			for (int j = i; j < r->nbenches; j++) {
				const struct bench_result *bj = &r->benches[j];
				int has = 0;
				for (int q = 0; q < bj->nnotes && !has; q++)
					has = !strcmp(bj->notes[q], text);
				int sib = bj->name && bi->name && !strcmp(bj->name, bi->name) &&
					  !((bj->target == NULL) != (bi->target == NULL)) &&
					  (!bj->target || !strcmp(bj->target, bi->target));
				nvariants += sib;
				if (!has)
					continue;
				nwith++;
				allsame &= sib;
				snprintf(nm, sizeof(nm), "%s%s%s", bj->target ? bj->target : "",
					 bj->target ? ": " : "", bench_label(bj, lb, sizeof(lb)));
				list_add(names, sizeof(names), nm);
			}
			if (nwith > 1 && allsame && nwith == nvariants)
				snprintf(names, sizeof(names), "%s%s%s (all %d variants)",
					 bi->target ? bi->target : "", bi->target ? ": " : "", bi->name, nwith);
			if (!(*any)++)
				fprintf(f, "\n");
			fprintf(f, "note %s: %s\n", names, text);
		}
	}
}

/* run --profile: a line per bench whose cost grows, saying which functions
 * the growth is in (src/core/profile.c); the reasons a profile could not
 * be taken, once each; what the profiled points cost the run. */
static void print_profiles(const struct run_result *r, FILE *f, int *any)
{
	char a[32], lb[160], why[8][240];
	int nwhy = 0, nwhyb[8] = {0}, nprof = 0, ninl = 0;
	double wall = 0, slow[512], cpu[512];
	int nslow = 0, ncpu = 0;
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *br = &r->benches[i];
		const json_t *pf = br->profile;
		if (!pf)
			continue;
		const char *un = json_string_value(json_object_get(pf, "unavailable"));
		if (un) {
			int k = 0;
			while (k < nwhy && strncmp(why[k], un, sizeof(why[k]) - 1))
				k++;
			if (k == nwhy && nwhy < 8)
				snprintf(why[nwhy++], sizeof(why[0]), "%s", un);
			if (k < 8)
				nwhyb[k]++;
			continue;
		}
		nprof++;
		size_t pi;
		const json_t *pp;
		int inl = 0;
		json_array_foreach(json_object_get(pf, "points"), pi, pp)
			inl |= json_is_true(json_object_get(pp, "in_timed_point"));
		ninl += inl;
		const json_t *ov = json_object_get(pf, "overhead");
		wall += json_number_value(json_object_get(ov, "wall_s"));
		double sl = json_number_value(json_object_get(ov, "slowdown"));
		if (sl > 0 && nslow < 512)
			slow[nslow++] = sl;
		double cr = json_number_value(json_object_get(ov, "cpu"));
		if (cr > 0 && ncpu < 512)
			cpu[ncpu++] = cr;
		const json_t *g = profile_growth(pf);
		const json_t *at = json_object_get(g, "attribution");
		double d = json_number_value(json_object_get(g, "delta_ns"));
		double from = json_number_value(json_object_get(g, "from_cpu_per_op_ns"));
		if (!json_array_size(at) || !(d > 0.1 * from) || br->v.cls == GROWTH_O1)
			continue;
		if (!(*any)++)
			fprintf(f, "\n");
		const char *unit = br->unit ? br->unit : "op";
		fprintf(f, "why  %s%s%s: ", br->target ? br->target : "", br->target ? ": " : "",
			bench_label(br, lb, sizeof(lb)));
		size_t k;
		const json_t *e;
		json_array_foreach(at, k, e) {
			double dn = json_number_value(json_object_get(e, "delta_ns"));
			fprintf(f, "%s%s %s%s/%s (%.0f%% -> %.0f%%)", k ? ", " : "",
				json_string_value(json_object_get(e, "name")), dn >= 0 ? "+" : "-",
				fmt_ns(fabs(dn), a, sizeof(a)), unit,
				100 * json_number_value(json_object_get(e, "share_from")),
				100 * json_number_value(json_object_get(e, "share_to")));
		}
		fprintf(f, "; explains %.0f%% of the growth (N=%lld -> %lld: CPU +%s/%s)\n",
			100 * json_number_value(json_object_get(g, "explained")),
			(long long)json_integer_value(json_object_get(g, "from_n")),
			(long long)json_integer_value(json_object_get(g, "to_n")), fmt_ns(d, a, sizeof(a)),
			unit);
	}
	for (int k = 0; k < nwhy; k++) {
		if (!(*any)++)
			fprintf(f, "\n");
		fprintf(f, "prof unavailable (%d bench%s): %s\n", nwhyb[k], nwhyb[k] == 1 ? "" : "es",
			why[k]);
	}
	if (nprof) {
		for (int i = 1; i < nslow; i++) /* the median slowdown */
			for (int j = i; j > 0 && slow[j - 1] > slow[j]; j--) {
				double t = slow[j];
				slow[j] = slow[j - 1];
				slow[j - 1] = t;
			}
		for (int i = 1; i < ncpu; i++) /* the median CPU ratio */
			for (int j = i; j > 0 && cpu[j - 1] > cpu[j]; j--) {
				double t = cpu[j];
				cpu[j] = cpu[j - 1];
				cpu[j - 1] = t;
			}
		if (!(*any)++)
			fprintf(f, "\n");
		fprintf(f, "prof %d bench%s profiled: %.1f s of the run's %.1f s (%.0f%%)", nprof,
			nprof == 1 ? "" : "es", wall, r->duration_s,
			r->duration_s > 0 ? 100 * wall / r->duration_s : 0.0);
		if (nslow)
			fprintf(f, "; the op under sampling: x%.2f its timed median (median of %d benches)",
				nslow % 2 ? slow[nslow / 2] : (slow[nslow / 2 - 1] + slow[nslow / 2]) / 2,
				nslow);
		if (ncpu)
			fprintf(f, "; sampling's cost: x%.2f CPU per op",
				ncpu % 2 ? cpu[ncpu / 2] : (cpu[ncpu / 2 - 1] + cpu[ncpu / 2]) / 2);
		if (ninl)
			fprintf(f, "; %d whole workload%s sampled in %s timed points", ninl,
				ninl == 1 ? "" : "s", ninl == 1 ? "its" : "their");
		fputc('\n', f);
	}
}

void result_print_text(const struct run_result *r, FILE *f)
{
	char a[32], b[32], c[32], lb[160];
	int w = 12;
	fprintf(f, "scalebench %s  %s  clock %s (%s, read %.1f ns)\n",
		r->tool_version ? r->tool_version : "?", r->started ? r->started : "", r->clock.id,
		r->clock.source, r->clock.read_cost_ns);
	for (int i = 0; i < r->nbenches; i++) {
		int l = (int)strlen(bench_label(&r->benches[i], lb, sizeof(lb)));
		w = l > w ? l : w;
	}
	if (r->targets)
		print_matrix(r, f);
	else {
		print_findings(r, f);
		fprintf(f, "%-*s %-11s %-17s %10s %10s %10s  %s\n", w, "bench", "status", "N",
			"cost@min", "cost@max", "p99@max", "verdict  exponent [95% CI]  max/min");
	}
	/* rows grouped by family, the families in order of first appearance,
	 * a blank line between two */
	int *order = calloc((size_t)r->nbenches + 1, sizeof(int)), no = 0;
	for (int i = 0; order && i < r->nbenches; i++) {
		int first = 1;
		for (int j = 0; j < i && first; j++)
			first = !same_family(r->benches[j].name, r->benches[i].name);
		for (int j = i; first && j < r->nbenches; j++)
			if (same_family(r->benches[j].name, r->benches[i].name))
				order[no++] = j;
	}
	for (int oi = 0; oi < r->nbenches && !r->targets; oi++) {
		int i = order ? order[oi] : oi;
		const struct bench_result *br = &r->benches[i];
		if (oi && !same_family(br->name, r->benches[order ? order[oi - 1] : oi - 1].name))
			fputc('\n', f);
		bench_label(br, lb, sizeof(lb));
		if (br->status == BS_SKIPPED) {
			fprintf(f, "%-*s %-11s %s\n", w, lb, "skipped",
				br->skip_reason ? br->skip_reason : "");
			continue;
		}
		const struct point *lo = first_point(br, 0), *hi = first_point(br, 1);
		char range[48];
		if (lo)
			snprintf(range, sizeof(range), "%llu..%llu", (unsigned long long)lo->n,
				 (unsigned long long)hi->n);
		else
			snprintf(range, sizeof(range), "-");
		fprintf(f, "%-*s %-11s %-17s %10s %10s %10s  ", w, lb,
			bench_status_name(br->status), range, fmt_ns(lo ? lo->st.p50 : NAN, a, sizeof(a)),
			fmt_ns(hi ? hi->st.p50 : NAN, b, sizeof(b)),
			fmt_ns(hi ? hi->st.p99 : NAN, c, sizeof(c)));
		print_headline(f, br);
		if (hi && hi->bytes_per_s > 0) /* benches that move data: bandwidth too */
			fprintf(f, "  %.4g MiB/s@max", hi->bytes_per_s / (1 << 20));
		fputc('\n', f);
	}
	free(order);
	int any = 0;
	print_notes(r, f, &any);
	for (int i = 0; i < r->nbenches; i++) {
		const struct bench_result *br = &r->benches[i];
		char nm[200];
		snprintf(nm, sizeof(nm), "%s%s%s", br->target ? br->target : "", br->target ? ": " : "",
			 bench_label(br, lb, sizeof(lb)));
		if (r->targets && br->status == BS_SKIPPED) {
			if (!any++)
				fprintf(f, "\n");
			fprintf(f, "skip %s: %s\n", nm, br->skip_reason ? br->skip_reason : "");
		}
		if (br->nreps > 1)
			for (int k = 0; k < br->nreps; k++) {
				if (!any++)
					fprintf(f, "\n");
				const struct repetition *rk = &br->reps[k];
				fprintf(f, "rep  %s #%d%s: ", nm, k + 1, rk->added ? " (added)" : "");
				const struct point *top = NULL;
				for (int q = 0; q < rk->npts; q++)
					if (!top || rk->pts[q].n > top->n)
						top = &rk->pts[q];
				if (br->axis_kind == 1 && top) { /* throughput, not latency growth */
					char x[32];
					fprintf(f, "%s %s/s at N=%llu", fmt_rate(top->ops_per_s, x, sizeof(x)),
						br->unit ? br->unit : "op", (unsigned long long)top->n);
				} else if (br->axis_kind == 3) { /* this repetition's tails */
					struct bench_result one = *br;
					char hl[1024];
					one.reps = (struct repetition *)rk;
					one.nreps = 1;
					fputs(*bench_category_headline(&one, hl, sizeof(hl)) ? hl : "-", f);
				} else {
					print_verdict(f, &rk->v);
				}
				fputc('\n', f);
			}
		for (int k = 0; k < br->nreps; k++) {
			const struct failure *fl = br->reps[k].fail;
			if (!fl)
				continue;
			if (!any++)
				fprintf(f, "\n");
			fprintf(f, "stop %s: %s at N=%llu during %s (%s): %s\n", nm, fl->kind,
				(unsigned long long)fl->n, fl->phase, fl->call, fl->msg);
		}
		if (br->axis_kind == 1 ? br->usl.cls == USL_UNCLEAR
				       : br->axis_kind == 0 && br->v.cls == GROWTH_UNCLEAR) {
			if (!any++)
				fprintf(f, "\n");
			fprintf(f, "why  %s: %s\n", nm,
				br->axis_kind == 1 ? br->usl.reason : br->v.reason);
		}
		if (br->axis_kind == 0 && br->v.tie != GROWTH_UNCLEAR) {
			if (!any++)
				fprintf(f, "\n");
			fprintf(f, "tie  %s: %s\n", nm, br->v.reason);
		}
	}
	print_profiles(r, f, &any);
	if (r->interrupted)
		fprintf(f, "\ninterrupted: the result is partial\n");
}
