/* SPDX-License-Identifier: MIT */
/* Linux implementation of sys.h: /proc, /sys, statfs, klogctl, prctl.
 * Everything that cannot be read becomes {"unavailable": "<reason>"}, so
 * that no key of the snapshot or of the failure state is ever missing. */
#include "sys/sys.h"
#include "sys/sys_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define ERRLEN 512
#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10
#define KLOG_TAIL_LINES 20

/* ------------------------------------------------------------- kernel */

/* Text of the running kernel's config: /boot/config-RELEASE, else
 * /proc/config.gz through `gzip -dc`. */
static char *kernel_config(const char *release, char *src, size_t srclen,
			   size_t *len, char *err, size_t errlen)
{
	char path[PATH_MAX], e1[ERRLEN], e2[ERRLEN];
	char *buf;

	snprintf(path, sizeof path, "/boot/config-%s", release);
	buf = sb_read_file(path, 16 << 20, len, e1, sizeof e1);
	if (!buf && access("/proc/config.gz", R_OK) != 0) {
		snprintf(err, errlen, "%s; /proc/config.gz: %s", e1,
			 strerror(errno));
		return NULL;
	}
	if (!buf) {
		snprintf(path, sizeof path, "/proc/config.gz");
		buf = sb_read_command("gzip -dc /proc/config.gz 2>/dev/null",
				      16 << 20, len, e2, sizeof e2);
		if (!buf)
			snprintf(err, errlen, "%s; %s", e1, e2);
	}
	if (buf)
		snprintf(src, srclen, "%s", path);
	return buf;
}

static json_t *preempt_json(const char *cfg, const char *version)
{
	static const char *const models[] = {
		"PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT_LAZY", "PREEMPT",
		"PREEMPT_VOLUNTARY", "PREEMPT_NONE", NULL};
	const char *model = NULL, *from = NULL;
	char opt[64], v[8], err[ERRLEN], *p, *q, *buf;
	json_t *o = json_object();
	const char *const *m;

	for (m = models; cfg && *m && !model; m++) {
		snprintf(opt, sizeof opt, "CONFIG_%s", *m);
		if (sb_assign_get(cfg, opt, v, sizeof v) && !strcmp(v, "y")) {
			model = *m;
			from = "kernel config";
		}
	}
	/* uname -v names the model: "#1 SMP PREEMPT_DYNAMIC ..." */
	for (m = models; !model && *m; m++)
		if (sb_has_word(version, *m)) {
			model = *m;
			from = "uname version";
		}
	if (model) {
		sb_set(o, "model", json_string(model));
		sb_set(o, "from", json_string(from));
	} else {
		sb_set(o, "model", sb_unavailable("no kernel config, and uname"
			" version names no model (PREEMPT_NONE or "
			"PREEMPT_VOLUNTARY)"));
		sb_set(o, "from", sb_unavailable("no source"));
	}
	/* PREEMPT_DYNAMIC: the mode it boots in, preempt= on the command line,
	 * else the build's default model (CONFIG_PREEMPT_NONE/VOLUNTARY/...) */
	if (model && !strcmp(model, "PREEMPT_DYNAMIC")) {
		static const char *const dflt[][2] = {{"CONFIG_PREEMPT_NONE", "none"},
			{"CONFIG_PREEMPT_VOLUNTARY", "voluntary"}, {"CONFIG_PREEMPT", "full"},
			{"CONFIG_PREEMPT_LAZY", "lazy"}};
		char *cl = sb_read_file("/proc/cmdline", 65536, NULL, err, sizeof err);
		char *pp = cl ? strstr(cl, "preempt=") : NULL;
		const char *boot = NULL, *why = NULL;
		if (pp && (pp == cl || pp[-1] == ' ')) {
			pp += 8;
			pp[strcspn(pp, " \n")] = 0;
			boot = pp;
			why = "preempt= on the kernel command line";
		}
		for (size_t i = 0; !boot && cfg && i < sizeof(dflt) / sizeof(dflt[0]); i++)
			if (sb_assign_get(cfg, dflt[i][0], v, sizeof v) && !strcmp(v, "y")) {
				boot = dflt[i][1];
				why = dflt[i][0];
			}
		sb_set(o, "boot_mode", boot ? json_pack("{s:s,s:s}", "mode", boot, "from", why)
					   : sb_unavailable("no preempt= and no kernel config"));
		free(cl);
	}
	/* The model in force, for PREEMPT_DYNAMIC: "none voluntary (full)". */
	buf = sb_read_file("/sys/kernel/debug/sched/preempt", 4096, NULL, err,
			   sizeof err);
	p = buf ? strchr(buf, '(') : NULL;
	q = p ? strchr(p, ')') : NULL;
	if (q)
		*q = 0;
	sb_set(o, "current", !buf ? sb_unavailable("%s", err)
				  : sb_jstr(q ? p + 1 : sb_rtrim(buf)));
	free(buf);
	return o;
}

static json_t *config_options(const char *cfg)
{
	static const char *const opts[] = {
		"CONFIG_HZ", "CONFIG_NO_HZ_IDLE", "CONFIG_NO_HZ_FULL",
		"CONFIG_PREEMPT_DYNAMIC", "CONFIG_PREEMPT_RT",
		"CONFIG_IO_URING", "CONFIG_TRANSPARENT_HUGEPAGE",
		"CONFIG_KASAN", "CONFIG_KCSAN", "CONFIG_PROVE_LOCKING",
		"CONFIG_DEBUG_PAGEALLOC", "CONFIG_SLUB_DEBUG_ON",
		"CONFIG_MITIGATION_PAGE_TABLE_ISOLATION",
		"CONFIG_PAGE_TABLE_ISOLATION", "CONFIG_MITIGATION_RETPOLINE",
		"CONFIG_RETPOLINE", "CONFIG_AUDIT", "CONFIG_SECCOMP", NULL};
	json_t *o = json_object();
	const char *const *p;
	char v[256];

	for (p = opts; *p; p++)
		sb_set(o, *p, sb_assign_get(cfg, *p, v, sizeof v)
				      ? sb_jstr(v) : json_string("not set"));
	return o;
}

static json_t *kernel_json(void)
{
	static const char *const nocfg[] = {"config_fnv1a64", "hz",
					    "config_options", NULL};
	const char *const *k;
	json_t *o = json_object();
	char src[PATH_MAX], err[2 * ERRLEN + PATH_MAX], v[32], hex[20];
	struct utsname u;
	size_t len = 0;
	char *cfg;

	if (uname(&u) != 0) {
		json_decref(o);
		return sb_unavailable("uname: %s", strerror(errno));
	}
	sb_set(o, "sysname", sb_jstr(u.sysname));
	sb_set(o, "release", sb_jstr(u.release));
	sb_set(o, "version", sb_jstr(u.version));
	sb_set(o, "machine", sb_jstr(u.machine));
	cfg = kernel_config(u.release, src, sizeof src, &len, err, sizeof err);
	if (cfg) {
		snprintf(hex, sizeof hex, "%016llx",
			 (unsigned long long)sb_fnv1a64(cfg, len));
		sb_set(o, "config_source", sb_jstr(src));
		sb_set(o, "config_fnv1a64", json_string(hex));
		sb_set(o, "hz", sb_assign_get(cfg, "CONFIG_HZ", v, sizeof v)
					? json_integer(atoll(v))
					: sb_unavailable("no CONFIG_HZ in %s",
							 src));
		sb_set(o, "config_options", config_options(cfg));
	} else {
		sb_set(o, "config_source", sb_unavailable("%s", err));
		for (k = nocfg; *k; k++)
			sb_set(o, *k, sb_unavailable("no kernel config"));
	}
	sb_set(o, "preempt", preempt_json(cfg, u.version));
	sb_set(o, "cmdline", sb_file_string("/proc/cmdline"));
	free(cfg);
	return o;
}

/* ---------------------------------------------------------------- cpu */

static json_t *cpu_json(void)
{
	static const char *const model_keys[] = {
		"model name", "Hardware", "Processor", "cpu model", "cpu",
		NULL};
	const char *const *k;
	static const char *const smt[] = {"active", "control", NULL};
	json_t *o = json_object(), *v;
	char err[ERRLEN], val[256];
	char *info = sb_read_file("/proc/cpuinfo", 8 << 20, NULL, err,
				  sizeof err);
	cpu_set_t set;

	v = NULL;
	for (k = model_keys; info && *k && !v; k++)
		if (sb_text_field(info, *k, val, sizeof val))
			v = sb_jstr(val);
	sb_set(o, "model", v ? v : info ? sb_unavailable("no model name in "
			"/proc/cpuinfo") : sb_unavailable("%s", err));
	sb_set(o, "count_online", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	sb_set(o, "count_configured",
	       json_integer(sysconf(_SC_NPROCESSORS_CONF)));
	sb_set(o, "online", sb_file_string("/sys/devices/system/cpu/online"));
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		sb_set(o, "count_allowed", json_integer(CPU_COUNT(&set)));
	else
		sb_set(o, "count_allowed", sb_unavailable("sched_getaffinity: "
				"%s", strerror(errno)));
	v = sb_file_string(
		"/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	if (json_is_object(v)) {
		json_t *why = v;

		v = sb_unavailable("no cpufreq (%s)", json_string_value(
				   json_object_get(why, "unavailable")));
		json_decref(why);
	}
	sb_set(o, "governor", v);
	if (info && sb_text_field(info, "cpu MHz", val, sizeof val))
		sb_set(o, "mhz", json_real(atof(val)));
	else
		sb_set(o, "mhz", sb_unavailable("no cpu MHz in /proc/cpuinfo"));
	sb_set(o, "smt", sb_files_json("/sys/devices/system/cpu/smt", smt));
	sb_set(o, "vulnerabilities",
	       sb_dir_json("/sys/devices/system/cpu/vulnerabilities", 1));
	free(info);
	return o;
}

/* ------------------------------------------------------------- memory */

static json_t *memory_json(void)
{
	static const char *const huge_keys[] = {
		"HugePages_Total", "HugePages_Free", "HugePages_Rsvd",
		"HugePages_Surp", "Hugepagesize", NULL};
	static const char *const keys[][2] = {
		{"total_bytes", "MemTotal"}, {"available_bytes", "MemAvailable"},
		{"free_bytes", "MemFree"}, {"swap_total_bytes", "SwapTotal"},
		{"swap_free_bytes", "SwapFree"}};
	static const char *const thp[] = {"enabled", "defrag", NULL};
	json_t *o = json_object();
	char err[ERRLEN];
	char *mi = sb_read_file("/proc/meminfo", 1 << 20, NULL, err,
				sizeof err);
	long long v;
	size_t i;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (mi && sb_kb_field(mi, keys[i][1], &v))
			sb_set(o, keys[i][0], json_integer(v));
		else
			sb_set(o, keys[i][0], mi ? sb_unavailable("no %s in "
					"/proc/meminfo", keys[i][1])
					: sb_unavailable("%s", err));
	}
	free(mi);
	sb_set(o, "page_size", json_integer(sysconf(_SC_PAGESIZE)));
	sb_set(o, "hugepages", sb_kb_fields("/proc/meminfo", huge_keys));
	sb_set(o, "thp", sb_files_json("/sys/kernel/mm/transparent_hugepage",
				       thp));
	return o;
}

/* ------------------------------------------------------ virtualization */

static json_t *container_json(void)
{
	static const char *const hints[] = {
		"docker", "kubepods", "containerd", "libpod", "lxc",
		"garden", "machine.slice", NULL};
	int docker = access("/.dockerenv", F_OK) == 0,
	    podman = access("/run/.containerenv", F_OK) == 0,
	    any = docker || podman;
	json_t *o = json_object(), *found = json_array(), *env;
	char err[ERRLEN], *buf, *p;
	const char *const *h;
	size_t len = 0;

	sb_set(o, "dockerenv", json_boolean(docker));
	sb_set(o, "containerenv", json_boolean(podman));
	buf = sb_read_file("/proc/1/environ", 1 << 20, &len, err, sizeof err);
	env = buf ? json_string("not set") : sb_unavailable("%s", err);
	for (p = buf; p && p < buf + len; p += strlen(p) + 1)
		if (strncmp(p, "container=", 10) == 0) {
			json_decref(env);
			env = sb_jstr(p + 10);
			any = 1;
		}
	free(buf);
	sb_set(o, "env_container", env);
	buf = sb_read_file("/proc/self/cgroup", 1 << 20, &len, err, sizeof err);
	for (h = hints; buf && *h; h++)
		if (strstr(buf, *h) && (any = 1))
			json_array_append_new(found, json_string(*h));
	if (!buf) {
		json_decref(found);
		found = sb_unavailable("%s", err);
	}
	sb_set(o, "cgroup_hints", found);
	sb_set(o, "cgroup", buf ? sb_tail_lines(buf, len, INT_MAX)
				: sb_unavailable("%s", err));
	free(buf);
	sb_set(o, "detected", json_boolean(any));
	return o;
}

/* CPUID's hypervisor leaf 0x40000000: the hypervisor's 12-byte vendor
 * signature in EBX, ECX, EDX ("KVMKVMKVM", "Microsoft Hv", "bhyve bhyve "),
 * valid when CPUID.1:ECX bit 31 (the hypervisor bit) is set. A hypervisor
 * may give a signature of another kind (this project's VM: the kernel says
 * PVM, CPUID says bhyve), so the kernel's own line is recorded beside it. */
static json_t *hv_cpuid_json(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	char s[13];
	size_t n;

	__cpuid(1, a, b, c, d);
	if (!(c >> 31 & 1))
		return sb_unavailable("CPUID: no hypervisor bit");
	__cpuid(0x40000000, a, b, c, d);
	memcpy(s, &b, 4);
	memcpy(s + 4, &c, 4);
	memcpy(s + 8, &d, 4);
	s[12] = 0;
	for (n = strlen(s); n && s[n - 1] == ' '; n--)
		s[n - 1] = 0;
	for (n = 0; s[n]; n++)
		if ((unsigned char)s[n] < 32 || (unsigned char)s[n] > 126)
			s[n] = '?';
	if (!*s)
		return sb_unavailable("CPUID leaf 0x40000000: empty signature");
	return json_string(s);
#else
	return sb_unavailable("CPUID: not an x86 machine");
#endif
}

/* The kernel's own "Hypervisor detected: NAME" line (arch/x86 at boot),
 * from the kernel log while it is still there and readable. */
static json_t *hv_kernel_json(void)
{
	static const char key[] = "Hypervisor detected: ";
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0), n = -1, e;
	char *buf = NULL, *p, *end;
	json_t *v;

	if (size > 0 && (buf = malloc((size_t)size + 1)))
		n = klogctl(SYSLOG_ACTION_READ_ALL, buf, size);
	if (n < 0) {
		e = buf || size < 0 ? errno : ENOMEM;
		free(buf);
		return sb_unavailable("klogctl: %s%s", strerror(e),
				      e == EPERM ? " (kernel.dmesg_restrict?)" : "");
	}
	buf[n] = 0;
	p = strstr(buf, key);
	if (!p) {
		free(buf);
		return sb_unavailable("no \"%s\" line in the kernel log (none, or "
				      "rotated out)", "Hypervisor detected:");
	}
	p += sizeof key - 1;
	end = p + strcspn(p, "\r\n");
	while (end > p && end[-1] == ' ')
		end--;
	v = json_stringn(p, (size_t)(end - p));
	free(buf);
	return v ? v : sb_unavailable("kernel line not text");
}

static json_t *virtualization_json(void)
{
	json_t *o = json_object(), *hv = json_object(), *kd, *cv;
	char err[ERRLEN], flags[8192];
	char *info = sb_read_file("/proc/cpuinfo", 8 << 20, NULL, err,
				  sizeof err);

	if (!info)
		sb_set(hv, "cpu_flag", sb_unavailable("%s", err));
	else if (!sb_text_field(info, "flags", flags, sizeof flags))
		sb_set(hv, "cpu_flag",
		       sb_unavailable("no flags in /proc/cpuinfo"));
	else
		sb_set(hv, "cpu_flag", json_boolean(sb_has_word(flags,
							     "hypervisor")));
	free(info);
	sb_set(hv, "type", sb_file_string("/sys/hypervisor/type"));
	sb_set(hv, "cpuid_vendor", hv_cpuid_json());
	sb_set(hv, "kernel_detected", hv_kernel_json());
	/* the name compare matches on: the kernel's word, else CPUID's */
	kd = json_object_get(hv, "kernel_detected");
	cv = json_object_get(hv, "cpuid_vendor");
	sb_set(hv, "name", json_is_string(kd) ? json_string(json_string_value(kd))
		: json_is_string(cv) ? json_string(json_string_value(cv))
		: json_is_false(json_object_get(hv, "cpu_flag")) ? json_string("none")
		: sb_unavailable("no hypervisor name readable (CPUID, kernel log)"));
	sb_set(hv, "sys_vendor", sb_file_string("/sys/class/dmi/id/sys_vendor"));
	sb_set(hv, "product_name",
	       sb_file_string("/sys/class/dmi/id/product_name"));
	sb_set(o, "hypervisor", hv);
	sb_set(o, "container", container_json());
	return o;
}

static json_t *clocksource_json(void)
{
	const char *dir = "/sys/devices/system/clocksource/clocksource0";
	json_t *o = json_object(), *av;
	char path[256], err[ERRLEN], *buf, *tok, *save = NULL;

	snprintf(path, sizeof path, "%s/current_clocksource", dir);
	sb_set(o, "current", sb_file_string(path));
	snprintf(path, sizeof path, "%s/available_clocksource", dir);
	buf = sb_read_file(path, 4096, NULL, err, sizeof err);
	if (!buf) {
		sb_set(o, "available", sb_unavailable("%s", err));
		return o;
	}
	av = json_array();
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save))
		json_array_append_new(av, sb_jstr(tok));
	sb_set(o, "available", av);
	free(buf);
	return o;
}

/* --------------------------------------------------------- file system */

struct mnt {
	char *buf; /* /proc/self/mountinfo; the fields point into it */
	char *majmin, *root, *point, *opts, *fstype, *source, *super;
};

/* Split one mountinfo line in place; 0 if malformed. */
static int mnt_parse(char *line, struct mnt *m)
{
	char *f[6], *save = NULL, *t;
	int i;

	for (i = 0; i < 6; i++) {
		f[i] = strtok_r(i ? NULL : line, " ", &save);
		if (!f[i])
			return 0;
	}
	while ((t = strtok_r(NULL, " ", &save)) && strcmp(t, "-") != 0)
		; /* optional fields */
	if (!t)
		return 0;
	m->majmin = f[2];
	m->root = f[3];
	m->point = f[4];
	m->opts = f[5];
	m->fstype = strtok_r(NULL, " ", &save);
	m->source = strtok_r(NULL, " ", &save);
	m->super = strtok_r(NULL, " ", &save);
	if (!m->fstype || !m->source)
		return 0;
	if (!m->super)
		m->super = "";
	sb_unescape_octal(m->root);
	sb_unescape_octal(m->point);
	sb_unescape_octal(m->source);
	return 1;
}

/* The mount holding the absolute path real: the longest mount point that
 * is a prefix of it (the last one listed, the top of a stack, on a tie).
 * On success m->buf must be freed. */
static int mnt_find(const char *real, struct mnt *m, char *err, size_t errlen)
{
	char *line, *next;
	struct mnt cur;
	size_t best = 0, n;
	int found = 0;

	memset(m, 0, sizeof *m);
	m->buf = sb_read_file("/proc/self/mountinfo", 16 << 20, NULL, err,
			      errlen);
	if (!m->buf)
		return -1;
	for (line = m->buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!mnt_parse(line, &cur))
			continue;
		n = strlen(cur.point);
		if (strcmp(cur.point, "/") == 0)
			n = 1;
		else if (strncmp(real, cur.point, n) != 0 ||
			 (real[n] != 0 && real[n] != '/'))
			continue;
		if (n >= best) {
			best = n;
			cur.buf = m->buf;
			*m = cur;
			found = 1;
		}
	}
	if (!found) {
		snprintf(err, errlen, "no mount holds %s in "
			 "/proc/self/mountinfo", real);
		free(m->buf);
		m->buf = NULL;
		return -1;
	}
	return 0;
}

/* statfs f_type to a name (ext2, ext3 and ext4 share one magic). */
static const char *magic_name(unsigned long t)
{
	static const unsigned long magic[] = {
		0xEF53, 0x58465342, 0x9123683E, 0x01021994, 0x9fa0,
		0x62656572, 0x6969, 0x65735546, 0x794c7630, 0x2fc12fc1,
		0xF2F52010, 0x73717368, 0x1cd1, 0x63677270, 0x27e0eb,
		0x858458f6, 0xca451a4e, 0x01021997, 0xFF534D42, 0xFE534D42,
		0x2011BAB0, 0x4d44, 0x5346544e, 0x00c36400, 0x64626720};
	static const char *const name[] = {
		"ext2/ext3/ext4", "xfs", "btrfs", "tmpfs", "proc", "sysfs",
		"nfs", "fuse", "overlay", "zfs", "f2fs", "squashfs", "devpts",
		"cgroup2", "cgroup", "ramfs", "bcachefs", "9p", "cifs", "smb2",
		"exfat", "vfat", "ntfs", "ceph", "debugfs"};
	size_t i;

	_Static_assert(sizeof magic / sizeof magic[0] ==
		       sizeof name / sizeof name[0], "magic/name tables");
	for (i = 0; i < sizeof magic / sizeof magic[0]; i++)
		if (magic[i] == (t & 0xffffffffUL))
			return name[i];
	return NULL;
}

int sys_fs_type(const char *path, char *buf, size_t len)
{
	char real[PATH_MAX], err[ERRLEN];
	struct statfs sf;
	struct mnt m;
	const char *name;

	if (len == 0)
		return -1;
	snprintf(buf, len, "unknown");
	if (!realpath(path, real))
		return -1;
	if (mnt_find(real, &m, err, sizeof err) == 0) {
		snprintf(buf, len, "%s", m.fstype);
		free(m.buf);
		return 0;
	}
	if (statfs(real, &sf) == 0 &&
	    (name = magic_name((unsigned long)sf.f_type)) != NULL) {
		snprintf(buf, len, "%s", name);
		return 0;
	}
	return -1;
}

/* The journal of an ext2/3/4 mount (sys.h: sys_fs_journal): 1, 0, or -1
 * for another type. jbd2 names its /proc entry after the block device's
 * kernel name and the journal inode ("vda-8", "loop3-8"). */
static int mnt_journal(const struct mnt *m)
{
	if (strcmp(m->fstype, "ext2") && strcmp(m->fstype, "ext3") && strcmp(m->fstype, "ext4"))
		return -1;
	char link[64], sys[PATH_MAX];
	snprintf(link, sizeof link, "/sys/dev/block/%s", m->majmin);
	if (!realpath(link, sys))
		return -1;
	const char *dev = strrchr(sys, '/') + 1;
	size_t dl = strlen(dev);
	DIR *d = opendir("/proc/fs/jbd2");
	if (!d) /* no journal is running anywhere (or jbd2 has no /proc) */
		return errno == ENOENT ? 0 : -1;
	struct dirent *de;
	int found = 0;
	while (!found && (de = readdir(d)))
		found = !strncmp(de->d_name, dev, dl) && de->d_name[dl] == '-';
	closedir(d);
	return found;
}

int sys_fs_journal(const char *path)
{
	char real[PATH_MAX], err[ERRLEN];
	struct mnt m;
	if (!realpath(path, real) || mnt_find(real, &m, err, sizeof err))
		return -1;
	int j = mnt_journal(&m);
	free(m.buf);
	return j;
}

static json_t *block_device_json(const char *source, const char *majmin)
{
	static const char *const queue[] = {
		"scheduler", "rotational", "nr_requests", "read_ahead_kb",
		"logical_block_size", "physical_block_size", "max_sectors_kb",
		"write_cache", NULL};
	static const char *const loop[] = {"backing_file", "dio", NULL};
	char devno[32], link[64], sys[PATH_MAX], disk[PATH_MAX],
		p[PATH_MAX + 64], *slash;
	unsigned maj = 0, mnr = 0;
	json_t *o, *j;
	struct stat st;

	if (source[0] == '/' && stat(source, &st) == 0 &&
	    S_ISBLK(st.st_mode))
		snprintf(devno, sizeof devno, "%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
	else if (sscanf(majmin, "%u:%u", &maj, &mnr) == 2 && maj != 0)
		snprintf(devno, sizeof devno, "%u:%u", maj, mnr);
	else
		return sb_unavailable("not on a block device (source %s, "
				      "device %s)", source, majmin);
	snprintf(link, sizeof link, "/sys/dev/block/%s", devno);
	if (!realpath(link, sys))
		return sb_unavailable("realpath %s: %s", link, strerror(errno));
	snprintf(disk, sizeof disk, "%s", sys);
	snprintf(p, sizeof p, "%s/partition", sys);
	if (access(p, F_OK) == 0 && (slash = strrchr(disk, '/')) != NULL)
		*slash = 0; /* a partition: the queue is the parent disk's */
	o = json_object();
	sb_set(o, "name", sb_jstr(strrchr(sys, '/') + 1));
	sb_set(o, "disk", sb_jstr(strrchr(disk, '/') + 1));
	sb_set(o, "device_number", json_string(devno));
	snprintf(p, sizeof p, "%s/size", sys);
	j = sb_file_value(p);
	if (json_is_integer(j))
		json_integer_set(j, json_integer_value(j) * 512);
	sb_set(o, "size_bytes", j);
	snprintf(p, sizeof p, "%s/queue", disk);
	sb_set(o, "queue", sb_files_json(p, queue));
	snprintf(p, sizeof p, "%s/loop", disk);
	if (access(p, F_OK) == 0) /* a loop device: what backs it */
		sb_set(o, "loop", sb_files_json(p, loop));
	snprintf(p, sizeof p, "%s/dm/name", disk);
	if (access(p, F_OK) == 0) {
		j = json_object();
		sb_set(j, "name", sb_file_string(p));
		snprintf(p, sizeof p, "%s/slaves", disk);
		sb_set(j, "slaves", sb_dir_json(p, 0));
		sb_set(o, "dm", j);
	}
	return o;
}

/* A FUSE mount: its subtype and the daemon serving it, found as the
 * process holding /dev/fuse open whose command line names the mount
 * point (bindfs, sshfs and libfuse's examples all take it as an argument). */
static json_t *fuse_json(const char *fstype, const char *point)
{
	json_t *o = json_object(), *daemon = NULL;
	sb_set(o, "subtype", strchr(fstype, '.') ? sb_jstr(strchr(fstype, '.') + 1) : json_null());
	DIR *d = opendir("/proc");
	struct dirent *de;
	while (d && !daemon && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		char p[PATH_MAX], cmd[4096];
		snprintf(p, sizeof p, "/proc/%.32s/cmdline", de->d_name);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, cmd, sizeof cmd - 1);
		close(fd);
		if (n <= 0)
			continue;
		cmd[n] = 0;
		int names = 0;
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(cmd + i) + 1)
			if (!strcmp(cmd + i, point))
				names = 1;
		if (!names)
			continue;
		snprintf(p, sizeof p, "/proc/%.32s/fd", de->d_name);
		DIR *fdd = opendir(p);
		struct dirent *fe;
		while (fdd && !daemon && (fe = readdir(fdd))) {
			char link[PATH_MAX + 80], target[64];
			snprintf(link, sizeof link, "%s/%.64s", p, fe->d_name);
			ssize_t l = readlink(link, target, sizeof target - 1);
			if (l <= 0)
				continue;
			target[l] = 0;
			if (strcmp(target, "/dev/fuse"))
				continue;
			for (ssize_t i = 0; i + 1 < n; i++)
				if (!cmd[i])
					cmd[i] = ' ';
			snprintf(p, sizeof p, "/proc/%.32s/comm", de->d_name);
			daemon = json_object();
			sb_set(daemon, "pid", json_integer(atoll(de->d_name)));
			sb_set(daemon, "comm", sb_file_string(p));
			sb_set(daemon, "cmdline", sb_jstr(cmd));
		}
		if (fdd)
			closedir(fdd);
	}
	if (d)
		closedir(d);
	sb_set(o, "daemon", daemon ? daemon : sb_unavailable("no process with /dev/fuse open names %s", point));
	return o;
}

static json_t *filesystem_json(const char *dir)
{
	char real[PATH_MAX], err[ERRLEN], hex[32];
	const char *name;
	struct statfs sf;
	struct mnt m;
	json_t *o;

	if (!realpath(dir, real))
		return sb_unavailable("realpath %s: %s", dir, strerror(errno));
	o = json_object();
	sb_set(o, "path", sb_jstr(real));
	if (statfs(real, &sf) == 0) {
		name = magic_name((unsigned long)sf.f_type);
		snprintf(hex, sizeof hex, "0x%lx", (unsigned long)sf.f_type);
		sb_set(o, "statfs_type", json_string(name ? name : hex));
	} else {
		sb_set(o, "statfs_type", sb_unavailable("statfs %s: %s", real,
							strerror(errno)));
	}
	if (mnt_find(real, &m, err, sizeof err) == 0) {
		sb_set(o, "type", sb_jstr(m.fstype));
		sb_set(o, "mount_point", sb_jstr(m.point));
		sb_set(o, "mount_root", sb_jstr(m.root));
		sb_set(o, "source", sb_jstr(m.source));
		sb_set(o, "device_number", sb_jstr(m.majmin));
		sb_set(o, "mount_options", sb_jstr(m.opts));
		sb_set(o, "super_options", sb_jstr(m.super));
		sb_set(o, "block_device", block_device_json(m.source,
							    m.majmin));
		if (!strncmp(m.fstype, "fuse", 4))
			sb_set(o, "fuse", fuse_json(m.fstype, m.point));
		int j = mnt_journal(&m);
		if (j >= 0)
			sb_set(o, "journal", json_boolean(j));
		else if (!strncmp(m.fstype, "ext", 3))
			sb_set(o, "journal", sb_unavailable("no /sys/dev/block/%s", m.majmin));
		free(m.buf);
	} else {
		const char *keys[] = {"type", "mount_point", "mount_root",
				      "source", "device_number",
				      "mount_options", "super_options",
				      "block_device", NULL}, **k;

		for (k = keys; *k; k++)
			sb_set(o, *k, sb_unavailable("%s", err));
	}
	sb_set(o, "statvfs", sb_statvfs_json(real));
	return o;
}

/* ---------------------------------------------------- sysctls and load */

static json_t *sysctls_json(void)
{
	static const char *const names[] = {
		"vm.max_map_count", "fs.file-max", "fs.nr_open",
		"fs.aio-max-nr", "kernel.pid_max", "kernel.threads-max",
		"net.core.somaxconn", "net.core.netdev_max_backlog",
		"net.ipv4.tcp_max_syn_backlog", "net.ipv4.ip_local_port_range",
		"vm.dirty_ratio", "vm.dirty_background_ratio", "vm.swappiness",
		"vm.overcommit_memory", "vm.nr_hugepages",
		"kernel.sched_autogroup_enabled", "kernel.sched_rt_runtime_us",
		"kernel.io_uring_disabled", NULL};
	const char *const *n;
	json_t *o = json_object();
	char path[256], *c;

	for (n = names; *n; n++) {
		snprintf(path, sizeof path, "/proc/sys/%s", *n);
		for (c = path + 10; *c; c++)
			if (*c == '.')
				*c = '/';
		sb_set(o, *n, sb_file_value(path));
	}
	return o;
}

/* /proc/loadavg: "0.00 0.01 0.05 1/123 4567". */
static void loadavg_json(json_t **avg, json_t **procs)
{
	char err[ERRLEN];
	char *buf = sb_read_file("/proc/loadavg", 4096, NULL, err, sizeof err);
	double a, b, c;
	long run, total;

	if (!buf) {
		*avg = sb_unavailable("%s", err);
		*procs = sb_unavailable("%s", err);
		return;
	}
	if (sscanf(buf, "%lf %lf %lf %ld/%ld", &a, &b, &c, &run, &total) != 5) {
		*avg = sb_unavailable("cannot parse /proc/loadavg");
		*procs = sb_unavailable("cannot parse /proc/loadavg");
	} else {
		*avg = json_pack("[f,f,f]", a, b, c);
		*procs = json_pack("{s:I,s:I}", "running", (json_int_t)run,
				   "total", (json_int_t)total);
	}
	free(buf);
}

json_t *sys_snapshot(const char *dir)
{
	json_t *o = json_object(), *avg, *procs;
	char now[40];

	sys_iso_utc(NULL, 3, now, sizeof now);
	sb_set(o, "impl", json_string(sys_impl()));
	sb_set(o, "time", json_string(now));
	sb_set(o, "kernel", kernel_json());
	sb_set(o, "cpu", cpu_json());
	sb_set(o, "memory", memory_json());
	sb_set(o, "virtualization", virtualization_json());
	sb_set(o, "clocksource", clocksource_json());
	sb_set(o, "filesystem", dir ? filesystem_json(dir)
				    : sb_unavailable("no directory given"));
	sb_set(o, "sysctls", sysctls_json());
	sb_set(o, "limits", sb_rlimits_json());
	sb_set(o, "rt", sys_rt_json());
	sb_set(o, "uid", json_integer((json_int_t)geteuid()));
	sb_set(o, "hostname", sb_hostname_json());
	loadavg_json(&avg, &procs);
	sb_set(o, "loadavg", avg);
	json_decref(procs);
	return o;
}

/* ------------------------------------------------------ failure state */

/* Last KLOG_TAIL_LINES lines of the kernel log; klogctl needs no
 * descriptor, so this works after EMFILE too. */
static json_t *klog_tail_json(void)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0), n = -1, e;
	char *buf = NULL;
	json_t *a;

	if (size >= 0 && (buf = malloc(size > 0 ? (size_t)size : 1 << 20)))
		n = klogctl(SYSLOG_ACTION_READ_ALL, buf, size > 0 ? size
								  : 1 << 20);
	if (n < 0) {
		e = buf || size < 0 ? errno : ENOMEM;
		free(buf);
		return sb_unavailable("klogctl: %s%s", strerror(e), e == EPERM
				      ? " (kernel.dmesg_restrict?)" : "");
	}
	a = sb_tail_lines(buf, (size_t)n, KLOG_TAIL_LINES);
	free(buf);
	return a;
}

static json_t *pressure_json(void)
{
	static const char *const res[] = {"cpu", "memory", "io", NULL};
	static const char *const kinds[] = {"some", "full", NULL};
	const char *const *r, *const *k;
	json_t *o = json_object(), *e;
	char path[64], err[ERRLEN], key[32], *buf, *p;

	for (r = res; *r; r++) {
		snprintf(path, sizeof path, "/proc/pressure/%s", *r);
		buf = sb_read_file(path, 4096, NULL, err, sizeof err);
		if (!buf) {
			sb_set(o, *r, sb_unavailable("%s", err));
			continue;
		}
		e = json_object();
		for (k = kinds; *k; k++) {
			snprintf(key, sizeof key, "%s_avg10", *k);
			p = strstr(buf, *k);
			if (p && (p == buf || p[-1] == '\n') &&
			    (p = strstr(p, "avg10=")) != NULL)
				sb_set(e, key, json_real(atof(p + 6)));
			else
				sb_set(e, key, sb_unavailable("no \"%s\" line "
						"in %s", *k, path));
		}
		sb_set(o, *r, e);
		free(buf);
	}
	return o;
}

/* Open descriptors: listed in /proc/self/fd, or, when no descriptor can
 * be opened (EMFILE), probed with fcntl below the soft RLIMIT_NOFILE. */
static int count_fds(char *method, size_t mlen)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long bound;
	int n = 0, self, err;

	if (d) {
		self = dirfd(d);
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] >= '0' && e->d_name[0] <= '9' &&
			    atoi(e->d_name) != self)
				n++;
		closedir(d);
		snprintf(method, mlen, "/proc/self/fd");
		return n;
	}
	err = errno;
	bound = sb_nofile_bound();
	snprintf(method, mlen, "fcntl(F_GETFD) probe of descriptors 0..%ld "
		 "(opendir /proc/self/fd: %s)", bound - 1, strerror(err));
	return sb_probe_fds(bound);
}

static json_t *file_nr_json(void)
{
	json_t *v = sb_file_value("/proc/sys/fs/file-nr");

	if (json_is_array(v) && json_array_size(v) == 3) {
		json_t *o = json_pack("{s:O,s:O,s:O}", "allocated",
				      json_array_get(v, 0), "free",
				      json_array_get(v, 1), "max",
				      json_array_get(v, 2));
		json_decref(v);
		return o;
	}
	return v; /* {"unavailable": ...}, or the raw value if unexpected */
}

json_t *sys_failure_state(void)
{
	static const char *const mem_keys[] = {
		"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached",
		"Dirty", "Writeback", "Shmem", "Slab", "SReclaimable",
		"SUnreclaim", "PageTables", "SwapTotal", "SwapFree",
		"CommitLimit", "Committed_AS", NULL};
	static const char *const self_keys[] = {
		"VmSize", "VmRSS", "VmLck", "Threads", "FDSize", NULL};
	json_t *o = json_object(), *avg, *procs, *fds;
	char now[40], method[256];
	int n;

	sys_iso_utc(NULL, 3, now, sizeof now);
	sb_set(o, "impl", json_string(sys_impl()));
	sb_set(o, "time", json_string(now));
	sb_set(o, "kernel_log_tail", klog_tail_json());
	sb_set(o, "meminfo", sb_kb_fields("/proc/meminfo", mem_keys));
	sb_set(o, "pressure", pressure_json());
	loadavg_json(&avg, &procs);
	sb_set(o, "loadavg", avg);
	sb_set(o, "processes", procs);
	n = count_fds(method, sizeof method);
	fds = json_object();
	sb_set(fds, "count", json_integer(n));
	sb_set(fds, "method", sb_jstr(method));
	sb_set(o, "open_fds", fds);
	sb_set(o, "file_nr", file_nr_json());
	sb_set(o, "self_status", sb_kb_fields("/proc/self/status", self_keys));
	sb_set(o, "limits", sb_rlimits_json());
	return o;
}

/* --------------------------------------------------------------- misc */

void sys_clock_source(char *buf, size_t len)
{
	char err[ERRLEN];
	char *s = sb_read_file(
		"/sys/devices/system/clocksource/clocksource0/"
		"current_clocksource", 256, NULL, err, sizeof err);

	if (len == 0)
		return;
	snprintf(buf, len, "%s", s && *sb_rtrim(s) ? s : "unknown");
	free(s);
}

int sys_open_fds(void)
{
	char method[256];

	return count_fds(method, sizeof method);
}

int sys_footprint(long *mappings, long *anon_kib)
{
	char line[512];
	long n = 0, kib = -1;
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strchr(line, '\n'))
			n++;
	fclose(f);
	if (!(f = fopen("/proc/self/status", "re")))
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "RssAnon: %ld", &kib) == 1)
			break;
	fclose(f);
	if (kib < 0)
		return -1;
	*mappings = n;
	*anon_kib = kib;
	return 0;
}

int sys_child_dies_with_parent(void)
{
	return prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 ? 1 : 0;
}

int sys_self_exe(const char *argv0, char *out, size_t len)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return sb_exe_from_argv0(argv0, out, len);
	buf[n] = 0;
	/* a binary rebuilt during the run reads "... (deleted)": the kernel
	 * still starts the original through the link itself */
	const char *p = access(buf, X_OK) == 0 ? buf : "/proc/self/exe";
	if (strlen(p) >= len)
		return -ENAMETOOLONG;
	snprintf(out, len, "%s", p);
	return 0;
}

const char *sys_impl(void)
{
	return "linux";
}

int sys_cpu_idle(double *idle, double *total)
{
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return -1;
	unsigned long long v[8] = {0};
	int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		       &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return -1;
	*idle = (double)(v[3] + v[4]);
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += (double)v[i];
	return 0;
}

long sys_seccomp_filters(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	long n = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp_filters:", 16))
			n = strtol(line + 16, NULL, 10);
	if (f)
		fclose(f);
	return n;
}
