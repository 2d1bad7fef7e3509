# /dev/zero never ends: refused once past 64 MiB, at once, not read until
# memory runs out
run: paictl validate /dev/zero
exit: 3
timeout: 5
=== stderr
paictl: validate: '/dev/zero': larger than 64 MiB; a job config cannot be this big
