# fish completion for paictl: a thin wrapper around `paictl __complete
# WORDS...`, which prints the candidates for the last word one a line. A
# line "__files__" asks for files, "__files__:*.json *.yaml" for files
# with one of those endings, and directories.

function __paictl_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -e words[1]
    for line in (command paictl __complete $words "$cur" 2>/dev/null)
        switch $line
            case __files__
                __fish_complete_path "$cur"
            case '__files__:*'
                set -l globs (string split ' ' -- (string replace '__files__:' '' -- $line))
                for f in (__fish_complete_path "$cur")
                    # "name<TAB>description"
                    set -l p (string split -f1 \t -- $f)
                    if test -d "$p"
                        echo $f
                        continue
                    end
                    for g in $globs
                        if string match -q -- "$g" $p
                            echo $f
                            break
                        end
                    end
                end
            case '*'
                echo $line
        end
    end
end

complete -c paictl -f -a '(__paictl_complete)'
