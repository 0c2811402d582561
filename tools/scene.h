/* scene.h - the characters, crowd layout and camera that render, demo,
 * bench and play share.
 *
 * A character: a model (a file assimp reads, or builtin:), baked in memory
 * when bat or vat may be asked for, or a bake folder, which plays static,
 * bat and vat. Each character a command draws becomes one archetype of the
 * command's crowd_world.
 *
 * A crowd: instance i belongs to archetype i % archetype_count of a list
 * and stands on a
 * sunflower spiral around the origin with a clip, phase, speed, heading,
 * size and tint drawn from a generator seeded by (seed, i) alone, so the same
 * seed gives the same crowd in every mode and a crowd grown from n to m
 * people keeps its first n and adds the rest around the edge. A camera: an
 * orbit around the crowd that keeps all of it in view.
 *
 * Ownership: scene_character owns its asset and bake (scene_character_release),
 * which the archetypes made from it borrow: release it after the world.
 * Everything else works on a caller's world with its context current.
 */
#ifndef CROWD_TOOLS_SCENE_H
#define CROWD_TOOLS_SCENE_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/gpu.h"
#include "host.h"
#include "scene_random.h"

typedef struct scene_character {
    const char *spec;      /* as given on the command line */
    crowd_asset *asset;    /* the imported model; NULL for a bake folder */
    crowd_bake *bake;      /* built from asset in memory, or loaded; NULL when not asked */
    double load_s, bake_s; /* wall seconds spent importing and baking */
} scene_character;

/* Whether `spec` names a bake: a folder, or a path ending in .crowd.json. */
bool scene_is_bake_path(const char *spec);

/* `spec` is builtin:, a model file, a bake folder or its NAME.crowd.json
 * (kept, not copied). A model is baked in memory when `bake` is set.
 * Errors are those of crowd_model_load, crowd_bake_build and crowd_bake_load. */
crowd_result scene_character_load(const char *spec, bool bake, const crowd_logger *logger,
                                  scene_character *out, crowd_error *error);
void scene_character_release(scene_character *character);

/* Logger for these commands: warnings always, the library's informational
 * and debug messages only with --verbose (cli_verbose). */
void scene_log(void *user, crowd_log_level level, const char *message);

/* The modes an archetype of this character can play. */
bool scene_character_has_mode(const scene_character *character, crowd_gpu_mode mode);
/* What playing `mode` takes that a character may lack, for messages:
 * "needs the source asset (...)". */
const char *scene_mode_needs(crowd_gpu_mode mode);
/* Sets CROWD_ERROR_UNSUPPORTED, "<spec>: cannot play mode 'M': it needs ...",
 * and returns it. */
crowd_result scene_mode_error(const scene_character *character, crowd_gpu_mode mode,
                              crowd_error *error);
/* `wanted` when the character plays it, else the mode it plays that does
 * the most similar work (gpu and bat skin in the vertex shader, bat and vat
 * fetch baked data, ...); static at worst. */
crowd_gpu_mode scene_nearest_mode(const scene_character *character, crowd_gpu_mode wanted);

/* Adds the character to `world` as an archetype in `mode` (which it must
 * play), named after its spec, shaded by `fragment_source` (a crowd_shade
 * function, crowd_archetype_desc) or crowd's default when NULL. Errors of
 * crowd_world_add_archetype. */
crowd_result scene_archetype_add(crowd_world *world, const scene_character *character,
                                 crowd_gpu_mode mode, const char *fragment_source,
                                 crowd_archetype *out, crowd_error *error);

/* Instance `index` of the crowd `seed` over `archetypes` (its archetype's
 * clips; spacing for the widest of them). */
void scene_instance_desc(const crowd_world *world, const crowd_archetype *archetypes,
                         uint32_t archetype_count, uint64_t seed, uint32_t index,
                         crowd_instance_desc *out);

/* Adds instances (count > current) or removes the newest ones (count <
 * current) so that the world holds instances 0 .. count-1 of crowd `seed`.
 * ids has room for `count` entries and holds the handles of the instances
 * already there (ids[i] is instance i). */
crowd_result scene_populate(crowd_world *world, const crowd_archetype *archetypes,
                            uint32_t archetype_count, uint64_t seed, uint32_t count,
                            crowd_instance *ids, crowd_error *error);

/* A clip of `archetype` drawn from generator state `*state`: a looping one
 * (one-shots only when nothing loops), other than `current` where there is
 * a choice. */
uint32_t scene_pick_clip(const crowd_world *world, crowd_archetype archetype, uint64_t *state,
                         uint32_t current);

/* A camera at heading yaw_rad (0: looking from +Z) and elevation pitch_rad
 * around the world's crowd, far enough that every instance's box fits an
 * image of aspect width / height, then moved to `zoom` times that distance.
 * A world without instances frames `fallback`'s bind pose. */
void scene_camera(const crowd_world *world, crowd_archetype fallback, float aspect, float yaw_rad,
                  float pitch_rad, float zoom, crowd_camera *out);

/* Sets mesa_glthread=true in the environment (unless the user set it) and
 * returns its value. With Mesa, the GL driver then runs on a thread of its
 * own, so a software rasterizer's vertex work leaves the calling thread as a
 * GPU's would: the thread CPU time of a frame is the application's. Call
 * before host_context_create; `enable` false leaves the environment as it
 * is. Returns whether the variable is "true" afterwards. */
bool scene_gl_thread_setup(bool enable);

/* host_context_create with stderr muted while mesa_glthread is set: Mesa
 * then prints an "option overridden by environment" notice that would read
 * as a problem. Failures still come back, with every reason, through
 * `error`. */
crowd_result scene_context_create(const host_context_desc *desc, host_context **out,
                                  crowd_error *error);

/* --tier auto|gl45|portable and --context gl45|gl33|gles3 (render, bench,
 * play); on failure a usage error naming `option` is printed and false
 * returned. */
bool scene_parse_tier(const char *option, const char *text, crowd_gpu_tier *out);
bool scene_parse_context(const char *option, const char *text, host_context_api *out);
/* "gl45", "gl33", "gles3". */
const char *scene_context_label(host_context_api api);

#endif
