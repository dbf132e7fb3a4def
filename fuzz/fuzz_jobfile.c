/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the job file reader (src/core/jobfile.c): any text
 * is read or refused with a message, never a crash, leak or overflow; what
 * is read has well-formed sections and keys. Includes name files relative
 * to the working directory: the corpus has none that exist. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/jobfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *lookup(void *ctx, const char *name)
{
	(void)ctx;
	return !strcmp(name, "ncpus") ? "2" : !strcmp(name, "LONG") ? "0123456789abcdef0123456789abcdef" : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jobfile jf;
	char err[1024];
	if (jobfile_parse("fuzz.job", (const char *)data, size, lookup, NULL, &jf, err, sizeof(err)) == 0) {
		for (int i = 0; i < jf.nsec; i++) {
			if (!jf.sec[i].name[0])
				abort();
			for (int k = 0; k < jf.sec[i].nkv; k++)
				if (!jf.sec[i].kv[k].key[0] || strchr(jf.sec[i].kv[k].value, '\n'))
					abort();
		}
		jobfile_free(&jf);
	} else if (!err[0]) {
		abort(); /* a refusal always says why */
	}
	return 0;
}
