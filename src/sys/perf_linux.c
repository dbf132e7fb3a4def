/* SPDX-License-Identifier: MIT */
/* perf.h on Linux: perf_event_open(2) sampling events, one per thread of the
 * process and online CPU (inherited by what the thread starts; the kernel
 * then writes the children's samples into the parent event's buffer), the
 * events of one CPU sharing one ring buffer (PERF_EVENT_IOC_SET_OUTPUT).
 * A per-task event cannot be mapped with inherit on "any CPU" (cpu = -1),
 * hence one per CPU, as perf record does. */
#include "sys/perf.h"
#include "sys/sys.h"
#include "sys/sys_common.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PERF_MAX_CPUS 256
#define PERF_MAX_THREADS 64
#define KALLSYMS_MAX (256u << 20)

struct ring {
	int fd;            /* the event whose buffer this is */
	void *base;        /* the control page, then 2^k data pages */
	size_t data_size;  /* bytes of data pages */
};

struct sys_perf {
	const char *event;
	int nfd, cap;
	int *fds;                    /* every event (each thread x CPU) */
	struct ring rings[PERF_MAX_CPUS];
	int nrings;
	unsigned char *tmp;          /* a record that wraps around the buffer's end */
	size_t tmpcap;
};

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static void attr_for(struct perf_event_attr *a, int hw, uint64_t period_ns)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (hw) {
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_CPU_CYCLES;
		a->freq = 1; /* the cycles per ns are not known: a rate instead */
		a->sample_freq = period_ns ? 1000000000ull / period_ns : 10000;
	} else {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		a->sample_period = period_ns;
	}
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->disabled = 1;
	a->inherit = 1;
	a->exclude_hv = 1;
}

static void say_why(int e, char *why, size_t whylen)
{
	if (e == EACCES || e == EPERM) {
		char err[128];
		char *s = sb_read_file("/proc/sys/kernel/perf_event_paranoid", 64, NULL, err, sizeof(err));
		snprintf(why, whylen,
			 "perf_event_open: %s (kernel.perf_event_paranoid = %s; kernel call chains "
			 "need root or CAP_PERFMON, or the setting at 1 or below; or a lockdown)",
			 strerror(e), s ? sb_rtrim(s) : "unknown");
		free(s);
	} else if (e == ENOENT || e == ENOSYS || e == EOPNOTSUPP) {
		snprintf(why, whylen, "perf_event_open: %s (no perf events in this kernel)", strerror(e));
	} else {
		snprintf(why, whylen, "perf_event_open: %s", strerror(e));
	}
}

static int add_fd(struct sys_perf *p, int fd)
{
	if (p->nfd == p->cap) {
		int nc = p->cap ? p->cap * 2 : 16;
		int *n = realloc(p->fds, (size_t)nc * sizeof(int));
		if (!n)
			return -ENOMEM;
		p->fds = n;
		p->cap = nc;
	}
	p->fds[p->nfd++] = fd;
	return 0;
}

/* The ring buffer of CPU ring i on fd: 1 + 2^k pages, halved down to 4
 * data pages while the locked-memory limit refuses. */
static int map_ring(struct ring *r, int fd, size_t buf_kib)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = 4;
	while (pages * 2 * page <= buf_kib * 1024)
		pages *= 2;
	for (;;) {
		void *m = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED) {
			r->fd = fd;
			r->base = m;
			r->data_size = pages * page;
			return 0;
		}
		if ((errno != EPERM && errno != ENOMEM) || pages <= 4)
			return -errno;
		pages /= 2;
	}
}

int sys_perf_open(pid_t pid, uint64_t period_ns, size_t buf_kib, struct sys_perf **out,
		  char *why, size_t whylen)
{
	*out = NULL;
	struct sys_perf *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	int tids[PERF_MAX_THREADS];
	int nt = sys_task_list((int)pid, tids, PERF_MAX_THREADS);
	if (nt <= 0) {
		tids[0] = (int)pid;
		nt = 1;
	}
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > PERF_MAX_CPUS)
		ncpu = PERF_MAX_CPUS;
	struct perf_event_attr a;
	int hw = 1, rc = 0;
	for (long c = 0; c < ncpu && !rc; c++) {
		int ring_fd = -1;
		for (int t = 0; t < nt && !rc; t++) {
			attr_for(&a, hw, period_ns);
			long fd = perf_open(&a, tids[t], (int)c, -1);
			if (fd < 0 && hw && p->nfd == 0 && ring_fd < 0 &&
			    (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV || errno == EINVAL)) {
				hw = 0; /* no PMU (a virtual machine): the software clock */
				attr_for(&a, hw, period_ns);
				fd = perf_open(&a, tids[t], (int)c, -1);
			}
			if (fd < 0) {
				if (errno == ENODEV || errno == ESRCH)
					continue; /* CPU offline; thread gone */
				rc = -errno;
				say_why(errno, why, whylen);
				break;
			}
			if ((rc = add_fd(p, (int)fd))) {
				close((int)fd);
				snprintf(why, whylen, "out of memory");
				break;
			}
			if (ring_fd < 0) {
				if ((rc = map_ring(&p->rings[p->nrings], (int)fd, buf_kib))) {
					snprintf(why, whylen, "mmap of the sample buffer: %s", strerror(-rc));
					break;
				}
				p->nrings++;
				ring_fd = (int)fd;
			} else if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd)) {
				rc = -errno;
				snprintf(why, whylen, "PERF_EVENT_IOC_SET_OUTPUT: %s", strerror(errno));
			}
		}
	}
	if (!rc && p->nfd == 0) {
		rc = -ESRCH;
		snprintf(why, whylen, "process %d is gone", (int)pid);
	}
	if (rc) {
		sys_perf_close(p);
		return rc;
	}
	p->event = hw ? "cycles" : "cpu-clock";
	*out = p;
	return 0;
}

const char *sys_perf_event(const struct sys_perf *p) { return p ? p->event : "none"; }

void sys_perf_all(int on)
{
	prctl(on ? PR_TASK_PERF_EVENTS_ENABLE : PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
}

size_t sys_perf_pending(const struct sys_perf *p)
{
	size_t most = 0;
	for (int i = 0; p && i < p->nrings; i++) {
		struct perf_event_mmap_page *mp = p->rings[i].base;
		uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
		uint64_t n = head - mp->data_tail;
		if (n > most)
			most = (size_t)n;
	}
	return most;
}

/* One record at ring offset off (of size sz) as contiguous bytes. */
static const unsigned char *record_at(struct sys_perf *p, const struct ring *r, uint64_t off,
				      size_t sz)
{
	const unsigned char *data = (const unsigned char *)r->base + sysconf(_SC_PAGESIZE);
	size_t at = (size_t)(off % r->data_size);
	if (at + sz <= r->data_size)
		return data + at;
	if (sz > p->tmpcap) {
		unsigned char *t = realloc(p->tmp, sz);
		if (!t)
			return NULL;
		p->tmp = t;
		p->tmpcap = sz;
	}
	size_t first = r->data_size - at;
	memcpy(p->tmp, data + at, first);
	memcpy(p->tmp + first, data, sz - first);
	return p->tmp;
}

void sys_perf_drain(struct sys_perf *p, void (*fn)(void *ctx, const struct sys_perf_sample *s),
		    void *ctx, uint64_t *lost)
{
	for (int i = 0; p && i < p->nrings; i++) {
		struct ring *r = &p->rings[i];
		struct perf_event_mmap_page *mp = r->base;
		uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = mp->data_tail;
		while (tail + sizeof(struct perf_event_header) <= head) {
			const struct perf_event_header *h =
				(const void *)record_at(p, r, tail, sizeof(struct perf_event_header));
			size_t sz = h ? h->size : 0;
			if (sz < sizeof(*h) || tail + sz > head)
				break;
			const unsigned char *rec = record_at(p, r, tail, sz);
			if (!rec)
				break;
			h = (const void *)rec;
			if (h->type == PERF_RECORD_SAMPLE && sz >= sizeof(*h) + 32) {
				const unsigned char *q = rec + sizeof(*h);
				struct sys_perf_sample s;
				memcpy(&s.pid, q, 4);
				memcpy(&s.tid, q + 4, 4);
				memcpy(&s.time, q + 8, 8);
				memcpy(&s.period, q + 16, 8);
				memcpy(&s.nr, q + 24, 8);
				if (sizeof(*h) + 32 + s.nr * 8 <= sz) {
					s.ips = (const uint64_t *)(const void *)(q + 32);
					fn(ctx, &s);
				} else if (lost) {
					(*lost)++;
				}
			} else if (h->type == PERF_RECORD_LOST && sz >= sizeof(*h) + 16 && lost) {
				uint64_t n;
				memcpy(&n, rec + sizeof(*h) + 8, 8);
				*lost += n;
			}
			tail += sz;
		}
		__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	}
}

uint64_t sys_perf_running_ns(const struct sys_perf *p)
{
	uint64_t sum = 0;
	for (int i = 0; p && i < p->nfd; i++) {
		uint64_t v[3];
		if (read(p->fds[i], v, sizeof(v)) == (ssize_t)sizeof(v))
			sum += v[2];
	}
	return sum;
}

void sys_perf_close(struct sys_perf *p)
{
	if (!p)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < p->nrings; i++)
		munmap(p->rings[i].base, p->rings[i].data_size + page);
	for (int i = 0; i < p->nfd; i++)
		close(p->fds[i]);
	free(p->fds);
	free(p->tmp);
	free(p);
}

char *sys_kallsyms(char *why, size_t whylen)
{
	char err[160];
	char *s = sb_read_file("/proc/kallsyms", KALLSYMS_MAX, NULL, err, sizeof(err));
	if (!s) {
		snprintf(why, whylen, "%s", err);
		return NULL;
	}
	/* hidden addresses read as zeros: look for one that is not */
	for (const char *l = s; *l; ) {
		if (strtoull(l, NULL, 16) != 0)
			return s;
		const char *nl = strchr(l, '\n');
		if (!nl)
			break;
		l = nl + 1;
	}
	free(s);
	char *k = sb_read_file("/proc/sys/kernel/kptr_restrict", 64, NULL, err, sizeof(err));
	snprintf(why, whylen, "/proc/kallsyms shows no addresses (kernel.kptr_restrict = %s, or not "
			      "root)", k ? sb_rtrim(k) : "unknown");
	free(k);
	return NULL;
}

uint64_t sys_kmodules_hash(void)
{
	char err[160];
	if (access("/proc/modules", F_OK) && errno == ENOENT)
		return 2; /* a kernel without modules: its table never changes */
	char *s = sb_read_file("/proc/modules", 16u << 20, NULL, err, sizeof(err));
	if (!s)
		return 0;
	uint64_t h = 1469598103934665603ull;
	for (const char *c = s; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	free(s);
	return h ? h : 1;
}

char *sys_maps(pid_t pid)
{
	char path[64], err[160];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	return sb_read_file(path, 16u << 20, NULL, err, sizeof(err));
}
