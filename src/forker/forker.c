/* SPDX-License-Identifier: MIT */
/* scalebench-forker: the statically linked process that proc.fork's
 * image=static variant has fork (von Leitner's 2003 set forked a static
 * and a dynamic program). A program of its own, on libc alone, linked
 * with -static (Makefile): a forking process of a few mappings, no
 * dynamic linker, no shared library, against scalebench's own image.
 *
 * Started by the bench (fork + exec, descriptors 0 and 1 two pipes), it
 * dies with the bench (PR_SET_PDEATHSIG, kept across exec) and so do its
 * sleepers. It reads one command at a time, each 16 bytes: a char op and
 * a uint64 argument at offset 8, and answers with one int64:
 *   'S'  fork one more sleeper (a child that pauses):   0 or -errno
 *   'R' k  fork + child _exit(0) + waitpid, k times, between two
 *        CLOCK_MONOTONIC reads (the clock and the loop of the core's
 *        op sampling): the elapsed ns, or -errno
 *   'M'  its own mappings (lines of /proc/self/maps), or -errno
 * End of input: it kills and reaps its sleepers and exits. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int full_io(int fd, void *buf, size_t len, int wr)
{
	char *p = buf;
	while (len) {
		ssize_t n = wr ? write(fd, p, len) : read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int64_t fork_loop(uint64_t k)
{
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < k; i++) {
		pid_t pid = fork();
		if (pid < 0)
			return -errno;
		if (pid == 0)
			_exit(0);
		int status;
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return -errno;
	}
	return (int64_t)(now_ns() - t0);
}

static pid_t *kids;
static size_t nkids, capkids;

static int64_t sleeper(pid_t parent)
{
	if (nkids == capkids) {
		size_t nc = capkids ? 2 * capkids : 256;
		pid_t *p = realloc(kids, nc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		kids = p;
		capkids = nc;
	}
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	kids[nkids++] = pid;
	return 0;
}

static int64_t mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	int64_t n = 0;
	int c;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "scalebench-forker: started by scalebench's proc.fork (image=static); takes no argument\n");
		return 2;
	}
	pid_t self = getpid();
	for (;;) {
		unsigned char cmd[16];
		uint64_t arg;
		if (full_io(0, cmd, sizeof(cmd), 0))
			break;
		memcpy(&arg, cmd + 8, sizeof(arg));
		int64_t v = -EINVAL;
		if (cmd[0] == 'S')
			v = sleeper(self);
		else if (cmd[0] == 'R')
			v = fork_loop(arg);
		else if (cmd[0] == 'M')
			v = mappings();
		if (full_io(1, &v, sizeof(v), 1))
			break;
	}
	for (size_t i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	for (size_t i = 0; i < nkids; i++)
		while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
			;
	free(kids);
	return 0;
}
