/* slurm_open.c - a Slurm profile as engine.c's table takes it: its
 * client (the profile's settings, the user, the JWT where slurmrestd
 * takes one, SSH for the login node and the job directories, the
 * version spoken kept between runs), what adding a login node checks,
 * and the settings as a listing shows them. */
#include "client/engine.h"
#include "slurm_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A login node logs in with SSH keys; slurmrestd takes a JWT: a token
 * file (the caller's, else the profile's), the caller's token, else
 * $SLURM_JWT's; none is said when a request needs it (slurm_client.c),
 * so that a profile is made and read without one. */
static const char *jwt_of(const struct pai__open *o, const pai_slurm_cluster *s)
{
	const char *env = getenv("SLURM_JWT");

	if (strncmp(o->opts.uri ? o->opts.uri : "", "ssh://", 6) == 0 ||
	    s->token_file || o->opts.token)
		return o->opts.token;
	return env && *env ? env : NULL;
}

/* SSH as the caller logs in, and the version kept, on client c. */
static int set_up(pai_client *c, const struct pai__open *o)
{
	int err = PAI_OK;

	if (o->oo->ssh)
		err = pai_client_set_sftp(c, o->oo->ssh);
	if (!err)
		err = pai__slurm_state_keep(c, o->oo->state_dir, o->name);
	return err;
}

int pai__slurm_open(pai_client **out, const struct pai__open *o)
{
	pai_slurm_cluster s;
	pai_client_options co = o->opts;
	int err;

	if (pai_config_slurm(&s, o->cfg, o->name) ||
	    pai_config_slurm_identity(&s.identity_file, o->cfg, o->name))
		return pai__open_fail(o, PAI_EINVAL,
				      "not a Slurm cluster's profile");
	s.version = PAI_SLURM_CLUSTER_VERSION;
	s.user = o->oo->user;
	if (o->oo->token_file)
		s.token_file = o->oo->token_file;
	co.token = jwt_of(o, &s);
	if ((err = pai_client_new_slurm(out, o->detail, &co, &s)))
		return err;
	if ((err = set_up(*out, o))) {
		pai_client_free(*out);
		*out = NULL;
		return pai__open_fail(o, err, pai_strerror(err));
	}
	return PAI_OK;
}

int pai__slurm_probe_login(char **said, pai_client *c)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	json_t *o = NULL, *v;
	pai__buf b = PAI__BUF_INIT;
	int err = pai_cluster_info(&o, c);

	if (err)
		return err;
	v = json_object_get(
	    json_object_get(json_object_get(o, "meta"), "slurm"), "release");
	pai__buf_printf(&b, "Slurm %s answered on the login node %s",
			json_is_string(v) ? json_string_value(v)
					  : "(version unknown)",
			json_string_value(json_object_get(o, "login"))
			    ? json_string_value(json_object_get(o, "login"))
			    : s->login_host);
	json_decref(o);
	*said = pai__buf_detach(&b);
	return *said ? PAI_OK : pai__client_oom(c);
}

json_t *pai__slurm_settings(const pai_config *cfg, const char *name)
{
	pai_slurm_cluster s;

	if (pai_config_slurm(&s, cfg, name) ||
	    pai_config_slurm_identity(&s.identity_file, cfg, name))
		return NULL;
	return json_pack("{s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:I,s:b,s:b,s:s?}",
			 "tokenFile", s.token_file, "partition", s.partition,
			 "account", s.account, "qos", s.qos, "workdir",
			 s.workdir, "sshHost", s.ssh_host, "sshPort",
			 (json_int_t)(s.ssh_port ? s.ssh_port : 22), "pyxis",
			 s.pyxis, "virtualClusterPartition", s.vc_partition,
			 "identityFile", s.identity_file);
}
