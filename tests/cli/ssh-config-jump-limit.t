# ssh-config on a Slurm cluster reached through its login node: the
# login node's block holds its user and host (at most 255 bytes each)
# and port (at most 23 digits). A user of 255 bytes and a port of 23
# digits go on to the cluster (here one with no key to reach it: exit
# 2); a user of 256 bytes or a port of 24 digits is refused before the
# cluster is asked, the cluster named (exit 1): never a block cut short,
# to another host or user
run: unset SSH_AUTH_SOCK; for c in at user_past port_past; do paictl -c $c ssh-config job; echo "exit $?"; done
=== setup
mkdir -p "$HOME/.config/paictl"
u=$(head -c 255 /dev/zero | tr '\0' a)
z=$(head -c 22 /dev/zero | tr '\0' 0)
printf '{"current":null,"clusters":{"at":{"uri":"ssh://%s@127.0.0.1:%s1","api":"slurm","slurm":{"workdir":"/tmp"}},"user_past":{"uri":"ssh://%sb@127.0.0.1:%s1","api":"slurm","slurm":{"workdir":"/tmp"}},"port_past":{"uri":"ssh://alice@127.0.0.1:0%s1","api":"slurm","slurm":{"workdir":"/tmp"}}}}\n' "$u" "$z" "$u" "$z" "$z" >"$HOME/.config/paictl/config.json"
chmod 600 "$HOME/.config/paictl/config.json"
=== stdout
exit 2
exit 1
exit 1
=== stderr
paictl: ssh-config: no SSH access to job 'job': cannot reach the login node 127.0.0.1: no key and no ssh-agent
paictl: ssh-config: cluster 'user_past': the login node "ssh://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..." is no [user@]host[:port] ssh-config writes (user and host at most 255 bytes, port at most 23 digits): not written
paictl: ssh-config: cluster 'port_past': the login node "ssh://alice@127.0.0.1:000000000000000000000001" is no [user@]host[:port] ssh-config writes (user and host at most 255 bytes, port at most 23 digits): not written
