# with $DISPLAY set, paictl web opens the link it prints, with
# xdg-open (here a stand-in that records its argv), and JOB's page for
# a job: by way of a file of the user's alone (0600, in
# $XDG_RUNTIME_DIR/paictl) that redirects to the link, so that no argv
# holds the link's secret, which any local user could read in
# /proc/*/cmdline; the link in that file still signs in (303, a session)
run: DISPLAY=:0 XDG_RUNTIME_DIR="$PWD/rt" PATH="$PWD/bin:$PATH" paictl web alice~hello >link; echo "exit $?"; for i in $(seq 100); do test -s opened && break; sleep 0.1; done; sed "s|$PWD|DIR|g" opened; grep -c '[0-9a-f]\{32\}' opened; f=$(sed "s/.* //" opened); stat -c %a "$f"; sed -n 's/.*content="0;url=\([^"]*\)".*/\1/p' "$f" >redirect; cmp link redirect && echo "redirects to the link"; sed -e 's|^http://127\.[0-9]*\.[0-9]*\.[0-9]*:[0-9]*/|http://127.A.B.C:PORT/|' -e 's/token=[0-9a-f]\{64\}$/token=SECRET/' link; curl -s -o /dev/null -D - "$(cat redirect)" | tr -d '\r' | grep -i -e '^HTTP/' -e '^location:' -e '^set-cookie:' | sed 's/=[0-9a-f]\{64\};.*/=SESSION/; s/session_[0-9]*/session_PORT/; s/#key=[0-9a-f]\{64\}/#key=KEY/'
timeout: 20
=== setup
mkdir bin rt
chmod 700 rt
printf '#!/bin/sh\necho "$0 $*" >"%s/opened"\n' "$PWD" >bin/xdg-open
chmod +x bin/xdg-open
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q hello.json >/dev/null
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
exit 0
DIR/bin/xdg-open DIR/rt/paictl/web-open.html
0
600
redirects to the link
http://127.A.B.C:PORT/job/alice/hello?token=SECRET
HTTP/1.1 303 See Other
Set-Cookie: paictl_session_PORT=SESSION
Location: /job/alice/hello#key=KEY
