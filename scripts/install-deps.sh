#!/bin/sh
# Installs the Debian 12 packages of one set, and nothing else. Safe to run
# again: packages already present are skipped, and apt is only touched when
# something is missing.
#
#   scripts/install-deps.sh demo    build crowd and run `crowd demo`
#                                   (compilers, the libraries, Mesa)
#   scripts/install-deps.sh web     `make web`: Debian's emscripten (and the
#                                   node modules it runs with), cglm's and
#                                   Imath's headers, and the Debian source
#                                   packages scripts/web-deps.sh builds for
#                                   WebAssembly (fetched once, into build/web)
#   scripts/install-deps.sh test    everything `make test` and `make check`
#                                   run: demo's and web's sets, the test
#                                   models, strace, chromium, Godot 3, Xvfb,
#                                   clang for the fuzz build, clang-format,
#                                   gnuplot (the bench charts' tests), and
#                                   the tests' npm packages (tests/browser)
#   scripts/install-deps.sh extra   test's set and the optional tools
#   (or --extra)                    (ImageMagick, x11-utils, assimp's own
#                                   CLI for regenerating the import sweep
#                                   table)
# Without an argument: test.
# minetest-data holds Minetest's player model (character.b3d), which the
# import tests read.
set -eu

set_name=${1:-test}
case "$set_name" in
demo | web | test | extra) ;;
--extra) set_name=extra ;;
*)
    echo "crowd: error: unknown package set '$set_name' (demo, web, test or extra)" >&2
    exit 1
    ;;
esac

demo_packages="build-essential cmake pkg-config
  libassimp-dev libcglm-dev libmeshoptimizer-dev libopenexr-dev libpng-dev libcjson-dev
  libepoxy-dev libegl-dev libglfw3-dev libegl-mesa0 libgl1-mesa-dri"
# emscripten runs its JavaScript tools with Debian's node modules
# (node-acorn); dpkg-dev unpacks the source packages (apt-get source).
web_packages="cmake pkg-config dpkg-dev emscripten node-acorn libcglm-dev libimath-dev"
case "$set_name" in
demo) packages="$demo_packages" ;;
web) packages="$web_packages" ;;
*)
    packages="$demo_packages $web_packages clang-format git assimp-testmodels minetest-data chromium
      godot3 xvfb strace clang libclang-rt-14-dev gnuplot-nox"
    # The browser test runs under node with npm's packages; Debian's node
    # (18) will do where no newer one is installed.
    command -v npm >/dev/null 2>&1 || packages="$packages npm"
    ;;
esac
# The web build's programs and the tests run under node.
[ "$set_name" = demo ] || command -v node >/dev/null 2>&1 || packages="$packages nodejs"
if [ "$set_name" = extra ]; then
    packages="$packages x11-utils imagemagick assimp-utils"
fi

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        sudo=""
    elif command -v sudo >/dev/null 2>&1; then
        sudo="sudo"
    else
        echo "crowd: error: missing packages:$missing (run this script as root)" >&2
        exit 1
    fi
    echo "crowd: installing ($set_name):$missing"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    $sudo apt-get install -y -qq --no-install-recommends $missing
fi

[ "$set_name" = demo ] && exit 0

# The source packages of the web build's libraries (network; kept once fetched).
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/web-deps.sh" fetch
[ "$set_name" = web ] && exit 0

# The tests' npm packages, exactly as tests/browser/package-lock.json pins
# them, in build/node/node_modules (CROWD_NODE_MODULES). installed.lock is
# written only after a complete install, so a failed one is retried.
lock="$root/tests/browser/package-lock.json"
node_dir="$root/build/node"
if ! cmp -s "$lock" "$node_dir/installed.lock"; then
    echo "crowd: installing the tests' npm packages into $node_dir"
    mkdir -p "$node_dir"
    cp "$root/tests/browser/package.json" "$lock" "$node_dir/"
    (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$lock" "$node_dir/installed.lock"
fi
