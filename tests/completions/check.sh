#!/bin/sh
# tests/completions/check.sh - the shell completions in the real shells.
#
# usage: sh tests/completions/check.sh
#
# bash: bash-completion and completions/paictl.bash sourced, COMP_WORDS
# and COMP_CWORD set as readline would, _paictl called, COMPREPLY read.
# fish: `complete -C LINE` with completions/paictl.fish sourced. zsh: an
# interactive zsh on a pseudo-terminal (zsh/zpty) with compinit and
# completions/_paictl on fpath; compadd is wrapped to print what it adds.
# Job names, roles and indices come from a local cluster this script
# starts in a directory of its own and stops at the end.
#
# Environment: PAICTL, the binary under test (default: build/paictl).
# Needs bash-completion, zsh and fish (Debian packages of those names).

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${PAICTL:=$top/build/paictl}"
case $PAICTL in
/*) ;;
*) PAICTL=$(pwd)/$PAICTL ;;
esac
if [ ! -x "$PAICTL" ]; then
	echo "completions: $PAICTL is not an executable; run make first" >&2
	exit 2
fi
BASH_COMPLETION=${BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
for need in bash zsh fish; do
	if ! command -v $need >/dev/null 2>&1; then
		echo "completions: $need is missing (apt-get install bash-completion zsh fish)" >&2
		exit 2
	fi
done
if [ ! -r "$BASH_COMPLETION" ]; then
	echo "completions: $BASH_COMPLETION is missing (apt-get install bash-completion)" >&2
	exit 2
fi

# an environment of our own: no user profile, token or cluster
for v in $(env | sed -n 's/^\(PAICTL_[A-Za-z0-9_]*\|XDG_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done
# its jobs run as processes, podman installed or not
PAICTL_SERVE_RUNTIME=process
export PAICTL_SERVE_RUNTIME
dir=$(mktemp -d "${TMPDIR:-/tmp}/paictl-completions.XXXXXX")
mkdir -p "$dir/bin" "$dir/home" "$dir/work/sub"
ln -s "$PAICTL" "$dir/bin/paictl"
HOME=$dir/home
PATH=$dir/bin:$PATH
LC_ALL=C
export HOME PATH LC_ALL

stop_server() {
	info=$HOME/.local/state/paictl/local/server.json
	[ -f "$info" ] || return 0
	pid=$(sed -n 's/.*"pid": *\([0-9][0-9]*\).*/\1/p' "$info")
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -KILL "$pid" 2>/dev/null
	return 0
}
cleanup() {
	paictl stop --wait -q long >/dev/null 2>&1
	stop_server
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0
failed=0

# check NAME GOT EXPECTED: the candidates as sorted words
check() {
	got=$(printf '%s\n' "$2" | sed '/^$/d' | sort | tr '\n' ' ')
	exp=$(set -f; printf '%s\n' $3 | sed '/^$/d' | sort | tr '\n' ' ')
	if [ "$got" = "$exp" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL $1"
		echo "  expected: $exp"
		echo "  got:      $got"
	fi
}

# has NAME GOT WORD...: the candidates include every WORD
has() {
	name=$1 got=$2
	shift 2
	for w; do
		if ! printf '%s\n' "$got" | grep -qxF -- "$w"; then
			failed=$((failed + 1))
			echo "FAIL $name: no '$w' in: $(printf '%s' "$got" | tr '\n' ' ')"
			return
		fi
	done
	passed=$((passed + 1))
}

cd "$dir/work" || exit 2
printf '{}\n' >a.json
printf '{}\n' >b.json
printf 'name: c\n' >c.yaml
printf 'x\n' >notes.txt

# bash LINE WORD...: COMPREPLY for the words as readline splits LINE
# (the last word is the one completed)
bash_complete() {
	bash --norc --noprofile -c '
		. "$1" || exit 2
		. "$2" || exit 2
		COMP_LINE=$3
		COMP_POINT=${#COMP_LINE}
		shift 3
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_paictl
		printf "%s\n" "${COMPREPLY[@]}"
	' bash "$BASH_COMPLETION" "$top/completions/paictl.bash" "$@" 2>&1
}

fish_complete() {
	fish --no-config -c 'source $argv[1]; complete -C $argv[2]' \
	    "$top/completions/paictl.fish" "$1" 2>&1 | cut -f1
}

# zsh LINE: what compadd offers after LINE and a Tab
zsh_complete() {
	ZDOTDIR=$dir/zdot zsh -f -c '
		zmodload zsh/zpty || exit 2
		zpty z "zsh -f -i"
		zpty -w z "fpath=(${(q)1} \$fpath); source ${(q)2}; print READY\$((1+1))"
		out=
		for i in {1..100}; do
			if zpty -r -t z chunk; then
				out+=$chunk; [[ $out == *READY2* ]] && break
			else sleep 0.05; fi
		done
		# typed, then Tab once the line is there: zle completes
		# nothing while typeahead is pending
		zpty -n -w z "$3"
		sleep 0.2
		zpty -n -w z $'"'"'\t'"'"'
		sleep 0.3
		zpty -w z $'"'"'\C-u'"'"'"print END\$((1+1))"
		out=
		for i in {1..100}; do
			if zpty -r -t z chunk; then
				out+=$chunk; [[ $out == *END2* ]] && break
			else sleep 0.05; fi
		done
		zpty -d z
		print -r -- "$out" | tr -d "\r" | grep -ao "CAND:[^[:cntrl:]]*" |
		    sed "s/^CAND://" | sort -u
	' zsh "$top/completions" "$here/zsh-init.zsh" "$1"
}

# ---- the local cluster: two jobs, one with two roles
paictl serve --background --no-ssh >/dev/null 2>&1 || {
	echo "completions: cannot start the local cluster" >&2
	exit 2
}
cat >hello.json <<'J'
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
J
cat >train.json <<'J'
{"jobName":"train","image":"debian","taskRoles":[{"name":"worker","taskNumber":2,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"},{"name":"ps","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
J
cat >long.json <<'J'
{"jobName":"long","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 60"}]}
J
paictl submit -q --wait hello.json >/dev/null 2>&1
paictl submit -q --wait train.json >/dev/null 2>&1
paictl submit -q long.json >/dev/null 2>&1
rm hello.json train.json long.json

# ---- paictl __complete itself
check "__complete: commands" "$(paictl __complete st)" "status stop"
check "__complete: help COMMAND" "$(paictl __complete help ssh-)" \
    "ssh-config ssh-key"
check "__complete: --output values" "$(paictl __complete status -o '')" \
    "text json"
check "__complete: --output=" "$(paictl __complete list --output=j)" \
    "--output=json"
check "__complete: --color values" "$(paictl __complete list --color '')" \
    "auto always never"
check "__complete: list --state" "$(paictl __complete list --state r)" \
    "running"
check "__complete: files" "$(paictl __complete submit '' | tr ' ' '\n')" \
    "__files__:*.json *.yaml *.yml"
check "__complete: jobs" "$(paictl __complete status '')" "hello train long"
check "__complete: stop: the jobs that run" \
    "$(paictl __complete stop '')" "long"
check "__complete: delete: the jobs that have ended, every operand" \
    "$(paictl __complete delete hello '')" "hello train"
check "__complete: -c: the built-in local too" \
    "$(paictl __complete -c '')" "local"
check "__complete: cluster use: local; remove: not" \
    "$(paictl __complete cluster use ''; echo -; paictl __complete cluster remove '')" \
    "local -"
check "__complete: web's jobs" "$(paictl __complete web '')" "hello train long"
check "__complete: user~job" "$(paictl __complete wait "$(id -un)~t")" \
    "$(id -un)~train"
check "__complete: roles" "$(paictl __complete logs train '')" "worker ps"
check "__complete: indices" "$(paictl __complete ssh train worker '')" "0 1"
check "__complete: after options" \
    "$(paictl __complete logs -f --tail 5 train p)" "ps"
check "__complete: ssh's remote command" \
    "$(paictl __complete ssh train -- '')" ""
cat >sub/tf.json <<'J'
{"jobName":"tf","image":"debian","taskRoles":[{"name":"worker","taskNumber":2,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"},{"name":"ps","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
J
check "__complete: expand's roles, from the file" \
    "$(paictl __complete expand sub/tf.json '')" "worker ps"
check "__complete: expand's indices" \
    "$(paictl __complete expand -o json sub/tf.json worker '')" "0 1"
check "__complete: old spellings not offered" \
    "$(paictl __complete expand --f)" "--format"
check "__complete: cluster verbs" "$(paictl __complete cluster '')" \
    "add list remove use"
check "__complete: unknown command" "$(paictl __complete nope '')" ""
# unreachable: nothing at all, on stdout or stderr, and at once
t0=$(date +%s)
check "__complete: unreachable cluster" \
    "$(paictl __complete --uri http://127.0.0.1:9 status '' 2>&1)" ""
check "__complete: a missing profile" \
    "$(paictl __complete -c nowhere status '' 2>&1)" ""
t1=$(date +%s)
check "__complete: fast when unreachable" "$((t1 - t0 <= 3))" "1"
# a local cluster that is not running is not started by a Tab
check "__complete: no cluster started" \
    "$(HOME=$dir/empty paictl __complete status '' 2>&1;
	ls -A "$dir/empty/.local/state/paictl/local" 2>/dev/null)" ""

# ---- bash
check "bash: commands" "$(bash_complete 'paictl sub' paictl sub)" "submit"
check "bash: commands s" "$(bash_complete 'paictl s' paictl s)" \
    "serve ssh ssh-config ssh-key status stop submit"
check "bash: options" "$(bash_complete 'paictl list --o' paictl list --o)" \
    "--output"
has "bash: submit's options" \
    "$(bash_complete 'paictl submit -' paictl submit -)" \
    --wait --unique --dialect --output -d -o -q
check "bash: --output values" \
    "$(bash_complete 'paictl list --output ' paictl list --output '')" \
    "text json"
check "bash: --output=" \
    "$(bash_complete 'paictl list --output=j' paictl list --output = j)" \
    "json"
check "bash: -o" "$(bash_complete 'paictl -o ' paictl -o '')" "text json"
check "bash: --dialect values" \
    "$(bash_complete 'paictl validate --dialect ' paictl validate --dialect '')" \
    "openpai scm"
check "bash: submit *.json" \
    "$(bash_complete 'paictl submit ' paictl submit '')" "a.json b.json c.yaml sub"
check "bash: validate *.json" \
    "$(bash_complete 'paictl validate a' paictl validate a)" "a.json"
check "bash: --config FILE" \
    "$(bash_complete 'paictl --config n' paictl --config n)" "notes.txt"
check "bash: job names" "$(bash_complete 'paictl status ' paictl status '')" \
    "hello train long"
check "bash: user~job" \
    "$(bash_complete "paictl delete $(id -un)~h" paictl delete "$(id -un)~h")" \
    "$(id -un)~hello"
check "bash: roles" "$(bash_complete 'paictl logs train ' paictl logs train '')" \
    "worker ps"
check "bash: indices" \
    "$(bash_complete 'paictl ssh train worker ' paictl ssh train worker '')" \
    "0 1"

# ---- fish
check "fish: commands" "$(fish_complete 'paictl sub')" "submit"
check "fish: options" "$(fish_complete 'paictl list --o')" "--output"
check "fish: --output values" "$(fish_complete 'paictl list --output ')" \
    "text json"
check "fish: --dialect values" "$(fish_complete 'paictl submit --dialect ')" \
    "openpai scm"
check "fish: submit *.json" "$(fish_complete 'paictl submit ')" \
    "a.json b.json c.yaml sub/"
check "fish: job names" "$(fish_complete 'paictl stop ')" "long"
check "fish: --output=" "$(fish_complete 'paictl list --output=t')" \
    "--output=text"
check "fish: roles" "$(fish_complete 'paictl logs train ')" "worker ps"
check "fish: indices" "$(fish_complete 'paictl logs train ps ')" "0"

# ---- zsh
check "zsh: commands" "$(zsh_complete 'paictl sub')" "submit"
check "zsh: --output values" "$(zsh_complete 'paictl list --output ')" \
    "text json"
check "zsh: --output=" "$(zsh_complete 'paictl list --output=')" \
    "--output=json --output=text"
check "zsh: user~job" "$(zsh_complete "paictl wait $(id -un)~he")" \
    "$(id -un)~hello"
check "zsh: --dialect values" "$(zsh_complete 'paictl expand --dialect ')" \
    "openpai scm"
check "zsh: submit *.json" "$(zsh_complete 'paictl submit ')" \
    "a.json b.json c.yaml sub"
check "zsh: job names" "$(zsh_complete 'paictl status ')" "hello train long"
check "zsh: roles" "$(zsh_complete 'paictl ssh train ')" "worker ps"

echo "completions: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
