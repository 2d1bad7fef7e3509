# the answer to a submission is lost, and a job of that name, with the
# same config, was there already (submitted an hour ago): reading it
# shows it is not the one just sent (the server's submission time), so
# the name was taken: exit 7, and one POST only
run: paictl submit --no-ssh-key job.yaml; echo "exit $?"; grep -c '^POST /rest-server/api/v2/jobs ' req.log
timeout: 20
=== setup
fake-v1x --port-file port --log req.log --scenario drop-post --old-job job.yaml >/dev/null 2>&1 &
echo $! >fake.pid
i=0; while [ ! -s port ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
paictl cluster add pai "http://127.0.0.1:$(cat port)/rest-server" --user alice
paictl cluster use pai >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
=== file job.yaml
protocolVersion: 2
name: job
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: debian}
taskRoles:
  main:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands: ["python train.py"]
=== teardown
kill "$(cat fake.pid)"
=== stdout
exit 7
1
=== stderr
paictl: submit: cannot submit 'job.yaml' as 'job': job 'job' exists already (submitted before)
paictl: submit: a job's name is used once: --unique adds a suffix to it, --skip-existing takes the job there for this one, 'paictl delete job' frees the name once the job has ended (where the cluster can delete jobs)
