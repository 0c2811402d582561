/* test_gpu.h - helpers shared by the gpu test groups. check.h's counters are
 * per file, so each group ends with check_finish() and returns its result
 * (0 passed, 1 failed, 77 nothing checked).
 *
 * A frame here is what an application does: bind its target and clear it
 * (host_target_begin), crowd_world_update, crowd_world_draw with the view
 * and projection of a crowd_camera and crowd_light_default, then read back.
 */
#ifndef CROWD_TEST_GPU_H
#define CROWD_TEST_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/bake.h"
#include "crowd/gpu.h"
#include "host.h"

#define GPU_TEST_WIDTH 160u
#define GPU_TEST_HEIGHT 120u
#define GPU_TEST_PIXELS (GPU_TEST_WIDTH * GPU_TEST_HEIGHT)

extern host_context *gpu_test_context;
/* The tier gpu_scene_create's worlds run (CROWD_TIER_AUTO unless a group
 * sets it). */
extern crowd_gpu_tier gpu_test_tier;
/* The 160x120 colour + depth target every frame is drawn into. */
extern host_target gpu_test_target;
/* Linear RGB the target is cleared to before each frame. */
extern const float gpu_test_clear[3];

/* Largest fractions of differing pixels (see test_gpu.c): modes that skin
 * exactly, baked modes, and baked modes at mid-crossfade. */
#define GPU_TEST_EXACT 0.005
#define GPU_TEST_BAKED 0.015
#define GPU_TEST_FADE_BAKED 0.03
/* GPU_TEST_BAKED for bat and vat, GPU_TEST_EXACT otherwise. */
double gpu_test_tolerance(crowd_gpu_mode mode);

/* A camera framing the bar fixture and its neighbours 0.6 m to each side. */
crowd_camera gpu_test_bar_camera(void);

/* A world holding one archetype: one character in one mode. */
typedef struct gpu_scene {
    crowd_world *world;
    crowd_archetype archetype;
} gpu_scene;

/* Makes the scene; false (printed) on failure, with nothing left behind. */
bool gpu_scene_create(const crowd_asset *asset, const crowd_bake *bake, crowd_gpu_mode mode,
                      gpu_scene *out);
void gpu_scene_destroy(gpu_scene *scene);

/* A pass of `camera` (aspect of the target) under crowd_light_default. */
crowd_draw_desc gpu_test_draw_desc(const crowd_camera *camera, crowd_pass pass);
/* Clears the target, updates the world to time_s and draws `desc`; false
 * (printed) when a call fails. */
bool gpu_test_frame(crowd_world *world, double time_s, const crowd_draw_desc *desc);
/* The target's pixels or depth values, rows top first, malloc'ed; NULL
 * (printed) on failure. */
uint8_t *gpu_test_read_rgba(void);
float *gpu_test_read_depth(void);
/* A colour frame of `camera` at time_s, read back: RGBA8 or NULL. */
uint8_t *gpu_test_render(crowd_world *world, double time_s, const crowd_camera *camera);
/* The reference image: `asset` posed by skin_matrices, drawn rigidly (static
 * mode) at `position` turned by heading_rad. */
uint8_t *gpu_test_reference_at(const crowd_asset *asset, const float *skin_matrices,
                               const float position[3], float heading_rad,
                               const crowd_camera *camera);
/* Same at the origin. */
uint8_t *gpu_test_reference(const crowd_asset *asset, const float *skin_matrices,
                            const crowd_camera *camera);
/* Prints the comparison; true when at most max_fraction of all pixels
 * differ (and the images show something). */
bool gpu_test_close(const char *what, const uint8_t *a, const uint8_t *b, double max_fraction);
/* True when at least min_fraction of the foreground pixels differ. */
bool gpu_test_different(const char *what, const uint8_t *a, const uint8_t *b, double min_fraction);
/* GL programs alive in the current context, counted by name (what a world
 * holds, counted without asking it). */
uint32_t gpu_test_live_programs(void);
/* Saves a 160x120 image as STEM_SUFFIX.png in the test's folder. */
void gpu_test_save(const char *stem, const char *suffix, const uint8_t *pixels);

/* Groups: each returns 0 (passed), 1 (failed) or 77 (nothing checked). */
/* A bake of `asset` written, loaded alone and played in cpu and gpu modes
 * against the asset with the bake in memory; then as version 3 (no runtime
 * clips), which refuses them (test_gpu_loaded.c). */
void gpu_test_loaded_bake(const char *label, const crowd_asset *asset, const crowd_bake *bake);
/* Rewrites the bake in `dir` as version 3 and checks that it still loads
 * and plays static, and that cpu and gpu are refused with the message that
 * names the runtime clips. */
void gpu_test_old_bake_refuses(const char *dir, const char *name);

int test_gpu_bar(void);
int test_gpu_api(void);
int test_gpu_builtin(void);
int test_gpu_models(void);
int test_gpu_cli(void);
int test_gpu_world(void);
int test_gpu_state(void);
int test_gpu_state_portable(void);
/* The state runs on a context of `api` made by the group (GL 3.3 core or
 * GLES 3.0: the portable tier, chosen by auto). */
int test_gpu_state_context(host_context_api api);
int test_gpu_portable(void);
/* Makes its own context of `api` (and a 4.5 one in a child process). */
int test_gpu_portable_context(host_context_api api);
int test_gpu_shade(void);
int test_gpu_cull(void);
int test_gpu_time(void);
int test_gpu_programs(void);
int test_gpu_handles(void);
int test_gpu_query(void);
int test_gpu_root_motion(void);
int test_gpu_blend(void);
int test_gpu_events(void);
/* The game's own poses: images (test_gpu_pose.c) and the rest
 * (test_gpu_pose_api.c). */
int test_gpu_pose(void);
/* Props at run time against the --attach merge (test_gpu_props.c). */
int test_gpu_props(void);
int test_gpu_record(void);
int test_gpu_nearest(void);
int test_gpu_pose_api(void);

#endif
