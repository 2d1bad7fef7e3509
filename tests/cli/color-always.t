# --color=always: job states coloured in list and status (the columns
# still line up), even off a terminal and with NO_COLOR
run: export NO_COLOR=1; paictl -u alice list --color=always | sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}/TIME/g' | cat -v; paictl --color=always -u alice status hello | sed -n 3p | cat -v
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q --wait hello.json >/dev/null
paictl -u alice submit -q --wait fail.json >/dev/null || true
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== file fail.json
{"jobName":"fail","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exit 1"}]}
=== stdout
NAME   STATE      CREATED              COMPLETED
fail   ^[[31mFAILED^[[0m     TIME  TIME
hello  ^[[32mSUCCEEDED^[[0m  TIME  TIME
state:      ^[[32mSUCCEEDED^[[0m
