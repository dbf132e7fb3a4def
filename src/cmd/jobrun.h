/* SPDX-License-Identifier: MIT */
/* `scalebench run FILE.job` and `matrix FILE.job` (docs/studies.md): a job
 * file's [global] section and its job sections mapped onto the options
 * the commands already take, everything checked before any work, the
 * command line over the file, and the resolved job recorded in the result
 * so that `show --job` prints it back. */
#ifndef SB_JOBRUN_H
#define SB_JOBRUN_H

#include "cmd/runner.h"

struct jobsec_plan {
	char *name;
	struct runner sub;  /* the section's own options, selection and parameters, prepared */
	char *words[MAX_SELECT];
	int nwords;
	char *param_strs[OPT_LIST_MAX]; /* "key=value" the file gave, owned */
	int nparam_strs;
	const char *only_fs; /* matrix: fs = LIST in the section: only on these targets (or NULL) */
};

struct jobfile;
struct jobplan {
	struct jobfile *jf;      /* the file as read (the options point into it) */
	struct jobsec_plan *sec;
	int nsec;
	char *words[MAX_SELECT]; /* every section's bench words, once each */
	int nwords;
	json_t *doc;             /* the resolved job, as the result records it */
	char *gparams[OPT_LIST_MAX]; /* owned strings handed to the command's parser */
	int ngparams;
};

/* Is word a job file rather than a bench name? (ends in .job, or holds a '/') */
int jobrun_is_file(const char *word);

/* Reads path, applies its [global] keys to the command's options (opts,
 * whose targets belong to the command; rn among them), then the command
 * line argv again on top, and prepares one runner per job section (the
 * command line's own runner options over the file's). Nothing is created.
 * 0, or -1 with "FILE:LINE: what" in err (a usage error: exit 2). */
int jobrun_load(struct jobplan *plan, const char *path, const char *cmd, const struct opt *opts,
		struct runner *rn, int argc, char **argv, char *err, size_t errlen);
/* Sweeps every section in turn on dir (as runner_sweep does, target as
 * there), marking each bench result with its section. The worst exit code. */
int jobrun_sweep(struct runner *rn, const struct jobplan *plan, const char *dir, const char *target);
void jobrun_free(struct jobplan *plan);

/* show --job: the result's job (result_to_json's "job") as a job file on f.
 * 0, or -1 with a message (the result records no job). */
int jobrun_print(FILE *f, const json_t *job, const char *origin, char *err, size_t errlen);

#endif
