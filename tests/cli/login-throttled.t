# wrong passwords are throttled per account and address: after 5, the
# local cluster answers 429 with a Retry-After that doubles (1 s, 2 s),
# which paictl waits out, saying so; the right password then gets in
run: for i in 1 2 3 4 5 6 7; do echo wrong-password | paictl -c tcp login --password-stdin; echo "exit $?"; done; echo secret1 | paictl -c tcp login --password-stdin; echo "exit $?"
timeout: 30
=== setup
printf 'alice:secret1\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/tcp" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add tcp "$(jq -r .url tcp/server.json)" --user alice
=== stdout
exit 5
exit 5
exit 5
exit 5
exit 5
exit 5
exit 5
exit 0
=== stderr
paictl: login: cannot log in to 'tcp' as alice: Password is incorrect
paictl: login: cannot log in to 'tcp' as alice: Password is incorrect
paictl: login: cannot log in to 'tcp' as alice: Password is incorrect
paictl: login: cannot log in to 'tcp' as alice: Password is incorrect
paictl: login: cannot log in to 'tcp' as alice: Password is incorrect
paictl: login: cannot log in to 'tcp' as alice: Password is incorrect
paictl: login: waiting 1 s for the cluster's rate limit (HTTP 429)
paictl: login: cannot log in to 'tcp' as alice: Password is incorrect
paictl: login: waiting 2 s for the cluster's rate limit (HTTP 429)
paictl: login: logged in to 'tcp' as alice
