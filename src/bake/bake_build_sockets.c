/* The socket tracks of a bake (crowd_bake.socket_tracks): each socket's
 * model matrix at every baked frame, from the frame's model matrices. */
#include <string.h>

#include "bake/bake_build.h"

static size_t element_texel(const crowd_texture *texture, uint32_t rows_per_frame, uint32_t frame,
                            uint64_t element) {
    uint64_t row = (uint64_t)frame * rows_per_frame + element / texture->width;
    return (size_t)(row * texture->width + element % texture->width);
}

void crowd__bake_socket_tracks_frame(const crowd_bake *bake, const crowd_asset *asset,
                                     uint32_t frame, const float *models) {
    float *texels = bake->socket_tracks.texels;
    for (uint32_t s = 0; s < bake->socket_count && s < asset->socket_count; s++) {
        const crowd_socket *socket = &asset->sockets[s];
        const float *m = models + 16 * (size_t)socket->joint, *o = socket->offset;
        /* model[joint] x offset, column-major, as 3 rows of 4 */
        for (int row = 0; row < 3; row++) {
            float *out =
                texels + 4 * element_texel(&bake->socket_tracks, bake->socket_rows_per_frame, frame,
                                           3 * (uint64_t)s + (uint64_t)row);
            for (int c = 0; c < 4; c++) {
                out[c] = m[row] * o[4 * c] + m[4 + row] * o[4 * c + 1] + m[8 + row] * o[4 * c + 2] +
                         m[12 + row] * o[4 * c + 3];
            }
        }
    }
}
