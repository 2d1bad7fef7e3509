# what a v1.x cluster refuses: a virtual cluster the user may not use
# (403, even one that does not exist) is exit 5, a job of that name exit
# 7, a job that is not there exit 4
run: paictl submit --no-ssh-key vc.yaml; echo "exit $?"; paictl submit --no-ssh-key ok.yaml; paictl submit --no-ssh-key ok.yaml; echo "exit $?"; paictl status nope; echo "exit $?"
=== setup
printf 'alice:secret123\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/srv" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add v2 "$(jq -r .url srv/server.json)" --user alice --api v2
paictl cluster use v2 >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
=== file vc.yaml
protocolVersion: 2
name: vc
type: job
defaults:
  virtualCluster: gpu
prerequisites:
  - {name: img, type: dockerimage, uri: debian}
taskRoles:
  main:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands: ["true"]
=== file ok.yaml
protocolVersion: 2
name: ok
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: debian}
taskRoles:
  main:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands: ["true"]
=== stdout
exit 5
ok
exit 7
exit 4
=== stderr
paictl: submit: cannot submit 'vc.yaml' as 'vc': User alice is not allowed to do operation in gpu
paictl: submit: cannot submit 'ok.yaml' as 'ok': Job alice~ok already exists
paictl: submit: a job's name is used once: --unique adds a suffix to it, --skip-existing takes the job there for this one, 'paictl delete ok' frees the name once the job has ended (where the cluster can delete jobs)
paictl: status: cannot get job 'nope': Job alice~nope is not found
