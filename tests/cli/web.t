# paictl web starts the local cluster, prints one login link (a fresh
# secret each time, on a loopback address of the pages' own, the same
# each time) and exits 0; serve --status names the pages' URL; without
# a display (nor with --no-open) no browser is started
run: env -u DISPLAY -u WAYLAND_DISPLAY PATH="$PWD/bin:$PATH" paictl web 2>err >link1; echo "exit $?"; sed "s|$HOME|HOME|" err >&2; sed -e 's|^http://127\.[0-9]*\.[0-9]*\.[0-9]*:[0-9]*/|http://127.A.B.C:PORT/|' -e 's/token=[0-9a-f]\{64\}$/token=SECRET/' link1; DISPLAY=:0 PATH="$PWD/bin:$PATH" paictl web --no-open >link2; cmp -s link1 link2 || echo "another link"; paictl serve --status | grep -c "web $(sed 's|^\(http://[^/]*\)/.*|\1|' link1)\$"; test "$(sed 's|/?.*||' link1)" = "$(sed 's|/?.*||' link2)" && echo "the same listener"; test -e opened || echo "no browser"
timeout: 20
=== setup
mkdir bin
printf '#!/bin/sh\necho "$@" >"%s/opened"\n' "$PWD" >bin/xdg-open
chmod +x bin/xdg-open
=== stdout
exit 0
http://127.A.B.C:PORT/?token=SECRET
another link
1
the same listener
no browser
=== stderr
paictl: web: started the local cluster (log: HOME/.local/state/paictl/local/server.log)
