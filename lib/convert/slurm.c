/* slurm.c - a job as one Slurm batch job: the body of slurmrestd's
 * POST .../job/submit (reference/slurm.md). One component when every
 * role asks for the same resources, else a heterogeneous job of one
 * component per role, so that Slurm gives each role what it asks for.
 * The batch script makes the job's directory, learns the address of
 * the node of every task (scontrol), and starts every task of every
 * role with one srun; each task, the same script again, exports its
 * $PAI_* environment (runtime/slurm_task.c, the nodes' addresses put in
 * for the marks there), runs its role's command in its own directory
 * and leaves its output, error and exit record there. */
#include "convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RULE_ENV_NAME "slurm-env-name"
#define RULE_IMAGE    "slurm-image"
#define RULE_UTF8     "slurm-utf8"

/* [A-Za-z_][A-Za-z0-9_]*: what bash can export */
static int shell_name(const char *s)
{
	if (!pai__is_name_char((unsigned char)*s) || (*s >= '0' && *s <= '9'))
		return 0;
	while (*++s)
		if (!pai__is_name_char((unsigned char)*s))
			return 0;
	return 1;
}

/* The literal piece in lit quoted onto b, and lit emptied. */
static void flush(pai__buf *b, pai__buf *lit)
{
	if (!lit->len)
		return;
	pai__shell_quote(b, lit->data);
	lit->len = 0;
}

/* A value as bash reads it back: literal pieces quoted, the marks of t
 * as the batch script's ${H[rank]} and $SLURM_JOB_ID. */
static void put_value(pai__buf *b, const struct pai__slurm_tasks *t,
		      const char *v)
{
	pai__buf lit = PAI__BUF_INIT;
	enum pai__slurm_mark kind;
	size_t n, rank;

	if (!*v)
		pai__buf_puts(b, "''");
	while (*v) {
		n = *v == '\x01' ? pai__slurm_mark(t, v, &kind, &rank) : 0;
		if (!n) {
			pai__buf_putc(&lit, *v++);
			continue;
		}
		flush(b, &lit);
		if (kind == PAI__SLURM_MARK_JOB)
			pai__buf_puts(b, "\"$SLURM_JOB_ID\"");
		else
			pai__buf_printf(b, "\"${H[%zu]}\"", rank);
		v += n;
	}
	flush(b, &lit);
	if (lit.oom)
		b->oom = 1;
	pai__buf_release(&lit);
}

/* Where the diagnostics of a submission point: the file, no place. */
static pai__src source_named(const char *name)
{
	pai__src src;

	memset(&src, 0, sizeof(src));
	src.name = name ? name : "<config>";
	return src;
}

/* "export NAME=value" lines for the variables of env (names checked). */
static int put_exports(pai__buf *b, pai_diags *diags,
		       const struct pai__slurm_tasks *t, json_t *env,
		       const char *indent)
{
	pai__src src = source_named(t->source);
	const char *name;
	json_t *v;

	json_object_foreach(env, name, v)
	{
		if (!shell_name(name))
			return pai__diag_add(diags, &src, PAI__NO_OFFSET,
					     PAI_SEVERITY_ERROR, "jobEnvs",
					     RULE_ENV_NAME,
					     "'%s' is no name a shell can "
					     "export to a Slurm task",
					     name)
				   ? PAI_ENOMEM
				   : PAI_EINVALID;
		pai__buf_printf(b, "%sexport %s=", indent, name);
		put_value(b, t, json_string_value(v));
		pai__buf_putc(b, '\n');
	}
	return PAI_OK;
}

/* env (a pai_env) as a JSON object name -> value; NULL out of memory. */
static json_t *env_json(const pai_env *env)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < pai_env_count(env); i++)
		if (json_object_set_new(o, pai_env_name(env, i),
					json_string(pai_env_value(env, i)))) {
			json_decref(o);
			return NULL;
		}
	return o;
}

/* 1 when s is UTF-8 throughout (NULL: nothing to check). */
static int utf8(const char *s)
{
	size_t k, n = s ? strlen(s) : 0;

	for (; n; s += k, n -= k)
		if (!(k = pai__utf8_len((const unsigned char *)s, n)))
			return 0;
	return 1;
}

/* What the profile and cluster give a submission (the user name, the
 * directories, the partition...) goes to slurmrestd as JSON, the user
 * name and directories in the tasks' variables too: one that is not
 * UTF-8 is an error in diags (PAI_EINVALID), said before anything is
 * made of it (json_pack would fail, and that read as out of memory). */
static int options_utf8(pai_diags *diags, const struct pai__slurm_submit *o)
{
	const char *const what[] = {
	    "user name",     "job name", "working directory",
	    "job directory", "comment",	 "partition",
	    "account",	     "qos",	 "image"};
	const char *const v[] = {o->user,    o->name,	 o->workdir,
				 o->jobdir,  o->comment, o->partition,
				 o->account, o->qos,	 o->image};
	pai__src src = source_named(o->source);
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!utf8(v[i]))
			return pai__diag_add(diags, &src, PAI__NO_OFFSET,
					     PAI_SEVERITY_ERROR, NULL,
					     RULE_UTF8,
					     "the %s is not UTF-8: a Slurm job "
					     "is sent as JSON, which cannot "
					     "carry it",
					     what[i])
				   ? PAI_ENOMEM
				   : PAI_EINVALID;
	return PAI_OK;
}

/* ---- the script ---------------------------------------------------------- */

/* What every run of the script has first: the job's directory, and how
 * a record is written (whole, then renamed: a reader never sees half). */
static void put_head(pai__buf *b, const pai_job *job,
		     const struct pai__slurm_submit *o)
{
	pai__buf_puts(b, "#!/bin/bash\n# paictl: job ");
	pai__shell_quote(b, pai_job_name(job));
	pai__buf_printf(b, ", submission %s: every task of every role, each "
			   "with OpenPAI's\n# environment (paictl-submit(1)). "
			   "Generated; run by Slurm.\numask 077\nD=",
			o->subid);
	pai__shell_quote(b, o->jobdir);
	pai__buf_puts(b, "\nrecord() { # FILE KEY=VALUE...\n"
			 "\tprintf '%s\\n' \"${@:2}\" >\"$1.tmp\" && "
			 "mv -f \"$1.tmp\" \"$1\"\n}\n");
}

/* The batch step's helpers: addrs NODELIST notes each node's address
 * (NodeAddr) in A; hosts NODELIST TASKS_PER_NODE says one address per
 * task, as srun's block distribution places them. */
static const char batch_helpers[] =
    "\taddrs() {\n"
    "\t\tlocal f x n a\n"
    "\t\twhile read -r -a f; do n= a=\n"
    "\t\t\tfor x in \"${f[@]}\"; do case $x in\n"
    "\t\t\tNodeName=*) n=${x#*=};; NodeAddr=*) a=${x#*=};; esac; done\n"
    "\t\t\t[ -n \"$n\" ] && A[$n]=${a:-$n}\n"
    "\t\tdone < <(scontrol show node -o \"$1\" 2>/dev/null)\n"
    "\t}\n"
    "\thosts() {\n"
    "\t\tlocal l=($(scontrol show hostnames \"$1\")) k=0 s n c j\n"
    "\t\tfor s in ${2//,/ }; do n=${s%%(*} c=1\n"
    "\t\t\t[[ $s == *'(x'* ]] && { c=${s#*(x}; c=${c%)}; }\n"
    "\t\t\tfor ((; c > 0; c--, k++)); do\n"
    "\t\t\t\tfor ((j = 0; j < n; j++)); do\n"
    "\t\t\t\t\tprintf '%s ' \"${A[${l[k]}]:-${l[k]}}\"; done; done\n"
    "\t\tdone\n"
    "\t}\n";

/* The job's end as OpenPAI decides it, from the tasks' records: tally
 * sets, per role (RN: names, RC: task counts, MF and MS: its
 * minFailedTaskCount and minSucceededTaskCount, -1 for null), V to
 * "failed" once MF tasks of a role failed, else "succeeded" once MS of
 * one succeeded, else "all" when every task ended; F the exit code of
 * the first task to fail (one stopped by its job does not count). */
static const char batch_tally[] =
    "\ttally() {\n"
    "\t\tlocal r i k v x e t s n b= all=1\n"
    "\t\tV= F=\n"
    "\t\tfor ((r = 0; r < ${#RN[@]}; r++)); do s=0 n=0\n"
    "\t\t\tfor ((i = 0; i < RC[r]; i++)); do x= e= t=0\n"
    "\t\t\t\t[ -f \"$D/${RN[r]}-$i/record\" ] && while IFS='=' read -r "
    "k v; do\n"
    "\t\t\t\t\tcase $k in exit) x=$v;; end) e=$v;; stopped) t=$v;; "
    "esac\n"
    "\t\t\t\tdone <\"$D/${RN[r]}-$i/record\"\n"
    "\t\t\t\tif [ -z \"$x\" ]; then all=; continue; fi\n"
    "\t\t\t\tif [ \"$x\" = 0 ]; then s=$((s + 1)); continue; fi\n"
    "\t\t\t\t[ \"$t\" = 1 ] && continue\n"
    "\t\t\t\tn=$((n + 1))\n"
    "\t\t\t\tif [ -z \"$b\" ] || [[ $e < $b ]]; then b=$e F=$x; fi\n"
    "\t\t\tdone\n"
    "\t\t\t[ \"${MF[r]}\" -ge 0 ] && [ $n -ge \"${MF[r]}\" ] && V=failed\n"
    "\t\t\t[ -z \"$V\" ] && [ \"${MS[r]}\" -ge 0 ] && "
    "[ $s -ge \"${MS[r]}\" ] && V=succeeded\n"
    "\t\tdone\n"
    "\t\t[ -z \"$V\" ] && [ -n \"$all\" ] && V=all\n"
    "\t\treturn 0\n"
    "\t}\n";

/* The batch step, after the hosts: every task at once (one srun), the
 * job's end decided by tally as the tasks end (the others then
 * stopped), Ctrl-C or scancel passed on, and the end recorded. An
 * attempt that failed (not one stopped) is run again, up to RETRIES
 * times (retryCount), in the same allocation: its tasks' directories
 * kept as attempt-K/, the attempts so far in the job's record. */
static const char batch_tail[] =
    "\tK=0\n"
    "\twhile :; do\n"
    "\t\"${RUN[@]}\" bash \"$D/job.sh\" task &\n"
    "\tp=$!\n"
    "\ttrap 'stopped=1; kill -TERM $p 2>/dev/null' TERM INT\n"
    "\twhile kill -0 $p 2>/dev/null; do\n"
    "\t\ttally\n"
    "\t\tcase $V in failed|succeeded) kill -TERM $p 2>/dev/null; break;; "
    "esac\n"
    "\t\tsleep 0.5\n"
    "\tdone\n"
    "\twhile :; do wait $p; rc=$?; kill -0 $p 2>/dev/null || break; done\n"
    "\ttally\n"
    "\tcase $V in failed) rc=${F:-$rc};; succeeded|all) rc=0;; esac\n"
    "\t[ \"$rc\" = 0 ] || [ -n \"${stopped-}\" ] || [ $K -ge $RETRIES ] "
    "&& break\n"
    "\tmkdir -p \"$D/attempt-$K\" || break\n"
    "\tfor ((r = 0; r < ${#RN[@]}; r++)); do\n"
    "\t\tfor ((i = 0; i < RC[r]; i++)); do\n"
    "\t\t\t[ -e \"$D/${RN[r]}-$i\" ] && mv \"$D/${RN[r]}-$i\" "
    "\"$D/attempt-$K/\"\n"
    "\t\tdone\n"
    "\tdone\n"
    "\tK=$((K + 1))\n"
    "\trecord \"$D/job\" slurm_job_id=$SLURM_JOB_ID submission=$SUB "
    "roles=$ROLES start=$S retries=$K\n"
    "\tdone\n"
    "\trecord \"$D/job\" slurm_job_id=$SLURM_JOB_ID submission=$SUB "
    "roles=$ROLES start=$S end=$(date +%s) exit=$rc stopped=${stopped-0} "
    "retries=$K\n"
    "\texit $rc\n"
    "fi\n";

/* retryCount (v1) or jobRetryCount (v2): how many times a failed
 * attempt is run again; 0 without. *key the member's name. */
static long long retries_of(const pai_job *job, const char **key)
{
	json_t *cfg = pai_job_config(job);
	json_t *n = json_object_get(cfg, *key = "retryCount");

	if (!n) /* protocol v2 */
		n = json_object_get(cfg, *key = "jobRetryCount");
	return json_is_integer(n) && json_integer_value(n) > 0
		   ? (long long)json_integer_value(n)
		   : 0;
}

/* The roles as tally reads them. */
static void put_policy(pai__buf *b, const pai_job *job)
{
	const char *arr[] = {"RN", "RC", "MF", "MS"};
	size_t r, k;
	pai_role ro;

	for (k = 0; k < 4; k++) {
		pai__buf_printf(b, "\t%s=(", arr[k]);
		for (r = 0; r < pai_job_role_count(job); r++) {
			pai_job_role(&ro, job, r);
			if (r)
				pai__buf_putc(b, ' ');
			if (k == 0)
				pai__shell_quote(b, ro.name);
			else
				pai__buf_printf(b, "%lld",
						k == 1	 ? ro.task_number
						: k == 2 ? ro.min_failed
							 : ro.min_succeeded);
		}
		pai__buf_puts(b, ")\n");
	}
	pai__buf_puts(b, batch_tally);
}

/* The batch step: the directory, each task's node address in H (by
 * rank), then every task (srun's arguments in RUN). */
static void put_batch(pai__buf *b, const pai_job *job,
		      const struct pai__slurm_submit *o, size_t ncomp)
{
	size_t g;

	pai__buf_printf(
	    b,
	    "SUB=%s ROLES=%s\n"
	    "if [ \"${1-}\" != task ]; then\n"
	    "\tmkdir -p \"$D\" && exec >>\"$D/launcher.log\" 2>&1 || exit 70\n"
	    "\tcp \"$0\" \"$D/job.sh\" || exit 70\n"
	    "\tS=$(date +%%s)\n"
	    "\trecord \"$D/job\" slurm_job_id=$SLURM_JOB_ID submission=$SUB "
	    "roles=$ROLES start=$S\n"
	    "\tdeclare -A A\n%s\tH=\n",
	    o->subid, o->roles, batch_helpers);
	for (g = 0; g < ncomp; g++) {
		char sfx[40] = "";

		if (ncomp > 1)
			snprintf(sfx, sizeof(sfx), "_HET_GROUP_%zu", g);
		pai__buf_printf(b,
				"\taddrs \"$SLURM_JOB_NODELIST%s\"\n"
				"\tH+=$(hosts \"$SLURM_JOB_NODELIST%s\" "
				"\"$SLURM_TASKS_PER_NODE%s\")\n",
				sfx, sfx, sfx);
	}
	pai__buf_puts(b, "\texport PAI__HOSTS=$H\n"
			 "\tRUN=(srun --kill-on-bad-exit=0 "
			 "--distribution=block");
	if (ncomp > 1) {
		pai__buf_puts(b, " --het-group=0");
		for (g = 1; g < ncomp; g++)
			pai__buf_printf(b, ",%zu", g);
	}
	if (o->image) {
		pai__buf_puts(b, " --container-image=");
		pai__shell_quote(b, o->image);
		pai__buf_puts(b, " --container-mounts=\"$D:$D\"");
	}
	pai__buf_puts(b, ")\n");
	put_policy(b, job);
	{
		const char *key;

		pai__buf_printf(b, "\tRETRIES=%lld\n", retries_of(job, &key));
	}
	pai__buf_puts(b, batch_tail);
}

/* A task: its role and index from its rank, its command in C. */
static int put_roles(pai__buf *b, const struct pai__slurm_tasks *t)
{
	size_t r;
	char *cmd = NULL;
	pai_role ro;
	int err;

	for (r = 0; r < t->nroles; r++) {
		if (pai_job_role(&ro, t->job, r))
			return PAI_ERROR;
		if ((err = pai_job_role_entrypoint(&cmd, t->job, r)))
			return err;
		pai__buf_printf(b, "%s [ $r -lt %zu ]; then R=",
				r ? "elif" : "if",
				t->first[r] + (size_t)ro.task_number);
		pai__shell_quote(b, ro.name);
		pai__buf_printf(b, " I=$((r - %zu)) C=", t->first[r]);
		pai__shell_quote(b, cmd);
		pai__buf_putc(b, '\n');
		free(cmd);
		cmd = NULL;
	}
	pai__buf_puts(b, "else exit 70; fi\n");
	return PAI_OK;
}

/* Each task's own variables, by rank; then those all tasks share,
 * which a jobEnv that redefines a task's own is among. */
static int put_env(pai__buf *b, pai_diags *diags, struct pai__slurm_tasks *t)
{
	json_t *shared = NULL, *own;
	pai_env *env = NULL;
	size_t r, i;
	pai_role ro;
	int err = PAI_OK;

	pai__buf_puts(b, "case $r in\n");
	for (r = 0; !err && r < t->nroles; r++) {
		pai_job_role(&ro, t->job, r);
		for (i = 0; !err && i < (size_t)ro.task_number; i++) {
			if ((err = pai__slurm_task_env(&env, t, r, i, 1)))
				break;
			own = env_json(env);
			pai_env_free(env);
			if (!own)
				return PAI_ENOMEM;
			pai__buf_printf(b, "%zu)\n", t->first[r] + i);
			err = put_exports(b, diags, t, own, "\t");
			pai__buf_puts(b, "\t;;\n");
			json_decref(own);
		}
	}
	pai__buf_puts(b, "esac\n");
	if (!err && !(err = pai__slurm_shared_env(&shared, t)))
		err = put_exports(b, diags, t, shared, "");
	json_decref(shared);
	return err;
}

/* A task, after its environment: its directory, its environment kept
 * for paictl ssh, its command (signals passed on) with its output and
 * error there, and its exit record. */
static const char task_tail[] =
    "T=\"$D/$R-$I\"\n"
    "mkdir -p \"$T\" && cd \"$T\" || exit 70\n"
    "q=\"'\\\\''\"\n"
    "for n in $(compgen -e); do v=${!n}\n"
    "\tprintf \"export %s='%s'\\n\" \"$n\" \"${v//\\'/$q}\"\n"
    "done >env.sh\n"
    "W=(\"node=${SLURMD_NODENAME-}\" \"address=${H[r]-}\" "
    "\"ports=${PAI_CONTAINER_HOST_PORT_LIST-}\" \"start=$(date +%s)\")\n"
    "record record \"${W[@]}\"\n"
    "bash -c \"$C\" >stdout 2>stderr </dev/null &\n"
    "c=$!\n"
    "t=0\n"
    "trap 't=1; kill -TERM $c 2>/dev/null' TERM INT\n"
    "while :; do wait $c; x=$?; kill -0 $c 2>/dev/null || break; done\n"
    "record record \"${W[@]}\" \"end=$(date +%s)\" \"exit=$x\" "
    "\"stopped=$t\"\n"
    "exit $x\n";

static int put_task(pai__buf *b, pai_diags *diags, struct pai__slurm_tasks *t)
{
	int err;

	pai__buf_puts(b, "# a task (srun runs this script again)\n"
			 "r=${SLURM_PROCID:?}\n"
			 "read -r -a H <<<\"${PAI__HOSTS-}\"\n"
			 "unset PAI__HOSTS\n");
	if ((err = put_roles(b, t)) || (err = put_env(b, diags, t)))
		return err;
	pai__buf_puts(b, task_tail);
	return b->oom ? PAI_ENOMEM : PAI_OK;
}

/* ---- the submission -------------------------------------------------- */

/* 1 when every role asks for the same cpus, memory and GPUs. */
static int roles_alike(const pai_job *job)
{
	pai_role a, r;
	size_t i;

	if (pai_job_role(&a, job, 0))
		return 0;
	for (i = 1; i < pai_job_role_count(job); i++)
		if (pai_job_role(&r, job, i) || r.cpu_number != a.cpu_number ||
		    r.memory_mb != a.memory_mb || r.gpu_number != a.gpu_number)
			return 0;
	return 1;
}

/* One component: tasks of role ro's resources (ntasks of them). */
static json_t *component(const pai_role *ro, long long ntasks,
			 const struct pai__slurm_submit *o)
{
	long long cpus = ro->cpu_number > 0 ? ro->cpu_number : 1;
	json_t *c = json_pack(
	    "{s:s,s:s,s:{s:s},s:s,s:s,s:I,s:I,s:I}", "name", o->name,
	    "current_working_directory", o->workdir, "environment", "PATH",
	    "/usr/local/bin:/usr/bin:/bin", "standard_output", "/dev/null",
	    "comment", o->comment, "tasks", ntasks, "cpus_per_task", cpus,
	    "memory_per_cpu", (ro->memory_mb + cpus - 1) / cpus);
	char gpus[32];

	if (!c)
		return NULL;
	snprintf(gpus, sizeof(gpus), "%lld", ro->gpu_number);
	if ((o->partition &&
	     json_object_set_new(c, "partition", json_string(o->partition))) ||
	    (o->account &&
	     json_object_set_new(c, "account", json_string(o->account))) ||
	    (o->qos && json_object_set_new(c, "qos", json_string(o->qos))) ||
	    (ro->gpu_number > 0 &&
	     json_object_set_new(c, "gpus_per_task", json_string(gpus)))) {
		json_decref(c);
		return NULL;
	}
	return c;
}

/* The job's components: one, or one per role; *n how many. */
static json_t *components(const struct pai__slurm_tasks *t,
			  const struct pai__slurm_submit *o, size_t *n)
{
	json_t *list = json_array(), *env;
	size_t r;
	pai_role ro;
	char key[64], val[32];

	*n = roles_alike(t->job) ? 1 : t->nroles;
	for (r = 0; list && r < *n; r++) {
		pai_job_role(&ro, t->job, r);
		if (json_array_append_new(
			list, component(&ro,
					*n == 1 ? (long long)pai__slurm_task_count(t)
						: ro.task_number,
					o))) {
			json_decref(list);
			return NULL;
		}
	}
	/* srun --het-group in the first component needs the size of each
	 * (sbatch sets these itself) */
	env = json_object_get(json_array_get(list, 0), "environment");
	for (r = 0; list && *n > 1 && r < *n; r++) {
		pai_job_role(&ro, t->job, r);
		snprintf(key, sizeof(key), "SLURM_NTASKS_HET_GROUP_%zu", r);
		snprintf(val, sizeof(val), "%lld", ro.task_number);
		if (json_object_set_new(env, key, json_string(val))) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

int pai__slurm_job_body(json_t **out, pai_diags *diags, const pai_job *job,
			const struct pai__slurm_submit *o)
{
	struct pai__slurm_tasks t;
	pai__buf script = PAI__BUF_INIT;
	json_t *comps = NULL;
	size_t n = 0;
	int err;

	*out = NULL;
	if ((err = options_utf8(diags, o)))
		return err;
	if ((err = pai__slurm_tasks_init(&t, job)))
		goto out;
	t.user = o->user;
	t.jobdir = o->jobdir;
	t.port_base = o->port_base;
	t.mark = o->mark;
	t.source = o->source;
	if (!(comps = components(&t, o, &n))) {
		err = PAI_ENOMEM;
		goto out;
	}
	put_head(&script, job, o);
	put_batch(&script, job, o, n);
	if ((err = put_task(&script, diags, &t)))
		goto out;
	if (script.oom) {
		err = PAI_ENOMEM;
		goto out;
	}
	*out = n == 1 ? json_pack("{s:s%,s:O}", "script", script.data,
				  script.len, "job", json_array_get(comps, 0))
		      : json_pack("{s:s%,s:O}", "script", script.data,
				  script.len, "jobs", comps);
	err = *out ? PAI_OK : PAI_ENOMEM;
out:
	json_decref(comps);
	pai__buf_release(&script);
	pai__slurm_tasks_release(&t);
	return err;
}

/* A protocol-v2 config's image: its first dockerimage prerequisite's. */
static const char *v2_image(json_t *cfg)
{
	json_t *pre = json_object_get(cfg, "prerequisites"), *p;
	size_t i;

	json_array_foreach(pre, i, p)
	{
		const char *type = json_string_value(json_object_get(p, "type"));

		if (type && strcmp(type, "dockerimage") == 0)
			return json_string_value(json_object_get(p, "uri"));
	}
	return NULL;
}

int pai__slurm_image_warning(pai_diags *diags, const char *source,
			     const pai_job *job, int pyxis, const char **image)
{
	pai__src src = source_named(source);
	json_t *cfg = pai_job_config(job);
	const char *img = json_string_value(json_object_get(cfg, "image"));

	*image = NULL;
	if (!img) /* protocol v2: the first docker image prerequisite's */
		img = v2_image(cfg);
	if (!img || !*img)
		return PAI_OK;
	if (pyxis) {
		*image = img;
		return PAI_OK;
	}
	return pai__diag_add(diags, &src, PAI__NO_OFFSET, PAI_SEVERITY_WARNING,
			     "image", RULE_IMAGE,
			     "the image '%s' is not used: the tasks run on the "
			     "nodes as they are (a profile with --pyxis runs "
			     "them in it)",
			     img)
		   ? PAI_ENOMEM
		   : PAI_OK;
}
