# a pipe on standard input over 64 MiB: refused, reading stops there
run: head -c 70000000 /dev/zero | paictl validate -
exit: 3
timeout: 5
=== stderr
paictl: validate: '-': larger than 64 MiB; a job config cannot be this big
