/* System errors with the errno name (core_internal.h). */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/core_internal.h"

const char *crowd__core_errno_name(int errnum, char buffer[16]) {
    static const struct {
        int value;
        const char *name;
    } names[] = {
        {ENOSPC, "ENOSPC"},
        {EFBIG, "EFBIG"},
        {EACCES, "EACCES"},
        {EPERM, "EPERM"},
        {EROFS, "EROFS"},
        {EDQUOT, "EDQUOT"},
        {EIO, "EIO"},
        {ENOENT, "ENOENT"},
        {ENOTDIR, "ENOTDIR"},
        {EISDIR, "EISDIR"},
        {EEXIST, "EEXIST"},
        {ENAMETOOLONG, "ENAMETOOLONG"},
        {EMFILE, "EMFILE"},
        {ENFILE, "ENFILE"},
        {ENOMEM, "ENOMEM"},
        {EXDEV, "EXDEV"},
        {ELOOP, "ELOOP"},
        {EBUSY, "EBUSY"},
        {ENOTEMPTY, "ENOTEMPTY"},
        {EINVAL, "EINVAL"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i].value == errnum) {
            return names[i].name;
        }
    }
    snprintf(buffer, 16, "errno %d", errnum);
    return buffer;
}

crowd_result crowd__core_system_error(crowd_error *error, crowd_result result, const char *path,
                                      const char *what, int errnum) {
    char name[16];
    return crowd_error_set(error, result, path, "%s: %s (%s)", what, strerror(errnum),
                           crowd__core_errno_name(errnum, name));
}
