/* SPDX-License-Identifier: MIT */
/* The job file syntax (src/core/jobfile.c): sections, keys, comments,
 * variables, includes (real files in a temporary directory), and every
 * refusal naming the file and line it found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/jobfile.h"
#include "t.h"

static const char *lookup(void *ctx, const char *name)
{
	(void)ctx;
	if (!strcmp(name, "ncpus"))
		return "2";
	if (!strcmp(name, "HOMEDIR"))
		return "/home/x";
	return NULL;
}

static int parse(const char *text, struct jobfile *jf, char *err, size_t len)
{
	err[0] = 0;
	return jobfile_parse("t.job", text, strlen(text), lookup, NULL, jf, err, len);
}

static void test_syntax(void)
{
	struct jobfile jf;
	char err[1024];
	const char *ok = "\xef\xbb\xbf# a comment\n; another\n\n[global]\nrepeat = 5\n"
			 "  [socket]  \nbench=net.socket\nmax-n = $ncpus\r\nquick\n"
			 "note = a # is kept, ${HOMEDIR}/x costs $$5\n";
	CHECK(parse(ok, &jf, err, sizeof(err)) == 0, "%s", err);
	CHECK(jf.nsec == 2, "%d sections", jf.nsec);
	const struct jobsec *s = jobfile_section(&jf, "socket");
	CHECK(s && s->nkv == 4 && s->line == 6, "socket section");
	CHECK(!strcmp(jobsec_get(s, "bench")->value, "net.socket"), "bench");
	CHECK(!strcmp(jobsec_get(s, "max-n")->value, "2"), "$ncpus, CR stripped: '%s'",
	      jobsec_get(s, "max-n")->value);
	CHECK(!strcmp(jobsec_get(s, "quick")->value, "") && jobsec_get(s, "quick")->line == 9,
	      "bare key");
	CHECK(!strcmp(jobsec_get(s, "note")->value, "a # is kept, /home/x/x costs $5"), "'%s'",
	      jobsec_get(s, "note")->value);
	CHECK(!strcmp(jobsec_get(jobfile_section(&jf, "global"), "repeat")->value, "5"), "global");
	jobfile_free(&jf);

	static const struct {
		const char *text, *want;
	} bad[] = {
		{"max-n = 5\n", "t.job:1: max-n: outside any section"},
		{"[a]\nx=1\n[a]\n", "t.job:3: section [a] given twice (first at t.job:1)"},
		{"[a]\nx=1\nx = 2\n", "t.job:3: x given twice in this section (first at t.job:2)"},
		{"[a\n", "t.job:1: a section header ends with ']'"},
		{"[a b]\n", "t.job:1: [a b]: a section name"},
		{"[]\n", "t.job:1: []: a section name"},
		{"[a]\nx = $nope\n", "t.job:2: $nope: no such variable"},
		{"[a]\nx = ${ncpus\n", "t.job:2: a $ that names no variable"},
		{"[a]\nx = 5$\n", "t.job:2: a $ that names no variable"},
		{"[a]\n= 5\n", "t.job:2: '' is not a key"},
		{"[a]\nfoo bar = 5\n", "t.job:2: 'foo bar' is not a key"},
		{"[a]\ninclude\n", "t.job:2: include: which file?"},
		{"[a]\ninclude   \t\n", "t.job:2: include: which file?"},
		{"[a]\ninclude /nonexistent/x.job\n", "t.job:2: include /nonexistent/x.job: No such file"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i].text, &jf, err, sizeof(err));
		if (!bad[i].want) {
			CHECK(rc == 0, "case %zu: %s", i, err);
		} else {
			CHECK(rc == -1 && !strncmp(err, bad[i].want, strlen(bad[i].want)),
			      "case %zu: got '%s', want '%s...'", i, err, bad[i].want);
			CHECK(jf.nsec == 0 && !jf.sec, "case %zu: nothing kept", i);
		}
		jobfile_free(&jf);
	}
	char nul[] = "[a]\nx=1\0\n";
	CHECK(jobfile_parse("t.job", nul, sizeof(nul) - 1, lookup, NULL, &jf, err, sizeof(err)) == -1 &&
		      strstr(err, "NUL byte"), "%s", err);
	char *longline = malloc(JOBFILE_LINE_MAX + 20);
	strcpy(longline, "[a]\nx=");
	memset(longline + 6, 'y', JOBFILE_LINE_MAX + 1);
	longline[JOBFILE_LINE_MAX + 7] = 0;
	CHECK(parse(longline, &jf, err, sizeof(err)) == -1 && strstr(err, "t.job:2: line longer"), "%s", err);
	free(longline);
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

static void test_include(void)
{
	char dir[] = "/tmp/test_jobfile.XXXXXX", p[600], err[1024];
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	struct jobfile jf;
	put(dir, "common.inc", "repeat = 3\n[two]\nbench = fs.create\n");
	put(dir, "main.job", "[global]\ninclude common.inc\n[one]\nbench = net.socket\n");
	snprintf(p, sizeof(p), "%s/main.job", dir);
	CHECK(jobfile_load(p, lookup, NULL, &jf, err, sizeof(err)) == 0, "%s", err);
	CHECK(jf.nsec == 3 && !strcmp(jf.sec[1].name, "two") && !strcmp(jf.sec[2].name, "one"),
	      "sections in the order of inclusion");
	const struct jobkv *kv = jobsec_get(jobfile_section(&jf, "global"), "repeat");
	CHECK(kv && kv->line == 1 && strstr(kv->file, "common.inc"), "the included key's place");
	jobfile_free(&jf);

	put(dir, "a.inc", "include b.inc\n");
	put(dir, "b.inc", "[x]\ninclude a.inc\n");
	put(dir, "loop.job", "[global]\ninclude a.inc\n");
	snprintf(p, sizeof(p), "%s/loop.job", dir);
	CHECK(jobfile_load(p, lookup, NULL, &jf, err, sizeof(err)) == -1 && strstr(err, "b.inc:2: include loop") &&
		      strstr(err, "a.inc -> ") && jf.nsec == 0, "%s", err);
	put(dir, "self.job", "[global]\ninclude self.job\n");
	snprintf(p, sizeof(p), "%s/self.job", dir);
	CHECK(jobfile_load(p, lookup, NULL, &jf, err, sizeof(err)) == -1 && strstr(err, "self.job:2: include loop"),
	      "%s", err);
	put(dir, "miss.job", "[global]\n\ninclude nothere.inc\n");
	snprintf(p, sizeof(p), "%s/miss.job", dir);
	CHECK(jobfile_load(p, lookup, NULL, &jf, err, sizeof(err)) == -1 && strstr(err, "miss.job:3: include ") &&
		      strstr(err, "nothere.inc: No such file"), "%s", err);
	snprintf(p, sizeof(p), "%s/absent.job", dir);
	CHECK(jobfile_load(p, lookup, NULL, &jf, err, sizeof(err)) == -1 && strstr(err, "absent.job: No such file"),
	      "%s", err);
	CHECK(jobfile_load(dir, lookup, NULL, &jf, err, sizeof(err)) == -1 && strstr(err, "not a regular file"),
	      "a directory: %s", err);
	put(dir, "fifo.job", "[a]\ninclude /dev/stdin\n");
	snprintf(p, sizeof(p), "%s/fifo.job", dir);
	CHECK(jobfile_load(p, lookup, NULL, &jf, err, sizeof(err)) == -1 && strstr(err, "fifo.job:2: include /dev/stdin: not a regular file"),
	      "%s", err);
	const char *names[] = {"common.inc", "main.job", "a.inc", "b.inc", "loop.job", "self.job", "miss.job", "fifo.job"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

int main(void)
{
	test_syntax();
	test_include();
	return t_done("test_jobfile");
}
