/* SPDX-License-Identifier: MIT */
/* The matrix's file-system list: "TYPE[+fuse][:MKFS OPTIONS][@MOUNT OPTIONS],..."
 * split at the commas that start a known file-system name (mount options
 * hold commas), and image sizes such as "512M". "+fuse": the benches run
 * through a pass-through FUSE file system (bindfs) mounted over the base
 * one. Unit-tested on its own. */
#ifndef SB_FSSPEC_H
#define SB_FSSPEC_H

#include <stddef.h>
#include <stdint.h>

#define FS_SPEC_MAX 16

struct fs_spec {
	char label[160];  /* as given: "ext4:-O ^dir_index@noatime" */
	char type[16];    /* "ext4" */
	char mkfs_opts[128], mount_opts[128];
	int fuse;         /* "+fuse": bindfs over the mounted base */
};

/* 0 and *nfs specs, or -1 with a one-line message in err. */
int fs_spec_parse(const char *list, struct fs_spec *fs, int *nfs, char *err, size_t errlen);
/* "512M", "2G", "1073741824", "1GiB": bytes; 0 if malformed or zero. */
uint64_t fs_size_parse(const char *s);

#endif
