#!/bin/sh
# tests/podman/image.sh - builds a small image offline, for the tests and
# the benchmark of the local cluster's podman runtime: a rootfs of
# Debian's busybox-static and its applets, an /etc/os-release of its own
# (ID=paictl-test, VERSION_ID=TAG) and a marker file only the image has
# (/paictl-image-marker), imported with `podman import` (no registry).
#
# usage: sh tests/podman/image.sh NAME:TAG    (exit 2: no busybox-static)
set -eu
image=${1:?usage: image.sh NAME:TAG}
busybox=$(dpkg -L busybox-static 2>/dev/null | grep '/bin/busybox$' | head -n 1) || :
[ -n "$busybox" ] && [ -x "$busybox" ] || exit 2
tmp=$(mktemp -d /tmp/paictl-image.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/rootfs
mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/root"
cp "$busybox" "$root/bin/busybox"
for a in $("$root/bin/busybox" --list); do
	[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
done
printf 'ID=paictl-test\nVERSION_ID=%s\nNAME="paictl test image"\n' \
	"${image##*:}" >"$root/etc/os-release"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "only in the image" >"$root/paictl-image-marker"
tar -C "$root" -cf "$tmp/rootfs.tar" .
podman import -q "$tmp/rootfs.tar" "$image" >/dev/null
