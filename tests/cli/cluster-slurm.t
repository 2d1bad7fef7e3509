# cluster add --slurm: the profile and its settings (list -o json); a
# relative --workdir (2), --slurm with a URI operand (2), its options
# without --slurm (2), a token file others can read refused (5)
run: export PAICTL_CONFIG=$PWD/c.json; umask 077; echo t > tok; paictl cluster add hpc --slurm https://slurm.test:6820 --token-file tok --partition gpu --workdir /scratch/a --ssh-port 2222 -u alice && paictl cluster list -o json | grep -A13 '"slurm": {' | sed "s|$PWD|.|"; paictl cluster add b --slurm http://x --workdir rel; echo "exit $?"; paictl cluster add c --slurm http://x http://y; echo "exit $?"; paictl cluster add d http://x --partition p; echo "exit $?"; chmod 644 tok; paictl -c hpc list 2>err; echo "exit $?"; sed "s|$PWD|.|g" err
=== stdout
    "slurm": {
      "tokenFile": "./tok",
      "partition": "gpu",
      "account": null,
      "qos": null,
      "workdir": "/scratch/a",
      "sshHost": null,
      "sshPort": 2222,
      "pyxis": false,
      "virtualClusterPartition": false,
      "identityFile": null
    }
  }
]
exit 2
exit 2
exit 2
exit 5
paictl: list: cannot list the jobs of alice: token file './tok' is not a regular file that only its owner can read (chmod 600 './tok')
=== stderr
paictl: cluster: --workdir 'rel' must be absolute: a path every node of the cluster sees
paictl: cluster: usage: paictl cluster add NAME --slurm URL [--token-file F] [--partition P] [--account A] [--qos Q] [--workdir DIR] [--ssh-host H] [--ssh-port N] [--pyxis] [--identity F]
paictl: cluster: --partition, --account, --qos, --workdir, --ssh-host, --ssh-port, --pyxis, --vc-partition and --identity go with --slurm
