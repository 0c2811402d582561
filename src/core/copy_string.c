/* crowd__core_copy_string(_with) and crowd__core_path_folder (core_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"

char *crowd__core_copy_string(const char *text) {
    return crowd__core_copy_string_with(NULL, text);
}

char *crowd__core_copy_string_with(const crowd_allocator *allocator, const char *text) {
    size_t length = strlen(text) + 1;
    char *copy = crowd__mem_alloc(allocator, length);
    if (copy != NULL) {
        memcpy(copy, text, length);
    }
    return copy;
}

char *crowd__core_path_folder(const char *path) {
    size_t length = strlen(path);
    char *folder = malloc(length + 2); /* room for "." after an empty path */
    if (folder == NULL) {
        return NULL;
    }
    memcpy(folder, path, length + 1);
    char *slash = strrchr(folder, '/');
    if (slash == NULL) {
        strcpy(folder, ".");
    } else {
        slash[slash == folder] = '\0'; /* "/robot.glb" keeps "/" */
    }
    return folder;
}
