/* fuzz_bvh.c - libFuzzer target for the BVH reader of crowd_asset_add_clips
 * (src/import/anim/anim_bvh.c). The bytes are a BVH file. Anything may fail;
 * nothing may crash, leak or be reported by the sanitizers, and what is
 * read must pass crowd_asset_validate(). Seeds: fuzz/corpus/bvh. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "import/anim/anim_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    crowd_asset *asset = NULL;
    crowd_error error;
    if (crowd__anim_bvh_parse(data, size, "fuzz.bvh", NULL, &asset, &error) == CROWD_OK) {
        crowd_error invalid;
        if (crowd_asset_validate(asset, &invalid) != CROWD_OK) {
            abort();
        }
        crowd_asset_destroy(asset);
    }
    return 0;
}
