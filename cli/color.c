/* color.c - whether what goes to a stream may be coloured, and with what */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int color_when = CLI_COLOR_AUTO;

void cli_color_set(int when)
{
	color_when = when;
}

int cli_color(FILE *f)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (color_when != CLI_COLOR_AUTO)
		return color_when == CLI_COLOR_ALWAYS;
	if ((no && *no) || !term || strcmp(term, "dumb") == 0)
		return 0;
	return isatty(fileno(f));
}

const char *cli_sgr(const char *word)
{
	static const struct {
		const char *word, *sgr;
	} map[] = {{"error", "\033[1;31m"}, {"warning", "\033[1;35m"},
		   {"FAILED", "\033[31m"},  {"SUCCEEDED", "\033[32m"},
		   {"STOPPED", "\033[33m"}, {"STOPPING", "\033[33m"},
		   {"RUNNING", "\033[36m"}, {NULL, NULL}};
	size_t i;

	for (i = 0; word && map[i].word; i++)
		if (strcmp(map[i].word, word) == 0)
			return map[i].sgr;
	return "";
}
