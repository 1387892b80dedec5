# ngx_gcp: a Kubernetes-compatible generic control plane as an nginx module.
#
#   make            build build/nginx/objs/ngx_http_gcp_module.so
#   make run        install missing packages, build, run nginx in the
#                   foreground (GCP_LISTEN, GCP_DATA; see README.md)
#   make test       install missing packages, build, run every test
#   make deb        build the Debian package into build/deb (README.md)
#
#   make fuzz       run every libFuzzer harness for FUZZ_SECONDS each
#
# Finer targets: deps, module, unit, asan, check-core, fuzz-check, e2e,
# asan-module, e2e-asan, e2e-asan-smoke, deb-test, bench, clean.

SHELL := /bin/bash

NGINX_SRC   ?= /usr/share/nginx/src
BUILD       := $(CURDIR)/build
NGX_BUILD   := $(BUILD)/nginx
MODULE      := $(NGX_BUILD)/objs/ngx_http_gcp_module.so
PYTHON      := /usr/bin/python3

export GCP_LISTEN ?= 127.0.0.1:6443
export GCP_DATA   ?= $(CURDIR)/var

# Debian packages the build, the server and the tests need; and npm
# (tools/fetch-helm), Debian's unless an npm is on PATH already (Node.js
# from elsewhere brings its own, which Debian's npm conflicts with).
DEB_PACKAGES := nginx nginx-dev gcc make libc6-dev libjansson-dev \
    libpcre2-dev libssl-dev zlib1g-dev libcurl4-openssl-dev liblmdb-dev \
    libyaml-dev libcmocka-dev openssl curl python3 python3-pytest \
    python3-kubernetes python3-yaml python3-requests \
    python3-prometheus-client wrk etcd-server \
    etcd-client dpkg-dev debhelper lintian clang-14 libclang-rt-14-dev \
    libsodium-dev unzip

# The core is in folders by layer (docs/architecture.md); headers are
# included by name, every folder on the include path, as nginx does.
CORE_DIRS    := $(sort $(dir $(wildcard ngx_gcp_module/core/*/*.h)))
CORE_SRCS    := $(wildcard ngx_gcp_module/core/*/*.c)
BACKEND_SRCS := $(wildcard backends/*.c backends/*/*.c)
SCHEMAS      := $(sort $(wildcard ngx_gcp_module/core/types/schemas/*.json))
GEN_SCHEMAS  := $(BUILD)/gen/gcp_schemas_gen.c
ADAPTER_SRCS := $(wildcard ngx_gcp_module/ngx_http_gcp_*.c)
HEADERS      := $(wildcard ngx_gcp_module/*.h ngx_gcp_module/core/*/*.h \
                  backends/*.h backends/*/*.h)

# Unit tests mirror the core's folders: t/unit/FOLDER/test_*.c, with
# t/unit/support/ (shared harnesses) and t/unit/backends/ (the stores).
UNIT_TESTS   := $(patsubst t/unit/%.c,%,$(wildcard t/unit/*/test_*.c))
UNIT_CFLAGS  := -std=gnu99 -g -O1 -Wall -Wextra -Wno-unused-parameter \
                -Wpointer-arith -Werror $(addprefix -I,$(CORE_DIRS)) \
                -Ibackends -It/unit/support -It/unit/backends
UNIT_LIBS    := -lcmocka -ljansson -lyaml -lpcre2-8 -llmdb -lcurl -lcrypto -lsodium \
                -lpthread -lm
ASAN_FLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer \
                -fno-sanitize-recover=undefined

.PHONY: all module deps run test unit asan unit-build asan-build check-core \
        asan-module e2e-asan e2e-asan-smoke \
        fuzz fuzz-build fuzz-check fuzz-seeds e2e deb deb-test bench clean distclean

all: module

# ---------------------------------------------------------------- packages

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null \
	        | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	command -v npm > /dev/null 2>&1 || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	    $$SUDO apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q \
	        --no-install-recommends $$missing; \
	fi

# ---------------------------------------------------------------- module

$(GEN_SCHEMAS): $(SCHEMAS) tools/embed-schemas.sh
	@mkdir -p $(dir $@)
	sh tools/embed-schemas.sh $@ $(SCHEMAS)

$(NGX_BUILD)/.configured: config
	rm -rf $(NGX_BUILD)
	mkdir -p $(BUILD)
	cp -r $(NGINX_SRC) $(NGX_BUILD)
	cd $(NGX_BUILD) && source ./conf_flags && \
	    ./configure "$${NGX_CONF_FLAGS[@]}" --add-dynamic-module=$(CURDIR) \
	    > $(BUILD)/configure.log 2>&1 || { tail -30 $(BUILD)/configure.log; \
	    exit 1; }
	touch $@

# Sources found by config's globs are fixed at configure time: reconfigure
# when the set of files changes.
$(BUILD)/sources.list: FORCE
	@mkdir -p $(BUILD)
	@echo $(sort $(CORE_SRCS) $(BACKEND_SRCS) $(ADAPTER_SRCS) $(HEADERS) \
	    $(SCHEMAS)) > $@.tmp; \
	cmp -s $@.tmp $@ && rm -f $@.tmp || { mv $@.tmp $@; \
	    rm -f $(NGX_BUILD)/.configured; }

module: $(BUILD)/sources.list
	@$(MAKE) --no-print-directory $(NGX_BUILD)/.configured $(GEN_SCHEMAS)
	$(MAKE) -C $(NGX_BUILD) -f objs/Makefile modules \
	    > $(BUILD)/module.log 2>&1 || { grep -E -A6 \
	    'error:|warning:|Error [0-9]' $(BUILD)/module.log | head -80; \
	    exit 1; }
	@ls -l $(MODULE)

FORCE:

# ---------------------------------------------------------------- run

run: deps module
	GCP_MODULE=$(MODULE) tools/gcp-run

# ---------------------------------------------------------------- tests

UNIT_OBJ   := $(BUILD)/unit
ASAN_OBJ   := $(BUILD)/asan
UNIT_SRCS  := $(CORE_SRCS) $(BACKEND_SRCS) $(wildcard t/unit/*/support_*.c)
UNIT_HDRS  := $(HEADERS) $(wildcard t/unit/*/*.h)
NPROC      := $(shell nproc 2>/dev/null || echo 2)

# $(1): output directory, $(2): extra compiler flags
define unit_rules
$(1)/o/%.o: %.c $(UNIT_HDRS)
	@mkdir -p $$(dir $$@)
	@$$(CC) $(UNIT_CFLAGS) $(2) -c $$< -o $$@

$(1)/o/gcp_schemas_gen.o: $(GEN_SCHEMAS)
	@mkdir -p $$(dir $$@)
	@$$(CC) $(UNIT_CFLAGS) $(2) -c $$< -o $$@

$(1)/libgcp.a: $(patsubst %.c,$(1)/o/%.o,$(UNIT_SRCS)) \
        $(1)/o/gcp_schemas_gen.o
	@rm -f $$@ && ar rcs $$@ $$^

$(1)/%: t/unit/%.c $(1)/libgcp.a
	@mkdir -p $$(dir $$@)
	@$$(CC) $(UNIT_CFLAGS) $(2) -o $$@ $$< $(1)/libgcp.a $(UNIT_LIBS)
endef

$(eval $(call unit_rules,$(UNIT_OBJ),))
$(eval $(call unit_rules,$(ASAN_OBJ),$(ASAN_FLAGS)))

# Micro-benchmarks of the core (run by bench/run), optimized.
BENCH_OBJ  := $(BUILD)/bench
$(eval $(call unit_rules,$(BENCH_OBJ),-O2 -Wno-error))

$(BENCH_OBJ)/crd_schema_bench: bench/crd_schema_bench.c $(BENCH_OBJ)/libgcp.a
	@mkdir -p $(dir $@)
	@$(CC) $(UNIT_CFLAGS) -O2 -Wno-error -o $@ $< $(BENCH_OBJ)/libgcp.a \
	    $(UNIT_LIBS)

$(BENCH_OBJ)/apf_bench: bench/apf_bench.c $(BENCH_OBJ)/libgcp.a
	@mkdir -p $(dir $@)
	@$(CC) $(UNIT_CFLAGS) -O2 -Wno-error -o $@ $< $(BENCH_OBJ)/libgcp.a \
	    $(UNIT_LIBS)

unit-build:
	@$(MAKE) --no-print-directory -j$(NPROC) \
	    $(addprefix $(UNIT_OBJ)/,$(UNIT_TESTS))

asan-build:
	@$(MAKE) --no-print-directory -j$(NPROC) \
	    $(addprefix $(ASAN_OBJ)/,$(UNIT_TESTS))

unit: $(GEN_SCHEMAS)
	@$(MAKE) --no-print-directory unit-build
	@tools/run-unit $(UNIT_OBJ) $(UNIT_TESTS)

asan: $(GEN_SCHEMAS)
	@$(MAKE) --no-print-directory asan-build
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	    UBSAN_OPTIONS=print_stacktrace=1 \
	    tools/run-unit $(ASAN_OBJ) $(UNIT_TESTS)

# Coverage-guided fuzzing (docs/fuzzing.md): libFuzzer harnesses
# t/fuzz/NAME.c built with clang against the core (and the test support,
# for an API core in process) under ASan and UBSan, each with its seed
# corpus t/fuzz/corpus/NAME/ and its crashes kept in t/fuzz/regressions/NAME/.
# fuzz runs each for FUZZ_SECONDS, growing build/fuzz/corpus/NAME;
# fuzz-check (make test) runs each over its corpus and regressions, then
# FUZZ_CHECK_SECONDS of fuzzing.
FUZZ_CC      := clang-14
FUZZ_OBJ     := $(BUILD)/fuzz
FUZZERS      := $(patsubst t/fuzz/%.c,%,$(wildcard t/fuzz/*.c))
FUZZ_SRCS    := $(wildcard t/fuzz/support/*.c)
FUZZ_FLAGS   := -fsanitize=fuzzer-no-link,address,undefined \
                -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
                -Wno-error -Wno-typedef-redefinition
FUZZ_SECONDS ?= 60
FUZZ_CHECK_SECONDS ?= 2
REFERENCE    ?= ../shared/reference

$(FUZZ_OBJ)/%: CC := $(FUZZ_CC)
$(eval $(call unit_rules,$(FUZZ_OBJ),$(FUZZ_FLAGS)))

$(FUZZ_OBJ)/bin/%: t/fuzz/%.c $(FUZZ_SRCS) $(wildcard t/fuzz/support/*.h) \
        $(FUZZ_OBJ)/libgcp.a
	@mkdir -p $(dir $@)
	@$(FUZZ_CC) $(UNIT_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer \
	    -It/fuzz/support -It/unit/apiextensions -o $@ $< $(FUZZ_SRCS) $(FUZZ_OBJ)/libgcp.a \
	    $(UNIT_LIBS)

fuzz-build: $(GEN_SCHEMAS)
	@$(MAKE) --no-print-directory -s -j$(NPROC) \
	    $(addprefix $(FUZZ_OBJ)/bin/,$(FUZZERS))

fuzz: deps
	@$(MAKE) --no-print-directory fuzz-build
	@tools/run-fuzz $(FUZZ_OBJ) $(FUZZ_SECONDS) grow $(FUZZERS)

fuzz-check: $(GEN_SCHEMAS)
	@$(MAKE) --no-print-directory fuzz-build
	@tools/run-fuzz $(FUZZ_OBJ) $(FUZZ_CHECK_SECONDS) check $(FUZZERS)

# The seed corpora from the captures of ../shared/reference: of what
# tools/fuzz-seeds cuts from them, the inputs that add coverage are merged
# into t/fuzz/corpus/NAME/.
fuzz-seeds: $(GEN_SCHEMAS)
	@$(MAKE) --no-print-directory fuzz-build
	@tools/fuzz-seeds $(REFERENCE) $(FUZZ_OBJ)/seeds
	@for f in $(FUZZERS); do \
	    mkdir -p t/fuzz/corpus/$$f $(FUZZ_OBJ)/seeds/$$f; \
	    $(FUZZ_OBJ)/bin/$$f -merge=1 -rss_limit_mb=2048 t/fuzz/corpus/$$f \
	        $(FUZZ_OBJ)/seeds/$$f > $(FUZZ_OBJ)/log/$$f.merge.log 2>&1 \
	        || { tail -30 $(FUZZ_OBJ)/log/$$f.merge.log; exit 1; }; \
	    echo "$$f: $$(ls t/fuzz/corpus/$$f | wc -l) seeds"; \
	done

# The core and the backends must not depend on nginx, and the core's
# folders depend on each other only as ngx_gcp_module/core/layers says.
check-core:
	@if grep -rnE '#[[:space:]]*include[[:space:]]*[<"](ngx_|nginx)' \
	    ngx_gcp_module/core backends; then \
	    echo "FAIL: nginx headers included in the core or a backend"; \
	    exit 1; \
	else echo "check-core: no nginx headers in core/ and backends/"; fi
	@$(PYTHON) tools/check-layers

# The whole suite runs twice: on LMDB and on etcd (one member started by
# the tests on loopback; t/e2e/conftest.py).  E2E_FILES narrows both.
# The two sessions run at the same time (every server, etcd and peer of a
# test has its own free ports and temporary directory; the tests mostly
# wait on the network, so two sessions fit two cores): the etcd session
# writes to $(E2E_ETCD_LOG), shown when both are done.  E2E_SERIAL=1 runs
# them one after the other.
E2E_FILES    ?= t/e2e
# helm 3.17 for test_helm.py (not in Debian: tools/fetch-helm says where
# it comes from).
HELM         := $(BUILD)/tools/helm
export GCP_HELM = $(HELM)
E2E_ETCD_LOG := $(BUILD)/e2e-etcd.log
E2E_LMDB_CMD  = GCP_MODULE=$(MODULE) $(PYTHON) -m pytest -q \
                    $(E2E_FILES) $(PYTEST_ARGS)
# The etcd servers of both sessions keep the instance's mirror (gcp_storage
# etcd's default); E2E_ETCD_OFF (test_etcd.py, whose servers start their
# own etcd, when the whole suite runs) runs again after the etcd session
# with mirror=off, one copy per worker, on the etcd session's ports.
E2E_ETCD_OFF ?= $(if $(filter t/e2e t/e2e/,$(E2E_FILES)),t/e2e/test_etcd.py)
E2E_ETCD_CMD  = (GCP_MODULE=$(MODULE) $(PYTHON) -m pytest -q \
                    --storage=etcd $(E2E_FILES) $(PYTEST_ARGS); rc=$$?; \
                $(if $(E2E_ETCD_OFF),GCP_MODULE=$(MODULE) \
                    GCP_E2E_PORTS=26000-31999 $(PYTHON) -m pytest -q \
                    --etcd-mirror=off $(E2E_ETCD_OFF) $(PYTEST_ARGS) \
                    || rc=1;) exit $$rc)

$(HELM): tools/fetch-helm
	tools/fetch-helm $@

e2e: module $(HELM)
ifeq ($(E2E_SERIAL),1)
	$(E2E_LMDB_CMD)
	$(E2E_ETCD_CMD)
else
	@echo "e2e: LMDB session here, etcd session in $(E2E_ETCD_LOG)"
	@$(E2E_ETCD_CMD) > $(E2E_ETCD_LOG) 2>&1 & etcd=$$!; \
	$(E2E_LMDB_CMD); lmdb=$$?; \
	wait $$etcd; rc=$$?; \
	echo "---- e2e on etcd ($(E2E_ETCD_LOG)):"; cat $(E2E_ETCD_LOG); \
	echo "e2e: LMDB exit $$lmdb, etcd exit $$rc"; \
	test $$lmdb = 0 && test $$rc = 0
endif

# The module built with ASan and UBSan (a copy of the nginx build with the
# sanitizers added to its compile and link flags), and the e2e files run
# with it (nginx started with libasan preloaded; a report in a worker's
# log fails the test as a crash): `make e2e-asan E2E_FILES=t/e2e/x.py
# PYTEST_ARGS=--storage=etcd`.  The whole suite so is not part of `make
# test` (it would take as long again: 5.5 min on etcd, 7.3 on LMDB on 2
# cores); e2e-asan-smoke is.
ASAN_NGX     := $(BUILD)/nginx-asan
ASAN_MODULE  := $(ASAN_NGX)/objs/ngx_http_gcp_module.so

asan-module: $(BUILD)/sources.list
	@$(MAKE) --no-print-directory $(NGX_BUILD)/.configured $(GEN_SCHEMAS)
	@if [ ! -f $(ASAN_NGX)/.configured ] \
	    || [ $(NGX_BUILD)/.configured -nt $(ASAN_NGX)/.configured ]; then \
	    rm -rf $(ASAN_NGX) && mkdir -p $(ASAN_NGX) && \
	    cp -r $(NGX_BUILD)/auto $(NGX_BUILD)/src $(NGX_BUILD)/conf_flags \
	        $(ASAN_NGX)/ && mkdir -p $(ASAN_NGX)/objs && \
	    cp $(NGX_BUILD)/objs/*.c $(NGX_BUILD)/objs/*.h $(ASAN_NGX)/objs/ && \
	    sed -e '/^CFLAGS =/s/$$/ $(ASAN_FLAGS)/' \
	        -e '/^LINK =/s/$$/ -fsanitize=address,undefined/' \
	        $(NGX_BUILD)/objs/Makefile > $(ASAN_NGX)/objs/Makefile && \
	    grep -o 'objs/addon/[a-z_]*/' $(ASAN_NGX)/objs/Makefile | sort -u \
	        | (cd $(ASAN_NGX) && xargs mkdir -p) && \
	    touch $(ASAN_NGX)/.configured; \
	fi
	$(MAKE) -C $(ASAN_NGX) -f objs/Makefile modules \
	    > $(BUILD)/module-asan.log 2>&1 || { grep -E -A6 \
	    'error:|warning:|Error [0-9]' $(BUILD)/module-asan.log | head -80; \
	    exit 1; }
	@ls -l $(ASAN_MODULE)

e2e-asan: asan-module $(HELM)
	GCP_MODULE=$(ASAN_MODULE) \
	GCP_NGINX_PRELOAD=$$(gcc -print-file-name=libasan.so) \
	ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1 \
	    $(PYTHON) -m pytest -q $(E2E_FILES) $(PYTEST_ARGS)

# In `make test`: the adapter's and the watches' files on etcd under ASan.
# Requests and watches that outlive their clients while the etcd backend
# still holds their memory crash a plain worker only now and then.
E2E_ASAN_SMOKE := t/e2e/test_adapter.py t/e2e/test_watch.py

e2e-asan-smoke:
	@$(MAKE) --no-print-directory e2e-asan E2E_FILES="$(E2E_ASAN_SMOKE)" \
	    PYTEST_ARGS="--storage=etcd $(PYTEST_ARGS)"

# ---------------------------------------------------------------- package

# The Debian package libnginx-mod-http-gcp, built from debian/ in a copy of
# the tree (tools/build-deb) and checked by lintian.  deb-test installs,
# uses, removes and purges it on this machine (as root: t/deb/test_deb.py
# says what it changes).
deb: deps
	tools/build-deb $(BUILD)/deb

deb-test: deb
	$(PYTHON) -m pytest -q t/deb $(PYTEST_ARGS)

# ---------------------------------------------------------------- all

# One step after the other (each may use parallel jobs inside); the unit
# tests run once, under ASan and UBSan.
test:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory check-core
	@$(MAKE) --no-print-directory module
	@$(MAKE) --no-print-directory asan
	@$(MAKE) --no-print-directory fuzz-check
	@$(MAKE) --no-print-directory e2e
	@$(MAKE) --no-print-directory e2e-asan-smoke
	@$(MAKE) --no-print-directory deb-test

bench: deps module
	GCP_MODULE=$(MODULE) bench/run

clean:
	rm -rf $(BUILD)/unit $(BUILD)/asan $(BUILD)/bench $(BUILD)/gen \
	    $(BUILD)/fuzz
	-$(MAKE) -C $(NGX_BUILD) -f objs/Makefile clean 2>/dev/null; \
	    rm -f $(NGX_BUILD)/.configured

distclean:
	rm -rf $(BUILD) var
