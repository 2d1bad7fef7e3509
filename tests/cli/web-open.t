# with $DISPLAY set, paictl web opens the link it prints, with
# xdg-open (here a stand-in that records what it was given), and
# JOB's page for a job
run: DISPLAY=:0 PATH="$PWD/bin:$PATH" paictl web alice~hello >link; echo "exit $?"; for i in $(seq 100); do test -s opened && break; sleep 0.1; done; cmp link opened && echo "opened the link"; sed -e 's/:[0-9][0-9]*\//:PORT\//' -e 's/token=[0-9a-f]\{64\}$/token=SECRET/' link
timeout: 20
=== setup
mkdir bin
printf '#!/bin/sh\necho "$@" >"%s/opened"\n' "$PWD" >bin/xdg-open
chmod +x bin/xdg-open
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q hello.json >/dev/null
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
exit 0
opened the link
http://127.0.0.1:PORT/job/alice/hello?token=SECRET
