/* api.c - which API a client's calls go through: the table of modules,
 * chosen once per client (see api.h). */
#include "api.h"

#include <stdlib.h>
#include <string.h>

/* By pai_api: paictl's local cluster (dual) takes v1's routes, and has
 * extensions of its own (api_local.c). */
static const struct pai__api *const modules[] = {
    [PAI_API_V1] = &pai__api_v1,
    [PAI_API_V2] = &pai__api_v2,
    [PAI_API_DUAL] = &pai__api_local,
    [PAI_API_K8S] = &pai__api_k8s,
    [PAI_API_SLURM] = &pai__api_slurm,
};

static const char *const api_names[] = {"auto", "v1",  "v2",
					"dual", "k8s", "slurm"};

const char *pai_api_name(pai_api api)
{
	if ((unsigned)api < sizeof(api_names) / sizeof(api_names[0]))
		return api_names[api];
	return "auto";
}

int pai_api_from_name(pai_api *out, const char *name)
{
	size_t i;

	if (!out || !name)
		return PAI_EINVAL;
	for (i = 0; i < sizeof(api_names) / sizeof(api_names[0]); i++)
		if (strcmp(name, api_names[i]) == 0) {
			*out = (pai_api)i;
			return PAI_OK;
		}
	return PAI_EINVAL;
}

int pai_client_set_api(pai_client *c, pai_api api)
{
	if (!c || (unsigned)api > PAI_API_SLURM)
		return PAI_EINVAL;
	/* Kubernetes and Slurm are the client's make, not a choice: their
	 * state (the kubeconfig, the profile) comes with pai_client_new_k8s()
	 * and pai_client_new_slurm() */
	if ((c->api == PAI_API_K8S) != (api == PAI_API_K8S) ||
	    (c->api == PAI_API_SLURM) != (api == PAI_API_SLURM))
		return PAI_EINVAL;
	c->api = api;
	return PAI_OK;
}

pai_api pai_client_api(const pai_client *c)
{
	return c ? c->api : PAI_API_AUTO;
}

int pai__client_api(pai_client *c, const struct pai__api **out)
{
	pai_api found;
	int err;

	if (c->api == PAI_API_AUTO) {
		/* found once, on the first call that needs it */
		if ((err = pai__v2_detect(&found, c)))
			return err;
		pai__client_reset_error(c);
		c->api = found;
	}
	*out = modules[c->api];
	return PAI_OK;
}

int pai_api_detect(pai_api *out, pai_client *c)
{
	if (out)
		*out = PAI_API_AUTO;
	if (!out || !c)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if (c->api == PAI_API_K8S || c->api == PAI_API_SLURM) {
		*out = c->api; /* no OpenPAI route to ask there */
		return PAI_OK;
	}
	return pai__v2_detect(out, c);
}

long pai_client_poll_ms(const pai_client *c)
{
	return c && c->api != PAI_API_AUTO ? modules[c->api]->poll_ms : 0;
}
