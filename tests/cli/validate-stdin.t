# '-' reads standard input, named <stdin>
run: paictl validate -
=== stdin
{
  "jobName": "hello",
  "image": "ubuntu:18.04",
  "taskRoles": [
    {
      "name": "main",
      "taskNumber": 1,
      "cpuNumber": 1,
      "memoryMB": 1024,
      "gpuNumber": 0,
      "command": "echo hello"
    }
  ]
}
=== stdout
<stdin>: ok
