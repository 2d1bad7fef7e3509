# a number no double holds
run: paictl validate job.json
exit: 3
=== file job.json
{
  "jobName": "big",
  "retryCount": 1e400
}
=== stderr
job.json:3:17: error: number 1e400 is out of range [number-range]
     3 |   "retryCount": 1e400
       |                 ^
job.json: 1 error, 0 warnings
