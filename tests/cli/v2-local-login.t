# v1.x's login: a password under 6 characters is refused by the server's
# own rule (400 InvalidParametersError), still a failed login: exit 5
run: echo short | paictl login --password-stdin; echo "exit $?"; echo wrongpass | paictl login --password-stdin; echo "exit $?"
=== setup
printf 'alice:secret123\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/srv" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add v2 "$(jq -r .url srv/server.json)" --user alice --api v2
paictl cluster use v2 >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
=== stdout
exit 5
exit 5
=== stderr
paictl: login: cannot log in to 'v2' as alice: child "password" fails because ["password" length must be at least 6 characters long]
paictl: login: cannot log in to 'v2' as alice: Password is incorrect
