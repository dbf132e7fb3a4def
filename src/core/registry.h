/* SPDX-License-Identifier: MIT */
/* Registry of every resource a run creates, so that all of it is removed
 * on normal exit, on error and on SIGINT/SIGTERM/SIGHUP.
 *
 * Files and directories: only the scratch roots registered here are ever
 * removed, recursively, without following symbolic links and without
 * crossing into other file systems. Processes are killed (SIGKILL) and
 * reaped; descriptors closed; mappings unmapped. Signals only set
 * reg_interrupted; loops poll it through reg_stop_requested().
 *
 * reg_add_*: registering takes the resource over. It fails only when the
 * registry's memory cannot grow (-ENOMEM); then it releases the resource
 * at once (kills and reaps the process, closes, unmaps, unmounts,
 * detaches, removes) rather than leave one that Ctrl-C would leak. Every
 * caller checks the result and, on failure, forgets the resource (never
 * releases it again) and fails its setup with that errno
 * (docs/architecture.md). */
#ifndef SB_REGISTRY_H
#define SB_REGISTRY_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

extern volatile sig_atomic_t reg_interrupted; /* signal number, 0 if none */

int reg_init(void); /* install handlers; 0 or -errno */
static inline int reg_stop_requested(void) { return reg_interrupted != 0; }

/* Scratch directories: mkdtemp(parent/prefix.XXXXXX), registered. */
int reg_mkscratch(const char *parent, const char *prefix, char *out, size_t outlen);
int reg_remove_tree(const char *path); /* remove now, unregister; 0 or -errno */

int reg_add_pid(pid_t pid);
int reg_kill_pid(pid_t pid);   /* SIGKILL + waitpid + unregister */
void reg_forget_pid(pid_t pid); /* already reaped by the caller */
int reg_add_fd(int fd);
int reg_close_fd(int fd);      /* close + unregister */
int reg_add_map(void *addr, size_t len);
int reg_unmap(void *addr, size_t len);

/* The matrix: a mount point, a loop device and an image file that this
 * process created (never anything else). Cleanup unmounts first, then
 * detaches, then deletes, then removes the scratch roots. */
int reg_add_mount(const char *dir);
int reg_umount(const char *dir);       /* sys_umount + unregister */
int reg_add_loop(const char *dev);
int reg_detach_loop(const char *dev);  /* sys_loop_detach + unregister */
/* A zram device this process hot-added (matrix --dev zram): reset and
 * hot-removed after the mounts. */
int reg_add_zram(const char *dev);
int reg_remove_zram(const char *dev);  /* sys_zram_remove + unregister */
int reg_add_file(const char *path);
int reg_remove_file(const char *path); /* unlink + unregister */

/* A cgroup this process made (--mem-limit): removed after every process
 * is killed and reaped. */
int reg_add_cgroup(const char *path);
int reg_remove_cgroup(const char *path); /* sys_memcg_remove + unregister */

size_t reg_count(void);  /* resources currently held (for tests/debug) */
void reg_cleanup(void);  /* release everything; idempotent */

#endif
