/* precheck_smd.c - Valve SMD text read the way assimp 5.2's SMD reader
 * walks it, to find what makes that reader loop forever or allocate
 * without bound:
 * - its "nodes" section ends only at a line starting with "end": without
 *   one the reader never returns (at the end of the text it stops
 *   advancing), and an "end" that is the file's last byte has it step
 *   past the end of its buffer;
 * - a node's index resizes the bone array to index + 1;
 * - a triangle vertex's bone-link count resizes its link array before the
 *   links are read: it cannot exceed what the rest of its line can hold;
 * - a form feed where a triangle starts stops it advancing, forever.
 * Text with a NUL byte is rejected outright: the reader's C-string parsing
 * would stop or skip there, and no SMD contains one. The walk mirrors the
 * reader's own (assimp's ParsingUtils): spaces and tabs, line ends, and
 * keywords matched at the reader's position, case-sensitive. */
#define _POSIX_C_SOURCE 200809L /* strncasecmp */
#include <string.h>
#include <strings.h>

#include "import/assimp/precheck/precheck.h"

typedef struct smd_walk {
    const precheck_input *in;
    size_t at;
} smd_walk;

static char peek(const smd_walk *w, size_t ahead) {
    return w->at + ahead < w->in->size ? (char)w->in->bytes[w->at + ahead] : '\0';
}

static bool is_line_end(char c) {
    return c == '\r' || c == '\n' || c == '\0' || c == '\f';
}

static bool is_space_or_line_end(char c) {
    return c == ' ' || c == '\t' || is_line_end(c);
}

/* Spaces and tabs; false at a line end (the reader's SkipSpaces). */
static bool skip_spaces(smd_walk *w) {
    while (peek(w, 0) == ' ' || peek(w, 0) == '\t') {
        w->at++;
    }
    return !is_line_end(peek(w, 0));
}

/* Spaces, tabs and line ends; false at the end of the text. */
static bool skip_spaces_and_line_ends(smd_walk *w) {
    while (peek(w, 0) == ' ' || peek(w, 0) == '\t' || peek(w, 0) == '\r' || peek(w, 0) == '\n') {
        w->at++;
    }
    return peek(w, 0) != '\0';
}

static void skip_line(smd_walk *w) {
    while (peek(w, 0) != '\r' && peek(w, 0) != '\n' && peek(w, 0) != '\0') {
        w->at++;
    }
    while (peek(w, 0) == '\r' || peek(w, 0) == '\n') {
        w->at++;
    }
}

/* `token` followed by a space or line end: consumed with that character. */
static bool token_match(smd_walk *w, const char *token) {
    size_t length = strlen(token);
    if (w->in->size - w->at < length || memcmp(w->in->bytes + w->at, token, length) != 0 ||
        !is_space_or_line_end(peek(w, length))) {
        return false;
    }
    w->at += length + (peek(w, length) != '\0' ? 1 : 0);
    return true;
}

/* Digits after an optional sign (sign allowed: strtol10), saturated. */
static uint64_t read_integer(smd_walk *w, bool sign) {
    if (sign && (peek(w, 0) == '-' || peek(w, 0) == '+')) {
        w->at++;
    }
    uint64_t value = 0;
    crowd__precheck_read_count(w->in, &w->at, &value);
    return value;
}

/* A real as fast_atoreal_move reads one; false where it would throw. */
static bool read_real(smd_walk *w) {
    if (peek(w, 0) == '-' || peek(w, 0) == '+') {
        w->at++;
    }
    static const char *const words[] = {"infinity", "inf", "nan"};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        size_t length = strlen(words[k]);
        if (w->in->size - w->at >= length &&
            strncasecmp((const char *)w->in->bytes + w->at, words[k], length) == 0) {
            w->at += length;
            return true;
        }
    }
    bool digit = peek(w, 0) >= '0' && peek(w, 0) <= '9';
    bool point = (peek(w, 0) == '.' || peek(w, 0) == ',') && peek(w, 1) >= '0' && peek(w, 1) <= '9';
    if (!digit && !point) {
        return false;
    }
    read_integer(w, false);
    if (peek(w, 0) == '.' || peek(w, 0) == ',') {
        w->at++;
        read_integer(w, false);
    }
    if (peek(w, 0) == 'e' || peek(w, 0) == 'E') {
        w->at++;
        read_integer(w, true);
    }
    return true;
}

static crowd_result smd_fail(const smd_walk *w, const char *what) {
    return crowd_error_set(w->in->error, CROWD_ERROR_INVALID_DATA, w->in->file, "SMD %s", what);
}

/* Node lines until a line that starts with "end". */
static crowd_result walk_nodes(smd_walk *w) {
    for (;;) {
        if (w->in->size - w->at >= 3 &&
            strncasecmp((const char *)w->in->bytes + w->at, "end", 3) == 0 &&
            is_space_or_line_end(peek(w, 3))) {
            return w->at + 3 < w->in->size
                       ? (w->at += 4, CROWD_OK)
                       : smd_fail(w, "file ends with its nodes section's 'end'");
        }
        if (!skip_spaces_and_line_ends(w)) {
            return smd_fail(w, "nodes section has no 'end' line");
        }
        if (skip_spaces(w)) {
            uint64_t bone = read_integer(w, false);
            if (bone >= w->in->size) {
                return smd_fail(w, "node index larger than the file could number");
            }
        }
        skip_line(w);
    }
}

/* A vertex line: parent, position, normal, then (not in vertex
 * animations) uv and the bone links. */
static crowd_result walk_vertex(smd_walk *w, bool animation) {
    if (!skip_spaces(w)) {
        skip_line(w);
        return CROWD_OK;
    }
    read_integer(w, true);
    for (int number = 0; number < (animation ? 6 : 8); number++) {
        if (!skip_spaces(w) || !read_real(w)) {
            skip_line(w);
            return CROWD_OK;
        }
    }
    if (!animation && skip_spaces(w)) {
        uint64_t links = read_integer(w, false);
        size_t end = w->at;
        while (!is_line_end(peek(w, end - w->at))) {
            end++;
        }
        /* Each link is two numbers, each a digit and a separator at least. */
        if (links > (end - w->at + 1) / 4) {
            return smd_fail(w, "vertex declares more bone links than its line holds");
        }
    }
    skip_line(w);
    return CROWD_OK;
}

static crowd_result walk_triangles(smd_walk *w) {
    while (skip_spaces_and_line_ends(w) && !token_match(w, "end")) {
        if (!skip_spaces(w)) {
            /* At a form feed: the reader returns without moving, forever. */
            return smd_fail(w, "triangles section has a form feed its reader never gets past");
        }
        while (!is_space_or_line_end(peek(w, 1))) { /* the material name */
            w->at++;
        }
        w->at++;
        skip_spaces_and_line_ends(w);
        for (int v = 0; v < 3; v++) {
            crowd_result result = walk_vertex(w, false);
            if (result != CROWD_OK) {
                return result;
            }
        }
    }
    skip_spaces_and_line_ends(w);
    return CROWD_OK;
}

/* A "time" value the reader takes for frame 0: strtol10, in 32 bits. */
static bool is_frame_zero(smd_walk *w) {
    if (peek(w, 0) == '-' || peek(w, 0) == '+') {
        w->at++;
    }
    uint32_t value = 0;
    while (peek(w, 0) >= '0' && peek(w, 0) <= '9') {
        value = value * 10u + (uint32_t)(peek(w, 0) - '0');
        w->at++;
    }
    return value == 0;
}

/* "time N" lines and vertex lines; a time other than frame 0 ends it. */
static crowd_result walk_vertex_animation(smd_walk *w) {
    crowd_result result = CROWD_OK;
    while (result == CROWD_OK && skip_spaces_and_line_ends(w) && !token_match(w, "end")) {
        if (token_match(w, "time")) {
            if (!skip_spaces(w) || !is_frame_zero(w)) {
                break;
            }
            skip_line(w);
        } else {
            result = walk_vertex(w, true);
        }
    }
    skip_spaces_and_line_ends(w);
    return result;
}

/* "time N" lines and bone lines; a "time" without a number ends it. */
static void walk_skeleton(smd_walk *w) {
    while (skip_spaces_and_line_ends(w) && !token_match(w, "end")) {
        if (token_match(w, "time") && !skip_spaces(w)) {
            break;
        }
        skip_line(w);
    }
}

crowd_result crowd__precheck_smd(const precheck_input *in) {
    if (memchr(in->bytes, '\0', in->size) != NULL) {
        return crowd_error_set(in->error, CROWD_ERROR_INVALID_DATA, in->file,
                               "SMD text contains a NUL byte");
    }
    smd_walk w = {in, 0};
    crowd_result result = CROWD_OK;
    while (result == CROWD_OK && skip_spaces_and_line_ends(&w)) {
        if (token_match(&w, "version")) {
            if (!skip_spaces(&w)) {
                break;
            }
            read_integer(&w, false);
        } else if (token_match(&w, "nodes")) {
            result = walk_nodes(&w);
            skip_spaces_and_line_ends(&w);
        } else if (token_match(&w, "triangles")) {
            result = walk_triangles(&w);
        } else if (token_match(&w, "vertexanimation")) {
            result = walk_vertex_animation(&w);
        } else if (token_match(&w, "skeleton")) {
            walk_skeleton(&w);
        } else {
            skip_line(&w);
        }
    }
    return result;
}
