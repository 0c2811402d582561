/* scene.h - the crowd scene that `demo`, `bench` and `play` share.
 *
 * A character: a model (a file assimp reads, or builtin:) baked in memory,
 * which plays every mode, or a bake folder, which plays static, bat and vat.
 * A crowd: instance i stands on a sunflower spiral around the origin with a
 * clip, phase, speed, heading, size and tint drawn from a generator seeded by
 * (seed, i) alone, so the same seed gives the same crowd in every mode and a
 * crowd grown from n to m people keeps its first n and adds the rest around
 * the edge. A camera: an orbit around the crowd that keeps all of it in view.
 *
 * Ownership: scene_character owns its asset and bake (scene_character_release).
 * Everything else works on a caller's renderer with its context current.
 */
#ifndef CROWD_TOOLS_SCENE_H
#define CROWD_TOOLS_SCENE_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/gpu.h"

typedef struct scene_character {
    crowd_asset *asset;    /* the imported model; NULL for a bake folder */
    crowd_bake *bake;      /* built from asset in memory, or loaded */
    double load_s, bake_s; /* wall seconds spent importing and baking */
} scene_character;

/* Whether `spec` names a bake: a folder, or a path ending in .crowd.json. */
bool scene_is_bake_path(const char *spec);

/* `spec` is builtin:, a model file, a bake folder or its NAME.crowd.json.
 * Errors are those of crowd_model_load, crowd_bake_build and crowd_bake_load. */
crowd_result scene_character_load(const char *spec, const crowd_logger *logger,
                                  scene_character *out, crowd_error *error);
void scene_character_release(scene_character *character);

/* Logger for these commands: warnings always, the library's informational
 * and debug messages only with --verbose (cli_verbose). */
void scene_log(void *user, crowd_log_level level, const char *message);

/* The modes a renderer of this character can play. */
bool scene_character_has_mode(const scene_character *character, crowd_gpu_mode mode);

/* A renderer of the character in `mode`, room for max_instances. */
crowd_result scene_renderer_create(crowd_gpu_context *context, const scene_character *character,
                                   crowd_gpu_mode mode, uint32_t max_instances, uint32_t width,
                                   uint32_t height, crowd_renderer **out_renderer,
                                   crowd_error *error);

/* Instance `index` of the crowd `seed` on `renderer` (its clips, its size). */
void scene_instance_desc(const crowd_renderer *renderer, uint64_t seed, uint32_t index,
                         crowd_instance_desc *out);

/* Adds instances (count > current) or removes the newest ones (count <
 * current) so that the renderer holds instances 0 .. count-1 of crowd
 * `seed`. ids has room for `count` entries and holds the ids of the
 * instances already there (ids[i] is instance i). */
crowd_result scene_populate(crowd_renderer *renderer, uint64_t seed, uint32_t count,
                            crowd_instance_id *ids, crowd_error *error);

/* splitmix64: a well-mixed stream from any seed, the same on every
 * machine, so (seed, index) pairs that differ in one bit still give
 * unrelated instances. scene_random_unit is uniform in [0, 1) with 24 bits. */
uint64_t scene_random_u64(uint64_t *state);
float scene_random_unit(uint64_t *state);

/* A clip drawn from generator state `*state`: a looping one (one-shots only
 * when nothing loops), other than `current` where there is a choice. */
uint32_t scene_pick_clip(const crowd_renderer *renderer, uint64_t *state, uint32_t current);

/* A camera at heading yaw_rad (0: looking from +Z) and elevation pitch_rad
 * around the renderer's crowd, far enough that every instance's box fits an
 * image of aspect width / height, then moved to `zoom` times that distance.
 * A renderer without instances frames its character's bind pose. */
void scene_camera(const crowd_renderer *renderer, float aspect, float yaw_rad, float pitch_rad,
                  float zoom, crowd_camera *out);

/* Sets mesa_glthread=true in the environment (unless the user set it) and
 * returns its value. With Mesa, the GL driver then runs on a thread of its
 * own, so a software rasterizer's vertex work leaves the calling thread as a
 * GPU's would: the thread CPU time of a frame is the application's. Call
 * before crowd_gpu_context_create; `enable` false leaves the environment as
 * it is. Returns whether the variable is "true" afterwards. */
bool scene_gl_thread_setup(bool enable);

/* crowd_gpu_context_create with stderr muted while mesa_glthread is set:
 * Mesa then prints an "option overridden by environment" notice that would
 * read as a problem. Failures still come back, with every reason, through
 * `error`. */
crowd_result scene_context_create(const crowd_gpu_context_desc *desc, crowd_gpu_context **out,
                                  crowd_error *error);

#endif
