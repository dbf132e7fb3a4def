/* SPDX-License-Identifier: MIT */
/* io.seqread: sequential reads of a 64 MiB file (size_mib), bandwidth and per-request latency
 * by request size; `depth` requests in flight (default 1). */
#include "bench/iofile.h"

static int setup(struct bench_env *env, void **state) { return iofile_cb_setup(env, state, 0, 0); }
static int fio(const struct bench_env *env, uint64_t n, double runtime_s, char *buf, size_t len)
{
	return iofile_fio_cmd(env, 0, 0, 0, n, runtime_s, buf, len);
}

const struct bench bench_io_seqread = {
	.name = "io.seqread", .version = 2, .axis = "request size (KiB)", .axis_kind = AXIS_SIZE,
	.summary = "sequential reads of one file by request size, through psync, libaio, io_uring or mmap",
	.op_desc = "one read request of N KiB (rounded to 4 KiB) at the next offset, wrapping at the end of the file",
	.needs = NEED_DIR, .unit = "request", .series = SERIES_POW2, .flags = BENCH_FULL_BUDGET, .min_n = 4,
	.quick_max_n = 256, .default_max_n = 4096, .full_max_n = 16384, .space_mib = 64,
	.variants = iofile_variants_read, .params = iofile_params_seqread,
	.setup = setup, .set_n = iofile_cb_set_size, .run = iofile_cb_run, .teardown = iofile_cb_teardown,
	.fio = fio,
};
