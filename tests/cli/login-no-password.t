# no terminal, no --password-stdin, no PAICTL_PASSWORD: no prompt, exit 2;
# a password is never an argument
run: paictl -c tcp login; echo "exit $?"; paictl -c tcp login secret
exit: 2
=== setup
printf 'alice:secret\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/tcp" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add tcp "$(jq -r .url tcp/server.json)" --user alice
=== stdout
exit 2
=== stderr
paictl: login: no password: give --password-stdin or set PAICTL_PASSWORD (standard input is not a terminal)
paictl: login: unexpected argument 'secret': the password is never an argument (see 'paictl login --help')
