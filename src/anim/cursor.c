#include "crowd/anim.h"

#include <string.h>

uint32_t crowd_anim_cursor_size(const crowd_skeleton *skeleton) {
    return skeleton != NULL && skeleton->joint_count <= CROWD_MAX_JOINTS ? 3 * skeleton->joint_count
                                                                         : 0;
}

void crowd_anim_cursor_reset(crowd_anim_cursor *cursor) {
    if (cursor == NULL) {
        return;
    }
    cursor->clip = NULL;
    if (cursor->keys != NULL && cursor->key_count > 0) {
        memset(cursor->keys, 0, cursor->key_count * sizeof *cursor->keys);
    }
}
