/* SPDX-License-Identifier: MIT */
/* The matrix's file-system specs and sizes: see fsspec.h. */
#include "cmd/fsspec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const known_fs[] = {"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", NULL};

static int known(const char *s, size_t len)
{
	for (int i = 0; known_fs[i]; i++)
		if (strlen(known_fs[i]) == len && !strncmp(known_fs[i], s, len))
			return 1;
	return 0;
}

static size_t type_len(const char *s) { return strcspn(s, ":@,+"); }

/* "+fuse" right after the type, followed by the end, ':', '@' or ','. */
static int fuse_suffix(const char *s) { return !strncmp(s, "+fuse", 5) && strchr(":@,", s[5]); }

/* "ext4:-O ^dir_index@noatime,nodiratime,xfs": split on commas, except
 * that, after an '@', a piece not starting with a file-system name
 * continues the mount options (they hold commas). */
int fs_spec_parse(const char *list, struct fs_spec *fs, int *nfs, char *err, size_t errlen)
{
	*nfs = 0;
	const char *p = list;
	while (*p) {
		size_t tl = type_len(p);
		if (!known(p, tl)) {
			snprintf(err, errlen, "--fs: unknown file system '%.*s' (ext2, ext3, ext4, xfs, btrfs, tmpfs)",
				 (int)tl, p);
			return -1;
		}
		int fuse = p[tl] == '+';
		if (fuse && !fuse_suffix(p + tl)) {
			snprintf(err, errlen, "--fs: unknown layer '%.*s' after %.*s (only +fuse)",
				 (int)strcspn(p + tl, ":@,"), p + tl, (int)tl, p);
			return -1;
		}
		const char *end = p + tl + (fuse ? 5 : 0);
		for (;;) { /* to the next comma that starts a known file system */
			const char *c = strchr(end, ',');
			if (!c) {
				end += strlen(end);
				break;
			}
			if (known(c + 1, type_len(c + 1))) {
				end = c;
				break;
			}
			if (!memchr(p, '@', (size_t)(c - p))) { /* not within mount options */
				snprintf(err, errlen, "--fs: unknown file system '%.*s' (ext2, ext3, ext4, xfs, btrfs, tmpfs)",
					 (int)type_len(c + 1), c + 1);
				return -1;
			}
			end = c + 1;
		}
		if (*nfs >= FS_SPEC_MAX) {
			snprintf(err, errlen, "--fs: at most %d file systems", FS_SPEC_MAX);
			return -1;
		}
		struct fs_spec *f = &fs[(*nfs)++];
		memset(f, 0, sizeof(*f));
		snprintf(f->label, sizeof(f->label), "%.*s", (int)(end - p), p);
		snprintf(f->type, sizeof(f->type), "%.*s", (int)tl, p);
		f->fuse = fuse;
		char *at = strchr(f->label, '@'), *colon = strchr(f->label, ':');
		if (at)
			snprintf(f->mount_opts, sizeof(f->mount_opts), "%s", at + 1);
		if (colon && (!at || colon < at))
			snprintf(f->mkfs_opts, sizeof(f->mkfs_opts), "%.*s",
				 (int)((at ? at : colon + strlen(colon)) - colon - 1), colon + 1);
		for (int k = 0; k < *nfs - 1; k++)
			if (!strcmp(fs[k].label, f->label)) {
				snprintf(err, errlen, "--fs: '%.100s' given twice", f->label);
				return -1;
			}
		p = *end ? end + 1 : end;
	}
	if (*nfs == 0) {
		snprintf(err, errlen, "--fs: no file system given");
		return -1;
	}
	return 0;
}

/* "512M", "2G", "1073741824": bytes, or 0 if malformed. */
uint64_t fs_size_parse(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	uint64_t mul = 1;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	case 't': case 'T': mul = 1ull << 40; end++; break;
	default: break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (end == s || *end || v == 0 || v > UINT64_MAX / mul)
		return 0;
	return v * mul;
}

