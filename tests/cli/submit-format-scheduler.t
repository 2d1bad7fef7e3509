# submit takes validate's --format and --scheduler: HiveD's rules (the
# default) refuse a role it does not have; the default scheduler's do
# not; --format v1 reads a YAML-named file as v0.x JSON
run: paictl -u alice submit --dry-run --uri http://127.0.0.1:9 h.yaml >/dev/null; echo "exit $?"; paictl -u alice submit --dry-run --uri http://127.0.0.1:9 --scheduler default h.yaml | head -n 1; paictl -u alice submit --dry-run --uri http://127.0.0.1:9 --format v1 v1.yaml | head -n 1
=== file h.yaml
protocolVersion: 2
name: h
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: ubuntu}
taskRoles:
  main:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands: [echo hi]
extras:
  hivedScheduler:
    taskRoles:
      other: {skuNum: 1}
=== file v1.yaml
{"jobName": "j", "image": "debian", "taskRoles": [{"name": "main",
 "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
 "command": "true"}]}
=== stdout
exit 3
POST http://127.0.0.1:9/api/v2/jobs
POST http://127.0.0.1:9/api/v1/user/alice/jobs
=== stderr
h.yaml:15:7: error: extras.hivedScheduler.taskRoles.other: there is no task role "other" [hived-unknown-role]
    15 |       other: {skuNum: 1}
       |       ^
h.yaml: 1 error, 0 warnings
paictl: submit: nothing submitted
