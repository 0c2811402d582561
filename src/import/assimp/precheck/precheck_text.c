/* precheck_text.c - declared counts of the text formats OFF and MD5 against
 * the bytes that could hold them.
 *
 * assimp 5.2 sizes its arrays from these counts before it reads a single
 * element: OFF's `new aiVector3D[numVertices]`, MD5's `resize(numverts)`,
 * `resize(index + 1)` on a "vert 4000000000" line and a `reserve` of
 * numAnimatedComponents floats per frame. Every element of these formats
 * is written as text, at least one digit and one separator per number, so
 * a count whose elements cannot fit in the file is a lie, and is rejected
 * before it costs gigabytes. */
#include <string.h>

#include "import/assimp/precheck/precheck.h"

/* Bytes the smallest number takes: one digit and one separator. */
#define TEXT_NUMBER_BYTES 2u

/* White space and '#' comment lines, as assimp's OFF reader skips them. */
static void off_next_token(const precheck_input *in, size_t *at) {
    crowd__precheck_skip_space(in, at);
    while (*at < in->size && in->bytes[*at] == '#') {
        while (*at < in->size && in->bytes[*at] != '\n' && in->bytes[*at] != '\r') {
            (*at)++;
        }
        crowd__precheck_skip_space(in, at);
    }
}

static bool match(const precheck_input *in, size_t *at, const char *token) {
    size_t length = strlen(token);
    if (in->size - *at < length || memcmp(in->bytes + *at, token, length) != 0) {
        return false;
    }
    *at += length;
    return true;
}

/* "[ST][C][N][4][n]OFF [dim] vertices faces edges": the optional letters
 * add per-vertex numbers (only the coordinates are required), "n" a
 * dimension; without "OFF" the counts follow the letters. A header that
 * is not this is left to assimp to reject. */
crowd_result crowd__precheck_off(const precheck_input *in) {
    size_t at = 0;
    off_next_token(in, &at);
    match(in, &at, "ST");
    match(in, &at, "C");
    match(in, &at, "N");
    bool homogeneous = match(in, &at, "4");
    bool has_dimension = match(in, &at, "n");
    if (!match(in, &at, "OFF")) {
        homogeneous = false; /* as assimp: no keyword, the counts follow the letters */
    }
    off_next_token(in, &at);
    uint64_t dimension = 3, vertices = 0, faces = 0, edges = 0;
    if ((has_dimension && !crowd__precheck_read_count(in, &at, &dimension)) || dimension > 3) {
        return CROWD_OK;
    }
    off_next_token(in, &at);
    if (!crowd__precheck_read_count(in, &at, &vertices)) {
        return CROWD_OK;
    }
    off_next_token(in, &at);
    if (!crowd__precheck_read_count(in, &at, &faces)) {
        return CROWD_OK;
    }
    off_next_token(in, &at);
    crowd__precheck_read_count(in, &at, &edges);
    off_next_token(in, &at);
    uint64_t coordinates = dimension + (homogeneous ? 1 : 0);
    uint64_t vertex_bytes = TEXT_NUMBER_BYTES * (coordinates > 0 ? coordinates : 1);
    /* A face: its index count and at least one index. */
    uint64_t face_bytes = 2 * TEXT_NUMBER_BYTES;
    uint64_t available = in->size - at + 1; /* the last line needs no line end */
    if (vertices > available / vertex_bytes || faces > available / face_bytes ||
        vertices * vertex_bytes + faces * face_bytes > available) {
        return crowd_error_set(in->error, CROWD_ERROR_INVALID_DATA, in->file,
                               "OFF header declares %llu vertices and %llu faces, more than the "
                               "%llu bytes after it can hold",
                               (unsigned long long)vertices, (unsigned long long)faces,
                               (unsigned long long)(in->size - at));
    }
    return CROWD_OK;
}

/* The first word of the line at `at` (after indentation) and the number
 * after it, if any. Moves `at` to the start of the next line. */
static bool md5_line(const precheck_input *in, size_t *at, const char **word, size_t *word_length,
                     uint64_t *number, bool *has_number) {
    while (*at < in->size && (in->bytes[*at] == ' ' || in->bytes[*at] == '\t')) {
        (*at)++;
    }
    size_t start = *at;
    while (*at < in->size && in->bytes[*at] > ' ') {
        (*at)++;
    }
    *word = (const char *)in->bytes + start;
    *word_length = *at - start;
    while (*at < in->size && (in->bytes[*at] == ' ' || in->bytes[*at] == '\t')) {
        (*at)++;
    }
    *has_number = crowd__precheck_read_count(in, at, number);
    while (*at < in->size && in->bytes[*at] != '\n') {
        (*at)++;
    }
    if (*at < in->size) {
        (*at)++;
    }
    return start < in->size;
}

static bool word_is(const char *word, size_t length, const char *name) {
    return strlen(name) == length && memcmp(word, name, length) == 0;
}

/* MD5 mesh and anim: every count and every element index ("vert 7 ...")
 * must fit in the file; the animated components, once per frame, too. */
crowd_result crowd__precheck_md5(const precheck_input *in) {
    static const char *const counted[] = {"numMeshes",
                                          "numJoints",
                                          "numverts",
                                          "numtris",
                                          "numweights",
                                          "numFrames",
                                          "numAnimatedComponents",
                                          "vert",
                                          "tri",
                                          "weight"};
    uint64_t limit = in->size / TEXT_NUMBER_BYTES, frames = 0, joints = 0, components = 0;
    size_t at = 0;
    const char *word;
    size_t length;
    uint64_t number;
    bool has_number;
    while (md5_line(in, &at, &word, &length, &number, &has_number)) {
        if (word_is(word, length, "frame")) {
            frames++;
        }
        if (!has_number) {
            continue;
        }
        for (size_t k = 0; k < sizeof counted / sizeof counted[0]; k++) {
            if (word_is(word, length, counted[k]) && number > limit) {
                return crowd_error_set(in->error, CROWD_ERROR_INVALID_DATA, in->file,
                                       "MD5 '%s %llu' is more than a %zu-byte file can hold",
                                       counted[k], (unsigned long long)number, in->size);
            }
        }
        if (word_is(word, length, "numJoints")) {
            joints = number;
        } else if (word_is(word, length, "numAnimatedComponents")) {
            components = number;
        }
    }
    /* assimp reserves 6 per joint in every frame (5.2 also reads
     * numAnimatedComponents into the wrong array): the larger counts. */
    uint64_t per_frame = components > joints * 6 ? components : joints * 6;
    if (frames > 0 && per_frame > limit / frames) {
        return crowd_error_set(in->error, CROWD_ERROR_INVALID_DATA, in->file,
                               "MD5 declares %llu animated components in each of %llu frames, more "
                               "than a %zu-byte file can hold",
                               (unsigned long long)per_frame, (unsigned long long)frames, in->size);
    }
    return CROWD_OK;
}
