/* status.h - the job status and list JSON that OpenPAI's two REST APIs
 * send (status.c): shapes read into the model, no request made. Under
 * openpai.h. Not installed, not for cli/. */
#ifndef PAI_STATUS_H
#define PAI_STATUS_H

#include "client/model.h"
#include "client/rest.h"

/* OpenPAI v0.x and v1.x describe a job with the same members
 * ({name, jobStatus:{...}, taskRoles:{role:{taskStatuses:[...]}}}) and
 * a list entry with the same summary fields. */

/* Fills info from a job status object o (info->json takes a reference
 * of its own). PAI_EPROTOCOL when o is not a status, PAI_ENOMEM. */
int pai__status_parse(pai_job_info *info, json_t *o);
/* A list answer (a JSON array, or v2's {"data": [...]}) as a list:
 * takes *a. PAI_EPROTOCOL with the detail set for another shape. */
int pai__status_list(pai_job_list **out, pai_client *c, const char *url,
		     json_t *a);

#endif /* PAI_STATUS_H */
