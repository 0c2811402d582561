#!/bin/sh
# bench/gpu/run.sh - the prepared GPU check: the questions a software
# rasterizer cannot answer, asked of the first GPU the machine has, in one
# call. It builds crowd (unless given a built CLI), bakes robot.glb (builtin:
# when the model is absent), and runs through EGL (tools/host picks a
# hardware EGL device first, llvmpipe when there is none):
#   1. vat and bat against the floor (the cheapest instanced static draw of
#      the mesh) at 1,000 and 10,000 characters, brute force (every
#      character drawn), `crowd bench --scene field --ways floor,brute`;
#   2. the field with culling and LODs at 10,000, 100,000 and 1,000,000.
# Goals on a GPU (issue 21): vat <= 1.15x and bat <= 1.3x the floor at
# 10,000, and the 1,000,000 field at 60 FPS or better. Writes each bench's
# JSON (docs/bench.md) and a summary, gpu_check.json, into the output
# folder, and prints the summary.
#
#   bench/gpu/run.sh [--quick] [--out DIR] [--crowd CLI] [--model FILE]
#
# --quick: counts 10 and 100 (field 100 and 1,000), 64x36, 2 frames: for
# llvmpipe and `make test` (test_gpu_check), which checks the script, not
# the figures. Default output: ./gpu-check. Exit 0 when every bench ran
# (whether or not the goals were met: the summary says), else non-zero.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
quick=0
out=gpu-check
crowd=
model="$root/../shared/models/robot.glb"
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=1; shift ;;
    --out) out=$2; shift 2 ;;
    --crowd) crowd=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -z "$crowd" ]; then
    build="$out/build"
    echo "run.sh: building crowd in $build" >&2
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCROWD_BUILD_TESTS=OFF >"$out/build.log" 2>&1
    cmake --build "$build" --target crowd_cli -j "$(nproc)" >>"$out/build.log" 2>&1
    crowd="$build/crowd"
fi
[ -x "$crowd" ] || { echo "run.sh: no crowd CLI at $crowd" >&2; exit 1; }
if [ ! -f "$model" ]; then
    echo "run.sh: $model not found: using builtin:" >&2
    model=builtin:
fi

if [ "$quick" = 1 ]; then
    counts=10,100 field_counts=100,1000 size=64x36 frames="--frames 2 --warmup 1"
else
    counts=1000,10000 field_counts=10000,100000,1000000 size=1280x720 frames=
fi
"$crowd" bake "$model" -o "$out/bake" --quiet
for mode in vat bat; do
    "$crowd" bench "$out/bake" --scene field --ways floor,brute --modes "$mode" \
        --counts "$counts" --size "$size" $frames --quiet --json "$out/floor_$mode.json"
done
"$crowd" bench "$out/bake" --scene field --ways cull,cull+lod --modes vat \
    --counts "$field_counts" --size "$size" $frames --quiet --json "$out/field.json"
node "$here/summary.mjs" "$out" "$model" >"$out/gpu_check.json.tmp"
mv "$out/gpu_check.json.tmp" "$out/gpu_check.json"
cat "$out/gpu_check.json"
