# warnings alone do not fail
run: paictl validate warn.json
exit: 0
copy: tests/cli/data/warn.json
=== stdout
warn.json: ok (with warnings)
=== stderr
warn.json:4:17: warning: retryCount: -1 is accepted by the server, but the documented minimum is 0 [negative-retry-count]
     4 |   "retryCount": -1,
       |                 ^
warn.json:12:24: warning: taskRoles[0].command: $PAI_TASK_ROLE_wroker_HOST_LIST is not in the environment of the tasks of role 'worker' (did you mean $PAI_TASK_ROLE_worker_HOST_LIST?) [unknown-pai-variable]
    12 |       "command": "echo $PAI_TASK_ROLE_wroker_HOST_LIST $undefined_thing"
       |                        ^
warn.json:12:56: warning: taskRoles[0].command: $undefined_thing is set by neither the cluster, jobEnvs nor the command: only the image could provide it [unknown-variable]
    12 |       "command": "echo $PAI_TASK_ROLE_wroker_HOST_LIST $undefined_thing"
       |                                                        ^
