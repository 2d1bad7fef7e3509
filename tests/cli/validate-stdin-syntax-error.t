# a syntax error on standard input names <stdin>
run: paictl validate -
exit: 3
=== stdin
{"jobName": "x",,}
=== stderr
<stdin>:1:17: error: string or '}' expected near ',' [syntax]
     1 | {"jobName": "x",,}
       |                 ^
<stdin>: 1 error, 0 warnings
