# paictl - a command-line client for OpenPAI-style clusters.
# `make` builds build/paictl; `make test` runs every test; see README.md.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
# each shell's own directory for the completions of installed packages
INCLUDEDIR ?= $(PREFIX)/include
# Debian's multiarch directory (lib/x86_64-linux-gnu), as its packages do
LIBDIR     ?= $(PREFIX)/lib$(addprefix /,$(shell $(CC) -print-multiarch 2>/dev/null))
PCDIR      ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
DESTDIR    ?=
CC         ?= cc
PKG_CONFIG ?= pkg-config
BUILD      ?= build

# Every library comes from Debian and is found with pkg-config. `make deps`
# installs what building and running paictl need (DEB_PKGS); `make
# test-deps` (which `make test` runs first, and .ci/run too) installs what
# only the tests, benchmarks, fuzzers and packaging need (TEST_DEB_PKGS),
# and npm unless a nodejs that brings its own (NodeSource's) is
# installed: there, Debian's npm package conflicts with it. Each installs
# only the packages missing, so a second run asks apt for nothing.
DEB_PKGS := build-essential pkg-config libjansson-dev libcurl4-openssl-dev \
	libssh2-1-dev libmicrohttpd-dev libyaml-dev
TEST_DEB_PKGS := libcmocka-dev openssh-server curl jq \
	valgrind cppcheck hyperfine time tmux mandoc bash-completion zsh fish \
	python3 python3-yaml python3-jsonschema clang libclang-rt-dev \
	abigail-tools nodejs debhelper dpkg-dev lintian man-db shellcheck \
	golang-go etcd-server openssl util-linux chromium \
	slurm-wlm slurmrestd slurm-wlm-jwt-plugin munge libfaketime mmdebstrap \
	podman runc catatonit busybox-static uidmap slirp4netns fuse-overlayfs
# the local cluster's runtime in the tests and benchmarks: processes, as
# they expect, podman installed or not (tests/podman and bench/podman.sh
# ask for podman by name)
export PAICTL_SERVE_RUNTIME ?= process
PKGS      := jansson libmicrohttpd libcurl libssh2 yaml-0.1
TEST_PKGS := cmocka libcurl

CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror
BASE     := -std=c11 $(WARN) -D_GNU_SOURCE -Ilib
PKG_CF   := $(shell $(PKG_CONFIG) --cflags $(PKGS))
# libcurl, libssh2 and libmicrohttpd are compiled against but not
# linked: libpai opens the first two when a call first needs one (lib/
# dl.h), the local cluster the third when it starts (server/dl_mhd.h),
# each by the soname of the library built against.
DL_PKGS  := libcurl libssh2 libmicrohttpd
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(filter-out $(DL_PKGS),$(PKGS))) -ldl
soname    = $(shell objdump -p $$($(PKG_CONFIG) --variable=libdir $(1))/$(1).so \
	    2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
CURL_SONAME := $(call soname,libcurl)
SSH2_SONAME := $(call soname,libssh2)
MHD_SONAME  := $(call soname,libmicrohttpd)
PKG_CF   += $(if $(CURL_SONAME),-DPAI_CURL_SONAME='"$(CURL_SONAME)"') \
	    $(if $(SSH2_SONAME),-DPAI_SSH2_SONAME='"$(SSH2_SONAME)"') \
	    $(if $(MHD_SONAME),-DPAI_MHD_SONAME='"$(MHD_SONAME)"')
# quiet: a package build (debian/rules) has no cmocka, nor needs it
TEST_CF  := $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS) 2>/dev/null)
TEST_LIBS:= $(shell $(PKG_CONFIG) --libs $(TEST_PKGS) 2>/dev/null)
ALL_CFLAGS = $(BASE) $(PKG_CF) $(CFLAGS) -MMD -MP

# libpai's folders, in the order a job travels through them (README.md)
LIB_DIRS := sys text job runtime convert client client/api client/api/k8s client/api/slurm client/kube ssh
LIB_SRC  := $(sort $(foreach d,$(LIB_DIRS),$(wildcard lib/$(d)/*.c)))
LIB_HDR  := $(wildcard lib/*.h $(foreach d,$(LIB_DIRS),lib/$(d)/*.h))
CLI_SRC  := $(sort $(wildcard cli/*.c) $(wildcard server/*.c))
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_HELPERS := $(filter-out tests/unit/test_%,$(wildcard tests/unit/*.c))

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
# the Slurm batch script (lib/convert/slurm_batch.sh), compiled in as a C
# string, as the web pages are
BATCH_SH := lib/convert/slurm_batch.sh
BATCH_C  := $(BUILD)/lib/convert/slurm_batch_sh.c
LIB_OBJ  += $(BUILD)/lib/convert/slurm_batch_sh.o
# the local cluster's web pages (server/web/), compiled in as C arrays
WEB_FILES := $(sort $(wildcard server/web/*.html server/web/*.css \
	server/web/*.js server/web/*.svg))
WEB_ASSETS := $(BUILD)/server/web_assets
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o) $(WEB_ASSETS).o
HELPER_OBJ := $(TEST_HELPERS:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

PAICTL   := $(BUILD)/paictl
LIBPAI   := $(BUILD)/libpai.a

# libpai.so: position-independent objects, hidden unless pai.h declares
# them, symbol version LIBPAI_0 (lib/libpai.map), soname libpai.so.0.
# paictl itself links the static archive.
SO_VERSION := $(shell sed -n 's/^\#define PAI_VERSION "\(.*\)"/\1/p' lib/pai.h)
SONAME   := libpai.so.$(firstword $(subst ., ,$(SO_VERSION)))
LIBSO    := $(BUILD)/libpai.so.$(SO_VERSION)
PIC_OBJ  := $(LIB_SRC:%.c=$(BUILD)/pic/%.o) \
	    $(BUILD)/pic/lib/convert/slurm_batch_sh.o

.PHONY: podman-test deps print-deps print-test-deps test-deps test-all all test unit-test cli-test man-test completion-test k8s-test check-asan bench install uninstall clean \
	lint header-check fuzz libpai-test abi tsan-test js-test web-test deb deb-symbols deb-test \
	kube-test slurm-test slurm-test-main slurm-test-more
.DEFAULT_GOAL := all

all: $(PAICTL) $(LIBSO)

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_CF) -c -o $@ $<

$(LIBSO): $(PIC_OBJ) lib/libpai.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script=lib/libpai.map -Wl,--no-undefined \
		-o $@ $(PIC_OBJ) $(PKG_LIBS)
	ln -sf $(notdir $@) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libpai.so

$(WEB_ASSETS).c: $(WEB_FILES) server/web/embed.sh
	@mkdir -p $(dir $@)
	sh server/web/embed.sh $(WEB_FILES) >$@.tmp && mv $@.tmp $@

$(WEB_ASSETS).o: $(WEB_ASSETS).c server/web_int.h
	$(CC) $(ALL_CFLAGS) -Iserver -c -o $@ $<

$(BATCH_C): $(BATCH_SH) lib/convert/embed.sh
	@mkdir -p $(dir $@)
	sh lib/convert/embed.sh pai__slurm_batch_sh $(BATCH_SH) >$@.tmp && mv $@.tmp $@

$(BUILD)/lib/convert/slurm_batch_sh.o: $(BATCH_C)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/pic/lib/convert/slurm_batch_sh.o: $(BATCH_C)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(LIBPAI): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(PAICTL): $(CLI_OBJ) $(LIBPAI)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIBPAI) $(PKG_LIBS)

# Allocations go through tests/unit/alloc_fail.c, which can make one fail.
TEST_WRAP := $(foreach f,malloc calloc realloc strdup strndup,-Wl,--wrap=$(f))

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(HELPER_OBJ) $(LIBPAI)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $(TEST_WRAP) -o $@ $< $(HELPER_OBJ) $(LIBPAI) $(PKG_LIBS) $(TEST_LIBS)

print-deps:
	@echo $(DEB_PKGS)

print-test-deps:
	@echo $(TEST_DEB_PKGS)

# apt-get for the packages of $(1) that dpkg does not have installed
# (and npm with $(2)); with sudo unless root
apt_missing = @set -e; if [ "$$(id -u)" = 0 ]; then s=; else s=sudo; fi; \
	missing=$$(for p in $(1); do dpkg-query -W -f='$${db:Status-Status}\n' \
		"$$p" 2>/dev/null | grep -qx installed || echo "$$p"; done); \
	$(if $(2),command -v npm >/dev/null || missing="$$missing npm";) \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$$s apt-get update -q && \
		$$s env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $$missing; \
	fi

deps:
	$(call apt_missing,$(DEB_PKGS))

test-deps:
	$(call apt_missing,$(TEST_DEB_PKGS),npm)

# pai.h must stand alone in strict C11.
header-check:
	@mkdir -p $(BUILD)
	printf '#include "pai.h"\nint main(void) { return pai_strerror(0) == 0; }\n' \
		| $(CC) -std=c11 -pedantic $(WARN) $(PKG_CF) -Ilib -x c -fsyntax-only -

# test-deps first: with -j the others wait for it (.WAIT is make 4.4's)
test: test-deps
	$(MAKE) --no-print-directory test-all

TEST_ALL := unit-test cli-test header-check man-test completion-test k8s-test \
	kube-test slurm-test-main slurm-test-more libpai-test tsan-test js-test \
	web-test deb-test podman-test
test-all: $(TEST_ALL)

# the local cluster's tasks in their image, with podman (tests/podman/):
# a small image built offline; one line says it skipped without podman
podman-test: $(PAICTL)
	PAICTL=$(CURDIR)/$(PAICTL) sh tests/podman/run.sh

# OpenPAI's own JavaScript SDK against the local cluster (tests/js/)
js-test: $(PAICTL)
	PAICTL=$(CURDIR)/$(PAICTL) JS_DIR=$(CURDIR)/build/js sh tests/js/run.sh

# paictl web's pages in Debian's headless Chromium (tests/web/): under
# check-asan the server too is the sanitizers' build
web-test: $(PAICTL)
	PAICTL=$(CURDIR)/$(PAICTL) WEB_DIR=$(CURDIR)/build/web sh tests/web/run.sh

# test_threads again under ThreadSanitizer, with libpai built for it:
# what libpai(3) says about threads; and the local cluster's group
# commit, which its request threads and main loop share.
TSAN_BUILD := build/tsan
tsan-test:
	$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) \
		CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS=-fsanitize=thread \
		$(TSAN_BUILD)/tests/test_threads $(TSAN_BUILD)/tests/test_log_sync
	PAI_SRCDIR=$(CURDIR) TSAN_OPTIONS=halt_on_error=1 \
		$(TSAN_BUILD)/tests/test_threads
	TSAN_OPTIONS=halt_on_error=1 $(TSAN_BUILD)/tests/test_log_sync

# libpai as others use it: libpai.so exports exactly pai.h's functions,
# keeps the ABI recorded in lib/libpai.abi, and the examples of
# examples/libpai/ build with pkg-config against the library installed
# into a DESTDIR, and run; make uninstall then leaves no file there.
LIBPAI_STAGE := $(BUILD)/stage
libpai-test: $(LIBSO) $(LIBPAI) $(PAICTL)
	python3 tests/libpai/exports.py $(LIBSO) lib/pai.h
	sh tests/libpai/abi.sh lib/libpai.abi $(LIBSO)
	rm -rf $(LIBPAI_STAGE)
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(LIBPAI_STAGE) \
		PREFIX=/usr >/dev/null
	CC="$(CC)" CFLAGS="$(CFLAGS)" LDFLAGS="$(LDFLAGS)" \
		PAICTL=$(CURDIR)/$(PAICTL) sh tests/libpai/run.sh \
		$(CURDIR)/$(LIBPAI_STAGE)
	$(MAKE) --no-print-directory uninstall \
		DESTDIR=$(CURDIR)/$(LIBPAI_STAGE) PREFIX=/usr >/dev/null
	@left=$$(find $(LIBPAI_STAGE) ! -type d); if [ -n "$$left" ]; then \
		echo "make uninstall left: $$left"; exit 1; fi; \
		echo "libpai: make uninstall removed every file make install put"

# Records libpai.so's ABI in lib/libpai.abi: only on purpose, with an
# addition to pai.h or a new soname (tests/libpai/abi.sh compares).
abi: $(LIBSO)
	abidw --no-corpus-path --no-comp-dir-path --out-file lib/libpai.abi $(LIBSO)

unit-test: $(TEST_BIN) $(PAICTL)
	@set -e; for t in $(TEST_BIN); do \
		echo "== $$t"; \
		PAI_CORPUS=$(CURDIR)/../shared/corpus/openpai-examples \
		PAI_CORPUS_V2=$(CURDIR)/../shared/corpus/openpai-v2-examples \
		PAI_VARIATIONS_V2=$(CURDIR)/../shared/corpus/openpai-v2-variations \
		PAI_SRCDIR=$(CURDIR) $$t; \
	done

# A fake OpenPAI v1.8 cluster for what the local cluster cannot show
# (tests/fake/fake_v1x.c; a test tool, never installed).
FAKE_V1X := $(BUILD)/tests/fake-v1x

$(FAKE_V1X): tests/fake/fake_v1x.c $(BUILD)/tests/unit/fake_openpai.o $(LIBPAI)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/tests/unit/fake_openpai.o \
		$(LIBPAI) $(PKG_LIBS) -lpthread

cli-test: $(PAICTL) $(FAKE_V1X)
	PAICTL=$(CURDIR)/$(PAICTL) PAI_FAKE_V1X=$(CURDIR)/$(FAKE_V1X) sh tests/cli/run.sh

# convert --to volcano|paddlejob|jobset|pytorchjob|trainjob|mpijob: every
# manifest against the CRDs and the webhooks' rules, and every pod's
# environment against expand's (tests/k8s/check.py; without ../shared, the
# examples' alone and no CRD schema, which one line says).
K8S_JOBS = examples tests/k8s/jobs ../shared/corpus/openpai-examples \
	../shared/corpus/openpai-v2-examples
k8s-test: $(PAICTL)
	PAICTL=$(CURDIR)/$(PAICTL) PAI_K8S_CRDS=$(CURDIR)/../shared/reference/kubernetes \
		python3 tests/k8s/check.py $(K8S_JOBS)

# The Kubernetes backend against a real kube-apiserver 1.20.2 (built
# from Debian's source package into ~/.cache/paictl when missing: ~4.5
# min once), etcd and the stand-in for kubelet, schedulers and
# controllers (tests/kube/README.md): the harness's selftest, then every
# command on Kubernetes profiles (tests/kube/test_cli.py).
# The CRDs are ../shared's where they are, else tests/kube/crds.py's
# minimal ones (a plain clone): every clone runs every engine's tests.
KUBE_SELFTEST ?= 1
kube-test: $(PAICTL)
	@why=$$(python3 -c 'import sys; sys.path.insert(0, "tests/kube"); \
		import cluster; print(cluster.why_not() or "")'); \
	if [ -n "$$why" ]; then echo "kube-test: skipped: $$why"; else \
		bash tests/kube/build-apiserver.sh >/dev/null && \
		{ [ "$(KUBE_SELFTEST)" = 0 ] || \
		PAICTL=$(CURDIR)/$(PAICTL) python3 tests/kube/selftest.py; } && \
		PAICTL=$(CURDIR)/$(PAICTL) python3 tests/kube/test_cli.py; fi

# The Slurm backend against a real Slurm 22.05 (Debian's slurmctld, four
# slurmd, slurmrestd with JWT, munge; tests/slurm/), started in a
# temporary directory on free ports: every command on Slurm profiles.
# Then the same on Debian 13's Slurm 24.11 with accounting and without,
# and on unstable's newest (26.05), each from a root built once into
# ~/.cache/paictl/slurm (tests/slurm/next/; kept for check-asan's run);
# where it cannot be built, that suite says so in one line. Last, every
# command through SSH to 24.11's login node, with no slurmrestd.
# (slurm-test-more: the suites check-asan leaves to make test, for CI's
# time: 24.11 without accounting and 26.05, whose code paths 22.05, 24.11
# and the fuzz targets for every version's shapes run under the
# sanitizers too.)
slurm-test: slurm-test-main slurm-test-more
slurm-test-main: $(PAICTL)
	PAICTL=$(CURDIR)/$(PAICTL) python3 tests/slurm/test_cli.py
	SUITE=trixie PAICTL=$(CURDIR)/$(PAICTL) python3 tests/slurm/test_cli.py
	PAICTL=$(CURDIR)/$(PAICTL) python3 tests/slurm/test_ssh.py
slurm-test-more: $(PAICTL)
	SUITE=trixie ACCOUNTING=0 PAICTL=$(CURDIR)/$(PAICTL) \
		python3 tests/slurm/test_cli.py
	SUITE=sid PAICTL=$(CURDIR)/$(PAICTL) python3 tests/slurm/test_cli.py

# The man pages against --help and lib/'s rule ids, and mandoc -Tlint.
man-test: $(PAICTL)
	PAICTL=$(CURDIR)/$(PAICTL) sh tests/man/check.sh

# completions/ in bash, zsh and fish themselves
completion-test: $(PAICTL)
	PAICTL=$(CURDIR)/$(PAICTL) sh tests/completions/check.sh

# The same tests, built with AddressSanitizer and UndefinedBehaviorSanitizer,
# but for the two that never run this build: deb-test (the packages build
# their own binaries) and tsan-test (ThreadSanitizer's build, run by make
# test already); and, for CI's time, slurm-test-more and the kube
# harness's selftest (it checks the stand-in; paictl only converts there,
# which k8s-test runs under the sanitizers).
ASAN_SKIP := deb-test tsan-test slurm-test-more
check-asan: test-deps
	$(MAKE) --no-print-directory BUILD=build/asan KUBE_SELFTEST=0 \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" \
		$(filter-out $(ASAN_SKIP),$(TEST_ALL))

# libFuzzer on every parser of bytes paictl does not control, one target
# each (tests/fuzz/fuzz_*.c): job configs (JSON with comments, protocol
# YAML), the REST answers of both APIs with their error bodies, task logs
# (Range, YARN's HTML pages, redirects), known_hosts, paictl's own
# profile and token files, kubeconfig files, what a Kubernetes API
# server sends (Status bodies, watch and log streams, WebSocket frames;
# Jobs, pods, events and lists as the Kubernetes module reads them),
# what slurmrestd sends (jobs, nodes, errors of both shapes), every
# slurmrestd version's shapes and accounting's read as paictl reads them,
# and a task's output as the local cluster copies it into its logs.
# `make fuzz` runs each for FUZZ_SECONDS from its seeds (tests/fuzz/
# seeds/, plus the examples and corpus) with its dictionary, keeps its
# corpus in build/fuzz/corpus/ and any crash, leak or sanitizer report
# in build/fuzz/crashes/, and fails if there is one.
# Needs clang and libFuzzer (Debian: clang, libclang-rt-<version>-dev).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= job yaml response logs known_hosts profiles kubeconfig \
	kube_wire k8s_api slurm_api slurm_shapes run_logs slurm_cmd_out
FUZZ_DIR     := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c11 $(WARN) -D_GNU_SOURCE -Ilib $(PKG_CF) -O1 -g \
	$(FUZZ_SAN)
FUZZ_LIB_OBJ := $(LIB_SRC:lib/%.c=$(FUZZ_DIR)/lib/%.o) \
	$(FUZZ_DIR)/lib/convert/slurm_batch_sh.o

$(FUZZ_DIR)/lib/convert/slurm_batch_sh.o: $(BATCH_C)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/lib/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/libpai.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/transport.c \
		tests/fuzz/transport.h tests/fuzz/check.h tests/json_same.h \
		$(FUZZ_DIR)/libpai.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests/fuzz -fsanitize=fuzzer -o $@ $< \
		$(if $(filter response logs k8s_api slurm_api,$*),tests/fuzz/transport.c) \
		$(FUZZ_DIR)/libpai.a $(PKG_LIBS)

# the local cluster's log copy, compiled into its target
$(FUZZ_DIR)/fuzz_run_logs: server/run_logs.c server/run_logs.h

fuzz: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh $(FUZZ_DIR) \
		$(FUZZ_TARGETS)

bench: $(PAICTL) $(FAKE_V1X)
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/run.sh
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/ssh.sh
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/server.sh
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/client.sh
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/lanes.sh
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/v2.sh
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/client_v2.sh
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/k8s.sh
	PAICTL=$(CURDIR)/$(PAICTL) FAKE_V1X=$(CURDIR)/$(FAKE_V1X) sh bench/follow.sh
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/kube.sh
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/slurm.sh
	SUITE=trixie PAICTL=$(CURDIR)/$(PAICTL) sh bench/slurm.sh
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/podman.sh
	PAICTL=$(CURDIR)/$(PAICTL) sh bench/slurm_ssh.sh

lint: $(BUILD)/server/run_monitor.o $(BUILD)/server/run_logs.o \
	$(BUILD)/server/run_helper.o $(BUILD)/server/fdio.o
	sh tests/lint/async_safe.sh $(BUILD)/server/run_monitor.o
	sh tests/lint/async_safe.sh $(BUILD)/server/fdio.o
	sh tests/lint/async_safe.sh $(BUILD)/server/run_logs.o
	sh tests/lint/async_safe.sh $(BUILD)/server/run_helper.o
	shellcheck $(BATCH_SH) lib/convert/embed.sh tests/lint/batch_marks.sh
	sh tests/lint/batch_marks.sh $(BATCH_SH) lib/convert/slurm.c
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--std=c11 -D_GNU_SOURCE -Ilib --suppress=missingIncludeSystem \
		--inline-suppr lib cli $(wildcard server/*.c)

install: $(PAICTL) $(LIBSO) $(LIBPAI)
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PCDIR)
	install -m 0644 lib/pai.h $(DESTDIR)$(INCLUDEDIR)/pai.h
	install -m 0644 $(LIBSO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIBSO)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libpai.so
	install -m 0644 $(LIBPAI) $(DESTDIR)$(LIBDIR)/libpai.a
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(SO_VERSION)|' \
		lib/pai.pc.in > $(DESTDIR)$(PCDIR)/pai.pc
	install -d $(DESTDIR)$(MANDIR)/man3
	for m in $(wildcard man/*.3); do install -m 0644 $$m $(DESTDIR)$(MANDIR)/man3/; done
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(PAICTL) $(DESTDIR)$(BINDIR)/paictl
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	for m in $(wildcard man/*.1); do install -m 0644 $$m $(DESTDIR)$(MANDIR)/man1/; done
	for m in $(wildcard man/*.5); do install -m 0644 $$m $(DESTDIR)$(MANDIR)/man5/; done
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0644 completions/paictl.bash $(DESTDIR)$(BASHCOMPDIR)/paictl
	install -m 0644 completions/_paictl $(DESTDIR)$(ZSHCOMPDIR)/_paictl
	install -m 0644 completions/paictl.fish $(DESTDIR)$(FISHCOMPDIR)/paictl.fish

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/pai.h $(DESTDIR)$(PCDIR)/pai.pc \
		$(DESTDIR)$(LIBDIR)/$(notdir $(LIBSO)) $(DESTDIR)$(LIBDIR)/$(SONAME) \
		$(DESTDIR)$(LIBDIR)/libpai.so $(DESTDIR)$(LIBDIR)/libpai.a
	for m in $(notdir $(wildcard man/*.3)); do rm -f $(DESTDIR)$(MANDIR)/man3/$$m; done
	rm -f $(DESTDIR)$(BINDIR)/paictl
	for m in $(notdir $(wildcard man/*.1)); do rm -f $(DESTDIR)$(MANDIR)/man1/$$m; done
	for m in $(notdir $(wildcard man/*.5)); do rm -f $(DESTDIR)$(MANDIR)/man5/$$m; done
	rm -f $(DESTDIR)$(BASHCOMPDIR)/paictl $(DESTDIR)$(ZSHCOMPDIR)/_paictl \
		$(DESTDIR)$(FISHCOMPDIR)/paictl.fish

# Debian packages paictl, libpai0 and libpai-dev (debian/), into
# build/deb/. dpkg-buildpackage writes them next to the tree it builds,
# and cleans that tree first: so it builds a copy, in build/deb/src,
# without this make's variables (CFLAGS=, BUILD=): debian/rules says.
DEB_DIR := build/deb
deb:
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/src/paictl
	tar -cf - --exclude=./build --exclude=./.git . | tar -xf - -C $(DEB_DIR)/src/paictl
	cd $(DEB_DIR)/src/paictl && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		dpkg-buildpackage -us -uc -b -Jauto
	for f in $(DEB_DIR)/src/*; do [ -d "$$f" ] || mv "$$f" $(DEB_DIR)/; done
	rm -rf $(DEB_DIR)/src
	@ls $(DEB_DIR)/*.deb

# debian/libpai0.symbols from the library built: after an addition to
# pai.h (the package build fails until then)
deb-symbols: $(LIBSO)
	sh debian/gen-symbols $(LIBSO)

# The packages built, unpacked into a throwaway root and used there,
# and lintian (tests/deb/check.sh); only where Debian's tools are, and
# once: the packages are the same whatever BUILD (check-asan's) is.
deb-test:
	@if ! command -v dpkg-buildpackage >/dev/null; then \
		echo "deb-test: skipped: no dpkg-buildpackage (not Debian)"; \
	elif [ "$(BUILD)" != build ]; then \
		echo "deb-test: skipped with BUILD=$(BUILD): make deb builds its own"; \
	else sh tests/deb/check.sh; fi

clean:
	rm -rf build

-include $(shell find $(BUILD) -path '$(LIBPAI_STAGE)' -prune -o -path '$(DEB_DIR)' -prune -o -name '*.d' -type f -print 2>/dev/null)
