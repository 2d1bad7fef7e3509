# bash completion for paictl                               -*- shell-script -*-
# A thin wrapper: `paictl __complete WORDS...` knows the commands, options,
# option values, and the jobs, roles and indices of the cluster; this script
# only turns its lines into COMPREPLY. A line "__files__" asks for files,
# "__files__:*.json *.yaml" for files matching one of the globs, and
# directories.

_paictl()
{
    local cur prev words cword split=false
    local -a args
    if declare -F _init_completion >/dev/null 2>&1; then
        # -s: "--output=js" gives prev=--output, cur=js; readline replaces
        # only what follows the "="
        _init_completion -s || return
    else
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
        cur=${COMP_WORDS[COMP_CWORD]}
    fi
    args=("${words[@]:1:cword-1}")
    if [[ $split == true ]]; then
        args+=("$prev")
    fi

    local IFS=$'\n' line
    local -a cands=() out
    out=($("${words[0]:-paictl}" __complete "${args[@]}" "$cur" 2>/dev/null))
    COMPREPLY=()
    for line in "${out[@]}"; do
        case $line in
        __files__)
            COMPREPLY+=($(compgen -f -- "$cur"))
            compopt -o filenames 2>/dev/null
            ;;
        __files__:*)
            local glob globs
            IFS=" " read -ra globs <<<"${line#__files__:}"
            for glob in "${globs[@]}"; do
                COMPREPLY+=($(compgen -f -X "!$glob" -- "$cur"))
            done
            COMPREPLY+=($(compgen -d -- "$cur"))
            compopt -o filenames 2>/dev/null
            ;;
        *) cands+=("$line") ;;
        esac
    done
    COMPREPLY+=("${cands[@]}")
}
complete -F _paictl paictl
