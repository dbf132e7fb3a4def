/* SPDX-License-Identifier: MIT */
/* fs.unlink: remove a file from a directory of N other entries. */
#include <fcntl.h>
#include <unistd.h>
#include "bench/fsdir.h"

const struct bench bench_fs_unlink = {
	.params = bench_no_params,
	.name = "fs.unlink", .version = 1, .axis = "entries in the directory", .axis_kind = AXIS_LOAD,
	.summary = "unlink a file from a directory already holding N other entries",
	.op_desc = "unlinkat of a probe file created untimed just before",
	.needs = NEED_DIR, .tasks = BENCH_TASKS_DIR, .quick_max_n = 10000, .default_max_n = 100000, .full_max_n = 1000000,
	.max_batch = FSDIR_SLOTS, .setup = fsdir_setup, .grow = fsdir_grow,
	.prep = fsdir_create_probe, .op = fsdir_unlink_slot, .teardown = fsdir_teardown,
};
