/* engine.c - the engines a profile names, in one table, dispatched once
 * here: a Kubernetes cluster by its kubeconfig, a Slurm's login node
 * (ssh://) or slurmrestd, else an OpenPAI REST server (or paictl's own)
 * at its URI. Which engine opens a profile's client, whether it reads
 * its own credential, what adding it checks, its settings as JSON. A
 * new engine is a row here and its module's parts (engine.h). */
#include "api.h"
#include "engine.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int pai__open_fail(const struct pai__open *o, int err, const char *why)
{
	if (o->detail && why && !(*o->detail = strdup(why)))
		return PAI_ENOMEM;
	return err;
}

/* ---- OpenPAI's REST servers, and a URI with no profile --------------- */

static int open_openpai(pai_client **out, const struct pai__open *o)
{
	pai_api api = o->oo->api != PAI_API_AUTO ? o->oo->api
		      : o->prof			 ? o->prof->api
						 : PAI_API_AUTO;
	int err;

	if (o->oo->token_file)
		return pai__open_fail(o, PAI_EINVAL,
				      "a token file is read by the caller "
				      "here (pai_client_options.token)");
	err = pai_client_new(out, &o->opts);

	if (!err && api != PAI_API_AUTO)
		err = pai_client_set_api(*out, api);
	if (err) {
		pai_client_free(*out);
		*out = NULL;
		return pai__open_fail(o, err, pai_strerror(err));
	}
	return PAI_OK;
}

/* ---- Kubernetes ------------------------------------------------------ */

/* What profile name says of its Kubernetes cluster, its runtime
 * included: PAI_OK, or PAI_EINVAL when it is no such profile. */
static int k8s_of(pai_k8s_cluster *k, const pai_config *cfg, const char *name)
{
	if (pai_config_k8s(k, cfg, name) != PAI_OK)
		return PAI_EINVAL;
	if (pai_config_k8s_runtime(&k->runtime, &k->runtime_namespaced, cfg,
				   name) != PAI_OK)
		return PAI_EINVAL;
	return PAI_OK;
}

/* The kubeconfig says where the cluster is and what the credentials
 * are: no URI, no token file. */
static int open_k8s(pai_client **out, const struct pai__open *o)
{
	pai_k8s_cluster k;

	if (o->opts.uri)
		return pai__open_fail(o, PAI_EINVAL,
				      "a Kubernetes cluster: its kubeconfig "
				      "says where it is, not a URI");
	if (o->oo->token_file)
		return pai__open_fail(o, PAI_EINVAL,
				      "a Kubernetes cluster: its kubeconfig "
				      "has the credentials, not a token file");
	if (k8s_of(&k, o->cfg, o->name))
		return pai__open_fail(o, PAI_EINVAL,
				      "not a Kubernetes cluster's profile");
	k.version = PAI_K8S_CLUSTER_VERSION;
	return pai_client_new_k8s(out, o->detail, &o->opts, &k);
}

static json_t *k8s_settings(const pai_config *cfg, const char *name)
{
	pai_k8s_cluster k;

	if (k8s_of(&k, cfg, name))
		return NULL;
	return json_pack(
	    "{s:s?,s:s?,s:s?,s:s,s:s?,s:s,s:s?,s:s?,s:b}", "kubeconfig",
	    k.kubeconfig, "context", k.context, "namespace", k.ns, "engine",
	    pai_k8s_kind_name(k.kind), "queue", k.queue, "scheduler",
	    k.scheduler == PAI_K8S_SCHED_DEFAULT ? "default" : "volcano",
	    "defaultFs", k.fs_uri, "runtime", k.runtime, "runtimeNamespaced",
	    k.runtime_namespaced);
}

/* ---- the table --------------------------------------------------------- */

static const struct pai__engine engines[] = {
    {PAI_API_K8S, NULL,
     "its credentials come from the kubeconfig, as kubectl's do", open_k8s,
     NULL, k8s_settings, "kubernetes"},
    {PAI_API_SLURM, "ssh://",
     "its login node takes SSH keys (the profile's --identity, ~/.ssh's, "
     "the ssh-agent's)",
     pai__slurm_open, pai__slurm_probe_login, pai__slurm_settings, "slurm"},
    {PAI_API_SLURM, NULL,
     "slurmrestd takes a JWT, not a password; on a login node 'scontrol "
     "token' prints one: give it with --token-file or $SLURM_JWT",
     pai__slurm_open, NULL, pai__slurm_settings, "slurm"},
};

/* Any other profile, and a URI with no profile. */
static const struct pai__engine openpai = {
    PAI_API_AUTO, NULL, NULL, open_openpai, NULL, NULL, NULL};

static const struct pai__engine *engine_of(pai_api api, const char *uri)
{
	size_t i;

	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (engines[i].api == api &&
		    (!engines[i].scheme ||
		     (uri && strncasecmp(uri, engines[i].scheme,
					 strlen(engines[i].scheme)) == 0)))
			return &engines[i];
	return &openpai;
}

static const pai_profile *profile_of(const pai_config *cfg, const char *name)
{
	return cfg && name ? pai_config_find(cfg, name) : NULL;
}

int pai_client_open(pai_client **out, char **detail, const pai_config *cfg,
		    const char *name, const pai_client_options *opts,
		    const pai_open_options *oo)
{
	static const pai_open_options none = PAI_OPEN_OPTIONS_INIT;
	struct pai__open o;

	if (out)
		*out = NULL;
	if (detail)
		*detail = NULL;
	if (!out || !opts || opts->version != PAI_CLIENT_OPTIONS_VERSION ||
	    (oo && oo->version != PAI_OPEN_OPTIONS_VERSION))
		return PAI_EINVAL;
	memset(&o, 0, sizeof(o));
	o.cfg = cfg;
	o.name = name;
	o.prof = profile_of(cfg, name);
	o.opts = *opts;
	o.oo = oo ? oo : &none;
	o.detail = detail;
	if (!o.opts.uri && o.prof)
		o.opts.uri = o.prof->uri;
	return engine_of(o.prof ? o.prof->api : PAI_API_AUTO, o.opts.uri)
	    ->open(out, &o);
}

int pai_config_own_credentials(const char **how, const pai_config *cfg,
			       const char *name)
{
	const pai_profile *p = profile_of(cfg, name);
	const char *c = p ? engine_of(p->api, p->uri)->credentials : NULL;

	if (how)
		*how = c;
	return c != NULL;
}

int pai_client_probe(char **said, pai_client *c)
{
	const struct pai__engine *e;

	if (!said || !c)
		return PAI_EINVAL;
	*said = NULL;
	e = engine_of(pai_client_api(c), c->uri);
	return e->probe ? e->probe(said, c) : PAI_OK;
}

json_t *pai_config_settings(const char **key, const pai_config *cfg,
			    const char *name)
{
	const pai_profile *p = profile_of(cfg, name);
	const struct pai__engine *e = p ? engine_of(p->api, p->uri) : NULL;
	json_t *j = e && e->settings ? e->settings(cfg, name) : NULL;

	if (key)
		*key = j ? e->settings_key : NULL;
	return j;
}
