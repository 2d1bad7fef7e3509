# list: a state that does not exist, a limit that is not one
run: paictl list --state nope; echo "exit $?"; paictl list --limit 0
exit: 2
=== stdout
exit 2
=== stderr
paictl: list: unknown state 'nope' (use waiting, running, stopping, succeeded, failed or stopped)
paictl: list: invalid --limit '0' (a number, 1 or more)
