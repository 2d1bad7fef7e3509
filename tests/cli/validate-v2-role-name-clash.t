# two roles v1.x would make one task role: refused at the later ones
run: paictl validate job.yaml
exit: 3
=== file job.yaml
protocolVersion: 2
name: clash
type: job
prerequisites:
  - name: img
    type: dockerimage
    uri: ubuntu
taskRoles:
  ps_server:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands: [echo a]
  psserver:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands: [echo b]
  PS_Server:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands: [echo b]
=== stderr
job.yaml:14:3: error: taskRoles.psserver: roles 'ps_server' and 'psserver' are both the task role 'psserver' on an OpenPAI v1.x cluster: rename one [v2-role-name-clash]
    14 |   psserver:
       |   ^
job.yaml:19:3: error: taskRoles.PS_Server: roles 'ps_server' and 'PS_Server' are both the task role 'psserver' on an OpenPAI v1.x cluster: rename one [v2-role-name-clash]
    19 |   PS_Server:
       |   ^
job.yaml: 2 errors, 0 warnings
