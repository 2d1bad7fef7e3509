# a block comment that never ends: the caret is where it starts
run: paictl validate job.json
exit: 3
=== file job.json
{
  "jobName": "x" /* TODO
}
=== stderr
job.json:2:18: error: unterminated comment: '/*' has no '*/' [unterminated-comment]
     2 |   "jobName": "x" /* TODO
       |                  ^
job.json: 1 error, 0 warnings
