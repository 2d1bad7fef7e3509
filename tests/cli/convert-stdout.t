# v1 to v2 on standard output, comments kept
run: paictl convert job.json --to v2
=== file job.json
{
  // greet
  "jobName": "hi",
  "image": "debian",
  "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1,
    "memoryMB": 512, "gpuNumber": 0, "command": "echo hi"}]
}
=== stdout
protocolVersion: '2'
# greet
name: hi
type: job
jobRetryCount: 0
prerequisites:
  - name: default
    type: dockerimage
    uri: debian
taskRoles:
  main:
    instances: 1
    completion:
      minFailedInstances: 1
      minSucceededInstances: null
    dockerImage: default
    extraContainerOptions:
      shmMB: 64
    resourcePerInstance:
      cpu: 1
      memoryMB: 512
      gpu: 0
    commands:
      - echo hi
defaults:
  virtualCluster: default
