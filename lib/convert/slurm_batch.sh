#!/bin/bash
## slurm_batch.sh - the batch script of a paictl job on Slurm, which
## lib/convert/slurm.c fills in and lib/convert/embed.sh compiles in (the
## lines that start with "##", and shellcheck's directives, are this
## file's alone: not in the script). Where it says @NAME@, slurm.c puts
## its text (quoted for bash where it comes from the job or the profile);
## a line that ends in "# @NAME@" stands for the lines slurm.c writes in
## its place, and is there as it is so that shellcheck (make lint) reads
## the script as bash will.
##
## Run by Slurm as the batch step: it makes the job's directory, learns
## the address of the node of every task (scontrol), and starts every
## task of every role with one srun. Each task, the same script again
## (argument "task"), exports its $PAI_* environment, runs its role's
## command in its own directory and leaves its output, error and exit
## record there.
# paictl: job @JOB_NAME@, submission @SUBMISSION@: every task of every role, each with OpenPAI's
# environment (paictl-submit(1)). Generated; run by Slurm.
umask 077
D=@JOB_DIR@
## a record is written whole, then renamed: a reader never sees half
record() { # FILE KEY=VALUE...
	printf '%s\n' "${@:2}" >"$1.tmp" && mv -f "$1.tmp" "$1"
}
SUB=@SUBMISSION@ ROLES=@ROLES@
if [ "${1-}" != task ]; then
	mkdir -p "$D" && exec >>"$D/launcher.log" 2>&1 || exit 70
	cp "$0" "$D/job.sh" || exit 70
	S=$(date +%s)
	# shellcheck disable=SC2086 # numbers: the job's id, a time
	record "$D/job" slurm_job_id=$SLURM_JOB_ID submission=$SUB roles=$ROLES start=$S
	declare -A A
	## addrs NODELIST notes each node's address (NodeAddr) in A
	# shellcheck disable=SC1007 # "n= a=": empty, on purpose
	addrs() {
		local f x n a
		while read -r -a f; do n= a=
			for x in "${f[@]}"; do case $x in
			NodeName=*) n=${x#*=};; NodeAddr=*) a=${x#*=};; esac; done
			[ -n "$n" ] && A[$n]=${a:-$n}
		done < <(scontrol show node -o "$1" 2>/dev/null)
	}
	## hosts NODELIST TASKS_PER_NODE says one address per task, as srun's
	## block distribution places them
	# shellcheck disable=SC2207 # node names: no blank, no wildcard
	hosts() {
		local l=($(scontrol show hostnames "$1")) k=0 s n c j
		for s in ${2//,/ }; do n=${s%%(*} c=1
			[[ $s == *'(x'* ]] && { c=${s#*(x}; c=${c%)}; }
			for ((; c > 0; c--, k++)); do
				for ((j = 0; j < n; j++)); do
					printf '%s ' "${A[${l[k]}]:-${l[k]}}"; done; done
		done
	}
	H=
	## the nodes of each component (a heterogeneous job: _HET_GROUP_N)
	addrs "$SLURM_JOB_NODELIST" && H+=$(hosts "$SLURM_JOB_NODELIST" "$SLURM_TASKS_PER_NODE") # @HOSTS@
	export PAI__HOSTS=$H
	RUN=(srun --kill-on-bad-exit=0 --distribution=block@SRUN_OPTIONS@)
	## per role: its name, task count, minFailedTaskCount and
	## minSucceededTaskCount (-1 for null)
	RN=(role) RC=(1) MF=(1) MS=(-1) # @POLICY@
	## The job's end as OpenPAI decides it, from the tasks' records:
	## tally sets V to "failed" once MF tasks of a role failed, else
	## "succeeded" once MS of one succeeded, else "all" when every task
	## ended; F the exit code of the first task to fail (one stopped by
	## its job does not count).
	# shellcheck disable=SC1007 # "b= ", "V= F=": empty, on purpose
	tally() {
		local r i k v x e t s n b= all=1
		V= F=
		for ((r = 0; r < ${#RN[@]}; r++)); do s=0 n=0
			for ((i = 0; i < RC[r]; i++)); do x= e= t=0
				[ -f "$D/${RN[r]}-$i/record" ] && while IFS='=' read -r k v; do
					case $k in exit) x=$v;; end) e=$v;; stopped) t=$v;; esac
				done <"$D/${RN[r]}-$i/record"
				if [ -z "$x" ]; then all=; continue; fi
				if [ "$x" = 0 ]; then s=$((s + 1)); continue; fi
				[ "$t" = 1 ] && continue
				n=$((n + 1))
				if [ -z "$b" ] || [[ $e < $b ]]; then b=$e F=$x; fi
			done
			[ "${MF[r]}" -ge 0 ] && [ $n -ge "${MF[r]}" ] && V=failed
			[ -z "$V" ] && [ "${MS[r]}" -ge 0 ] && [ $s -ge "${MS[r]}" ] && V=succeeded
		done
		[ -z "$V" ] && [ -n "$all" ] && V=all
		return 0
	}
	## retryCount: an attempt that failed (not one stopped) is run again,
	## up to RETRIES times, in the same allocation: its tasks'
	## directories kept as attempt-K/, the attempts so far in the job's
	## record. Every task at once (one srun), the job's end decided by
	## tally as the tasks end (the others then stopped), Ctrl-C or
	## scancel passed on, and the end recorded.
	RETRIES=@RETRIES@
	K=0
	while :; do
	"${RUN[@]}" bash "$D/job.sh" task &
	p=$!
	trap 'stopped=1; kill -TERM $p 2>/dev/null' TERM INT
	while kill -0 $p 2>/dev/null; do
		tally
		case $V in failed|succeeded) kill -TERM $p 2>/dev/null; break;; esac
		sleep 0.5
	done
	while :; do wait $p; rc=$?; kill -0 $p 2>/dev/null || break; done
	tally
	case $V in failed) rc=${F:-$rc};; succeeded|all) rc=0;; esac
	[ "$rc" = 0 ] || [ -n "${stopped-}" ] || [ $K -ge $RETRIES ] && break
	mkdir -p "$D/attempt-$K" || break
	for ((r = 0; r < ${#RN[@]}; r++)); do
		for ((i = 0; i < RC[r]; i++)); do
			[ -e "$D/${RN[r]}-$i" ] && mv "$D/${RN[r]}-$i" "$D/attempt-$K/"
		done
	done
	K=$((K + 1))
	# shellcheck disable=SC2086 # numbers: the job's id, a time
	record "$D/job" slurm_job_id=$SLURM_JOB_ID submission=$SUB roles=$ROLES start=$S retries=$K
	done
	# shellcheck disable=SC2086,SC2046 # numbers: an id, times, statuses
	record "$D/job" slurm_job_id=$SLURM_JOB_ID submission=$SUB roles=$ROLES start=$S end=$(date +%s) exit=$rc stopped=${stopped-0} retries=$K
	# shellcheck disable=SC2086 # a number
	exit $rc
fi
# a task (srun runs this script again)
r=${SLURM_PROCID:?}
read -r -a H <<<"${PAI__HOSTS-}"
unset PAI__HOSTS
## its role and index from its rank, its command in C
if [ "$r" -lt 1 ]; then R=role I=$((r - 0)) C=true # @TASK_ROLES@
else exit 70; fi
## each task's own variables, by rank; then those all tasks share
export PAI_TASK_INDEX=0 # @TASK_ENV@
## its directory, its environment kept for paictl ssh, its command
## (signals passed on) with its output and error there, its exit record
T="$D/$R-$I"
mkdir -p "$T" && cd "$T" || exit 70
q="'\\''"
for n in $(compgen -e); do v=${!n}
	printf "export %s='%s'\n" "$n" "${v//\'/$q}"
done >env.sh
W=("node=${SLURMD_NODENAME-}" "address=${H[r]-}" "ports=${PAI_CONTAINER_HOST_PORT_LIST-}" "start=$(date +%s)")
record record "${W[@]}"
bash -c "$C" >stdout 2>stderr </dev/null &
c=$!
t=0
trap 't=1; kill -TERM $c 2>/dev/null' TERM INT
while :; do wait $c; x=$?; kill -0 $c 2>/dev/null || break; done
record record "${W[@]}" "end=$(date +%s)" "exit=$x" "stopped=$t"
# shellcheck disable=SC2086 # a number
exit $x
