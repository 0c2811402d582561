/* anim_names.c - clip names made unique, joint names compared across files
 * (namespaces, case) and read as humanoid parts. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "import/anim/anim_internal.h"

static bool taken(const crowd_asset *asset, uint32_t before, const char *name) {
    for (uint32_t c = 0; c < before; c++) {
        if (strcmp(asset->clips[c].name, name) == 0) {
            return true;
        }
    }
    return false;
}

crowd_result crowd__anim_clip_names_unique(crowd_asset *asset, uint32_t first,
                                           const crowd_logger *logger, const char *file,
                                           crowd_error *error) {
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

const char *crowd__anim_name_stem(const char *name) {
    const char *stem = name;
    for (const char *c = name; *c != '\0'; c++) {
        if ((*c == ':' || *c == '|') && c[1] != '\0') {
            stem = c + 1;
        }
    }
    return stem;
}

bool crowd__anim_names_match(const char *a, const char *b) {
    const char *x = crowd__anim_name_stem(a), *y = crowd__anim_name_stem(b);
    for (; *x != '\0' && *y != '\0'; x++, y++) {
        if (tolower((unsigned char)*x) != tolower((unsigned char)*y)) {
            return false;
        }
    }
    return *x == *y;
}

/* Humanoid parts and how rigs spell them, lowercase without separators:
 * '#' stands for the side's word (left, right), '@' for its letter (l, r).
 * A name matches a pattern for one side; parts without side have neither. */
typedef struct humanoid_part {
    const char *patterns[8];
} humanoid_part;

static const humanoid_part humanoid_parts[] = {
    {{"hips", "pelvis"}},
    {{"spine", "lowerback", "abdomen", "ab"}},
    {{"neck"}},
    {{"head"}},
    {{"#shoulder", "shoulder@", "@shoulder", "#collar", "#clavicle", "clavicle@"}},
    {{"#arm", "#upperarm", "upperarm@", "@upperarm", "uparm@"}},
    {{"#forearm", "forearm@", "#lowerarm", "lowerarm@", "@forearm", "#elbow"}},
    {{"#hand", "hand@", "@hand", "#wrist"}},
    {{"#upleg", "upleg@", "#upperleg", "upperleg@", "#thigh", "thigh@", "#hip", "hip@"}},
    {{"#leg", "#lowerleg", "lowerleg@", "#shin", "shin@", "calf@", "#knee"}},
    {{"#foot", "foot@", "@foot", "#ankle"}},
    {{"#toebase", "#toe", "#toes", "toe@", "toes@"}},
};

/* `name` (normalized) spelled as `pattern` for `side` (0 left, 1 right). */
static bool spelled(const char *name, const char *pattern, int side) {
    static const char *const words[2] = {"left", "right"};
    static const char letters[2] = {'l', 'r'};
    for (; *pattern != '\0'; pattern++) {
        if (*pattern == '#') {
            size_t length = strlen(words[side]);
            if (strncmp(name, words[side], length) != 0) {
                return false;
            }
            name += length;
        } else if (*(pattern) == '@' ? *name++ != letters[side] : *name++ != *pattern) {
            return false;
        }
    }
    return *name == '\0';
}

int crowd__anim_humanoid_role(const char *name) {
    char normal[64];
    size_t n = 0;
    for (const char *c = crowd__anim_name_stem(name); *c != '\0' && n + 1 < sizeof normal; c++) {
        if (*c != '_' && *c != '.' && *c != '-' && *c != ' ') {
            normal[n++] = (char)tolower((unsigned char)*c);
        }
    }
    normal[n] = '\0';
    for (size_t part = 0; part < sizeof humanoid_parts / sizeof *humanoid_parts; part++) {
        for (size_t p = 0; p < 8 && humanoid_parts[part].patterns[p] != NULL; p++) {
            const char *pattern = humanoid_parts[part].patterns[p];
            bool sided = strpbrk(pattern, "#@") != NULL;
            for (int side = 0; side < (sided ? 2 : 1); side++) {
                if (spelled(normal, pattern, side)) {
                    return (int)(3 * part + (sided ? 1 + side : 0) + 1);
                }
            }
        }
    }
    return 0;
}
