/* SPDX-License-Identifier: MIT */
/* Peers: other processes doing part of the operation (a server, helpers).
 * A window (a point's sampling, or its run()) is open between peers_open
 * and peers_close: a peer present at the start counts from then, one
 * added during it from its start, one removed during it up to its
 * removal (netsrv_stop and netload_free remove before they reap). The
 * sweep is single-threaded in its process, so one window at a time. */
#include <math.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/sweep_int.h"
#include "core/clock.h"
#include "core/usage.h"
#include "sys/sys.h"

static struct {
	const struct bench_env *env;
	int open;
	struct { const char *side; double cpu_s; } gone[BENCH_MAX_PEERS];
	int ngone;
} pw;

static double peer_cpu(pid_t pid)
{
	clockid_t cid;
	struct timespec ts;
	if (clock_getcpuclockid(pid, &cid) || clock_gettime(cid, &ts))
		return NAN; /* gone, or not readable here */
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void bench_peer_add(struct bench_env *env, const char *side, pid_t pid)
{
	if (!env || pid <= 0 || env->npeers >= BENCH_MAX_PEERS)
		return;
	struct bench_peer *p = &env->peers[env->npeers++];
	p->side = side;
	p->pid = pid;
	p->base_s = pw.open && pw.env == env ? peer_cpu(pid) : NAN;
	place_peer(env, side, (int)pid, 0);
}

void bench_peer_remove(struct bench_env *env, pid_t pid)
{
	for (int i = 0; env && i < env->npeers; i++) {
		if (env->peers[i].pid != pid)
			continue;
		/* its last read before it is reaped */
		place_peer(env, env->peers[i].side, (int)pid, 1);
		if (pw.open && pw.env == env && pw.ngone < BENCH_MAX_PEERS) {
			double c = peer_cpu(pid);
			if (!isnan(c) && !isnan(env->peers[i].base_s)) {
				pw.gone[pw.ngone].side = env->peers[i].side;
				pw.gone[pw.ngone].cpu_s = c - env->peers[i].base_s;
				pw.ngone++;
			}
		}
		env->peers[i--] = env->peers[--env->npeers];
	}
}

void peers_open(struct bench_env *env)
{
	pw.env = env;
	pw.open = 1;
	pw.ngone = 0;
	for (int i = 0; i < env->npeers; i++)
		env->peers[i].base_s = peer_cpu(env->peers[i].pid);
	place_open(env);
}

json_t *peers_close(struct bench_env *env, double ops)
{
	json_t *o = NULL;
	place_close(env);
	for (int i = 0; i < env->npeers; i++) {
		double c = peer_cpu(env->peers[i].pid);
		if (!isnan(c) && !isnan(env->peers[i].base_s))
			usage_side_add(&o, env->peers[i].side, c - env->peers[i].base_s, 1, ops);
	}
	for (int i = 0; i < pw.ngone; i++)
		usage_side_add(&o, pw.gone[i].side, pw.gone[i].cpu_s, 1, ops);
	pw.open = 0;
	pw.env = NULL;
	pw.ngone = 0;
	return o;
}

void peers_abandon(struct bench_env *env)
{
	if (pw.open)
		json_decref(peers_close(env, 0));
	json_decref(place_take());
}

void point_usage(struct point *p, const struct usage_acc *acc, double ops,
		 enum usage_counter c, enum usage_scope sc)
{
	struct usage_per_op u;
	usage_acc_per_op(acc, ops, &u);
	p->cpu_s = u.cpu_s;
	p->user_s = u.user_s;
	p->sys_s = u.sys_s;
	p->vcsw = u.vcsw;
	p->ivcsw = u.ivcsw;
	p->minflt = u.minflt;
	p->majflt = u.majflt;
	p->usage_counter = c;
	p->usage_scope = sc;
}

/* ---- the run-queue wait of a window (sweep_int.h) ---- */

static double tv_s(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

/* Every task of the harness and of env's peers, with its account now, and
 * the harness's own CPU and its reaped children's. */
static void wait_read(const struct bench_env *env, struct waitmark *m)
{
	struct timespec ts;
	struct rusage ru;
	m->n = 0;
	m->t_ns = clock_ns();
	m->proc_s = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) ? NAN
			: (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	m->kids_s = getrusage(RUSAGE_CHILDREN, &ru) ? NAN : tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
	for (int k = -1; k < env->npeers; k++) {
		int pid = k < 0 ? (int)getpid() : (int)env->peers[k].pid;
		int tids[WAIT_MAX_TASKS];
		int nt = sys_task_list(pid, tids, WAIT_MAX_TASKS - m->n);
		for (int i = 0; i < nt && m->n < WAIT_MAX_TASKS; i++) {
			double r, w;
			if (sys_task_sched(pid, tids[i], &r, &w))
				continue;
			m->t[m->n].pid = pid;
			m->t[m->n].tid = tids[i];
			m->t[m->n].run_s = r;
			m->t[m->n].wait_s = w;
			m->n++;
		}
	}
}

void wait_mark(const struct bench_env *env, struct waitmark *m) { wait_read(env, m); }

void wait_since(const struct bench_env *env, const struct waitmark *m0, double *run, double *wait,
		double *lost)
{
	struct waitmark m1;
	wait_read(env, &m1);
	*run = *wait = *lost = NAN;
	double wall = (double)(m1.t_ns - m0->t_ns) / 1e9;
	if (!m1.n || !(wall > 0))
		return;
	double r = 0, w = 0, harness = 0;
	for (int i = 0; i < m1.n; i++) {
		double r0 = 0, w0 = 0; /* a task that came in the window: from its start */
		for (int j = 0; j < m0->n; j++)
			if (m0->t[j].tid == m1.t[i].tid && m0->t[j].pid == m1.t[i].pid) {
				r0 = m0->t[j].run_s;
				w0 = m0->t[j].wait_s;
				break;
			}
		r += fmax(m1.t[i].run_s - r0, 0);
		w += fmax(m1.t[i].wait_s - w0, 0);
		if (m1.t[i].pid == (int)getpid())
			harness += fmax(m1.t[i].run_s - r0, 0);
	}
	*run = r / wall;
	*wait = w / wall;
	/* what ran in the window that the account did not see: threads gone,
	 * children reaped (a running task's count lags by up to a tick, hence
	 * the tolerance) */
	double unseen = (m1.proc_s - m0->proc_s) - harness + (m1.kids_s - m0->kids_s);
	if (!(unseen < WAIT_UNSEEN * wall + 0.008))
		return;
	unsigned char set[SYS_MAX_CPUS];
	int ncpu = env->place == BENCH_PLACE_SPREAD ? env->place_ncpu : sys_get_pinned(set, SYS_MAX_CPUS);
	if (ncpu > 0)
		*lost = fmax(fmin((double)ncpu, *run + *wait) - *run, 0);
}
