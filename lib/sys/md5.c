/* md5.c - MD5 (RFC 1321), for the one name a cluster derives with it:
 * OpenPAI v1.x calls a job's framework md5("user~job") in hex. Not for
 * anything that needs a secure hash. */
#include "sys.h"

#include <string.h>

struct md5 {
	uint32_t h[4];
	unsigned char block[64];
	size_t fill;	/* bytes in block */
	uint64_t total; /* bytes seen */
};

/* Per-round shift amounts, and the sine table: K[i] = floor(2^32 *
 * |sin(i + 1)|), as RFC 1321 section 3.4 defines them. */
static const unsigned char S[64] = {
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

static const uint32_t K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
    0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
    0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
    0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
    0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
    0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
    0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
    0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

static uint32_t rotl(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static void md5_block(struct md5 *m, const unsigned char *p)
{
	uint32_t w[16], a = m->h[0], b = m->h[1], c = m->h[2], d = m->h[3];
	unsigned i;

	for (i = 0; i < 16; i++) /* the message words are little-endian */
		w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
		       (uint32_t)p[4 * i + 2] << 16 |
		       (uint32_t)p[4 * i + 3] << 24;
	for (i = 0; i < 64; i++) {
		uint32_t f, t;
		unsigned g;

		if (i < 16)
			f = (b & c) | (~b & d), g = i;
		else if (i < 32)
			f = (d & b) | (~d & c), g = (5 * i + 1) % 16;
		else if (i < 48)
			f = b ^ c ^ d, g = (3 * i + 5) % 16;
		else
			f = c ^ (b | ~d), g = (7 * i) % 16;
		t = d;
		d = c;
		c = b;
		b = b + rotl(a + f + K[i] + w[g], S[i]);
		a = t;
	}
	m->h[0] += a;
	m->h[1] += b;
	m->h[2] += c;
	m->h[3] += d;
}

static void md5_update(struct md5 *m, const unsigned char *p, size_t n)
{
	m->total += n;
	while (n > 0) {
		size_t take = 64 - m->fill < n ? 64 - m->fill : n;

		memcpy(m->block + m->fill, p, take);
		m->fill += take;
		p += take;
		n -= take;
		if (m->fill == 64) {
			md5_block(m, m->block);
			m->fill = 0;
		}
	}
}

void pai__md5_hex(char out[33], const void *data, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	struct md5 m = {{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476},
			{0},
			0,
			0};
	unsigned char pad[72] = {0x80}, digest[16];
	uint64_t bits;
	size_t npad, i;

	md5_update(&m, data, len);
	/* 0x80, zeros up to 56 mod 64, then the length in bits (LE) */
	bits = m.total * 8;
	npad = m.fill < 56 ? 56 - m.fill : 120 - m.fill;
	for (i = 0; i < 8; i++)
		pad[npad + i] = (unsigned char)(bits >> (8 * i));
	md5_update(&m, pad, npad + 8);
	for (i = 0; i < 16; i++)
		digest[i] = (unsigned char)(m.h[i / 4] >> (8 * (i % 4)));
	for (i = 0; i < 16; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[32] = '\0';
}
