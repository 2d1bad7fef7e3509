/* base64.c - standard base64 (RFC 4648 §4): encoded for the WebSocket
 * handshake, a Basic credential and host key fingerprints; decoded as
 * Go's encoding/json decodes a []byte (a kubeconfig's -data fields).
 * And base64url without padding (§5, as a JWT's parts are) decoded. */
#include "sys.h"

#include <stdlib.h>
#include <string.h>

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void pai__base64_encode(char *out, const void *in, size_t n)
{
	const unsigned char *p = in;
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		*out++ = b64[p[i] >> 2];
		*out++ = b64[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		*out++ = b64[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
		*out++ = b64[p[i + 2] & 63];
	}
	if (i < n) {
		*out++ = b64[p[i] >> 2];
		if (i + 1 < n) {
			*out++ = b64[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
			*out++ = b64[(p[i + 1] & 15) << 2];
		} else {
			*out++ = b64[(p[i] & 3) << 4];
			*out++ = '=';
		}
		*out++ = '=';
	}
	*out = '\0';
}

static int b64_value(int c)
{
	const char *p = c ? strchr(b64, c) : NULL;

	return p ? (int)(p - b64) : -1;
}

/* One group of four characters, padding allowed only where last says
 * so; the bytes it gives, or -1. */
static int b64_group(unsigned char *o, const char g[4], int last)
{
	int v[4], i, bytes = 3;

	for (i = 0; i < 4; i++) {
		if (g[i] == '=' && last && i >= 2) {
			if (i == 2 && g[3] != '=')
				return -1;
			bytes = i - 1;
			break;
		}
		if ((v[i] = b64_value((unsigned char)g[i])) < 0)
			return -1;
	}
	o[0] = (unsigned char)(v[0] << 2 | v[1] >> 4);
	if (bytes > 1)
		o[1] = (unsigned char)(v[1] << 4 | v[2] >> 2);
	if (bytes > 2)
		o[2] = (unsigned char)(v[2] << 6 | v[3]);
	return bytes;
}

/* Go's StdEncoding, as encoding/json decodes a []byte: groups of four,
 * '=' only to pad the last one, '\r' and '\n' skipped anywhere. */
int pai__base64_decode(unsigned char **out, size_t *len, const char *in,
		       size_t n)
{
	unsigned char *o = malloc(n / 4 * 3 + 4);
	char g[4];
	size_t i, k = 0, got = 0, left = 0;
	int b;

	*out = NULL;
	*len = 0;
	if (!o)
		return PAI_ENOMEM;
	for (i = 0; i < n; i++)
		left += in[i] != '\r' && in[i] != '\n';
	if (left % 4)
		goto bad;
	for (i = 0; i < n; i++) {
		if (in[i] == '\r' || in[i] == '\n')
			continue;
		g[got++ % 4] = in[i];
		if (got % 4)
			continue;
		if ((b = b64_group(o + k, g, got == left)) < 0)
			goto bad;
		k += (size_t)b;
	}
	o[k] = '\0';
	*out = o;
	*len = k;
	return PAI_OK;
bad:
	pai__wipe(o, n / 4 * 3 + 4); /* what came so far may be a key's */
	free(o);
	return PAI_EINVAL;
}

static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int pai__base64url_decode(unsigned char **out, size_t *len, const char *in,
			  size_t n)
{
	size_t cap = n / 4 * 3 + 3, i, k = 0;
	unsigned acc = 0, bits = 0;
	const char *p;
	unsigned char *o;

	*out = NULL;
	*len = 0;
	/* no encoding ends with a single character of a group */
	if (n % 4 == 1)
		return PAI_EINVAL;
	if (!(o = malloc(cap)))
		return PAI_ENOMEM;
	for (i = 0; i < n; i++) {
		if (!in[i] || !(p = strchr(b64url, in[i]))) {
			pai__wipe(o, cap);
			free(o);
			return PAI_EINVAL;
		}
		acc = ((acc << 6) | (unsigned)(p - b64url)) & 0xfff;
		if ((bits += 6) >= 8) {
			bits -= 8;
			o[k++] = (unsigned char)(acc >> bits);
		}
	}
	o[k] = '\0';
	*out = o;
	*len = k;
	return PAI_OK;
}
