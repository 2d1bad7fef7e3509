/* k8s_engines.c - the table of the engines (engine_*.c), one per kind of
 * job object: the one of a kind, found once when a client is made
 * (k8s_client.c). */
#include "k8s_api.h"

#include <stddef.h>

static const struct pai__k8s_engine *const engines[] = {
    &pai__k8s_volcano_engine, &pai__k8s_paddlejob_engine,
    &pai__k8s_jobset_engine, &pai__k8s_pytorchjob_engine,
    &pai__k8s_trainjob_engine, &pai__k8s_mpijob_engine};

const struct pai__k8s_engine *pai__k8s_engine_of(pai_k8s_kind kind)
{
	size_t i;

	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (engines[i]->id == kind)
			return engines[i];
	return NULL;
}
