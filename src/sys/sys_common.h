/* SPDX-License-Identifier: MIT */
/* Helpers shared by sys_linux.c and sys_posix.c. POSIX interfaces only:
 * this file and sys_common.c are compiled in both builds. Internal to
 * src/sys/. */
#ifndef SB_SYS_COMMON_H
#define SB_SYS_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* Reason used by the POSIX build for everything POSIX cannot tell. */
#define SB_NOT_POSIX "not available through POSIX interfaces"

/* Upper bound of a descriptor probe, whatever the limits say. */
#define SB_FD_PROBE_CAP (1L << 20)

/* {"unavailable": "<printf-formatted reason>"}. Never NULL. */
#ifdef __GNUC__
json_t *sb_unavailable(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
#else
json_t *sb_unavailable(const char *fmt, ...);
/* argv0 as an absolute path to an executable: realpath of it when it
 * holds a slash, otherwise the first match in PATH. 0, or -errno. */
int sb_exe_from_argv0(const char *argv0, char *out, size_t len);

#endif

/* A JSON string of the n bytes at s; bytes that are not valid UTF-8 (or
 * are NUL) are replaced by '?'. Never NULL. */
json_t *sb_jstrn(const char *s, size_t n);
json_t *sb_jstr(const char *s);

/* json_object_set_new that never leaves a key missing: a NULL value
 * becomes {"unavailable": "internal error: value not built"}. */
void sb_set(json_t *obj, const char *key, json_t *val);

/* Read a whole small file (at most max bytes; more is truncated) into a
 * malloc'd NUL-terminated buffer. On failure returns NULL and writes
 * "open PATH: strerror" (or "read ...") into err. */
char *sb_read_file(const char *path, size_t max, size_t *len, char *err,
		   size_t errlen);

/* Contents of a one-value file (sysfs, procfs), trailing white space
 * removed: an integer if it is one, an array of integers if it is several
 * separated by white space, else a string; {"unavailable": reason} if the
 * file cannot be read. */
json_t *sb_file_value(const char *path);

/* Same, always as a (trimmed) string. */
json_t *sb_file_string(const char *path);

/* Strip trailing white space in place; returns s. */
char *sb_rtrim(char *s);

/* {"nofile": {"soft": N|"unlimited", "hard": ...}, "nproc", "as",
 * "memlock", "stack", "core"}. */
json_t *sb_rlimits_json(void);

/* Descriptors open below bound, found with fcntl(F_GETFD) (allocates no
 * descriptor). bound <= 0 or above SB_FD_PROBE_CAP means SB_FD_PROBE_CAP. */
int sb_probe_fds(long bound);

/* The soft RLIMIT_NOFILE as a probe bound (capped). */
long sb_nofile_bound(void);

/* statvfs figures of path: block_size, fragment_size, total/free/available
 * bytes, total/free/available inodes, name_max, read_only, nosuid. */
json_t *sb_statvfs_json(const char *path);

/* 64-bit FNV-1a of n bytes. */
uint64_t sb_fnv1a64(const void *p, size_t n);

/* gethostname() as a JSON string, or {"unavailable": reason}. */
json_t *sb_hostname_json(void);

/* ---- text and file helpers (generic; used by the /proc, /sys reader) */

/* Value of the first line "key<blanks>:<blanks>value" of text, trimmed
 * (/proc/cpuinfo, /proc/meminfo, /proc/PID/status). 1 if found. */
int sb_text_field(const char *text, const char *key, char *out,
		  size_t outlen);

/* Such a field as a number; "N kB" is returned in bytes. 1 if found. */
int sb_kb_field(const char *text, const char *key, long long *v);

/* {key: sb_kb_field} of the file at path for each key of the NULL-ended
 * list; a key not in the file becomes {"unavailable": reason}. */
json_t *sb_kb_fields(const char *path, const char *const *keys);

/* Value of a line "NAME=value" (a kernel config), quotes removed. */
int sb_assign_get(const char *text, const char *name, char *out,
		  size_t outlen);

/* 1 if w occurs in text as a blank-separated word. */
int sb_has_word(const char *text, const char *w);

/* Decode \NNN octal escapes (as in /proc/self/mountinfo) in place. */
void sb_unescape_octal(char *s);

/* The entries of a directory: an array of names, or (with_values) an
 * object {name: trimmed contents}. */
json_t *sb_dir_json(const char *dir, int with_values);

/* {name: sb_file_value(dir/name)} for each name of a NULL-ended list. */
json_t *sb_files_json(const char *dir, const char *const *names);

/* The last (at most) lines lines of the n bytes at text, as an array of
 * strings without their line ends. */
json_t *sb_tail_lines(const char *text, size_t n, int lines);

/* Standard output of a shell command (popen), at most max bytes, NUL
 * terminated; NULL with a reason in err if it fails or exits non-zero. */
char *sb_read_command(const char *cmd, size_t max, size_t *len, char *err,
		      size_t errlen);

/* argv0 as an absolute path to an executable: realpath of it when it
 * holds a slash, otherwise the first match in PATH. 0, or -errno. */
int sb_exe_from_argv0(const char *argv0, char *out, size_t len);

#endif
