# submit --help: every option of the command, then the global ones
run: paictl submit --help
=== stdout
usage: paictl submit [OPTIONS] FILE...

Validate job configs and submit them.

Options:
      --name NAME            submit under NAME instead of the config's jobName (one file)
      --env KEY=VALUE        set jobEnvs (v2: parameters) KEY to VALUE (as many as needed)
      --unique               append a short time-based suffix to the job name
      --dry-run              print the requests (token masked) and send nothing
      --wait                 wait for the jobs to end: exit 0 when all succeeded, 9 otherwise
      --timeout SECONDS      with --wait: give up after SECONDS (exit 8), the jobs going on
      --no-validate          leave the checks to the cluster
      --skip-existing        a job of that name exists already: not an error
      --no-ssh-key           v1.x clusters: do not add your SSH public key to the job
  -d, --dialect NAME         v1 configs: the cluster's rules, openpai or scm (default: the cluster's)
      --format FORMAT        v1 (JSON), v2 (protocol YAML) or auto (the default)
      --scheduler NAME       the cluster's scheduler: hived (OpenPAI's, whose v2 rules apply by default), volcano or default (Kubernetes)

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
