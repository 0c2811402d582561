/* fuzz_import_reply.c - libFuzzer target for crowd__import_wire_decode, the
 * parent's reading of the import helper's reply (src/import/assimp/process/import_wire.h).
 *
 * The bytes are a reply as a broken or hostile helper might send it.
 * Anything may fail; nothing may crash, leak or be reported by the
 * sanitizers, and an asset it gives must be destroyable whether or not it
 * passes crowd_asset_validate() (the parent checks that next). Seeds in
 * fuzz/corpus/import_reply: the helper's stdout for OBJ/box.obj, for
 * X/anim_test.x (skinned, a clip) and for a missing file (an error). */
#include <stddef.h>
#include <stdint.h>

#include "import/assimp/process/import_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    crowd_asset *asset = NULL;
    crowd_error error;
    bool helper_said = false;
    if (crowd__import_wire_decode(data, size, NULL, &asset, &error, &helper_said) == CROWD_OK) {
        crowd_asset_validate(asset, &error);
        crowd_asset_destroy(asset);
    }
    return 0;
}
