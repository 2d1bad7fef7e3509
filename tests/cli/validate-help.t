# --help: on stdout, exit 0; it changes with the options table
run: paictl validate --help
=== stdout
usage: paictl validate [OPTIONS] FILE...

check job configs against the cluster's rules.

Options:
  -d, --dialect NAME         the cluster's rules: openpai (the default) or scm
      --strict               treat warnings as errors
  -o, --output FORMAT        print results as text (the default) or JSON
  -q, --quiet                print less
  -h, --help                 show this help and exit
