/* core_copy_string (core_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"

char *core_copy_string(const char *text) {
    size_t length = strlen(text) + 1;
    char *copy = malloc(length);
    if (copy != NULL) {
        memcpy(copy, text, length);
    }
    return copy;
}
