# Sourced by check.sh in the interactive zsh it drives: compinit, and a
# compadd that also prints each candidate it adds as "CAND:word".
PROMPT='> '
autoload -Uz compinit
compinit -u -D
compadd() {
	# the calls that only ask (-O, -A, -D) add nothing
	if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
		builtin compadd "$@"
		return $?
	fi
	local -a __hits
	local h
	builtin compadd -A __hits "$@"
	for h in "${__hits[@]}"; do
		print -r -- "CAND:$h"
	done
	builtin compadd "$@"
}
bindkey '^I' complete-word
