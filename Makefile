# The two commands of the README, plus what they are made of.
#   make demo   install missing Debian packages (the demo set), build, run `crowd demo`
#   make test   install missing Debian packages (the test set), build, run every
#               test, then again with AddressSanitizer + UndefinedBehaviorSanitizer,
#               then the libFuzzer targets (a clang build): what CI runs
#   make check  the developer's inner loop: the release build's tests without
#               the labels of SLOW_LABELS (browser, Godot, install, web, slow ones)
#   make web    install missing Debian packages (the web set), build the
#               runtime's libraries and crowd_runtime (its gpu module on
#               WebGL2) for WebAssembly with emscripten into build/web, and
#               the player page (web/) into build/web/player
JOBS ?= $(shell nproc)
BUILD ?= build/release
ASAN_BUILD ?= build/asan
FUZZ_BUILD ?= build/fuzz
WEB_BUILD ?= build/web/crowd
# Labels make check leaves to make test (cmake/crowd_add_test.cmake says
# which tests carry them).
SLOW_LABELS = slow|browser|godot|consumer|fuzz|web

.PHONY: all deps deps-demo deps-test deps-web build build-asan build-fuzz demo check test \
	test-release test-asan test-fuzz format format-check fuzz web clean

all: build

deps: deps-test

deps-demo:
	@scripts/install-deps.sh demo

deps-test:
	@scripts/install-deps.sh test

deps-web:
	@scripts/install-deps.sh web

# The release build, after the packages of the set the target asks for.
define build_release
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCROWD_WERROR=ON >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)
endef

build: deps-test
	$(build_release)

build-asan: deps-test
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCROWD_SANITIZE=ON -DCROWD_WERROR=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

# The libraries and the fuzz targets alone, by clang with libFuzzer's
# coverage and ASan + UBSan; their tests (fuzz/CMakeLists.txt) replay the
# corpus and fuzz a while.
build-fuzz: deps-test
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCROWD_FUZZ=ON \
	  -DCROWD_BUILD_TESTS=OFF -DCROWD_BUILD_CLI=OFF -DCROWD_INSTALL=OFF -DCROWD_WERROR=ON >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS)

fuzz: build-fuzz

# WebAssembly: the libraries from Debian's source packages into
# build/web/sysroot (scripts/web-deps.sh; built once, then skipped), then
# crowd_runtime (the gpu module's portable tier on WebGL2), tests/web's
# checker program and the player page, player.html + page.js + player.js +
# player.wasm, in build/web/player (CROWD_WEB, cmake/crowd_web.cmake,
# web/). Debian's emscripten runs its JavaScript tools with Debian's node
# modules.
web: deps-web
	@JOBS=$(JOBS) scripts/web-deps.sh build
	@export NODE_PATH=$${NODE_PATH:-/usr/share/nodejs}; \
	  emcmake cmake -S . -B $(WEB_BUILD) -DCMAKE_BUILD_TYPE=Release -DCROWD_WEB=ON -DCROWD_WERROR=ON \
	    >/dev/null && cmake --build $(WEB_BUILD) -j $(JOBS)

demo: deps-demo
	$(build_release)
	$(BUILD)/crowd demo

# ctest in a build folder, then the tests that passed with something
# skipped (scripts/test-skips.sh); ctest's own status is the result.
run_ctest = cd $(1) && { ctest --output-on-failure --output-junit Testing/Temporary/junit.xml \
	  -j $(JOBS) $(2); status=$$?; \
	  $(CURDIR)/scripts/test-skips.sh .; exit $$status; }

check: build
	@$(call run_ctest,$(BUILD),-LE '$(SLOW_LABELS)')

# web: test_web_load compares the WebAssembly build with the native one,
# test_web_player plays the player page in chromium against crowd render.
test-release: build web
	@$(call run_ctest,$(BUILD),)

test-asan: build-asan
	@export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1; \
	  $(call run_ctest,$(ASAN_BUILD),-LE no-sanitizer)

test-fuzz: build-fuzz
	@$(call run_ctest,$(FUZZ_BUILD),)

test: format-check test-release test-asan test-fuzz

# Every C file of the tree as .clang-format says (clang-format 14, Debian 12's).
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)

format: deps-test
	@clang-format -i $(FORMAT_FILES)

format-check: deps-test
	@unformatted=$$(for f in $(FORMAT_FILES); do clang-format "$$f" | cmp -s - "$$f" || echo "$$f"; done); \
	if [ -n "$$unformatted" ]; then \
	  echo "crowd: error: these files differ from .clang-format (run make format):"; \
	  echo "$$unformatted"; exit 1; fi

clean:
	rm -rf build
