# every example config is valid: scm-*.json under the scm dialect, the
# others under openpai's rules. All of examples/*.json, found next to the
# binary under test (build/paictl, build/asan/paictl, ...), so that a new
# example cannot be left out; its line goes in stdout below.
run: d=$(dirname "$PAICTL"); while [ ! -f "$d/examples/jupyter.json" ] && [ "$d" != / ]; do d=$(dirname "$d"); done; cp "$d"/examples/*.json . || exit 1; for f in *.json; do case $f in scm-*) paictl validate --dialect scm "$f" ;; *) paictl validate "$f" ;; esac || echo "FAILED $f"; done
=== stdout
hello-distributed.json: ok
jupyter.json: ok
scm-hello-world.json: ok
scm-jupyter.json: ok
tensorflow-cifar10.json: ok
tensorflow-distributed.json: ok
wide-and-deep.json: ok
