# -vv traces the HTTP exchange on stderr, the token masked
run: PAICTL_TOKEN=s3cret paictl -vv -u alice list 2>err; echo "exit $?"; grep -c s3cret err; grep -c '^> GET /api/v1/jobs?username=alice HTTP/1.1$' err; grep -c '^> Authorization: Bearer \*\*\*$' err
=== setup
paictl serve --background --no-ssh >/dev/null
=== stdout
exit 0
0
1
1
