/* config_slurm.c - a Slurm profile's settings in the profiles file: the
 * token file, what a job is submitted with (partition, account, qos,
 * Pyxis), where the jobs' directories are (workdir) and how they are
 * reached from elsewhere (sshHost, sshPort). See config_slurm.h. */
#include "config_slurm.h"
#include "json_values.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pai__slurm_prof_release(struct pai__slurm_prof *s)
{
	free(s->token_file);
	free(s->partition);
	free(s->account);
	free(s->qos);
	free(s->workdir);
	free(s->ssh_host);
	free(s->identity_file);
	memset(s, 0, sizeof(*s));
}

/* A value Slurm takes on a command line: no blank, no control
 * character, no '=' or ',' that would split it. */
static int plain(const char *v)
{
	if (!v)
		return 1;
	if (!*v)
		return 0;
	for (; *v; v++)
		if ((unsigned char)*v <= ' ' || *v == 0x7f || *v == ',' ||
		    *v == '=')
			return 0;
	return 1;
}

/* A version 1 caller's struct, as this version's (*buf the copy). */
static const pai_slurm_cluster *current(pai_slurm_cluster *buf,
					const pai_slurm_cluster *s)
{
	if (!s || s->version != 1)
		return s;
	memset(buf, 0, sizeof(*buf));
	memcpy(buf, s, offsetof(pai_slurm_cluster, identity_file));
	buf->version = PAI_SLURM_CLUSTER_VERSION;
	return buf;
}

static int valid(const pai_slurm_cluster *s)
{
	return s->version == PAI_SLURM_CLUSTER_VERSION && plain(s->partition) &&
	       plain(s->account) && plain(s->qos) && plain(s->ssh_host) &&
	       (!s->workdir || (s->workdir[0] == '/' &&
				!strpbrk(s->workdir, "\n\r"))) &&
	       (!s->token_file || *s->token_file) &&
	       (!s->identity_file || s->identity_file[0] == '/') &&
	       s->ssh_port >= 0 &&
	       s->ssh_port <= 65535;
}

int pai__slurm_prof_copy(struct pai__slurm_prof *dst,
			 const pai_slurm_cluster *src)
{
	struct pai__slurm_prof s;
	pai_slurm_cluster buf;

	src = current(&buf, src);
	memset(&s, 0, sizeof(s));
	s.ssh_port = src->ssh_port;
	s.pyxis = src->pyxis ? 1 : 0;
	s.vc_partition = src->vc_partition ? 1 : 0;
	if (pai__strdup_opt(&s.token_file, src->token_file) ||
	    pai__strdup_opt(&s.partition, src->partition) ||
	    pai__strdup_opt(&s.account, src->account) ||
	    pai__strdup_opt(&s.qos, src->qos) ||
	    pai__strdup_opt(&s.workdir, src->workdir) ||
	    pai__strdup_opt(&s.ssh_host, src->ssh_host) ||
	    pai__strdup_opt(&s.identity_file, src->identity_file)) {
		pai__slurm_prof_release(&s);
		return PAI_ENOMEM;
	}
	pai__slurm_prof_release(dst);
	*dst = s;
	return PAI_OK;
}

int pai__slurm_prof_set(struct pai__slurm_prof *dst,
			const pai_slurm_cluster *src)
{
	pai_slurm_cluster buf;

	if (!src || !valid(current(&buf, src)))
		return PAI_EINVAL;
	return pai__slurm_prof_copy(dst, src);
}

void pai__slurm_prof_get(pai_slurm_cluster *out,
			 const struct pai__slurm_prof *s)
{
	static const pai_slurm_cluster init = PAI_SLURM_CLUSTER_INIT;

	*out = init;
	out->token_file = s->token_file;
	out->partition = s->partition;
	out->account = s->account;
	out->qos = s->qos;
	out->workdir = s->workdir;
	out->ssh_host = s->ssh_host;
	out->identity_file = s->identity_file;
	out->ssh_port = s->ssh_port;
	out->pyxis = s->pyxis;
	out->vc_partition = s->vc_partition;
}

static char *why_of(const char *name, const char *what)
{
	char *s = NULL;

	if (asprintf(&s, "cluster '%s': slurm.%s", name, what) < 0)
		s = NULL;
	return s;
}

/* A boolean member into *v: absent is 0; -1 for another type. */
static int bool_member(int *v, json_t *o, const char *key)
{
	json_t *m = json_object_get(o, key);

	*v = json_is_true(m);
	return !m || json_is_boolean(m) ? 0 : -1;
}

/* The members that are no strings: sshPort, pyxis,
 * virtualClusterPartition. */
static int read_others(pai_slurm_cluster *c, json_t *o, const char *name,
		       char **why)
{
	json_t *port = json_object_get(o, "sshPort");

	if (port && !json_is_null(port) &&
	    (!json_is_integer(port) || json_integer_value(port) < 1 ||
	     json_integer_value(port) > 65535)) {
		*why = why_of(name, "sshPort must be a port number");
		return PAI_ESYNTAX;
	}
	c->ssh_port = port ? (long)json_integer_value(port) : 0;
	if (bool_member(&c->pyxis, o, "pyxis") ||
	    bool_member(&c->vc_partition, o, "virtualClusterPartition")) {
		*why = why_of(name, "pyxis and virtualClusterPartition must "
				    "be true or false");
		return PAI_ESYNTAX;
	}
	return PAI_OK;
}

int pai__slurm_prof_read(struct pai__slurm_prof *s, json_t *o,
			 const char *name, char **why)
{
	pai_slurm_cluster c = PAI_SLURM_CLUSTER_INIT;
	int err;

	if (o && !json_is_null(o) && !json_is_object(o)) {
		*why = why_of(name, "(the member) must be an object");
		return PAI_ESYNTAX;
	}
	if (pai__json_str_member(&c.token_file, o, "tokenFile") ||
	    pai__json_str_member(&c.partition, o, "partition") ||
	    pai__json_str_member(&c.account, o, "account") ||
	    pai__json_str_member(&c.qos, o, "qos") ||
	    pai__json_str_member(&c.workdir, o, "workdir") ||
	    pai__json_str_member(&c.ssh_host, o, "sshHost") ||
	    pai__json_str_member(&c.identity_file, o, "identityFile")) {
		*why = why_of(name, "tokenFile, partition, account, qos, "
				    "workdir, sshHost and identityFile must "
				    "be strings");
		return PAI_ESYNTAX;
	}
	if ((err = read_others(&c, o, name, why)))
		return err;
	err = pai__slurm_prof_set(s, &c);
	if (err == PAI_EINVAL) {
		*why = why_of(name, "a workdir or identityFile that is not "
				    "absolute, or a partition, account, qos "
				    "or sshHost with a blank, ',' or '='");
		return PAI_ESYNTAX;
	}
	return err;
}

json_t *pai__slurm_prof_json(const struct pai__slurm_prof *s)
{
	json_t *o = json_object();

	if (!o || pai__json_put_str(o, "tokenFile", s->token_file) ||
	    pai__json_put_str(o, "partition", s->partition) ||
	    pai__json_put_str(o, "account", s->account) ||
	    pai__json_put_str(o, "qos", s->qos) ||
	    pai__json_put_str(o, "workdir", s->workdir) ||
	    pai__json_put_str(o, "sshHost", s->ssh_host) ||
	    pai__json_put_str(o, "identityFile", s->identity_file) ||
	    (s->ssh_port &&
	     json_object_set_new(o, "sshPort", json_integer(s->ssh_port))) ||
	    json_object_set_new(o, "pyxis", json_boolean(s->pyxis)) ||
	    json_object_set_new(o, "virtualClusterPartition",
				json_boolean(s->vc_partition))) {
		json_decref(o);
		return NULL;
	}
	return o;
}
