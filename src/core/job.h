/* SPDX-License-Identifier: MIT */
/* A job: what one bench's run is told, whoever runs it. The runner
 * describes a bench to its worker process with it (src/cmd/worker.c), a
 * worker to its task processes (run --tasks, src/core/tasks.c), and a job
 * file names a whole bench run with it (bench, -p parameters, N range,
 * repetitions, tasks, CPUs, directory).
 *
 * The fields are written once, in JOB_FIELDS below: the struct's members,
 * the JSON encoder (job_to_json) and the decoder (job_from_json) are all
 * made from that one list, so that no side can forget a field the other
 * writes. Each row is
 *     X(name, TYPE, REQ or OPT, default, help)
 * name is the member and the JSON key; TYPE one of
 *     STR   char *, owned by the job (NULL: none; JSON null)
 *     INT   int, a JSON integer within int's range
 *     BOOL  int 0 or 1, JSON true or false (nothing else)
 *     U64   uint64_t, a JSON integer >= 0
 *     DBL   double, a finite JSON number
 *     OBJ   json_t * holding an object of strings (a reference; NULL: none)
 * REQ: a missing key is an error; OPT: a missing key gets the default
 * (the value of a fresh job_init too). A key not in the list, or a value of the wrong type, is an
 * error too: nothing becomes 0 unless 0 is its default.
 *
 * To add a field: one row here (pick its default with care: a job file
 * written before the field existed gets it), then, if a worker or a task
 * process needs it in its sweep_opts: a number that sweep_opts has under
 * the same name goes into JOB_SWEEP_SAME (job.c), which copies it both
 * ways; anything else, a line in job_from_sweep and one in job_sweep_opts. tests/unit/test_job.c round-trips every field of
 * the list by itself (it walks job_fields), so a new row is tested without
 * a new test; docs/architecture.md names the users. */
#ifndef SB_JOB_H
#define SB_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <sys/socket.h>

#include "core/result.h"
#include "core/sweep.h"

#define JOB_FIELDS(X)                                                                            \
	X(bench, STR, REQ, NULL, "the bench (family.op)")                                     \
	X(variant, STR, OPT, NULL, "the variant swept (\"k=v,k=v\"), as the result names it")          \
	X(target, STR, OPT, NULL, "the target (matrix's file system) the result names")               \
	X(params, OBJ, OPT, NULL, "the bench's parameters, strings (the variant's with -p applied)")   \
	X(dir, STR, OPT, NULL, "the directory worked in: run's --dir (job files), a task's directory") \
	X(scratch, STR, OPT, NULL, "the run's scratch directory, made by the runner (worker)")        \
	X(cpus, STR, OPT, NULL, "run's --cpus: the CPUs every process of the run is pinned to")      \
	X(min_n, U64, OPT, 0, "points below it are skipped (0: none)")                                \
	X(max_n, U64, OPT, 0, "largest N (0: the bench's default for the scale)")                    \
	X(repeat, INT, OPT, 1, "repetitions of the sweep")                                            \
	X(rep_first, INT, OPT, 0, "the first repetition this process runs (worker)")                 \
	X(rep_count, INT, OPT, 0, "how many it runs (0: to the last)")                                 \
	X(budget_s, DBL, OPT, 0.5, "sampling budget per point (s)")                                   \
	X(run_budget_s, DBL, OPT, 0.5, "the same for benches that spend it all (s)")                  \
	X(quick, BOOL, OPT, 0, "--quick")                                                             \
	X(full, BOOL, OPT, 0, "--full")                                                               \
	X(ci_target, DBL, OPT, 0.02, "relative half-width of the median's CI a point stops at")       \
	X(min_samples, U64, OPT, 200, "samples before the CI may stop a point")                      \
	X(op_timeout_s, DBL, OPT, 10, "one op longer than this is a failure (s)")                    \
	X(max_latency_ns, DBL, OPT, 0, "--max-latency, handed to the bench (0: none)")               \
	X(tasks, U64, OPT, 0, "run --tasks: the largest K (0: the load sweep)")                       \
	X(decide, BOOL, OPT, 0, "--decide: an unclear verdict gets more repetitions")                \
	X(no_decide, BOOL, OPT, 0, "--no-decide: not even for a bench with BENCH_DECIDE")             \
	X(profile, BOOL, OPT, 0, "run --profile: profiled points in the last repetition")             \
	X(profile_at, STR, OPT, NULL, "run --profile-at: the N also profiled (\"100,3000\")")         \
	X(profile_apart, BOOL, OPT, 0, "run --profile-apart: a whole workload profiled apart too")   \
	X(load, U64, OPT, 0, "a task's load: the N it builds before its window (run --tasks)")        \
	X(shared, BOOL, OPT, 0, "run --tasks, -p shared=1: one directory for all the tasks")          \
	X(progress, BOOL, OPT, 0, "the worker reports the load being built, not only each point")     \
	X(clock_id, STR, OPT, NULL, "the run's clock (\"CLOCK_MONOTONIC\")")                         \
	X(clock_source, STR, OPT, NULL, "its source (\"tsc\", \"kvm-clock\")")                       \
	X(clock_resolution_ns, DBL, OPT, 0, "its resolution (ns)")                                    \
	X(clock_read_cost_ns, DBL, OPT, 0, "the median cost of one read (ns)")                        \
	X(net_family, INT, OPT, AF_INET, "-4 / -6: AF_INET or AF_INET6")                              \
	X(net_netns, BOOL, OPT, 0, "--netns: the client namespace is this process's")                 \
	X(net_srv_nsfd, INT, OPT, -1, "--netns: the server namespace's descriptor (-1: none)")        \
	X(net_peer, STR, OPT, NULL, "--peer HOST:PORT")                                               \
	X(net_key, STR, OPT, NULL, "--key")                                                          \
	X(probe_loop_ns, DBL, OPT, 0, "the run's machine-speed probe reference: loop step (ns; 0: none)") \
	X(probe_clock_ns, DBL, OPT, 0, "... one clock read (ns; 0: none)")                            \
	X(probe_syscall_ns, DBL, OPT, 0, "... one system call (ns; 0: none)")                         \
	X(probe_fault_ns, DBL, OPT, 0, "... one page fault (ns; 0: none)")                            \
	X(probe_unmap_ns, DBL, OPT, 0, "... one unmap (ns; 0: none)")                                 \
	X(no_remeasure, BOOL, OPT, 0, "points the probe reads slow are not measured again")

#define JOB_CTYPE_STR char *
#define JOB_CTYPE_INT int
#define JOB_CTYPE_BOOL int
#define JOB_CTYPE_U64 uint64_t
#define JOB_CTYPE_DBL double
#define JOB_CTYPE_OBJ json_t *
#define JOB_MEMBER_(name, type, req, def, help) JOB_CTYPE_##type name;

struct job {
	JOB_FIELDS(JOB_MEMBER_)
};

enum job_type { JOB_STR, JOB_INT, JOB_BOOL, JOB_U64, JOB_DBL, JOB_OBJ };

/* One row of the list, as data (for `show --job`, help texts, the test). */
struct job_field {
	const char *name;
	enum job_type type;
	size_t off;           /* of the member in struct job */
	int required;         /* no default */
	double def_num;       /* INT, BOOL, U64, DBL */
	const char *def_str;  /* STR (always NULL today), OBJ (NULL) */
	const char *help;
};
extern const struct job_field job_fields[];
extern const size_t job_nfields;

/* Every field its default (required ones NULL or 0). */
void job_init(struct job *j);
/* Frees what the job holds; j is then as after job_init. */
void job_clear(struct job *j);
/* Every field, in the list's order (NULL strings as null). NULL if out of
 * memory or a U64 JSON cannot hold (> INT64_MAX). */
json_t *job_to_json(const struct job *j);
/* o into j (job_init'ed first, cleared on failure): 0, or -1 with err
 * naming the field (unknown key, wrong type, missing required field). */
int job_from_json(const json_t *o, struct job *j, char *err, size_t errlen);
/* 1 if every field is equal (strings by content, objects by json_equal). */
int job_equal(const struct job *a, const struct job *b);
/* Replace a STR field's value by a copy of s (NULL: none). 0 or -ENOMEM. */
int job_set(char **field, const char *s);

/* The fields sweep_opts carries (and its network settings and clock,
 * sweep_net's IPv4 default when so->net is NULL) into j, bench named b.
 * 0 or -ENOMEM. */
int job_from_sweep(struct job *j, const char *bench, const struct sweep_opts *so);
/* The other way: so (zeroed first) from j, its net and clk pointing to
 * *net and *clk, which are filled and, like j, must outlive so. */
void job_sweep_opts(const struct job *j, struct sweep_opts *so, struct bench_net *net,
		    struct clock_info *clk);

#endif
