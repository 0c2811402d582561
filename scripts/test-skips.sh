#!/bin/sh
# test-skips.sh BUILD_DIR - after a ctest run in BUILD_DIR, lists each test
# that passed although it skipped some of its groups, with its "SKIP:" lines
# (tests/common/check.h prints them, so do tests/browser's scripts). ctest
# names the tests that skipped everything (exit 77) itself, under "The
# following tests did not run"; a test that ran only part of its groups
# passes, and without this list a run without ../shared/models would look
# as green as one with them. Prints nothing when no passing test skipped
# anything. Always exits 0: ctest's status is the run's result.
#
# Reads ctest's Testing/Temporary/LastTest.log (every test's output) and,
# where the run wrote it (the Makefile's --output-junit), junit.xml, the
# one place that tells a skipped test from a passed one: LastTest.log says
# "Test Passed." for both.
set -eu

log="${1:-.}/Testing/Temporary/LastTest.log"
junit="${1:-.}/Testing/Temporary/junit.xml"
[ -f "$log" ] || exit 0
[ -f "$junit" ] || junit=/dev/null

awk '
FNR == NR {
    if (match($0, /<testcase name="[^"]*"/) && index($0, "status=\"notrun\"") > 0) {
        not_run[substr($0, RSTART + 16, RLENGTH - 17)] = 1
    }
    next
}
/^[0-9]+\/[0-9]+ Test: / { name = $3; n = 0; collecting = 0; next }
/^Output:$/ { collecting = 1; next }
/^<end of output>$/ { collecting = 0; next }
collecting && /^SKIP: / { lines[++n] = $0; next }
/^Test Passed\.$/ {
    if (n > 0 && !(name in not_run)) {
        partial++
        report = report sprintf("  %s\n", name)
        for (i = 1; i <= n && i <= 3; i++) {
            report = report sprintf("    %s\n", lines[i])
        }
        if (n > 3) {
            report = report sprintf("    ... %d more\n", n - 3)
        }
    }
    n = 0
}
END {
    if (partial > 0) {
        printf("\ncrowd: %d test%s passed with groups skipped (not a full run):\n%s", partial,
               partial == 1 ? "" : "s", report)
    }
}' "$junit" "$log"
