# the profile's user is a fact as its dialect is: expand shows it (and
# an OpenPAI v1.x framework name from it) where neither --user nor
# $PAICTL_USER says otherwise, as submit would act as it
run: unset USER; paictl cluster add pai http://127.0.0.1:9 -u bob && paictl -c pai expand -o json job.json | jq -r .user; paictl -c pai expand job.json main 0 | grep '^PAI_USER_NAME='; PAICTL_USER=carol paictl -c pai expand -o json job.json | jq -r .user; paictl -c pai -u dave expand -o json job.json | jq -r .user; paictl expand -o json job.json | jq -r .user
=== file job.json
{"jobName": "j", "image": "debian", "taskRoles": [{"name": "main",
 "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
 "command": "true"}]}
=== stdout
bob
PAI_USER_NAME=bob
carol
dave
<user>
