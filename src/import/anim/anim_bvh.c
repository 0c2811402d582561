/* anim_bvh.c - BVH motion capture: a skeleton and its motion, no mesh.
 *
 * BVH (Biovision hierarchy) is text: HIERARCHY, then ROOT / JOINT blocks
 * with an OFFSET and CHANNELS (Xposition .. Zrotation, in any order), End
 * Site blocks (left out: nothing moves them), then MOTION with "Frames: N",
 * "Frame Time: T" and N lines of one number per channel. A joint's rest is
 * its OFFSET with no rotation; a frame's rotation is the product of its
 * rotation channels in the order they are listed (degrees), its
 * translation the OFFSET with the position channels' values in their
 * places. Keys are linear, one per frame, at k * T. The file is not
 * trusted: every count is checked against the numbers actually present,
 * every number must be finite, nesting and joints are bounded.
 *
 * The format has no mesh, which is why it is read here and not by the
 * importer: assimp's path refuses files without meshes (and would make up
 * a bone mesh otherwise).
 */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include <cglm/cglm.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core_internal.h"
#include "import/anim/anim_internal.h"
#include "import/scene/import_math.h"

#define BVH_MAX_FILE_BYTES ((size_t)256 << 20)
#define BVH_MAX_JOINTS 1024u
#define BVH_MAX_CHANNELS 6u

typedef struct bvh_joint {
    char name[64];
    int32_t parent;
    float offset[3];
    uint32_t channel_count;
    char channels[BVH_MAX_CHANNELS]; /* 'x', 'y', 'z' position; 'X', 'Y', 'Z' rotation */
} bvh_joint;

typedef struct bvh_reader {
    const char *path;
    crowd_error *error;
    char *text;
    char *at;
    uint32_t line;
    bvh_joint *joints;
    uint32_t joint_count;
    uint32_t channels; /* all joints' */
} bvh_reader;

static crowd_result fail(bvh_reader *r, const char *what) {
    return crowd_error_set(r->error, CROWD_ERROR_INVALID_DATA, r->path, "line %u: %s", r->line,
                           what);
}

/* The next white-space separated word (NULL at the end), counting lines. */
static const char *word(bvh_reader *r) {
    while (*r->at != '\0' && isspace((unsigned char)*r->at)) {
        r->line += *r->at == '\n';
        r->at++;
    }
    if (*r->at == '\0') {
        return NULL;
    }
    const char *start = r->at;
    while (*r->at != '\0' && !isspace((unsigned char)*r->at)) {
        r->at++;
    }
    if (*r->at != '\0') {
        r->line += *r->at == '\n';
        *r->at++ = '\0';
    }
    return start;
}

static bool expect(bvh_reader *r, const char *keyword) {
    const char *w = word(r);
    return w != NULL && strcasecmp(w, keyword) == 0;
}

static bool number(bvh_reader *r, float *out) {
    const char *w = word(r);
    char *end = NULL;
    if (w == NULL) {
        return false;
    }
    *out = strtof(w, &end);
    return end != w && *end == '\0' && isfinite(*out);
}

static crowd_result read_channels(bvh_reader *r, bvh_joint *joint) {
    float count = 0.0f;
    if (!expect(r, "CHANNELS") || !number(r, &count) || count != floorf(count) || count < 0.0f ||
        count > (float)BVH_MAX_CHANNELS) {
        return fail(r, "CHANNELS with a count from 0 to 6 expected");
    }
    joint->channel_count = (uint32_t)count;
    for (uint32_t c = 0; c < joint->channel_count; c++) {
        const char *w = word(r);
        if (w == NULL || strlen(w) != 9 || (w[0] != 'X' && w[0] != 'Y' && w[0] != 'Z') ||
            (strcasecmp(w + 1, "position") != 0 && strcasecmp(w + 1, "rotation") != 0)) {
            return fail(r, "a channel is not Xposition .. Zrotation");
        }
        joint->channels[c] =
            (char)(tolower((unsigned char)w[1]) == 'p' ? tolower((unsigned char)w[0]) : w[0]);
    }
    r->channels += joint->channel_count;
    return CROWD_OK;
}

/* HIERARCHY: ROOT/JOINT blocks nest; a stack of open joints replaces
 * recursion (End Site blocks push -2, which closes without a joint). */
static crowd_result read_hierarchy(bvh_reader *r) {
    if (!expect(r, "HIERARCHY")) {
        return fail(r, "not a BVH file (no HIERARCHY)");
    }
    int32_t stack[BVH_MAX_JOINTS + 2];
    uint32_t depth = 0;
    for (const char *w = word(r); w != NULL; w = word(r)) {
        if (strcasecmp(w, "MOTION") == 0 && depth == 0) {
            return r->joint_count > 0 ? CROWD_OK : fail(r, "no joints before MOTION");
        }
        bool joint = strcasecmp(w, "ROOT") == 0 || strcasecmp(w, "JOINT") == 0;
        if (strcmp(w, "}") == 0 && depth > 0) {
            depth--;
        } else if (joint && (depth > 0) == (strcasecmp(w, "JOINT") == 0)) {
            if (r->joint_count == BVH_MAX_JOINTS || depth > BVH_MAX_JOINTS) {
                return crowd_error_set(r->error, CROWD_ERROR_LIMIT, r->path, "more than %u joints",
                                       BVH_MAX_JOINTS);
            }
            bvh_joint *j = &r->joints[r->joint_count];
            const char *name = word(r);
            if (name == NULL || !expect(r, "{") || !expect(r, "OFFSET") ||
                !number(r, &j->offset[0]) || !number(r, &j->offset[1]) ||
                !number(r, &j->offset[2])) {
                return fail(r, "a joint without a name, '{' and an OFFSET of 3 numbers");
            }
            snprintf(j->name, sizeof j->name, "%s", name);
            j->parent = depth > 0 ? stack[depth - 1] : -1;
            if (depth > 0 && j->parent < 0) {
                return fail(r, "a joint inside an End Site");
            }
            crowd_result result = read_channels(r, j);
            if (result != CROWD_OK) {
                return result;
            }
            stack[depth++] = (int32_t)r->joint_count++;
        } else if (strcasecmp(w, "End") == 0 && depth > 0 && depth <= BVH_MAX_JOINTS) {
            float ignored[3];
            if (!expect(r, "Site") || !expect(r, "{") || !expect(r, "OFFSET") ||
                !number(r, &ignored[0]) || !number(r, &ignored[1]) || !number(r, &ignored[2])) {
                return fail(r, "End Site without '{' and an OFFSET of 3 numbers");
            }
            stack[depth++] = -2;
        } else {
            return fail(r, "expected ROOT, JOINT, End Site, '}' or MOTION");
        }
    }
    return fail(r, "the file ends before MOTION");
}

/* The rotation of channels `c` of one frame (degrees) as a quaternion. */
static void frame_rotation(const bvh_joint *joint, const float *values, float q[4]) {
    glm_quat_identity(q);
    for (uint32_t c = 0; c < joint->channel_count; c++) {
        char axis = joint->channels[c];
        if (axis != 'X' && axis != 'Y' && axis != 'Z') {
            continue;
        }
        vec3 v = {axis == 'X', axis == 'Y', axis == 'Z'};
        versor turn, product;
        glm_quatv(turn, glm_rad(values[c]), v);
        glm_quat_mul(q, turn, product);
        glm_quat_copy(product, q);
    }
    glm_quat_normalize(q);
}

static bool has_channel(const bvh_joint *joint, bool rotation) {
    for (uint32_t c = 0; c < joint->channel_count; c++) {
        if (rotation == (joint->channels[c] >= 'X' && joint->channels[c] <= 'Z')) {
            return true;
        }
    }
    return false;
}

static crowd_result allocate_tracks(crowd_clip *clip, const bvh_reader *r, uint32_t frames) {
    for (uint32_t j = 0; j < r->joint_count; j++) {
        crowd_track *tracks[2] = {&clip->tracks[j].rotation, &clip->tracks[j].translation};
        for (int t = 0; t < 2; t++) {
            if (!has_channel(&r->joints[j], t == 0)) {
                continue;
            }
            tracks[t]->interpolation = CROWD_INTERP_LINEAR;
            tracks[t]->key_count = frames;
            tracks[t]->times_s = malloc(((size_t)frames + 1) * sizeof(float));
            tracks[t]->values = malloc(((size_t)frames * (t == 0 ? 4 : 3) + 1) * sizeof(float));
            if (tracks[t]->times_s == NULL || tracks[t]->values == NULL) {
                return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->path,
                                       "out of memory");
            }
        }
    }
    return CROWD_OK;
}

static crowd_result read_motion(bvh_reader *r, crowd_clip *clip) {
    float frames = 0.0f, frame_time = 0.0f;
    if (!expect(r, "Frames:") || !number(r, &frames) || frames != floorf(frames) || frames < 1.0f ||
        !expect(r, "Frame") || !expect(r, "Time:") || !number(r, &frame_time) ||
        !(frame_time > 0.0f)) {
        return fail(r, "MOTION without 'Frames: N' (N >= 1) and 'Frame Time: T' (T > 0)");
    }
    /* Each value takes two bytes at least: a digit and a separator. */
    if ((double)frames * r->channels > (double)strlen(r->at) / 2.0 + 1.0) {
        return fail(r, "more frames declared than the file holds");
    }
    uint32_t count = (uint32_t)frames;
    crowd_result result = allocate_tracks(clip, r, count);
    float values[BVH_MAX_CHANNELS];
    for (uint32_t k = 0; k < count && result == CROWD_OK; k++) {
        for (uint32_t j = 0; j < r->joint_count && result == CROWD_OK; j++) {
            const bvh_joint *joint = &r->joints[j];
            for (uint32_t c = 0; c < joint->channel_count; c++) {
                if (!number(r, &values[c])) {
                    return fail(r, "a frame value is missing or not a finite number");
                }
            }
            float time_s = (float)k * frame_time;
            crowd_joint_tracks *tracks = &clip->tracks[j];
            if (tracks->rotation.key_count > 0) {
                tracks->rotation.times_s[k] = time_s;
                frame_rotation(joint, values, &tracks->rotation.values[4 * k]);
            }
            if (tracks->translation.key_count > 0) {
                float *t = &tracks->translation.values[3 * k];
                memcpy(t, joint->offset, 3 * sizeof *t);
                for (uint32_t c = 0; c < joint->channel_count; c++) {
                    char axis = joint->channels[c];
                    if (axis >= 'x' && axis <= 'z') {
                        t[axis - 'x'] = values[c];
                    }
                }
                tracks->translation.times_s[k] = time_s;
            }
        }
    }
    clip->duration_s = (float)(count - 1) * frame_time;
    return result;
}

static crowd_result build_skeleton(bvh_reader *r, crowd_asset *asset) {
    crowd_skeleton *sk = &asset->skeleton;
    uint32_t n = r->joint_count;
    if (!crowd__core_skeleton_allocate(sk, n)) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->path, "out of memory");
    }
    static const float unit[4] = {0, 0, 0, 1}, one[3] = {1, 1, 1};
    for (uint32_t j = 0; j < n; j++) {
        sk->names[j] = crowd__core_copy_string(r->joints[j].name);
        if (sk->names[j] == NULL) {
            return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->path, "out of memory");
        }
        sk->parents[j] = r->joints[j].parent;
        memcpy(&sk->rest_translation[3 * j], r->joints[j].offset, 3 * sizeof(float));
        memcpy(&sk->rest_rotation[4 * j], unit, sizeof unit);
        memcpy(&sk->rest_scale[3 * j], one, sizeof one);
        crowd__import_m4_identity(&sk->inverse_bind[16 * j]);
    }
    return CROWD_OK;
}

/* Name without folder and extension: "mocap/01_01.bvh" -> "01_01". */
static char *stem(const char *path) {
    const char *slash = strrchr(path, '/');
    char *name = crowd__core_copy_string(slash ? slash + 1 : path);
    char *dot = name ? strrchr(name, '.') : NULL;
    if (dot != NULL && dot != name) {
        *dot = '\0';
    }
    return name;
}

static crowd_result read_asset(bvh_reader *r, crowd_asset *asset) {
    crowd_result result = read_hierarchy(r);
    if (result == CROWD_OK) {
        result = build_skeleton(r, asset);
    }
    if (result != CROWD_OK) {
        return result;
    }
    asset->name = stem(r->path);
    asset->source = crowd__core_copy_string(r->path);
    asset->clips = calloc(1, sizeof *asset->clips);
    if (asset->name == NULL || asset->source == NULL || asset->clips == NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->path, "out of memory");
    }
    asset->clip_count = 1;
    crowd_clip *clip = &asset->clips[0];
    clip->name = crowd__core_copy_string(asset->name);
    clip->tracks = calloc(r->joint_count, sizeof *clip->tracks);
    if (clip->name == NULL || clip->tracks == NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->path, "out of memory");
    }
    result = read_motion(r, clip);
    return result == CROWD_OK
               ? crowd__anim_clip_decide_loop(&asset->skeleton, clip, r->path, r->error)
               : result;
}

crowd_result crowd__anim_bvh_parse(const void *bytes, size_t size, const char *name,
                                   const crowd_logger *logger, crowd_asset **out,
                                   crowd_error *error) {
    *out = NULL;
    bvh_reader r;
    memset(&r, 0, sizeof r);
    r.path = name;
    r.error = error;
    r.line = 1;
    /* A private copy, NUL-terminated: the reader cuts it into words. */
    char *text = malloc(size + 1);
    r.joints = calloc(BVH_MAX_JOINTS, sizeof *r.joints);
    crowd_asset *asset = crowd_asset_create();
    crowd_result result = CROWD_OK;
    if (text == NULL || r.joints == NULL || asset == NULL) {
        result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, name, "out of memory");
    } else if (memchr(bytes, '\0', size) != NULL) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_DATA, name, "contains a NUL byte");
    } else {
        memcpy(text, bytes, size);
        text[size] = '\0';
        r.text = r.at = text;
        asset->unit_scale = 1.0f;
        result = read_asset(&r, asset);
    }
    free(text);
    free(r.joints);
    if (result != CROWD_OK) {
        crowd_asset_destroy(asset);
        return result;
    }
    crowd_log(logger, CROWD_LOG_INFO, "%s: BVH: %u joints, %u frames, %g s", name,
              asset->skeleton.joint_count, asset->clips[0].tracks[0].rotation.key_count,
              (double)asset->clips[0].duration_s);
    *out = asset;
    return CROWD_OK;
}

crowd_result crowd__anim_bvh_read(const char *path, const crowd_logger *logger, crowd_asset **out,
                                  crowd_error *error) {
    *out = NULL;
    uint8_t *bytes = NULL;
    size_t size = 0;
    crowd_result result = crowd__core_file_read(path, BVH_MAX_FILE_BYTES, &bytes, &size, error);
    if (result == CROWD_OK) {
        result = crowd__anim_bvh_parse(bytes, size, path, logger, out, error);
    }
    free(bytes);
    return result;
}
