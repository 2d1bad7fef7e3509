/* output.c - results on stdout: JSON, tables, times */
#include "cli.h"

#include <string.h>
#include <time.h>

int cli_print_json(json_t *o)
{
	int ret = o && json_dumpf(o, stdout, JSON_INDENT(2)) == 0 &&
			  putchar('\n') != EOF
		      ? 0
		      : -1;

	json_decref(o);
	return ret;
}

void cli_format_time(char *buf, size_t len, long long ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms <= 0 || !localtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "-");
}

void cli_table_print(FILE *f, size_t ncols, size_t nrows,
		     const char *const *cells)
{
	size_t w[16] = {0}, r, c;
	int color = cli_color(f);

	if (ncols > 16)
		ncols = 16;
	for (r = 0; r < nrows; r++)
		for (c = 0; c < ncols; c++) {
			size_t n = strlen(cells[r * ncols + c]);

			if (n > w[c])
				w[c] = n;
		}
	for (r = 0; r < nrows; r++) {
		for (c = 0; c < ncols; c++) {
			const char *s = cells[r * ncols + c];
			/* the STATE column's states, coloured; the padding
			 * after the colour ends */
			const char *on =
			    color && r > 0 && strcmp(cells[c], "STATE") == 0
				? cli_sgr(s)
				: "";

			if (*on)
				fprintf(f, "%s%s" CLI_SGR_OFF, on, s);
			else
				fputs(s, f);
			if (c + 1 == ncols)
				fputc('\n', f);
			else
				fprintf(f, "%*s  ", (int)(w[c] - strlen(s)),
					"");
		}
	}
}
