# the same key twice in one object: the second is the error
run: paictl validate job.json
exit: 3
=== file job.json
{
  "jobName": "x",
  "taskRoles": [],
  "jobName": "y"
}
=== stderr
job.json:4:3: error: duplicate key "jobName": each key may appear once in an object [duplicate-key]
     4 |   "jobName": "y"
       |   ^
job.json: 1 error, 0 warnings
