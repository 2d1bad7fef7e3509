# --to is required
run: paictl convert job.json
exit: 2
=== stderr
paictl: convert: --to v1, v2, volcano, paddlejob, jobset, pytorchjob, trainjob or mpijob is required
