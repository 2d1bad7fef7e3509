# -o json: the same diagnostics as a JSON array on stdout
run: paictl validate -o json job.json
exit: 3
copy: tests/cli/data/job.json
=== stdout
[
  {
    "file": "job.json",
    "line": 3,
    "column": 14,
    "path": "jobName",
    "severity": "error",
    "rule": "job-name",
    "message": "'~' is not allowed in a job name (the server joins user and job name with '~'); the name must match ^[A-Za-z0-9\\-._]+$"
  },
  {
    "file": "job.json",
    "line": 4,
    "column": 12,
    "path": "image",
    "severity": "error",
    "rule": "empty",
    "message": "must not be empty"
  },
  {
    "file": "job.json",
    "line": 5,
    "column": 14,
    "path": "dataDir",
    "severity": "error",
    "rule": "type",
    "message": "must be a string, got null"
  },
  {
    "file": "job.json",
    "line": 7,
    "column": 5,
    "path": "taskRoles[0].memoryMB",
    "severity": "error",
    "rule": "required",
    "message": "missing required field \"memoryMB\" in a task role"
  },
  {
    "file": "job.json",
    "line": 8,
    "column": 15,
    "path": "taskRoles[0].name",
    "severity": "error",
    "rule": "role-name",
    "message": "'-' is not allowed in a task role name (the server rejects \"g2p-train\"; use '_')"
  },
  {
    "file": "job.json",
    "line": 9,
    "column": 21,
    "path": "taskRoles[0].taskNumber",
    "severity": "warning",
    "rule": "numeric-string",
    "message": "a number written as a string: \"2\" is sent as 2"
  },
  {
    "file": "job.json",
    "line": 10,
    "column": 20,
    "path": "taskRoles[0].cpuNumber",
    "severity": "error",
    "rule": "min-cpu-number",
    "message": "must be at least 1, got 0"
  },
  {
    "file": "job.json",
    "line": 11,
    "column": 7,
    "path": "taskRoles[0].memoryMb",
    "severity": "error",
    "rule": "unknown-field",
    "message": "unknown field \"memoryMb\" in a task role; did you mean \"memoryMB\"?"
  },
  {
    "file": "job.json",
    "line": 12,
    "column": 20,
    "path": "taskRoles[0].gpuNumber",
    "severity": "error",
    "rule": "type",
    "message": "must be an integer, got 1.5"
  },
  {
    "file": "job.json",
    "line": 15,
    "column": 20,
    "path": "taskRoles[0].portList[1].label",
    "severity": "error",
    "rule": "duplicate-port-label",
    "message": "label \"http\" is already used by taskRoles[0].portList[0]"
  },
  {
    "file": "job.json",
    "line": 18,
    "column": 29,
    "path": "taskRoles[0].minFailedTaskCount",
    "severity": "error",
    "rule": "max-failed-task-count",
    "message": "must be at most taskNumber (2), got 3"
  },
  {
    "file": "job.json",
    "line": 21,
    "column": 16,
    "path": "jobEnvs[\"batch-size\"]",
    "severity": "warning",
    "rule": "job-env-name",
    "message": "\"batch-size\" is not a valid shell variable name (^[A-Za-z_][A-Za-z0-9_]*$): the task cannot see it as $batch-size"
  }
]
=== stderr
