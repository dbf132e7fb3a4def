/* SPDX-License-Identifier: MIT */
#include "bench/fsdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

int fsdir_setup(struct bench_env *env, void **state)
{
	struct fsdir *d = calloc(1, sizeof(*d));
	if (!d)
		return bench_fail(env, "calloc");
	d->env = env;
	d->rng = 0x9e3779b97f4a7c15ull;
	*state = d;
	return 0;
}

static int create_at(struct fsdir *d, const char *name)
{
	int fd = openat(d->env->dirfd, name, O_CREAT | O_EXCL | O_WRONLY, BENCH_FILE_MODE);
	if (fd < 0)
		return bench_fail(d->env, "openat(O_CREAT|O_EXCL)");
	if (close(fd))
		return bench_fail(d->env, "close");
	return 0;
}

int fsdir_grow(void *state, uint64_t i)
{
	struct fsdir *d = state;
	char nm[40];
	snprintf(nm, sizeof(nm), "e%llu%s", (unsigned long long)i, d->env->task_tag);
	int rc = create_at(d, nm);
	if (rc == 0)
		d->n = i + 1;
	return rc;
}

int fsdir_pick_existing(void *state, unsigned slot)
{
	struct fsdir *d = state;
	d->rng ^= d->rng << 13;
	d->rng ^= d->rng >> 7;
	d->rng ^= d->rng << 17;
	uint64_t i = d->n ? d->rng % d->n : 0;
	if (d->named[slot] != i + 1) { /* format only when it changes */
		snprintf(d->name[slot], sizeof(d->name[slot]), "e%llu%s", (unsigned long long)i,
			 d->env->task_tag);
		d->named[slot] = i + 1;
	}
	return 0;
}

/* d->probe = "p<d->probes>": the first by snprintf, each next one from the
 * last by incrementing its decimal digits in place (the same names) */
static void probe_next(struct fsdir *d)
{
	if (!d->probe_len) {
		d->probe_len = (size_t)snprintf(d->probe, sizeof(d->probe), "p%llu",
						(unsigned long long)d->probes);
		return;
	}
	size_t i = d->probe_len;
	while (i > 1 && d->probe[i - 1] == '9')
		d->probe[--i] = '0';
	if (i > 1) {
		d->probe[i - 1]++;
	} else { /* all nines: 1 followed by as many zeros, one digit longer */
		d->probe[1] = '1';
		d->probe[d->probe_len++] = '0';
		d->probe[d->probe_len] = 0;
	}
}

int fsdir_pick_probe(void *state, unsigned slot)
{
	struct fsdir *d = state;
	probe_next(d);
	d->probes++;
	size_t tl = strlen(d->env->task_tag);
	if (d->probe_len + tl < sizeof(d->name[slot])) {
		memcpy(d->name[slot], d->probe, d->probe_len);
		memcpy(d->name[slot] + d->probe_len, d->env->task_tag, tl + 1);
	} else { /* cannot happen with a tag of bench.h's size; truncated as snprintf does */
		snprintf(d->name[slot], sizeof(d->name[slot]), "%s%s", d->probe, d->env->task_tag);
	}
	d->named[slot] = 0;
	return 0;
}

int fsdir_create_probe(void *state, unsigned slot)
{
	struct fsdir *d = state;
	fsdir_pick_probe(state, slot);
	return create_at(d, d->name[slot]);
}

/* Whether to move to the spent directory: while the file system has the
 * inodes the rest of the sweep needs (to max_n) and a sixteenth of all to
 * spare (looked at every 64 moves), since what is moved keeps its inode;
 * after that, unlinked as elsewhere, so that the spent files never bring
 * the sweep to ENOSPC where deleting would not. */
static int spend(struct fsdir *d)
{
	if (!d->env->has_spent || d->spent_off)
		return 0;
	struct statvfs v;
	uint64_t need = d->env->max_n > d->n ? d->env->max_n - d->n : 0;
	if (d->spent % 64 == 0 && !fstatvfs(d->env->spent_fd, &v) && v.f_files > 0 &&
	    v.f_favail < need + v.f_files / 16)
		d->spent_off = 1;
	return !d->spent_off;
}

int fsdir_drop(struct fsdir *d, const char *name, int flags)
{
	if (spend(d)) {
		char to[48];
		snprintf(to, sizeof(to), "s%llu%s", (unsigned long long)d->spent++, d->env->task_tag);
		if (renameat(d->env->dirfd, name, d->env->spent_fd, to))
			return bench_fail(d->env, "renameat(to the spent directory)");
		return 0;
	}
	if (unlinkat(d->env->dirfd, name, flags))
		return bench_fail(d->env, flags & AT_REMOVEDIR ? "unlinkat(AT_REMOVEDIR)" : "unlinkat");
	return 0;
}

int fsdir_unlink_slot(void *state, unsigned slot)
{
	struct fsdir *d = state;
	return fsdir_drop(d, d->name[slot], 0);
}

int fsdir_unlink_to(void *state, unsigned slot)
{
	struct fsdir *d = state;
	return fsdir_drop(d, d->to[slot], 0);
}

void fsdir_teardown(void *state) { free(state); } /* the core removes the directory */
