/* SPDX-License-Identifier: MIT */
/* The matrix's --fs list and --image-size, table-driven. */
#include <string.h>
#include "cmd/fsspec.h"
#include "t.h"

struct want { const char *label, *type, *mkfs, *mount; int fuse; };

static const struct {
	const char *list;
	int n; /* -1: rejected */
	struct want w[4];
	const char *err; /* part of the message when rejected */
} cases[] = {
	{"ext4", 1, {{"ext4", "ext4", "", "", 0}}, NULL},
	{"ext2,ext3,ext4,xfs,btrfs,tmpfs", 6, {{"ext2", "ext2", "", "", 0}, {"ext3", "ext3", "", "", 0}}, NULL},
	{"ext4:-O ^dir_index", 1, {{"ext4:-O ^dir_index", "ext4", "-O ^dir_index", "", 0}}, NULL},
	{"ext4@noatime", 1, {{"ext4@noatime", "ext4", "", "noatime", 0}}, NULL},
	{"ext4,ext4:-O ^dir_index,ext4@noatime,nodiratime,xfs", 4,
	 {{"ext4", "ext4", "", "", 0}, {"ext4:-O ^dir_index", "ext4", "-O ^dir_index", "", 0},
	  {"ext4@noatime,nodiratime", "ext4", "", "noatime,nodiratime", 0}, {"xfs", "xfs", "", "", 0}}, NULL},
	{"xfs:-m crc=0@nouuid", 1, {{"xfs:-m crc=0@nouuid", "xfs", "-m crc=0", "nouuid", 0}}, NULL},
	{"tmpfs@size=64m,mode=700", 1, {{"tmpfs@size=64m,mode=700", "tmpfs", "", "size=64m,mode=700", 0}}, NULL},
	{"ext4,ext4+fuse,tmpfs+fuse@size=64m,mode=700", 3,
	 {{"ext4", "ext4", "", "", 0}, {"ext4+fuse", "ext4", "", "", 1},
	  {"tmpfs+fuse@size=64m,mode=700", "tmpfs", "", "size=64m,mode=700", 1}}, NULL},
	{"ext4+fuse:-O ^dir_index@noatime", 1,
	 {{"ext4+fuse:-O ^dir_index@noatime", "ext4", "-O ^dir_index", "noatime", 1}}, NULL},
	{"ext4+fusex", -1, {{0}}, "unknown layer '+fusex'"},
	{"ext4+nfs,xfs", -1, {{0}}, "unknown layer '+nfs'"},
	{"ext4,ext4+fuse,ext4+fuse", -1, {{0}}, "given twice"},
	{"ext9", -1, {{0}}, "unknown file system 'ext9'"},
	{"ext4,zfs", -1, {{0}}, "unknown file system 'zfs'"},
	{"ext4,ext4", -1, {{0}}, "given twice"},
	{"", -1, {{0}}, "no file system"},
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fs_spec fs[FS_SPEC_MAX];
		int n = -2;
		char err[256] = "";
		int rc = fs_spec_parse(cases[i].list, fs, &n, err, sizeof(err));
		if (cases[i].n < 0) {
			CHECK(rc == -1 && strstr(err, cases[i].err), "'%s' rejected: '%s'", cases[i].list, err);
			continue;
		}
		CHECK(rc == 0 && n == cases[i].n, "'%s': %d specs (%s)", cases[i].list, n, err);
		for (int k = 0; k < n && k < 4 && cases[i].w[k].label; k++) {
			const struct want *w = &cases[i].w[k];
			CHECK(!strcmp(fs[k].label, w->label) && !strcmp(fs[k].type, w->type) &&
				      !strcmp(fs[k].mkfs_opts, w->mkfs) && !strcmp(fs[k].mount_opts, w->mount) && fs[k].fuse == w->fuse,
			      "'%s' #%d: label '%s' type '%s' mkfs '%s' mount '%s' fuse %d", cases[i].list, k,
			      fs[k].label, fs[k].type, fs[k].mkfs_opts, fs[k].mount_opts, fs[k].fuse);
		}
	}
	static const struct { const char *s; uint64_t v; } sizes[] = {
		{"512M", 512ull << 20}, {"2G", 2ull << 30}, {"1GiB", 1ull << 30}, {"64k", 64ull << 10},
		{"1048576", 1048576}, {"1T", 1ull << 40}, {"0", 0}, {"", 0}, {"1Q", 0}, {"-1G", 0},
		{"M", 0}, {"99999999999999999999G", 0},
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		CHECK(fs_size_parse(sizes[i].s) == sizes[i].v, "size '%s' = %llu", sizes[i].s,
		      (unsigned long long)fs_size_parse(sizes[i].s));
	return t_done("fsspec");
}
