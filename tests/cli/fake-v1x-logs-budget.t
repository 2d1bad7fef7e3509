# logs -f of a chatty task (its log grows on every read) on a v1.x
# cluster with the real rate limits (600 requests a minute from an
# address): for 20 s it keeps within its budget (a round a second, the
# status every 10 s while the log grows), prints every line once, and
# every other command run meanwhile succeeds; after a STOP it ends
run: sh follow.sh
timeout: 120
=== setup
fake-v1x --port-file port --log req.log --scenario chatty >/dev/null 2>&1 &
echo $! >fake.pid
i=0; while [ ! -s port ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
paictl cluster add pai "http://127.0.0.1:$(cat port)/rest-server" --user alice
paictl cluster use pai >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
=== file follow.sh
paictl submit --no-ssh-key job.yaml >/dev/null || exit 1
: >req.log
paictl logs -f job >follow.out 2>follow.err &
pid=$!
ok=0 i=0
while [ $i -lt 8 ]; do
	sleep 2.5
	paictl status job >/dev/null && paictl list >/dev/null && ok=$((ok + 1))
	i=$((i + 1))
done
sed 's/name: job/name: other/' job.yaml >other.yaml
paictl submit --no-ssh-key other.yaml >/dev/null && ok=$((ok + 1))
paictl stop job && ok=$((ok + 1))
wait $pid
echo "logs -f: exit $?, stderr: $(cat follow.err)"
echo "other commands: $ok of 10 succeeded"
paictl logs job >once.out
# each task's lines: what the log holds (the last one cut), in order,
# none twice, none missing
for t in worker-0 worker-1; do
	grep "^$t | " follow.out >f.$t
	grep "^$t | " once.out | cmp -s - f.$t || echo "$t: not what its log holds"
	sed -n "s/^$t | line \([0-9]*\) of $t\$/\1/p" follow.out |
		awk -v t=$t 'NR != $1 { bad = 1 } END { print t, (bad || NR < 20 ? "out of order" : "in order") }'
done
# the budget: a round a second reads both logs; the status every 10 s
reads=$(grep -c '^GET /log-manager/' req.log)
limited=$(grep -c ' 429$' req.log)
[ "$reads" -le 80 ] && echo "log reads within budget" || echo "log reads: $reads"
echo "429s: $limited"
=== file job.yaml
protocolVersion: 2
name: job
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: debian}
taskRoles:
  worker:
    instances: 2
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands: ["python train.py"]
=== teardown
kill "$(cat fake.pid)"
=== stdout
logs -f: exit 0, stderr: 
other commands: 10 of 10 succeeded
worker-0 in order
worker-1 in order
log reads within budget
429s: 0
