# a stream's last line without its newline is a line of its own in the
# merged log, after the other stream's lines, whichever stream ends
# first (stdout's was glued to the next stderr line: "no newlineerr")
run: export PAICTL_USER=alice; paictl logs one main 0; echo; paictl logs one main 0 --stream stdout; echo; paictl logs two main 0; echo
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q --wait one.json >/dev/null
paictl -u alice submit -q --wait two.json >/dev/null
=== file one.json
{"jobName":"one","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"echo first; printf 'no newline'; exec >&-; echo err >&2"}]}
=== file two.json
{"jobName":"two","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"printf 'out'; exec >&-; printf 'err' >&2"}]}
=== stdout
first
err
no newline
first
no newline
out
err
