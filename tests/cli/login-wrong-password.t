# a wrong password, one the server's validation refuses (under 6
# characters: v0.17's 400 InvalidParametersError), or an unknown user:
# each a failed login, exit 5 with the cluster's reason
run: echo wrong-password | paictl -c tcp login --password-stdin; echo "exit $?"; echo short | paictl -c tcp login --password-stdin; echo "exit $?"; echo secret | paictl -c tcp -u bob login --password-stdin
exit: 5
=== setup
printf 'alice:secret\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/tcp" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add tcp "$(jq -r .url tcp/server.json)" --user alice
=== stdout
exit 5
exit 5
=== stderr
paictl: login: cannot log in to 'tcp' as alice: Password is incorrect
paictl: login: cannot log in to 'tcp' as alice: child "password" fails because ["password" length must be at least 6 characters long]
paictl: login: cannot log in to 'tcp' as bob: User bob is not found
