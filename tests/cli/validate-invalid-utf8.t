# Latin-1 text: the column counts characters, not bytes
run: paictl validate job.json
exit: 3
=== setup
printf '{\n  "jobName": "caf\351",\n  "image": "\303\251t\303\251 \351"\n}\n' >job.json
=== stderr
job.json:2:18: error: invalid UTF-8 byte 0xE9: a job config is UTF-8 text [invalid-utf8]
     2 |   "jobName": "caf?",
       |                  ^
job.json: 1 error, 0 warnings
