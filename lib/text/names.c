/* names.c - the names that the systems paictl talks to take as they are:
 * DNS-1123 labels and subdomains, Kubernetes' rule for namespaces,
 * objects and queues (its apimachinery's IsDNS1123Label/Subdomain) */
#include "text.h"

#include <string.h>

int pai__dns_name(const char *s, size_t max, int dots)
{
	size_t n = strlen(s), i;

	if (!n || n > max)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		int edge =
		    i == 0 || i + 1 == n || s[i - 1] == '.' || s[i + 1] == '.';

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			continue;
		if (c == '-' && !edge)
			continue;
		if (c == '.' && dots && !edge)
			continue;
		return 0;
	}
	return 1;
}
