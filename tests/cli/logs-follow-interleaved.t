# logs -f on two tasks writing slowly, in pieces, with a last line
# without newline: each task's lines whole, in order, once, prefixed
run: paictl -u alice submit -q slow.json >/dev/null && paictl -u alice logs -f slow >out; for i in 0 1; do sed -n "s/^w-$i | //p" out >got$i; { seq 40 | sed "s/^/$i:/"; echo "end $i"; } | cmp - got$i || exit 1; done; grep -vc '^w-[01] | ' out
exit: 1
timeout: 30
=== setup
paictl serve --background --no-ssh >/dev/null
=== file slow.json
{"jobName":"slow","image":"debian","taskRoles":[{"name":"w","taskNumber":2,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"for i in $(seq 40); do printf '%s:' $PAI_TASK_INDEX; sleep 0.02; echo $i; done; printf 'end %s' $PAI_TASK_INDEX"}]}
=== stdout
0
