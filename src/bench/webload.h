/* SPDX-License-Identifier: MIT */
/* Pure helpers of work.round2's HTTP phase: the request parser of its
 * file server and the seeded Zipf request log its clients replay. No I/O,
 * so that tests/unit/test_webload.c checks them alone. */
#ifndef SB_WEBLOAD_H
#define SB_WEBLOAD_H

#include <stddef.h>
#include <stdint.h>

#define HTTP_PATH_MAX 256

struct http_req {
	char path[HTTP_PATH_MAX]; /* relative to the served tree, no leading '/' */
	int keep_alive;           /* 1: keep the connection after the response */
};

/* Parse one request head in buf[0..len). Returns the bytes of the head
 * (through the blank line) when complete, 0 when more bytes are needed
 * (and len < max_head), or a negative HTTP status: -400 malformed, -403 a
 * path outside the tree ("..", ".", empty segments, characters other than
 * [A-Za-z0-9._-/], a leading dot), -405 not GET, -414 path too long, -431
 * head longer than max_head, -505 not HTTP/1.x. */
int http_parse_request(const char *buf, size_t len, size_t max_head, struct http_req *out);

/* A seeded request log: n file indexes in [0, nfiles), rank r drawn with
 * probability proportional to 1/(r+1)^s (Zipf), over the `uniq` most
 * popular files (0: all), ranks mapped to files by a seeded permutation
 * (rank -> a*r mod nfiles, a coprime to nfiles: the most requested file is
 * file 0, so that a cross-check can name it). Same arguments, same
 * log. 0, or -1 when out of memory or the arguments are empty. */
int zipf_log(uint32_t *out, size_t n, uint64_t nfiles, uint64_t uniq, double s, uint64_t seed);

/* Seeded workloads (work.round2, fs.fileserver): a 64-bit mixing function
 * (splitmix's finaliser), and the size of file i at version v, log-uniform
 * in [min_b, max_b] (min_b >= 1), the same for the same seed anywhere. */
uint64_t seed_mix(uint64_t x);
size_t seed_file_size(uint64_t seed, uint64_t i, uint64_t v, size_t min_b, size_t max_b);

#endif
