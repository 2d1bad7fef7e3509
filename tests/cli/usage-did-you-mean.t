# a misspelt command or long option: the nearest name, as git says it
# (an old spelling's nearness suggests what it stands for); one far
# from all: the list, or where to look
run: paictl submt; paictl lst; paictl expand --defualt-fs x y; paictl expand --fs-urx x y; paictl logs --stderx j; paictl --clustr x list; paictl list --zzzzzz; paictl frobnicate 2>&1 | head -n 2
=== stdout
paictl: unknown command 'frobnicate'
usage: paictl [--version] [--help] COMMAND [ARGS]
=== stderr
paictl: unknown command 'submt'; did you mean 'submit'?
paictl: unknown command 'lst'; did you mean 'list'?
paictl: expand: unknown option '--defualt-fs'; did you mean '--default-fs'?
paictl: expand: unknown option '--fs-urx'; did you mean '--default-fs'?
paictl: logs: unknown option '--stderx'; did you mean '--stream stderr'?
paictl: unknown option '--clustr'; did you mean '--cluster'?
paictl: list: unknown option '--zzzzzz'; see 'paictl list --help'
