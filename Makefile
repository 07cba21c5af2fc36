# SPDX-License-Identifier: BSD-3-Clause
# The two commands of the README, plus the developer targets behind them.
#   make demo   install what is missing, build, run the showcase
#   make test   install what is missing, build, run every test suite
#   make deb    the Debian packages of the tree, in $(BUILD)/deb (docs/packaging.md)
BUILD ?= build
ASAN_BUILD ?= build-asan
MESON_TEST_ARGS ?=

.PHONY: all deps build demo test test-asan bench install deb clean

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

# Unit, API and fuzz-replay suites under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan: deps
	[ -f $(ASAN_BUILD)/build.ninja ] || meson setup $(ASAN_BUILD) $(MESON_SETUP_ARGS) -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C $(ASAN_BUILD)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		scripts/run-tests.sh $(ASAN_BUILD) --suite api --suite unit --suite fuzz

bench: build
	@scripts/bench.sh $(BUILD)

install: build
	meson install -C $(BUILD)

deb:
	@scripts/install-deps.sh --deb
	scripts/build-deb.sh $(BUILD)/deb

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
