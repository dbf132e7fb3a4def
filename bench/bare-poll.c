/* SPDX-License-Identifier: MIT */
/* Bare C reference for net.request (issue 12): what poll, select and
 * epoll_wait cost over N idle connected TCP loopback sockets plus one
 * active one, outside scalebench, for N up to 10,000.
 *
 *   bare-poll [-r ROUNDS] [-s SAMPLES] [-m MAXN] [-g GAP_US] [-n N,N,...]
 *
 * Setup: a listener on 127.0.0.1 (port from the kernel); a holder child
 * connects MAXN + 1 times and keeps its ends (so that each process holds
 * about MAXN descriptors, under this machine's limit of 20,000); this
 * process accepts them: the first is the "active" one, which the holder
 * has written one byte to and which is never read (always readable), the
 * others are idle. One more connection, both ends here, serves the round
 * trips. Every N is a prefix of the same idle descriptors, so the N can be
 * visited in any order without building anything: each round visits all N
 * in a fresh shuffled order, and per N and mode takes the median of
 * SAMPLES timed calls (after 3 untimed ones). Printed per N and mode: the
 * median over the rounds of those medians, and the cost per idle
 * descriptor, (t(N) - t(0)) / N, its median over the rounds (t(0): the
 * same call over the active descriptor alone, in the same round, so that a
 * round that ran on a slower machine cancels out).
 *
 * Modes:
 *   poll0   poll(N idle + active last, timeout 0): one scan of N+1
 *           descriptors (tcp_poll of each), nothing registered
 *   pollw   poll(the same, timeout -1): the active one is ready, so it
 *           returns at once, but the first pass registers a wait-queue entry
 *           on every idle socket before it reaches the active one and frees
 *           them all on return: what a poll server pays to go to sleep
 *   select  select over the same (only while every descriptor < FD_SETSIZE)
 *   epoll   epoll_wait on an instance holding the N idle + the active one
 *           (level-triggered): the O(1) reference
 *   rt      a request/response round trip (64 bytes each way, timed at the
 *           client from its send to the end of its recv) to a forked server
 *           that waits in a blocking poll over N idle + the round-trip
 *           socket, as net.request mech=poll; the client spends GAP_US
 *           (default 100) before each request spinning on sched_yield, as
 *           net.request's default gap_wait=spin. Each request carries the N
 *           the server polls over next. Run it pinned to one CPU (taskset),
 *           as net.request's default placement puts client and server.
 *
 * The script bench/bare-poll.sh builds and runs it; see docs/net.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXGRID 64
#define REQ 64
enum { M_POLL0, M_POLLW, M_SELECT, M_EPOLL, M_RT, NMODES };
static const char *const mode_names[NMODES] = {"poll0", "pollw", "select", "epoll", "rt"};

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_d);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t xrand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int grid[MAXGRID], ngrid;
static int *idle, active, rt_cli, rt_srv, maxn, samples = 31, gap_us = 100;
static struct pollfd *pfd;
static int epfd[MAXGRID];

/* pfd[0..n-1] = idle, pfd[n] = fd */
static void prefix(int n, int fd)
{
	for (int i = 0; i < n; i++)
		pfd[i] = (struct pollfd){.fd = idle[i], .events = POLLIN};
	pfd[n] = (struct pollfd){.fd = fd, .events = POLLIN};
}

/* One call of a scan mode over N idle + active; its duration in ns. */
static double scan_once(int mode, int gi, int n)
{
	uint64_t t0, t1;
	int r;
	if (mode == M_SELECT) {
		fd_set s;
		FD_ZERO(&s);
		int mx = active;
		for (int i = 0; i < n; i++) {
			FD_SET(idle[i], &s);
			if (idle[i] > mx)
				mx = idle[i];
		}
		FD_SET(active, &s);
		t0 = now();
		r = select(mx + 1, &s, NULL, NULL, NULL);
		t1 = now();
	} else if (mode == M_EPOLL) {
		struct epoll_event ev[4];
		t0 = now();
		r = epoll_wait(epfd[gi], ev, 4, -1);
		t1 = now();
	} else {
		for (int i = 0; i <= n; i++)
			pfd[i].revents = 0;
		t0 = now();
		r = poll(pfd, (nfds_t)n + 1, mode == M_POLL0 ? 0 : -1);
		t1 = now();
	}
	if (r != 1) {
		fprintf(stderr, "%s over %d: %d ready (want 1)\n", mode_names[mode], n, r);
		exit(1);
	}
	return (double)(t1 - t0);
}

static void full_read(int fd, char *b, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t k = recv(fd, b + got, len - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			die("recv");
		got += (size_t)k;
	}
}

/* The round-trip server: blocking poll over idle[0..n-1] + rt_srv. */
static void rt_server(void)
{
	char b[REQ];
	int n = 0;
	prefix(0, rt_srv);
	for (;;) {
		pfd[n].revents = 0;
		int r = poll(pfd, (nfds_t)n + 1, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != 1 || !(pfd[n].revents & POLLIN))
			_exit(3);
		ssize_t k = recv(rt_srv, b, REQ, MSG_WAITALL);
		if (k == 0)
			_exit(0);
		if (k != REQ)
			_exit(4);
		int next;
		memcpy(&next, b, sizeof next);
		if (next != n) {
			if (next < 0 || next > maxn)
				_exit(5);
			prefix(next, rt_srv);
			n = next;
		}
		if (send(rt_srv, b, REQ, MSG_NOSIGNAL) != REQ)
			_exit(6);
	}
}

static double rt_once(int n)
{
	char b[REQ];
	memset(b, 'r', sizeof b);
	memcpy(b, &n, sizeof n);
	uint64_t until = now() + (uint64_t)gap_us * 1000;
	while (now() < until)
		sched_yield();
	uint64_t t0 = now();
	if (send(rt_cli, b, REQ, MSG_NOSIGNAL) != REQ)
		die("send");
	full_read(rt_cli, b, REQ);
	return (double)(now() - t0);
}

/* median of SAMPLES calls (3 untimed first) */
static double point(int mode, int gi, int n)
{
	double v[1024];
	for (int k = 0; k < 3; k++)
		mode == M_RT ? rt_once(n) : scan_once(mode, gi, n);
	for (int k = 0; k < samples; k++)
		v[k] = mode == M_RT ? rt_once(n) : scan_once(mode, gi, n);
	return median(v, samples);
}

static int connect_to(const struct sockaddr_in *a)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (const struct sockaddr *)a, sizeof *a))
		die("connect");
	return fd;
}

int main(int argc, char **argv)
{
	int rounds = 11, opt;
	const char *nlist = "10,20,50,100,200,300,500,700,1000,1500,2000,3000,5000,7000,10000";
	maxn = 10000;
	while ((opt = getopt(argc, argv, "r:s:m:g:n:")) != -1) {
		switch (opt) {
		case 'r': rounds = atoi(optarg); break;
		case 's': samples = atoi(optarg); break;
		case 'm': maxn = atoi(optarg); break;
		case 'g': gap_us = atoi(optarg); break;
		case 'n': nlist = optarg; break;
		default:
			fprintf(stderr, "usage: bare-poll [-r ROUNDS] [-s SAMPLES] [-m MAXN] "
					"[-g GAP_US] [-n N,N,...]\n");
			return 2;
		}
	}
	if (rounds < 1 || samples < 1 || samples > 1024 || maxn < 1 || gap_us < 0) {
		fprintf(stderr, "bare-poll: bad -r, -s (1..1024), -m or -g\n");
		return 2;
	}
	/* the grid: N = 0 (the reference) and each listed N up to maxn */
	grid[ngrid++] = 0;
	for (const char *p = nlist; *p && ngrid < MAXGRID;) {
		int n = atoi(p);
		if (n > 0 && n <= maxn && n > grid[ngrid - 1])
			grid[ngrid++] = n;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur < (rlim_t)maxn + 64) {
		fprintf(stderr, "bare-poll: descriptor limit %llu is below -m %d + 64\n",
			(unsigned long long)rl.rlim_cur, maxn);
		return 2;
	}

	int ls = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 4096) ||
	    getsockname(ls, (struct sockaddr *)&a, &al))
		die("listen");
	int ready[2], quit[2];
	if (pipe(ready) || pipe(quit))
		die("pipe");
	pid_t holder = fork();
	if (holder < 0)
		die("fork");
	if (holder == 0) { /* holds the client ends until this process ends */
		close(ready[0]);
		close(quit[1]);
		for (int i = 0; i <= maxn; i++) {
			int fd = connect_to(&a);
			if (i == 0 && send(fd, "x", 1, 0) != 1)
				die("send");
		}
		if (write(ready[1], "k", 1) != 1)
			_exit(1);
		char c;
		while (read(quit[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	close(quit[0]);
	idle = calloc((size_t)maxn + 1, sizeof *idle);
	pfd = calloc((size_t)maxn + 2, sizeof *pfd);
	if (!idle || !pfd)
		die("calloc");
	/* accept in order: the first connection made is the active one (the
	 * backlog is FIFO); the byte it carries tells it apart anyway */
	active = -1;
	for (int i = 0, k = 0; i <= maxn; i++) {
		int fd = accept(ls, NULL, NULL);
		if (fd < 0)
			die("accept");
		struct pollfd q = {.fd = fd, .events = POLLIN};
		if (active < 0 && i == 0) {
			while (poll(&q, 1, 1000) == 0)
				; /* the byte may still be on its way */
		}
		if (i == 0)
			active = fd;
		else
			idle[k++] = fd;
	}
	char c;
	if (read(ready[0], &c, 1) != 1)
		die("holder");
	rt_cli = connect_to(&a);
	rt_srv = accept(ls, NULL, NULL);
	if (rt_srv < 0)
		die("accept");
	int one = 1;
	setsockopt(rt_cli, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(rt_srv, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	for (int g = 0; g < ngrid; g++) {
		epfd[g] = epoll_create1(0);
		if (epfd[g] < 0)
			die("epoll_create1");
		struct epoll_event ev = {.events = EPOLLIN};
		for (int i = 0; i <= grid[g]; i++) {
			int fd = i < grid[g] ? idle[i] : active;
			ev.data.fd = fd;
			if (epoll_ctl(epfd[g], EPOLL_CTL_ADD, fd, &ev))
				die("epoll_ctl");
		}
	}
	pid_t server = fork();
	if (server < 0)
		die("fork");
	if (server == 0) {
		close(rt_cli);
		rt_server();
	}
	close(rt_srv);

	/* select is usable while every descriptor it watches is < FD_SETSIZE */
	int sel_max = 0;
	for (int g = 0; g < ngrid; g++) {
		int ok = active < FD_SETSIZE;
		for (int i = 0; i < grid[g] && ok; i++)
			ok = idle[i] < FD_SETSIZE;
		if (ok)
			sel_max = g;
	}

	static double t[NMODES][MAXGRID][1024];
	int order[MAXGRID];
	for (int r = 0; r < rounds; r++) {
		for (int g = 0; g < ngrid; g++)
			order[g] = g;
		for (int g = ngrid - 1; g > 0; g--) {
			int j = (int)(xrand() % (uint64_t)(g + 1)), x = order[g];
			order[g] = order[j];
			order[j] = x;
		}
		for (int k = 0; k < ngrid; k++) {
			int g = order[k], n = grid[g];
			for (int m = 0; m < NMODES; m++) {
				if (m == M_SELECT && g > sel_max)
					continue;
				if (m != M_RT && m != M_EPOLL)
					prefix(n, active);
				t[m][g][r] = point(m, g, n);
			}
		}
	}

	printf("# bare-poll: %d rounds, %d samples per point, N in shuffled order per round, "
	       "rt gap %d us spin\n", rounds, samples, gap_us);
	printf("# per N and mode: median over rounds of the per-point median (ns), and in [] the "
	       "median over rounds of (t(N) - t(0)) / N, ns per idle descriptor\n");
	printf("%6s", "N");
	for (int m = 0; m < NMODES; m++)
		printf(" %22s", mode_names[m]);
	printf("\n");
	for (int g = 0; g < ngrid; g++) {
		printf("%6d", grid[g]);
		for (int m = 0; m < NMODES; m++) {
			if (m == M_SELECT && g > sel_max) {
				printf(" %22s", "-");
				continue;
			}
			double v[1024], per[1024];
			for (int r = 0; r < rounds; r++) {
				v[r] = t[m][g][r];
				per[r] = g ? (t[m][g][r] - t[m][0][r]) / grid[g] : 0;
			}
			double med = median(v, rounds);
			if (g)
				printf(" %12.0f [%7.1f]", med, median(per, rounds));
			else
				printf(" %12.0f %9s", med, "");
		}
		printf("\n");
	}
	/* marginal cost per descriptor between neighbouring N, median over rounds */
	printf("# marginal ns per idle descriptor between neighbouring N (median over rounds)\n");
	for (int g = 1; g < ngrid; g++) {
		printf("%6d..%-6d", grid[g - 1], grid[g]);
		for (int m = 0; m < NMODES; m++) {
			if (m == M_SELECT && g > sel_max) {
				printf(" %8s", "-");
				continue;
			}
			double d[1024];
			for (int r = 0; r < rounds; r++)
				d[r] = (t[m][g][r] - t[m][g - 1][r]) / (grid[g] - grid[g - 1]);
			printf(" %8.1f", median(d, rounds));
		}
		printf("\n");
	}
	close(rt_cli); /* the server sees EOF and exits */
	int st;
	waitpid(server, &st, 0);
	close(quit[1]); /* the holder sees EOF and exits */
	waitpid(holder, &st, 0);
	return 0;
}
