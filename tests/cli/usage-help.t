# the list of commands names help and version too
run: paictl --help | grep -E '^  (help|version) '; paictl help version | head -n 1
=== stdout
  help       show the commands, or a command's usage and options
  version    show paictl's version
usage: paictl version [OPTIONS]
