/* anim_add.c - crowd_asset_add_clips: read an animation file, match its
 * joints to the character's (anim_match.c), turn its keys into the
 * character's (anim_retarget.c), append the clips with unique names, and
 * say what happened. The character is only touched once every clip is
 * built. */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core_internal.h"
#include "crowd/import.h"
#include "import/anim/anim_internal.h"
#include "import/import_run.h"

static bool has_extension(const char *path, const char *ext) {
    const char *dot = strrchr(path, '.');
    return dot != NULL && strcasecmp(dot + 1, ext) == 0;
}

/* The file's skeleton and clips: BVH here, anything else as a file of
 * clips (import_run.h: glTF by crowd's reader, the rest through assimp),
 * no mesh needed. */
static crowd_result read_file(const char *path, const crowd_anim_import_desc *desc,
                              crowd_asset **out, crowd_error *error) {
    if (has_extension(path, "bvh")) {
        return crowd__anim_bvh_read(path, &desc->logger, out, error);
    }
    crowd_import_desc import = desc->import ? *desc->import : (crowd_import_desc){0};
    if (desc->import == NULL) {
        import.logger = desc->logger;
    }
    return crowd__import_clips_file(path, &import, out, error);
}

static char *copy_or_null(const char *text, bool *ok) {
    char *copy = text ? crowd__core_copy_string(text) : NULL;
    *ok = *ok && (text == NULL || copy != NULL);
    return copy;
}

static crowd_result fill_report(const crowd_asset *character, const crowd_asset *file,
                                const anim_match *match, const anim_retarget *plan, uint32_t first,
                                crowd_anim_report *out, const char *path, crowd_error *error) {
    uint32_t n = character->skeleton.joint_count, added = character->clip_count - first;
    out->clips_added = added;
    out->joint_count = n;
    out->clip_names = calloc((size_t)added + 1, sizeof(char *));
    out->clip_file_names = calloc((size_t)added + 1, sizeof(char *));
    out->matched = calloc((size_t)n + 1, sizeof(char *));
    out->matched_by_role = calloc((size_t)n + 1, sizeof(bool));
    out->unmatched = calloc((size_t)file->skeleton.joint_count + 1, sizeof(char *));
    bool ok = out->clip_names && out->clip_file_names && out->matched && out->matched_by_role &&
              out->unmatched;
    for (uint32_t c = 0; ok && c < added; c++) {
        out->clip_names[c] = copy_or_null(character->clips[first + c].name, &ok);
        out->clip_file_names[c] = copy_or_null(file->clips[c].name, &ok);
        out->clips_renamed += strcmp(file->clips[c].name, character->clips[first + c].name) != 0;
    }
    bool *used = calloc((size_t)file->skeleton.joint_count + 1, sizeof *used);
    ok = ok && used != NULL;
    for (uint32_t j = 0; ok && j < n; j++) {
        int32_t f = match->source[j];
        if (f >= 0) {
            out->matched[j] = copy_or_null(file->skeleton.names[f], &ok);
            out->matched_by_role[j] = match->by_role[j];
            used[f] = true;
        }
    }
    for (uint32_t f = 0; ok && f < file->skeleton.joint_count; f++) {
        if (!used[f]) {
            out->unmatched[out->unmatched_count++] = copy_or_null(file->skeleton.names[f], &ok);
        }
    }
    free(used);
    out->joints_matched = match->matched;
    out->joints_by_role = match->by_role_count;
    out->joints_retargeted = plan->retargeted;
    out->root_joint = plan->root;
    out->root_scale = plan->root_scale;
    return ok ? CROWD_OK : crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
}

/* The retargeted clips appended to the character (its clips array grown). */
static crowd_result append_clips(crowd_asset *character, const crowd_asset *file,
                                 const anim_retarget *plan, const char *path, crowd_error *error) {
    uint32_t old = character->clip_count, total = old + file->clip_count;
    crowd_clip *clips = calloc(total, sizeof *clips);
    if (clips == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    crowd_result result = CROWD_OK;
    uint32_t made = 0;
    for (; made < file->clip_count && result == CROWD_OK; made++) {
        result = crowd__anim_retarget_clip(plan, &file->skeleton, &file->clips[made],
                                           &clips[old + made], path, error);
    }
    if (result != CROWD_OK) {
        for (uint32_t c = 0; c < made; c++) {
            crowd__anim_clip_release(&clips[old + c], plan->joint_count);
        }
        free(clips);
        return result;
    }
    if (old > 0) {
        memcpy(clips, character->clips, old * sizeof *clips);
    }
    free(character->clips);
    character->clips = clips;
    character->clip_count = total;
    return CROWD_OK;
}

static crowd_result add_from(crowd_asset *character, const crowd_asset *file, const char *path,
                             const crowd_anim_import_desc *desc, crowd_anim_report *out,
                             crowd_error *error) {
    if (file->clip_count == 0) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, path,
                               "holds no animation (no clip to add)");
    }
    anim_match match;
    crowd_result result =
        crowd__anim_match_joints(&character->skeleton, &file->skeleton, &match, path, error);
    if (result == CROWD_OK && match.matched == 0) {
        result = crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, path,
                                 "no joint of its %u matches one of the character's %u (first: "
                                 "'%s' and '%s')",
                                 file->skeleton.joint_count, character->skeleton.joint_count,
                                 file->skeleton.names[0], character->skeleton.names[0]);
    }
    anim_retarget plan = {0};
    if (result == CROWD_OK) {
        result = crowd__anim_retarget_plan(&character->skeleton, &file->skeleton, &match,
                                           desc->root_scale, &plan, path, error);
    }
    uint32_t first = character->clip_count, renamed = character->repairs.clips_renamed;
    if (result == CROWD_OK) {
        result = append_clips(character, file, &plan, path, error);
    }
    if (result == CROWD_OK) {
        result = crowd__anim_clip_names_unique(character, first, &desc->logger, path, error);
    }
    crowd_error invalid;
    if (result == CROWD_OK && crowd_asset_validate(character, &invalid) != CROWD_OK) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path, "%s", invalid.reason);
    }
    /* What was appended goes again: the character stays as it was. */
    for (uint32_t c = first; result != CROWD_OK && c < character->clip_count; c++) {
        crowd__anim_clip_release(&character->clips[c], character->skeleton.joint_count);
    }
    if (result != CROWD_OK && character->clip_count > first) {
        character->repairs.clips_renamed = renamed;
        character->clip_count = first;
    }
    if (result == CROWD_OK && out != NULL) {
        result = fill_report(character, file, &match, &plan, first, out, path, error);
    }
    crowd__anim_retarget_free(&plan);
    crowd__anim_match_free(&match);
    return result;
}

crowd_result crowd_asset_add_clips(crowd_asset *character, const char *path,
                                   const crowd_anim_import_desc *desc, crowd_anim_report *out,
                                   crowd_error *error) {
    static const crowd_anim_import_desc defaults;
    if (out != NULL) {
        memset(out, 0, sizeof *out);
        out->root_joint = -1;
    }
    if (character == NULL || path == NULL || character->skeleton.joint_count == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, path,
                               "crowd_asset_add_clips: a character with a skeleton and a path "
                               "are needed");
    }
    desc = desc ? desc : &defaults;
    crowd_asset *file = NULL;
    crowd_result result = read_file(path, desc, &file, error);
    if (result == CROWD_OK) {
        result = add_from(character, file, path, desc, out, error);
    }
    crowd_asset_destroy(file);
    if (result != CROWD_OK && out != NULL) {
        crowd_anim_report_free(out);
    }
    return result;
}

void crowd_anim_report_free(crowd_anim_report *report) {
    if (report == NULL) {
        return;
    }
    for (uint32_t c = 0; report->clip_names && c < report->clips_added; c++) {
        free(report->clip_names[c]);
        free(report->clip_file_names[c]);
    }
    for (uint32_t j = 0; report->matched && j < report->joint_count; j++) {
        free(report->matched[j]);
    }
    for (uint32_t f = 0; report->unmatched && f < report->unmatched_count; f++) {
        free(report->unmatched[f]);
    }
    free(report->clip_names);
    free(report->clip_file_names);
    free(report->matched);
    free(report->matched_by_role);
    free(report->unmatched);
    memset(report, 0, sizeof *report);
    report->root_joint = -1;
}
