#!/bin/sh
# run_fuzz.sh FUZZER SECONDS CORPUS [SEEDS...] - one libFuzzer target as a
# test (fuzz/CMakeLists.txt):
#
#  1. replays every input of CORPUS (the target's own folder, where found
#     crashes are kept) and of the SEEDS folders, once each;
#  2. fuzzes for SECONDS, starting from those inputs. New inputs go to a
#     temporary folder, so the committed corpus only ever gains a crash.
#
# Fails when an input crashes the target, leaks, trips ASan or UBSan, or
# takes longer than a hang guard (-timeout: minutes, not a speed limit). A
# crash found while fuzzing is copied into CORPUS, in the source tree, so
# that step 1 replays it from then on until it is fixed; the failure names
# the file. Everything else lives in a folder from mktemp, removed at exit
# (kept when CROWD_KEEP_TEST_DIR is set, as the C tests do).
set -eu

# Absolute paths: the fuzzer runs inside its temporary folder.
fuzzer=$(realpath "$1")
seconds=$2
corpus=$(realpath -m "$3")
shift 3
name=$(basename "$corpus")
work=$(mktemp -d "${TMPDIR:-/tmp}/crowd-fuzz-$name-XXXXXX")
if [ -n "${CROWD_KEEP_TEST_DIR:-}" ]; then
    echo "test folder: $work (kept)"
else
    trap 'rm -rf "$work"' EXIT
fi
mkdir "$work/new" "$work/found"
cd "$work"
# UBSan's reports are findings too: libFuzzer sees only what stops the process.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# Leaks inside assimp's own readers (it drops what a reader allocated when
# the reader throws on malformed input) are not crowd's and cannot be fixed
# here: the same suppressions as the ASan stage (tests/lsan.supp, Makefile).
# Everything crowd allocates outside assimp is still a finding. assimp is
# built without frame pointers, so the fast unwinder stops at operator new
# before reaching it: the full unwinder records the frames the suppression
# matches.
suppressions=$(realpath "$(dirname "$0")/../tests/lsan.supp")
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$suppressions:print_suppressions=0}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-fast_unwind_on_malloc=0}"
# An input running this long hangs the reader: a finding, however slow the machine.
per_input_guard=300

dirs=""
for dir in "$corpus" "$@"; do
    [ -d "$dir" ] && dirs="$dirs $(realpath "$dir")"
done
# shellcheck disable=SC2086 # folders without spaces, from fuzz/CMakeLists.txt
inputs=$(find $dirs -type f | sort)
if [ -z "$inputs" ]; then
    echo "FAIL: no inputs in$dirs"
    exit 1
fi

echo "== replay: $(echo "$inputs" | wc -l) inputs of$dirs"
status=0
# shellcheck disable=SC2086
"$fuzzer" -timeout=$per_input_guard $inputs >replay.log 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    tail -n 60 replay.log
    input=$(grep '^Running: ' replay.log | tail -n 1 | cut -c 10-)
    echo "FAIL: $fuzzer exits $status on $input (a committed input: fix the code it finds)"
    exit 1
fi
grep -c '^Executed ' replay.log | sed 's/$/ inputs replayed/'

echo "== fuzzing for $seconds s"
status=0
# shellcheck disable=SC2086
"$fuzzer" -max_total_time="$seconds" -timeout=$per_input_guard -artifact_prefix="$work/found/" \
    -print_final_stats=1 "$work/new" $dirs >fuzz.log 2>&1 || status=$?
grep -E '^#[0-9]+ *DONE|^stat::number_of_executed_units|^stat::new_units_added|^INFO: Seed' fuzz.log || true
if [ "$status" -ne 0 ]; then
    tail -n 60 fuzz.log
    mkdir -p "$corpus"
    kept=""
    # slow-unit-* files are reports, not failures.
    for file in "$work"/found/*; do
        case "$(basename "$file")" in
        slow-unit-*) ;;
        *)
            cp "$file" "$corpus/"
            kept="$kept $corpus/$(basename "$file")"
            ;;
        esac
    done
    echo "FAIL: $fuzzer exits $status while fuzzing; input kept as:${kept:- (none written)}"
    echo "      reproduce: $fuzzer${kept:- $work/found/...}"
    exit 1
fi
echo "passed"
