# 100,000 levels of nesting: an error, no crash; the long line is clipped
run: paictl validate deep.json
exit: 3
=== setup
head -c 100000 /dev/zero | tr '\0' '[' >deep.json
=== stderr
deep.json:1:2049: error: nesting deeper than 2048 levels [too-deep]
     1 | ...[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[...
       |                                                                ^
deep.json: 1 error, 0 warnings
