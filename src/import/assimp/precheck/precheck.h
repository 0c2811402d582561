/* precheck.h - a look at the bytes before assimp 5.2 sees them.
 *
 * assimp trusts the counts a file declares: an OFF header that promises
 * billions of vertices makes it allocate them (16 GB resident before it
 * fails). crowd promises a clear error instead of a crash, so every input
 * assimp reads is checked here first, cheaply and without trusting
 * anything: declared counts against the bytes that could hold them (OFF,
 * PLY, STL, MD2, MD3, MD5, SMD) and SMD sections its reader would never
 * leave. glTF is not checked here: glTF 2.0 is crowd's own reader's
 * (gltf/gltf_import.h), which checks every index and byte range as it
 * reads. What passes may still be rejected by assimp or by the
 * conversion; this pass removes what assimp cannot be trusted to reject
 * itself.
 *
 * A format is checked when the name's extension says so or the bytes carry
 * its signature ("OFF", "ply", ...): assimp too picks its reader by
 * extension and falls back to content.
 *
 * Failures: CROWD_ERROR_INVALID_DATA with the file and the first problem
 * found; CROWD_ERROR_UNSUPPORTED for a PLY header larger than checked here.
 * Thread-safe: nothing global.
 */
#ifndef CROWD_IMPORT_PRECHECK_H
#define CROWD_IMPORT_PRECHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/result.h"

/* Checks the file at `path` (mapped, not read whole); `dir` is its folder. */
crowd_result crowd__import_precheck_file(const char *path, const char *dir, crowd_error *error);

/* Checks `size` bytes in memory; `name` (may be NULL) gives the extension
 * and the name in messages. */
crowd_result crowd__import_precheck_memory(const void *bytes, size_t size, const char *name,
                                           crowd_error *error);

/* One input as the format checks see it. */
typedef struct precheck_input {
    const uint8_t *bytes;
    size_t size;
    const char *file; /* for messages */
    const char *ext;  /* extension without the dot, "" when none */
    const char *dir;  /* folder of external files; NULL from memory */
    crowd_error *error;
} precheck_input;

/* The format checks, each on the whole input (precheck_text.c,
 * precheck_smd.c, precheck_ply.c, precheck_binary.c). */
crowd_result crowd__precheck_off(const precheck_input *in);
crowd_result crowd__precheck_md5(const precheck_input *in);
crowd_result crowd__precheck_smd(const precheck_input *in);
crowd_result crowd__precheck_ply(const precheck_input *in);
crowd_result crowd__precheck_stl(const precheck_input *in);
crowd_result crowd__precheck_md2(const precheck_input *in);
crowd_result crowd__precheck_md3(const precheck_input *in);

/* Shared by the text checks: bytes [*at, size) with spaces, tabs, line ends
 * skipped; then an unsigned decimal, saturated at UINT64_MAX (false, *at
 * unchanged, when no digit follows). */
void crowd__precheck_skip_space(const precheck_input *in, size_t *at);
bool crowd__precheck_read_count(const precheck_input *in, size_t *at, uint64_t *out);

#endif
