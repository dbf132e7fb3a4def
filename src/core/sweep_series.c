/* SPDX-License-Identifier: MIT */
/* The series of N a repetition measures (1-2-5 per decade, the bench's
 * own kind and lowest N), a bench's largest N for --quick/--full/--max-n,
 * the network settings a bench gets, and a variant's parameters. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "core/sweep_int.h"

int sweep_series(uint64_t max_n, uint64_t *out, int cap)
{
	static const unsigned steps[3] = {1, 2, 5};
	int k = 0;
	for (uint64_t dec = 1; k < cap; dec *= 10) {
		for (int i = 0; i < 3 && k < cap; i++) {
			uint64_t v = dec * steps[i];
			if (v > max_n)
				goto done;
			out[k++] = v;
		}
		if (dec > UINT64_MAX / 10)
			break;
	}
done:
	if (k < cap && (k == 0 || out[k - 1] != max_n) && max_n > 0)
		out[k++] = max_n;
	return k;
}

/* env->net when the caller gives none: IPv4 on loopback. */
static const struct bench_net net_default = {.family = AF_INET, .srv_nsfd = -1};

const struct bench_net *sweep_net(const struct sweep_opts *o)
{
	return o && o->net ? o->net : &net_default;
}

static int series_from_lo(const struct bench *b, uint64_t max_n, uint64_t *out, int cap)
{
	uint64_t lo = b->min_n ? b->min_n : 1;
	int k = 0;
	if (b->series == SERIES_LINEAR) { /* levels: never beyond the bench's last */
		if (b->full_max_n && max_n > b->full_max_n)
			max_n = b->full_max_n;
		for (uint64_t v = lo; v <= max_n && k < cap; v++)
			out[k++] = v;
		return k;
	}
	if (b->series == SERIES_POW2) {
		for (uint64_t v = 1; v <= max_n && k < cap; v *= 2) {
			if (v >= lo)
				out[k++] = v;
			if (v > UINT64_MAX / 2)
				break;
		}
		if (k < cap && (k == 0 || out[k - 1] != max_n) && max_n >= lo)
			out[k++] = max_n;
		return k;
	}
	uint64_t tmp[SWEEP_MAX_POINTS];
	int n = sweep_series(max_n, tmp, SWEEP_MAX_POINTS);
	if (lo > 1 && lo <= max_n && k < cap)
		out[k++] = lo;
	for (int i = 0; i < n && k < cap; i++)
		if (tmp[i] > lo || (lo == 1 && tmp[i] == 1))
			out[k++] = tmp[i];
	return k;
}

int sweep_series_for(const struct bench *b, uint64_t max_n, uint64_t *out, int cap)
{
	if (!(b->flags & BENCH_FROM_ZERO) || cap < 1)
		return series_from_lo(b, max_n, out, cap);
	out[0] = 0; /* the baseline, then the series */
	return 1 + series_from_lo(b, max_n, out + 1, cap - 1);
}

uint64_t sweep_max_n(const struct bench *b, const struct sweep_opts *o)
{
	if (o->max_n)
		return o->max_n;
	if (o->quick)
		return b->quick_max_n;
	if (o->full)
		return b->full_max_n;
	return b->default_max_n;
}

/* "k=v,k=v" into obj; -1 if malformed. */
static int parse_kv(const char *s, json_t *obj)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", s);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq || eq == tok)
			return -1;
		*eq = 0;
		json_object_set_new(obj, tok, json_string(eq + 1));
	}
	return 0;
}

int sweep_params(const char *variant, const json_t *overrides, json_t **out)
{
	json_t *p = json_object();
	*out = NULL;
	if (!p)
		return -ENOMEM;
	if (variant && parse_kv(variant, p)) {
		json_decref(p);
		return -EINVAL;
	}
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)overrides, k, v) {
		json_t *mine = json_object_get(p, k);
		if (mine && !json_equal(mine, v)) {
			json_decref(p);
			return 1; /* this variant disagrees with the override */
		}
		json_object_set(p, k, v);
	}
	*out = p;
	return 0;
}
