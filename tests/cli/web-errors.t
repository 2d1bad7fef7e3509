# paictl web: a job that is not there (4), another cluster than the
# local one (2), too many operands (2), a local cluster's socket that
# does not answer (6)
run: paictl -u alice web --no-open nope; echo "exit $?"; paictl --uri http://127.0.0.1:9 web --no-open; echo "exit $?"; paictl web a b; echo "exit $?"; paictl --uri "unix:$PWD/none.sock" web --no-open 2>&1 | sed "s|$PWD|DIR|"; echo "exit $(paictl --uri "unix:$PWD/none.sock" web --no-open 2>/dev/null; echo $?)"
timeout: 20
=== setup
paictl serve --background --no-ssh >/dev/null
=== stdout
exit 4
exit 2
exit 2
paictl: web: cannot reach the local cluster at 'DIR/none.sock': No such file or directory
exit 6
=== stderr
paictl: web: job 'nope' not found
paictl: web: '127.0.0.1_9' is not the local cluster: the pages are the local cluster's (paictl -c local web)
paictl: web: unexpected argument 'b'; see 'paictl web --help'
