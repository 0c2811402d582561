#!/bin/sh
# skin_callgrind.sh - instructions per vertex of the AVX2 skinning kernel,
# old (bench/skin_baseline.h) and new (src/skin/kernel_avx2.c), counted by
# callgrind inside the kernel only (--toggle-collect), so the figures repeat
# exactly on a busy machine where timings do not. Instructions are not
# time (a kernel can retire more of them per cycle), which is why
# bench_skin times the two alternating as well.
#
# Usage: bench/skin_callgrind.sh [BUILD_DIR]   (default build/release)
set -eu
build=${1:-build/release}
bench="$build/bench/bench_skin"
if ! command -v valgrind >/dev/null 2>&1; then
    echo "skin_callgrind.sh: valgrind is not installed" >&2
    exit 77
fi
if [ ! -x "$bench" ]; then
    echo "skin_callgrind.sh: $bench not built" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Ir of the collected function(s), from callgrind's summary line.
count() { # kernel-function kernel mesh outputs
    valgrind --tool=callgrind --callgrind-out-file="$work/out" --toggle-collect="$1" \
        "$bench" --count "$2" "$3" "$4" >"$work/stdout" 2>"$work/stderr" || {
        cat "$work/stderr" >&2
        exit 1
    }
    ir=$(sed -n 's/^summary: *//p' "$work/out")
    calls=$(sed -n 's/^\([0-9]*\) vertices x \([0-9]*\) calls$/\1 \2/p' "$work/stdout")
    echo "$ir $calls"
}
printf '%-8s %-8s %10s %10s %8s\n' mesh outputs old new new/old
for mesh in 1 2 3 4 robot; do
    for outputs in pos normals; do
        set -- $(count baseline_skin_avx2 old $mesh $outputs)
        old=$(awk -v ir="$1" -v v="$2" -v c="$3" 'BEGIN { printf "%.1f", ir / (v * c) }')
        set -- $(count crowd__skin_kernel_avx2 new $mesh $outputs)
        new=$(awk -v ir="$1" -v v="$2" -v c="$3" 'BEGIN { printf "%.1f", ir / (v * c) }')
        ratio=$(awk -v a="$old" -v b="$new" 'BEGIN { printf "%.3f", b / a }')
        printf '%-8s %-8s %10s %10s %8s\n' "$mesh" "$outputs" "$old" "$new" "$ratio"
    done
done
echo "(instructions per vertex inside the kernel, callgrind; $(valgrind --version))"
