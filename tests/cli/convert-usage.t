# --to is required
run: paictl convert job.json
exit: 2
=== stderr
paictl: convert: --to v1 or --to v2 is required
