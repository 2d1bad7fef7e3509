/* fuzz_logs.c - libFuzzer target for reading task logs: plain text
 * answered whole or in part (HTTP Range and Content-Range, 206, 416),
 * YARN's HTML log pages (the text of <pre>, entities decoded), and
 * pai_download()'s redirects. Built and run by `make fuzz`.
 *
 * Input: byte 0 picks the first offset, then the server's answers
 * (transport.h). Checks the promises of pai_log_read(): a NUL-terminated
 * text of *len bytes, *next = offset + *len, never a step back, and a
 * follow (reading again from *next) that keeps them. */
#include "transport.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_URL FUZZ_BASE "/logs/job1/main-0/user.pai.stdout"

/* One read from offset; the next offset, or -1 after an error. */
static long long read_once(pai_client *c, long long offset)
{
	char *data = (char *)"x";
	size_t len = 7;
	long long next = -5;
	int err = pai_log_read(&data, &len, &next, c, LOG_URL, offset);

	fuzz_check_result(c, err);
	if (err) {
		CHECK(data == NULL && len == 0 && next == offset);
		return -1;
	}
	CHECK(data != NULL && data[len] == '\0');
	CHECK(next == offset + (long long)len);
	free(data);
	return next;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long long offsets[] = {0, 1, 5, 100, 4096, 1LL << 40};
	fuzz_wire wire;
	pai_client *c;
	long long next;
	char *text = NULL;
	size_t len = 0;
	int round;

	if (size < 1)
		return 0;
	c = fuzz_client(&wire, (const char *)data + 1, size - 1);
	if (!c)
		return 0;
	if (data[0] & 0x80) {
		fuzz_check_result(c, pai_download(&text, &len, c, LOG_URL));
		CHECK(!text || text[len] == '\0');
		free(text);
	} else {
		next = offsets[data[0] % 6];
		/* as `paictl logs -f` does: again from where it got to */
		for (round = 0; round < 3 && next >= 0; round++) {
			long long was = next;

			next = read_once(c, next);
			CHECK(next < 0 || next >= was);
		}
	}
	pai_client_free(c);
	return 0;
}
