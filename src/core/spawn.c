/* SPDX-License-Identifier: MIT */
/* Child programs: start, register, wait, say how they ended (spawn.h). */
#include "core/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/registry.h"
#include "sys/sys.h"

/* In the forked copy: set it up as o says and exec; never returns. */
static void child(const char *exe, char *const argv[], const struct spawn_opts *o, pid_t parent)
{
	if (o->flags & SPAWN_DIES_WITH_PARENT) {
		sys_child_dies_with_parent();
		if (getppid() != parent)
			_exit(127);
	}
	if (o->flags & SPAWN_OWN_GROUP)
		setpgid(0, 0);
	for (int i = 0; i < o->nkeep; i++)
		if (o->keep[i] >= 0)
			fcntl(o->keep[i], F_SETFD, 0);
	if (o->log) {
		int fd = open(o->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
	} else if (o->flags & SPAWN_STDOUT_NULL) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			dup2(fd, 1);
	} else if (o->flags & SPAWN_STDOUT_TO_STDERR) {
		dup2(2, 1);
	}
	execv(exe, argv);
	if (o->exec_fail)
		fprintf(stderr, "%s: %s\n", o->exec_fail, strerror(errno));
	_exit(127);
}

int spawn_start(struct spawn *c, const char *exe, char *const argv[], const struct spawn_opts *o,
		char *err, size_t errlen)
{
	const char *what = o->what ? o->what : exe;
	memset(c, 0, sizeof(*c));
	pid_t parent = getpid(), pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork (%s): %s", what, strerror(errno));
		return -1;
	}
	if (pid == 0)
		child(exe, argv, o, parent);
	if (o->flags & SPAWN_OWN_GROUP) /* both sides: whichever runs first */
		setpgid(pid, pid);
	int rc = reg_add_pid(pid);
	if (rc) { /* it killed and reaped the child */
		snprintf(err, errlen, "cannot register %s for cleanup: %s", what, strerror(-rc));
		return -1;
	}
	c->pid = pid;
	return 0;
}

void spawn_pass_stop(struct spawn *c)
{
	if (c->pid > 0 && !c->told && reg_stop_requested()) {
		kill(c->pid, (int)reg_interrupted);
		c->told = 1;
	}
}

/* It ended with status st: unregistered. */
static void ended(struct spawn *c, int st)
{
	reg_forget_pid(c->pid);
	c->pid = 0;
	c->status = st;
}

void spawn_kill(struct spawn *c)
{
	if (c->pid > 0)
		reg_kill_pid(c->pid);
	c->pid = 0;
}

int spawn_wait(struct spawn *c, enum spawn_stop how)
{
	if (c->pid <= 0)
		return 0;
	for (;;) {
		if (reg_stop_requested()) {
			if (how == SPAWN_KILL) {
				spawn_kill(c);
				return -EINTR;
			}
			spawn_pass_stop(c);
		}
		int st = 0;
		pid_t w = waitpid(c->pid, &st, 0);
		if (w == c->pid) {
			ended(c, st);
			return 0;
		}
		if (w < 0 && errno != EINTR) {
			int e = errno;
			spawn_kill(c);
			return -e;
		}
	}
}

int spawn_ended(struct spawn *c)
{
	if (c->pid <= 0)
		return 1;
	int st = 0;
	pid_t w = waitpid(c->pid, &st, WNOHANG);
	if (w == c->pid || (w < 0 && errno == ECHILD)) {
		ended(c, st);
		return 1;
	}
	return 0;
}

const char *spawn_status_text(int status, int terse, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, terse ? "exit %d" : "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, terse ? "signal %d" : "was killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, terse ? "status %#x" : "ended with wait status %#x", (unsigned)status);
	return buf;
}
