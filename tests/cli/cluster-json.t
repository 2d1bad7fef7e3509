# cluster list -o json, from the default place ($XDG_CONFIG_HOME); a
# relative --cacert is kept absolute, as the profile is used from anywhere
run: export XDG_CONFIG_HOME=$PWD/cfg; paictl cluster add prod https://pai.example.com --cacert ca.pem && paictl cluster use local && paictl cluster list -o json | jq -c '.[] | del(.uri)' | sed "s|$PWD|.|"; ls cfg/paictl; paictl cluster add other https://x --cacert nope.pem
exit: 4
=== file ca.pem
not checked here
=== stdout
{"name":"local","user":null,"dialect":"openpai","caFile":null,"insecure":false,"api":"dual","current":true,"builtin":true}
{"name":"prod","user":null,"dialect":"openpai","caFile":"./ca.pem","insecure":false,"api":"auto","current":false,"builtin":false}
config.json
=== stderr
paictl: cluster: cannot use --cacert 'nope.pem': No such file or directory
