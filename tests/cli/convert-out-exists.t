# --out never replaces a file silently; --force does; -O is --out, as
# in ssh-key
run: paictl convert job.json --to v2 --out job.yaml; echo "status $?"; cat job.yaml; paictl convert job.json --to v2 --out job.yaml --force && head -2 job.yaml; paictl convert job.json --to v2 -O copy.yaml && cmp job.yaml copy.yaml && echo same
=== file job.json
{"jobName": "hi", "image": "debian", "taskRoles": [{"name": "main",
 "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
 "command": "echo hi"}]}
=== file job.yaml
keep me
=== stdout
status 7
keep me
protocolVersion: '2'
name: hi
same
=== stderr
paictl: convert: 'job.yaml' exists; use --force to replace it
