# cluster list -o json, from the default place ($XDG_CONFIG_HOME)
run: export XDG_CONFIG_HOME=$PWD/cfg; paictl cluster add prod https://pai.example.com --cacert ca.pem && paictl cluster use local && paictl cluster list -o json | jq -c '.[] | del(.uri)'; ls cfg/paictl
=== stdout
{"name":"local","user":null,"dialect":"openpai","caFile":null,"insecure":false,"current":true,"builtin":true}
{"name":"prod","user":null,"dialect":"openpai","caFile":"ca.pem","insecure":false,"current":false,"builtin":false}
config.json
