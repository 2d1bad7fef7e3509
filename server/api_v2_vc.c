/* api_v2_vc.c - the v2 API's virtual clusters and users, as an OpenPAI
 * v1.8 cluster answers them (reference/openpai-v1x-behaviour.md): the
 * local cluster has one virtual cluster, "default", holding the machine
 * (or --capacity), and the users of --users (on the Unix socket, its
 * owner too). OpenPAI's JavaScript SDK asks them. */
#include "http_int.h"

#include <stdlib.h>
#include <string.h>

static json_t *resources(long long cpu, long long mem_mb, long long gpu)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I}", "cpu", (json_int_t)cpu,
			 "memory", (json_int_t)mem_mb, "gpu", (json_int_t)gpu,
			 "vCores", (json_int_t)cpu, "GPUs", (json_int_t)gpu);
}

/* Under the lock: "default", with what its RUNNING jobs use. */
static json_t *default_vc(const struct srv *s)
{
	long long cpu = s->capped ? s->cap_cpus : s->host_cpus;
	long long mem = s->capped ? s->cap_mem_mb : s->host_mem_mb;
	long long gpu = s->capped ? s->cap_gpus : s->host_gpus;
	long long ucpu = 0, umem = 0, ugpu = 0;
	double used;
	size_t i, r;

	for (i = 0; i < s->njobs; i++) {
		const struct srv_job *j = s->jobs[i];

		if (j->state != ST_RUNNING)
			continue;
		for (r = 0; r < j->nroles; r++) {
			ucpu += j->roles[r].cpu * j->roles[r].task_number;
			umem += j->roles[r].memory_mb * j->roles[r].task_number;
			ugpu += j->roles[r].gpu * j->roles[r].task_number;
		}
	}
	used = cpu > 0 ? 100.0 * (double)ucpu / (double)cpu : 0;
	return json_pack("{s:i,s:f,s:i,s:b,s:o,s:o,s:o}", "capacity", 100,
			 "usedCapacity", used, "maxCapacity", 100, "dedicated",
			 0, "resourcesUsed", resources(ucpu, umem, ugpu),
			 "resourcesGuaranteed", resources(cpu, mem, gpu),
			 "resourcesTotal", resources(cpu, mem, gpu));
}

static bool vc_name_ok(const char *vc)
{
	return *vc && strspn(vc, "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
			  strlen(vc);
}

/* GET /api/v2/virtual-clusters[/{vc}] */
enum MHD_Result h_v2_vcs(struct listener *l, struct MHD_Connection *c,
			 const char *vc)
{
	enum MHD_Result res = MHD_NO;
	json_t *one;
	char *who;

	if (vc && !vc_name_ok(vc))
		return h_reply_error(c, 400, "InvalidParametersError",
				     "\"vcName\" with value \"%s\" fails to "
				     "match the required pattern: "
				     "/^[A-Za-z0-9_]+$/",
				     vc);
	if (!(who = h_v2_caller(l, c, &res)))
		return res;
	free(who);
	if (vc && strcmp(vc, "default") != 0)
		return h_reply_error(c, 404, "NoVirtualClusterError",
				     "Vc %s not found", vc);
	pthread_mutex_lock(&l->s->lock);
	one = default_vc(l->s);
	pthread_mutex_unlock(&l->s->lock);
	return h_reply_json(c, 200,
			    vc ? one : json_pack("{s:o}", "default", one));
}

/* Whether name is a user of this cluster; *admin says if an admin. */
static bool known_user(const struct srv *s, const char *name, bool tcp,
		       bool *admin)
{
	size_t i;

	*admin = false;
	for (i = 0; i < s->nusers; i++)
		if (strcmp(s->users[i].name, name) == 0) {
			*admin = s->users[i].admin;
			return true;
		}
	return !tcp && s->owner && strcmp(s->owner, name) == 0;
}

/* GET /api/v2/users/{name} */
enum MHD_Result h_v2_user(struct listener *l, struct MHD_Connection *c,
			  const char *name)
{
	enum MHD_Result res = MHD_NO;
	bool known, admin;
	char *who;

	if (!(who = h_v2_caller(l, c, &res)))
		return res;
	free(who);
	pthread_mutex_lock(&l->s->lock);
	known = known_user(l->s, name, l->tcp, &admin);
	pthread_mutex_unlock(&l->s->lock);
	if (!known)
		return h_reply_error(c, 400, "NoUserError",
				     "User %s is not found.", name);
	return h_reply_json(c, 200,
			    json_pack("{s:s,s:[s],s:s,s:{s:[]},s:b,s:[s],s:[]}",
				      "username", name, "grouplist", "default",
				      "email", "", "extension", "sshKeys",
				      "admin", admin, "virtualCluster",
				      "default", "storageConfig"));
}
