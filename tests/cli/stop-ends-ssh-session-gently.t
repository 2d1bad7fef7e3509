# what runs in an ssh session is asked to end before it is killed, as a
# stop asks the task: SIGTERM once (a second would cut short the
# cleanup the first began), then SIGKILL after the grace (serve --grace
# 3), whether the task is stopped or ends by itself; a trap that takes a
# second to clean up (a lock file left behind would hang every later
# session) gets its second, and what ignores SIGTERM still goes
run: sh t.sh
timeout: 90
=== setup
command -v sshd >/dev/null || test -x /usr/sbin/sshd
echo $$ >mark
paictl serve --background --grace 3 >/dev/null
=== file job.json
{"jobName":"JOB","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"echo started; while [ ! -e $HOME/go ]; do sleep 0.05; done"}]}
=== file t.sh
M=$(cat mark)
export PAICTL_USER=alice
# session JOB TRAP: a session into JOB holding a lock it removes, a
# second after a signal, on its way out; once it holds it
session() {
	rm -f "$HOME/lock" "$HOME/in"
	paictl ssh "$1" -- "$2; touch \$HOME/lock; touch \$HOME/in; sleep 7$M & wait" >/dev/null 2>&1 &
	i=0; until [ -e "$HOME/in" ] || [ $i -gt 300 ]; do sleep 0.1; i=$((i+1)); done
}
start() {
	sed "s/JOB/$1/" job.json >"$1.json"
	paictl submit -q "$1.json" >/dev/null
	i=0; until paictl logs "$1" main 0 2>/dev/null | grep -q started || [ $i -gt 300 ]; do sleep 0.1; i=$((i+1)); done
}
clean='trap "sleep 1; rm \$HOME/lock; exit" TERM HUP'
start stopped
session stopped "$clean"
paictl stop --wait -q stopped >/dev/null
echo "stopped: lock $(ls "$HOME/lock" 2>/dev/null || echo removed), $(pgrep -cf "^sleep 7$M") left"
start ended
session ended "$clean"
touch "$HOME/go"
paictl wait ended >/dev/null 2>&1
echo "ended: lock $(ls "$HOME/lock" 2>/dev/null || echo removed), $(pgrep -cf "^sleep 7$M") left"
rm "$HOME/go"
start stubborn
session stubborn 'trap "" TERM HUP'
paictl stop --wait -q stubborn >/dev/null
echo "stubborn: $(pgrep -cf "^sleep 7$M") left"
=== stdout
stopped: lock removed, 0 left
ended: lock removed, 0 left
stubborn: 0 left
=== teardown
paictl -u alice stop --wait -q stopped ended stubborn
pkill -f "^sleep 7$(cat mark)" 2>/dev/null
