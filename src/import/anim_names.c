/* anim_names.c - clip names made unique, joint names compared across files. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "import/anim_internal.h"

static bool taken(const crowd_asset *asset, uint32_t before, const char *name) {
    for (uint32_t c = 0; c < before; c++) {
        if (strcmp(asset->clips[c].name, name) == 0) {
            return true;
        }
    }
    return false;
}

crowd_result anim_clip_names_unique(crowd_asset *asset, uint32_t first, const crowd_logger *logger,
                                    const char *file, crowd_error *error) {
    for (uint32_t c = first; c < asset->clip_count; c++) {
        crowd_clip *clip = &asset->clips[c];
        if (clip->name[0] != '\0' && !taken(asset, c, clip->name)) {
            continue;
        }
        const char *stem = clip->name[0] != '\0' ? clip->name : "clip";
        size_t size = strlen(stem) + 16;
        char *name = malloc(size);
        if (name == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
        }
        /* Free among every clip, the later ones too, so no rename collides. */
        for (uint32_t n = c;; n++) {
            snprintf(name, size, "%s_%u", stem, n);
            if (!taken(asset, asset->clip_count, name)) {
                break;
            }
        }
        crowd_log(logger, CROWD_LOG_INFO, "%s: clip %u '%s' renamed to '%s'", file, c, clip->name,
                  name);
        free(clip->name);
        clip->name = name;
        asset->repairs.clips_renamed++;
    }
    return CROWD_OK;
}

const char *anim_name_stem(const char *name) {
    const char *stem = name;
    for (const char *c = name; *c != '\0'; c++) {
        if ((*c == ':' || *c == '|') && c[1] != '\0') {
            stem = c + 1;
        }
    }
    return stem;
}

bool anim_names_match(const char *a, const char *b) {
    const char *x = anim_name_stem(a), *y = anim_name_stem(b);
    for (; *x != '\0' && *y != '\0'; x++, y++) {
        if (tolower((unsigned char)*x) != tolower((unsigned char)*y)) {
            return false;
        }
    }
    return *x == *y;
}
