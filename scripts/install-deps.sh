#!/bin/sh
# Installs every Debian 12 package crowd needs to build, test and run, and
# nothing else. Safe to run again: packages already present are skipped, and
# apt is only touched when something is missing.
#
#   scripts/install-deps.sh          build + test packages, and the browser
#                                    test's npm packages (tests/browser)
#   scripts/install-deps.sh --extra  also the optional tools (Xvfb for
#                                    `crowd play` screenshots, gnuplot for
#                                    bench charts, clang for fuzzing, assimp's
#                                    own CLI for regenerating the import
#                                    sweep table)
# minetest-data holds Minetest's player model (character.b3d), which the
# import tests read.
set -eu

packages="build-essential cmake pkg-config clang-format git
  libassimp-dev libcglm-dev libmeshoptimizer-dev libopenexr-dev libpng-dev libcjson-dev
  libepoxy-dev libegl-dev libglfw3-dev libegl-mesa0 libgl1-mesa-dri
  assimp-testmodels minetest-data chromium godot3 xvfb strace"
# The browser test runs under node with npm's packages; Debian's node (18)
# will do where no newer one is installed.
command -v node >/dev/null 2>&1 || packages="$packages nodejs"
command -v npm >/dev/null 2>&1 || packages="$packages npm"

if [ "${1:-}" = "--extra" ]; then
    packages="$packages xvfb x11-utils imagemagick gnuplot-nox clang libclang-rt-14-dev assimp-utils"
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
    echo "crowd: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    $sudo apt-get install -y -qq --no-install-recommends $missing
fi

# The browser test's npm packages, exactly as tests/browser/package-lock.json
# pins them, in build/node/node_modules (CROWD_NODE_MODULES). installed.lock
# is written only after a complete install, so a failed one is retried.
root=$(cd "$(dirname "$0")/.." && pwd)
lock="$root/tests/browser/package-lock.json"
node_dir="$root/build/node"
if ! cmp -s "$lock" "$node_dir/installed.lock"; then
    echo "crowd: installing the browser test's npm packages into $node_dir"
    mkdir -p "$node_dir"
    cp "$root/tests/browser/package.json" "$lock" "$node_dir/"
    (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$lock" "$node_dir/installed.lock"
fi
