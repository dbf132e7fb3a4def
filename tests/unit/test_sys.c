/* SPDX-License-Identifier: MIT */
/* Unit tests of src/sys/: the snapshot, the first-failure state (also
 * after EMFILE), the file-system type, the open-descriptor count. Built
 * both natively and with POSIX_ONLY=1 (SB_POSIX_ONLY). */
#include "sys/sys.h"
#include "sys/sys_common.h"
#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const snap_keys[] = {
	"impl", "time", "kernel", "cpu", "memory", "virtualization",
	"clocksource", "filesystem", "sysctls", "limits", "uid", "hostname",
	"loadavg", NULL};
static const char *const fail_keys[] = {
	"impl", "time", "kernel_log_tail", "meminfo", "pressure", "loadavg",
	"processes", "open_fds", "file_nr", "self_status", "limits", NULL};

/* Every {"unavailable": ...} must be exactly that one key with a
 * non-empty string reason, and no value may be null. Returns the number
 * of bad nodes; *reasons counts the reason objects. */
static int bad_nodes(json_t *j, const char *path, int *reasons)
{
	char sub[512];
	const char *key;
	json_t *v, *u;
	size_t i;
	int bad = 0;

	if (!j || json_is_null(j)) {
		fprintf(stderr, "  null value at %s\n", path);
		return 1;
	}
	if (json_is_object(j)) {
		u = json_object_get(j, "unavailable");
		if (u) {
			(*reasons)++;
			if (!json_is_string(u) || !json_string_length(u) ||
			    json_object_size(j) != 1) {
				fprintf(stderr, "  bad reason at %s\n", path);
				return 1;
			}
			return 0;
		}
		json_object_foreach(j, key, v) {
			snprintf(sub, sizeof sub, "%s.%s", path, key);
			bad += bad_nodes(v, sub, reasons);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			snprintf(sub, sizeof sub, "%s[%zu]", path, i);
			bad += bad_nodes(v, sub, reasons);
		}
	}
	return bad;
}

static int has_keys(json_t *o, const char *const *keys)
{
	int ok = json_is_object(o);

	for (; ok && *keys; keys++)
		if (!json_object_get(o, *keys)) {
			fprintf(stderr, "  missing key %s\n", *keys);
			ok = 0;
		}
	return ok;
}

static const char *reason_of(json_t *o)
{
	return json_string_value(json_object_get(o, "unavailable"));
}

static int dumps_ok(json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);
	int ok = s != NULL && strlen(s) > 2;

	free(s);
	return ok;
}

static void test_cpulist(void)
{
	unsigned char set[SYS_MAX_CPUS];
	CHECK(sys_cpulist_parse("0", set, SYS_MAX_CPUS) == 1 && set[0] && !set[1], "cpulist 0");
	CHECK(sys_cpulist_parse("0-3,6", set, SYS_MAX_CPUS) == 5 && set[3] && !set[4] && set[6],
	      "cpulist 0-3,6");
	CHECK(sys_cpulist_parse("1,1,0-1", set, SYS_MAX_CPUS) == 2, "cpulist counts a CPU once");
	CHECK(sys_cpulist_parse("0-1\n", set, SYS_MAX_CPUS) == 2, "cpulist as sysfs writes it");
	CHECK(sys_cpulist_parse("2+0", set, SYS_MAX_CPUS) == 2 && set[0] && !set[1] && set[2],
	      "cpulist with + as a parameter writes it");
	static const char *const bad[] = {"", "x", "1-", "-1", "3-1", "0,", "0,,1", "0+", "0+,1", "1 2", "0-1\n2",
					  "99999", NULL};
	for (const char *const *b = bad; *b; b++)
		CHECK(sys_cpulist_parse(*b, set, SYS_MAX_CPUS) == -1, "cpulist '%s' refused", *b);
	CHECK(sys_cpulist_parse("4", set, 4) == -1, "cpulist beyond max refused");
	unsigned char on[SYS_MAX_CPUS];
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int k = sys_cpus_online(on, SYS_MAX_CPUS);
	CHECK(k >= 1 && k == n, "online CPUs %d (sysconf %ld)", k, n);
	json_t *rt = sys_rt_json();
	CHECK(json_is_object(rt), "rt snapshot is an object");
#ifndef SB_POSIX_ONLY
	CHECK(json_object_get(rt, "isolated_cpus") && json_object_get(rt, "cpu_dma_latency") &&
	      json_object_get(rt, "realtime") && json_object_get(rt, "tracing"), "rt snapshot keys");
#endif
	json_decref(rt);
}

static void test_snapshot(void)
{
	json_t *s = sys_snapshot("/tmp"), *fs, *k;
	int reasons = 0;

	CHECK(json_is_object(s), "snapshot is an object");
	CHECK(has_keys(s, snap_keys), "snapshot has all top-level keys");
	CHECK(bad_nodes(s, "snapshot", &reasons) == 0,
	      "every missing value is a reason object");
	CHECK(dumps_ok(s), "snapshot dumps");
	CHECK(strcmp(json_string_value(json_object_get(s, "impl")),
		     sys_impl()) == 0, "impl is %s", sys_impl());
	k = json_object_get(s, "kernel");
	CHECK(json_is_string(json_object_get(k, "release")),
	      "kernel release is known");
	CHECK(json_is_object(json_object_get(json_object_get(s, "limits"),
					     "nofile")),
	      "limits has nofile");
	fs = json_object_get(s, "filesystem");
	CHECK(json_is_object(fs) && json_is_object(json_object_get(fs,
								   "statvfs")),
	      "filesystem has statvfs figures");
	CHECK(json_integer_value(json_object_get(json_object_get(fs,
			"statvfs"), "total_bytes")) > 0,
	      "statvfs total_bytes > 0");
#ifdef SB_POSIX_ONLY
	CHECK(reasons > 5, "posix snapshot says what it cannot tell (%d)",
	      reasons);
	CHECK(reason_of(json_object_get(fs, "type")) &&
	      strstr(reason_of(json_object_get(fs, "type")), "POSIX"),
	      "posix: file system type unavailable through POSIX");
#else
	CHECK(strcmp(json_string_value(json_object_get(k, "sysname")),
		     "Linux") == 0, "sysname Linux");
	CHECK(json_is_string(json_object_get(fs, "type")),
	      "linux: /tmp has a file system type");
	CHECK(json_is_string(json_object_get(fs, "mount_point")),
	      "linux: /tmp has a mount point");
	CHECK(json_integer_value(json_object_get(json_object_get(s, "cpu"),
						 "count_online")) > 0,
	      "linux: cpu count");
	CHECK(json_integer_value(json_object_get(json_object_get(s, "memory"),
						 "total_bytes")) > 0,
	      "linux: memory total");
	CHECK(json_is_object(json_object_get(k, "preempt")),
	      "linux: preemption model recorded");
#endif
	json_decref(s);

	s = sys_snapshot("/nonexistent/scalebench/dir");
	reasons = 0;
	CHECK(has_keys(s, snap_keys), "snapshot of a missing dir has keys");
	CHECK(reason_of(json_object_get(s, "filesystem")) != NULL,
	      "missing dir: filesystem is a reason");
	CHECK(bad_nodes(s, "snapshot", &reasons) == 0, "missing dir: reasons");
	json_decref(s);
}

static void test_fs_type(void)
{
	char buf[64];
	int rc;

	rc = sys_fs_type("/proc", buf, sizeof buf);
#ifdef SB_POSIX_ONLY
	CHECK(rc == -1 && strcmp(buf, "unknown") == 0,
	      "posix: fs type unknown (rc %d, %s)", rc, buf);
#else
	CHECK(rc == 0 && strcmp(buf, "proc") == 0, "/proc is proc (rc %d, %s)",
	      rc, buf);
	rc = sys_fs_type("/", buf, sizeof buf);
	CHECK(rc == 0 && strcmp(buf, "unknown") != 0, "/ has a type (%s)",
	      buf);
#endif
	rc = sys_fs_type("/nonexistent/x", buf, sizeof buf);
	CHECK(rc == -1 && strcmp(buf, "unknown") == 0,
	      "missing path: unknown (rc %d, %s)", rc, buf);
	sys_clock_source(buf, sizeof buf);
	CHECK(buf[0] != 0, "clock source named (%s)", buf);
}

static void test_open_fds(void)
{
	int before = sys_open_fds(), after, fds[10], i;

	CHECK(before >= 3, "open fds %d >= 3", before);
	for (i = 0; i < 10; i++)
		fds[i] = open("/dev/null", O_RDONLY);
	after = sys_open_fds();
	CHECK(after == before + 10, "open fds %d == %d + 10", after, before);
	for (i = 0; i < 10; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	CHECK(sys_open_fds() == before, "open fds back to %d", before);
}

static void test_failure_state(void)
{
	json_t *f = sys_failure_state(), *fds;
	int reasons = 0;

	CHECK(has_keys(f, fail_keys), "failure state has all keys");
	CHECK(bad_nodes(f, "failure", &reasons) == 0, "failure: reasons");
	CHECK(dumps_ok(f), "failure state dumps");
	fds = json_object_get(f, "open_fds");
	CHECK(json_integer_value(json_object_get(fds, "count")) ==
		      sys_open_fds(), "failure: open_fds count");
#ifndef SB_POSIX_ONLY
	CHECK(json_integer_value(json_object_get(json_object_get(f, "meminfo"),
						 "MemTotal")) > 0,
	      "linux: meminfo MemTotal");
	CHECK(strcmp(json_string_value(json_object_get(fds, "method")),
		     "/proc/self/fd") == 0, "linux: fds listed in /proc");
#endif
	json_decref(f);
}

/* Lower the soft RLIMIT_NOFILE to the descriptors in use, so that every
 * open fails with EMFILE, and take the failure state then. */
static void test_failure_state_emfile(void)
{
	struct rlimit old, rl;
	int *extra, nextra = 0, hi = -1, fd, e = 0, reasons = 0, rc;
	json_t *f, *s, *fds;
	const char *r;
	char buf[64];
	long i, bound;

	if (getrlimit(RLIMIT_NOFILE, &old) != 0) {
		CHECK(0, "getrlimit: %s", strerror(errno));
		return;
	}
	bound = old.rlim_cur == RLIM_INFINITY || old.rlim_cur > (1 << 20)
			? 1 << 20 : (long)old.rlim_cur;
	for (i = 0; i < bound; i++)
		if (fcntl((int)i, F_GETFD) != -1)
			hi = (int)i;
	extra = malloc(((size_t)hi + 2) * sizeof *extra);
	rl = old;
	rl.rlim_cur = (rlim_t)hi + 1; /* == open fds unless there are gaps */
	if (!extra || setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		CHECK(0, "setrlimit: %s", strerror(errno));
		free(extra);
		return;
	}
	/* Fill any gaps below the limit, until open says EMFILE. */
	while (nextra <= hi + 1) {
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0) {
			e = errno;
			break;
		}
		extra[nextra++] = fd;
	}
	CHECK(e == EMFILE, "open gives EMFILE (%s)", strerror(e));

	f = sys_failure_state();
	s = sys_snapshot("/tmp");
	rc = sys_fs_type("/proc", buf, sizeof buf);
	setrlimit(RLIMIT_NOFILE, &old);

	CHECK(has_keys(f, fail_keys), "emfile: failure state has all keys");
	CHECK(bad_nodes(f, "failure", &reasons) == 0, "emfile: reasons");
	CHECK(dumps_ok(f), "emfile: failure state dumps");
	fds = json_object_get(f, "open_fds");
	CHECK(json_integer_value(json_object_get(fds, "count")) == hi + 1,
	      "emfile: open_fds %lld == %d",
	      (long long)json_integer_value(json_object_get(fds, "count")),
	      hi + 1);
	r = json_string_value(json_object_get(fds, "method"));
	CHECK(r && strstr(r, "probe"), "emfile: counted by probing (%s)",
	      r ? r : "?");
	reasons = 0;
	CHECK(has_keys(s, snap_keys), "emfile: snapshot has all keys");
	CHECK(bad_nodes(s, "snapshot", &reasons) == 0,
	      "emfile: snapshot reasons");
	CHECK(dumps_ok(s), "emfile: snapshot dumps");
#ifndef SB_POSIX_ONLY
	r = reason_of(json_object_get(f, "meminfo"));
	CHECK(r && strstr(r, "/proc/meminfo") &&
	      strstr(r, "Too many open files"),
	      "emfile: meminfo reason (%s)", r ? r : "none");
	r = reason_of(json_object_get(f, "loadavg"));
	CHECK(r && strstr(r, "Too many open files"),
	      "emfile: loadavg reason (%s)", r ? r : "none");
	CHECK(rc == 0 && strcmp(buf, "proc") == 0,
	      "emfile: /proc still typed by statfs (rc %d, %s)", rc, buf);
#else
	(void)rc;
#endif
	json_decref(f);
	json_decref(s);
	while (nextra > 0)
		close(extra[--nextra]);
	free(extra);
}

/* Helpers shared by both implementations. */
static void test_common(void)
{
	json_t *j = sb_jstrn("a\xff\xc3\xa9" "b\0c", 7), *u, *t;
	char buf[64];

	CHECK(j && strcmp(json_string_value(j), "a?\xc3\xa9" "b?c") == 0,
	      "invalid UTF-8 and NUL replaced (%s)", json_string_value(j));
	json_decref(j);
	u = sb_unavailable("open %s: %s", "/x", "No such file");
	CHECK(strcmp(reason_of(u), "open /x: No such file") == 0, "reason");
	json_decref(u);
	t = sb_tail_lines("1\n2\n3\n4\n", 8, 2);
	CHECK(json_array_size(t) == 2 &&
	      strcmp(json_string_value(json_array_get(t, 0)), "3") == 0,
	      "tail lines");
	json_decref(t);
	CHECK(sb_assign_get("A=1\nCONFIG_HZ=250\n", "CONFIG_HZ", buf,
			    sizeof buf) && strcmp(buf, "250") == 0,
	      "config value");
	CHECK(!sb_assign_get("# CONFIG_X is not set\n", "CONFIG_X", buf,
			     sizeof buf), "config not set");
	CHECK(sb_text_field("model name\t: X Y\nflags : a b\n", "flags", buf,
			    sizeof buf) && strcmp(buf, "a b") == 0, "field");
	strcpy(buf, "/mnt/a\\040b");
	sb_unescape_octal(buf);
	CHECK(strcmp(buf, "/mnt/a b") == 0, "mountinfo unescape (%s)", buf);
	sys_iso_utc(NULL, 3, buf, sizeof buf);
	CHECK(strlen(buf) == 24 && buf[10] == 'T' && buf[23] == 'Z',
	      "ISO 8601 time (%s)", buf);
	struct timespec at = {.tv_sec = 86400 + 3661, .tv_nsec = 123456789};
	sys_iso_utc(&at, 0, buf, sizeof buf);
	CHECK(strcmp(buf, "1970-01-02T01:01:01Z") == 0, "ISO 8601, whole seconds (%s)", buf);
	sys_iso_utc(&at, 6, buf, sizeof buf);
	CHECK(strcmp(buf, "1970-01-02T01:01:01.123456Z") == 0, "ISO 8601, us (%s)", buf);
	sys_iso_utc(&at, 3, buf, 8);
	CHECK(strlen(buf) == 7, "ISO 8601 truncated to the buffer (%s)", buf);
}

/* RLIMIT_NOFILE: read it, raise the soft limit (in a child, so that this
 * process keeps its own), never above the hard limit. */
static void test_nofile(void)
{
	struct sys_nofile nf;
	CHECK(sys_nofile_get(&nf) == 0 && nf.soft <= nf.hard && nf.old == nf.soft, "nofile read");
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl) || (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 100))
			_exit(10);
		rl.rlim_cur = 100;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(10);
		struct sys_nofile a, b;
		int ok = sys_nofile_raise(150, &a) == 0 && a.old == 100 && a.soft == (a.hard < 150 ? a.hard : 150);
		ok = ok && sys_nofile_raise(120, &b) == 0 && b.old == a.soft && b.soft == a.soft; /* never lowers */
		ok = ok && sys_nofile_raise(UINT64_MAX, &b) == 0 && b.soft == b.hard;
		getrlimit(RLIMIT_NOFILE, &rl);
		ok = ok && rl.rlim_cur == rl.rlim_max;
		_exit(ok ? 0 : 1);
	}
	int st = -1;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "nofile raised to 150, not lowered to 120, raised to the hard limit (status %d)", st);
}

static void test_child_dies(void)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0)
		_exit(sys_child_dies_with_parent());
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st),
	      "child ran");
#ifdef SB_POSIX_ONLY
	CHECK(WEXITSTATUS(st) == 0, "posix: no death signal");
#else
	CHECK(WEXITSTATUS(st) == 1, "linux: PR_SET_PDEATHSIG set");
#endif
}

/* Where workers are started from: this very program. */
static void test_self_exe(void)
{
	char exe[4096], p[4096];
#ifdef SB_POSIX_ONLY
	CHECK(sys_self_exe("sh", exe, sizeof(exe)) == 0 && exe[0] == '/' && access(exe, X_OK) == 0,
	      "posix: from argv0 through PATH: %s", exe);
	CHECK(sys_self_exe("/nonexistent/x", exe, sizeof(exe)) == -ENOENT, "posix: a missing argv0");
#else
	CHECK(sys_self_exe("/nonexistent/x", exe, sizeof(exe)) == 0 && access(exe, X_OK) == 0 &&
		      strstr(exe, "test_sys"),
	      "linux: this program whatever argv0 says: %s", exe);
#endif
	CHECK(sb_exe_from_argv0("sh", p, sizeof(p)) == 0 && p[0] == '/' && access(p, X_OK) == 0,
	      "a bare name is found through PATH: %s", p);
	CHECK(sb_exe_from_argv0("/nonexistent/x", p, sizeof(p)) == -ENOENT, "a missing path: ENOENT");
	CHECK(sb_exe_from_argv0("no-such-program-sb", p, sizeof(p)) == -ENOENT, "not in PATH: ENOENT");
	CHECK(sb_exe_from_argv0("", p, sizeof(p)) < 0, "empty argv0 refused");
	CHECK(sb_exe_from_argv0("/tmp", p, sizeof(p)) == -EACCES, "a directory is not a program");
	CHECK(sb_exe_from_argv0("/bin/sh", p, 4) == -ENAMETOOLONG, "a buffer too small: ENAMETOOLONG");
}

int main(void)
{
	CHECK(strcmp(sys_impl(),
#ifdef SB_POSIX_ONLY
		     "posix"
#else
		     "linux"
#endif
		     ) == 0, "impl %s", sys_impl());
	test_common();
	test_cpulist();
	test_snapshot();
	test_fs_type();
	test_open_fds();
	test_nofile();
	test_failure_state();
	test_failure_state_emfile();
	test_child_dies();
	test_self_exe();
	return t_done("sys");
}
