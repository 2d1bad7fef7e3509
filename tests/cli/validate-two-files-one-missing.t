# one good file, one missing: the good one is still checked; exit 4
run: paictl validate ok.json nope.json
exit: 4
=== file ok.json
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
ok.json: ok
=== stderr
paictl: validate: cannot read 'nope.json': No such file or directory
