# a --users file whose line is longer than the server reads at once is
# refused, in words: the rest of it was read as a line of its own, so
# that the end of bob's long password made a user 'x' whose password
# was 'admin'
run: paictl serve --background --no-ssh --listen 127.0.0.1:0 --users "$PWD/users" 2>err; echo "exit $?"; sed "s|$PWD/||" err
=== setup
{ printf 'bob:'; printf '%1019s' '' | tr ' ' a; printf 'x:admin\n'; } >users
chmod 600 users
=== stdout
exit 1
paictl: serve: users:1: line too long (at most 1022 bytes)
