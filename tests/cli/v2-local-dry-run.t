# a dry run to a v1.x cluster: the YAML the cluster gets, the user's key
# in the job's ssh plugin; nothing is sent (no cluster answers here)
run: paictl --uri http://127.0.0.1:9/rest-server submit --dry-run job.yaml | sed -E 's/AAAA[A-Za-z0-9+\/]+/KEY/'
=== setup
mkdir -p "$HOME/.ssh"
ssh-keygen -q -t ed25519 -N '' -C me@here -f "$HOME/.ssh/id_ed25519"
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
    commands: ["true"]
=== stdout
POST http://127.0.0.1:9/rest-server/api/v2/jobs
User-Agent: paictl/0.1.0
Content-Type: text/yaml
Content-Length: 509

protocolVersion: 2
name: job
type: job
prerequisites:
  - name: img
    type: dockerimage
    uri: debian
taskRoles:
  main:
    instances: 1
    dockerImage: img
    resourcePerInstance:
      cpu: 1
      memoryMB: 100
      gpu: 0
    commands:
      - 'true'
extras:
  com.microsoft.pai.runtimeplugin:
    - plugin: ssh
      parameters:
        jobssh: true
        userssh:
          type: custom
          value: ssh-ed25519 KEY me@here
=== stderr
