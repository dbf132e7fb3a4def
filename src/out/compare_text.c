/* SPDX-License-Identifier: MIT */
/* The comparison tree (compare.c) as a table: verdict changes first, then
 * one line per bench and point, then what could not be compared, then the
 * tally. */
#include "core/compare.h"
#include "out/compare_text.h"

#include <math.h>
#include <string.h>

/* s, safe for a terminal: control characters (an escape sequence in a
 * hostile bench name) become '?'. Eight rotating buffers, so that one
 * printf can take several. */
static const char *clean(const char *s)
{
	static char buf[8][1024];
	static int next;
	char *b = buf[next++ & 7];
	size_t i = 0;
	for (; s && s[i] && i + 1 < sizeof(buf[0]); i++)
		b[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	b[i] = 0;
	return b;
}

static const char *js(const json_t *o, const char *k)
{
	return clean(json_string_value(json_object_get(o, k)));
}

static double jnum(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *pct(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", v);
	return buf;
}

static void print_side(FILE *f, const char *tag, const json_t *s)
{
	fprintf(f, "%s: %s  host %s  started %s  kernel %s  fs %s\n", tag, js(s, "label"),
		js(s, "host"), js(s, "started"), *js(s, "kernel") ? js(s, "kernel") : "-",
		*js(s, "fs_type") ? js(s, "fs_type") : "-");
}

static void print_ns_list(FILE *f, const char *bench, const json_t *arr, const char *where)
{
	if (!json_array_size(arr))
		return;
	fprintf(f, "  %s: N =", bench);
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		fprintf(f, "%s%lld", i ? "," : " ", (long long)json_integer_value(v));
	fprintf(f, " only in %s\n", where);
}

/* x with fmt into buf (24 bytes), "-" when not a number */
static const char *gnum(double x, const char *fmt, char *buf)
{
	if (isfinite(x))
		snprintf(buf, 24, fmt, x);
	else
		snprintf(buf, 24, "-");
	return buf;
}

static void print_verdict_changes(const json_t *c, FILE *f)
{
	const json_t *vc = json_object_get(c, "verdict_changes");
	size_t i;
	json_t *v;
	if (json_array_size(vc)) {
		fprintf(f, "\nverdict changes:\n");
		json_array_foreach(vc, i, v)
			fprintf(f, "  %-12s %s -> %s  (exponent %.2f -> %.2f)%s\n", js(v, "bench"),
				js(v, "from"), js(v, "to"), jnum(v, "exponent_from"),
				jnum(v, "exponent_to"),
				!json_is_true(json_object_get(v, "significant"))
					? "  (not significant: exponent intervals overlap)"
				: !json_is_true(json_object_get(v, "judged"))
					? "  (not judged: too few repetitions)"
				: json_is_true(json_object_get(v, "worse")) ? "  WORSE"
									    : "  better");
	}
}

static void print_throughput_changes(const json_t *c, FILE *f)
{
	size_t i;
	json_t *v;
	const json_t *tc = json_object_get(c, "throughput_changes");
	if (json_array_size(tc)) {
		fprintf(f, "\nthroughput (concurrency axes, Universal Scalability Law):\n");
		json_array_foreach(tc, i, v) {
			const char *w = js(v, "word");
			char s1[24], s2[24], k1[24], k2[24], nj[80];
			const char *why = json_string_value(json_object_get(v, "not_judged_why"));
			snprintf(nj, sizeof(nj), " (not judged: %s)", why ? why : "too few repetitions");
			fprintf(f, "  %-12s %s -> %s  sigma %s -> %s%s  kappa %s -> %s%s  "
				   "%s/s at N=%lld %.4g -> %.4g (%+.1f%%)%s  %s%s\n",
				js(v, "bench"), js(v, "verdict_from"), js(v, "verdict_to"),
				gnum(jnum(v, "sigma_from"), "%.3g", s1), gnum(jnum(v, "sigma_to"), "%.3g", s2),
				json_is_true(json_object_get(v, "sigma_significant")) ? "*" : "",
				gnum(jnum(v, "kappa_from"), "%.2g", k1), gnum(jnum(v, "kappa_to"), "%.2g", k2),
				json_is_true(json_object_get(v, "kappa_significant")) ? "*" : "",
				js(v, "unit"), (long long)json_integer_value(json_object_get(v, "n")),
				jnum(v, "ops_per_s_a"), jnum(v, "ops_per_s_b"), jnum(v, "ops_change_pct"),
				json_is_true(json_object_get(v, "ops_significant")) ? "*" : "",
				!strcmp(w, "worse") || !strcmp(w, "mixed") ? "WORSE" : w,
				(!strcmp(w, "worse") || !strcmp(w, "mixed")) &&
						!json_is_true(json_object_get(v, "judged"))
					? nj
					: "");
		}
		fprintf(f, "  (* significant: 95%% intervals apart, or p < alpha and beyond the threshold)\n");
	}
}

/* A bench's rows, one a point in common. */
static void print_points(const json_t *v, FILE *f)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	size_t k;
	json_t *p;
	const json_t *pts = json_object_get(v, "points");
	json_array_foreach(pts, k, p) {
		double pv = jnum(p, "p");
		char pb[16];
		if (!isfinite(pv))
			snprintf(pb, sizeof(pb), "-");
		else if (pv < 1e-4)
			snprintf(pb, sizeof(pb), "<1e-4");
		else
			snprintf(pb, sizeof(pb), "%.4f", pv);
		const char *w = js(p, "word");
		char nb[32]; /* N, or a category axis' category by name */
		const char *cat = json_string_value(json_object_get(p, "category"));
		if (cat)
			snprintf(nb, sizeof(nb), "%.8s", cat);
		else
			snprintf(nb, sizeof(nb), "%lld",
				 (long long)json_integer_value(json_object_get(p, "n")));
		fprintf(f, "%-12s %8s %10s %10s %8s %10s %10s %8s %8s %+6.2f  %s\n",
			js(v, "name"), nb,
			fmt_ns(jnum(p, "median_a_ns"), b1, sizeof(b1)),
			fmt_ns(jnum(p, "median_b_ns"), b2, sizeof(b2)),
			pct(jnum(p, "median_change_pct"), b3, sizeof(b3)),
			fmt_ns(jnum(p, "p99_a_ns"), b4, sizeof(b4)),
			fmt_ns(jnum(p, "p99_b_ns"), b5, sizeof(b5)),
			pct(jnum(p, "p99_change_pct"), b6, sizeof(b6)), pb, jnum(p, "delta"),
			!strcmp(w, "slower") ? "SLOWER" : w);
	}
}

/* A bench's line: its word and how it was reached (the repetitions' test,
 * or why not), and the decisive factor's. */
static void print_bench_line(const json_t *v, FILE *f)
{
	char b1[32], b2[32], b3[32], b4[32];
	const char *w = js(v, "word");
	const json_t *rt = json_object_get(v, "repetition_test");
	char how[400];
	if (json_is_object(rt)) {
		const json_t *sw = json_object_get(rt, "sweep"), *tp = json_object_get(rt, "top");
		char pa[16], pt[80];
		snprintf(pa, sizeof(pa), "%.3g", jnum(sw, "p"));
		pt[0] = 0;
		if (json_is_object(tp))
			snprintf(pt, sizeof(pt), ", top third %s p %.3g",
				 pct(jnum(tp, "change_pct"), b3, sizeof(b3)), jnum(tp, "p"));
		char ph[200] = ""; /* Holm over the compare's benches (absent in old JSON) */
		const json_t *hi = json_object_get(rt, "history");
		char hs[120] = "";
		/* the probe adjustment the test chose (compare.c, rep_tests) */
		const char *ch = json_string_value(json_object_get(json_object_get(hi, "adjustments"), "chosen"));
		const char *pp = json_string_value(json_object_get(json_object_get(rt, "probe_adjust"), "probe"));
		const char *adj = !json_is_true(json_object_get(hi, "probe_adjusted"))
					  ? (!ch ? "" : !strcmp(ch, "sides_slope") ? ", sides' probe slope" : ", not probe-adjusted")
				  : pp && !strcmp(pp, "unmap") ? ", probe-adjusted on the unmap time"
							       : ", probe-adjusted";
		if (json_is_object(hi))
			snprintf(hs, sizeof(hs), "; run-to-run spread %.2g%% (%lld earlier runs%s)",
				 jnum(hi, "spread_pct"),
				 (long long)json_integer_value(json_object_get(hi, "runs")), adj);
		if (json_is_number(json_object_get(rt, "p_holm")))
			snprintf(ph, sizeof(ph), "%s; family p %.3g (Holm, %lld benches)", hs,
				 jnum(rt, "p_holm"),
				 (long long)json_integer_value(json_object_get(rt, "family_tests")));
		const json_t *dt = json_object_get(rt, "detectable");
		char fd[64] = "";
		double dv = jnum(dt, "sweep_pct");
		if (isfinite(dv) && dv < 100)
			snprintf(fd, sizeof(fd), "; finds +%.2g%% (%.0f%% power)", dv,
				 100 * jnum(dt, "power"));
		else if (isfinite(dv))
			snprintf(fd, sizeof(fd), "; finds %.3gx (%.0f%% power)", 1 + dv / 100,
				 100 * jnum(dt, "power"));
		char reps[64]; /* compare --ab: tested on the pairs' differences */
		if (!strcmp(js(rt, "design"), "paired"))
			snprintf(reps, sizeof(reps), "paired, %lld pairs",
				 (long long)json_integer_value(json_object_get(rt, "pairs")));
		else
			snprintf(reps, sizeof(reps), "%lld+%lld repetitions",
				 (long long)json_integer_value(json_object_get(rt, "repetitions_a")),
				 (long long)json_integer_value(json_object_get(rt, "repetitions_b")));
		snprintf(how, sizeof(how), "; %s: %s p %s%s%s%s", reps,
			 pct(jnum(sw, "change_pct"), b2, sizeof(b2)), pa, pt, ph, fd);
	} else if (!strcmp(w, "insufficient") || !strcmp(js(v, "test"), "decisive")) {
		char lv[96] = "";
		if (isfinite(jnum(v, "sweep_change_pct")))
			snprintf(lv, sizeof(lv), ": sweep %s%s%s",
				 pct(jnum(v, "sweep_change_pct"), b2, sizeof(b2)),
				 isfinite(jnum(v, "top_change_pct")) ? ", top third " : "",
				 isfinite(jnum(v, "top_change_pct"))
					 ? pct(jnum(v, "top_change_pct"), b3, sizeof(b3)) : "");
		snprintf(how, sizeof(how), "; %lld and %lld repetitions%s",
			 (long long)json_integer_value(json_object_get(v, "repetitions_a")),
			 (long long)json_integer_value(json_object_get(v, "repetitions_b")), lv);
	} else {
		snprintf(how, sizeof(how), "; from the samples (--strict)");
	}
	const json_t *dz = json_object_get(v, "decisive");
	char dec[200] = "";
	if (strcmp(js(dz, "word"), "none") && json_is_string(json_object_get(dz, "word"))) {
		const char *basis = js(dz, "basis");
		snprintf(dec, sizeof(dec), "; decisive: the top two points %s, beyond %.3gx (%s)",
			 pct(jnum(dz, "top_change_pct"), b4, sizeof(b4)), jnum(dz, "factor"),
			 !strcmp(basis, "history") ? "6 x this bench's run-to-run spread here"
			 : !strcmp(basis, "default") ? "the default; no history of this bench here"
						     : basis);
	}
	fprintf(f, "%-12s %8s  median change %s; slower at %lld, faster at %lld of %lld "
		   "points%s%s  => %s\n",
		js(v, "name"), "bench", pct(jnum(v, "median_change_pct"), b1, sizeof(b1)),
		(long long)json_integer_value(json_object_get(v, "points_slower")),
		(long long)json_integer_value(json_object_get(v, "points_faster")),
		(long long)json_integer_value(json_object_get(v, "points_compared")), how, dec,
		!strcmp(w, "slower") ? "SLOWER" : w);
}

/* A bench's profile line, when both sides ran --profile. */
static void print_profile(const json_t *v, FILE *f)
{
	char b1[32], b2[32], b3[32];
	const json_t *pc = json_object_get(v, "profile");
	if (json_array_size(json_object_get(pc, "functions"))) { /* both ran --profile */
		fprintf(f, "%-12s %8s  at N=%lld, CPU/op %s -> %s; self cost per op:", js(v, "name"),
			"profile", (long long)json_integer_value(json_object_get(pc, "n")),
			fmt_ns(jnum(pc, "cpu_per_op_a_ns"), b1, sizeof(b1)),
			fmt_ns(jnum(pc, "cpu_per_op_b_ns"), b2, sizeof(b2)));
		size_t q;
		const json_t *fe;
		json_array_foreach(json_object_get(pc, "functions"), q, fe) {
			double d = jnum(fe, "self_delta_ns");
			fprintf(f, "%s %s %s%s (%.1f%% -> %.1f%%)", q ? "," : "", js(fe, "name"),
				d >= 0 ? "+" : "-", fmt_ns(fabs(d), b3, sizeof(b3)), 100 * jnum(fe, "share_a"),
				100 * jnum(fe, "share_b"));
		}
		fputc('\n', f);
	}
}

/* A bench's noise floor line, from its history. */
static void print_floor(const json_t *v, FILE *f)
{
	const json_t *nf = json_object_get(v, "noise_floor");
	if (json_is_object(nf)) {
		const json_t *note = json_object_get(nf, "note");
		if (json_is_string(note))
			fprintf(f, "%-12s %8s  %s; the threshold (%.3g%%) alone\n", js(v, "name"),
				"floor", json_string_value(note), jnum(nf, "threshold_pct"));
		else
			fprintf(f, "%-12s %8s  run-to-run spread %.3g%% over %lld earlier runs, "
				   "floor (%.3g x spread) %.3g%%%s\n",
				js(v, "name"), "floor", jnum(nf, "spread_pct"),
				(long long)json_integer_value(json_object_get(nf, "runs")),
				jnum(nf, "k"), jnum(nf, "floor_pct"),
				json_is_true(json_object_get(nf, "used"))
					? ": the threshold"
					: " (under the threshold, which stays)");
	}
}

/* What was not compared: refused benches, benches and N on one side only. */
static void print_not_compared(const json_t *c, FILE *f)
{
	size_t i;
	json_t *v;
	const json_t *benches = json_object_get(c, "benches");
	const json_t *ref = json_object_get(c, "refused"), *oa = json_object_get(c, "benches_only_in_a"),
		     *ob = json_object_get(c, "benches_only_in_b");
	int any = json_array_size(ref) || json_array_size(oa) || json_array_size(ob);
	json_array_foreach(benches, i, v)
		any |= json_array_size(json_object_get(v, "n_only_in_a")) ||
		       json_array_size(json_object_get(v, "n_only_in_b"));
	if (any) {
		fprintf(f, "\nnot compared:\n");
		json_array_foreach(ref, i, v)
			fprintf(f, "  %s: REFUSED, version %lld in A but %lld in B (what it measures "
				   "changed)\n",
				js(v, "bench"),
				(long long)json_integer_value(json_object_get(v, "version_a")),
				(long long)json_integer_value(json_object_get(v, "version_b")));
		json_array_foreach(oa, i, v)
			fprintf(f, "  %s: only in A\n", clean(json_string_value(v)));
		json_array_foreach(ob, i, v)
			fprintf(f, "  %s: only in B\n", clean(json_string_value(v)));
		json_array_foreach(benches, i, v) {
			print_ns_list(f, js(v, "name"), json_object_get(v, "n_only_in_a"), "A");
			print_ns_list(f, js(v, "name"), json_object_get(v, "n_only_in_b"), "B");
		}
	}
}

static void print_summary(const json_t *c, FILE *f)
{
	const json_t *s = json_object_get(c, "summary"), *sb = json_object_get(s, "benches"),
		     *sp = json_object_get(s, "points");
	fprintf(f, "\nsummary: benches %lld same, %lld faster, %lld slower, %lld noisy, "
		   "%lld insufficient; points %lld same, %lld faster, %lld slower, %lld noisy%s\n",
		(long long)json_integer_value(json_object_get(sb, "same")),
		(long long)json_integer_value(json_object_get(sb, "faster")),
		(long long)json_integer_value(json_object_get(sb, "slower")),
		(long long)json_integer_value(json_object_get(sb, "noisy")),
		(long long)json_integer_value(json_object_get(sb, "insufficient")),
		(long long)json_integer_value(json_object_get(sp, "same")),
		(long long)json_integer_value(json_object_get(sp, "faster")),
		(long long)json_integer_value(json_object_get(sp, "slower")),
		(long long)json_integer_value(json_object_get(sp, "noisy")),
		json_is_true(json_object_get(s, "regression")) ? "; REGRESSION" : "");
}

void compare_print_text(const json_t *c, FILE *f)
{
	print_side(f, "A", json_object_get(c, "a"));
	print_side(f, "B", json_object_get(c, "b"));
	fprintf(f, "threshold %.3g%%, alpha %.3g; bench words from the repetitions (Welch's t, "
		   "at least %lld a side%s); point words from the samples (Mann-Whitney U; "
		   "delta = Cliff's delta, > 0: B slower)\n",
		jnum(c, "threshold_pct"), jnum(c, "alpha"),
		(long long)json_integer_value(json_object_get(c, "min_repetitions")),
		json_is_true(json_object_get(c, "strict")) ? "; --strict: else from the samples" : "");
	const json_t *ab = json_object_get(c, "ab");
	if (json_is_object(ab)) /* the two sides of one compare --ab run */
		fprintf(f, "paired: A and B are the two sides of compare --ab run %s; %s\n",
			js(ab, "id"),
			json_is_true(json_object_get(ab, "paired"))
				? "each bench tested on its repetition pairs (a t-test of B's level "
				  "minus A's in each pair; no run shift or run effect, the pairs "
				  "cancel the drift)"
				: "--unpaired: tested as two independent runs");
	const json_t *pa = json_is_object(ab) ? json_object_get(ab, "pairs_added") : NULL;
	if (json_is_object(pa)) { /* --detect's top-up */
		const char *k;
		json_t *n;
		int any = 0;
		fprintf(f, "--detect %g%%: %lld pairs each, more (up to %lld) where a bench's test "
			   "would find only a larger change:",
			jnum(ab, "detect_pct"), (long long)json_integer_value(json_object_get(ab, "pairs")),
			(long long)json_integer_value(json_object_get(ab, "max_pairs")));
		json_object_foreach((json_t *)pa, k, n)
			if (json_integer_value(n) > 0) {
				fprintf(f, "%s %s +%lld", any ? "," : "", k, (long long)json_integer_value(n));
				any = 1;
			}
		fprintf(f, "%s\n", any ? "" : " none needed");
	}
	print_verdict_changes(c, f);
	print_throughput_changes(c, f);
	fprintf(f, "\n%-12s %8s %10s %10s %8s %10s %10s %8s %8s %6s  %s\n", "bench", "N",
		"median A", "median B", "change", "p99 A", "p99 B", "change", "p", "delta", "word");
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(c, "benches"), i, v) {
		const json_t *pts = json_object_get(v, "points");
		if (!json_array_size(pts))
			fprintf(f, "%-12s %8s  (no point in common: %s in A, %s in B)\n",
				js(v, "name"), "-", js(v, "status_a"), js(v, "status_b"));
		print_points(v, f);
		if (json_array_size(pts))
			print_bench_line(v, f);
		print_profile(v, f);
		print_floor(v, f);
	}
	print_not_compared(c, f);
	json_array_foreach(json_object_get(c, "caveats"), i, v)
		fprintf(f, "\ncaveat: %s\n", clean(json_string_value(v)));
	print_summary(c, f);
}
