/* precheck_binary.c - binary headers whose counts and offsets assimp 5.2
 * multiplies in 32 bits or trusts: STL, Quake II MD2, Quake III MD3.
 *
 * Binary STL: assimp takes a file for binary when 84 + 50 x triangles
 * equals its size, computed in 32 bits, so a count that wraps around
 * passes both that test and its "file is too small" check and it then
 * allocates 3 vertices per declared triangle: gigabytes from 88 bytes.
 * MD2 and MD3: every (offset, count x size) range of the header must lie
 * in the file, computed in 64 bits. */
#include <string.h>

#include "import/assimp/precheck/precheck.h"

#define STL_HEADER_BYTES 84u
#define STL_TRIANGLE_BYTES 50u
#define MD2_HEADER_BYTES 68u
#define MD3_HEADER_BYTES 108u
#define MD3_SURFACE_BYTES 108u

static uint32_t read_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

crowd_result crowd__precheck_stl(const precheck_input *in) {
    if (in->size < STL_HEADER_BYTES || in->size > UINT32_MAX) {
        return CROWD_OK;
    }
    uint64_t triangles = read_u32(in->bytes + 80);
    uint64_t needed = STL_HEADER_BYTES + STL_TRIANGLE_BYTES * triangles;
    /* assimp's test for binary, in its 32-bit arithmetic. */
    bool read_as_binary = (uint32_t)needed == (uint32_t)in->size;
    if (read_as_binary && needed != in->size) {
        return crowd_error_set(in->error, CROWD_ERROR_INVALID_DATA, in->file,
                               "binary STL declares %llu triangles (%llu bytes), the file has %zu",
                               (unsigned long long)triangles, (unsigned long long)needed, in->size);
    }
    return CROWD_OK;
}

/* [offset, offset + count x size) inside the file, in 64 bits. */
static bool range_fits(const precheck_input *in, uint64_t offset, uint64_t count, uint64_t size) {
    return offset <= in->size && count <= (in->size - offset) / (size ? size : 1);
}

static crowd_result range_fail(const precheck_input *in, const char *format, const char *what,
                               uint64_t count, uint64_t offset) {
    return crowd_error_set(in->error, CROWD_ERROR_INVALID_DATA, in->file,
                           "%s: %llu %s at offset %llu run past the end of the %zu-byte file",
                           format, (unsigned long long)count, what, (unsigned long long)offset,
                           in->size);
}

/* Header: ident, version, skin width/height, frame size, then the counts of
 * skins, vertices, texture coordinates, triangles, GL commands, frames and
 * the offsets of skins, texture coordinates, triangles, frames, GL
 * commands and the end. */
crowd_result crowd__precheck_md2(const precheck_input *in) {
    if (in->size < MD2_HEADER_BYTES || memcmp(in->bytes, "IDP2", 4) != 0) {
        return CROWD_OK;
    }
    const uint8_t *h = in->bytes;
    uint64_t frame_size = read_u32(h + 16), vertices = read_u32(h + 24), frames = read_u32(h + 40);
    static const struct {
        const char *what;
        uint32_t count_at, offset_at, size;
    } ranges[] = {{"skins", 20, 44, 64},
                  {"texture coordinates", 28, 48, 4},
                  {"triangles", 32, 52, 12},
                  {"GL commands", 36, 60, 4}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        uint64_t count = read_u32(h + ranges[r].count_at),
                 offset = read_u32(h + ranges[r].offset_at);
        if (!range_fits(in, offset, count, ranges[r].size)) {
            return range_fail(in, "MD2", ranges[r].what, count, offset);
        }
    }
    /* A frame: scale, translate, name (40 bytes), then 4 bytes per vertex. */
    uint64_t vertex_frame = 40 + 4 * vertices;
    uint64_t offset = read_u32(h + 56);
    if (!range_fits(in, offset, frames, frame_size > vertex_frame ? frame_size : vertex_frame)) {
        return range_fail(in, "MD2", "frames", frames, offset);
    }
    return CROWD_OK;
}

/* Header: ident, version, name[64], flags, counts of frames, tags,
 * surfaces, skins, offsets of frames, tags, surfaces, end. Each surface:
 * ident, name[64], flags, counts of frames, shaders, vertices, triangles,
 * offsets (from the surface) of triangles, shaders, texture coordinates,
 * vertices, end. */
crowd_result crowd__precheck_md3(const precheck_input *in) {
    if (in->size < MD3_HEADER_BYTES || memcmp(in->bytes, "IDP3", 4) != 0) {
        return CROWD_OK;
    }
    const uint8_t *h = in->bytes;
    uint64_t frames = read_u32(h + 76), tags = read_u32(h + 80), surfaces = read_u32(h + 84);
    uint64_t frames_at = read_u32(h + 92), tags_at = read_u32(h + 96),
             surface_at = read_u32(h + 100);
    if (!range_fits(in, frames_at, frames, 56)) {
        return range_fail(in, "MD3", "frames", frames, frames_at);
    }
    if (!range_fits(in, tags_at, tags * frames, 112)) {
        return range_fail(in, "MD3", "tags", tags * frames, tags_at);
    }
    if (!range_fits(in, surface_at, surfaces, MD3_SURFACE_BYTES)) {
        return range_fail(in, "MD3", "surfaces", surfaces, surface_at);
    }
    for (uint64_t s = 0; s < surfaces; s++) {
        if (!range_fits(in, surface_at, 1, MD3_SURFACE_BYTES)) {
            return range_fail(in, "MD3", "surfaces", surfaces - s, surface_at);
        }
        const uint8_t *surface = in->bytes + surface_at;
        uint64_t surface_frames = read_u32(surface + 72), shaders = read_u32(surface + 76);
        uint64_t vertices = read_u32(surface + 80), triangles = read_u32(surface + 84);
        static const struct {
            const char *what;
            uint32_t offset_at, size;
        } parts[] = {{"triangles", 88, 12},
                     {"shaders", 92, 68},
                     {"texture coordinates", 96, 8},
                     {"vertices", 100, 8}};
        const uint64_t counts[] = {triangles, shaders, vertices, vertices * surface_frames};
        for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
            uint64_t offset = surface_at + read_u32(surface + parts[p].offset_at);
            if (!range_fits(in, offset, counts[p], parts[p].size)) {
                return range_fail(in, "MD3", parts[p].what, counts[p], offset);
            }
        }
        surface_at += read_u32(surface + 104);
    }
    return CROWD_OK;
}
