#!/bin/sh
# web-deps.sh fetch|build - the libraries crowd_runtime links, for
# WebAssembly: Debian's own source packages built with Debian's emscripten
# into the sysroot build/web/sysroot (include/, lib/, lib/pkgconfig/), which
# the web build of crowd (make web) finds them in.
#
#   fetch  (network) the source packages zlib, libpng1.6, cjson and openexr
#          of this machine's Debian release into build/web/deps/src, through
#          a private apt state (build/web/deps/apt: the machine's Debian
#          entries as deb-src), so the system's apt lists stay as they are.
#          scripts/install-deps.sh web runs it. Fetched packages are kept.
#   build  (offline) builds each into the sysroot with emcc, skipping a
#          package whose stamp says it was built from the same source
#          version by the same script and emcc. make web runs it.
#
# cglm and Imath's half.h are headers only here (crowd calls no compiled
# cglm function; OpenEXR's core includes half.h without its lookup table):
# they are copied from the installed libcglm-dev and libimath-dev, whose
# headers do not depend on the architecture. OpenEXR's core is built by
# cmake/web/openexr_core (its own project would configure the C++ libraries
# too). Nothing is built with -pthread: crowd's web build is single-threaded.
#
# JOBS (default: nproc) sets the parallel compile jobs.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
web="$root/build/web"
deps="$web/deps"
sysroot="$web/sysroot"
jobs=${JOBS:-$(nproc)}
packages="zlib libpng1.6 cjson openexr"

fail() {
    echo "crowd: error: web-deps: $*" >&2
    exit 1
}

# A deb-src copy of each Debian entry of the machine's apt sources (deb822
# .sources files and one-line .list files), for apt-get source.
write_source_entries() {
    parts="$1"
    rm -rf "$parts"
    mkdir -p "$parts"
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && grep -q 'debian' "$f" || continue
        sed 's/^Types:.*/Types: deb-src/' "$f" >"$parts/$(basename "$f")"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        grep '^deb .*debian' "$f" | sed 's/^deb /deb-src /' >"$parts/$(basename "$f")" || true
    done
    ls "$parts"/* >/dev/null 2>&1 || fail "no Debian entry in /etc/apt/sources.list*"
}

fetch() {
    . /etc/os-release
    suite=${VERSION_CODENAME:?/etc/os-release names no release}
    missing=""
    for p in $packages; do
        [ -f "$deps/src/$p.version" ] || missing="$missing $p"
    done
    [ -n "$missing" ] || return 0
    apt_dir="$deps/apt"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
    write_source_entries "$apt_dir/sources"
    # As root apt drops to _apt for downloads, which cannot write our folders.
    sandbox=""
    [ "$(id -u)" -ne 0 ] || sandbox='APT::Sandbox::User "root";'
    cat >"$apt_dir/apt.conf" <<EOF
Dir::Etc::sourcelist "/dev/null";
Dir::Etc::sourceparts "$apt_dir/sources";
Dir::State::Lists "$apt_dir/lists";
Dir::Cache "$apt_dir/cache";
$sandbox
EOF
    export APT_CONFIG="$apt_dir/apt.conf"
    echo "crowd: fetching Debian source packages ($suite):$missing"
    apt-get update -qq
    for p in $missing; do
        tmp="$deps/src/.fetch-$p"
        rm -rf "$tmp"
        mkdir -p "$tmp"
        # The release's own version, not a security update's: the archive
        # always holds the release's files.
        (cd "$tmp" && apt-get source -qq "$p/$suite" >/dev/null) || fail "apt-get source $p/$suite failed"
        dir=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
        version=$(sed -n 's/^Version: //p' "$tmp"/*.dsc)
        rm -rf "${deps:?}/src/$p"
        mv "$dir" "$deps/src/$p"
        rm -rf "$tmp"
        echo "$version" >"$deps/src/$p.version"
    done
}

# cmake for emscripten, finding only the sysroot's and emscripten's libraries.
em_cmake() {
    emcmake cmake -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$sysroot" \
        -DCMAKE_FIND_ROOT_PATH="$sysroot" "$@"
}

build_zlib() {
    # zlib's CMake project always builds a shared library and examples;
    # its configure script builds exactly the static one.
    rm -rf "$1" &&
        cp -a "$deps/src/zlib" "$1" &&
        (cd "$1" && emconfigure ./configure --static --prefix="$sysroot" && emmake make -j"$jobs" install)
}

build_libpng1_6() {
    em_cmake -S "$deps/src/libpng1.6" -B "$1" -DPNG_SHARED=OFF -DPNG_STATIC=ON -DPNG_EXECUTABLES=OFF \
        -DPNG_TESTS=OFF -DPNG_HARDWARE_OPTIMIZATIONS=OFF -DZLIB_ROOT="$sysroot" &&
        cmake --build "$1" -j "$jobs" && cmake --install "$1"
}

build_cjson() {
    em_cmake -S "$deps/src/cjson" -B "$1" -DBUILD_SHARED_LIBS=OFF -DENABLE_CJSON_TEST=OFF \
        -DENABLE_CUSTOM_COMPILER_FLAGS=OFF -DENABLE_TARGET_EXPORT=OFF &&
        cmake --build "$1" -j "$jobs" && cmake --install "$1"
}

build_openexr() {
    em_cmake -S "$root/cmake/web/openexr_core" -B "$1" -DOPENEXR_SOURCE_DIR="$deps/src/openexr" \
        -DIMATH_INCLUDE_DIR="$sysroot/include/Imath" -DZLIB_ROOT="$sysroot" &&
        cmake --build "$1" -j "$jobs" && cmake --install "$1"
}

# The headers-only pieces, from the installed -dev packages.
copy_headers() {
    [ -f /usr/include/cglm/cglm.h ] || fail "/usr/include/cglm missing (libcglm-dev)"
    [ -f /usr/include/Imath/half.h ] || fail "/usr/include/Imath missing (libimath-dev)"
    mkdir -p "$sysroot/include" "$sysroot/lib/pkgconfig"
    rm -rf "$sysroot/include/cglm" "$sysroot/include/Imath"
    cp -a /usr/include/cglm /usr/include/Imath "$sysroot/include/"
    version=$(dpkg-query -W -f='${Version}' libcglm-dev | sed 's/-[^-]*$//')
    cat >"$sysroot/lib/pkgconfig/cglm.pc" <<EOF
prefix=$sysroot
includedir=\${prefix}/include

Name: cglm
Description: OpenGL Mathematics (glm) for C, headers only (crowd's web sysroot)
Version: $version
Cflags: -I\${includedir}
EOF
}

build() {
    for tool in emcc emcmake emconfigure emmake cmake; do
        command -v $tool >/dev/null 2>&1 || fail "$tool not found (scripts/install-deps.sh web installs it)"
    done
    # Debian's emscripten runs its JavaScript tools with Debian's node modules.
    export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
    emcc_version=$(emcc --version | head -n 1)
    script_sum=$(cat "$0" "$root/cmake/web/openexr_core/CMakeLists.txt" | cksum)
    mkdir -p "$sysroot/stamps" "$deps/build"
    copy_headers
    for p in $packages; do
        [ -f "$deps/src/$p.version" ] || fail "no source of $p in $deps/src (run scripts/web-deps.sh fetch)"
        stamp="$sysroot/stamps/$p"
        want="$(cat "$deps/src/$p.version") $emcc_version $script_sum"
        if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
            continue
        fi
        echo "crowd: building $p $(cat "$deps/src/$p.version") for WebAssembly"
        rm -f "$stamp"
        # errexit does not apply inside a function called before ||: each
        # build function chains its steps with &&.
        log="$deps/build/$p.log"
        if ! "build_$(echo "$p" | tr . _)" "$deps/build/$p" >"$log" 2>&1; then
            tail -n 40 "$log" >&2
            fail "building $p failed (whole log: $log)"
        fi
        echo "$want" >"$stamp"
    done
}

case "${1:-}" in
fetch) fetch ;;
build) build ;;
*)
    echo "usage: scripts/web-deps.sh fetch|build" >&2
    exit 1
    ;;
esac
