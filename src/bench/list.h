/* Every bench, one line each, in the order `list` and `run` use.
 * tests/integration/bench_table.sh checks that every bench file is here. */
BENCH(fs_create)
BENCH(fs_open)
BENCH(fs_stat)
BENCH(fs_unlink)
BENCH(proc_fork)
BENCH(mem_mmap)
BENCH(net_socket)
BENCH(net_bind)
BENCH(io_seqread)
BENCH(io_seqwrite)
BENCH(io_randread)
BENCH(io_randwrite)
