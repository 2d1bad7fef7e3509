/* sha1.c - SHA-1 (FIPS 180-4), for the one place a protocol asks for it:
 * a WebSocket upgrade's Sec-WebSocket-Accept (RFC 6455 §4.2.2). libpai
 * links no crypto library (TLS is libcurl's, opened at run time), and
 * this needs only these lines. Not for anything that needs a secure
 * hash. */
#include "sys.h"

#include <string.h>

#define ROL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

static void sha1_block(uint32_t h[5], const unsigned char *p)
{
	uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], t;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 80; i++)
		w[i] = ROL(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (i = 0; i < 80; i++) {
		if (i < 20)
			t = ((b & c) | (~b & d)) + 0x5A827999u;
		else if (i < 40)
			t = (b ^ c ^ d) + 0x6ED9EBA1u;
		else if (i < 60)
			t = ((b & c) | (b & d) | (c & d)) + 0x8F1BBCDCu;
		else
			t = (b ^ c ^ d) + 0xCA62C1D6u;
		t += ROL(a, 5) + e + w[i];
		e = d;
		d = c;
		c = ROL(b, 30);
		b = a;
		a = t;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

void pai__sha1(unsigned char out[20], const void *in, size_t n)
{
	uint32_t h[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u,
			 0xC3D2E1F0u};
	const unsigned char *p = in;
	unsigned char last[128] = {0};
	uint64_t bits = (uint64_t)n * 8;
	size_t i, rest, tail;

	for (i = 0; i + 64 <= n; i += 64)
		sha1_block(h, p + i);
	rest = n - i;
	memcpy(last, p + i, rest);
	last[rest] = 0x80;
	tail = rest < 56 ? 64 : 128;
	for (i = 0; i < 8; i++)
		last[tail - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha1_block(h, last);
	if (tail == 128)
		sha1_block(h, last + 64);
	for (i = 0; i < 20; i++)
		out[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
}
