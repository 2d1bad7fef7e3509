# expand reads job configs with the same 64 MiB bound as validate
run: paictl expand /dev/zero
exit: 3
timeout: 5
=== stderr
paictl: expand: '/dev/zero': larger than 64 MiB; a job config cannot be this big
