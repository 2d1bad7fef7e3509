# -o json: the diagnostics as a JSON array on stdout, nothing on stderr
run: paictl validate -o json job.json
exit: 3
=== file job.json
{
  "jobName": "x",
  "jobName": "y"
}
=== stdout
[
  {
    "file": "job.json",
    "line": 3,
    "column": 3,
    "path": "",
    "severity": "error",
    "rule": "duplicate-key",
    "message": "duplicate key \"jobName\": each key may appear once in an object"
  }
]
