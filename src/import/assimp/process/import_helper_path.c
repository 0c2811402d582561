/* import_helper_path.c - where the helper program is (crowd/import.h):
 * CROWD_IMPORT_HELPER when set, else beside the running program
 * (/proc/self/exe: the CLI, a tool, a test), else in ../libexec from it
 * (an installed CLI, wherever the install was moved), else in the libexec
 * folder of the configured install prefix (CROWD_IMPORT_HELPER_INSTALLED,
 * compiled in by module.cmake). */
#define _POSIX_C_SOURCE 200809L /* readlink */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/assimp/process/import_child.h"

/* `path` into `out` when it is executable. */
static bool usable(const char *path, char *out, size_t size) {
    if (access(path, X_OK) != 0) {
        return false;
    }
    snprintf(out, size, "%s", path);
    return true;
}

bool crowd__import_helper_path(char *out, size_t size, char *looked, size_t looked_size) {
    const char *env = getenv("CROWD_IMPORT_HELPER");
    if (env != NULL && env[0] != '\0') {
        snprintf(looked, looked_size, "CROWD_IMPORT_HELPER=%s", env);
        return usable(env, out, size);
    }
    char exe[4096];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = length > 0 ? (exe[length] = '\0', strrchr(exe, '/')) : NULL;
    char beside[4200] = "", libexec[4200] = "";
    if (slash != NULL) {
        slash[1] = '\0';
        snprintf(beside, sizeof beside, "%s" IMPORT_HELPER_NAME, exe);
        snprintf(libexec, sizeof libexec, "%s../libexec/" IMPORT_HELPER_NAME, exe);
        if (usable(beside, out, size) || usable(libexec, out, size)) {
            return true;
        }
    }
    snprintf(looked, looked_size, "%s%s%s%s%s", beside, beside[0] ? ", " : "", libexec,
             libexec[0] ? ", " : "", CROWD_IMPORT_HELPER_INSTALLED);
    return usable(CROWD_IMPORT_HELPER_INSTALLED, out, size);
}
