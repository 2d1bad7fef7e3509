# comments, and comment markers inside strings, are no problem
run: paictl validate job.json
=== file job.json
// a job config with comments
{
  "jobName": "comments", /* block
  comment */ "image": "registry.example.com/a//b:1",
  "taskRoles": [
    {
      "name": "main", // "quoted" in a comment
      "taskNumber": 1,
      "cpuNumber": 1,
      "memoryMB": 1024,
      "gpuNumber": 0,
      "command": "curl http://example.com/*x*/ # not a comment"
    }
  ]
}
=== stdout
job.json: ok
