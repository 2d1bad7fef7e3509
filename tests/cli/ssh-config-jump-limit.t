# ssh-config on a Slurm cluster reached through its login node: a login
# node (user@host:port) of 511 bytes, the most a ProxyJump is written
# with, goes on to the cluster (here one with no key to reach it: exit
# 2); one of 512 bytes is refused before, the cluster named (exit 1):
# never a ProxyJump cut short, to another host
run: unset SSH_AUTH_SOCK; for c in at past; do paictl -c $c ssh-config job; echo "exit $?"; done
=== setup
mkdir -p "$HOME/.config/paictl"
z=$(head -c 494 /dev/zero | tr '\0' 0)
printf '{"current":null,"clusters":{"at":{"uri":"ssh://alice@127.0.0.1:%s1","api":"slurm","slurm":{"workdir":"/tmp"}},"past":{"uri":"ssh://alice@127.0.0.1:0%s1","api":"slurm","slurm":{"workdir":"/tmp"}}}}\n' "$z" "$z" >"$HOME/.config/paictl/config.json"
chmod 600 "$HOME/.config/paictl/config.json"
=== stdout
exit 2
exit 1
=== stderr
paictl: ssh-config: no SSH access to job 'job': cannot reach the login node 127.0.0.1: no key and no ssh-agent
paictl: ssh-config: the login node of cluster 'past' ("ssh://alice@127.0.0.1:0000000000000000000000000000000000000000000000000000000000000000000000...") is 512 bytes long, more than the 511 of a ProxyJump paictl writes: not written
