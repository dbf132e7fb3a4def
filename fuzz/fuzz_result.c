/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the result reader on arbitrary bytes, and the writers
 * fed by whatever it accepts. Invariants: no crash, no leak, no undefined
 * behaviour; an accepted document writes back to JSON that reads again;
 * compare of a result with itself finds no regression; the HTML and CSV
 * writers run over it. `make fuzz` (FUZZ_SECONDS=60) runs it on fuzz/corpus. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/compare.h"
#include "out/compare_text.h"
#include "out/result_io.h"
#include "out/report.h"
#include "core/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		return 0;
	struct run_result r;
	char err[512];
	if (result_from_json(j, &r, err, sizeof(err)) == 0) {
		json_t *back = result_to_json(&r);
		struct run_result r2;
		if (!back || result_from_json(back, &r2, err, sizeof(err)) != 0)
			abort(); /* what we accepted we must be able to write and read again */
		result_free(&r2);
		json_decref(back);
		struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01};
		int reg = 0;
		json_t *c = compare_results(&r, "a", &r, "b", &o, &reg);
		if (c && reg)
			abort(); /* a result cannot regress against itself */
		if (c)
			compare_print_text(c, sink());
		json_decref(c);
		const struct run_result *rs[] = {&r, &r};
		const char *labels[] = {"a", "b"};
		report_write_html(rs, labels, 2, sink());
		report_write_csv(rs, labels, 2, sink());
		result_free(&r);
	}
	json_decref(j);
	return 0;
}
