/* SPDX-License-Identifier: MIT */
/* Bench parameter tables and the checks of -p KEY=VALUE (src/core/param.c):
 * every bench's table is well formed, every key its variants set is
 * declared with a value the table accepts, and typos, wrong types and
 * out-of-range values are refused with the message the user needs. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/param.h"
#include "core/tasks.h"
#include "bench/table.h"
#include "t.h"

static int validate1(const char *bench, const char *key, const char *value, char *err,
		     size_t len)
{
	const struct bench *sel[1] = {bench_find(bench)};
	json_t *over = json_pack("{s:s}", key, value);
	err[0] = 0;
	int rc = param_validate(sel, 1, bench_table, bench_count, over, err, len);
	json_decref(over);
	return rc;
}

static void test_distance(void)
{
	CHECK(param_distance("engine", "engine") == 0, "same");
	CHECK(param_distance("engnie", "engine") == 2, "transposition = 2 edits");
	CHECK(param_distance("", "abc") == 3, "from empty");
	CHECK(param_distance("depht", "depth") == 2, "depht");
	CHECK(param_distance("size", "size_mib") == 4, "prefix");
}

static void test_tables(void)
{
	char err[512];
	for (int i = 0; i < bench_count; i++) {
		const struct bench *b = bench_table[i];
		/* new benches get their table at merge; this names the ones that lack it */
		CHECK(b->params != NULL, "%s has no .params table (see bench.h)", b->name);
		for (const struct bench_param_spec *sp = b->params; sp && sp->name; sp++) {
			CHECK(*sp->name && sp->help && *sp->help, "%s: name and help", b->name);
			CHECK(sp->type >= BP_TYPE_U64 && sp->type <= BP_TYPE_FILE, "%s.%s: type", b->name,
			      sp->name);
			for (const struct bench_param_spec *o = sp + 1; o->name; o++)
				CHECK(strcmp(o->name, sp->name), "%s: %s declared twice", b->name, sp->name);
			if (sp->type == BP_TYPE_U64)
				CHECK(sp->min <= sp->max && sp->max <= (1ull << 53), "%s.%s: range", b->name,
				      sp->name);
			if (sp->type == BP_TYPE_ENUM)
				CHECK(sp->values && *sp->values, "%s.%s: values", b->name, sp->name);
			/* a default is a value the table accepts, unless the bench
			 * computes it (BP_DERIVED: then the text says how) */
			if (sp->flags & BP_DERIVED)
				CHECK(sp->def && *sp->def, "%s.%s: a derived default says how", b->name, sp->name);
			else if (sp->def)
				CHECK(param_check_value(sp, sp->def, err, sizeof(err)) == 0,
				      "%s.%s: default %s: %s", b->name, sp->name, sp->def, err);
			/* the core owns placement (and run --tasks' as, shared) */
			CHECK(strcmp(sp->name, "placement") && strcmp(sp->name, "as") && strcmp(sp->name, "shared"),
			      "%s declares %s, which the core declares", b->name, sp->name);
		}
		/* every key a variant sets is declared, with a value it accepts */
		for (const char *const *v = b->variants; v && *v; v++) {
			char buf[256];
			snprintf(buf, sizeof(buf), "%s", *v);
			char *save = NULL;
			for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				char *eq = strchr(tok, '=');
				CHECK(eq != NULL, "%s: variant %s", b->name, *v);
				if (!eq)
					continue;
				*eq = 0;
				const struct bench_param_spec *sp = param_find(b, tok);
				CHECK(sp != NULL, "%s: variant key %s not declared", b->name, tok);
				if (sp)
					CHECK(param_check_value(sp, eq + 1, err, sizeof(err)) == 0,
					      "%s: variant %s=%s: %s", b->name, tok, eq + 1, err);
			}
		}
	}
}

static void test_validate(void)
{
	char err[1536];
	CHECK(validate1("io.randread", "engnie", "io_uring", err, sizeof(err)) == -1, "typo");
	CHECK(strstr(err, "did you mean engine?") && strstr(err, "engine, direct"), "%s", err);
	CHECK(!strstr(err, "inject"), "test-only keys are not offered: %s", err);
	CHECK(validate1("io.randread", "engine", "iouring", err, sizeof(err)) == -1, "bad enum");
	CHECK(strstr(err, "psync, libaio, io_uring, mmap") && strstr(err, "this build has") &&
		      strstr(err, "did you mean io_uring?"),
	      "%s", err);
	CHECK(validate1("io.seqread", "depth", "0", err, sizeof(err)) == -1, "depth=0");
	CHECK(strstr(err, "depth") && strstr(err, "1..4096"), "%s", err);
	CHECK(validate1("io.randread", "depth", "4", err, sizeof(err)) == -1, "depth on randread");
	CHECK(strstr(err, "io.seqread"), "names the benches that take it: %s", err);
	CHECK(validate1("fs.fileserver", "files", "-3", err, sizeof(err)) == -1, "files=-3");
	CHECK(strstr(err, "files") && strstr(err, "1..10000000"), "%s", err);
	CHECK(validate1("fs.fileserver", "max_kib", "abc", err, sizeof(err)) == -1, "abc");
	CHECK(validate1("fs.fileserver", "seed", "99999999999999999999999", err, sizeof(err)) == -1,
	      "overflow");
	CHECK(validate1("io.randread", "direct", "yes", err, sizeof(err)) == -1, "bool");
	CHECK(validate1("io.randread", "file", "/nonexistent/x", err, sizeof(err)) == -1, "file");
	CHECK(validate1("io.randread", "file", "/", err, sizeof(err)) == -1, "a directory");
	CHECK(validate1("fs.create", "x", "1", err, sizeof(err)) == -1 &&
		      strstr(err, "takes no parameters"),
	      "%s", err);
	CHECK(validate1("io.randread", "engine", "io_uring", err, sizeof(err)) == 0, "valid: %s", err);
	CHECK(validate1("fs.fileserver", "files", "20000", err, sizeof(err)) == 0, "valid: %s", err);
	CHECK(validate1("fs.fsync", "redirty", "0", err, sizeof(err)) == 0, "valid: %s", err);

	/* several benches: a key one of them takes passes, checked against it */
	const struct bench *two[2] = {bench_find("io.randread"), bench_find("io.seqread")};
	json_t *over = json_pack("{s:s}", "depth", "8");
	CHECK(param_validate(two, 2, bench_table, bench_count, over, err, sizeof(err)) == 0, "depth for seqread: %s", err);
	json_decref(over);
}

/* A bench without a table: only its variants' keys are taken. */
static const char *const fake_variants[] = {"mode=a,k=1", "mode=b,k=1", NULL};
static const struct bench fake = {.name = "x.fake", .variants = fake_variants};

static void test_no_table(void)
{
	CHECK(param_known(&fake, "mode") && param_known(&fake, "k"), "variant keys");
	CHECK(!param_known(&fake, "mod") && !param_known(&fake, "ode"), "not a prefix or suffix");
	const struct bench *sel[1] = {&fake};
	char err[1536];
	json_t *over = json_pack("{s:s}", "mdoe", "a");
	CHECK(param_validate(sel, 1, bench_table, bench_count, over, err, sizeof(err)) == -1 && strstr(err, "did you mean mode?"),
	      "%s", err);
	json_decref(over);
	over = json_pack("{s:s}", "mode", "c");
	CHECK(param_validate(sel, 1, bench_table, bench_count, over, err, sizeof(err)) == 0, "values unchecked without a table");
	param_no_variant(&fake, over, err, sizeof(err));
	CHECK(strstr(err, "mode=a|b") != NULL, "%s", err);
	json_decref(over);
}

/* The default is the table's: every parameter of every bench (the core's
 * own placement and as/shared included) without a given value reads its
 * declared default, or NULL when it has none or the bench derives it; a
 * given value wins. */
static void test_defaults(void)
{
	int nread = 0, nplaced = 0;
	for (int i = 0; i < bench_count; i++) {
		const struct bench *b = bench_table[i];
		json_t *p = json_object();
		struct bench_env env = {.params = p, .bench = b};
		const struct bench_param_spec *sp;
		for (int k = 0; (sp = param_at(b, k)); k++, nread++) {
			const char *got = bench_param(&env, sp->name);
			if (sp->def && !(sp->flags & BP_DERIVED)) {
				CHECK(got && !strcmp(got, sp->def), "%s.%s: default %s, read %s", b->name,
				      sp->name, sp->def, got ? got : "NULL");
				if (sp->type == BP_TYPE_U64 || sp->type == BP_TYPE_BOOL)
					CHECK(bench_param_u64(&env, sp->name) == strtoull(sp->def, NULL, 0),
					      "%s.%s: as a number", b->name, sp->name);
			} else {
				CHECK(got == NULL, "%s.%s: no default to read, read %s", b->name, sp->name, got);
			}
			json_object_set_new(p, sp->name, json_string("given"));
			got = bench_param(&env, sp->name);
			CHECK(got && !strcmp(got, "given"), "%s.%s: a given value wins", b->name, sp->name);
		}
		if (b->placement) {
			nplaced++;
			json_object_del(p, "placement");
			const char *got = bench_param(&env, "placement");
			CHECK(got && !strcmp(got, b->placement), "%s: placement defaults to .placement %s",
			      b->name, b->placement);
			CHECK(param_at(b, 0) && !strcmp(param_at(b, 0)->name, "placement"), "%s: placement listed",
			      b->name);
		}
		if (b->tasks) {
			const char *as = bench_param(&env, "as");
			CHECK(as && !strcmp(as, tasks_param_find(b, "as")->def), "%s: as's default", b->name);
		}
		json_decref(p);
	}
	CHECK(nread >= 50 && nplaced >= 5, "%d parameters read, %d benches with placement", nread, nplaced);
}

/* bench_param of an undeclared key aborts under SCALEBENCH_PARAM_STRICT. */
static void test_undeclared_read(void)
{
	json_t *p = json_object();
	struct bench_env env = {.params = p, .bench = bench_find("fs.fsync")};
	pid_t pid = fork();
	if (pid == 0) {
		setenv("SCALEBENCH_PARAM_STRICT", "1", 1);
		if (!freopen("/dev/null", "w", stderr))
			_exit(2);
		bench_param(&env, "apend");
		_exit(0);
	}
	int st = 0;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid, "fork");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "undeclared read aborts (status %d)", st);
	json_decref(p);
}

int main(void)
{
	test_distance();
	test_tables();
	test_validate();
	test_no_table();
	test_defaults();
	test_undeclared_read();
	return t_done("test_param");
}
