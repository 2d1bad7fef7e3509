# status: state, times, retries, and the tasks with their ports by label
run: paictl -u alice status two | sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}/TIME/g; s/(web|http|ssh):[0-9,]+/\1:P/g; /^warnings:/d'
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q --wait two.json >/dev/null || true
=== file two.json
{"jobName":"two","image":"debian","taskRoles":[{"name":"ok","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true","minFailedTaskCount":null},{"name":"bad","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"portList":[{"label":"web","beginAt":0,"portNumber":2}],"command":"sleep 0.5; exit 4"}]}
=== stdout
name:       two
user:       alice
state:      FAILED
vc:         default
created:    TIME
completed:  TIME
retries:    0
exit code:  4
reason:     1 task of role 'bad' failed (minFailedTaskCount 1); last: bad-0 exited with 4

ROLE  INDEX  STATE      IP         PORTS                                 EXIT
ok    0      SUCCEEDED  127.0.0.1  http:P ssh:P                  0
bad   0      FAILED     127.0.0.1  web:P http:P ssh:P  4
