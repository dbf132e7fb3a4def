/* SPDX-License-Identifier: MIT */
/* work.round2's pure helpers: the HTTP request parser of its file server
 * and the seeded Zipf request log (src/bench/webload.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "t.h"
#include "bench/webload.h"

static int parse(const char *s, struct http_req *q)
{
	return http_parse_request(s, strlen(s), 8192, q);
}

static void test_parser(void)
{
	struct http_req q;
	const char *ok = "GET /d00001/f0000123 HTTP/1.1\r\nHost: x\r\n\r\nGET /next";
	int n = parse(ok, &q);
	CHECK(n == (int)(strstr(ok, "\r\n\r\n") - ok) + 4, "head length %d", n);
	CHECK(!strcmp(q.path, "d00001/f0000123"), "path '%s'", q.path);
	CHECK(q.keep_alive == 1, "HTTP/1.1 keeps the connection");
	CHECK(parse("GET /a HTTP/1.1\r\nConnection: close\r\n\r\n", &q) > 0 && q.keep_alive == 0,
	      "Connection: close");
	CHECK(parse("GET /a HTTP/1.0\r\n\r\n", &q) > 0 && q.keep_alive == 0, "1.0 closes");
	CHECK(parse("GET /a HTTP/1.0\r\nconnection: Keep-Alive\r\n\r\n", &q) > 0 && q.keep_alive == 1,
	      "1.0 keep-alive");
	/* incomplete: more bytes needed */
	CHECK(parse("GET /a HTTP/1.1\r\nHost: x\r\n", &q) == 0, "incomplete head");
	CHECK(parse("", &q) == 0, "empty");
	/* refused */
	CHECK(parse("GET /../etc/passwd HTTP/1.1\r\n\r\n", &q) == -403, "..");
	CHECK(parse("GET /d0/../../x HTTP/1.1\r\n\r\n", &q) == -403, "inner ..");
	CHECK(parse("GET /./a HTTP/1.1\r\n\r\n", &q) == -403, ".");
	CHECK(parse("GET /.hidden HTTP/1.1\r\n\r\n", &q) == -403, "dot name");
	CHECK(parse("GET /a//b HTTP/1.1\r\n\r\n", &q) == -403, "empty segment");
	CHECK(parse("GET /a/ HTTP/1.1\r\n\r\n", &q) == -403, "trailing slash");
	CHECK(parse("GET / HTTP/1.1\r\n\r\n", &q) == -403, "the root");
	CHECK(parse("GET /%2e%2e/x HTTP/1.1\r\n\r\n", &q) == -403, "percent-encoding");
	CHECK(parse("GET /a?x=1 HTTP/1.1\r\n\r\n", &q) == -403, "query");
	CHECK(parse("POST /a HTTP/1.1\r\n\r\n", &q) == -405, "POST");
	CHECK(parse("HEAD /a HTTP/1.1\r\n\r\n", &q) == -405, "HEAD");
	CHECK(parse("GET /a HTTP/2.0\r\n\r\n", &q) == -505, "HTTP/2");
	CHECK(parse("GET a HTTP/1.1\r\n\r\n", &q) == -400, "relative target");
	CHECK(parse("GET\r\n\r\n", &q) == -400, "no target");
	char big[400];
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /", 5);
	strcpy(big + 300, " HTTP/1.1\r\n\r\n");
	CHECK(parse(big, &q) == -414, "path of 295 bytes");
	/* head longer than max_head, with or without its end */
	char *huge = malloc(10000);
	memset(huge, 'x', 10000);
	memcpy(huge, "GET /a HTTP/1.1\r\nX: ", 20);
	CHECK(http_parse_request(huge, 9000, 8192, &q) == -431, "no end within max_head");
	memcpy(huge + 9996, "\r\n\r\n", 4);
	CHECK(http_parse_request(huge, 10000, 8192, &q) == -431, "end beyond max_head");
	CHECK(http_parse_request(huge, 100, 8192, &q) == 0, "short prefix: more needed");
	free(huge);
}

static void test_zipf(void)
{
	enum { N = 200000, F = 1000 };
	uint32_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	unsigned *cnt = calloc(F, sizeof(*cnt));
	CHECK(zipf_log(a, N, F, 0, 1.0, 42) == 0, "log made");
	CHECK(zipf_log(b, N, F, 0, 1.0, 42) == 0, "log made twice");
	CHECK(!memcmp(a, b, N * sizeof(*a)), "same seed, same log");
	CHECK(zipf_log(b, N, F, 0, 1.0, 43) == 0 && memcmp(a, b, N * sizeof(*a)), "other seed, other log");
	int inrange = 1;
	for (int i = 0; i < N; i++) {
		inrange &= a[i] < F;
		if (a[i] < F)
			cnt[a[i]]++;
	}
	CHECK(inrange, "indexes below nfiles");
	/* the most requested file has share 1/H(1000) = 0.1336; the 10th 1/10 of it */
	unsigned top = 0, second = 0;
	for (int f = 0; f < F; f++)
		if (cnt[f] > top)
			second = top, top = cnt[f];
		else if (cnt[f] > second)
			second = cnt[f];
	double h = 0;
	for (int r = 1; r <= F; r++)
		h += 1.0 / r;
	CHECK(fabs((double)top / N - 1 / h) < 0.01, "top share %.4f vs %.4f", (double)top / N, 1 / h);
	CHECK(fabs((double)second / top - 0.5) < 0.05, "second/top %.3f vs 0.5", (double)second / top);
	/* uniq=1: one file only; s=0: uniform */
	CHECK(zipf_log(b, 1000, F, 1, 1.0, 7) == 0, "uniq=1");
	int same = 1;
	for (int i = 1; i < 1000; i++)
		same &= b[i] == b[0];
	CHECK(same, "uniq=1 requests one file");
	CHECK(zipf_log(a, N, F, 0, 0.0, 7) == 0, "s=0");
	memset(cnt, 0, F * sizeof(*cnt));
	for (int i = 0; i < N; i++)
		cnt[a[i]]++;
	unsigned lo = N, hi = 0;
	for (int f = 0; f < F; f++) {
		lo = cnt[f] < lo ? cnt[f] : lo;
		hi = cnt[f] > hi ? cnt[f] : hi;
	}
	CHECK(lo > 120 && hi < 290, "uniform: every file between %u and %u times (mean 200)", lo, hi);
	CHECK(zipf_log(a, 10, 0, 0, 1.0, 1) == -1, "no files: refused");
	free(a);
	free(b);
	free(cnt);
}

/* file sizes: within [min, max], the same for the same seed, spread over
 * the range (log-uniform: about half below the geometric mean) */
static void test_sizes(void)
{
	size_t lo = 2048, hi = 204800;
	int in = 1, below = 0, same = 1;
	for (uint64_t i = 0; i < 4000; i++) {
		size_t z = seed_file_size(7, i, 0, lo, hi);
		in &= z >= lo && z <= hi;
		below += z < 20480; /* sqrt(lo * hi) */
		same &= z == seed_file_size(7, i, 0, lo, hi);
	}
	CHECK(in, "sizes within [min, max]");
	CHECK(same, "the same seed gives the same sizes");
	CHECK(below > 1700 && below < 2300, "log-uniform: %d of 4000 below the geometric mean", below);
	CHECK(seed_file_size(7, 1, 0, lo, hi) != seed_file_size(8, 1, 0, lo, hi) ||
		      seed_file_size(7, 2, 0, lo, hi) != seed_file_size(8, 2, 0, lo, hi),
	      "another seed, other sizes");
}

int main(void)
{
	test_sizes();
	test_parser();
	test_zipf();
	return t_done("test_webload");
}
