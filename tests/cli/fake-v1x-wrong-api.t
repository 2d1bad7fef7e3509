# a profile forced to the wrong API: the v1.x cluster answers its v0.x
# routes with 404 NoApiError, which is said as such, never "not found"
run: paictl cluster add old "http://127.0.0.1:$(cat port)/rest-server" --user alice --api v1 && paictl -c old status job; echo "exit $?"
=== setup
fake-v1x --port-file port --log req.log >/dev/null 2>&1 &
echo $! >fake.pid
i=0; while [ ! -s port ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
paictl cluster add pai "http://127.0.0.1:$(cat port)/rest-server" --user alice
paictl cluster use pai >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
=== teardown
kill "$(cat fake.pid)"
=== stdout
exit 1
=== stderr
paictl: status: cannot get job 'job': API /api/v1/user/alice/jobs/job is not found. (the cluster speaks another version of the API: see 'paictl cluster add --api')
