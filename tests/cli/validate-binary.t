# binary garbage (a gzip header): not UTF-8, and the excerpt shows no raw bytes
run: paictl validate job.json.gz
exit: 3
=== setup
printf '\037\213\010\000\000\000\000\000\000\003{\033[2J' >job.json.gz
=== stderr
job.json.gz:1:2: error: invalid UTF-8 byte 0x8B: a job config is UTF-8 text [invalid-utf8]
     1 | ??????????{?[2J
       |  ^
job.json.gz: 1 error, 0 warnings
