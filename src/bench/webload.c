/* SPDX-License-Identifier: MIT */
/* The request parser and the Zipf request log of work.round2 (webload.h).
 * The parser is strict on purpose: it serves a benchmark's own tree, so
 * anything beyond "GET /plain/path HTTP/1.1" plus headers is refused
 * rather than interpreted. */
#include "bench/webload.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *find_crlfcrlf(const char *b, size_t len)
{
	for (size_t i = 0; i + 3 < len; i++)
		if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n')
			return b + i;
	return NULL;
}

static int path_ok(const char *p, size_t n)
{
	int seg_start = 1;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (c == '/') {
			if (seg_start) /* empty segment: "//" or a trailing '/' after '/' */
				return 0;
			seg_start = 1;
			continue;
		}
		if (!(isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-'))
			return 0;
		if (seg_start && c == '.') /* ".", "..", hidden names */
			return 0;
		seg_start = 0;
	}
	return !seg_start; /* no trailing '/' */
}

/* Case-insensitive: does the header line [l, e) name `name`, value holding `val`? */
static int header_has(const char *l, const char *e, const char *name, const char *val)
{
	size_t nl = strlen(name), vl = strlen(val);
	if ((size_t)(e - l) <= nl || strncasecmp(l, name, nl) || l[nl] != ':')
		return 0;
	for (const char *v = l + nl + 1; v + vl <= e; v++)
		if (!strncasecmp(v, val, vl))
			return 1;
	return 0;
}

int http_parse_request(const char *buf, size_t len, size_t max_head, struct http_req *out)
{
	const char *end = find_crlfcrlf(buf, len < max_head ? len : max_head);
	if (!end)
		return len >= max_head ? -431 : 0;
	const char *eol = memchr(buf, '\r', (size_t)(end - buf) + 1);
	/* request line: METHOD SP TARGET SP VERSION */
	const char *sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	if (!sp1)
		return -400;
	const char *sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	if (!sp2)
		return -400;
	if (sp1 - buf != 3 || memcmp(buf, "GET", 3))
		return -405;
	const char *ver = sp2 + 1;
	size_t vl = (size_t)(eol - ver);
	if (vl != 8 || memcmp(ver, "HTTP/1.", 7) || (ver[7] != '0' && ver[7] != '1'))
		return -505;
	const char *p = sp1 + 1;
	size_t pl = (size_t)(sp2 - p);
	if (pl == 0 || p[0] != '/')
		return -400;
	p++, pl--;
	if (pl >= HTTP_PATH_MAX)
		return -414;
	if (!path_ok(p, pl))
		return -403;
	memcpy(out->path, p, pl);
	out->path[pl] = 0;
	out->keep_alive = ver[7] == '1';
	for (const char *l = eol + 2; l < end;) {
		const char *e = memchr(l, '\r', (size_t)(end - l) + 1);
		if (header_has(l, e, "connection", "close"))
			out->keep_alive = 0;
		else if (header_has(l, e, "connection", "keep-alive"))
			out->keep_alive = 1;
		l = e + 2;
	}
	return (int)(end - buf) + 4;
}

uint64_t seed_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

size_t seed_file_size(uint64_t seed, uint64_t i, uint64_t v, size_t min_b, size_t max_b)
{
	double u = (double)(seed_mix(seed * 7919 + i * 2 + v) >> 11) / 9007199254740992.0;
	double lo = log((double)min_b), hi = log((double)max_b);
	return (size_t)exp(lo + u * (hi - lo));
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

int zipf_log(uint32_t *out, size_t n, uint64_t nfiles, uint64_t uniq, double s, uint64_t seed)
{
	if (!nfiles || nfiles > UINT32_MAX || (n && !out))
		return -1;
	if (!uniq || uniq > nfiles)
		uniq = nfiles;
	double *cdf = malloc((size_t)uniq * sizeof(*cdf));
	if (!cdf)
		return -1;
	double sum = 0;
	for (uint64_t r = 0; r < uniq; r++) {
		sum += pow((double)(r + 1), -s);
		cdf[r] = sum;
	}
	uint64_t a = seed_mix(seed ^ 0x5bd1e995) % nfiles | 1, b = 0; /* rank 0 is file 0 */
	while (gcd(a, nfiles) != 1)
		a++;
	uint64_t x = seed;
	for (size_t i = 0; i < n; i++) {
		x = seed_mix(x + 0x9e3779b97f4a7c15ull);
		double u = (double)(x >> 11) / 9007199254740992.0 * sum;
		uint64_t lo = 0, hi = uniq - 1; /* first rank with cdf > u */
		while (lo < hi) {
			uint64_t mid = (lo + hi) / 2;
			if (cdf[mid] > u)
				hi = mid;
			else
				lo = mid + 1;
		}
		out[i] = (uint32_t)((a % nfiles * (lo % nfiles) + b) % nfiles);
	}
	free(cdf);
	return 0;
}
