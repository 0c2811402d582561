/* crowd/anim.h - the pose pipeline: sample a clip, blend poses, walk the
 * hierarchy, build skinning matrices.
 *
 * Jobs in ozz-animation's style: pure functions over caller-owned arrays,
 * no allocation, no I/O, no GL, safe to call from many threads on distinct
 * outputs. A pose is an array of skeleton.joint_count crowd_transform.
 *
 * Inputs. Every array is sized by skeleton.joint_count (a pose, the
 * clip's tracks, 16 floats a model matrix, 12 a skinning matrix) and the
 * caller owns it; crowd cannot see an array's length, so that is the
 * caller's part of the contract. What a call can check without touching
 * keys it does: the jobs that write a pose or matrices return false and
 * write nothing when a pointer they need is NULL, a clip has no track
 * array or a track with keys has no times or values or an unknown
 * interpolation, a pose of a blend is missing, or a root transform has no
 * inverse; local-to-model returns false (having written every joint, one
 * whose parent is not before it as a root) when parents are out of order.
 * The key data itself (times non-decreasing and finite, unit rotations) is
 * crowd_asset_validate's: run it on any clip from outside crowd's importer
 * and loader, which do. Queries of the clip-time rule take any number and
 * return a defined value (below).
 *
 * Skinning matrices are 3x4, row-major, float[12] per joint: the three rows
 * of (model_from_root^-1 * model[j] * inverse_bind[j]) with the implicit
 * fourth row (0 0 0 1). This is the layout the skinning code, the BAT
 * texture and the GPU palettes share.
 */
#ifndef CROWD_ANIM_H
#define CROWD_ANIM_H

#include "crowd/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Local joint transform: translation, unit rotation (x, y, z, w), scale. */
typedef struct crowd_transform {
    float translation[3];
    float rotation[4];
    float scale[3];
} crowd_transform;

/* Per-instance playback memory that makes forward playback O(1) per joint:
 * remembers, per track, the key found last time. Zero-initialise it (or call
 * crowd_anim_cursor_reset) before first use and whenever the clip changes.
 * `keys` has crowd_anim_cursor_size() entries, owned by the caller. */
typedef struct crowd_anim_cursor {
    const crowd_clip *clip; /* the clip the hints belong to (reset on change) */
    uint32_t *keys;         /* 3 * joint_count key hints */
    uint32_t key_count;     /* entries in `keys` */
} crowd_anim_cursor;

/* Number of uint32_t a cursor needs for this skeleton: 3 * joint_count (0
 * for NULL or more than CROWD_MAX_JOINTS joints). A cursor whose key_count
 * is smaller is not used (the sample searches every key, as without one). */
uint32_t crowd_anim_cursor_size(const crowd_skeleton *skeleton);
/* Forgets the hints (NULL: nothing to do). */
void crowd_anim_cursor_reset(crowd_anim_cursor *cursor);

/* The clip-time rule (docs/time.md), the one definition that the GPU
 * players mirror (shaders/crowd_time.glsl, the three.js and Godot players)
 * and that tests/common/clip_time_cases.json checks in all of them.
 *
 * Clip time of a clip of duration_s played since start_s at `speed` from
 * `offset_s`, on a clock reading clock_s: t = (clock_s - start_s) * speed +
 * offset_s, in float32, in that order. Looping: t - d * floor(t / d), and a
 * result that rounds to d is 0, so it lies in [0, d). One-shot: clamped to
 * [0, d]. A duration that is not positive, or a t that is not finite, gives
 * 0. Negative speeds play backwards and wrap (or clamp) the same way. */
float crowd_anim_play_time(float clock_s, float start_s, float offset_s, float speed,
                           float duration_s, bool loop);

/* crowd_anim_play_time(time_s, 0, 0, 1, clip->duration_s, clip->loop); 0
 * for a NULL clip. */
float crowd_anim_clip_time(const crowd_clip *clip, float time_s);

/* crowd_anim_play_time in its two steps, for code that needs to know how
 * far a clock went rather than where it is (events: crowd_anim_markers_passed).
 * The play time before wrapping or clamping, t = (clock_s - start_s) *
 * speed + offset_s in float32 in that order; crowd_anim_play_time is
 * crowd_anim_play_position(crowd_anim_play_unwrapped(...), d, loop).time_s. */
float crowd_anim_play_unwrapped(float clock_s, float start_s, float offset_s, float speed);

/* Where play time t lies: time_s is the clip time crowd_anim_play_time
 * gives, loop the whole loops before it, floor(t / d), counting a t that
 * rounds onto the seam as the next loop's start (so positions grow with t).
 * One-shot clips, durations that are not positive and times that are not
 * finite are loop 0. */
typedef struct crowd_play_position {
    double loop;
    float time_s;
} crowd_play_position;

crowd_play_position crowd_anim_play_position(float t, float duration_s, bool loop);

/* Events: named markers at clip times (crowd_bake_event). A clip's markers
 * for crowd_anim_markers_passed: times_s ascending, each in [0, duration_s]
 * (crowd_anim_markers_valid), played looping (wrap) or once (clamp). */
typedef struct crowd_clip_markers {
    const float *times_s;
    uint32_t count;
    float duration_s;
    bool loop;
} crowd_clip_markers;

/* crowd_marker_hit.marker of a one-shot clip's end. */
#define CROWD_MARKER_END UINT32_MAX
/* Hits an interval can give at most: the rest of the loop it starts in, the
 * whole loops it crosses folded into one pass, the start of the loop it ends
 * in, and the end of a one-shot clip. */
#define CROWD_MARKER_HITS_MAX(marker_count) (3u * (uint32_t)(marker_count) + 1u)

typedef struct crowd_marker_hit {
    uint32_t marker; /* index into times_s, or CROWD_MARKER_END */
    /* Times the interval passed it in this pass: 1, or the whole loops
     * crossed (saturated at UINT32_MAX) in the folded pass. */
    uint32_t count;
} crowd_marker_hit;

/* True when markers is not NULL, times_s is not NULL (or count is 0), the
 * duration is positive and finite, and every time is finite, in [0,
 * duration_s] and not below the one before. */
bool crowd_anim_markers_valid(const crowd_clip_markers *markers);

/* The markers that play time passes going from from_t to to_t (unwrapped
 * play times, crowd_anim_play_unwrapped), in the order it passes them. The
 * positions (crowd_anim_play_position) decide: moving forward, a marker at
 * clip time e of loop n fires when (n, e) lies in (from, to]; moving
 * backwards (negative speed, or a clock that went back), in [to, from): a
 * marker fires when the clip time reaches it, not when it leaves it.
 * from_included closes the interval at from as well: a clip that has just
 * started fires its markers at its starting time. Equal positions (speed 0,
 * a one-shot clip held at its end) pass nothing. A one-shot clip's end,
 * CROWD_MARKER_END, fires when its clip time reaches the end it is held at:
 * the duration going forward, 0 going backwards. Across several loops the
 * whole loops are folded into one pass of every marker with count = the
 * loops, so the hits are bounded by CROWD_MARKER_HITS_MAX(count) however
 * far the clock went. Writes at most capacity hits into out (which may be
 * NULL when capacity is 0) and returns how many the interval has. It
 * checks in O(1) what it can (0 for NULL markers, NULL times with a count,
 * a duration that is not positive and finite); that the times are sorted
 * and inside the clip (crowd_anim_markers_valid, O(count)) is the caller's
 * part, so the call costs O(log count + hits). */
uint32_t crowd_anim_markers_passed(const crowd_clip_markers *markers, float from_t, float to_t,
                                   bool from_included, crowd_marker_hit *out, uint32_t capacity);

/* Root motion (crowd_bake_desc.root_motion, docs/manifest.md): the
 * horizontal path and the heading of a clip's root joint, taken out of the
 * baked frames so that they play in place, for the game to move the
 * character by instead. Samples at times_s (ascending, the first 0, the
 * last the clip's duration), linear between them; sample i is x, z, heading
 * at samples[3i..3i+2]: the root's model-space x and z minus its x and z at
 * time 0 (`start`), and its turn about +Y since time 0 in radians (a
 * positive turn takes +Z towards +X), unwrapped so that a whole turn counts
 * 2 pi. The in-place character is the source moved back by the motion
 * T(o(t)) * R_y(h(t)) of its model origin, o(t) = start + path(t) -
 * R_y(h(t)) * start: its root stays at start, its heading at time 0's. */
typedef struct crowd_root_motion {
    uint32_t joint;        /* the joint it was taken from */
    float start[2];        /* that joint's model-space x, z at time 0 */
    uint32_t sample_count; /* 0: the clip has none; else >= 1 */
    float *times_s;        /* sample_count */
    float *samples;        /* 3 * sample_count: x, z, heading */
} crowd_root_motion;

/* True when motion is not NULL, has samples with their arrays, its times
 * start at 0, ascend strictly and end at duration_s (one sample at 0 when
 * the duration is 0), and every number is finite. O(samples). */
bool crowd_anim_root_motion_valid(const crowd_root_motion *motion, float duration_s);

/* The path and heading (x, z, heading) at clip time t, linear between
 * samples, clamped to the first and last. false, out untouched: motion or
 * out NULL, or no samples. */
bool crowd_anim_root_motion_at(const crowd_root_motion *motion, float clip_time_s, float out[3]);

/* How far the character goes from unwrapped play time from_t to to_t
 * (crowd_anim_play_unwrapped: speed, direction and start are in them) of a
 * clip of duration_s played looping or once: the motion of its model
 * origin between the two, F(from)^-1 * F(to), as a displacement in the
 * character's own frame at from (x, 0, z: its vertical motion stays in the
 * frames) and a turn about +Y in radians. F of play time t is F_end^n *
 * F(clip time), n and the clip time from crowd_anim_play_position: each
 * whole loop adds the loop's displacement turned by the heading gathered
 * before it, in closed form however many loops; a one-shot clip is clamped
 * to [0, duration]. A duration of 0 (a single pose) moves nothing: zeros.
 * false, nothing written: a NULL pointer, no samples, a duration that is
 * negative or not finite, or a time that is not finite. */
/* The clip's root speed, for matching playback rate to ground speed: the
 * length of the path over the whole clip (its last sample's x, z) divided
 * by duration_s, in model units a second (m/s for glTF); 0 for a NULL
 * motion, no samples or a duration that is not positive. */
float crowd_anim_root_motion_speed(const crowd_root_motion *motion, float duration_s);

bool crowd_anim_root_motion_delta(const crowd_root_motion *motion, float duration_s, bool loop,
                                  float from_t, float to_t, float out_delta_position[3],
                                  float *out_delta_heading);

/* Ground speed (blends matched to a character's speed over the ground,
 * crowd_instance_set_ground_speed): the speed at which the clip's planted
 * foot moves backwards relative to the character, in model units a second
 * (m/s for glTF), so a character moving at that speed keeps its planted
 * foot still. From the skeleton alone:
 *   - sample_count samples spread evenly over the clip
 *     (CROWD_GROUND_SPEED_RATE a second, 16 to CROWD_GROUND_SPEED_SAMPLES_MAX);
 *   - at each, the lowest candidate joint in model Y: those `feet` flags
 *     (joint_count bytes, non-zero = a candidate; crowd_anim_foot_joints
 *     picks them from a mesh), or with feet NULL every leaf joint (no
 *     children: toes and feet, not a root at the origin; rigs with helper
 *     leaves, IK targets or poles, need the flags);
 *   - a sample is a contact when that height is within 3 % of the joints'
 *     vertical extent above the clip's lowest (contact_height) and the
 *     joint moves the way the deepest contact's does (a swing foot skimming
 *     the ground forwards is no contact);
 *   - at each contact, the joint's horizontal (x, z) velocity by a central
 *     difference, less the loop's net root (joint 0) displacement per second
 *     (0 for an in-place clip; a clip that keeps its root translation moves
 *     its root instead of its foot);
 *   - speed = the length of their mean: the planted foot's net travel per
 *     second of contact. At that speed the foot ends each stance where it
 *     began, even where the clip moves it unevenly within the stance
 *     (robot.glb's walk: 0.7 to 7 units/s around a mean of 3.7).
 * An in-place clip, the same clip with its root motion extracted and the
 * same clip keeping it measure the same. */
#define CROWD_GROUND_SPEED_RATE 240.0f
#define CROWD_GROUND_SPEED_SAMPLES_MAX 512u
typedef struct crowd_ground_speed {
    float speed;              /* >= 0; 0 with no contact sample or duration 0 */
    float contact_height;     /* the clip's lowest joint height, model Y */
    uint32_t sample_count;    /* samples taken (0 for a duration of 0) */
    uint32_t contact_samples; /* of them, contacts */
} crowd_ground_speed;

/* The ground speed of `clip` on `skeleton` into *out. scratch_pose holds
 * joint_count transforms and scratch_models 16 * joint_count floats (the
 * caller's: no allocation). Costs 2 + 3 * sample_count samples and
 * hierarchy walks. false, nothing written: a pointer NULL (but feet), no
 * joints or more than CROWD_MAX_JOINTS, no candidate (feet all zero), a
 * duration that is negative or not finite, or a sample that
 * crowd_anim_sample refuses. */
bool crowd_anim_clip_ground_speed(const crowd_skeleton *skeleton, const crowd_clip *clip,
                                  const uint8_t *feet, crowd_transform *scratch_pose,
                                  float *scratch_models, crowd_ground_speed *out);

/* The same for two clips locked in phase (each at the same fraction of
 * its duration, as a blend plays them: crowd/gpu.h "blends") with their
 * local poses blended, weight_b of clip_b (crowd_anim_blend), over one
 * cycle of lerp(d_a, d_b, weight_b) seconds: a blend's foot travel is not
 * the two clips' lerped, as their stances differ in length. scratch_poses
 * holds 2 * joint_count transforms. false also for a NULL clip_b or a
 * weight outside [0, 1]. */
bool crowd_anim_blend_ground_speed(const crowd_skeleton *skeleton, const crowd_clip *clip_a,
                                   const crowd_clip *clip_b, float weight_b, const uint8_t *feet,
                                   crowd_transform *scratch_poses, float *scratch_models,
                                   crowd_ground_speed *out);

/* The joints crowd_anim_clip_ground_speed should watch (out_feet:
 * joint_count flags): those that skin some vertex of `mesh` (weight > 0;
 * with mesh NULL, the leaf joints) and that sit, in the rest pose, within
 * 10 % of its vertical extent above the lowest of them: feet and toes, not
 * a helper joint that skins nothing (robot.glb's IK pole targets) nor the
 * fingers of a long arm that swing below the feet in a run. Scratch as for
 * the ground speed. Returns how many; 0, nothing written, for a NULL
 * pointer (but mesh), no joints or more than CROWD_MAX_JOINTS, or a mesh
 * with vertices and no joint or weight arrays. */
uint32_t crowd_anim_foot_joints(const crowd_skeleton *skeleton, const crowd_mesh *mesh,
                                crowd_transform *scratch_pose, float *scratch_models,
                                uint8_t *out_feet);

/* How a clip's baked frames are spread over its duration d.
 * CROWD_FRAMES_END (bakes of manifest version 3): frame k is the pose at
 * k / fps for k < frame_count - 1, and the last frame is the pose at d, so a
 * one-shot clip's end and a loop's seam are exact; the last step is
 * d - (frame_count - 2) / fps long, which is 1 / fps when d is a whole number
 * of frames. CROWD_FRAMES_WRAP and CROWD_FRAMES_CLAMP are the layouts of
 * older bakes (looping and one-shot clips of versions 1 and 2): frame k is the
 * pose at k / fps; WRAP steps from its last frame back to frame 0, CLAMP
 * holds its last frame. */
typedef enum crowd_frame_layout {
    CROWD_FRAMES_END = 0,
    CROWD_FRAMES_WRAP,
    CROWD_FRAMES_CLAMP,
} crowd_frame_layout;

typedef struct crowd_clip_frames {
    float fps;            /* > 0 */
    float duration_s;     /* >= 0 */
    uint32_t frame_count; /* >= 1 */
    crowd_frame_layout layout;
} crowd_clip_frames;

/* The two frames (of the clip, 0-based) around clip time t and the weight of
 * the second: pose = mix(frame0, frame1, weight), weight in [0, 1]. END:
 * with f = t * fps and k = floor(f), t >= d or k >= frame_count - 1 gives the
 * last frame alone; else frames k and k + 1 with weight (f - k) / s, where
 * the step s is 1, or d * fps - k for the last step. WRAP and CLAMP: weight
 * f - k, frames k % frame_count and the next (WRAP: frame 0 after the last;
 * CLAMP: the last frame held). A t below 0 (or not finite) is frame 0. A
 * frame_count of 0 counts as 1; NULL frames give frames 0, 0, weight 0. */
typedef struct crowd_frame_pair {
    uint32_t frame0, frame1;
    float weight;
} crowd_frame_pair;

crowd_frame_pair crowd_anim_frame_pair(const crowd_clip_frames *frames, float clip_time_s);

/* The one frame nearest clip time t, for playback that fetches one frame
 * instead of two (the world's far instances, whose frame-to-frame step
 * projects below half a pixel): the pair's frame1 when its weight is at
 * least 0.5, else frame0. Moves a vertex by at most half its step from the
 * interpolated pose. NULL frames give frame 0. */
uint32_t crowd_anim_frame_nearest(const crowd_clip_frames *frames, float clip_time_s);

/* Frames an END layout needs for a clip of duration_s at fps: 1 when the
 * duration is 0, else 1 + the steps, ceil(d * fps) with a thousandth of a
 * frame of slack (so a duration that is a whole number of frames, up to
 * float rounding, gets no sliver of a last step). UINT32_MAX when that is not
 * finite or does not fit. */
uint32_t crowd_anim_frame_count(float duration_s, float fps);

/* The clip time at which frame k was baked; a k at or past frame_count is
 * the last frame (0 for NULL frames or an fps that is not positive). */
float crowd_anim_frame_time(const crowd_clip_frames *frames, uint32_t k);

/* The rest pose (rest TRS of every joint) into out[joint_count]. false:
 * skeleton, its rest arrays or out NULL. */
bool crowd_anim_rest_pose(const crowd_skeleton *skeleton, crowd_transform *out);

/* Samples `clip` at `time_s` (already mapped by crowd_anim_clip_time or not:
 * it is mapped here too) into out[joint_count]. Joints without a track keep
 * their rest value. Step, linear (slerp along the shortest arc for
 * rotations) and glTF cubic-spline keys; cubic rotations are normalized.
 * `cursor` may be NULL (binary search every call). false, nothing written:
 * skeleton, clip, out, clip->tracks or a rest array NULL, more than
 * CROWD_MAX_JOINTS joints, or a track with keys and NULL times or values or
 * an unknown interpolation. */
bool crowd_anim_sample(const crowd_skeleton *skeleton, const crowd_clip *clip, float time_s,
                       crowd_anim_cursor *cursor, crowd_transform *out);

/* Weighted blend of pose_count poses into out. Translations and scales are
 * weighted sums, rotations a normalized lerp with hemisphere correction
 * against the first pose with weight > 0. Weights are normalized; if they
 * sum to 0 (or pose_count is 0) the result is the rest pose. out may alias
 * poses[0]. false, nothing written: skeleton or out NULL, or pose_count > 0
 * with poses, weights or one of the poses NULL. */
bool crowd_anim_blend(const crowd_skeleton *skeleton, const crowd_transform *const *poses,
                      const float *weights, uint32_t pose_count, crowd_transform *out);

/* Model matrices (column-major float[16] each) of every joint from a local
 * pose: model[j] = model[parent] * local[j], roots use skeleton.root_transform.
 * out_models has 16 * joint_count floats. false: a pointer NULL (nothing
 * written), or a parent not before its joint (that joint is placed as a
 * root, every joint written). */
bool crowd_anim_local_to_model(const crowd_skeleton *skeleton, const crowd_transform *locals,
                               float *out_models);

/* Skinning matrices (3x4 row-major, 12 floats per joint) from model matrices:
 * inverse(root_world) * model[j] * inverse_bind[j]. `root_world` (column-major
 * 4x4) is the world transform of the character's root node in the file, the
 * space the caller wants vertices in; NULL means identity (keep model space).
 * out_skin has 12 * joint_count floats. false, nothing written: a pointer
 * NULL, or root_world singular or not finite. */
bool crowd_anim_skin_matrices(const crowd_skeleton *skeleton, const float *models,
                              const float *root_world, float *out_skin);

#ifdef __cplusplus
}
#endif

#endif
