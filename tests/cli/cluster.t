# cluster add, use, list and remove; the built-in 'local' is listed too
run: export PAICTL_CONFIG=$PWD/config.json XDG_STATE_HOME=/var/empty/state; paictl cluster add prod https://pai.example.com/rest-server --user alice --dialect scm && paictl cluster add lab http://10.0.0.1:9186 --insecure && paictl cluster use prod && paictl cluster list; paictl cluster remove prod && paictl cluster list; stat -c %a config.json
=== stdout
CURRENT  NAME   URI                                          USER   DIALECT  API
         local  unix:/var/empty/state/paictl/local/api.sock  -      openpai  dual
*        prod   https://pai.example.com/rest-server          alice  scm      auto
         lab    http://10.0.0.1:9186                         -      openpai  auto
CURRENT  NAME   URI                                          USER  DIALECT  API
*        local  unix:/var/empty/state/paictl/local/api.sock  -     openpai  dual
         lab    http://10.0.0.1:9186                         -     openpai  auto
600
