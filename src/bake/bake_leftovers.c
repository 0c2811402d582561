/* Generations and leftovers of a bake's files (bake_leftovers.h). */
#define _XOPEN_SOURCE 700

#include "bake/bake_leftovers.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core_internal.h"

/* What follows NAME (or NAME.<generation>) in the files of a bake: in the
 * bake folder, and in its OpenVAT folder (OpenVAT's own suffixes). */
static const char *const folder_kinds[] = {
    ".vat.png",     ".vat.exr",  ".vat_normal.exr", ".bat.exr",
    ".sockets.exr", ".mesh.glb", ".anim.bin",       NULL};
static const char *const openvat_kinds[] = {"-remap_info.json", "_vat.png", ".glb", NULL};

static bool is_kind(const char *rest, const char *const *kinds) {
    for (int i = 0; kinds[i] != NULL; i++) {
        if (strcmp(rest, kinds[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* The generation of `entry` when it is NAME.<generation><kind>, else 0.
 * Generations are written without leading zeros, so each has one name. */
static uint32_t generation_of(const char *entry, const char *name, const char *const *kinds) {
    size_t length = strlen(name);
    if (strncmp(entry, name, length) != 0 || entry[length] != '.') {
        return 0;
    }
    const char *p = entry + length + 1;
    uint64_t value = 0;
    int digits = 0;
    while (p[digits] >= '0' && p[digits] <= '9' && digits < 10) {
        value = value * 10 + (uint64_t)(p[digits] - '0');
        digits++;
    }
    if (digits == 0 || p[0] == '0' || value > BAKE_GENERATION_MAX || !is_kind(p + digits, kinds)) {
        return 0;
    }
    return (uint32_t)value;
}

/* A name of `name`'s bake without a generation: the manifest, or a data
 * file as bakes before manifest version 3 named them. */
static bool plain_of(const char *entry, const char *name, const char *const *kinds) {
    size_t length = strlen(name);
    return strncmp(entry, name, length) == 0 &&
           (is_kind(entry + length, kinds) ||
            (kinds == folder_kinds && strcmp(entry + length, MANIFEST_SUFFIX) == 0));
}

static bool all_digits(const char *p, const char *end) {
    if (p == end) {
        return false;
    }
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') {
            return false;
        }
    }
    return true;
}

/* ".FILE.tmp-PID-N" or ".FILE.bak-PID[-N]" (atomic_set.c) of a file of
 * `name`; FILE into `file`. */
static bool temporary_of(const char *entry, const char *name, const char *const *kinds, char *file,
                         size_t file_size) {
    if (entry[0] != '.') {
        return false;
    }
    const char *marker = NULL;
    for (const char *p = strstr(entry, ".tmp-"); p != NULL; p = strstr(p + 1, ".tmp-")) {
        marker = p;
    }
    for (const char *p = strstr(entry, ".bak-"); p != NULL; p = strstr(p + 1, ".bak-")) {
        marker = marker == NULL || p > marker ? p : marker;
    }
    if (marker == NULL || (size_t)(marker - entry) >= file_size) {
        return false;
    }
    const char *tail = marker + 5, *dash = strchr(tail, '-');
    bool counted =
        dash != NULL && all_digits(tail, dash) && all_digits(dash + 1, dash + strlen(dash));
    if (!counted && !all_digits(tail, tail + strlen(tail))) {
        return false;
    }
    snprintf(file, file_size, "%.*s", (int)(marker - entry - 1), entry + 1);
    return generation_of(file, name, kinds) != 0 || plain_of(file, name, kinds);
}

/* NAME.<g>.vat.png is also what a bake called "NAME.<g>" wrote before
 * version 3: with that bake's manifest beside it, it is not ours. */
static bool other_bake(const char *dir, const char *name, uint32_t generation) {
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s.%u%s", dir, name, generation, MANIFEST_SUFFIX);
    return stat(path, &st) == 0;
}

crowd_result crowd__bake_leftovers_next_generation(const char *dir, const char *name,
                                                   uint32_t *out_generation, crowd_error *error) {
    uint32_t highest = 0;
    for (int pass = 0; pass < 2; pass++) {
        char folder[4200];
        snprintf(folder, sizeof folder, pass == 0 ? "%s" : "%s/" MANIFEST_OPENVAT_FOLDER, dir);
        DIR *handle = opendir(folder);
        if (handle == NULL) {
            if (errno == ENOENT || errno == ENOTDIR) {
                continue; /* nothing there yet; crowd__atomic_set_begin says what is wrong */
            }
            return crowd__core_system_error(error, CROWD_ERROR_OUTPUT, folder, "cannot list folder",
                                            errno);
        }
        const struct dirent *entry;
        while ((entry = readdir(handle)) != NULL) {
            uint32_t g =
                generation_of(entry->d_name, name, pass == 0 ? folder_kinds : openvat_kinds);
            highest = g > highest && !other_bake(dir, name, g) ? g : highest;
        }
        closedir(handle);
    }
    if (highest >= BAKE_GENERATION_MAX) {
        return crowd_error_set(error, CROWD_ERROR_OUTPUT, dir,
                               "holds generation %u of \"%s\", the last there can be; bake into "
                               "an empty folder",
                               highest, name);
    }
    *out_generation = highest + 1;
    return CROWD_OK;
}

static bool kept(const char *relative, const manifest_check *keep, uint32_t keep_count) {
    for (uint32_t i = 0; i < keep_count; i++) {
        if (strcmp(relative, keep[i].name) == 0) {
            return true;
        }
    }
    return false;
}

uint32_t crowd__bake_leftovers_remove(const char *dir, const char *name, const manifest_check *keep,
                                      uint32_t keep_count) {
    uint32_t removed = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *const *kinds = pass == 0 ? folder_kinds : openvat_kinds;
        char folder[4200];
        snprintf(folder, sizeof folder, pass == 0 ? "%s" : "%s/" MANIFEST_OPENVAT_FOLDER, dir);
        DIR *handle = opendir(folder);
        if (handle == NULL) {
            continue;
        }
        uint32_t removed_here = 0;
        const struct dirent *entry;
        while ((entry = readdir(handle)) != NULL) {
            char file[MANIFEST_NAME_MAX + 64], relative[MANIFEST_NAME_MAX + 300];
            uint32_t g = generation_of(entry->d_name, name, kinds);
            bool temporary = g == 0 && temporary_of(entry->d_name, name, kinds, file, sizeof file);
            if (temporary) {
                g = generation_of(file, name, kinds);
            }
            snprintf(relative, sizeof relative, pass == 0 ? "%s" : MANIFEST_OPENVAT_FOLDER "/%s",
                     entry->d_name);
            if ((g == 0 && !temporary) || (g != 0 && other_bake(dir, name, g)) ||
                kept(relative, keep, keep_count)) {
                continue;
            }
            char path[4500];
            snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
            struct stat st;
            if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) == 0) {
                removed_here++;
            }
        }
        closedir(handle);
        if (pass == 1 && removed_here > 0) {
            rmdir(folder); /* fails, harmlessly, unless the leftovers were all it held */
        }
        removed += removed_here;
    }
    return removed;
}
