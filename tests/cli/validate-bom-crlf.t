# a byte order mark and CRLF line ends: accepted; columns as an editor shows them
run: paictl validate job.json
exit: 3
=== setup
printf '\357\273\277{"jobName": "x",\r\n "image" "y"}\r\n' >job.json
=== stderr
job.json:2:10: error: ':' expected near '"y"' [syntax]
     2 |  "image" "y"}
       |          ^
job.json: 1 error, 0 warnings
