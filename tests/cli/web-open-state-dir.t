# paictl web's page that opens the link goes to the state directory
# when $XDG_RUNTIME_DIR is not set, or names a directory that cannot be
# made; 0600 there too, and no argv holds the secret (the link is in
# the file twice: its refresh and its anchor)
run: show() { for i in $(seq 100); do test -s opened && break; sleep 0.1; done; sed "s|$HOME|HOME|g; s|$PWD|DIR|g" opened; grep -c '[0-9a-f]\{32\}' opened; f=$(sed "s/.* //" opened); stat -c %a "$f"; grep -c -F "$(cat link)" "$f"; rm -f opened; }; env -u XDG_RUNTIME_DIR DISPLAY=:0 PATH="$PWD/bin:$PATH" paictl web >link; echo "exit $?"; show; XDG_RUNTIME_DIR=/proc/no-such-dir DISPLAY=:0 PATH="$PWD/bin:$PATH" paictl web >link; echo "exit $?"; show
timeout: 20
=== setup
mkdir bin
printf '#!/bin/sh\necho "$0 $*" >"%s/opened"\n' "$PWD" >bin/xdg-open
chmod +x bin/xdg-open
paictl serve --background --no-ssh >/dev/null
=== stdout
exit 0
DIR/bin/xdg-open HOME/.local/state/paictl/web-open.html
0
600
2
exit 0
DIR/bin/xdg-open HOME/.local/state/paictl/web-open.html
0
600
2
