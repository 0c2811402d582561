/* bake_build.h - the steps of crowd_bake_build and crowd_bake_measure,
 * private to the build side of the bake module.
 *
 * Build order: select clips and frame counts (bake_build_clips.c), plan and
 * allocate the textures with the height limit (bake_build_layout.c), then
 * sample, skin and encode every frame on worker threads
 * (bake_build_frames.c, over crowd__bake_parallel_for), then, from the encoded
 * textures, each clip's animated bounds (bake_build_bounds.c) and the LODs
 * (bake_lod.h).
 */
#ifndef CROWD_BAKE_BUILD_H
#define CROWD_BAKE_BUILD_H

#include "load/bake_internal.h"
#include "crowd/anim.h"
#include "crowd/skin.h"

/* With desc->root_motion EXTRACT: picks the root joint, makes
 * bake->in_place_asset (bake_root_motion.c) and each baked clip's curve,
 * and points bake->asset at the copy; after crowd__bake_select_clips.
 * KEEP: nothing. Errors: CROWD_ERROR_INVALID_ARGUMENT (an unknown
 * root_joint, a model without clips), CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__bake_extract_root_motion(crowd_bake *bake, const crowd_asset *asset,
                                             const crowd_bake_desc *desc, crowd_error *error);

/* Fills bake->clips / clip_count from the asset and desc: selection,
 * order, loop overrides. */
crowd_result crowd__bake_select_clips(const crowd_asset *asset, const crowd_bake_desc *desc,
                                      crowd_bake *bake, crowd_error *error);

/* Sets each clip's first_frame from the frame counts before it and returns
 * the total. */
uint64_t crowd__bake_place_clips(crowd_bake *bake);

/* The rate of a clip's keys when every key of every track lies on the grid
 * of one rate (up to 240 keys/s, snapped to a whole number within 0.1%),
 * else 0. */
float crowd__bake_key_rate(const crowd_clip *clip, uint32_t joint_count);

typedef struct bake_rate_request {
    float fps;           /* > 0: forced on every clip */
    double budget_rel;   /* between-frame budget, of the bounds diagonal */
    uint64_t frames_fit; /* frames the textures hold (crowd__bake_frames_fit) */
} bake_rate_request;

/* Sets every clip's fps, layout (END), frame_count, key_rate,
 * rate_multiple and between-frame errors, and bake's budget (bake_build_rate.c
 * says how they are chosen). Errors: CROWD_ERROR_OUT_OF_MEMORY and those of
 * crowd_skin_prepared_create. */
crowd_result crowd__bake_choose_rates(crowd_bake *bake, const crowd_asset *asset,
                                      const bake_rate_request *request, uint32_t thread_count,
                                      crowd_error *error);

/* Resolved layout request. */
typedef struct bake_layout_request {
    crowd_bake_what what;
    uint32_t max_width;              /* resolved, <= max_size */
    uint32_t max_size;               /* resolved: largest width and height */
    crowd_vat_encoding vat_encoding; /* resolved, never DEFAULT */
    crowd_bat_encoding bat_encoding; /* resolved, never DEFAULT */
} bake_layout_request;

/* Frames (of all clips together) that the textures the request asks for
 * can hold within its height limit. */
uint64_t crowd__bake_frames_fit(const crowd_bake *bake, const bake_layout_request *request);

/* Chooses widths and rows per frame, checks the max_size row limit (the
 * reason says how many frames fit and which fps would), allocates zeroed
 * textures and sets bake->frame_count. */
/* bake_build_sockets.c: frame `frame`'s socket tracks from its model
 * matrices (16 floats per joint), into bake->socket_tracks. */
void crowd__bake_socket_tracks_frame(const crowd_bake *bake, const crowd_asset *asset,
                                     uint32_t frame, const float *models);

crowd_result crowd__bake_plan_textures(crowd_bake *bake, const crowd_asset *asset,
                                       uint64_t total_frames, const bake_layout_request *request,
                                       crowd_error *error);

/* Samples, skins and encodes every frame into the planned textures and sets
 * the bounds. */
typedef struct bake_run_options {
    uint32_t thread_count; /* resolved, >= 1 */
    void (*progress)(void *user, float fraction);
    void *progress_user;
} bake_run_options;
crowd_result crowd__bake_run_frames(crowd_bake *bake, const crowd_asset *asset,
                                    const bake_run_options *options, crowd_error *error);

/* Positions of every vertex at a global frame as the bake plays them
 * (crowd_bake_clip): decoded from the VAT, or skinned with the decoded BAT
 * matrices when the bake has no VAT. */
typedef struct bake_played {
    const crowd_bake *bake;
    crowd_skin_prepared *prepared; /* bake->asset's mesh; NULL with a VAT */
} bake_played;

/* Errors: those of crowd_skin_prepared_create. */
crowd_result crowd__bake_played_init(const crowd_bake *bake, bake_played *out_played,
                                     crowd_error *error);
void crowd__bake_played_release(bake_played *played);

/* skin: scratch of 12 * joint_count floats (unused with a VAT); out:
 * 3 * vertex_count floats. Thread-safe. */
void crowd__bake_played_positions(const bake_played *played, uint32_t frame, float *skin,
                                  float *out_positions);

/* Sets every clip's box and sphere from the played positions of its frames. */
crowd_result crowd__bake_clip_bounds(crowd_bake *bake, const bake_played *played,
                                     uint32_t thread_count, crowd_error *error);

/* Skinning matrices (12 floats per joint, model space) of `clip` at time_s,
 * or of the rest pose when clip is NULL. locals and models are scratch of
 * joint_count transforms and 16 * joint_count floats. */
void crowd__bake_pose_skin(const crowd_skeleton *skeleton, const crowd_clip *clip, float time_s,
                           crowd_anim_cursor *cursor, crowd_transform *locals, float *models,
                           float *out_skin);

/* Threads: `requested` 0 means one per online CPU; never more than 16 or
 * than there are items, never less than 1. */
uint32_t crowd__bake_thread_count(uint32_t requested, uint32_t item_count);

/* Runs fn(context, worker, item) for every item in [0, item_count) on up to
 * thread_count threads; the calling thread is worker 0 and the only one that
 * calls done(context, items_finished_so_far) (may be NULL). Worker indices
 * are < thread_count, so per-worker scratch can be indexed by them. If
 * threads cannot be started the calling thread does all items. */
typedef void (*bake_item_fn)(void *context, uint32_t worker, uint32_t item);
typedef void (*bake_done_fn)(void *context, uint32_t items_finished);
void crowd__bake_parallel_for(uint32_t item_count, uint32_t thread_count, bake_item_fn fn,
                              bake_done_fn done, void *context);

#endif
