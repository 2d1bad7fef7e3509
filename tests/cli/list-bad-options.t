# list: a state that does not exist, a limit that is not one, a time
# that is none
run: paictl list --state nope; echo "exit $?"; paictl list --limit 0; echo "exit $?"; paictl list --since yesterday
exit: 2
=== stdout
exit 2
exit 2
=== stderr
paictl: list: unknown state 'nope' (use waiting, running, stopping, succeeded, failed or stopped)
paictl: list: invalid --limit '0' (a number, 1 or more)
paictl: list: invalid --since 'yesterday' (a time: 2h, 3d, 2026-12-01, 2026-12-01T10:00Z or @SECONDS)
