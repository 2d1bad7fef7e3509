# ssh without a command, driven in tmux: a shell on a terminal in the
# task's environment, `exit 3` comes back as the status, "~." after a
# newline disconnects (255), and the local terminal is as it was
# afterwards (stty -a unchanged)
run: export PAICTL_USER=alice; sh drive.sh
timeout: 40
=== setup
command -v sshd >/dev/null || test -x /usr/sbin/sshd
command -v tmux >/dev/null
paictl serve --background >/dev/null
paictl -u alice submit -q job.json >/dev/null
i=0; until paictl -u alice status -o json job | grep -q '"taskState": "RUNNING"' || [ $i -gt 50 ]; do sleep 0.1; i=$((i+1)); done; sleep 0.5
=== file drive.sh
T="tmux -L paictl-test-$$"
wait_for() {
	i=0
	until $T capture-pane -p | grep -q "$1" || [ $i -gt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
}
$T new-session -d -x 100 -y 30 sh
$T send-keys 'stty -a >before; paictl ssh job; echo "status=$?"' Enter
$T send-keys 'echo "ro""le=$PAI_CURRENT_TASK_ROLE_NAME"; tty' Enter
wait_for 'role=main'
$T send-keys 'exit 3' Enter
wait_for 'status=3'
$T capture-pane -p >first
$T send-keys 'clear; paictl ssh job; echo "status=$?"' Enter
$T send-keys 'echo "rea""dy"' Enter
wait_for '^ready'
$T send-keys Enter '~.'
wait_for 'status=255'
$T send-keys 'stty -a >after; cmp before after && echo "sa""ne"' Enter
wait_for '^sane'
$T capture-pane -p >second
cat first second | grep -E '^(role=|/dev/pts/|status=|sane|paictl:)' | sed -E 's|/dev/pts/[0-9]+|/dev/pts/N|; s/port [0-9]+/port PORT/'
$T kill-server
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 60"}]}
=== stdout
role=main
/dev/pts/N
status=3
paictl: ssh: connection to 127.0.0.1 port PORT closed
status=255
sane
=== teardown
paictl -u alice stop --wait -q job
