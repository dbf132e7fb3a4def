/* SPDX-License-Identifier: MIT */
/* run --profile (profile.h): samples into functions, and the growth
 * attribution.
 *
 * A sample is a call chain, leaf first, kernel part then user part (the
 * kernel's markers say which). Each address becomes a function: kernel
 * ones by the kernel's symbol table (the greatest symbol at or below it),
 * user ones through the process's mappings to a file and an offset, then
 * the ELF symbol table (.symtab, else .dynsym) of that file; an address
 * none of them names is a function of its own, "[unknown kernel]" or
 * "[unknown FILE]", counted like any other, never dropped. Return
 * addresses (every entry but a chain's first) are looked up one byte
 * earlier, in the call instruction.
 *
 * Self: the samples whose leaf is the function; inclusive: those with the
 * function anywhere in the chain (once per sample). Cost per op: the
 * share of the point's samples times the profiled processes' CPU per op
 * (the events' running time over the point's operations).
 *
 * Growth attribution, from the small N to the large: the total growth is
 * the difference of the CPU per op; a function's is the difference of its
 * inclusive cost per op. The first function named is the most specific
 * one (fewest samples at the large N) whose growth is at least half of
 * what is left to explain; the samples holding it are then explained, and
 * the next is chosen from the rest, up to ATTR_MAX functions or until 90%
 * is explained. What they explain together is the growth of the samples
 * holding any of them; the rest is said as unexplained. */
#include "core/profile.h"
#include "core/profile_sym.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "sys/perf.h"

#define PROFILE_BUF_KIB 2048u   /* ring buffer per CPU of a side's first process */
#define PROFILE_BUF_SMALL_KIB 256u
#define MAX_SIDES 16
#define MAX_POINTS 8
#define TOP_FUNCTIONS 30
#define TOP_STACKS 400
#define SIDE_TOP 5
#define ATTR_MAX 3
#define GROWTH_TOP 25

/* A process's executable mappings. */
struct umap {
	uint64_t start, end, off;
	int obj;          /* index into the profile's objects, -1: none */
	const char *name; /* "[vdso]", the file's base name */
};

struct side {
	char name[24];
	pid_t pid[PROFILE_MAX_PROCS];
	int npid, skipped;  /* processes profiled, and those beyond the cap */
	struct sys_perf *ev[PROFILE_MAX_PROCS];
	uint64_t running_ns;
	uint64_t samples;          /* in the timed regions */
	uint64_t period_in, period_all; /* the samples' periods: in the timed regions, all */
	struct umap *maps[PROFILE_MAX_PROCS];
	int nmaps[PROFILE_MAX_PROCS];
};

/* A unique stack of one point: its side, its functions root first. */
struct stack {
	int side, nf;
	int *f;
	uint64_t count;
};

struct ppoint {
	uint64_t n;
	uint64_t samples, lost, unknown;
	double ops, cpu_per_op, wall_per_op, csw_per_op, slowdown, op_cpu_per_op;
	double p50, timed_p50, timed_wall;
	double prof_cpu_per_op;  /* the profiled processes' CPU per op in the profiled point */
	double w[MAX_SIDES];     /* ns per op one sample of side i stands for */
	struct side sides[MAX_SIDES];
	int nsides;
	struct stack *st;
	int nst, capst;
	int *stab; int stabcap; /* stack hash table: index + 1 */
	/* the raw samples until the point ends: [side, pidx, time, period, nr, ips...] */
	uint64_t *raw;
	size_t nraw, capraw;
	/* the timed regions: [start, end] pairs, in order; the events are on
	 * for the whole point, and a sample counts when it falls in one */
	uint64_t *iv;
	size_t niv, capiv;
	uint64_t t_on;
	int enabled, failed;
	int in_timed;     /* sampled in the timed point itself (a whole workload) */
	int open;         /* in a timed region now (profile_on, not yet off) */
	uint64_t outside; /* samples outside them (prep, undo, the harness) */
	uint64_t period_ns;      /* the events' period at this point */
	uint64_t live_in;        /* samples drained so far that fell in a region */
	uint64_t last_check;     /* profile_enough's last drain */
	atomic_int enough;       /* live_in reached PROFILE_TARGET_SAMPLES */
};

struct profile {
	const struct bench *b;
	char op_side[24];
	const char *event;
	char why[256];      /* unavailable: why */
	struct names nm;
	struct ksyms ks;
	int ks_tried;
	struct elfobj *objs;
	int nobj, capobj;
	struct ppoint pts[MAX_POINTS];
	int npts;
	struct ppoint *cur; /* between begin and end */
	int live;           /* events open */
	char notes[4][200];
	int nnotes;
	const char *external; /* SCALEBENCH_PROFILE_EXTERNAL: the regions' file, no events */
	const char *cache_dir; /* the run's scratch directory: the kernel's symbols, parsed */
	uint64_t target;       /* samples that end a point (SCALEBENCH_PROFILE_SAMPLES) */
	atomic_int busy;       /* profile_enough draining (a run() bench's threads call it) */
};

static void pf_note(struct profile *pf, const char *fmt, const char *a, const char *b2)
{
	if (pf->nnotes >= 4)
		return;
	for (int i = 0; i < pf->nnotes; i++) {
		char tmp[200];
		snprintf(tmp, sizeof(tmp), fmt, a, b2);
		if (!strcmp(tmp, pf->notes[i]))
			return;
	}
	snprintf(pf->notes[pf->nnotes++], sizeof(pf->notes[0]), fmt, a, b2);
}

void profile_note(struct profile *pf, const char *msg)
{
	if (pf)
		pf_note(pf, "%s%s", msg, "");
}

int profile_at_parse(const char *s, uint64_t *out, char *err, size_t errlen)
{
	int n = 0;
	if (!s || !*s)
		return 0;
	for (const char *p = s;;) {
		char *end = (char *)(uintptr_t)p;
		errno = 0;
		unsigned long long v = *p >= '0' && *p <= '9' ? strtoull(p, &end, 10) : 0;
		if (p == end || errno || !v || v > 1000000000ull || (*end && *end != ',')) {
			snprintf(err, errlen, "--profile-at %s: not a list of N from 1 to 1e9 (\"100,3000\")", s);
			return -1;
		}
		int at = 0;
		while (at < n && out[at] < v)
			at++;
		if (at == n || out[at] != v) {
			if (n == PROFILE_AT_MAX) {
				snprintf(err, errlen, "--profile-at %s: at most %d values", s, PROFILE_AT_MAX);
				return -1;
			}
			memmove(out + at + 1, out + at, (size_t)(n - at) * sizeof(*out));
			out[at] = v;
			n++;
		}
		if (!*end)
			break;
		p = end + 1;
	}
	return n;
}

struct profile *profile_new(const struct bench *b, const char *op_side, const char *cache_dir)
{
	struct profile *pf = calloc(1, sizeof(*pf));
	if (!pf)
		return NULL;
	pf->b = b;
	snprintf(pf->op_side, sizeof(pf->op_side), "%s", op_side ? op_side : "bench");
	const char *ext = getenv("SCALEBENCH_PROFILE_EXTERNAL");
	pf->external = ext && *ext ? ext : NULL;
	/* SCALEBENCH_PROFILE_SAMPLES=K: points end at K samples instead (a
	 * variable for cross-checks: bench/profile-crosscheck.sh samples the
	 * whole point, as long as perf's) */
	const char *tg = getenv("SCALEBENCH_PROFILE_SAMPLES");
	unsigned long long t = tg && *tg ? strtoull(tg, NULL, 10) : 0;
	pf->target = t ? t : PROFILE_TARGET_SAMPLES;
	pf->cache_dir = cache_dir;
	return pf;
}

static struct side *side_get(struct ppoint *p, const char *name)
{
	for (int i = 0; i < p->nsides; i++)
		if (!strcmp(p->sides[i].name, name))
			return &p->sides[i];
	if (p->nsides >= MAX_SIDES)
		return NULL;
	struct side *s = &p->sides[p->nsides++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

static void close_events(struct ppoint *p)
{
	for (int i = 0; i < p->nsides; i++)
		for (int k = 0; k < p->sides[i].npid; k++) {
			sys_perf_close(p->sides[i].ev[k]);
			p->sides[i].ev[k] = NULL;
		}
}

static int add_proc(struct profile *pf, struct ppoint *p, const char *side, pid_t pid, size_t kib)
{
	struct side *s = side_get(p, side);
	if (!s)
		return 0;
	for (int i = 0; i < s->npid; i++)
		if (s->pid[i] == pid)
			return 0;
	if (s->npid >= PROFILE_MAX_PROCS) {
		s->skipped++;
		return 0;
	}
	char why[200];
	struct sys_perf *ev;
	if (sys_perf_open(pid, p->period_ns, s->npid ? PROFILE_BUF_SMALL_KIB : kib, &ev, why,
			  sizeof(why))) {
		if (!strcmp(side, "bench")) {
			snprintf(pf->why, sizeof(pf->why), "%s", why);
			return -1;
		}
		pf_note(pf, "side %s (a process of it) not profiled: %s", side, why);
		return 0;
	}
	pf->event = sys_perf_event(ev);
	s->pid[s->npid] = pid;
	s->ev[s->npid++] = ev;
	return 0;
}

int profile_point_begin(struct profile *pf, const struct bench_env *env, uint64_t n,
			uint64_t period_ns)
{
	if (!pf || pf->why[0] || pf->npts >= MAX_POINTS)
		return -1;
	if (!pf->ks_tried) {
		pf->ks_tried = 1;
		if (ksyms_load(&pf->ks, pf->cache_dir))
			pf_note(pf, "kernel addresses not named: %s%s", pf->ks.why, "");
	}
	struct ppoint *p = &pf->pts[pf->npts];
	memset(p, 0, sizeof(*p));
	p->n = n;
	p->period_ns = period_ns > PROFILE_PERIOD_NS ? period_ns : PROFILE_PERIOD_NS;
	if (pf->external) { /* a profiler outside samples; only the regions are kept */
		pf->npts++;
		pf->cur = p;
		pf->live = 1;
		return 0;
	}
	if (add_proc(pf, p, "bench", getpid(), PROFILE_BUF_KIB)) {
		close_events(p);
		return -1;
	}
	for (int i = 0; i < env->npeers; i++)
		add_proc(pf, p, env->peers[i].side, env->peers[i].pid, PROFILE_BUF_KIB);
	pf->npts++;
	pf->cur = p;
	pf->live = 1;
	return 0;
}

static int in_region(const struct ppoint *p, uint64_t t);

static void store_sample(void *ctx, const struct sys_perf_sample *s)
{
	uint64_t *hdr = ctx; /* [0]: the point, [1]: side, [2]: process index */
	struct ppoint *p = (struct ppoint *)(uintptr_t)hdr[0];
	size_t need = 5 + (size_t)s->nr;
	if (p->nraw + need > p->capraw) {
		size_t nc = p->capraw ? p->capraw * 2 : 1 << 16;
		while (nc < p->nraw + need)
			nc *= 2;
		uint64_t *r = realloc(p->raw, nc * sizeof(uint64_t));
		if (!r) {
			p->lost++;
			return;
		}
		p->raw = r;
		p->capraw = nc;
	}
	p->raw[p->nraw++] = hdr[1];
	p->raw[p->nraw++] = hdr[2];
	p->raw[p->nraw++] = s->time;
	p->raw[p->nraw++] = s->period;
	p->raw[p->nraw++] = s->nr;
	memcpy(p->raw + p->nraw, s->ips, (size_t)s->nr * sizeof(uint64_t));
	p->nraw += (size_t)s->nr;
	if ((p->open && s->time >= p->t_on) || in_region(p, s->time))
		p->live_in++;
}

static void drain(struct ppoint *p, int all)
{
	for (int i = 0; i < p->nsides; i++)
		for (int k = 0; k < p->sides[i].npid; k++) {
			if (!all && sys_perf_pending(p->sides[i].ev[k]) < PROFILE_BUF_SMALL_KIB * 512u)
				continue;
			uint64_t hdr[3] = {(uint64_t)(uintptr_t)p, (uint64_t)i, (uint64_t)k};
			sys_perf_drain(p->sides[i].ev[k], store_sample, hdr, &p->lost);
		}
}

/* The events go on at the first timed region (after the warm-up) and
 * stay on to the point's end: enabling them around each region would put
 * the enabling itself (a call to every CPU) into the samples and the
 * op's time. The regions' edges are read instead, and samples outside
 * them are left out. */
void profile_on(struct profile *pf)
{
	if (!pf || !pf->live)
		return;
	struct ppoint *p = pf->cur;
	if (!p->enabled) {
		if (!pf->external)
			sys_perf_all(1);
		p->enabled = 1;
	}
	p->t_on = clock_ns();
	p->open = 1;
}

void profile_off(struct profile *pf)
{
	if (!pf || !pf->live)
		return;
	uint64_t t = clock_ns();
	struct ppoint *p = pf->cur;
	p->open = 0;
	if (p->niv + 2 > p->capiv) {
		size_t nc = p->capiv ? p->capiv * 2 : 4096;
		uint64_t *n = realloc(p->iv, nc * sizeof(uint64_t));
		if (!n) {
			profile_point_fail(pf, "out of memory");
			return;
		}
		p->iv = n;
		p->capiv = nc;
	}
	if (p->niv && p->iv[p->niv - 1] >= p->t_on)
		p->iv[p->niv - 1] = t; /* back to back: one region */
	else {
		p->iv[p->niv++] = p->t_on;
		p->iv[p->niv++] = t;
	}
	drain(p, 0);
}

int profile_enough(struct profile *pf)
{
	if (!pf || !pf->live || pf->external || !pf->cur)
		return 0;
	struct ppoint *p = pf->cur;
	if (atomic_load(&p->enough))
		return 1;
	if (atomic_exchange(&pf->busy, 1))
		return 0; /* another thread is looking */
	uint64_t now = clock_ns();
	if (now - p->last_check >= PROFILE_CHECK_NS) {
		p->last_check = now;
		drain(p, 1);
		if (p->live_in >= pf->target)
			atomic_store(&p->enough, 1);
	}
	atomic_store(&pf->busy, 0);
	return atomic_load(&p->enough);
}

/* 1 when time t is in one of p's timed regions. */
static int in_region(const struct ppoint *p, uint64_t t)
{
	size_t lo = 0, hi = p->niv / 2;
	while (lo < hi) { /* the first region ending at or after t */
		size_t mid = lo + (hi - lo) / 2;
		if (p->iv[2 * mid + 1] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->niv / 2 && p->iv[2 * lo] <= t;
}

/* ---- symbols of a point ---- */

static int obj_get(struct profile *pf, const char *path)
{
	for (int i = 0; i < pf->nobj; i++)
		if (!strcmp(pf->objs[i].path, path))
			return i;
	if (pf->nobj == pf->capobj) {
		int nc = pf->capobj ? pf->capobj * 2 : 16;
		struct elfobj *n = realloc(pf->objs, (size_t)nc * sizeof(*n));
		if (!n)
			return -1;
		pf->objs = n;
		pf->capobj = nc;
	}
	struct elfobj *o = &pf->objs[pf->nobj];
	memset(o, 0, sizeof(*o));
	if (!(o->path = strdup(path)))
		return -1;
	sym_elf_load(o);
	return pf->nobj++;
}

/* The executable mappings of one process from its maps text. */
static void read_maps(struct profile *pf, struct side *s, int k)
{
	char *text = sys_maps(s->pid[k]);
	if (!text)
		return;
	int cap = 0;
	for (char *l = text; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		unsigned long long a, e, off;
		char perms[8];
		int pos = 0;
		if (sscanf(l, "%llx-%llx %7s %llx %*s %*s%n", &a, &e, perms, &off, &pos) == 4 &&
		    perms[2] == 'x') {
			const char *path = l + pos;
			while (*path == ' ')
				path++;
			if (s->nmaps[k] == cap) {
				cap = cap ? cap * 2 : 64;
				struct umap *m = realloc(s->maps[k], (size_t)cap * sizeof(*m));
				if (!m)
					break;
				s->maps[k] = m;
			}
			struct umap *m = &s->maps[k][s->nmaps[k]++];
			*m = (struct umap){.start = a, .end = e, .off = off, .obj = -1, .name = NULL};
			if (path[0] == '/') {
				m->obj = obj_get(pf, path);
				if (m->obj >= 0) {
					const char *bn = strrchr(pf->objs[m->obj].path, '/');
					m->name = bn + 1;
				}
			} else if (!strcmp(path, "[vdso]")) {
				m->name = "[vdso]";
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	free(text);
}

static int sym_user(struct profile *pf, const struct side *s, int k, uint64_t ip, int *unknown)
{
	char buf[300];
	for (int i = 0; i < s->nmaps[k]; i++) {
		const struct umap *m = &s->maps[k][i];
		if (ip < m->start || ip >= m->end)
			continue;
		if (m->obj >= 0) {
			const struct elfobj *o = &pf->objs[m->obj];
			uint64_t off = ip - m->start + m->off;
			for (int g = 0; g < o->nseg; g++)
				if (off >= o->seg[g].off && off < o->seg[g].off + o->seg[g].filesz) {
					const struct sym *y = sym_find(o->s, o->n,
									off - o->seg[g].off + o->seg[g].vaddr);
					if (y)
						return sym_name_id(&pf->nm, y->name);
				}
		}
		if (m->name && !strcmp(m->name, "[vdso]"))
			return sym_name_id(&pf->nm, "[vdso]");
		(*unknown)++;
		snprintf(buf, sizeof(buf), "[unknown %s]", m->name ? m->name : "anonymous");
		return sym_name_id(&pf->nm, buf);
	}
	(*unknown)++;
	return sym_name_id(&pf->nm, "[unknown user]");
}

static int sym_kernel(struct profile *pf, uint64_t ip, int *unknown)
{
	const char *y = ksym_name(&pf->ks, ip);
	/* past the end of a section (_etext, _einittext, __end_...): code the
	 * table does not name, such as a JIT-compiled BPF program */
	if (y && strncmp(y, "_e", 2) && strncmp(y, "__end", 5))
		return sym_name_id(&pf->nm, y);
	(*unknown)++;
	return sym_name_id(&pf->nm, "[unknown kernel]");
}

static uint64_t hash_ints(int side, const int *f, int n)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)side;
	for (int i = 0; i < n; i++)
		h = (h ^ (uint64_t)(unsigned)f[i]) * 1099511628211ull;
	return h;
}

static int stack_add(struct ppoint *p, int side, const int *f, int nf)
{
	if ((p->nst + 1) * 2 > p->stabcap) {
		int nc = p->stabcap ? p->stabcap * 2 : 1024;
		int *t = calloc((size_t)nc, sizeof(int));
		if (!t)
			return -1;
		for (int i = 0; i < p->nst; i++) {
			uint64_t h = hash_ints(p->st[i].side, p->st[i].f, p->st[i].nf) & (uint64_t)(nc - 1);
			while (t[h])
				h = (h + 1) & (uint64_t)(nc - 1);
			t[h] = i + 1;
		}
		free(p->stab);
		p->stab = t;
		p->stabcap = nc;
	}
	uint64_t h = hash_ints(side, f, nf) & (uint64_t)(p->stabcap - 1);
	while (p->stab[h]) {
		struct stack *s = &p->st[p->stab[h] - 1];
		if (s->side == side && s->nf == nf && !memcmp(s->f, f, (size_t)nf * sizeof(int))) {
			s->count++;
			return 0;
		}
		h = (h + 1) & (uint64_t)(p->stabcap - 1);
	}
	if (p->nst == p->capst) {
		int nc = p->capst ? p->capst * 2 : 256;
		struct stack *ns = realloc(p->st, (size_t)nc * sizeof(*ns));
		if (!ns)
			return -1;
		p->st = ns;
		p->capst = nc;
	}
	int *cp = malloc((size_t)(nf ? nf : 1) * sizeof(int));
	if (!cp)
		return -1;
	memcpy(cp, f, (size_t)nf * sizeof(int));
	p->st[p->nst] = (struct stack){.side = side, .nf = nf, .f = cp, .count = 1};
	p->stab[h] = ++p->nst;
	return 0;
}

/* The raw samples of p into unique stacks of functions. */
static void symbolize(struct profile *pf, struct ppoint *p)
{
	int fr[1024];
	for (size_t at = 0; at + 5 <= p->nraw;) {
		int side = (int)p->raw[at], k = (int)p->raw[at + 1];
		uint64_t t = p->raw[at + 2], period = p->raw[at + 3], nr = p->raw[at + 4];
		const uint64_t *ips = p->raw + at + 5;
		at += 5 + (size_t)nr;
		p->sides[side].period_all += period;
		if (!in_region(p, t)) {
			p->outside++;
			continue;
		}
		p->sides[side].period_in += period;
		p->sides[side].samples++;
		p->samples++;
		int nf = 0, kernel = 1, first = 1, unknown = 0;
		for (uint64_t i = 0; i < nr && nf < 1024; i++) {
			uint64_t ip = ips[i];
			if (ip >= SYS_PERF_CTX_MAX) {
				if (ip == SYS_PERF_CTX_KERNEL)
					kernel = 1;
				else if (ip == SYS_PERF_CTX_USER)
					kernel = 0;
				continue;
			}
			uint64_t look = first ? ip : ip - 1;
			first = 0;
			int id = kernel ? sym_kernel(pf, look, &unknown)
					: sym_user(pf, &p->sides[side], k, look, &unknown);
			if (id < 0)
				continue;
			if (nf && fr[nf - 1] == id)
				continue; /* the same function again (recursion, or two of its addresses) */
			fr[nf++] = id;
		}
		if (!nf) {
			fr[nf++] = sym_name_id(&pf->nm, "[no call chain]");
			unknown++;
		}
		p->unknown += unknown ? 1 : 0;
		for (int i = 0; i < nf / 2; i++) { /* root first */
			int sw = fr[i];
			fr[i] = fr[nf - 1 - i];
			fr[nf - 1 - i] = sw;
		}
		if (stack_add(p, side, fr, nf))
			p->lost++;
	}
	free(p->raw);
	p->raw = NULL;
	p->nraw = p->capraw = 0;
}

/* SCALEBENCH_PROFILE_EXTERNAL=FILE: a profiler outside this process (perf
 * record -k mono: bench/profile-crosscheck.sh) samples it, and the timed
 * regions of each profiled point are appended to FILE, one "N START END"
 * line a region (CLOCK_MONOTONIC ns, the clock of the samples' times), so
 * that it can count the samples this profile would count. */
static void write_regions(struct profile *pf, const struct ppoint *p)
{
	FILE *f = fopen(pf->external, "ae");
	if (!f) {
		pf_note(pf, "SCALEBENCH_PROFILE_EXTERNAL: %s: %s", pf->external, strerror(errno));
		return;
	}
	for (size_t i = 0; i + 1 < p->niv; i += 2)
		fprintf(f, "%llu %llu %llu\n", (unsigned long long)p->n, (unsigned long long)p->iv[i],
			(unsigned long long)p->iv[i + 1]);
	if (fclose(f))
		pf_note(pf, "SCALEBENCH_PROFILE_EXTERNAL: %s: %s", pf->external, strerror(errno));
}

void profile_point_end(struct profile *pf, const struct point *pt, const struct point *timed)
{
	if (!pf || !pf->live)
		return;
	struct ppoint *p = pf->cur;
	if (pf->external) {
		write_regions(pf, p);
		pf->live = 0;
		pf->cur = NULL;
		free(p->iv);
		p->iv = NULL;
		p->niv = p->capiv = 0;
		p->failed = 1; /* no samples of its own */
		return;
	}
	sys_perf_all(0);
	drain(p, 1);
	double ops = pt ? (double)pt->ops : 0;
	for (int i = 0; i < p->nsides; i++) {
		struct side *s = &p->sides[i];
		for (int k = 0; k < s->npid; k++) {
			s->running_ns += sys_perf_running_ns(s->ev[k]);
			read_maps(pf, s, k);
		}
	}
	close_events(p);
	pf->live = 0;
	pf->cur = NULL;
	symbolize(pf, p);
	free(p->iv);
	p->iv = NULL;
	p->niv = p->capiv = 0;
	p->ops = ops;
	double cpu = 0, prof = 0;
	for (int i = 0; i < p->nsides; i++) {
		struct side *s = &p->sides[i];
		/* the CPU in the timed regions: the events' running time, by the
		 * share of the samples' periods that fell in them */
		s->running_ns = s->period_all
					? (uint64_t)((double)s->running_ns * (double)s->period_in /
						     (double)s->period_all)
					: 0;
		/* the cost per op is the timed point's CPU per op (sampling's own
		 * cost is not in it), the side's from its counters; the profiled
		 * point's own, by the events, when the timed point has none */
		double own = ops > 0 ? (double)s->running_ns / ops : NAN, side_cpu = NAN;
		/* the point's own CPU is the op's process's (the caller's for an
		 * op_far bench, whose harness is then the side "harness") */
		const char *peer = !strcmp(s->name, "bench") ? "harness" : s->name;
		if (timed && !strcmp(s->name, pf->op_side))
			side_cpu = timed->cpu_s * 1e9;
		else if (timed)
			side_cpu = json_number_value(json_object_get(json_object_get(timed->peers, peer),
								     "cpu_s")) * 1e9;
		if (!(side_cpu > 0))
			side_cpu = s->samples ? own : 0;
		if (!isfinite(side_cpu))
			side_cpu = 0;
		p->w[i] = s->samples ? side_cpu / (double)s->samples : 0;
		cpu += side_cpu;
		prof += isfinite(own) ? own : 0;
		if (!strcmp(s->name, pf->op_side))
			p->op_cpu_per_op = side_cpu;
	}
	p->cpu_per_op = cpu;
	p->prof_cpu_per_op = prof;
	p->wall_per_op = pt ? pt->st.mean : NAN;
	p->csw_per_op = timed ? timed->vcsw + timed->ivcsw : NAN;
	p->in_timed = pt && pt == timed;
	p->slowdown = pt && timed && !p->in_timed && timed->st.p50 > 0 ? pt->st.p50 / timed->st.p50
									 : NAN;
	p->p50 = pt ? pt->st.p50 : NAN;
	p->timed_p50 = timed ? timed->st.p50 : NAN;
	p->timed_wall = timed ? timed->st.mean : p->wall_per_op;
	if (!(ops > 0))
		p->failed = 1;
}

static void ppoint_free(struct ppoint *p)
{
	close_events(p);
	for (int k = 0; k < p->nst; k++)
		free(p->st[k].f);
	free(p->st);
	free(p->stab);
	free(p->raw);
	free(p->iv);
	for (int s = 0; s < p->nsides; s++)
		for (int k = 0; k < p->sides[s].npid; k++)
			free(p->sides[s].maps[k]);
	memset(p, 0, sizeof(*p));
}

void profile_point_drop(struct profile *pf)
{
	if (!pf || pf->cur || !pf->npts)
		return;
	ppoint_free(&pf->pts[--pf->npts]);
}

void profile_point_fail(struct profile *pf, const char *why)
{
	if (!pf || !pf->cur)
		return;
	sys_perf_all(0);
	close_events(pf->cur);
	pf->cur->failed = 1;
	free(pf->cur->raw);
	pf->cur->raw = NULL;
	free(pf->cur->iv);
	pf->cur->iv = NULL;
	pf->live = 0;
	pf->cur = NULL;
	pf_note(pf, "a profiled point failed: %s%s", why, "");
}

/* ---- results ---- */

static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* Self and inclusive cost per op (ns) of every function of p (arrays of
 * nm.n), over the stacks not marked in skip (may be NULL): each sample
 * weighs its side's CPU per op over the side's samples. */
static void count_functions(const struct profile *pf, const struct ppoint *p, const char *skip,
			    double *self, double *incl, int *mark)
{
	int nn = pf->nm.n;
	memset(self, 0, (size_t)nn * sizeof(double));
	memset(incl, 0, (size_t)nn * sizeof(double));
	for (int i = 0; i < p->nst; i++) {
		if (skip && skip[i])
			continue;
		const struct stack *s = &p->st[i];
		double c = (double)s->count * p->w[s->side];
		self[s->f[s->nf - 1]] += c;
		for (int j = 0; j < s->nf; j++) {
			if (mark[s->f[j]] == i + 1)
				continue; /* once per stack */
			mark[s->f[j]] = i + 1;
			incl[s->f[j]] += c;
		}
	}
	for (int i = 0; i < nn; i++)
		mark[i] = 0;
}

struct rank { int id; double key; };

static int cmp_rank(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;
	return (x->key < y->key) - (x->key > y->key);
}

static void fold(const struct profile *pf, const struct ppoint *p, const struct stack *s, char *buf,
		 size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "[%s]", p->sides[s->side].name);
	for (int j = 0; j < s->nf && o < len; j++)
		o += (size_t)snprintf(buf + o, len - o, ";%s", pf->nm.s[s->f[j]]);
}

static json_t *point_json(const struct profile *pf, const struct ppoint *p)
{
	int nn = pf->nm.n;
	double *self = calloc((size_t)nn + 1, sizeof(double));
	double *incl = calloc((size_t)nn + 1, sizeof(double));
	uint64_t *cnt_s = calloc((size_t)nn + 1, sizeof(uint64_t));
	uint64_t *cnt_i = calloc((size_t)nn + 1, sizeof(uint64_t));
	int *mark = calloc((size_t)nn + 1, sizeof(int));
	struct rank *r = calloc((size_t)nn + 1, sizeof(*r));
	char *in = calloc((size_t)nn + 1, 1);
	json_t *o = json_object();
	if (!self || !incl || !cnt_s || !cnt_i || !mark || !r || !in || !o)
		goto out;
	json_object_set_new(o, "n", json_integer((json_int_t)p->n));
	json_object_set_new(o, "ops", json_real(p->ops));
	json_object_set_new(o, "samples", json_integer((json_int_t)p->samples));
	json_object_set_new(o, "period_ns", json_integer((json_int_t)p->period_ns));
	/* the widest 95% interval of a share from this many samples (a share
	 * of one half; a smaller or larger share is known closer) */
	json_object_set_new(o, "share_ci95",
			    jnum(p->samples ? 1.96 * sqrt(0.25 / (double)p->samples) : NAN));
	json_object_set_new(o, "outside", json_integer((json_int_t)p->outside));
	json_object_set_new(o, "lost", json_integer((json_int_t)p->lost));
	json_object_set_new(o, "unknown", json_integer((json_int_t)p->unknown));
	json_object_set_new(o, "cpu_per_op_ns", jnum(p->cpu_per_op));
	json_object_set_new(o, "profiled_cpu_per_op_ns", jnum(p->prof_cpu_per_op));
	json_object_set_new(o, "op_side", json_string(pf->op_side));
	json_object_set_new(o, "op_cpu_per_op_ns", jnum(p->op_cpu_per_op));
	json_object_set_new(o, "wall_per_op_ns", jnum(p->timed_wall));
	double off = p->timed_wall - p->op_cpu_per_op;
	json_object_set_new(o, "off_cpu_per_op_ns", jnum(off > 0 ? off : isfinite(off) ? 0 : NAN));
	json_object_set_new(o, "csw_per_op", jnum(p->csw_per_op));
	json_object_set_new(o, "p50_ns", jnum(p->p50));
	json_object_set_new(o, "timed_p50_ns", jnum(p->timed_p50));
	json_object_set_new(o, "slowdown", jnum(p->slowdown));
	if (p->in_timed)
		json_object_set_new(o, "in_timed_point", json_true());
	/* sample counts per function (all sides) */
	for (int k = 0; k < p->nst; k++) {
		const struct stack *st = &p->st[k];
		cnt_s[st->f[st->nf - 1]] += st->count;
		for (int j = 0; j < st->nf; j++) {
			if (mark[st->f[j]] == k + 1)
				continue;
			mark[st->f[j]] = k + 1;
			cnt_i[st->f[j]] += st->count;
		}
	}
	memset(mark, 0, (size_t)nn * sizeof(int));
	json_t *sides = json_array();
	for (int i = 0; i < p->nsides; i++) {
		const struct side *sd = &p->sides[i];
		memset(self, 0, (size_t)nn * sizeof(double)); /* its own leaves */
		for (int k = 0; k < p->nst; k++)
			if (p->st[k].side == i)
				self[p->st[k].f[p->st[k].nf - 1]] += (double)p->st[k].count;
		for (int k = 0; k < nn; k++)
			r[k] = (struct rank){k, self[k]};
		qsort(r, (size_t)nn, sizeof(*r), cmp_rank);
		json_t *top = json_array();
		for (int k = 0; k < nn && k < SIDE_TOP && r[k].key > 0; k++)
			json_array_append_new(top, json_pack("{s:s,s:f}", "name", pf->nm.s[r[k].id], "self_share",
							     r[k].key / (double)(sd->samples ? sd->samples : 1)));
		json_t *so = json_pack("{s:s,s:i,s:I,s:o,s:o,s:o}", "side", sd->name, "processes", sd->npid,
				       "samples", (json_int_t)sd->samples, "cpu_per_op_ns",
				       jnum(p->w[i] * (double)sd->samples), "profiled_cpu_per_op_ns",
				       jnum(p->ops > 0 ? (double)sd->running_ns / p->ops : NAN), "top", top);
		if (sd->skipped)
			json_object_set_new(so, "not_profiled", json_integer(sd->skipped));
		json_array_append_new(sides, so);
	}
	json_object_set_new(o, "sides", sides);
	count_functions(pf, p, NULL, self, incl, mark);
	double tot = p->cpu_per_op > 0 ? p->cpu_per_op : 1;
	/* the top functions: by inclusive and by self cost */
	json_t *fn = json_array();
	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < nn; k++)
			r[k] = (struct rank){k, pass ? self[k] : incl[k]};
		qsort(r, (size_t)nn, sizeof(*r), cmp_rank);
		for (int k = 0; k < nn && k < TOP_FUNCTIONS && r[k].key > 0; k++) {
			int id = r[k].id;
			if (in[id])
				continue;
			in[id] = 1;
			json_array_append_new(fn, json_pack("{s:s,s:I,s:I,s:f,s:f,s:f,s:f}", "name",
							    pf->nm.s[id], "self", (json_int_t)cnt_s[id],
							    "inclusive", (json_int_t)cnt_i[id], "self_share",
							    self[id] / tot, "share", incl[id] / tot,
							    "self_ns_per_op", self[id], "ns_per_op", incl[id]));
		}
	}
	json_object_set_new(o, "functions", fn);
	/* folded stacks for the flame graph, the most frequent first */
	struct rank *sr = calloc((size_t)p->nst + 1, sizeof(*sr));
	json_t *stacks = json_array();
	if (sr) {
		for (int k = 0; k < p->nst; k++)
			sr[k] = (struct rank){k, (double)p->st[k].count * p->w[p->st[k].side]};
		qsort(sr, (size_t)p->nst, sizeof(*sr), cmp_rank);
		double rest = 0;
		char buf[8192];
		for (int k = 0; k < p->nst; k++) {
			if (k >= TOP_STACKS) {
				rest += sr[k].key;
				continue;
			}
			fold(pf, p, &p->st[sr[k].id], buf, sizeof(buf));
			json_array_append_new(stacks, json_pack("{s:s,s:I,s:f}", "s", buf, "n",
								(json_int_t)p->st[sr[k].id].count, "ns", sr[k].key));
		}
		if (rest > 0)
			json_array_append_new(stacks, json_pack("{s:s,s:I,s:f}", "s", "[other stacks]", "n",
								(json_int_t)0, "ns", rest));
		free(sr);
	}
	json_object_set_new(o, "stacks", stacks);
out:
	free(self);
	free(incl);
	free(cnt_s);
	free(cnt_i);
	free(mark);
	free(r);
	free(in);
	return o;
}

/* Growth from point a (small N) to point b (large N). */
static json_t *growth_json(const struct profile *pf, const struct ppoint *a, const struct ppoint *b)
{
	int nn = pf->nm.n;
	double total = b->cpu_per_op - a->cpu_per_op;
	if (!isfinite(total) || !a->samples || !b->samples || !(a->cpu_per_op > 0) ||
	    !(b->cpu_per_op > 0))
		return NULL;
	size_t sz = ((size_t)nn + 1) * sizeof(double);
	double *sa = malloc(sz), *ia = malloc(sz), *sb = malloc(sz), *ib = malloc(sz);
	double *ra = malloc(sz), *rb = malloc(sz), *scratch = malloc(sz);
	int *mark = calloc((size_t)nn + 1, sizeof(int));
	char *ska = calloc((size_t)a->nst + 1, 1), *skb = calloc((size_t)b->nst + 1, 1);
	struct rank *r = calloc((size_t)nn + 1, sizeof(*r));
	json_t *g = NULL;
	if (!sa || !ia || !sb || !ib || !ra || !rb || !scratch || !mark || !ska || !skb || !r)
		goto out;
	g = json_pack("{s:I,s:I,s:f,s:f,s:f}", "from_n", (json_int_t)a->n, "to_n", (json_int_t)b->n,
		      "from_cpu_per_op_ns", a->cpu_per_op, "to_cpu_per_op_ns", b->cpu_per_op, "delta_ns",
		      total);
	count_functions(pf, a, NULL, sa, ia, mark);
	count_functions(pf, b, NULL, sb, ib, mark);
	/* every function's own growth (inclusive and self), the largest first */
	for (int k = 0; k < nn; k++)
		r[k] = (struct rank){k, ib[k] - ia[k]};
	qsort(r, (size_t)nn, sizeof(*r), cmp_rank);
	json_t *fns = json_array();
	for (int k = 0; k < nn && k < GROWTH_TOP; k++) {
		int id = r[k].id;
		json_array_append_new(fns, json_pack("{s:s,s:f,s:f,s:f,s:f}", "name", pf->nm.s[id],
						     "delta_ns", r[k].key, "self_delta_ns", sb[id] - sa[id],
						     "share_from", ia[id] / a->cpu_per_op, "share_to",
						     ib[id] / b->cpu_per_op));
	}
	json_object_set_new(g, "functions", fns);
	/* the attribution: most specific functions explaining what is left */
	json_t *attr = json_array();
	double explained = 0;
	for (int round = 0; round < ATTR_MAX && total > 0; round++) {
		double rem = total - explained;
		if (rem <= 0.1 * total)
			break;
		/* inclusive costs over the stacks not explained yet */
		count_functions(pf, a, ska, scratch, ra, mark);
		count_functions(pf, b, skb, scratch, rb, mark);
		int best = -1;
		for (int pass = 0; pass < 2 && best < 0; pass++) {
			double th = pass ? 0.25 : 0.5;
			for (int k = 0; k < nn; k++) {
				double d = rb[k] - ra[k];
				if (d < th * rem || d < 0.05 * total || pf->nm.s[k][0] == '[')
					continue; /* "[unknown ...]" names no function */
				if (best < 0 || rb[k] < rb[best] ||
				    (rb[k] == rb[best] && d > rb[best] - ra[best]))
					best = k;
			}
		}
		if (best < 0)
			break;
		double d = rb[best] - ra[best];
		explained += d;
		json_array_append_new(attr, json_pack("{s:s,s:f,s:f,s:f}", "name", pf->nm.s[best],
						      "delta_ns", d, "share_from", ia[best] / a->cpu_per_op,
						      "share_to", ib[best] / b->cpu_per_op));
		for (int k = 0; k < a->nst; k++)
			for (int j = 0; j < a->st[k].nf && !ska[k]; j++)
				ska[k] = a->st[k].f[j] == best;
		for (int k = 0; k < b->nst; k++)
			for (int j = 0; j < b->st[k].nf && !skb[k]; j++)
				skb[k] = b->st[k].f[j] == best;
	}
	json_object_set_new(g, "attribution", attr);
	json_object_set_new(g, "explained", jnum(total > 0 ? explained / total : NAN));
	json_object_set_new(g, "unexplained_ns", jnum(total > 0 ? total - explained : NAN));
out:
	free(sa);
	free(ia);
	free(sb);
	free(ib);
	free(ra);
	free(rb);
	free(scratch);
	free(mark);
	free(ska);
	free(skb);
	free(r);
	return g;
}

/* The median of v[0..n) (sorted in place); NAN when n is 0. */
static double median(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n ? n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2 : NAN;
}

const json_t *profile_growth(const json_t *profile)
{
	const json_t *g = json_object_get(profile, "growth");
	return json_is_object(g) ? g : NULL;
}

json_t *profile_finish(struct profile *pf, double wall_s)
{
	if (!pf)
		return NULL;
	json_t *o;
	struct ppoint *ok[MAX_POINTS];
	int nok = 0;
	for (int i = 0; i < pf->npts; i++)
		if (!pf->pts[i].failed && pf->pts[i].samples)
			ok[nok++] = &pf->pts[i];
	if (pf->why[0]) {
		o = json_pack("{s:s}", "unavailable", pf->why);
	} else if (!nok) {
		o = json_pack("{s:s}", "unavailable",
			      pf->external ? "sampled from outside (SCALEBENCH_PROFILE_EXTERNAL)"
			      : pf->nnotes ? pf->notes[0] : "no profiled point took a sample");
	} else {
		o = json_object();
		json_object_set_new(o, "event", json_string(pf->event ? pf->event : "cpu-clock"));
		json_object_set_new(o, "period_ns", json_integer(PROFILE_PERIOD_NS));
		json_t *pts = json_array();
		double slow[MAX_POINTS], cpu[MAX_POINTS];
		int ns = 0, nc = 0;
		for (int i = 0; i < nok; i++) {
			json_array_append_new(pts, point_json(pf, ok[i]));
			if (isfinite(ok[i]->slowdown))
				slow[ns++] = ok[i]->slowdown;
			/* sampling's cost: the profiled processes' CPU per op under
			 * the events against the timed point's (a point profiled
			 * alone has no timed point to compare with) */
			if (isfinite(ok[i]->slowdown) && ok[i]->cpu_per_op > 0 &&
			    ok[i]->prof_cpu_per_op > 0)
				cpu[nc++] = ok[i]->prof_cpu_per_op / ok[i]->cpu_per_op;
		}
		json_object_set_new(o, "points", pts);
		/* small N against the large one: the first and the last profiled */
		json_t *g = nok >= 2 ? growth_json(pf, ok[0], ok[nok - 1]) : NULL;
		json_object_set_new(o, "growth", g ? g : json_null());
		double sl = NAN;
		if (ns) {
			for (int i = 1; i < ns; i++) /* the median of a few */
				for (int j = i; j > 0 && slow[j - 1] > slow[j]; j--) {
					double t = slow[j];
					slow[j] = slow[j - 1];
					slow[j - 1] = t;
				}
			sl = ns % 2 ? slow[ns / 2] : (slow[ns / 2 - 1] + slow[ns / 2]) / 2;
		}
		json_object_set_new(o, "overhead", json_pack("{s:f,s:o,s:o}", "wall_s", wall_s, "slowdown",
							     jnum(sl), "cpu", jnum(median(cpu, nc))));
	}
	if (pf->nnotes && !json_object_get(o, "unavailable")) {
		json_t *n = json_array();
		for (int i = 0; i < pf->nnotes; i++)
			json_array_append_new(n, json_string(pf->notes[i]));
		json_object_set_new(o, "notes", n);
	}
	for (int i = 0; i < pf->npts; i++)
		ppoint_free(&pf->pts[i]);
	for (int i = 0; i < pf->nobj; i++)
		sym_elf_free(&pf->objs[i]);
	free(pf->objs);
	ksyms_free(&pf->ks);
	sym_names_free(&pf->nm);
	free(pf);
	return o;
}

/* The point of profile pf at N = n, or NULL. */
static const json_t *point_at(const json_t *pf, json_int_t n)
{
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(pf, "points"), i, p)
		if (json_integer_value(json_object_get(p, "n")) == n)
			return p;
	return NULL;
}

static const json_t *fn_in(const json_t *pt, const char *name)
{
	size_t i;
	const json_t *f;
	json_array_foreach(json_object_get(pt, "functions"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "name")), name))
			return f;
	return NULL;
}

static double fnum(const json_t *f, const char *k)
{
	return f ? json_number_value(json_object_get(f, k)) : 0;
}

json_t *profile_compare(const json_t *a, const json_t *b)
{
	const json_t *pa = NULL, *pb = NULL;
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(a, "points"), i, p) { /* the largest N in both */
		const json_t *q = point_at(b, json_integer_value(json_object_get(p, "n")));
		if (q && (!pa || json_integer_value(json_object_get(p, "n")) >
				       json_integer_value(json_object_get(pa, "n")))) {
			pa = p;
			pb = q;
		}
	}
	if (!pa)
		return NULL;
	/* every function either lists (one a side lists only is 0 on the
	 * other: under its top functions there) */
	struct rank *r = NULL;
	const json_t *names[2 * 2 * TOP_FUNCTIONS + 2];
	int nn = 0;
	for (int side = 0; side < 2; side++) {
		const json_t *f;
		json_array_foreach(json_object_get(side ? pb : pa, "functions"), i, f) {
			const char *nm = json_string_value(json_object_get(f, "name"));
			int seen = 0;
			for (int k = 0; k < nn && !seen; k++)
				seen = !strcmp(json_string_value(names[k]), nm);
			if (!seen && nm && nn < (int)(sizeof(names) / sizeof(names[0])))
				names[nn++] = json_object_get(f, "name");
		}
	}
	r = calloc((size_t)nn + 1, sizeof(*r));
	if (!r)
		return NULL;
	for (int k = 0; k < nn; k++) {
		const char *nm = json_string_value(names[k]);
		r[k] = (struct rank){k, fabs(fnum(fn_in(pb, nm), "self_ns_per_op") -
					       fnum(fn_in(pa, nm), "self_ns_per_op"))};
	}
	qsort(r, (size_t)nn, sizeof(*r), cmp_rank);
	json_t *fns = json_array();
	for (int k = 0; k < nn && k < PROFILE_COMPARE_TOP && r[k].key > 0; k++) {
		const char *nm = json_string_value(names[r[k].id]);
		const json_t *fa = fn_in(pa, nm), *fb = fn_in(pb, nm);
		json_array_append_new(fns, json_pack("{s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "name", nm,
						     "a_ns", fnum(fa, "ns_per_op"), "b_ns", fnum(fb, "ns_per_op"),
						     "delta_ns", fnum(fb, "ns_per_op") - fnum(fa, "ns_per_op"),
						     "self_a_ns", fnum(fa, "self_ns_per_op"), "self_b_ns",
						     fnum(fb, "self_ns_per_op"), "self_delta_ns",
						     fnum(fb, "self_ns_per_op") - fnum(fa, "self_ns_per_op"),
						     "share_a", fnum(fa, "self_share"), "share_b",
						     fnum(fb, "self_share")));
	}
	free(r);
	return json_pack("{s:I,s:o,s:o,s:o}", "n", json_integer_value(json_object_get(pa, "n")),
			 "cpu_per_op_a_ns", json_copy(json_object_get(pa, "cpu_per_op_ns")),
			 "cpu_per_op_b_ns", json_copy(json_object_get(pb, "cpu_per_op_ns")), "functions",
			 fns);
}
