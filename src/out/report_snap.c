/* SPDX-License-Identifier: MIT */
/* The snapshots side by side: each snapshot flattened to "path = value"
 * rows (kernel.release, filesystem.type, ...), one column per input, and
 * the rows whose values differ highlighted and listed first. */
#include "out/report.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 4000
#define MAX_DEPTH 12
#define MAX_VALUE 300

/* rows: path -> array of n values (strings or null). */
static void flatten(json_t *rows, const json_t *v, char *path, size_t len, int depth, int col,
		    int n)
{
	size_t used = strlen(path);
	if (json_object_size(rows) >= MAX_ROWS)
		return;
	if ((json_is_object(v) || json_is_array(v)) && depth < MAX_DEPTH &&
	    (json_object_size(v) || json_array_size(v))) {
		const char *k;
		json_t *c;
		size_t i;
		if (json_is_object(v)) {
			json_object_foreach((json_t *)v, k, c) {
				snprintf(path + used, len - used, "%s%s", used ? "." : "", k);
				flatten(rows, c, path, len, depth + 1, col, n);
			}
		} else {
			json_array_foreach(v, i, c) {
				snprintf(path + used, len - used, "[%zu]", i);
				flatten(rows, c, path, len, depth + 1, col, n);
			}
		}
		path[used] = 0;
		return;
	}
	char *txt = json_is_string(v) ? strdup(json_string_value(v))
				      : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	if (!txt)
		return;
	if (strlen(txt) > MAX_VALUE) {
		size_t cut = MAX_VALUE - 3;
		while (cut > 0 && ((unsigned char)txt[cut] & 0xc0) == 0x80)
			cut--; /* not inside a UTF-8 sequence */
		strcpy(txt + cut, "...");
	}
	json_t *row = json_object_get(rows, path);
	if (!row) {
		row = json_array();
		for (int i = 0; i < n; i++)
			json_array_append_new(row, json_null());
		json_object_set_new(rows, path, row);
	}
	json_array_set_new(row, (size_t)col, json_string(txt)); /* NULL (bad UTF-8) -> no-op */
	free(txt);
}

static int row_differs(const json_t *row)
{
	const json_t *first = json_array_get(row, 0);
	for (size_t i = 1; i < json_array_size(row); i++)
		if (!json_equal(first, json_array_get(row, i)) &&
		    !(json_is_null(first) && json_is_null(json_array_get(row, i))))
			return 1;
	return 0;
}

static void table(FILE *f, const json_t *rows, const char *const *labels, int n, int only_diff)
{
	fputs("<table class=\"snap\"><tr><th>field</th>", f);
	for (int i = 0; i < n; i++) {
		fputs("<th>", f);
		html_escape(f, labels[i]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	const char *k;
	json_t *row;
	json_object_foreach((json_t *)rows, k, row) {
		int d = n > 1 && row_differs(row);
		if (only_diff && !d)
			continue;
		fputs(d ? "<tr class=\"diff\"><td class=\"mono\">" : "<tr><td class=\"mono\">", f);
		html_escape(f, k);
		fputs("</td>", f);
		const json_t *v0 = json_array_get(row, 0);
		for (int i = 0; i < n; i++) {
			const json_t *v = json_array_get(row, (size_t)i);
			/* the cells that differ from the first input's: bold */
			fputs(i && d && !json_equal(v, v0) ? "<td class=\"mono diff\">" : "<td class=\"mono\">", f);
			html_escape(f, json_is_string(v) ? json_string_value(v) : "-");
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

void report_snapshots(FILE *f, const struct run_result *const *rs, const char *const *labels,
		      int n)
{
	json_t *rows = json_object();
	char path[1024];
	for (int i = 0; i < n; i++) {
		path[0] = 0;
		flatten(rows, rs[i]->snapshot, path, sizeof(path), 0, i, n);
	}
	int ndiff = 0;
	const char *k;
	json_t *row;
	json_object_foreach(rows, k, row)
		ndiff += n > 1 && row_differs(row);
	if (n > 1) {
		fprintf(f, "<p>%d of %zu fields differ between the snapshots%s</p>\n", ndiff,
			json_object_size(rows), ndiff ? " (highlighted):" : ".");
		if (ndiff)
			table(f, rows, labels, n, 1);
	}
	fprintf(f, "<details><summary>All %zu snapshot fields</summary>\n", json_object_size(rows));
	table(f, rows, labels, n, 0);
	fputs("</details>\n", f);
	json_decref(rows);
}
