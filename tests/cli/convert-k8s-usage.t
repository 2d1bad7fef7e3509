# --to's formats, and Kubernetes names for --namespace and --queue: exit 2
run: paictl convert job.json --to k8s; echo "exit $?"; paictl convert job.json --to volcano --namespace Team_A; echo "exit $?"; paictl convert job.json --to volcano --queue 'a b'; echo "exit $?"; paictl expand --target kube job.json; echo "exit $?"
=== file job.json
{}
=== stdout
exit 2
exit 2
exit 2
exit 2
=== stderr
paictl: convert: unknown format 'k8s' (use v1, v2, volcano, paddlejob, jobset, pytorchjob, trainjob or mpijob)
paictl: convert: 'Team_A' is not a Kubernetes name (lower-case letters, digits, '-' and '.')
paictl: convert: 'a b' is not a Kubernetes name (lower-case letters, digits, '-' and '.')
paictl: expand: unknown target 'kube' (use volcano, paddlejob, jobset, pytorchjob, trainjob, mpijob or slurm)
