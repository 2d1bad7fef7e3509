# cluster add, use, list and remove; the built-in 'local' is listed too
run: export PAICTL_CONFIG=$PWD/config.json XDG_STATE_HOME=/var/empty/state; paictl cluster add prod https://pai.example.com/rest-server --user alice --dialect scm && paictl cluster add lab http://10.0.0.1:9186 --insecure && paictl cluster use prod && paictl cluster list; paictl cluster remove prod && paictl cluster list; stat -c %a config.json
=== stdout
CURRENT  NAME   URI                                          USER   DIALECT
         local  unix:/var/empty/state/paictl/local/api.sock  -      openpai
*        prod   https://pai.example.com/rest-server          alice  scm
         lab    http://10.0.0.1:9186                         -      openpai
CURRENT  NAME   URI                                          USER  DIALECT
*        local  unix:/var/empty/state/paictl/local/api.sock  -     openpai
         lab    http://10.0.0.1:9186                         -     openpai
600
