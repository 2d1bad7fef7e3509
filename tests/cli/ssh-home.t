# an ssh session into a task has the task's environment, HOME included:
# its shell reads the startup files of the HOME the task has (the
# server's), as the task would, never those of the user's passwd entry
# (which sshd alone would give, and whose ~/.bashrc may do anything)
run: export PAICTL_USER=alice; paictl ssh job -- 'echo "session: $HOME ${FROM_BASHRC-no .bashrc read}"' | sed "s|$HOME|HOME|"; paictl logs job main 0 | sed "s|$HOME|HOME|"
timeout: 60
=== setup
command -v sshd >/dev/null || test -x /usr/sbin/sshd
echo 'FROM_BASHRC="its .bashrc read"' >"$HOME/.bashrc"
paictl serve --background >/dev/null
paictl -u alice submit -q job.json >/dev/null
i=0; until paictl -u alice logs job main 0 2>/dev/null | grep -q ^task || [ $i -gt 300 ]; do sleep 0.1; i=$((i+1)); done
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"echo \"task: $HOME\"; exec sleep 60"}]}
=== stdout
session: HOME its .bashrc read
task: HOME
=== teardown
paictl -u alice stop --wait -q job
