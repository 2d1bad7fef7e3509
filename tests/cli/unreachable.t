# no server behind the socket or the port: exit 6 with the reason
run: paictl -u alice --uri "unix:$PWD/nothing.sock" list 2>err; echo "exit $?"; sed "s|$PWD|.|" err >&2; paictl -u alice --uri http://127.0.0.1:1 status job 2>err; echo "exit $?"; grep -c "^paictl: status: cannot get job 'job': 127.0.0.1:1: " err
=== stdout
exit 6
exit 6
1
=== stderr
paictl: list: cannot list the jobs of alice: cannot connect to './nothing.sock': No such file or directory
