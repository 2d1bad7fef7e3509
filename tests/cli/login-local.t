# the local cluster's socket is its owner's alone: no login needed
run: paictl login
=== stderr
paictl: login: the local cluster needs no login: only you can reach its socket
