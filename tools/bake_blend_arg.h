/* bake_blend_arg.h - `crowd bake --blend NAME=CLIP[:THRESHOLD],CLIP[:THRESHOLD]...`:
 * a blend of the bake's clips (crowd_bake_add_blend), with a threshold
 * after every clip or after none (then the clips' ground speeds). A clip's
 * name may hold ':' (the last one starts a threshold when a number follows
 * it) but not ','. */
#ifndef CROWD_TOOLS_BAKE_BLEND_ARG_H
#define CROWD_TOOLS_BAKE_BLEND_ARG_H

#include "crowd/bake.h"

typedef struct cli_blend {
    char text[1024];
    const char *name;
    uint32_t clip_count;
    const char *clips[CROWD_BAKE_BLEND_MAX_CLIPS];
    float thresholds[CROWD_BAKE_BLEND_MAX_CLIPS];
    bool has_thresholds;
} cli_blend;

/* Parses `value` into *out (which keeps pointers into its own copy): -1 to
 * go on, else the usage error's exit code, printed. */
int cli_blend_parse(const char *value, cli_blend *out);

#endif
