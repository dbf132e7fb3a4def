/* SPDX-License-Identifier: MIT */
/* Peers: other processes doing part of the operation (a server, helpers).
 * A window (a point's sampling, or its run()) is open between peers_open
 * and peers_close: a peer present at the start counts from then, one
 * added during it from its start, one removed during it up to its
 * removal (netsrv_stop and netload_free remove before they reap). The
 * sweep is single-threaded in its process, so one window at a time. */
#include <math.h>
#include <time.h>

#include "core/sweep_int.h"
#include "core/usage.h"

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
