# submit reads job configs with the same 64 MiB bound: nothing is sent
run: head -c 70000000 /dev/zero | paictl submit -
exit: 3
timeout: 5
=== stderr
paictl: submit: '-': larger than 64 MiB; a job config cannot be this big
paictl: submit: nothing submitted
