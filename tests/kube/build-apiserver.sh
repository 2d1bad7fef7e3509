#!/usr/bin/env bash
# tests/kube/build-apiserver.sh - a real kube-apiserver v1.20.2 for the
# Kubernetes backend's tests, built from Debian bookworm's `kubernetes`
# source package (the only Kubernetes source reachable without the
# internet), as ../shared/reference/kube-apiserver.md describes.
#
#     tests/kube/build-apiserver.sh        # prints the binary's path
#
# Builds only when the binary is missing; every step leaves a stamp so that
# an interrupted build resumes where it stopped. Nothing outside the cache
# directory is written: apt runs with private sources, lists and caches, so
# the machine's apt configuration and state stay as they are.
#
# Environment:
#   PAI_KUBE_APISERVER  an existing kube-apiserver to use; nothing is built
#                       (an error if it is not an executable file)
#   PAI_KUBE_CACHE      where to build (default
#                       ${XDG_CACHE_HOME:-$HOME/.cache}/paictl/kube-apiserver-1.20.2);
#                       the binary is $PAI_KUBE_CACHE/kube-apiserver
#   PAI_GO_PARALLEL     go build -p (default 2: the machine is shared)
#   PAI_KUBE_KEEP_BUILD 1 keeps the sources and Go's build cache (1.5 GB)
#                       after a build, so that a rebuild takes ~1 min instead
#                       of ~4.5; by default only the binary (106 MB) is kept
#
# Needs: golang-go (1.19), dpkg-dev, apt, findutils. Exit 0 with the path on
# stdout; progress and errors on stderr.
set -euo pipefail

readonly DEB_VERSION=1.20.5+really1.20.2-1.1+deb12u1
readonly K8S_VERSION=v1.20.2
readonly REFLECT2_PKG=golang-github-modern-go-reflect2-dev
readonly SOURCES=/etc/apt/sources.list.d/debian.sources

CACHE=${PAI_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paictl/kube-apiserver-1.20.2}
OUT=$CACHE/kube-apiserver
SRC=$CACHE/src          # the unpacked source package
GOPATH_DIR=$CACHE/gopath
PROG=build-apiserver

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { say "error: $*"; exit 1; }

# A step runs once: its stamp file says it finished.
step() {
	local name=$1; shift
	[ -e "$CACHE/stamps/$name" ] && return 0
	say "$name..."
	"$@"
	mkdir -p "$CACHE/stamps" && touch "$CACHE/stamps/$name"
}

check_tools() {
	local t missing=
	for t in go apt-get dpkg-source dpkg-deb find grep sed flock; do
		command -v "$t" >/dev/null || missing="$missing $t"
	done
	[ -z "$missing" ] || die "missing:$missing (run 'make test-deps'; the Makefile's TEST_DEB_PKGS lists golang-go and dpkg-dev)"
	case $(go env GOVERSION) in
	go1.1[6-9]* | go1.2*) ;;
	*) say "warning: built and tested with Go 1.19, this is $(go env GOVERSION)" ;;
	esac
}

# apt with a private sources directory, lists and caches: `update` here
# never touches /var/lib/apt or /var/cache/apt. The sources are the
# machine's own with deb-src added (deb too, for `apt-get download` of
# reflect2 without relying on the machine's lists being current).
apt_private() {
	apt-get -q -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$CACHE/apt/sources.list.d" \
		-o Dir::State::Lists="$CACHE/apt/lists" \
		-o Dir::Cache="$CACHE/apt/cache" \
		-o APT::Sandbox::User="$(id -un)" "$@"
}

apt_update() {
	[ -r "$SOURCES" ] || die "no $SOURCES to take Debian's archive from"
	mkdir -p "$CACHE/apt/sources.list.d" "$CACHE/apt/lists/partial" \
		"$CACHE/apt/cache/archives/partial"
	sed 's/^Types:.*/Types: deb deb-src/' "$SOURCES" \
		>"$CACHE/apt/sources.list.d/debian.sources"
	apt_private update >&2 || die "apt-get update (private lists) failed: is Debian's archive reachable?"
}

download() {
	rm -rf "$CACHE/dl" && mkdir -p "$CACHE/dl"
	(cd "$CACHE/dl" && apt_private source --download-only "kubernetes=$DEB_VERSION" >&2) ||
		die "cannot download the source package kubernetes=$DEB_VERSION"
	(cd "$CACHE/dl" && apt_private download "$REFLECT2_PKG" >&2) ||
		die "cannot download $REFLECT2_PKG"
}

unpack() {
	rm -rf "$SRC"
	# a fresh source tree needs every later step again
	rm -f "$CACHE"/stamps/fix-* "$CACHE/stamps/openapi"
	# apt already checked the files' hashes against the signed Release;
	# --no-copy: no 33 MB copy of the tarball next to the sources
	(cd "$CACHE/dl" && dpkg-source --no-check --no-copy -x \
		"kubernetes_$DEB_VERSION.dsc" "$SRC" >&2) ||
		die "dpkg-source -x failed"
}

# Go 1.19 fix one: reflect2 1.0.1 faults in mapiterinit on Go >= 1.18;
# Debian's 1.0.2 is the upstream fix.
fix_reflect2() {
	local x=$CACHE/reflect2 deb
	deb=$(ls "$CACHE"/dl/${REFLECT2_PKG}_*.deb | head -n1)
	rm -rf "$x" && dpkg-deb -x "$deb" "$x"
	rm -rf "$SRC/vendor/github.com/modern-go/reflect2"
	cp -r "$x/usr/share/gocode/src/github.com/modern-go/reflect2" \
		"$SRC/vendor/github.com/modern-go/reflect2"
}

# Go 1.19 fix two (kube-openapi#230): the null test counted every empty
# string as null, so CRDs with `default: ""` and empty strings are refused.
fix_openapi_null() {
	local f=$SRC/vendor/k8s.io/kube-openapi/pkg/validation/validate/type.go
	grep -q 'reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data))' "$f" ||
		die "$f: the null test to fix is not there"
	sed -i 's/data == nil || reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data))/data == nil/' "$f"
	grep -q 'reflect.DeepEqual(reflect.Zero' "$f" && die "$f: fix not applied"
	# `reflect` may now be unused in that file
	grep -q 'reflect\.' "$f" || sed -i '/^[[:space:]]*"reflect"$/d' "$f"
}

# GOPATH mode, as Kubernetes 1.20's own scripts build (module mode with
# -mod=vendor wants go.mod updates on Go 1.19).
gopath() {
	mkdir -p "$GOPATH_DIR/src/k8s.io"
	ln -sfn "$SRC" "$GOPATH_DIR/src/k8s.io/kubernetes"
}

go_env() {
	env GO111MODULE=off CGO_ENABLED=0 GOPATH="$GOPATH_DIR" \
		GOCACHE="$CACHE/gocache" GOFLAGS= "$@"
}

# The packages openapi-gen reads: every directory with a +k8s:openapi-gen=
# tag, as upstream's Makefile.generated_files finds them.
openapi_dirs() {
	(cd "$SRC" && grep -rl --include='*.go' '+k8s:openapi-gen=' \
		--exclude-dir=vendor --exclude-dir=_output --exclude-dir=.git . |
		xargs -n1 dirname | sed 's|^\./||' | LC_ALL=C sort -u |
		grep -v '^staging/src/k8s.io/code-generator' |
		grep -v '^staging/src/k8s.io/sample-apiserver' |
		sed 's|^staging/src/|vendor/|; s|^|k8s.io/kubernetes/|' | paste -sd, -)
}

openapi() {
	local k=$GOPATH_DIR/src/k8s.io/kubernetes dirs
	(cd "$k" && go_env go build -p "${PAI_GO_PARALLEL:-2}" -o "$CACHE/openapi-gen" \
		./vendor/k8s.io/kube-openapi/cmd/openapi-gen) || die "building openapi-gen failed"
	dirs=$(openapi_dirs)
	say "openapi-gen over $(tr ',' '\n' <<<"$dirs" | wc -l) packages"
	(cd "$k" && go_env "$CACHE/openapi-gen" -i "$dirs" \
		-p k8s.io/kubernetes/pkg/generated/openapi -O zz_generated.openapi \
		-h vendor/k8s.io/code-generator/hack/boilerplate.go.txt \
		-r "$CACHE/openapi-report.list" -o "$GOPATH_DIR/src") >&2 || die "openapi-gen failed"
	[ -s "$SRC/pkg/generated/openapi/zz_generated.openapi.go" ] || die "openapi-gen wrote nothing"
	# upstream's own check: the API rule violations are the known ones
	cmp -s "$CACHE/openapi-report.list" "$SRC/api/api-rules/violation_exceptions.list" ||
		say "warning: openapi-gen's report differs from api/api-rules/violation_exceptions.list"
}

build() {
	local k=$GOPATH_DIR/src/k8s.io/kubernetes ld= p
	for p in k8s.io/kubernetes/vendor/k8s.io/component-base/version \
		k8s.io/kubernetes/vendor/k8s.io/client-go/pkg/version; do
		ld="$ld -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=20"
	done
	(cd "$k" && go_env go build -p "${PAI_GO_PARALLEL:-2}" -ldflags "-s -w$ld" \
		-o "$OUT.tmp" ./cmd/kube-apiserver) || die "go build ./cmd/kube-apiserver failed"
	"$OUT.tmp" --version | grep -qx "Kubernetes $K8S_VERSION" ||
		die "the binary built does not say $K8S_VERSION"
	mv -f "$OUT.tmp" "$OUT"
}

# Everything but the binary: a later run needs nothing else.
prune() {
	chmod -R u+w "$CACHE/gopath" "$CACHE/gocache" 2>/dev/null || true
	rm -rf "$CACHE/apt" "$CACHE/dl" "$SRC" "$GOPATH_DIR" "$CACHE/gocache" \
		"$CACHE/reflect2" "$CACHE/openapi-gen" "$CACHE/openapi-report.list" \
		"$CACHE/stamps" "$CACHE"/*.orig.tar.* "$CACHE"/*.debian.tar.*
}

main() {
	if [ -n "${PAI_KUBE_APISERVER:-}" ]; then
		[ -f "$PAI_KUBE_APISERVER" ] && [ -x "$PAI_KUBE_APISERVER" ] ||
			die "PAI_KUBE_APISERVER='$PAI_KUBE_APISERVER' is not an executable file"
		printf '%s\n' "$PAI_KUBE_APISERVER"
		return 0
	fi
	if [ -x "$OUT" ]; then printf '%s\n' "$OUT"; return 0; fi
	check_tools
	mkdir -p "$CACHE"
	# one build at a time per cache (developers share the machine)
	exec 9>"$CACHE/.lock"
	flock 9
	if [ ! -x "$OUT" ]; then
		local t0=$SECONDS
		step apt-update apt_update
		step download download
		step unpack unpack
		step fix-reflect2 fix_reflect2
		step fix-openapi-null fix_openapi_null
		step gopath gopath
		step openapi openapi
		build
		say "built $OUT in $((SECONDS - t0)) s"
		[ "${PAI_KUBE_KEEP_BUILD:-0}" = 1 ] || prune
	fi
	printf '%s\n' "$OUT"
}

main "$@"
