/* runtimes.c - the table of runtimes, and the entries that pick one. A
 * runtime is what a cluster makes of a job's tasks: OpenPAI v0.x
 * (openpai_v0x.c) runs v1 JSON configs, OpenPAI v1.x (openpai_v1x.c)
 * protocol-v2 ones. The choice is made here, once, by the job's format;
 * no other file asks which format a job has to know what its tasks see.
 * (Kubernetes pods, k8s_pod.c, run a job of either format: they read
 * the job's own runtime through these entries.) */
#include "runtime.h"

#include <stdbool.h>

/* Variables plus ports of one task's environment beyond which expanding
 * would take hundreds of megabytes (taskNumber has no upper bound in the
 * rules): pai_expand_task() answers PAI_ETOOBIG instead. */
#define EXPAND_MAX_ITEMS ((long long)1 << 20)

const struct pai__runtime *pai__runtime_of(const pai_job *job)
{
	return pai_job_format(job) == PAI_FORMAT_V2 ? &pai__runtime_v1x
						    : &pai__runtime_v0x;
}

/* Whether one task's environment would exceed EXPAND_MAX_ITEMS: in every
 * runtime, every task contributes its IP and its ports to every task's
 * environment. */
static bool too_big(const pai_job *job)
{
	size_t r, k, n = pai_job_role_count(job);
	long long items = 0;
	pai_role ro;
	pai_port p;

	for (r = 0; r < n; r++) {
		long long t, per = 2; /* the IP, and an entry in a host list */

		if (pai_job_role(&ro, job, r))
			continue;
		t = ro.task_number > 0 ? ro.task_number : 0;
		for (k = 0; k < ro.port_count; k++) {
			long long ports;

			if (pai_job_port(&p, job, r, k))
				continue;
			ports = p.port_number > 0 ? p.port_number : 0;
			if (ports > EXPAND_MAX_ITEMS)
				return true;
			per += 2 + 2 * ports;
		}
		if (per > EXPAND_MAX_ITEMS || t > EXPAND_MAX_ITEMS / per)
			return true;
		items += t * per;
		if (items > EXPAND_MAX_ITEMS)
			return true;
	}
	return false;
}

int pai_expand_task(pai_env **out, const pai_job *job, size_t role,
		    size_t index, const pai_expand_options *opts)
{
	pai_role ro;

	if (out)
		*out = NULL;
	if (!out || !job ||
	    (opts && opts->version != PAI_EXPAND_OPTIONS_VERSION) ||
	    pai_job_role(&ro, job, role) || ro.task_number <= 0 ||
	    index >= (unsigned long long)ro.task_number)
		return PAI_EINVAL;
	if (too_big(job))
		return PAI_ETOOBIG;
	return pai__runtime_of(job)->expand_task(out, job, role, index, opts);
}

int pai__expand_current(pai_env **out, const pai_job *job, size_t role,
			size_t index, const pai_expand_options *opts)
{
	*out = NULL;
	return pai__runtime_of(job)->expand_current(out, job, role, index,
						    opts);
}

int pai__shown_command(char **out, const pai_job *job, size_t role)
{
	*out = NULL;
	return pai__runtime_of(job)->shown_command(out, job, role);
}

int pai_job_role_entrypoint(char **out, const pai_job *job, size_t role)
{
	if (out)
		*out = NULL;
	if (!out || !job || role >= pai_job_role_count(job))
		return PAI_EINVAL;
	return pai__runtime_of(job)->entrypoint(out, job, role);
}
