# a profiles file that others may read is refused, as ssh refuses keys
run: chmod 644 c.json; paictl --config c.json list
exit: 5
=== file c.json
{}
=== stderr
paictl: list: permissions 0644 on 'c.json' are too open: it must be private to its owner (chmod 600 'c.json')
