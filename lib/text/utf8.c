/* utf8.c - bytes of text: UTF-8 characters and hex digits, as the JSON
 * and YAML readers and the diagnostics check and write them */
#include "text.h"

size_t pai__utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t k, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		k = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		k = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		k = 4;
	else
		return 0;
	if (n < k)
		return 0;
	for (i = 1; i < k; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	/* overlong forms, surrogates, and code points past U+10FFFF */
	if (c == 0xE0 && s[1] < 0xA0)
		return 0;
	if (c == 0xED && s[1] > 0x9F)
		return 0;
	if (c == 0xF0 && s[1] < 0x90)
		return 0;
	if (c == 0xF4 && s[1] > 0x8F)
		return 0;
	return k;
}

int pai__hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t pai__utf8_encode(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}
