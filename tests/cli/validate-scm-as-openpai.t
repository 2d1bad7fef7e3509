# the SCM fork's export is invalid under the default openpai dialect
run: paictl validate scm-jupyter.json
exit: 3
copy: examples/scm-jupyter.json
=== stdout
=== stderr
scm-jupyter.json:17:7: error: taskRoles[0].storageGB: unknown field "storageGB" in a task role: it belongs to the scm dialect (--dialect scm) [unknown-field]
    17 |       "storageGB": 5,
       |       ^
scm-jupyter.json:33:3: error: tmp: unknown field "tmp" in the job: it belongs to the scm dialect (--dialect scm) [unknown-field]
    33 |   "tmp": {
       |   ^
scm-jupyter.json: 2 errors, 0 warnings
