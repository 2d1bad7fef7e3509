# --cacert names a CA that cannot be read (missing, a directory): the
# request fails with exit 5 saying why, before anything is sent (the
# address answers nothing: a request would be exit 6), rather than trust
# libcurl's default bundle instead
run: paictl --uri http://127.0.0.1:1 -u alice --cacert /nonexistent/ca.pem list; echo "exit $?"; mkdir d; paictl --uri http://127.0.0.1:1 -u alice --cacert d list; echo "exit $?"
=== stdout
exit 5
exit 5
=== stderr
paictl: list: cannot list the jobs of alice: cannot read the CA file '/nonexistent/ca.pem': No such file or directory
paictl: list: cannot list the jobs of alice: cannot read the CA file 'd': Is a directory
