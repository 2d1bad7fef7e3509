# --help: on stdout, exit 0; it changes with the options table
run: paictl validate --help
=== stdout
usage: paictl validate [OPTIONS] FILE...

Check job configs against the cluster's rules.

Options:
  -d, --dialect NAME         v1 configs: the cluster's rules, openpai or scm (default: the cluster's)
      --format FORMAT        v1 (JSON), v2 (protocol YAML) or auto (the default)
      --scheduler NAME       the cluster's scheduler: hived (OpenPAI's, whose v2 rules apply by default), volcano or default (Kubernetes)
      --strict               treat warnings as errors

Global options (before or after the command):
  -c, --cluster NAME         the cluster profile ($PAICTL_CLUSTER)
      --uri URL              the REST server's URI ($PAICTL_URI)
  -u, --user NAME            the user to act as ($PAICTL_USER)
      --token-file FILE      read the bearer token from FILE (or $PAICTL_TOKEN)
      --config FILE          the profiles file ($PAICTL_CONFIG)
      --cacert FILE          trust the certificates in FILE for HTTPS
      --insecure             do not verify the server's TLS certificate
  -o, --output FORMAT        print results as text (the default) or JSON
      --color WHEN           auto (on a terminal, unless $NO_COLOR), always or never
  -q, --quiet                print less
  -v, --verbose              say more; -vv: HTTP requests, secrets masked
  -h, --help                 show this help and exit
