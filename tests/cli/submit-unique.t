# --unique: a short time-based suffix, different for each job of a run
run: names=$(paictl -u alice submit --dry-run -o json --unique a.json a.json | jq -r '.[].body.jobName'); echo "$names" | sed -E 's/^batch-[0-9a-z]{8}$/batch-SUFFIX/'; echo "$names" | sort -u | wc -l
=== file a.json
{"jobName":"batch","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
batch-SUFFIX
batch-SUFFIX
2
