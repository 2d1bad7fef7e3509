# colour only on a terminal: diagnostics on a pseudo-terminal (script)
# have a red "error", not with NO_COLOR, --color=never, or off a terminal
run: export TERM=xterm; script -qec 'paictl validate bad.json' /dev/null | tr -d '\r' | head -n 3 | cat -v; NO_COLOR=1 script -qec 'paictl validate bad.json' /dev/null | tr -d '\r' | head -n 1; script -qec 'paictl --color=never validate bad.json' /dev/null | tr -d '\r' | head -n 1; paictl validate bad.json 2>&1 | head -n 1
=== file bad.json
{"jobName":"x"}
=== stdout
bad.json:1:1: ^[[1;31merror^[[0m: image: missing required field "image" in the job [required]
     1 | {"jobName":"x"}
       | ^
bad.json:1:1: error: image: missing required field "image" in the job [required]
bad.json:1:1: error: image: missing required field "image" in the job [required]
bad.json:1:1: error: image: missing required field "image" in the job [required]
