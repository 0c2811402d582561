/* check_temp_dir.c - every test process works in a folder of its own.
 *
 * ctest runs tests in parallel from the same build folders, so a file a
 * test writes into its working folder (a CLI capture, a rendered PNG, a
 * bench report) could be read by another test writing the same name. Each
 * test main calls check_enter_temp_dir first: relative paths then land in a
 * fresh folder under $TMPDIR (or /tmp), removed when the process exits
 * unless CROWD_KEEP_TEST_DIR is set (to look at what a failing test wrote).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "test_files.h"

static char temp_dir[1024];

static void remove_temp_dir(void) {
    if (temp_dir[0] != '\0' && chdir("/") == 0) {
        test_remove_tree(temp_dir);
    }
}

void check_enter_temp_dir(const char *name) {
    const char *base = getenv("TMPDIR");
    snprintf(temp_dir, sizeof temp_dir, "%s/crowd-%s-XXXXXX",
             base != NULL && base[0] != '\0' ? base : "/tmp", name);
    if (mkdtemp(temp_dir) == NULL || chdir(temp_dir) != 0) {
        perror("check_enter_temp_dir");
        exit(1);
    }
    if (getenv("CROWD_KEEP_TEST_DIR") != NULL) {
        printf("test folder: %s (kept)\n", temp_dir);
    } else {
        atexit(remove_temp_dir);
    }
}
