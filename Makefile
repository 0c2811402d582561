# The two commands of the README, plus what they are made of.
#   make demo   install missing Debian packages, build, run `crowd demo`
#   make test   install missing Debian packages, build, run every test,
#               then again with AddressSanitizer + UndefinedBehaviorSanitizer
JOBS ?= $(shell nproc)
BUILD ?= build/release
ASAN_BUILD ?= build/asan

.PHONY: all deps build build-asan demo test test-release test-asan format format-check fuzz clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCROWD_WERROR=ON >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCROWD_SANITIZE=ON -DCROWD_WERROR=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

demo: build
	$(BUILD)/crowd demo

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: build-asan
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE no-sanitizer

test: format-check test-release test-asan

# Every C file of the tree as .clang-format says (clang-format 14, Debian 12's).
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)

format: deps
	@clang-format -i $(FORMAT_FILES)

format-check: deps
	@unformatted=$$(for f in $(FORMAT_FILES); do clang-format "$$f" | cmp -s - "$$f" || echo "$$f"; done); \
	if [ -n "$$unformatted" ]; then \
	  echo "crowd: error: these files differ from .clang-format (run make format):"; \
	  echo "$$unformatted"; exit 1; fi

fuzz:
	@scripts/install-deps.sh --extra
	@CC=clang cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCROWD_FUZZ=ON >/dev/null
	@cmake --build build/fuzz -j $(JOBS)

clean:
	rm -rf build
