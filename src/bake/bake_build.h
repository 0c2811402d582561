/* bake_build.h - the steps of crowd_bake_build and crowd_bake_measure,
 * private to the build side of the bake module.
 *
 * Build order: select clips and frame counts (bake_build_clips.c), plan and
 * allocate the textures with the height limit (bake_build_layout.c), then
 * sample, skin and encode every frame on worker threads
 * (bake_build_frames.c, over bake_parallel_for), then, from the encoded
 * textures, each clip's animated bounds (bake_build_bounds.c) and the LODs
 * (bake_lod.h).
 */
#ifndef CROWD_BAKE_BUILD_H
#define CROWD_BAKE_BUILD_H

#include "load/bake_internal.h"
#include "crowd/anim.h"
#include "crowd/skin.h"

/* Frames of a clip: loop max(1, round(d * fps)), one-shot round(d * fps) + 1,
 * the product in double. Saturates far above any texture limit instead of
 * overflowing. Frame k plays at bake_frame_time(k, fps). */
uint64_t bake_clip_frame_count(float duration_s, bool loop, double fps);
float bake_frame_time(uint32_t k, float fps);

/* Fills bake->clips / clip_count from the asset and desc (selection, order,
 * loop overrides, frame counts, first frames) and returns the total frame
 * count in *out_frames. fps is already validated. */
crowd_result bake_select_clips(const crowd_asset *asset, const crowd_bake_desc *desc, float fps,
                               crowd_bake *bake, uint64_t *out_frames, crowd_error *error);

/* Resolved layout request. */
typedef struct bake_layout_request {
    crowd_bake_what what;
    uint32_t max_width;              /* resolved, <= max_size */
    uint32_t max_size;               /* resolved: largest width and height */
    crowd_vat_encoding vat_encoding; /* resolved, never DEFAULT */
    crowd_bat_encoding bat_encoding; /* resolved, never DEFAULT */
} bake_layout_request;

/* Chooses widths and rows per frame, checks the max_size row limit (the
 * reason says how many frames fit and which fps would), allocates zeroed
 * textures and sets bake->frame_count. */
crowd_result bake_plan_textures(crowd_bake *bake, const crowd_asset *asset, uint64_t total_frames,
                                const bake_layout_request *request, crowd_error *error);

/* Samples, skins and encodes every frame into the planned textures and sets
 * the bounds. */
typedef struct bake_run_options {
    uint32_t thread_count; /* resolved, >= 1 */
    void (*progress)(void *user, float fraction);
    void *progress_user;
} bake_run_options;
crowd_result bake_run_frames(crowd_bake *bake, const crowd_asset *asset,
                             const bake_run_options *options, crowd_error *error);

/* Positions of every vertex at a global frame as the bake plays them
 * (crowd_bake_clip): decoded from the VAT, or skinned with the decoded BAT
 * matrices when the bake has no VAT. */
typedef struct bake_played {
    const crowd_bake *bake;
    crowd_skin_prepared *prepared; /* bake->asset's mesh; NULL with a VAT */
} bake_played;

/* Errors: those of crowd_skin_prepared_create. */
crowd_result bake_played_init(const crowd_bake *bake, bake_played *out_played, crowd_error *error);
void bake_played_release(bake_played *played);

/* skin: scratch of 12 * joint_count floats (unused with a VAT); out:
 * 3 * vertex_count floats. Thread-safe. */
void bake_played_positions(const bake_played *played, uint32_t frame, float *skin,
                           float *out_positions);

/* Sets every clip's box and sphere from the played positions of its frames. */
crowd_result bake_clip_bounds(crowd_bake *bake, const bake_played *played, uint32_t thread_count,
                              crowd_error *error);

/* Skinning matrices (12 floats per joint, model space) of `clip` at time_s,
 * or of the rest pose when clip is NULL. locals and models are scratch of
 * joint_count transforms and 16 * joint_count floats. */
void bake_pose_skin(const crowd_skeleton *skeleton, const crowd_clip *clip, float time_s,
                    crowd_anim_cursor *cursor, crowd_transform *locals, float *models,
                    float *out_skin);

/* Threads: `requested` 0 means one per online CPU; never more than 16 or
 * than there are items, never less than 1. */
uint32_t bake_thread_count(uint32_t requested, uint32_t item_count);

/* Runs fn(context, worker, item) for every item in [0, item_count) on up to
 * thread_count threads; the calling thread is worker 0 and the only one that
 * calls done(context, items_finished_so_far) (may be NULL). Worker indices
 * are < thread_count, so per-worker scratch can be indexed by them. If
 * threads cannot be started the calling thread does all items. */
typedef void (*bake_item_fn)(void *context, uint32_t worker, uint32_t item);
typedef void (*bake_done_fn)(void *context, uint32_t items_finished);
void bake_parallel_for(uint32_t item_count, uint32_t thread_count, bake_item_fn fn,
                       bake_done_fn done, void *context);

#endif
