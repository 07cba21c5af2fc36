# SPDX-License-Identifier: BSD-3-Clause
# The two commands of the README, plus the developer targets behind them.
#   make demo   install what is missing, build, run the showcase
#   make test   install what is missing, build, run every test suite
#   make deb    the Debian packages of the tree, in $(BUILD)/deb (docs/packaging.md)
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
SOAK_MINUTES ?= 10
MESON_TEST_ARGS ?=

.PHONY: all deps build demo test test-asan test-tsan soak bench install deb clean

all: build

deps:
	@scripts/install-deps.sh

# Developers and CI build with warnings as errors; a plain `meson setup` (a user
# building a release) does not.
MESON_SETUP_ARGS ?= -Dwerror=true

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_SETUP_ARGS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: build
	@scripts/demo.sh $(BUILD)

test: build
	@scripts/run-tests.sh $(BUILD) $(MESON_TEST_ARGS)

# Unit, API and fuzz-replay suites under AddressSanitizer + UndefinedBehaviorSanitizer, and the
# diagnostics' programs (doca_perf and samples under every fault class and with a trace): an
# injected fault must leave no leak and no sanitizer report (docs/diagnostics.md).
test-asan: deps
	[ -f $(ASAN_BUILD)/build.ninja ] || meson setup $(ASAN_BUILD) $(MESON_SETUP_ARGS) -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C $(ASAN_BUILD)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		scripts/run-tests.sh $(ASAN_BUILD) --suite api --suite unit --suite fuzz --suite diag

# Unit and API suites under ThreadSanitizer (docs/robustness.md).  UCX_MEM_EVENTS=no: UCX's
# malloc/mmap hooks patch the calls TSan intercepts; halt_on_error=0 prints every report of a
# test before exitcode=66 fails it; SD_TEST_TIMEOUT and the timeout multiplier: a case runs
# 2-10x slower.
# Suppressions (UCX only, each with its reason): tests/tsan.supp.
test-tsan: deps
	[ -f $(TSAN_BUILD)/build.ninja ] || meson setup $(TSAN_BUILD) $(MESON_SETUP_ARGS) -Db_sanitize=thread -Db_lundef=false
	ninja -C $(TSAN_BUILD)
	UCX_MEM_EVENTS=no SD_TEST_TIMEOUT=150 \
		TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$(CURDIR)/tests/tsan.supp" \
		scripts/run-tests.sh $(TSAN_BUILD) --timeout-multiplier 3 --suite api --suite unit

# The soak test for SOAK_MINUTES (make test runs 60 s of it): docs/robustness.md.
# Inside the test bed's two namespaces (root; without it the netns cycles are skipped, saying why).
soak: build
	SOAK_SECONDS=$$(($(SOAK_MINUTES) * 60)) SD_TEST_TIMEOUT=$$(($(SOAK_MINUTES) * 60 + 600)) UCX_LOG_FILE=stderr \
		PYTHONPATH=python python3 -m softdoca_testbed.netns --name soak --link 'v=10.78.0.%d/24' -- \
		$(BUILD)/tests/soak/test_soak

bench: build
	@scripts/bench.sh $(BUILD)

install: build
	meson install -C $(BUILD)

deb:
	@scripts/install-deps.sh --deb
	scripts/build-deb.sh $(BUILD)/deb

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
