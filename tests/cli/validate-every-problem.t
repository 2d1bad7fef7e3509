# every problem at once: a misspelled field does not hide a bad
# prerequisite reference, nor that a variable no task has (both
# formats); the later checks run on what did parse
run: paictl validate st.yaml st.json
exit: 3
=== file st.yaml
protocolVersion: 2
name: staged
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: ubuntu}
taskRoles:
  main:
    instances: 2
    dockerImage: imgg
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    comands: [echo hi]
    commands:
      - echo $PAI_TASK_ROLE_mian_HOST_LIST
=== file st.json
{"jobName": "st", "image": "debian", "taskRoles": [{"name": "main",
 "taskNumber": 2, "cpuNumber": 1, "memoryMB": 64, "gpuNumber": 0,
 "memoryMb": 5, "command": "echo $PAI_TASK_ROLE_mian_HOST_LIST"}]}
=== stderr
st.yaml:9:18: error: taskRoles.main.dockerImage: no dockerimage prerequisite is named "imgg" [v2-prerequisite-missing]
     9 |     dockerImage: imgg
       |                  ^
st.yaml:11:5: error: taskRoles.main.comands: a task role has no field "comands"; did you mean "commands"? [unknown-field]
    11 |     comands: [echo hi]
       |     ^
st.yaml:13:14: warning: taskRoles.main.commands[0]: $PAI_TASK_ROLE_mian_HOST_LIST is not in the environment of the tasks of role 'main' on OpenPAI v1.x (did you mean $PAI_TASK_ROLE_main_HOST_LIST?) [unknown-pai-variable]
    13 |       - echo $PAI_TASK_ROLE_mian_HOST_LIST
       |              ^
st.yaml: 2 errors, 1 warning
st.json:2:47: error: taskRoles[0].memoryMB: must be at least 100, got 64 [min-memory]
     2 |  "taskNumber": 2, "cpuNumber": 1, "memoryMB": 64, "gpuNumber": 0,
       |                                               ^
st.json:3:2: error: taskRoles[0].memoryMb: unknown field "memoryMb" in a task role; did you mean "memoryMB"? [unknown-field]
     3 |  "memoryMb": 5, "command": "echo $PAI_TASK_ROLE_mian_HOST_LIST"}]}
       |  ^
st.json:3:34: warning: taskRoles[0].command: $PAI_TASK_ROLE_mian_HOST_LIST is not in the environment of the tasks of role 'main' (did you mean $PAI_TASK_ROLE_main_HOST_LIST?) [unknown-pai-variable]
     3 |  "memoryMb": 5, "command": "echo $PAI_TASK_ROLE_mian_HOST_LIST"}]}
       |                                  ^
st.json: 2 errors, 1 warning
