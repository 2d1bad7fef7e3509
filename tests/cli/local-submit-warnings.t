# the local cluster runs what it cannot give: submit says so once, as a
# warning a line: the tasks run here as the user, not in the image
# (v0.x's image, protocol v2's dockerimage), and a request beyond the
# machine; status shows the same; -q says nothing. The server finds no
# podman (a PATH without it, no runtime asked for): its warning says to
# install it
run: paictl submit --wait big.json 2>&1 >/dev/null | grep -v '^[0-9]' | sed -E "s/as $(id -un),/as USER,/; s/has [0-9]+\)/has N)/g"; paictl submit --no-ssh-key v2.yaml 2>&1 >/dev/null | sed "s/as $(id -un),/as USER,/"; paictl status big | grep -c '^warnings:'; paictl submit -q --name quiet big.json 2>&1 >/dev/null | wc -l
=== setup
env -u PAICTL_SERVE_RUNTIME PATH="$(dirname "$(command -v paictl)")" paictl serve --background --no-ssh >/dev/null
=== file big.json
{"jobName":"big","image":"pytorch/pytorch","taskRoles":[{"name":"main","taskNumber":2,"cpuNumber":100000,"memoryMB":100000000,"gpuNumber":64,"command":"true"}]}
=== file v2.yaml
protocolVersion: 2
name: v2
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: 'ubuntu:22.04'}
taskRoles:
  main:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands: ["true"]
=== stdout
paictl: submit: warning: job 'big': the job asks for 200000 CPUs (this machine has N), 200000000 MB of memory (this machine has N), 128 GPUs (this machine has N); the local cluster runs it anyway
paictl: submit: warning: job 'big': its tasks run on this machine as USER, not in the image 'pytorch/pytorch' (install podman to run them in it): a command such as 'apt install' runs for real
paictl: submit: warning: job 'v2': its tasks run on this machine as USER, not in the image 'ubuntu:22.04' (install podman to run them in it): a command such as 'apt install' runs for real
2
0
