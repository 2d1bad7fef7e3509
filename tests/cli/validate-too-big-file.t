# exactly 64 MiB is a config; one byte more is refused from its size (a
# sparse file, never read), and the other files are still checked
run: paictl validate exact.json over.json
exit: 3
timeout: 30
=== setup
printf '{"jobName": "big", "image": "ubuntu:18.04", "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 1024, "gpuNumber": 0, "command": "true"}]}' >exact.json
n=$(wc -c <exact.json)
head -c $((67108864 - n)) /dev/zero | tr '\0' ' ' >>exact.json
truncate -s 67108865 over.json
=== stdout
exact.json: ok
=== stderr
paictl: validate: 'over.json': larger than 64 MiB; a job config cannot be this big
