#!/bin/bash
# build.sh -- build (once; cached) the Debian root file system that slurm-next/start.sh
# runs its cluster from: Debian SUITE's Slurm (slurmctld, slurmd, slurm-client,
# slurmrestd, the JWT plugin, slurmdbd + MariaDB), munge and sshd.
# Prints the root's path on stdout.  Idempotent: an existing root whose stamp matches
# is reused; a new one is built aside and renamed into place (flock'd).
# Tunables (env): SUITE=trixie (Slurm 24.11) | sid (newest Slurm; also "forky", "unstable")
#                 CACHE_DIR=~/.cache/paictl/slurm   ROOT=$CACHE_DIR/$SUITE
#                 MIRROR= (default: the first Debian (non-security) URI of this
#                          machine's apt sources, read at run time)
# Needs: root, mmdebstrap (apt-get install -y mmdebstrap), network to the mirror.
set -u
SUITE=${SUITE:-trixie}
CACHE_DIR=${CACHE_DIR:-$HOME/.cache/paictl/slurm}
ROOT=${ROOT:-$CACHE_DIR/$SUITE}
PACKAGES="slurmctld slurmd slurm-client slurmrestd slurm-wlm-jwt-plugin slurmdbd
  slurm-wlm-mysql-plugin munge mariadb-server openssh-server openssh-client curl
  ca-certificates procps iproute2 less"
STAMP_WANT="suite=$SUITE packages=$(echo $PACKAGES)"

say() { echo "build.sh: $*" >&2; }

# the mirror: this machine's own Debian source, never a name written here
mirror() {
  [ -n "${MIRROR:-}" ] && { echo "$MIRROR"; return; }
  local f u
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    u=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' "$f" | grep -v -- '-security' | head -n1)
    [ -n "$u" ] && { echo "$u"; return; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    u=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; break } }' "$f" \
        | grep -v -- '-security' | head -n1)
    [ -n "$u" ] && { echo "$u"; return; }
  done
  return 1
}

have_root() { [ -f "$ROOT/.slurm-judge-stamp" ] && [ "$(cat "$ROOT/.slurm-judge-stamp")" = "$STAMP_WANT" ]; }
# what start.sh needs beyond the packages: an /etc/hosts to bind the host's onto, and
# an initialised MariaDB datadir to copy (sid's package leaves none; trixie's has one in
# /var/lib/mysql, owned by its mysql user)
MYSQL_TEMPLATE=/var/lib/slurm-judge/mysql
have_extras() { [ -e "$1/etc/hosts" ] && [ -d "$1$MYSQL_TEMPLATE/mysql" ]; }
make_extras() {
  [ -e "$1/etc/hosts" ] || echo "127.0.0.1 localhost" > "$1/etc/hosts"
  if [ ! -d "$1$MYSQL_TEMPLATE/mysql" ]; then
    rm -rf "$1$MYSQL_TEMPLATE" && mkdir -p "$1${MYSQL_TEMPLATE%/*}" || return 1
    chroot "$1" mariadb-install-db --no-defaults --user=root --datadir="$MYSQL_TEMPLATE" \
      --skip-test-db --skip-name-resolve --auth-root-authentication-method=socket >"$1${MYSQL_TEMPLATE%/*}/install-db.log" 2>&1 \
      || { say "mariadb-install-db failed: see $1${MYSQL_TEMPLATE%/*}/install-db.log"; return 1; }
  fi
}

if have_root && have_extras "$ROOT"; then echo "$ROOT"; exit 0; fi
[ "$(id -u)" = 0 ] || { say "needs root"; exit 1; }
mkdir -p "$CACHE_DIR" || exit 1
exec 9>"$CACHE_DIR/.build-$SUITE.lock"
flock 9
if have_root; then                               # built (by someone else meanwhile)
  have_extras "$ROOT" || make_extras "$ROOT" || exit 1
  echo "$ROOT"; exit 0
fi

command -v mmdebstrap >/dev/null || { say "needs mmdebstrap (apt-get install -y mmdebstrap)"; exit 1; }
MIRROR_URI=$(mirror) || { say "no Debian mirror found in /etc/apt/sources*"; exit 1; }
TMP="$ROOT.tmp.$$"
rm -rf "$TMP"
say "building $SUITE root in $ROOT (a few minutes)"
t0=$(date +%s)
# Check-Valid-Until=false: a mirror snapshot's Release files of a moving suite
# (sid/forky) may carry an expired Valid-Until.
mmdebstrap --mode=root --variant=apt \
  --aptopt='Acquire::Check-Valid-Until "false"' \
  --aptopt='Acquire::Languages "none"' \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --include="$(echo $PACKAGES | tr ' ' ',')" \
  --customize-hook='chroot "$1" sh -c "slurmctld -V > /.slurm-version"' \
  "$SUITE" "$TMP" "$MIRROR_URI" >&2 || { say "mmdebstrap failed"; rm -rf "$TMP"; exit 1; }
make_extras "$TMP" || { rm -rf "$TMP"; exit 1; }
echo "$STAMP_WANT" > "$TMP/.slurm-judge-stamp"
rm -rf "$ROOT"
mv "$TMP" "$ROOT" || exit 1
say "built $(cat "$ROOT/.slurm-version") in $ROOT in $(( $(date +%s) - t0 )) s"
echo "$ROOT"
