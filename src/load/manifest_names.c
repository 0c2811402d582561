/* The rule for the file names a manifest may use (manifest_io.h): the
 * reader checks every name a manifest gives, the writer the bake's name;
 * and the lookup of a file's check, which reader and loader share. */
#include <string.h>

#include "load/manifest_io.h"

bool crowd__manifest_valid_file_name(const char *name) {
    size_t length = strlen(name);
    if (length == 0 || length > MANIFEST_NAME_MAX || name[0] == '.') {
        return false;
    }
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c < 0x20 || c == 0x7f || c == '/' || c == '\\') {
            return false;
        }
    }
    return true;
}

const manifest_check *crowd__manifest_find_check(const manifest_info *info, const char *name) {
    for (uint32_t i = 0; i < info->check_count; i++) {
        if (strcmp(info->checks[i].name, name) == 0) {
            return &info->checks[i];
        }
    }
    return NULL;
}
