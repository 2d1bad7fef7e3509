# --dry-run -o json against a profile-less URI with a token: the token is
# masked, the URI's trailing slash not doubled
run: PAICTL_TOKEN=s3cret-token paictl --uri https://pai.example.com/rest-server/ -u bob submit --dry-run -o json hello.json | sed 's|paictl/[0-9.]*|paictl/VERSION|'
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
[
  {
    "file": "hello.json",
    "method": "POST",
    "url": "https://pai.example.com/rest-server/api/v1/user/bob/jobs",
    "headers": {
      "User-Agent": "paictl/VERSION",
      "Authorization": "Bearer ***",
      "Content-Type": "application/json",
      "Content-Length": "141"
    },
    "body": {
      "jobName": "hello",
      "image": "debian",
      "taskRoles": [
        {
          "name": "main",
          "taskNumber": 1,
          "cpuNumber": 1,
          "memoryMB": 100,
          "gpuNumber": 0,
          "command": "true"
        }
      ]
    }
  }
]
