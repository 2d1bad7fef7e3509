# --color takes auto, always or never
run: paictl --color=sometimes list
exit: 2
=== stderr
paictl: unknown colour setting 'sometimes' (use auto, always or never)
