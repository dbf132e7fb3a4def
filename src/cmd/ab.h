/* SPDX-License-Identifier: MIT */
/* compare --ab SIDE_A SIDE_B: both sides run in one invocation, bench by
 * bench and repetition pair by pair, back to back (AB, BA, AB ...), each
 * side's repetitions merged into one result that records the pairing
 * (docs/compare.md, "Paired A/B in one invocation"). */
#ifndef SB_AB_H
#define SB_AB_H

#include "cmd/opt.h"
#include "core/compare.h"
#include "core/result.h"

/* The run options compare --ab passes to every `run` it starts. */
struct ab_args {
	uint64_t repeat; /* pairs (default 5) */
	int repeat_seen;
	int quick, full, quiet;
	uint64_t max_n, min_n;
	double budget, ci_pct;
	int budget_seen, ci_seen;
	const char *dir, *cpus, *output; /* output: the PREFIX of PREFIX-a.json, PREFIX-b.json */
	struct opt_list params;
	int seen; /* any of these given (they need --ab) */
	/* --detect PCT: a bench whose test would find only a larger change
	 * gets more pairs, up to max_pairs (0: none added) */
	double detect_pct;
	uint64_t max_pairs;
	int max_pairs_seen;
	const struct cmp_opts *cmp; /* the final compare's options: --detect's looks use them */
};

/* Parses and checks both side specs (pos[0], pos[1]) and the benches
 * (pos[2..npos)), runs the pairs, merges each side into rs[0] (A) and
 * rs[1] (B) with labels, writes them when a->output is set. EXIT_OK, or
 * an exit code with the message on stderr (EXIT_USAGE before any work;
 * an interrupt: EXIT_SIGNAL + signal), everything made removed. */
int ab_run(struct ab_args *a, char **pos, int npos, int argc, char **argv,
	   struct run_result rs[2], char (*labels)[64]);

#endif
