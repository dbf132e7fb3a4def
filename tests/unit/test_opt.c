/* SPDX-License-Identifier: MIT */
/* Option tables: parsing, validation, messages. */
#include <string.h>
#include "cmd/opt.h"
#include "t.h"

int main(void)
{
	const char *dir = "/tmp", *fmt = "text";
	uint64_t n = 0;
	double b = 0;
	int quick = 0, seen = 0;
	const struct opt opts[] = {
		{"dir", 'd', OPT_STR, "PATH", "dir", 0, 0, NULL, &dir, NULL},
		{"max-n", 'n', OPT_U64, "N", "n", 1, 1000, NULL, &n, NULL},
		{"budget", 0, OPT_DOUBLE, "S", "b", 0.001, 10, NULL, &b, &seen},
		{"quick", 0, OPT_FLAG, NULL, "q", 0, 0, NULL, &quick, NULL},
		{"format", 'f', OPT_CHOICE, "F", "f", 0, 0, "text|json", &fmt, NULL},
		{0},
	};
	char *pos[4], err[256];
	int np;
	char *a1[] = {"fs", "--dir=/x", "-n", "50", "--budget", "0.5", "--quick", "net", "-fjson"};
	CHECK(opt_parse(opts, 9, a1, pos, 4, &np, err, sizeof(err)) == 0, "parse: %s", err);
	CHECK(!strcmp(dir, "/x") && n == 50 && b == 0.5 && seen && quick && !strcmp(fmt, "json"), "values");
	CHECK(np == 2 && !strcmp(pos[0], "fs") && !strcmp(pos[1], "net"), "positionals");
	struct { int argc; char *argv[3]; const char *msg; } bad[] = {
		{1, {"--nope"}, "unknown option '--nope'"},
		{1, {"-z"}, "unknown option '-z'"},
		{2, {"-n", "0"}, "--max-n: '0' is not a whole number from 1 to 1000"},
		{2, {"-n", "1001"}, "from 1 to 1000"},
		{2, {"-n", "-5"}, "not a positive whole number"},
		{2, {"-n", "12x"}, "'12x' is not"},
		{1, {"--max-n"}, "--max-n needs a value (N)"},
		{2, {"--budget", "nan"}, "--budget: 'nan' is not a number"},
		{1, {"--quick=1"}, "--quick takes no value"},
		{2, {"-f", "xml"}, "'xml' is not one of text|json"},
		{2, {"--dir", ""}, "--dir: empty value"},
		{3, {"a", "b", "c"}, "unexpected argument 'c'"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		int rc = opt_parse(opts, bad[i].argc, bad[i].argv, pos, 2, &np, err, sizeof(err));
		CHECK(rc == -1 && strstr(err, bad[i].msg), "bad %zu: '%s' lacks '%s'", i, err, bad[i].msg);
	}
	char *a2[] = {"--", "--dir"};
	CHECK(opt_parse(opts, 2, a2, pos, 4, &np, err, sizeof(err)) == 0 && np == 1 && !strcmp(pos[0], "--dir"), "-- ends options");
	return t_done("opt");
}
