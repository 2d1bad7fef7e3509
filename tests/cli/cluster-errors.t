# cluster: a name taken (7), a bad URI or name (2, saying which is
# wrong and how: a URI without its scheme), an unknown cluster
# (4), 'local' is built in (2), a subcommand that does not exist (2)
run: export PAICTL_CONFIG=$PWD/c.json; paictl cluster add a http://x; paictl cluster add a http://y; echo "exit $?"; paictl cluster add b ftp://x; echo "exit $?"; paictl cluster add prod pai.example.com; echo "exit $?"; paictl cluster add 'p/x' https://pai.example.com; echo "exit $?"; paictl cluster list | grep -c prod; paictl cluster remove nope; echo "exit $?"; paictl cluster use nope; echo "exit $?"; paictl cluster add local http://x; echo "exit $?"; paictl cluster list --user x; echo "exit $?"; paictl cluster frob
exit: 2
=== stdout
exit 7
exit 2
exit 2
exit 2
0
exit 4
exit 4
exit 2
exit 2
=== stderr
paictl: cluster: cluster 'a' exists already; remove it first
paictl: cluster: 'ftp://x' is not an http:// or https:// URI
paictl: cluster: 'pai.example.com' is not a URI: give its scheme, as in 'https://pai.example.com' (http:// or https://)
paictl: cluster: invalid cluster name 'p/x' (letters, digits, '-', '_' and '.')
paictl: cluster: no cluster named 'nope'
paictl: cluster: no cluster named 'nope'; see 'paictl cluster list'
paictl: cluster: 'local' is the built-in local cluster; choose another name
paictl: cluster: --user, --dialect, --cacert, --insecure, --api and --kubernetes go with 'cluster add'
paictl: cluster: unknown subcommand 'frob'; use add, list, remove or use
