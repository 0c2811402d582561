/* manifest_strict.h - what a manifest must not hold although cJSON takes
 * it: a byte-order mark (RFC 8259 8.1: JSON text must not begin with one),
 * a NUL byte (cJSON stops there, ending strings or the text early, so the
 * reader would see less than the file holds), text after the top-level
 * object (cJSON stops reading there) and a key twice in one object (cJSON
 * finds the first, another reader the last: the two would play different
 * bakes). Checked by crowd__manifest_read before and after parsing.
 */
#ifndef CROWD_LOAD_MANIFEST_STRICT_H
#define CROWD_LOAD_MANIFEST_STRICT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "crowd/result.h"

/* The manifest's bytes: CROWD_ERROR_INVALID_DATA naming `file` and the
 * byte-order mark or the first NUL byte's offset. */
crowd_result crowd__manifest_check_bytes(const char *json, size_t size, const char *file,
                                         crowd_error *error);

/* What follows the parsed object, from `end` (where cJSON stopped): white
 * space only, else CROWD_ERROR_INVALID_DATA naming the byte. */
crowd_result crowd__manifest_check_end(const char *json, size_t size, const char *end,
                                       const char *file, crowd_error *error);

/* The parsed tree: CROWD_ERROR_INVALID_DATA naming `file`, the key and the
 * object holding it twice ("clips[1]", or the top level);
 * CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__manifest_check_keys(const cJSON *root, const char *file, crowd_error *error);

#endif
