# an empty file: a syntax error at 1:1, exit 3
run: paictl validate empty.json
exit: 3
=== file empty.json
=== stderr
empty.json:1:1: error: empty file: expected a JSON object [syntax]
     1 | 
       | ^
empty.json: 1 error, 0 warnings
