/* import_tests.h - the groups of test_import, one file each. check.h's
 * counters are per translation unit, so each group returns the failures it
 * counted (check_report below) and main adds them up. */
#ifndef IMPORT_TESTS_H
#define IMPORT_TESTS_H

#include "crowd/asset.h"

int test_import_models(void);
int test_import_repairs(void);
int test_import_attach(void);
int test_import_errors(void);

/* What a group returns: prints its tally, returns its failure count. */
#define CHECK_REPORT(group)                                                                        \
    (printf("%s: %d checks, %d failed, %d skipped groups\n", group, check_count, check_failures,   \
            check_skips),                                                                          \
     check_failures)

/* Imports `path` with no desc; NULL (and a CHECK failure) when it fails. */
crowd_asset *import_or_fail(const char *path);

#endif
