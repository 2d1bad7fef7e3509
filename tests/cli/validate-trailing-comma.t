# a trailing comma, after a comment: the caret is on the comma
run: paictl validate job.json
exit: 3
=== file job.json
{
  "jobName": "x",
  "image": "ubuntu", // the last one
}
=== stderr
job.json:3:20: error: trailing comma before '}' [trailing-comma]
     3 |   "image": "ubuntu", // the last one
       |                    ^
job.json: 1 error, 0 warnings
