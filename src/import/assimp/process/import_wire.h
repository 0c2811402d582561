/* import_wire.h - what the import helper process sends back: its log
 * messages, then either the converted asset or the error, in a small binary
 * form.
 *
 * A reply is a header (magic "crowdimp", protocol version, byte-order mark)
 * and records, each a u32 tag and a u64 payload length:
 *   LOG    u32 level, then the message bytes (no terminating NUL)
 *   ERROR  u32 crowd_result, then the reason bytes
 *   ASSET  every field of crowd_asset, arrays sized by the counts before them
 *   END    empty; the last record, right after ERROR or ASSET
 * Integers and floats are in the byte order of the machine (both ends are
 * the same build on the same machine; the mark catches anything else).
 *
 * The parent treats a reply as untrusted bytes: crowd__import_wire_decode checks
 * every tag, count and length against what is left before it allocates, so
 * garbage gives an error and never a read past the end or an allocation
 * larger than the reply; the asset it gives still has to pass
 * crowd_asset_validate. Thread-safe: nothing global.
 */
#ifndef CROWD_IMPORT_WIRE_H
#define CROWD_IMPORT_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/asset.h"

#define IMPORT_WIRE_VERSION 1u

/* A growing byte buffer; `failed` once an allocation failed (then the
 * contents are incomplete and should not be sent). */
typedef struct import_wire_buffer {
    uint8_t *data;
    size_t size, capacity;
    bool failed;
} import_wire_buffer;

/* Appends the header / one record to `out`. */
void crowd__import_wire_put_header(import_wire_buffer *out);
void crowd__import_wire_put_log(import_wire_buffer *out, crowd_log_level level,
                                const char *message);
void crowd__import_wire_put_error(import_wire_buffer *out, crowd_result result, const char *reason);
void crowd__import_wire_put_asset(import_wire_buffer *out, const crowd_asset *asset);
void crowd__import_wire_put_end(import_wire_buffer *out);
void crowd__import_wire_buffer_free(import_wire_buffer *buffer);

/* Decodes a whole reply. Log records are forwarded to `logger` (may be
 * NULL) in order. With *helper_said true: CROWD_OK with *out_asset set, or
 * the helper's own error (reason in `error`, file left to the caller).
 * With *helper_said false: CROWD_ERROR_INVALID_DATA with `error->reason`
 * saying where the reply is malformed, or CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__import_wire_decode(const uint8_t *bytes, size_t size,
                                       const crowd_logger *logger, crowd_asset **out_asset,
                                       crowd_error *error, bool *helper_said);

#endif
