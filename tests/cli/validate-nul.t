# a NUL byte
run: paictl validate job.json
exit: 3
=== setup
printf '{\n  "jobName": "x\000y"\n}\n' >job.json
=== stderr
job.json:2:16: error: NUL byte in the file: a job config is UTF-8 text [nul-byte]
     2 |   "jobName": "x?y"
       |                ^
job.json: 1 error, 0 warnings
