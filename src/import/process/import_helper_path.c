/* import_helper_path.c - where the helper program is (crowd/import.h):
 * CROWD_IMPORT_HELPER when set, else beside the running program
 * (/proc/self/exe: the CLI, a tool, a test), else in the install's libexec
 * folder (CROWD_IMPORT_HELPER_INSTALLED, compiled in by module.cmake). */
#define _POSIX_C_SOURCE 200809L /* readlink */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/process/import_child.h"

bool import_helper_path(char *out, size_t size, char *looked, size_t looked_size) {
    const char *env = getenv("CROWD_IMPORT_HELPER");
    if (env != NULL && env[0] != '\0') {
        snprintf(out, size, "%s", env);
        snprintf(looked, looked_size, "CROWD_IMPORT_HELPER=%s", env);
        return access(out, X_OK) == 0;
    }
    char exe[4096];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char beside[4096 + sizeof IMPORT_HELPER_NAME] = "";
    if (length > 0) {
        exe[length] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash != NULL) {
            slash[1] = '\0';
            snprintf(beside, sizeof beside, "%s%s", exe, IMPORT_HELPER_NAME);
            if (access(beside, X_OK) == 0) {
                snprintf(out, size, "%s", beside);
                return true;
            }
        }
    }
    snprintf(looked, looked_size, "%s%s%s", beside, beside[0] ? ", " : "",
             CROWD_IMPORT_HELPER_INSTALLED);
    snprintf(out, size, "%s", CROWD_IMPORT_HELPER_INSTALLED);
    return access(out, X_OK) == 0;
}
