# v2 to v1: the default deployment's commands folded in as the server runs them,
# the parameter's own export left to jobEnvs, the ssh plugin left out
run: paictl convert job.yaml --to v1
=== file job.yaml
protocolVersion: 2
name: hi
type: job
parameters:
  WHO: world
prerequisites:
  - {name: img, type: dockerimage, uri: debian}
taskRoles:
  main:
    instances: 2
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0, ports: {web: 1}}
    commands:
      - echo hello <% $parameters.WHO %>
deployments:
  - name: d
    taskRoles:
      main:
        preCommands: [export WHO=<% $parameters.WHO %>, apt-get update]
        postCommands: [echo done]
defaults:
  deployment: d
extras:
  com.microsoft.pai.runtimeplugin:
    - plugin: ssh
      parameters: {jobssh: true}
=== stdout
{
  "jobName": "hi",
  "image": "debian",
  "retryCount": 0,
  "jobEnvs": {
    "WHO": "world"
  },
  "taskRoles": [
    {
      "name": "main",
      "taskNumber": 2,
      "cpuNumber": 1,
      "memoryMB": 1024,
      "gpuNumber": 0,
      "shmMB": 512,
      "portList": [
        {
          "label": "web",
          "beginAt": 0,
          "portNumber": 1
        }
      ],
      "command": "apt-get update\necho hello world\necho done",
      "minFailedTaskCount": 1,
      "minSucceededTaskCount": null
    }
  ]
}
=== stderr
job.yaml:25:5: warning: extras: the ssh runtime plugin is left out: a v0.x cluster gives every job SSH with a key pair of its own (keys of 'userssh' are not carried over) [convert-dropped]
    25 |     - plugin: ssh
       |     ^
