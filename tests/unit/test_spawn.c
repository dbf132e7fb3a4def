/* SPDX-License-Identifier: MIT */
/* Child programs (src/core/spawn.c), with /bin/sh as the child: its end
 * in words, registered while it runs and not after, the log, the
 * descriptors it keeps (and those it does not), its own process group, a
 * failed exec, a stop signal passed on (the child's trap answers it) or
 * the child killed, and the look without waiting. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/registry.h"
#include "core/spawn.h"
#include "t.h"

static const struct spawn_opts plain = {.what = "sh"};

/* sh -c SCRIPT to its end: its wait status, or -1 */
static int sh_status(const char *script, const struct spawn_opts *o)
{
	char *const argv[] = {"sh", "-c", (char *)script, NULL};
	char err[256];
	struct spawn c;
	if (spawn_start(&c, "/bin/sh", argv, o, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return spawn_wait(&c, SPAWN_PASS) ? -1 : c.status;
}

static int file_has(const char *path, const char *what)
{
	char buf[512] = "";
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	return strstr(buf, what) != NULL;
}

int main(void)
{
	char how[64], err[256];
	reg_init();
	size_t held = reg_count();

	/* its end, in words */
	int st = sh_status("exit 3", &plain);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 3, "exit 3: status %#x", st);
	CHECK(!strcmp(spawn_status_text(st, 0, how, sizeof(how)), "exited with status 3"), "%s", how);
	CHECK(!strcmp(spawn_status_text(st, 1, how, sizeof(how)), "exit 3"), "%s", how);
	st = sh_status("kill -9 $$", &plain);
	CHECK(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == 9, "killed: status %#x", st);
	CHECK(!strcmp(spawn_status_text(st, 0, how, sizeof(how)), "was killed by signal 9"), "%s", how);
	CHECK(!strcmp(spawn_status_text(st, 1, how, sizeof(how)), "signal 9"), "%s", how);
	CHECK(reg_count() == held, "nothing held after the waits (%zu, was %zu)", reg_count(), held);

	/* registered while it runs: the registry's cleanup would kill it */
	int ready[2];
	CHECK(pipe(ready) == 0, "pipe");
	fcntl(ready[0], F_SETFD, FD_CLOEXEC);
	fcntl(ready[1], F_SETFD, FD_CLOEXEC);
	char script[256];
	snprintf(script, sizeof(script), "trap 'exit 7' TERM; echo >&%d; while :; do sleep 0.05; done", ready[1]);
	char *const trapper[] = {"sh", "-c", script, NULL};
	const int keep[] = {ready[1], -1};
	const struct spawn_opts ko = {.keep = keep, .nkeep = 2, .what = "sh",
				      .flags = SPAWN_OWN_GROUP | SPAWN_DIES_WITH_PARENT};
	struct spawn c;
	CHECK(spawn_start(&c, "/bin/sh", trapper, &ko, err, sizeof(err)) == 0, "start: %s", err);
	CHECK(reg_count() == held + 1, "registered while it runs (%zu)", reg_count());
	CHECK(getpgid(c.pid) == c.pid, "a process group of its own (%d, pid %d)", (int)getpgid(c.pid),
	      (int)c.pid);
	char b;
	CHECK(read(ready[0], &b, 1) == 1, "the kept descriptor reached it");
	CHECK(spawn_ended(&c) == 0, "it runs");
	/* a stop signal of ours is passed on; its trap exits 7 */
	reg_interrupted = SIGTERM;
	CHECK(spawn_wait(&c, SPAWN_PASS) == 0 && c.told, "passed on, waited for");
	CHECK(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 7, "it stopped on the signal: %s",
	      spawn_status_text(c.status, 0, how, sizeof(how)));
	CHECK(c.pid == 0 && reg_count() == held, "unregistered once ended (%zu)", reg_count());

	/* or killed: at once, and reaped */
	char *const sleeper[] = {"sh", "-c", "exec sleep 30", NULL};
	CHECK(spawn_start(&c, "/bin/sh", sleeper, &plain, err, sizeof(err)) == 0, "start: %s", err);
	pid_t pid = c.pid;
	CHECK(spawn_wait(&c, SPAWN_KILL) == -EINTR, "a stop kills it");
	CHECK(kill(pid, 0) < 0 && errno == ESRCH && reg_count() == held, "it is gone, unregistered");
	reg_interrupted = 0;

	/* a descriptor not kept does not reach it: the shell's redirection fails */
	snprintf(script, sizeof(script), "{ echo >&%d; } 2>/dev/null", ready[1]);
	st = sh_status(script, &plain);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) != 0, "not kept, not inherited: %#x", st);
	close(ready[0]);
	close(ready[1]);

	/* the log: stdout and stderr; a failed exec said there, exit 127 */
	char dir[] = "/tmp/sb-test-spawn.XXXXXX", log[64];
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(log, sizeof(log), "%s/log", dir);
	const struct spawn_opts lo = {.log = log, .exec_fail = "cannot start it", .what = "sh"};
	st = sh_status("echo out; echo err >&2", &lo);
	CHECK(st == 0 && file_has(log, "out\nerr\n"), "both outputs in the log");
	char missing[80];
	snprintf(missing, sizeof(missing), "%s/none", dir);
	char *const none[] = {"none", NULL};
	CHECK(spawn_start(&c, missing, none, &lo, err, sizeof(err)) == 0, "start: %s", err);
	CHECK(spawn_wait(&c, SPAWN_PASS) == 0 && WIFEXITED(c.status) && WEXITSTATUS(c.status) == 127,
	      "a failed exec exits 127");
	CHECK(file_has(log, "cannot start it: "), "and says so");

	/* the look without waiting */
	char *const quick[] = {"sh", "-c", "exit 0", NULL};
	CHECK(spawn_start(&c, "/bin/sh", quick, &plain, err, sizeof(err)) == 0, "start: %s", err);
	int ended = 0;
	for (int i = 0; i < 500 && !(ended = spawn_ended(&c)); i++)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	CHECK(ended && c.status == 0 && c.pid == 0 && reg_count() == held, "seen to end, unregistered");
	spawn_kill(&c); /* nothing left to kill: harmless */

	unlink(log);
	rmdir(dir);
	reg_cleanup();
	return t_done("test_spawn");
}
