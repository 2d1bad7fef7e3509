/* js.c - values written as JavaScript writes them: the servers paictl
 * imitates are Node.js programs (the rest-server, js-yaml), and a number
 * they turn into a string reads as String(x) does */
#include "text.h"

#include <stdio.h>
#include <stdlib.h>

/* A number as JavaScript's String(x) writes it, which is what the
 * server's template makes of a jobEnvs number: the shortest digits that
 * read back as the same double, 1.5 not 1.5000000000000000, 4 for 4.0,
 * 1e+21 from 21 digits on and 1e-7 below 1e-6. */
void pai__put_js_number(pai__buf *b, double x)
{
	char tmp[40], digits[24];
	const char *p;
	int prec, exp10, n, k = 0, z;

	if (x != x) {
		pai__buf_puts(b, "NaN");
		return;
	}
	if (x == 0) {
		pai__buf_putc(b, '0'); /* -0 too, as in JavaScript */
		return;
	}
	if (x < 0) {
		pai__buf_putc(b, '-');
		x = -x;
	}
	if (x > 1.7976931348623157e308) {
		pai__buf_puts(b, "Infinity");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, x);
		if (strtod(tmp, NULL) == x)
			break;
	}
	for (p = tmp; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			digits[k++] = *p;
	exp10 = *p ? atoi(p + 1) : 0;
	while (k > 1 && digits[k - 1] == '0')
		k--;
	n = exp10 + 1; /* x = 0.digits * 10^n */
	if (k <= n && n <= 21) {
		pai__buf_put(b, digits, (size_t)k);
		for (z = k; z < n; z++)
			pai__buf_putc(b, '0');
	} else if (0 < n && n <= 21) {
		pai__buf_put(b, digits, (size_t)n);
		pai__buf_putc(b, '.');
		pai__buf_put(b, digits + n, (size_t)(k - n));
	} else if (-6 < n && n <= 0) {
		pai__buf_puts(b, "0.");
		for (z = n; z < 0; z++)
			pai__buf_putc(b, '0');
		pai__buf_put(b, digits, (size_t)k);
	} else {
		pai__buf_putc(b, digits[0]);
		if (k > 1) {
			pai__buf_putc(b, '.');
			pai__buf_put(b, digits + 1, (size_t)(k - 1));
		}
		pai__buf_printf(b, "e%c%d", n - 1 < 0 ? '-' : '+',
				n - 1 < 0 ? 1 - n : n - 1);
	}
}
