# the SCM fork's export is valid under --dialect scm
run: paictl validate --dialect scm scm-jupyter.json
exit: 0
copy: examples/scm-jupyter.json
=== stdout
scm-jupyter.json: ok
=== stderr
