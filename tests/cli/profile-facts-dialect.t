# validate, expand and convert take the chosen cluster's dialect as
# submit does: the SCM fork's export, refused under openpai, is fine
# with -c of an scm profile and with 'cluster use'; -d still wins
run: paictl cluster add scm http://127.0.0.1:9 --dialect scm && paictl -c scm validate scm-jupyter.json && paictl -c scm expand scm-jupyter.json task_1 0 | grep -c '^PAI_' && paictl -c scm convert --to v2 scm-jupyter.json 2>/dev/null | head -n 2 && paictl cluster use scm && paictl validate scm-jupyter.json && paictl -u alice submit --dry-run scm-jupyter.json | head -n 1 && paictl validate -d openpai scm-jupyter.json 2>&1 | tail -n 1
copy: examples/scm-jupyter.json
=== stdout
scm-jupyter.json: ok
54
protocolVersion: '2'
name: jupyter_16be8b71
scm-jupyter.json: ok
POST http://127.0.0.1:9/api/v1/user/alice/jobs
scm-jupyter.json: 2 errors, 0 warnings
