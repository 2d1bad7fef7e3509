# examples/cron/submit-batch.sh against the local cluster: each config
# submitted with --unique --wait, its log timestamped, the exit status the
# most serious one met (3 invalid, 9 failed: 3 wins), and a second run
# while the lock is held does nothing
run: sh submit-batch.sh jobs 2>err; echo "exit $?"; sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} /TIME /; s/-[0-9a-z]{8}\b/-SUFFIX/g' jobs/submit-batch.log; flock jobs/.submit-batch.lock sh submit-batch.sh jobs; echo "exit $?"; tail -n 1 jobs/submit-batch.log | sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} /TIME /'; sed -E 's/-[0-9a-z]{8}\b/-SUFFIX/g' err >&2
timeout: 40
copy: examples/cron/submit-batch.sh
=== setup
paictl serve --background --no-ssh >/dev/null
=== file jobs/a-ok.json
{"jobName":"ok","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== file jobs/b-fails.json
{"jobName":"fails","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"false"}]}
=== file jobs/c-invalid.json
{"jobName":"invalid","image":"debian","taskRoles":[]}
=== file jobs/notes.txt
not a config
=== stdout
exit 3
TIME run started: jobs
TIME jobs/a-ok.json: ok-SUFFIX
TIME jobs/a-ok.json: ok
TIME jobs/b-fails.json: fails-SUFFIX
TIME jobs/b-fails.json: job 'fails-SUFFIX' ended FAILED or STOPPED (paictl logs 'fails-SUFFIX')
TIME jobs/c-invalid.json: jobs/c-invalid.json:1:51: error: taskRoles: must list at least one task role [min-task-roles]
TIME jobs/c-invalid.json:      1 | {"jobName":"invalid","image":"debian","taskRoles":[]}
TIME jobs/c-invalid.json:        |                                                   ^
TIME jobs/c-invalid.json: invalid config, skipped (paictl validate 'jobs/c-invalid.json' says why)
TIME run ended: 3 config(s), exit 3
exit 0
TIME another run holds jobs/.submit-batch.lock: nothing done
=== stderr
submit-batch: jobs/b-fails.json: job 'fails-SUFFIX' ended FAILED or STOPPED (paictl logs 'fails-SUFFIX')
submit-batch: jobs/c-invalid.json: invalid config, skipped (paictl validate 'jobs/c-invalid.json' says why)
