/* TEXCOORD_1 of a baked vertex (glb_read.h): the writer stores it, the
 * loader checks the file's against it. */
#include "load/glb_read.h"

void crowd__glb_lookup_uv(const glb_lookup *lookup, uint32_t vertex, float uv[2]) {
    uv[0] = (float)(((double)(vertex % lookup->width) + 0.5) / (double)lookup->width);
    uv[1] = (float)(((double)(vertex / lookup->width) * (double)lookup->row_step + 0.5) /
                    (double)lookup->height);
}
