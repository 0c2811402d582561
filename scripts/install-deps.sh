#!/bin/sh
# Installs the Debian 12 packages of one set, and nothing else. Safe to run
# again: packages already present are skipped, and apt is only touched when
# something is missing.
#
#   scripts/install-deps.sh demo    build crowd and run `crowd demo`
#                                   (compilers, the libraries, Mesa)
#   scripts/install-deps.sh test    everything `make test` and `make check`
#                                   run: demo's set, the test models, strace,
#                                   chromium, Godot 3, Xvfb, clang for the
#                                   fuzz build, clang-format, and the tests'
#                                   npm packages (tests/browser)
#   scripts/install-deps.sh extra   test's set and the optional tools
#   (or --extra)                    (gnuplot for bench charts, ImageMagick,
#                                   x11-utils, assimp's own CLI for
#                                   regenerating the import sweep table)
# Without an argument: test.
# minetest-data holds Minetest's player model (character.b3d), which the
# import tests read.
set -eu

set_name=${1:-test}
case "$set_name" in
demo | test | extra) ;;
--extra) set_name=extra ;;
*)
    echo "crowd: error: unknown package set '$set_name' (demo, test or extra)" >&2
    exit 1
    ;;
esac

packages="build-essential cmake pkg-config
  libassimp-dev libcglm-dev libmeshoptimizer-dev libopenexr-dev libpng-dev libcjson-dev
  libepoxy-dev libegl-dev libglfw3-dev libegl-mesa0 libgl1-mesa-dri"
if [ "$set_name" != demo ]; then
    packages="$packages clang-format git assimp-testmodels minetest-data chromium godot3 xvfb
      strace clang libclang-rt-14-dev"
    # The browser test runs under node with npm's packages; Debian's node
    # (18) will do where no newer one is installed.
    command -v node >/dev/null 2>&1 || packages="$packages nodejs"
    command -v npm >/dev/null 2>&1 || packages="$packages npm"
fi
if [ "$set_name" = extra ]; then
    packages="$packages x11-utils imagemagick gnuplot-nox assimp-utils"
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

# The tests' npm packages, exactly as tests/browser/package-lock.json pins
# them, in build/node/node_modules (CROWD_NODE_MODULES). installed.lock is
# written only after a complete install, so a failed one is retried.
root=$(cd "$(dirname "$0")/.." && pwd)
lock="$root/tests/browser/package-lock.json"
node_dir="$root/build/node"
if ! cmp -s "$lock" "$node_dir/installed.lock"; then
    echo "crowd: installing the tests' npm packages into $node_dir"
    mkdir -p "$node_dir"
    cp "$root/tests/browser/package.json" "$lock" "$node_dir/"
    (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$lock" "$node_dir/installed.lock"
fi
