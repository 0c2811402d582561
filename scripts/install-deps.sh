#!/bin/sh
# Installs every Debian 12 package crowd needs to build, test and run, and
# nothing else. Safe to run again: packages already present are skipped, and
# apt is only touched when something is missing.
#
#   scripts/install-deps.sh          build + test packages
#   scripts/install-deps.sh --extra  also the optional tools (Xvfb for
#                                    `crowd play` screenshots, gnuplot for
#                                    bench charts, clang for fuzzing)
set -eu

packages="build-essential cmake pkg-config clang-format git
  libassimp-dev libcglm-dev libmeshoptimizer-dev libopenexr-dev libpng-dev libcjson-dev
  libepoxy-dev libegl-dev libglfw3-dev libegl-mesa0 libgl1-mesa-dri
  assimp-testmodels"

if [ "${1:-}" = "--extra" ]; then
    packages="$packages xvfb x11-utils imagemagick gnuplot-nox clang libclang-rt-14-dev"
fi

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

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
