/* exr_write.h - writing the float textures of a bake as OpenEXR files, in
 * the shape the runtime's reader accepts (load/exr_read.h), through
 * OpenEXR's C core library. OpenEXR's messages become the reason of the
 * crowd_error, never output.
 */
#ifndef CROWD_BAKE_EXR_WRITE_H
#define CROWD_BAKE_EXR_WRITE_H

#include "bake/atomic_set.h"
#include "crowd/bake.h"

/* Writes `texture` (RGBA16F or RGBA32F). Errors: CROWD_ERROR_OUTPUT,
 * CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__exr_write_rgba(atomic_file *file, const crowd_texture *texture,
                                   crowd_error *error);

#endif
