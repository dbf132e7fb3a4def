/* SPDX-License-Identifier: MIT */
/* io.randwrite: random 4 KiB overwrites (bs) of a 64 MiB file (size_mib) with N requests in flight.
 * Buffered writes stop at the page cache (no fsync). */
#include "bench/iofile.h"

static int setup(struct bench_env *env, void **state) { return iofile_cb_setup(env, state, 1, 1); }
static int fio(const struct bench_env *env, uint64_t n, double runtime_s, char *buf, size_t len)
{
	return iofile_fio_cmd(env, 1, 1, 1, n, runtime_s, buf, len);
}

const struct bench bench_io_randwrite = {
	.name = "io.randwrite", .version = 2, .axis = "requests in flight", .axis_kind = AXIS_CONCURRENCY,
	.summary = "random 4 KiB overwrites of one file with N requests in flight (psync: N threads)",
	.op_desc = "one write request of bs bytes (4 KiB) at a random aligned offset; latency from issue to completion; no fsync",
	.needs = NEED_DIR, .unit = "request", .series = SERIES_POW2, .flags = BENCH_FULL_BUDGET, .min_n = 1,
	.quick_max_n = 16, .default_max_n = 256, .full_max_n = 256, .space_mib = 64,
	.variants = iofile_variants_rw, .params = iofile_params_randwrite,
	.setup = setup, .set_n = iofile_cb_set_depth, .run = iofile_cb_run, .teardown = iofile_cb_teardown,
	.fio = fio,
};
