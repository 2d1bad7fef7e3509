# a valid 50 MB config, one huge command: ok (speed is measured in make bench)
run: paictl validate big.json
timeout: 30
=== setup
{
	printf '{"jobName": "big", "image": "ubuntu:18.04", "taskRoles": [{"name": "main",'
	printf ' "taskNumber": 1, "cpuNumber": 1, "memoryMB": 1024, "gpuNumber": 0,'
	printf ' "command": "echo '
	head -c 52428800 /dev/zero | tr '\0' x
	printf '"}]}\n'
} >big.json
=== stdout
big.json: ok
