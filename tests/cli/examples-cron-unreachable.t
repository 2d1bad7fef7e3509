# examples/cron/submit-batch.sh when the cluster does not answer: exit 6,
# the run stops at the first config (the next run tries them all again)
run: PAICTL_URI=http://127.0.0.1:9 sh submit-batch.sh jobs; echo "exit $?"; sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} /TIME /; s/-[0-9a-z]{8}'"'"'/-SUFFIX'"'"'/; s/after [0-9]+ ms/after N ms/' jobs/submit-batch.log
timeout: 30
copy: examples/cron/submit-batch.sh
=== file jobs/a.json
{"jobName":"a","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== file jobs/b.json
{"jobName":"b","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
exit 6
TIME run started: jobs
TIME jobs/a.json: paictl: submit: cannot submit 'jobs/a.json' as 'a-SUFFIX': 127.0.0.1:9: Failed to connect to 127.0.0.1 port 9 after N ms: Couldn't connect to server
TIME jobs/a.json: cluster unreachable: the next run tries again; run stopped
TIME run ended: 1 config(s), exit 6
=== stderr
submit-batch: jobs/a.json: cluster unreachable: the next run tries again; run stopped
