/* SPDX-License-Identifier: MIT */
/* A child program, started with fork and exec, registered (registry.h)
 * right after the fork so that Ctrl-C, an error or the exit kills and
 * reaps it; waited for with a stop signal of ours passed on, or killed;
 * its end put in words one way. Every program a command starts and waits
 * for comes through here: compare --ab's runs (cmd/ab.c), the matrix's
 * mkfs and bindfs (cmd/matrix.c), the runner's workers (cmd/worker.c).
 * (A task process, core/tasks.c, runs on in the forked copy when its exec
 * fails, and cmd/serve.c's servers are forked copies: neither is a
 * program started here.) */
#ifndef SB_SPAWN_H
#define SB_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

enum {
	/* killed when this process dies (sys_child_dies_with_parent; where the
	 * system has it), and not started at all if it already has */
	SPAWN_DIES_WITH_PARENT = 1,
	/* a process group of its own: a Ctrl-C at the terminal does not reach it */
	SPAWN_OWN_GROUP = 2,
	SPAWN_STDOUT_NULL = 4,      /* its stdout is /dev/null */
	SPAWN_STDOUT_TO_STDERR = 8, /* its stdout is our stderr */
};

struct spawn_opts {
	unsigned flags; /* SPAWN_* */
	/* its stdout and stderr into this file (created 0600, truncated), or NULL */
	const char *log;
	/* descriptors it inherits across the exec (negative ones are passed
	 * over); every other one of ours is close-on-exec or the caller's care */
	const int *keep;
	int nkeep;
	/* if the exec fails, "EXEC_FAIL: strerror" on its stderr, or nothing */
	const char *exec_fail;
	/* what it is, for the errors of spawn_start ("worker", "mkfs.ext4") */
	const char *what;
};

struct spawn {
	pid_t pid;  /* while it runs (registered), else 0 */
	int told;   /* a stop signal was passed on to it */
	int status; /* its wait status, once it has ended */
};

/* Fork, exec exe with argv, register it: 0, or -1 with err ("fork (WHAT):
 * ...", or "cannot register WHAT for cleanup: ...": it was killed and
 * reaped then). */
int spawn_start(struct spawn *c, const char *exe, char *const argv[], const struct spawn_opts *o,
		char *err, size_t errlen);

/* A stop signal this process got (reg_interrupted) sent on to it, once:
 * it stops, cleans up and exits (a Ctrl-C at the terminal reaches it
 * anyway, unless SPAWN_OWN_GROUP). */
void spawn_pass_stop(struct spawn *c);

/* Wait for its end. On a stop signal of ours, SPAWN_PASS passes it on and
 * waits on; SPAWN_KILL kills and reaps it and returns -EINTR. 0 when it
 * ended (c->status; unregistered), -EINTR, or -errno of waitpid (then
 * killed and reaped). */
enum spawn_stop { SPAWN_PASS, SPAWN_KILL };
int spawn_wait(struct spawn *c, enum spawn_stop how);

/* Without waiting: 1 if it has ended or is gone (c->status; unregistered),
 * 0 while it runs. */
int spawn_ended(struct spawn *c);

/* Kill and reap it (if it still runs); unregistered. */
void spawn_kill(struct spawn *c);

/* How a wait status ended, in words: "exited with status N", "was killed
 * by signal N"; terse: "exit N", "signal N". buf. */
const char *spawn_status_text(int status, int terse, char *buf, size_t len);

#endif
