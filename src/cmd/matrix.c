/* SPDX-License-Identifier: MIT */
/* scalebench matrix: the same benches on several file systems, side by
 * side. For each file system of --fs: an image file made in --dir (tmpfs:
 * none), formatted with the standard mkfs, attached to a loop device with
 * direct I/O to its backing file (so that the page cache is not doubled),
 * mounted, swept (runner_sweep, with the file system's label as target),
 * then unmounted, detached and deleted. Every one of those steps registers
 * what it made (registry.h), so that an error or Ctrl-C at any step
 * removes what the matrix created and nothing else. A file system whose
 * tools or kernel support is missing is recorded as skipped, with the
 * reason. TYPE+fuse: bindfs over the mounted base, swept instead of it;
 * --dev zram: a hot-added zram device instead of image + loop; --dev dm-*:
 * skipped with the reason. Root only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "cmd/cmd.h"
#include "cmd/jobrun.h"
#include "cmd/fsspec.h"
#include "core/registry.h"
#include "core/spawn.h"
#include "cmd/runner.h"
#include "sys/sys.h"

#define MIB (1ull << 20)

/* Default image size: twice what the most demanding selected bench needs
 * with the parameters and --max-n given (its space_bytes, or space_mib),
 * plus room for the file system's own metadata and journal; at least 512
 * MiB (xfs needs 300). why says where the figure came from. */
static uint64_t default_image_size(const struct runner *rn, char *why, size_t whylen)
{
	const struct bench *b = NULL;
	uint64_t need = runner_space_bytes(rn, &b);
	uint64_t mib = (need + MIB - 1) / MIB * 2 + 256;
	if (mib < 512)
		mib = 512;
	snprintf(why, whylen, "sized to the benches: %s needs %llu MiB, x2 + 256 MiB, at least 512",
		 b ? b->name : "none", (unsigned long long)((need + MIB - 1) / MIB));
	return (mib + 63) / 64 * 64 * MIB;
}

/* Full path of a mkfs tool, searched in PATH then /usr/sbin and /sbin. */
/* A reg_add_* that failed (it released what it was given): -1 with why. */
static int reg_failed(char *why, size_t whylen, const char *what)
{
	snprintf(why, whylen, "%.400s: cannot register it for cleanup: %s", what, strerror(ENOMEM));
	return -1;
}

static int find_tool(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s:/usr/sbin:/sbin", path ? path : "");
	char *save = NULL;
	for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", d, name);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* Run mkfs on the image; 0, or -1 with the reason (its last output line). */
/* The last non-empty line of a tool's log (its error message), and the
 * log removed. */
static void log_last_line(const char *log, char *out, size_t len)
{
	out[0] = 0;
	FILE *lf = fopen(log, "r");
	if (lf) {
		char line[512];
		while (fgets(line, sizeof(line), lf))
			if (line[0] != '\n')
				snprintf(out, len, "%s", line);
		fclose(lf);
	}
	out[strcspn(out, "\n")] = 0;
	unlink(log);
}

static int run_mkfs(const struct fs_spec *f, const char *image, const char *scratch, json_t *info,
		    char *why, size_t whylen)
{
	char tool[64], exe[4096], log[4096], cmd[1024];
	snprintf(tool, sizeof(tool), "mkfs.%s", f->type);
	if (find_tool(tool, exe, sizeof(exe))) {
		snprintf(why, whylen, "%s not found (Debian: %s)", tool,
			 !strcmp(f->type, "xfs") ? "xfsprogs" : !strcmp(f->type, "btrfs") ? "btrfs-progs" : "e2fsprogs");
		return -1;
	}
	char opts[128];
	char *argv[40];
	int argc = 0;
	argv[argc++] = tool;
	argv[argc++] = !strncmp(f->type, "ext", 3) ? "-F" : "-f";
	argv[argc++] = "-q";
	snprintf(opts, sizeof(opts), "%s", f->mkfs_opts);
	char *save = NULL;
	for (char *w = strtok_r(opts, " ", &save); w && argc < 36; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc++] = (char *)image;
	argv[argc] = NULL;
	size_t cl = 0;
	cmd[0] = 0;
	for (int i = 0; i < argc; i++)
		cl += (size_t)snprintf(cmd + cl, cl < sizeof(cmd) ? sizeof(cmd) - cl : 0, "%s%s",
				       i ? " " : "", argv[i]);
	json_object_set_new(info, "mkfs", json_string(cmd));
	snprintf(log, sizeof(log), "%.3900s/mkfs.log", scratch);
	const struct spawn_opts so = {.log = log, .what = tool};
	struct spawn c;
	if (spawn_start(&c, exe, argv, &so, why, whylen))
		return -1;
	if (spawn_wait(&c, SPAWN_KILL)) {
		snprintf(why, whylen, "%s interrupted", tool);
		return -1;
	}
	int st = c.status;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		unlink(log);
		return 0;
	}
	char out[512]; /* a log line is read 511 bytes at a time */
	log_last_line(log, out, sizeof(out));
	char how[64];
	snprintf(why, whylen, "%s failed (%s)%s%s", tool, spawn_status_text(st, 1, how, sizeof(how)),
		 out[0] ? ": " : "", out);
	return -1;
}

struct made { char image[4096], mnt[4096], dev[64], zram[64], fmnt[4096]; struct spawn fuse; };

/* --dev: what the file systems (tmpfs aside) are made on */
enum dev_kind { DEV_LOOP, DEV_LOOP_BUFFERED, DEV_ZRAM, DEV_DM_LINEAR, DEV_DM_CRYPT, DEV_DM_DELAY };
static const char *const dev_names[] = {"loop", "loop-buffered", "zram", "dm-linear", "dm-crypt",
					"dm-delay", NULL};

/* Device-mapper targets: the reason they cannot be used here. */
static void dm_why(char *why, size_t whylen)
{
	if (access("/dev/mapper/control", F_OK))
		snprintf(why, whylen, "device-mapper: not in this kernel (no /dev/mapper/control; "
				      "CONFIG_BLK_DEV_DM, modprobe dm_mod)");
	else
		snprintf(why, whylen, "device-mapper targets are not implemented yet in scalebench "
				      "(the kernel has device-mapper)");
}

/* A zram device of size bytes, formatted with f's mkfs, mounted on m->mnt. */
static int zram_up(const struct fs_spec *f, const char *scratch, uint64_t size, json_t *info,
		   struct made *m, char *why, size_t whylen)
{
	char err[512];
	if (sys_zram_add(size, m->zram, sizeof(m->zram), err, sizeof(err))) {
		snprintf(why, whylen, "zram: %s", err);
		m->zram[0] = 0;
		return -1;
	}
	if (reg_add_zram(m->zram)) { /* it removed the device */
		reg_failed(why, whylen, m->zram);
		m->zram[0] = 0;
		return -1;
	}
	char alg[128];
	if (sys_zram_algorithm(m->zram, alg, sizeof(alg)))
		snprintf(alg, sizeof(alg), "unknown");
	json_object_set_new(info, "zram", json_pack("{s:s,s:I,s:s,s:s}", "device", m->zram, "disksize",
						      (json_int_t)size, "comp_algorithm", alg, "what",
						      "RAM block device (compressed): no disk noise"));
	json_object_set_new(info, "device", json_string(m->zram));
	if (run_mkfs(f, m->zram, scratch, info, why, whylen))
		return -1;
	if (reg_stop_requested()) {
		snprintf(why, whylen, "interrupted");
		return -1;
	}
	json_object_set_new(info, "mount_options", json_string(f->mount_opts));
	if (sys_mount(m->zram, m->mnt, f->type, f->mount_opts, err, sizeof(err))) {
		snprintf(why, whylen, "%s", err);
		return -1;
	}
	if (reg_add_mount(m->mnt)) /* it unmounted it */
		return reg_failed(why, whylen, m->mnt);
	return 0;
}

/* bindfs's version: the first line of `bindfs --version`, "unknown" if none. */
static void fuse_version(const char *exe, char *out, size_t len)
{
	char cmd[4200];
	snprintf(out, len, "unknown");
	snprintf(cmd, sizeof(cmd), "'%.4096s' --version 2>/dev/null", exe);
	FILE *p = popen(cmd, "r");
	if (!p)
		return;
	char line[256];
	if (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		snprintf(out, len, "%.100s", line);
	}
	pclose(p);
}

/* Mount bindfs (foreground, in its own process group so that a Ctrl-C at
 * the terminal reaches scalebench only, which then unmounts it) over the
 * base mount m->mnt at m->fmnt; 0, or -1 with why. The daemon and the
 * mount are registered: Ctrl-C kills the one and unmounts the other. */
static int fuse_up(const char *fuse_opts, const char *scratch, json_t *info, struct made *m,
		   char *why, size_t whylen)
{
	char exe[4096], log[4096], ver[128], opts[600];
	if (find_tool("bindfs", exe, sizeof(exe))) {
		snprintf(why, whylen, "bindfs not found (Debian: bindfs)");
		return -1;
	}
	snprintf(m->fmnt, sizeof(m->fmnt), "%.4000s-fuse", m->mnt);
	if (mkdir(m->fmnt, 0700)) {
		snprintf(why, whylen, "mkdir %.900s: %s", m->fmnt, strerror(errno));
		m->fmnt[0] = 0;
		return -1;
	}
	fuse_version(exe, ver, sizeof(ver));
	/* root's bindfs adds allow_other: the bench workers are root too */
	snprintf(opts, sizeof(opts), "%s", fuse_opts ? fuse_opts : "");
	char *argv[8];
	int argc = 0;
	argv[argc++] = "bindfs";
	argv[argc++] = "-f";
	if (opts[0]) {
		argv[argc++] = "-o";
		argv[argc++] = opts;
	}
	argv[argc++] = m->mnt;
	argv[argc++] = m->fmnt;
	argv[argc] = NULL;
	char cmd[9000];
	snprintf(cmd, sizeof(cmd), "bindfs -f%s%s %s %s", opts[0] ? " -o " : "", opts, m->mnt, m->fmnt);
	json_object_set_new(info, "fuse", json_pack("{s:s,s:s,s:s,s:s,s:s}", "daemon", "bindfs", "version",
						      ver, "path", exe, "options", opts, "command", cmd));
	snprintf(log, sizeof(log), "%.3900s/bindfs.log", scratch);
	const struct spawn_opts so = {.flags = SPAWN_OWN_GROUP, .log = log, .what = "bindfs"};
	if (spawn_start(&m->fuse, exe, argv, &so, why, whylen))
		return -1;
	/* registered before it appears: a signal while bindfs starts must not
	 * leave a mount made after the last look (unmounting a directory that
	 * is not mounted is not an error) */
	if (reg_add_mount(m->fmnt)) /* fuse_down stops bindfs */
		return reg_failed(why, whylen, m->fmnt);
	/* the mount appears when the daemon is ready; it exits on a bad option */
	int up = 0;
	for (int i = 0; i < 1000 && !reg_stop_requested(); i++) { /* 20 s */
		if (sys_is_fuse(m->fmnt)) {
			up = 1;
			break;
		}
		if (spawn_ended(&m->fuse))
			break;
		nanosleep(&(struct timespec){0, 20000000}, NULL);
	}
	if (up) {
		unlink(log);
		return 0;
	}
	char out[512], how[64];
	log_last_line(log, out, sizeof(out));
	if (reg_stop_requested())
		snprintf(why, whylen, "interrupted");
	else if (m->fuse.pid)
		snprintf(why, whylen, "bindfs did not mount %.400s within 20 s%s%.400s", m->fmnt, out[0] ? ": " : "", out);
	else
		snprintf(why, whylen, "bindfs failed (%s)%s%.400s",
			 spawn_status_text(m->fuse.status, 1, how, sizeof(how)), out[0] ? ": " : "", out);
	return -1;
}

/* Unmount the FUSE layer, then let its daemon exit (it does once
 * unmounted; killed after 5 s); 0 or -errno. */
static int fuse_down(struct made *m)
{
	int rc = 0;
	if (m->fmnt[0]) {
		rc = reg_umount(m->fmnt);
		if (!rc && rmdir(m->fmnt) && errno != ENOENT)
			rc = -errno;
	}
	for (int i = 0; i < 250 && !spawn_ended(&m->fuse); i++)
		nanosleep(&(struct timespec){0, 20000000}, NULL);
	spawn_kill(&m->fuse); /* if it did not exit */
	m->fmnt[0] = 0;
	return rc;
}

/* Mount f (image, loop device, mount point) below scratch; 0, or -1 with
 * why (the file system is then skipped). What was made is in m. */
static int bring_up(const struct fs_spec *f, int idx, const char *scratch, uint64_t size,
		    enum dev_kind dk, json_t *info, struct made *m, char *why, size_t whylen)
{
	char err[512], opts[256];
	snprintf(m->mnt, sizeof(m->mnt), "%.3900s/mnt%d-%s", scratch, idx, f->type);
	if (mkdir(m->mnt, 0700)) {
		snprintf(why, whylen, "mkdir %.900s: %s", m->mnt, strerror(errno));
		m->mnt[0] = 0;
		return -1;
	}
	if (!strcmp(f->type, "tmpfs")) {
		if (strstr(f->mount_opts, "size="))
			snprintf(opts, sizeof(opts), "%s", f->mount_opts);
		else
			snprintf(opts, sizeof(opts), "size=%llu%s%s", (unsigned long long)size,
				 f->mount_opts[0] ? "," : "", f->mount_opts);
		json_object_set_new(info, "backing", json_string("memory (tmpfs, no image)"));
		json_object_set_new(info, "mount_options", json_string(opts));
		if (sys_mount("scalebench-tmpfs", m->mnt, "tmpfs", opts, err, sizeof(err))) {
			snprintf(why, whylen, "%s", err);
			return -1;
		}
		if (reg_add_mount(m->mnt)) /* it unmounted it */
			return reg_failed(why, whylen, m->mnt);
		return 0;
	}
	if (dk >= DEV_DM_LINEAR) {
		dm_why(why, whylen);
		return -1;
	}
	if (dk == DEV_ZRAM)
		return zram_up(f, scratch, size, info, m, why, whylen);
	int loop_dio = dk == DEV_LOOP;
	snprintf(m->image, sizeof(m->image), "%.3900s/%s-%d.img", scratch, f->type, idx);
	int fd = open(m->image, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		snprintf(why, whylen, "create %.900s: %s", m->image, strerror(errno));
		m->image[0] = 0;
		return -1;
	}
	if (reg_add_file(m->image)) { /* it removed the file */
		close(fd);
		reg_failed(why, whylen, m->image);
		m->image[0] = 0;
		return -1;
	}
	int rc = ftruncate(fd, (off_t)size);
	int e = errno;
	close(fd);
	if (rc) {
		snprintf(why, whylen, "ftruncate %.900s: %s", m->image, strerror(e));
		return -1;
	}
	char bfs[32];
	if (sys_fs_type(scratch, bfs, sizeof(bfs)))
		snprintf(bfs, sizeof(bfs), "unknown");
	json_object_set_new(info, "image", json_pack("{s:s,s:I,s:s}", "path", m->image, "size_bytes",
						       (json_int_t)size, "backing_fs", bfs));
	if (run_mkfs(f, m->image, scratch, info, why, whylen))
		return -1;
	if (reg_stop_requested()) {
		snprintf(why, whylen, "interrupted");
		return -1;
	}
	int dio = loop_dio, lfd = -1;
	if (sys_loop_attach(m->image, &dio, m->dev, sizeof(m->dev), &lfd, err, sizeof(err))) {
		snprintf(why, whylen, "loop device: %s", err);
		m->dev[0] = 0;
		return -1;
	}
	if (reg_add_loop(m->dev)) { /* it detached the device */
		reg_failed(why, whylen, m->dev);
		m->dev[0] = 0;
		return -1;
	}
	json_object_set_new(info, "loop", json_pack("{s:s,s:b,s:s}", "device", m->dev, "direct_io",
						      dio, "what",
						      dio ? "direct I/O to the image: no second page cache"
							  : "buffered: the image is cached by the backing file system too"));
	char dev[128];
	snprintf(dev, sizeof(dev), "%s%s", m->dev, dio ? " (direct I/O)" : " (buffered)");
	json_object_set_new(info, "device", json_string(dev));
	json_object_set_new(info, "mount_options", json_string(f->mount_opts));
	rc = sys_mount(m->dev, m->mnt, f->type, f->mount_opts, err, sizeof(err));
	close(lfd); /* after the mount, the loop device autoclears on unmount */
	if (rc) {
		snprintf(why, whylen, "%s", err);
		return -1;
	}
	if (reg_add_mount(m->mnt)) /* it unmounted it */
		return reg_failed(why, whylen, m->mnt);
	return 0;
}

/* Undo bring_up, newest first; 0 or the first -errno. */
static int tear_down(struct made *m)
{
	int rc = fuse_down(m), r;
	if (m->mnt[0]) {
		if ((r = reg_umount(m->mnt)) && !rc)
			rc = r;
		if (!r && rmdir(m->mnt) && errno != ENOENT && !rc)
			rc = -errno;
	}
	if (m->dev[0] && (r = reg_detach_loop(m->dev)) && !rc)
		rc = r;
	if (m->zram[0] && (r = reg_remove_zram(m->zram)) && !rc)
		rc = r;
	if (m->image[0] && (r = reg_remove_file(m->image)) && !rc)
		rc = r;
	memset(m, 0, sizeof(*m));
	return rc;
}

/* --fresh: what runner_sweep calls to make the target's file system anew
 * before a repetition (tear_down, then bring_up and fuse_up as the first
 * time, at the same paths). */
struct fresh {
	const struct fs_spec *f;
	int idx;
	const char *scratch, *fuse_opts;
	uint64_t size;
	enum dev_kind dk;
	json_t *info;
	struct made *m;
	int made;     /* file systems made (the first included) */
	uint64_t ns;  /* time the remaking took */
};

static int renew(void *ctx, const char **dir, char *err, size_t errlen)
{
	struct fresh *c = ctx;
	uint64_t t0 = clock_ns();
	int rc = tear_down(c->m);
	if (rc) {
		snprintf(err, errlen, "taking the last one down: %s", strerror(-rc));
		return -1;
	}
	if (bring_up(c->f, c->idx, c->scratch, c->size, c->dk, c->info, c->m, err, errlen) ||
	    (c->f->fuse && fuse_up(c->fuse_opts, c->scratch, c->info, c->m, err, errlen)))
		return -1;
	*dir = c->f->fuse ? c->m->fmnt : c->m->mnt;
	c->made++;
	c->ns += clock_ns() - t0;
	return 0;
}

static void set_target(struct runner *rn, const char *label, json_t *info)
{
	if (!rn->r.targets)
		rn->r.targets = json_object();
	json_t *t = json_object_get(rn->r.targets, label);
	if (t)
		json_object_update(t, info);
	else
		json_object_set(rn->r.targets, label, info);
	/* the snapshot says too where the file system lives and what backs it */
	json_t *snap = json_object_get(json_object_get(rn->r.targets, label), "snapshot");
	if (json_is_object(snap))
		json_object_set_new(snap, "matrix",
				    json_pack("{s:O?,s:O?,s:O?,s:O?,s:O?,s:O?}", "image", json_object_get(info, "image"),
					      "loop", json_object_get(info, "loop"), "zram",
					      json_object_get(info, "zram"), "fuse",
					      json_object_get(info, "fuse"), "backing",
					      json_object_get(info, "backing"), "mkfs",
					      json_object_get(info, "mkfs")));
}

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f,
		"usage: scalebench matrix [BENCH|FAMILY ...] [options]   (root only)\n"
		"       scalebench matrix FILE.job [options]\n\n"
		"Run the same benches (default: the fs and io families) on several file\n"
		"systems and print them side by side. For each file system an image file\n"
		"is made in --dir, formatted with mkfs.TYPE, attached to a loop device with\n"
		"direct I/O, mounted, swept, then unmounted, detached and deleted (tmpfs:\n"
		"mounted with size=--image-size, no image). Only what the matrix made is\n"
		"ever formatted, mounted or removed; Ctrl-C removes it all. Benches with\n"
		"phases (fs.fileserver, work.round2) add a table: one row per file system,\n"
		"one column per phase (files/s MiB/s, or requests/s p99), stalls counted.\n\n"
		"FILE.job: a job file (docs/studies.md; as for run: [global] with fs, fresh...,\n"
		"one section per job, and fs = LIST in a job for some file systems only);\n"
		"options given here override it. studies/vonleitner-2006.job is round 2.\n\n"
		"FS list: TYPE[+fuse][:MKFS OPTIONS][@MOUNT OPTIONS],... with TYPE one of ext2,\n"
		"ext3, ext4, xfs, btrfs, tmpfs, e.g. --fs 'ext4,ext4:-O ^dir_index,ext4@noatime,xfs'.\n"
		"TYPE+fuse mounts bindfs (a pass-through FUSE file system) over TYPE and runs\n"
		"the benches through it: --fs tmpfs,tmpfs+fuse,ext4,ext4+fuse gives the FUSE\n"
		"overhead side by side; bindfs is unmounted and reaped on exit and Ctrl-C.\n"
		"--dev zram hot-adds a RAM block device of its own (removed after).\n"
		"--fresh makes every file system anew before each repetition of each bench.\n\n");
	opt_help(f, opts);
	fprintf(f, "\nexit: 0 done (failures and skipped file systems are recorded in the\n"
		   "result), 1 the harness failed, 2 bad arguments, not root, or not enough\n"
		   "space for an image, 128+signal interrupted (partial result written).\n");
}

/* The positional words: a job file alone (loaded into plan, its benches the words) or bench names. */
static int matrix_words(struct jobplan *plan, char **pos, int *npos, const struct opt *opts,
			struct runner *rn, int argc, char **argv, char *err, size_t errlen)
{
	if (*npos == 1 && jobrun_is_file(pos[0])) {
		if (jobrun_load(plan, pos[0], "matrix", opts, rn, argc, argv, err, errlen)) {
			fprintf(stderr, "scalebench matrix: %s\n", err);
			jobrun_free(plan);
			return EXIT_USAGE;
		}
		*npos = plan->nwords;
		memcpy(pos, plan->words, (size_t)*npos * sizeof(*pos));
		return 0;
	}
	for (int i = 0; i < *npos; i++)
		if (jobrun_is_file(pos[i])) {
			fprintf(stderr, "scalebench matrix: %s: a job file names its own benches; give "
				"it alone (options may follow)\n", pos[i]);
			return EXIT_USAGE;
		}
	return 0;
}

/* The file systems and benches parsed, root, the directory usable; -1 said on stderr. */
static int matrix_prepare(struct runner *rn, const char *fs_list, struct fs_spec *fs, int *nfs,
			  char **pos, int npos)
{
	char err[1536], *fam[] = {"fs", "io"};
	if (fs_spec_parse(fs_list, fs, nfs, err, sizeof(err)) ||
	    runner_prepare(rn, npos ? pos : fam, npos ? npos : 2, err, sizeof(err))) {
		fprintf(stderr, "scalebench matrix: %s\n", err);
		return -1;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "scalebench matrix: needs root (it formats and loop-mounts image files it makes); "
				"without root use `scalebench run --dir` on a mounted file system\n");
		return -1;
	}
	if (runner_check_dir(rn->a.dir, err, sizeof(err))) {
		fprintf(stderr, "scalebench matrix: %s\n", err);
		return -1;
	}
	return 0;
}

/* --dev (and --loop-buffered) as a dev_kind; -1 said on stderr. */
static int matrix_device(const char *dev, int buffered)
{
	int dk = -1;
	for (int k = 0; dev_names[k]; k++)
		if (!strcmp(dev, dev_names[k]))
			dk = k;
	if (dk < 0) {
		fprintf(stderr, "scalebench matrix: --dev: unknown device type '%s' (loop, loop-buffered, "
				"zram, dm-linear, dm-crypt, dm-delay)\n", dev);
		return -1;
	}
	if (buffered && dk == DEV_LOOP)
		dk = DEV_LOOP_BUFFERED;
	return dk;
}

/* Each image's size (--image-size or the benches' need, why in size_why), checked against --dir's free space. */
static int matrix_image_size(const struct runner *rn, const char *image_size, uint64_t *sizep,
			     char *size_why, size_t whylen)
{
	uint64_t size = image_size ? fs_size_parse(image_size) : 0;
	if (image_size && size < 16 * MIB) {
		fprintf(stderr, "scalebench matrix: --image-size: '%s' is not a size of at least 16M\n",
			image_size);
		return -1;
	}
	if (!size)
		size = default_image_size(rn, size_why, whylen);
	struct statvfs sv;
	if (statvfs(rn->a.dir, &sv) == 0 && (uint64_t)sv.f_bavail * sv.f_frsize < size + 64 * MIB) {
		fprintf(stderr, "scalebench matrix: --dir %s has %llu MiB free; an image needs %llu MiB "
				"(%s; set --image-size or --dir)\n", rn->a.dir,
			(unsigned long long)((uint64_t)sv.f_bavail * sv.f_frsize / MIB),
			(unsigned long long)(size / MIB), size_why);
		return -1;
	}
	*sizep = size;
	return 0;
}

/* What every file system's sweep shares. */
struct matrix_run {
	struct runner *rn;
	struct jobplan *plan;
	const char *scratch, *fuse_opts, *size_why;
	uint64_t size;
	enum dev_kind dk;
	int fresh;
};

/* One file system: made, swept (or skipped with why), torn down, recorded as a target. */
static void matrix_one_fs(const struct matrix_run *mr, struct fs_spec *f, int i, int *exit_code)
{
	struct runner *rn = mr->rn;
	struct made m;
	memset(&m, 0, sizeof(m));
	char why[1024] = "";
	json_t *info = json_pack("{s:s,s:s,s:s,s:I,s:s,s:s}", "type", f->type, "mkfs_options",
				 f->mkfs_opts, "mount_options", f->mount_opts,
				 "size_bytes", (json_int_t)mr->size, "size_from", mr->size_why, "dev",
				 strcmp(f->type, "tmpfs") ? dev_names[mr->dk] : "none (tmpfs)");
	uint64_t t0 = clock_ns();
	if (bring_up(f, i, mr->scratch, mr->size, mr->dk, info, &m, why, sizeof(why))) {
		json_object_set_new(info, "skipped", json_string(why));
		if (!rn->a.quiet)
			fprintf(stderr, "scalebench matrix: %s skipped: %s\n", f->label, why);
	} else if (f->fuse && fuse_up(mr->fuse_opts, mr->scratch, info, &m, why, sizeof(why))) {
		json_object_set_new(info, "skipped", json_string(why));
		if (!rn->a.quiet)
			fprintf(stderr, "scalebench matrix: %s skipped: %s\n", f->label, why);
	} else {
		struct fresh fr = {.f = f, .idx = i, .scratch = mr->scratch, .fuse_opts = mr->fuse_opts,
				   .size = mr->size, .dk = mr->dk, .info = info, .m = &m, .made = 1};
		rn->renew = mr->fresh ? renew : NULL;
		rn->renew_ctx = &fr;
		const char *at = f->fuse ? m.fmnt : m.mnt;
		int ec = mr->plan->nsec ? jobrun_sweep(rn, mr->plan, at, f->label)
					: runner_sweep(rn, at, f->label);
		if (ec > *exit_code)
			*exit_code = ec;
		if (mr->fresh)
			json_object_set_new(info, "fresh",
					    json_pack("{s:s,s:i,s:f}", "per", "repetition", "made", fr.made,
						      "remake_s", (double)fr.ns / 1e9));
	}
	int td = tear_down(&m);
	if (td) {
		fprintf(stderr, "scalebench matrix: %s: cleanup: %s\n", f->label, strerror(-td));
		*exit_code = EXIT_RUNTIME;
	}
	json_object_set_new(info, "wall_s", json_real((double)(clock_ns() - t0) / 1e9));
	set_target(rn, f->label, info);
	json_decref(info);
}

int cmd_matrix(int argc, char **argv, int full_argc, char **full_argv)
{
	struct runner rn;
	runner_defaults(&rn, "matrix");
	const char *fs_list = "ext2,ext3,ext4,xfs,btrfs,tmpfs", *image_size = NULL, *fuse_opts = NULL,
		   *dev = "loop";
	int buffered = 0, fresh = 0;
	const struct opt opts[] = {
		{"fs", 0, OPT_STR, "LIST", "file systems, comma-separated (default ext2,ext3,ext4,xfs,btrfs,tmpfs)", 0, 0, NULL, &fs_list, NULL},
		{"image-size", 0, OPT_STR, "SIZE", "size of each image (and tmpfs), e.g. 2G (default: twice what the selected benches need with the -p and --max-n given, + 256M, at least 512M)", 0, 0, NULL, &image_size, NULL},
		{"dir", 'd', OPT_STR, "PATH", "where the images and mount points are made (default $TMPDIR or /tmp)", 0, 0, NULL, &rn.a.dir, NULL},
		{"fuse-options", 0, OPT_STR, "OPTS", "bindfs -o options for the TYPE+fuse file systems (default none: bindfs's own, single-threaded)", 0, 0, NULL, &fuse_opts, NULL},
		{"dev", 0, OPT_STR, "TYPE", "block device under the file systems: loop (direct I/O to the image, default), loop-buffered, zram (a RAM block device hot-added for the run), dm-linear, dm-crypt, dm-delay (skipped with the reason where the kernel has no device-mapper)", 0, 0, NULL, &dev, NULL},
		{"loop-buffered", 0, OPT_FLAG, NULL, "loop devices without direct I/O (the image is then cached twice)", 0, 0, NULL, &buffered, NULL},
		{"fresh", 0, OPT_FLAG, NULL, "a new file system (mkfs and mount again) for every repetition of every bench, so that none inherits what the one before left (ext2 and ext4 without a journal do not reuse recently deleted inodes)", 0, 0, NULL, &fresh, NULL},
		RUNNER_OPTS(rn.a),
		{0},
	};
	char err[1536], *pos[MAX_SELECT];
	int npos;
	int orc = opt_command("matrix", opts, argc, argv, pos, MAX_SELECT, &npos, &rn.a.help, usage);
	if (orc != OPT_GO)
		return orc;
	struct fs_spec fs[FS_SPEC_MAX];
	int nfs, dk = -1;
	struct jobplan plan = {0};
	int urc = matrix_words(&plan, pos, &npos, opts, &rn, argc, argv, err, sizeof(err));
	if (urc)
		return urc;
	uint64_t size = 0;
	char size_why[256] = "--image-size";
	if (matrix_prepare(&rn, fs_list, fs, &nfs, pos, npos) || (dk = matrix_device(dev, buffered)) < 0 ||
	    matrix_image_size(&rn, image_size, &size, size_why, sizeof(size_why))) {
		json_decref(rn.over);
		jobrun_free(&plan);
		return EXIT_USAGE;
	}
	if (runner_start(&rn, full_argc, full_argv)) {
		fprintf(stderr, "scalebench matrix: cannot start: out of memory or signals\n");
		int rc0 = runner_finish(&rn, EXIT_RUNTIME);
		jobrun_free(&plan);
		return rc0;
	}
	rn.r.job = plan.doc ? json_incref(plan.doc) : NULL;
	char scratch[4096];
	int rc = reg_mkscratch(rn.a.dir, "scalebench-matrix", scratch, sizeof(scratch));
	if (rc) {
		fprintf(stderr, "scalebench matrix: %s: cannot make a scratch directory: %s\n", rn.a.dir,
			strerror(-rc));
		int rc0 = runner_finish(&rn, EXIT_RUNTIME);
		jobrun_free(&plan);
		return rc0;
	}
	struct matrix_run mr = {.rn = &rn, .plan = &plan, .scratch = scratch, .fuse_opts = fuse_opts,
				.size_why = size_why, .size = size, .dk = (enum dev_kind)dk, .fresh = fresh};
	int exit_code = EXIT_OK;
	for (int i = 0; i < nfs && !reg_stop_requested(); i++)
		matrix_one_fs(&mr, &fs[i], i, &exit_code);
	exit_code = runner_finish(&rn, exit_code);
	jobrun_free(&plan);
	return exit_code;
}
