# ssh without a command, driven in tmux: a shell on a terminal in the
# task's environment, `exit 3` comes back as the status, "~." after a
# newline disconnects (255), and the local terminal is as it was
# afterwards (stty -a unchanged). The session's login shell reads the
# ~/.profile of the task's HOME (the case's): a short prompt, so that
# no line wraps; panes are captured with wrapped lines joined all the
# same, and paictl's message may follow the remote prompt
run: export PAICTL_USER=alice; sh drive.sh
timeout: 40
=== setup
command -v sshd >/dev/null || test -x /usr/sbin/sshd
command -v tmux >/dev/null
echo "PS1='$ '" >"$HOME/.profile"
paictl serve --background >/dev/null
paictl -u alice submit -q job.json >/dev/null
i=0; until paictl -u alice status -o json job | grep -q '"taskState": "RUNNING"' || [ $i -gt 300 ]; do sleep 0.1; i=$((i+1)); done
=== file drive.sh
T="tmux -L paictl-test-$$"
wait_for() {
	i=0
	until $T capture-pane -pJ | grep -q "$1" || [ $i -gt 200 ]; do
		sleep 0.1; i=$((i + 1))
	done
}
$T new-session -d -x 100 -y 30 sh
$T send-keys 'stty -a >before; paictl ssh job; echo "status=$?"' Enter
$T send-keys 'echo "ro""le=$PAI_CURRENT_TASK_ROLE_NAME"; tty' Enter
wait_for 'role=main'
$T send-keys 'exit 3' Enter
wait_for 'status=3'
$T capture-pane -pJ >first
$T send-keys 'clear; paictl ssh job; echo "status=$?"' Enter
$T send-keys 'echo "rea""dy"' Enter
wait_for '^ready'
$T send-keys Enter '~.'
wait_for 'status=255'
$T send-keys 'stty -a >after; cmp before after && echo "sa""ne"' Enter
wait_for '^sane'
$T capture-pane -pJ >second
cat first second | sed 's/^\$ paictl:/paictl:/' | grep -E '^(role=|/dev/pts/|status=|sane|paictl:)' | sed -E 's|/dev/pts/[0-9]+|/dev/pts/N|; s/port [0-9]+/port PORT/'
$T kill-server
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 600"}]}
=== stdout
role=main
/dev/pts/N
status=3
paictl: ssh: connection to 127.0.0.1 port PORT closed
status=255
sane
=== teardown
paictl -u alice stop --wait -q job
