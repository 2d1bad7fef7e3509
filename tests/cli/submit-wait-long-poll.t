# the local cluster tells of a job's end as it happens: submit --wait
# holds one request until then (the job's GET with ?wait=&since=, its
# extension), never polls, and returns within tens of milliseconds of
# the end (a generous bound here, 700 ms: polling took about a second)
run: sh wait.sh
timeout: 30
=== setup
paictl serve --background --no-ssh >/dev/null
=== file wait.sh
paictl -u alice -vv submit --wait -q job.json >/dev/null 2>trace
st=$?
end=$(date +%s%3N)
echo "exit $st"
echo "plain GETs of the job: $(grep -c '^> GET /api/v1/user/alice/jobs/quick HTTP' trace)"
grep -q '^> GET /api/v1/user/alice/jobs/quick?wait=[0-9]*&since=W%2F%22' trace &&
	echo "then held until it changed"
done=$(paictl -u alice status -o json quick | jq .jobStatus.completedTime)
if [ $((end - done)) -lt 700 ]; then
	echo "returned within 700 ms of the end"
else
	echo "returned $((end - done)) ms after the end"
fi
=== file job.json
{"jobName":"quick","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
exit 0
plain GETs of the job: 1
then held until it changed
returned within 700 ms of the end
