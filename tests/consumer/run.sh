#!/bin/sh
# run.sh SOURCE_DIR [WORK_DIR] - crowd as another project uses it.
#
#  1. installs crowd into WORK_DIR/prefix: from the build folder
#     $CROWD_CONSUMER_BUILD when set (ctest sets it to the release build
#     the suite has just tested, so the package holds the binaries the other
#     tests ran and crowd is not built again), else from a configure and
#     build of its own (Release, libraries and CLI only);
#  2. builds tests/consumer/project, which links crowd::runtime alone, three
#     ways: find_package against the prefix, a plain cc command line from
#     `pkg-config --static --cflags --libs crowd-runtime`, and add_subdirectory
#     of the source tree;
#  3. runs each binary on a bake folder made by the installed `crowd bake
#     builtin:`: it loads the bake, samples a clip, and draws 9 characters
#     with a crowd world into a framebuffer of its own GL context (EGL
#     reached through libepoxy, loaded at run time), checking pixels;
#  4. fails if assimp, GLFW or EGL is in a consumer's link line or among the
#     libraries ldd lists for it.
# Without WORK_DIR it works in a folder from mktemp -d, removed at the end.
# Exit 77: a tool it needs (pkg-config, ldd, a C compiler) is missing.
set -eu

source_dir=$(cd "$1" && pwd)
project="$source_dir/tests/consumer/project"
if [ $# -ge 2 ]; then
    work=$2
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
cc=${CC:-cc}
for tool in pkg-config ldd "$cc"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "consumer: $tool not found, nothing checked"
        exit 77
    fi
done
jobs=$(nproc 2>/dev/null || echo 4)
# Library names, not bare words: a temporary path may hold any letters.
forbidden='(lib|-l)(assimp|glfw|EGL)'
started=$(date +%s)

step() {
    echo "== $1 ($(($(date +%s) - started)) s)"
}

fail() {
    echo "consumer: FAILED: $1" >&2
    exit 1
}

# fail_log LOG MESSAGE: the compiler's and CMake's errors from LOG (or its
# end when it names none), then the failure.
fail_log() {
    errors=': (fatal )?error|CMake Error'
    if grep -Eq "$errors" "$1"; then
        grep -E "$errors" "$1" | head -n 20 >&2
    else
        tail -n 40 "$1" >&2
    fi
    fail "$2"
}

# The consumer's link line (Makefile generator: link.txt) must name the
# runtime and not the offline library, nor assimp, GLFW or EGL; ldd must not
# list those either.
check_linked() {
    binary=$1
    link_line=$2
    if printf '%s\n' "$link_line" | grep -Eq "$forbidden"; then
        fail "$binary: the link line names assimp, GLFW or EGL: $link_line"
    fi
    if ! printf '%s\n' "$link_line" | grep -Eq 'libcrowd_runtime\.a|-lcrowd_runtime( |$)' ||
        printf '%s\n' "$link_line" | grep -Eq 'libcrowd\.a|-lcrowd( |$)'; then
        fail "$binary: the link line is not crowd_runtime alone: $link_line"
    fi
    ldd "$binary" >"$work/ldd.txt"
    if grep -Eq "$forbidden" "$work/ldd.txt"; then
        cat "$work/ldd.txt" >&2
        fail "$binary: ldd lists assimp, GLFW or EGL"
    fi
}

run_consumer() {
    binary=$1
    status=0
    "$binary" "$work/bake" >"$work/run.txt" || status=$?
    cat "$work/run.txt"
    [ "$status" -eq 0 ] || fail "$binary exited $status"
    grep -q '^consumer: ok$' "$work/run.txt" || fail "$binary did not report ok"
}

if [ -n "${CROWD_CONSUMER_BUILD:-}" ]; then
    crowd_build=$CROWD_CONSUMER_BUILD
    step "crowd: install $crowd_build into $work/prefix"
    : >"$work/crowd.log"
else
    crowd_build=$work/crowd
    step "crowd: configure, build, install into $work/prefix"
    cmake -S "$source_dir" -B "$crowd_build" -DCMAKE_BUILD_TYPE=Release \
        -DCROWD_BUILD_TESTS=OFF >"$work/crowd.log" 2>&1 ||
        fail_log "$work/crowd.log" "crowd does not configure"
    cmake --build "$crowd_build" -j "$jobs" >>"$work/crowd.log" 2>&1 ||
        fail_log "$work/crowd.log" "crowd does not build"
fi
# --prefix: the package is relocatable (pkg-config's ${pcfiledir}, the CMake
# package's own location, the CLI finding its helper in ../libexec), so any
# build folder installs into any prefix.
cmake --install "$crowd_build" --prefix "$work/prefix" >>"$work/crowd.log" 2>&1 ||
    fail_log "$work/crowd.log" "crowd does not install"
(cd "$work/prefix" && find . -type f | sort)

step "bake folder from the installed CLI"
"$work/prefix/bin/crowd" bake builtin: -o "$work/bake" >/dev/null || fail "crowd bake builtin: failed"

step "consumer through find_package(crowd)"
cmake -S "$project" -B "$work/find" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/find.log" 2>&1 ||
    fail_log "$work/find.log" "find_package(crowd) failed"
cmake --build "$work/find" -j "$jobs" >>"$work/find.log" 2>&1 ||
    fail_log "$work/find.log" "consumer does not build against the package"
check_linked "$work/find/consumer" "$(cat "$work/find/CMakeFiles/consumer.dir/link.txt")"
run_consumer "$work/find/consumer"

step "consumer through pkg-config crowd-runtime"
pc_file=$(find "$work/prefix" -name crowd-runtime.pc | head -n 1)
[ -n "$pc_file" ] || fail "no crowd-runtime.pc installed"
flags=$(PKG_CONFIG_PATH=$(dirname "$pc_file") pkg-config --static --cflags --libs crowd-runtime) ||
    fail "pkg-config does not resolve crowd-runtime"
echo "pkg-config: $flags"
# shellcheck disable=SC2086 # the flags are words
"$cc" -O2 -o "$work/consumer_pc" "$project/consumer.c" "$project/consumer_draw.c" $flags || fail "cc with pkg-config flags failed"
check_linked "$work/consumer_pc" "$flags"
run_consumer "$work/consumer_pc"

step "consumer through add_subdirectory(crowd)"
cmake -S "$project" -B "$work/sub" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
    -DCROWD_SOURCE_DIR="$source_dir" >"$work/sub.log" 2>&1 ||
    fail_log "$work/sub.log" "add_subdirectory(crowd) does not configure"
cmake --build "$work/sub" -j "$jobs" >>"$work/sub.log" 2>&1 ||
    fail_log "$work/sub.log" "consumer does not build through add_subdirectory"
check_linked "$work/sub/consumer" "$(cat "$work/sub/CMakeFiles/consumer.dir/link.txt")"
run_consumer "$work/sub/consumer"

step "ldd of the find_package consumer"
ldd "$work/find/consumer"
step "passed"
