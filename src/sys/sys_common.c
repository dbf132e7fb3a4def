/* SPDX-License-Identifier: MIT */
/* Shared, OS-independent parts of src/sys/: POSIX interfaces only. */
#include "sys/sys_common.h"
#include "sys/sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

json_t *sb_unavailable(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	json_t *o = json_object();

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!msg[0])
		snprintf(msg, sizeof msg, "unknown reason");
	if (o)
		json_object_set_new(o, "unavailable", sb_jstr(msg));
	return o;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid.
 * Same rules as jansson: no overlongs, no surrogates, max U+10FFFF. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned long cp;

	if (s[0] == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

json_t *sb_jstrn(const char *s, size_t n)
{
	json_t *j;
	char *copy;
	size_t i = 0, k;

	if (!s)
		return json_string("");
	if (memchr(s, 0, n) == NULL && (j = json_stringn(s, n)) != NULL)
		return j;
	copy = malloc(n + 1);
	if (!copy)
		return json_string("?");
	memcpy(copy, s, n);
	copy[n] = 0;
	while (i < n) {
		k = utf8_seq((const unsigned char *)copy + i, n - i);
		if (k == 0) {
			copy[i] = '?';
			k = 1;
		}
		i += k;
	}
	j = json_stringn(copy, n);
	if (!j) { /* cannot happen, but never return NULL */
		for (i = 0; i < n; i++)
			if ((unsigned char)copy[i] >= 0x80 || copy[i] == 0)
				copy[i] = '?';
		j = json_stringn(copy, n);
	}
	free(copy);
	return j;
}

json_t *sb_jstr(const char *s)
{
	return sb_jstrn(s, s ? strlen(s) : 0);
}

void sb_set(json_t *obj, const char *key, json_t *val)
{
	if (!obj)
		return;
	if (!val)
		val = sb_unavailable("internal error: value not built");
	json_object_set_new(obj, key, val);
}

/* All of fd (at most max bytes), NUL-terminated; NULL with errno set. */
static char *read_fd_all(int fd, size_t max, size_t *len)
{
	size_t cap = max < 4096 ? max : 4096, n = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t r;

	while (buf) {
		if (n == cap) {
			if (cap >= max)
				break; /* truncated at max */
			cap = cap * 2 > max ? max : cap * 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

char *sb_read_file(const char *path, size_t max, size_t *len, char *err,
		   size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	char *buf;

	if (len)
		*len = 0;
	if (fd < 0) {
		snprintf(err, errlen, "open %s: %s", path, strerror(errno));
		return NULL;
	}
	buf = read_fd_all(fd, max, len);
	e = errno;
	close(fd);
	if (!buf)
		snprintf(err, errlen, "read %s: %s", path, strerror(e));
	return buf;
}

char *sb_read_command(const char *cmd, size_t max, size_t *len, char *err,
		      size_t errlen)
{
	FILE *f = popen(cmd, "r");
	size_t n = 0;
	char *buf;
	int st;

	if (len)
		*len = 0;
	if (!f) {
		snprintf(err, errlen, "popen %s: %s", cmd, strerror(errno));
		return NULL;
	}
	buf = read_fd_all(fileno(f), max, &n);
	st = pclose(f);
	if (st == -1 && errno == ECHILD && buf && n > 0)
		st = 0; /* reaped by someone's SIGCHLD handler: trust output */
	if (!buf || st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		free(buf);
		snprintf(err, errlen, "%s: failed (status %d)", cmd, st);
		return NULL;
	}
	if (len)
		*len = n;
	return buf;
}

char *sb_rtrim(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' ||
			 s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = 0;
	return s;
}

static int parse_ll(const char *tok, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(tok, &end, 10);
	return errno == 0 && end != tok && *end == 0;
}

/* Integer, array of integers, or NULL if text is not all integers. */
static json_t *ints_of(const char *text)
{
	char *copy = strdup(text), *tok, *save = NULL;
	json_t *arr = json_array(), *res = NULL;
	long long v;
	int ok = copy && arr;

	if (ok) {
		for (tok = strtok_r(copy, " \t\n", &save); tok && ok;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			if (parse_ll(tok, &v))
				json_array_append_new(arr, json_integer(v));
			else
				ok = 0;
		}
	}
	if (ok && json_array_size(arr) == 1)
		res = json_incref(json_array_get(arr, 0));
	else if (ok && json_array_size(arr) > 1)
		res = json_incref(arr);
	json_decref(arr);
	free(copy);
	return res;
}

json_t *sb_file_value(const char *path)
{
	char err[512];
	char *buf = sb_read_file(path, 65536, NULL, err, sizeof err);
	json_t *j;

	if (!buf)
		return sb_unavailable("%s", err);
	sb_rtrim(buf);
	j = ints_of(buf);
	if (!j)
		j = sb_jstr(buf);
	free(buf);
	return j;
}

json_t *sb_file_string(const char *path)
{
	char err[512];
	char *buf = sb_read_file(path, 65536, NULL, err, sizeof err);
	json_t *j;

	if (!buf)
		return sb_unavailable("%s", err);
	j = sb_jstr(sb_rtrim(buf));
	free(buf);
	return j;
}

static json_t *rlim_value(rlim_t v)
{
	if (v == RLIM_INFINITY)
		return json_string("unlimited");
	return json_integer((json_int_t)v);
}

json_t *sb_rlimits_json(void)
{
	static const struct {
		const char *name;
		int res; /* -1: not defined on this system */
	} lim[] = {
		{"nofile", RLIMIT_NOFILE},
#ifdef RLIMIT_NPROC
		{"nproc", RLIMIT_NPROC},
#else
		{"nproc", -1},
#endif
		{"as", RLIMIT_AS},
#ifdef RLIMIT_MEMLOCK
		{"memlock", RLIMIT_MEMLOCK},
#else
		{"memlock", -1},
#endif
		{"stack", RLIMIT_STACK},
		{"core", RLIMIT_CORE},
	};
	json_t *o = json_object();
	struct rlimit rl;
	size_t i;

	for (i = 0; i < sizeof lim / sizeof lim[0]; i++) {
		json_t *e;

		if (lim[i].res < 0) {
			sb_set(o, lim[i].name,
			       sb_unavailable("no such limit on this system"));
			continue;
		}
		if (getrlimit(lim[i].res, &rl) != 0) {
			sb_set(o, lim[i].name,
			       sb_unavailable("getrlimit: %s", strerror(errno)));
			continue;
		}
		e = json_object();
		sb_set(e, "soft", rlim_value(rl.rlim_cur));
		sb_set(e, "hard", rlim_value(rl.rlim_max));
		sb_set(o, lim[i].name, e);
	}
	return o;
}

void sys_iso_utc(const struct timespec *t, int digits, char *buf, size_t len)
{
	struct timespec now;
	struct tm tm;
	char base[32];

	if (len == 0)
		return;
	buf[0] = 0;
	if (!t) {
		if (clock_gettime(CLOCK_REALTIME, &now) != 0) {
			snprintf(buf, len, "unknown");
			return;
		}
		t = &now;
	}
	if (!gmtime_r(&t->tv_sec, &tm) || strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		snprintf(buf, len, "unknown");
		return;
	}
	long ns = t->tv_nsec;
	switch (digits) {
	case 3: snprintf(buf, len, "%s.%03ldZ", base, ns / 1000000); break;
	case 6: snprintf(buf, len, "%s.%06ldZ", base, ns / 1000); break;
	case 9: snprintf(buf, len, "%s.%09ldZ", base, ns); break;
	default: snprintf(buf, len, "%sZ", base); break;
	}
}

static uint64_t rlim_u64(rlim_t r) { return r == RLIM_INFINITY ? UINT64_MAX : (uint64_t)r; }

int sys_nofile_get(struct sys_nofile *nf)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	nf->old = nf->soft = rlim_u64(rl.rlim_cur);
	nf->hard = rlim_u64(rl.rlim_max);
	return 0;
}

int sys_nofile_raise(uint64_t want, struct sys_nofile *nf)
{
	struct sys_nofile mine;
	if (!nf)
		nf = &mine;
	int rc = sys_nofile_get(nf);
	if (rc)
		return rc;
	if (want > nf->hard)
		want = nf->hard;
	if (want <= nf->soft)
		return 0;
	struct rlimit rl = {.rlim_cur = want == UINT64_MAX ? RLIM_INFINITY : (rlim_t)want,
			    .rlim_max = nf->hard == UINT64_MAX ? RLIM_INFINITY : (rlim_t)nf->hard};
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	nf->soft = want;
	return 0;
}

int sb_probe_fds(long bound)
{
	long fd;
	int n = 0;

	if (bound <= 0 || bound > SB_FD_PROBE_CAP)
		bound = SB_FD_PROBE_CAP;
	for (fd = 0; fd < bound; fd++)
		if (fcntl((int)fd, F_GETFD) != -1 || errno != EBADF)
			n++;
	return n;
}

long sb_nofile_bound(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (rlim_t)SB_FD_PROBE_CAP)
		return SB_FD_PROBE_CAP;
	return (long)rl.rlim_cur;
}

json_t *sb_statvfs_json(const char *path)
{
	struct statvfs sv;
	unsigned long long fr;
	json_t *o;

	if (statvfs(path, &sv) != 0)
		return sb_unavailable("statvfs %s: %s", path, strerror(errno));
	fr = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	o = json_object();
	sb_set(o, "block_size", json_integer((json_int_t)sv.f_bsize));
	sb_set(o, "fragment_size", json_integer((json_int_t)fr));
	sb_set(o, "total_bytes", json_integer((json_int_t)(sv.f_blocks * fr)));
	sb_set(o, "free_bytes", json_integer((json_int_t)(sv.f_bfree * fr)));
	sb_set(o, "available_bytes",
	       json_integer((json_int_t)(sv.f_bavail * fr)));
	sb_set(o, "total_inodes", json_integer((json_int_t)sv.f_files));
	sb_set(o, "free_inodes", json_integer((json_int_t)sv.f_ffree));
	sb_set(o, "available_inodes", json_integer((json_int_t)sv.f_favail));
	sb_set(o, "name_max", json_integer((json_int_t)sv.f_namemax));
	sb_set(o, "read_only", json_boolean(sv.f_flag & ST_RDONLY));
	sb_set(o, "nosuid", json_boolean(sv.f_flag & ST_NOSUID));
	return o;
}

uint64_t sb_fnv1a64(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

json_t *sb_hostname_json(void)
{
	char name[256]; /* HOST_NAME_MAX is optional in POSIX */

	if (gethostname(name, sizeof name) != 0)
		return sb_unavailable("gethostname: %s", strerror(errno));
	name[sizeof name - 1] = 0;
	return sb_jstr(name);
}

/* ------------------------------------------------ text and file helpers */

int sb_text_field(const char *text, const char *key, char *out, size_t outlen)
{
	size_t klen = strlen(key), n;
	const char *line = text, *p, *end;

	while (line && *line) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (strncmp(line, key, klen) == 0) {
			for (p = line + klen; p < end && (*p == ' ' || *p == '\t');
			     p++)
				;
			if (p < end && *p == ':') {
				for (p++; p < end && (*p == ' ' || *p == '\t');
				     p++)
					;
				n = (size_t)(end - p);
				n = n < outlen ? n : outlen - 1;
				memcpy(out, p, n);
				out[n] = 0;
				sb_rtrim(out);
				return 1;
			}
		}
		line = *end ? end + 1 : NULL;
	}
	return 0;
}

int sb_kb_field(const char *text, const char *key, long long *v)
{
	char val[64], *end;

	if (!sb_text_field(text, key, val, sizeof val))
		return 0;
	errno = 0;
	*v = strtoll(val, &end, 10);
	if (errno || end == val)
		return 0;
	while (*end == ' ')
		end++;
	if (strcmp(end, "kB") == 0)
		*v *= 1024;
	return 1;
}

json_t *sb_kb_fields(const char *path, const char *const *keys)
{
	char err[512];
	char *text = sb_read_file(path, 1 << 20, NULL, err, sizeof err);
	json_t *o;
	long long v;

	if (!text)
		return sb_unavailable("%s", err);
	o = json_object();
	for (; *keys; keys++)
		sb_set(o, *keys, sb_kb_field(text, *keys, &v)
			? json_integer(v)
			: sb_unavailable("no %s in %s", *keys, path));
	free(text);
	return o;
}

int sb_assign_get(const char *text, const char *name, char *out,
		  size_t outlen)
{
	size_t nlen = strlen(name), n;
	const char *p = text, *end;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[nlen] == '=') {
			p += nlen + 1;
			end = strchr(p, '\n');
			n = end ? (size_t)(end - p) : strlen(p);
			if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
				p++;
				n -= 2;
			}
			n = n < outlen ? n : outlen - 1;
			memcpy(out, p, n);
			out[n] = 0;
			return 1;
		}
		p += nlen;
	}
	return 0;
}

int sb_has_word(const char *text, const char *w)
{
	size_t n = strlen(w);
	const char *p = text;

	while ((p = strstr(p, w)) != NULL) {
		if ((p == text || strchr(" \t\n", p[-1])) &&
		    (p[n] == 0 || strchr(" \t\n", p[n])))
			return 1;
		p += n;
	}
	return 0;
}

void sb_unescape_octal(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

json_t *sb_dir_json(const char *dir, int with_values)
{
	char path[4096];
	struct dirent *e;
	json_t *res;
	DIR *d = opendir(dir);

	if (!d)
		return sb_unavailable("opendir %s: %s", dir, strerror(errno));
	res = with_values ? json_object() : json_array();
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (with_values)
			sb_set(res, e->d_name, sb_file_string(path));
		else
			json_array_append_new(res, sb_jstr(e->d_name));
	}
	closedir(d);
	return res;
}

json_t *sb_files_json(const char *dir, const char *const *names)
{
	json_t *o = json_object();
	char path[4096];

	for (; *names; names++) {
		snprintf(path, sizeof path, "%s/%s", dir, *names);
		sb_set(o, *names, sb_file_value(path));
	}
	return o;
}

json_t *sb_tail_lines(const char *text, size_t n, int lines)
{
	size_t start, i, e;
	json_t *a = json_array();
	int seen = 0;

	while (n > 0 && text[n - 1] == '\n')
		n--;
	for (start = n; start > 0; start--)
		if (text[start - 1] == '\n' && ++seen == lines)
			break;
	for (i = start; i < n; i = e + 1) {
		for (e = i; e < n && text[e] != '\n'; e++)
			;
		json_array_append_new(a, sb_jstrn(text + i, e - i));
	}
	return a;
}

static int is_program(const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EACCES;
	return access(path, X_OK) ? -errno : 0;
}

int sb_exe_from_argv0(const char *argv0, char *out, size_t len)
{
	char buf[PATH_MAX], real[PATH_MAX];
	if (!argv0 || !*argv0)
		return -ENOENT;
	if (strchr(argv0, '/')) {
		snprintf(buf, sizeof(buf), "%s", argv0);
	} else {
		const char *path = getenv("PATH");
		int found = 0;
		while (path && *path && !found) {
			size_t l = strcspn(path, ":");
			int n = snprintf(buf, sizeof(buf), "%.*s/%s", (int)l, l ? path : ".", argv0);
			found = n > 0 && (size_t)n < sizeof(buf) && is_program(buf) == 0;
			path += l + (path[l] == ':');
		}
		if (!found)
			return -ENOENT;
	}
	if (!realpath(buf, real))
		return -errno;
	int rc = is_program(real);
	if (rc)
		return rc;
	if (strlen(real) >= len)
		return -ENAMETOOLONG;
	snprintf(out, len, "%s", real);
	return 0;
}

int sys_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int sys_cpulist_parse(const char *s, unsigned char *set, int max)
{
	int count = 0;
	const char *p = s;
	memset(set, 0, (size_t)max);
	if (!s || !*s)
		return -1;
	while (*p) {
		char *end;
		if (*p < '0' || *p > '9')
			return -1;
		long a = strtol(p, &end, 10), b = a;
		if (a >= max)
			return -1;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -1;
			b = strtol(p, &end, 10);
			if (b < a || b >= max)
				return -1;
		}
		for (long c = a; c <= b; c++)
			if (!set[c]) {
				set[c] = 1;
				count++;
			}
		if ((*end == ',' || *end == '+') && end[1])
			end++;
		else if (*end && *end != '\n')
			return -1;
		else if (*end == '\n' && end[1])
			return -1;
		p = *end == '\n' ? end + 1 : end;
	}
	return count;
}

uint64_t sys_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* In a child: close every descriptor inherited from the parent but keep
 * (and 0-2), so that the parent's held connections neither count against
 * the child's limit nor stay open through it. */
void sys_close_inherited(int keep)
{
	struct sys_nofile nf;
	uint64_t top = sys_nofile_get(&nf) == 0 && nf.soft != UINT64_MAX ? nf.soft : 65536;
	if (top > (1u << 20))
		top = 1u << 20;
	for (long fd = 3; fd < (long)top; fd++)
		if (fd != keep)
			close((int)fd);
}
