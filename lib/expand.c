/* expand.c - placeholder, being written */
#include "internal.h"
int pai__check_references(pai_diags *diags, pai__src *src,
			  const pai__pos *pos, const pai_job *job)
{
	(void)diags; (void)src; (void)pos; (void)job;
	return PAI_OK;
}
