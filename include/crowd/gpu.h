/* crowd/gpu.h - a crowd world drawn into the application's own frame:
 * archetypes (character types), their instances, five playback modes,
 * colour and depth-only passes, the game's own shading, and props (static
 * meshes on sockets) carried and swapped per instance ("Props" below).
 *
 * The application owns the OpenGL context, the framebuffer, the camera and
 * the frame loop; crowd owns its buffers, textures and shaders and records
 * its draws into whatever draw framebuffer and viewport the application has
 * bound, depth-tested against what the application already drew there. crowd
 * never creates a context, never reads pixels back, never waits for the GPU
 * (no glFinish, no glGetError in release builds on the per-frame path) and
 * never changes the framebuffer, viewport, depth function or mask, scissor,
 * stencil or pixel store state. Every other piece of GL state it touches it
 * restores before returning (see "GL state" below).
 *
 * A world needs an OpenGL context current on the calling thread, from any
 * source (EGL, GLX, WGL, GLFW, SDL, a game engine); GL entry points are
 * resolved through libepoxy from whatever is current.
 *
 * Tiers. One API, two ways of drawing (crowd_world_desc.tier,
 * crowd_world_stats.tier):
 *   gl45      OpenGL 4.5 core: records and materials in storage buffers, a
 *             compute pass culls and picks LODs, one multi-draw indirect
 *             per archetype and pass, persistently mapped streams.
 *   portable  OpenGL 3.3 core, OpenGL ES 3.0+, WebGL2: records as instanced
 *             attributes bound at a per-draw offset, culling and LOD choice
 *             on the CPU (the same rule as the compute pass; blocks of 64
 *             records tested first, each around its members) into a buffer
 *             streamed by orphaning, one glDrawElementsInstanced per
 *             archetype, LOD and pass (cpu mode: per character); materials
 *             and gpu mode's palettes in textures (palettes in a ring of
 *             CROWD_WORLD_STREAM_FRAMES textures, fenced). CROWD_CULL_GPU
 *             culls on the CPU there. Timing gives CPU times only.
 * The same shader sources compile for both (#version 450, 330 core or
 * 300 es before them).
 *
 * Archetypes. Each character type is an archetype made from an asset, a
 * bake, or both (crowd_archetype_desc), with its own playback mode that can
 * change at run time (instances keep their state):
 *   static  bind pose, instance transform only: the floor. 1 draw per pass.
 *   cpu     the CPU samples, blends and skins every character every frame and
 *           uploads its vertices; one draw per character (the skinned-mesh
 *           renderer baseline).
 *   gpu     the CPU samples, blends and builds skinning matrices; palettes go
 *           to a storage buffer; the vertex shader skins. 1 draw per pass.
 *           Instances may show the game's own poses instead of clips (IK,
 *           ragdoll: crowd_instance_set_pose), in cpu mode too.
 *   bat     the vertex shader fetches skinning matrices from the baked
 *           bone-matrix texture. 1 draw per pass.
 *   vat     the vertex shader fetches positions and normals from the baked
 *           vertex animation texture. 1 draw per pass.
 * cpu and gpu need the skeleton and clips: the source asset, or a bake
 * loaded with its runtime clips (crowd_bake_anim, manifest version 4); bat
 * and vat need a crowd_bake (built in memory with crowd_bake_build or loaded
 * from a folder with crowd_bake_load). An archetype made from a loaded bake
 * alone plays every mode, or static, bat and vat when the bake is older
 * than version 4.
 *
 * A frame. Once per frame call crowd_world_update(time) (sets the clock;
 * cpu and gpu modes sample and upload here), then crowd_world_draw once per
 * pass and view: a depth-only pass into a shadow map, a colour pass into the
 * application's framebuffer, in any order and as often as needed.
 *
 * Time. Each instance plays its clip at clip time
 *     t = (now - start) * speed + time_offset_s
 * wrapped into [0, duration) when looping, clamped to [0, duration] when not
 * (crowd_anim_play_time, docs/time.md), where `now` is the world's clock (the
 * time of the last update, or what crowd_world_set_time set) and `start` the
 * clock when the instance was added or last changed clip. bat and vat
 * interpolate linearly between the two baked frames around t by
 * crowd_anim_frame_pair, never across a clip boundary: in bakes of version 3
 * a clip's last frame is its pose at its duration, so a one-shot clip held
 * at its end shows its last pose and a loop's last step has its true length;
 * older bakes play as they did. Times are 32-bit floats on the GPU: past
 * 16384 s (4.5 hours) of clock a frame's time moves in 2 ms steps, so long
 * sessions should restart the clock (set_time, update).
 *
 * Crossfade. crowd_instance_play(instance, clip, crossfade_s) keeps the old
 * clip running on its own clock and fades to the new one, started at time 0,
 * with weight w = (now - start) / crossfade_s. cpu and gpu blend the two
 * sampled local poses (crowd_anim_blend, exact); bat blends the two clips'
 * skinning matrices per influence and vat the two skinned positions and
 * normals: both are linear in model space, which differs from blending
 * local rotations when the clips' joint rotations differ a lot (a limb
 * swinging through a large angle cuts the chord instead of the arc).
 *
 * Every instance's state lives in one GPU buffer per archetype that persists
 * across frames; adding, changing or removing one instance writes one
 * record (the portable tier instead streams the records each pass draws). A frame where nobody
 * changes state uploads nothing in static, bat and vat modes. cpu and gpu modes write each frame's
 * vertices or palettes into one of CROWD_WORLD_STREAM_FRAMES sections of a persistently mapped
 * buffer, each guarded by a fence: the CPU only waits when the GPU is that
 * many frames behind, never for the frame the GPU is drawing.
 *
 * GL state. crowd_world_draw leaves untouched: the bound draw and read
 * framebuffers, viewport, depth function, depth mask, depth range and clip
 * control, scissor, stencil, polygon offset, pixel store, clear values. It
 * changes: the current program, the vertex array binding, the active
 * texture unit, the 2D and 2D-array texture and sampler bindings of units
 * 0-3 and 6 (the side table of fading and blending instances), the generic and indexed (1-5) shader
 * storage buffer bindings, the draw-indirect buffer binding, the GL_DEPTH_TEST, GL_CULL_FACE and
 * GL_BLEND enables (crowd draws depth-tested, without culling or blending) and, in the depth pass,
 * the colour write mask. The portable tier changes units 0-6 (4: the materials, 5: gpu mode's
 * palettes) and the GL_ARRAY_BUFFER binding, and no storage or draw-indirect binding (its contexts
 * may have none). What it does with them after drawing is the world's crowd_state_policy:
 *   CROWD_STATE_RESTORE (default) reads each of them before drawing and puts
 *     it back after: the application's state is as it left it. The reads
 *     are glGet calls; a driver that runs GL on a thread of its own (Mesa's
 *     mesa_glthread) answers some of them only after finishing the work
 *     queued before, which on a software rasterizer is the previous frame.
 *   CROWD_STATE_RESET reads only what drivers keep on the calling side (the
 *     program, the active texture unit, the draw-indirect buffer, the three
 *     enables), puts those back,
 *     and leaves the rest at GL's defaults: vertex array 0, no texture or
 *     sampler on units 0-3 and 6, storage buffer bindings 0, colour mask all on;
 *     on the portable tier also units 4-5, the array buffer, and the
 *     unpack state (alignment 4, row length and skips 0, no pixel unpack
 *     buffer), which its gpu-mode palette uploads would otherwise read back.
 *     For engines that bind what they need before each draw anyway.
 * World creation, archetype creation and mode changes always restore.
 *
 * Ownership: create/destroy pairs, destroy(NULL) is a no-op. An archetype
 * borrows its asset and bake: cpu and gpu modes read the skeleton and clips
 * every frame, and switching to bat or vat uploads the bake's textures then,
 * so both must outlive the archetype (or the world).
 * Names. Making and removing a thing are verbs of its container
 * (crowd_world_add_archetype, crowd_world_add_instance,
 * crowd_world_remove_instance); a call on one thing is
 * crowd_<thing>_<verb> (crowd_instance_play, crowd_archetype_set_mode).
 *
 * Bad handles. A handle that is not live (zero, removed, of another world)
 * or a NULL world: functions that change something return
 * CROWD_ERROR_INVALID_ARGUMENT; queries (they only read) return the zero
 * of their answer (false, 0, 0.0, the zero handle {0}, or "" for a string,
 * never NULL) and write nothing through their output pointers. Where zero
 * is a real answer for a live handle (a mode, a clip index) the query
 * returns bool and writes the answer through a pointer, so false always
 * means "no answer". crowd_world_get_stats writes zeros for a NULL world.
 *
 * Threading: a world belongs to the thread on which its context is current;
 * every function taking a world requires that context to be current. No
 * global state.
 */
#ifndef CROWD_GPU_H
#define CROWD_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/anim.h"
#include "crowd/asset.h"
#include "crowd/bake.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- modes -------------------------------------------------------------- */

typedef enum crowd_gpu_mode {
    CROWD_GPU_MODE_STATIC = 0,
    CROWD_GPU_MODE_CPU,
    CROWD_GPU_MODE_GPU,
    CROWD_GPU_MODE_BAT,
    CROWD_GPU_MODE_VAT,
    CROWD_GPU_MODE_COUNT
} crowd_gpu_mode;

/* "static", "cpu", "gpu", "bat", "vat"; "?" when out of range. */
const char *crowd_gpu_mode_name(crowd_gpu_mode mode);
/* Parses a mode name; false when unknown. */
bool crowd_gpu_mode_parse(const char *name, crowd_gpu_mode *out);

/* ---- world -------------------------------------------------------------- */

#define CROWD_WORLD_DEFAULT_MAX_INSTANCES 65536u
#define CROWD_WORLD_MAX_INSTANCES (1u << 22)
#define CROWD_WORLD_MAX_ARCHETYPES 256u
/* Sections of the cpu and gpu modes' per-frame streams (see above). */
#define CROWD_WORLD_STREAM_FRAMES 3u
/* Base-colour textures of an archetype are resized to one common size, at
 * most this. */
#define CROWD_WORLD_MAX_MATERIAL_TEXTURE 1024u

typedef struct crowd_world crowd_world;

/* Handles: non-zero ids, an index plus a generation, so the handle of a
 * removed archetype or instance stays invalid (CROWD_ERROR_INVALID_ARGUMENT)
 * when its index is reused, until the generation wraps (1023 reuses of one
 * instance index, 255 of an archetype index). Zero is never valid. */
typedef struct crowd_archetype {
    uint32_t id;
} crowd_archetype;
typedef struct crowd_instance {
    uint32_t id;
} crowd_instance;

typedef enum crowd_state_policy {
    CROWD_STATE_RESTORE = 0, /* put back every piece of state crowd changed */
    CROWD_STATE_RESET,       /* no waiting reads: bindings left at GL's defaults */
} crowd_state_policy;

/* What the world draws with (see "Tiers" above). */
typedef enum crowd_gpu_tier {
    CROWD_TIER_AUTO = 0, /* GL 4.5 on a 4.5 core context, else portable */
    CROWD_TIER_GL45,     /* storage buffers, compute culling, multi-draw indirect */
    CROWD_TIER_PORTABLE, /* GL 3.3 core, GLES 3.0, WebGL2: CPU culling, instanced draws */
} crowd_gpu_tier;

/* "auto", "gl45", "portable"; "?" for anything else. */
const char *crowd_gpu_tier_name(crowd_gpu_tier tier);

typedef struct crowd_world_desc {
    /* Instances of all archetypes together; 0 = CROWD_WORLD_DEFAULT_MAX_INSTANCES,
     * at most CROWD_WORLD_MAX_INSTANCES. Memory grows with use, not with this. */
    uint32_t max_instances;
    /* Gather CPU and GPU times (crowd_world_stats): clock reads around the
     * frame's work, and GL_TIME_ELAPSED queries around each draw whose
     * results are collected frames later, when the GPU has them (never by
     * waiting). While timing is on, the application must not have a
     * GL_TIME_ELAPSED query of its own running across crowd's draws. */
    bool timing;
    crowd_state_policy state; /* see "GL state" above */
    crowd_logger logger;
    /* Where every CPU block of the world, its archetypes and instances
     * comes from (crowd/result.h); freed through it by crowd_world_destroy,
     * so it must outlive the world. Zeroed: malloc and free. GL objects are
     * the driver's. */
    crowd_allocator allocator;
    /* CROWD_TIER_AUTO (0): the GL 4.5 tier where the context is 4.5 core.
     * CROWD_TIER_PORTABLE runs on any context that can hold a world (a 4.5
     * one included: for tests and comparisons); CROWD_TIER_GL45 on a
     * context below 4.5 fails. */
    crowd_gpu_tier tier;
} crowd_world_desc;

/* Makes a world on the current context. desc may be NULL. Errors:
 * CROWD_ERROR_GPU (no current context, a context neither tier runs on, or
 * CROWD_TIER_GL45 asked of a context below 4.5 core),
 * CROWD_ERROR_INVALID_ARGUMENT (max_instances above the limit, unknown
 * state policy, an allocator with only one of its two functions). */
crowd_result crowd_world_create(const crowd_world_desc *desc, crowd_world **out_world,
                                crowd_error *error);
/* Deletes every GL object of the world; its context must be current. */
void crowd_world_destroy(crowd_world *world);

/* ---- archetypes --------------------------------------------------------- */

typedef struct crowd_archetype_desc {
    /* The character. asset alone: static, cpu, gpu. bake alone (a loaded
     * folder): every mode on bake->asset's mesh, skeleton and runtime clips
     * (static, bat, vat for a bake without runtime clips). Both (bake built
     * from this asset): every mode. Clips are the bake's when a bake is
     * given, else the asset's. */
    const crowd_asset *asset;
    const crowd_bake *bake;
    crowd_gpu_mode mode; /* initial mode; 0 = static */
    /* Optional GLSL defining the game's own shading,
     *     vec4 crowd_shade(crowd_surface s);
     * returning a linear RGBA colour, which replaces crowd's default shading
     * in the colour pass while every mode's vertex work stays crowd's. It
     * is compiled after crowd's fragment stage in the world's tier's GLSL:
     * 4.50 core on the GL 4.5 tier, 3.30 core or ES 3.00 (all highp) on the
     * portable one. A function meant for both writes the subset the three
     * share: no storage buffers, no image load/store, no layout(location)
     * or layout(binding) on uniforms (CROWD_UNIFORM(n) and CROWD_BINDING(n)
     * expand to them on 4.50 and to nothing elsewhere), no implicit
     * int-to-float conversions, float literals with a digit after the point
     * or an exponent; CROWD_TIER_GL45 or CROWD_TIER_PORTABLE (and GL_ES on
     * ES) is defined for what must differ. On the GL 4.5 tier it may read
     * the application's own uniform blocks, storage buffers and textures at
     * binding points 8 and up, bound by the application before the draw
     * (crowd binds none of those: a shadow map, a fog colour); the portable
     * tier sets no binding of the application's. The inputs:
     *     struct crowd_surface {
     *         vec3 world_position;  // metres
     *         vec3 normal;          // world space, unit, facing the viewer
     *         vec2 uv;              // uv0
     *         uint material;        // index into the asset's materials
     *         vec4 base_color;      // material factor x base-colour texture x tint
     *         vec4 tint;            // the instance's tint
     *         uint instance;        // the instance's handle id (crowd_instance.id)
     *         uint archetype;       // the archetype's handle id
     *         uint lod;             // the LOD it is drawn at (0 unless culled with LODs)
     *         float metallic;       // the material's metallic factor, [0, 1]
     *         float roughness;      // its roughness factor (glTF's, perceptual), [0, 1]
     *     };
     * and, callable from it, `vec3 crowd_default_lighting(crowd_surface s)`,
     * crowd's own shading under the frame's crowd_light: glTF's
     * metallic-roughness model as three.js's MeshStandardMaterial computes
     * it (Lambert diffuse, GGX specular with Schlick Fresnel for the
     * directional light; the sky/ground hemisphere as irradiance only). NULL = crowd's
     * default shading. A function that does not compile or link makes
     * crowd_world_add_archetype fail with CROWD_ERROR_GPU, the compiler's log
     * in the error's reason. */
    const char *fragment_source;
    const char *name; /* for messages and stats; NULL = the bake's or asset's name */
    /* Compile the programs of every mode the archetype can play now, so no
     * later crowd_archetype_set_mode compiles (a compile takes tens of
     * milliseconds, more on a software rasterizer). false: a mode's
     * programs are compiled when the archetype first uses it. Either way
     * archetypes of one variant share them (crowd_world_stats.program_count). */
    bool warm_programs;
} crowd_archetype_desc;

/* Uploads the mesh, materials and (when the mode needs them) the baked
 * textures, and compiles the mode's shaders unless an archetype of the
 * same variant already did (desc.warm_programs: every mode's). Errors:
 * CROWD_ERROR_INVALID_ARGUMENT (no asset or bake, bake and asset of
 * different vertex counts, mode not playable with what was given),
 * CROWD_ERROR_INVALID_DATA (a loaded bake whose layout does not hold),
 * CROWD_ERROR_LIMIT (too many archetypes, more than
 * CROWD_ARCHETYPE_MAX_CLIPS clips, a texture beyond what the GL
 * implementation allows), CROWD_ERROR_GPU (a shader failed to compile, with
 * the GL log, or a GL call failed). Nothing is left behind on failure. */
#define CROWD_ARCHETYPE_MAX_CLIPS 128u
crowd_result crowd_world_add_archetype(crowd_world *world, const crowd_archetype_desc *desc,
                                       crowd_archetype *out_archetype, crowd_error *error);
/* Removes an archetype, its instances and GL objects. */
crowd_result crowd_world_remove_archetype(crowd_world *world, crowd_archetype archetype,
                                          crowd_error *error);
uint32_t crowd_world_archetype_count(const crowd_world *world);

/* Whether `mode` can play with what the archetype was given. */
bool crowd_archetype_has_mode(const crowd_world *world, crowd_archetype archetype,
                              crowd_gpu_mode mode);
/* Switches mode; the previous mode's per-mode buffers and textures are
 * released and the new mode's created (instances keep their state).
 * CROWD_ERROR_UNSUPPORTED when !has_mode. */
crowd_result crowd_archetype_set_mode(crowd_world *world, crowd_archetype archetype,
                                      crowd_gpu_mode mode, crowd_error *error);
/* The archetype's mode into *out_mode. */
bool crowd_archetype_get_mode(const crowd_world *world, crowd_archetype archetype,
                              crowd_gpu_mode *out_mode);
/* The desc's name (or the bake's or asset's), owned by the world. */
const char *crowd_archetype_name(const crowd_world *world, crowd_archetype archetype);

/* Clips the archetype's instances can play. */
typedef struct crowd_clip_info {
    const char *name;
    float duration_s;
    bool loop; /* what an instance with CROWD_LOOP_CLIP does */
} crowd_clip_info;
uint32_t crowd_archetype_clip_count(const crowd_world *world, crowd_archetype archetype);
/* False also when clip >= clip_count. Strings owned by the world, valid
 * while the archetype lives. */
bool crowd_archetype_get_clip(const crowd_world *world, crowd_archetype archetype, uint32_t clip,
                              crowd_clip_info *out);
/* The index of the clip named `name` into *out_clip; false also when no
 * clip has that name (or name is NULL). */
bool crowd_archetype_find_clip(const crowd_world *world, crowd_archetype archetype,
                               const char *name, uint32_t *out_clip);
/* Bind-pose bounds of the character (object space, before instance
 * transforms). */
bool crowd_archetype_bind_bounds(const crowd_world *world, crowd_archetype archetype, float min[3],
                                 float max[3]);

/* ---- instances ---------------------------------------------------------- */

typedef enum crowd_loop_mode {
    CROWD_LOOP_CLIP = 0, /* the clip's own flag */
    CROWD_LOOP_ON,
    CROWD_LOOP_OFF, /* play once, hold the last frame */
} crowd_loop_mode;

typedef struct crowd_instance_desc {
    float position[3];   /* world, metres */
    float heading_rad;   /* rotation about +Y */
    float scale;         /* uniform; 0 = 1 */
    uint32_t clip;       /* < the archetype's clip count (0 when there are none) */
    float time_offset_s; /* clip time at the world's clock now */
    float speed;         /* playback rate; 0 = 1; negative plays backwards */
    bool paused;         /* speed 0: holds clip time time_offset_s */
    crowd_loop_mode loop;
    /* Multiplies the base colour; all zero = (1, 1, 1, 1). Clamped to [0, 1]
     * and kept as 8 bits a channel (the GPU record's unorm8). */
    float tint[4];
} crowd_instance_desc;

/* Adds an instance of `archetype`; its record is written to the GPU at once.
 * Errors: CROWD_ERROR_INVALID_ARGUMENT (invalid archetype, clip out of range,
 * non-finite values), CROWD_ERROR_LIMIT (max_instances reached). */
crowd_result crowd_world_add_instance(crowd_world *world, crowd_archetype archetype,
                                      const crowd_instance_desc *desc, crowd_instance *out_instance,
                                      crowd_error *error);
/* Replaces an instance's whole state (any crossfade ends). */
crowd_result crowd_instance_update(crowd_world *world, crowd_instance instance,
                                   const crowd_instance_desc *desc, crowd_error *error);
/* Moves an instance, keeping its playback state. scale 0 = 1. */
crowd_result crowd_instance_set_transform(crowd_world *world, crowd_instance instance,
                                          const float position[3], float heading_rad, float scale,
                                          crowd_error *error);
/* Changes the playback rate at the world's clock without a jump in pose
 * (literal: 0 holds the current frame). */
crowd_result crowd_instance_set_speed(crowd_world *world, crowd_instance instance, float speed,
                                      crowd_error *error);
/* Starts `clip` from time 0 at the world's clock, crossfading from the
 * current pose's clip over crossfade_s seconds (0 = cut). The old clip keeps
 * playing during the fade. Speed and loop mode carry over. */
crowd_result crowd_instance_play(crowd_world *world, crowd_instance instance, uint32_t clip,
                                 float crossfade_s, crowd_error *error);
/* ---- blends (1D blend spaces) and speed matching ---------------------------
 *
 * A blend lays clips of one archetype along one parameter, each at a
 * threshold (idle 0, walk 1.4, run 3.5 m/s). An instance playing it at
 * parameter p shows the two clips of the segment p falls in, thresholds
 * t_i <= p < t_i+1, mixed by w = (p - t_i) / (t_i+1 - t_i) (below the first
 * threshold the first clip alone, above the last the last alone), with
 * their phases locked: both play the same fraction of their cycle (the
 * blend's cycle lasts D = lerp(d_i, d_i+1, w) seconds at rate 1), so the
 * feet of a walk and a run stay in step. cpu and gpu blend the two sampled
 * local poses (crowd_anim_blend, the reference, as the joint queries do);
 * bat blends the two clips' skinning matrices per influence and vat their
 * skinned positions and normals, linear in model space like a crossfade
 * (see "Crossfade"): the mix of two rotated limbs cuts the chord of the
 * arc, so the limb shortens by up to 1 - cos(angle / 2) of its length at
 * weight 0.5 (3 % at 30 degrees apart, 29 % at 90). Measured on the bar
 * fixture (its top bends 0-90 degrees in one clip while the other slides
 * it; tests/gpu blend group, 160x120 images, a pixel differs when a channel
 * differs by more than 24): at weights 0.25, 0.5 and 0.75 bat and vat
 * differ from the local-pose blend on 0.42 %, 0.36 % and 0.33 % of the
 * pixels on both tiers (the crossfade tolerance is 3 %), cpu and gpu on
 * 0.00 %. Changing the parameter re-anchors
 * the instance's clock at the world's clock keeping its phase, so the pose
 * does not jump: one record write. A crossfade into a blend (play_blend
 * with crossfade_s) or out of one (crowd_instance_play while blending)
 * works as between clips: the clip left, blend pair and all, keeps
 * playing under the fade. Events fire from the clip of the segment's lower
 * threshold (the record's clock) only; root motion (crowd_instance_root_
 * motion) is the two clips' displacements mixed by w. */
#define CROWD_BLEND_MAX_CLIPS 16u
#define CROWD_ARCHETYPE_MAX_BLENDS 64u

typedef struct crowd_blend_desc {
    const char *name;        /* may be NULL */
    uint32_t clip_count;     /* 2 .. CROWD_BLEND_MAX_CLIPS */
    const uint32_t *clips;   /* clip indices of the archetype */
    const float *thresholds; /* strictly increasing, finite; NULL: the
                                clips' ground speeds (crowd_archetype_clip_ground_speed) */
} crowd_blend_desc;

/* A blend handle: its archetype's handle and its index + 1 there (zero:
 * no blend). */
typedef struct crowd_blend {
    uint32_t archetype;
    uint32_t index;
} crowd_blend;

/* Declares a blend of the archetype's clips. Errors, nothing changed:
 * CROWD_ERROR_INVALID_ARGUMENT (a handle that is not live, a NULL desc,
 * clips or out_blend, a clip count outside 2 .. CROWD_BLEND_MAX_CLIPS, a
 * clip index out of range, thresholds not finite or not strictly
 * increasing, ground speeds (thresholds NULL) that are not), CROWD_ERROR_LIMIT
 * (CROWD_ARCHETYPE_MAX_BLENDS), CROWD_ERROR_UNSUPPORTED (thresholds NULL
 * and the archetype has no skeleton and clips to measure: a bake without
 * runtime clips alone). */
crowd_result crowd_archetype_add_blend(crowd_world *world, crowd_archetype archetype,
                                       const crowd_blend_desc *desc, crowd_blend *out_blend,
                                       crowd_error *error);
uint32_t crowd_archetype_blend_count(const crowd_world *world, crowd_archetype archetype);
/* The blend named `name` (a bake's blends, crowd_bake_add_blend, are
 * declared on every archetype made from it, in their order, before any
 * added later); false when none has that name (or name is NULL). */
bool crowd_archetype_find_blend(const crowd_world *world, crowd_archetype archetype,
                                const char *name, crowd_blend *out_blend);
/* Ground speed of a clip (crowd_anim_clip_ground_speed on the archetype's
 * skeleton, watching crowd_anim_foot_joints of its mesh): the speed over
 * the ground at which its planted foot stays put, model units (metres) a
 * second, measured once per archetype at the first need. 0 for a clip out
 * of range, a clip that does not travel, or an archetype without skeleton
 * and clips (a bake without runtime clips). */
float crowd_archetype_clip_ground_speed(const crowd_world *world, crowd_archetype archetype,
                                        uint32_t clip);

/* Plays `blend` at `parameter` from phase 0 at the world's clock,
 * crossfading over crossfade_s from the current pose as crowd_instance_play
 * does (0 = cut); speed (the rate of the blend's cycle) and loop mode carry
 * over. Errors, nothing changed: CROWD_ERROR_INVALID_ARGUMENT (a handle
 * that is not live, a blend of another archetype or not declared, a
 * parameter or crossfade that is not finite, a negative crossfade). */
crowd_result crowd_instance_play_blend(crowd_world *world, crowd_instance instance,
                                       crowd_blend blend, float parameter, float crossfade_s,
                                       crowd_error *error);
/* Moves the instance along its blend: new weights (and segment) at the
 * world's clock, phase kept, one record write. Errors, nothing changed:
 * CROWD_ERROR_INVALID_ARGUMENT (not live, not playing a blend, a parameter
 * that is not finite). */
crowd_result crowd_instance_set_blend_parameter(crowd_world *world, crowd_instance instance,
                                                float parameter, crowd_error *error);
/* Speed matching: the instance moves over the ground at speed_mps (model
 * units a second, >= 0; the game moves it); its blend's parameter becomes
 * speed_mps (so thresholds are speeds: give NULL thresholds, or speeds)
 * and its rate r = v * D / lerp(s_i, s_i+1, w), with s the clips' strides
 * (ground speed * duration) and D the blend's cycle, so that the planted
 * foot moves backwards at exactly v and does not slide (clips that do not
 * travel, an idle at v 0: rate 1). Phase kept, one record write; later
 * set_speed calls set the rate again. Errors as set_blend_parameter, and a
 * negative speed. */
crowd_result crowd_instance_set_ground_speed(crowd_world *world, crowd_instance instance,
                                             float speed_mps, crowd_error *error);
/* Whether the instance plays a blend (its parameter in *out_parameter when
 * not NULL). */
bool crowd_instance_get_blend(const crowd_world *world, crowd_instance instance,
                              crowd_blend *out_blend, float *out_parameter);

/* Removes an instance. */
crowd_result crowd_world_remove_instance(crowd_world *world, crowd_instance instance,
                                         crowd_error *error);
/* The instance's archetype. */
crowd_archetype crowd_instance_archetype(const crowd_world *world, crowd_instance instance);
/* Removes every instance of every archetype. */
void crowd_world_clear_instances(crowd_world *world);
uint32_t crowd_world_instance_count(const crowd_world *world);
/* Axis-aligned world bounds of every instance's bind-pose box; false when
 * there are no instances. */
bool crowd_world_instance_bounds(const crowd_world *world, float min[3], float max[3]);

/* ---- joints and sockets --------------------------------------------------- */

/* Where a joint or socket of an instance is now, for hit boxes, effects,
 * IK targets and colliders: computed on the CPU from the archetype's
 * skeleton and clips (the source asset, or a loaded bake's runtime clips
 * and sockets), with no GL call and no GPU readback: on the world's thread,
 * before or after crowd_world_update, with or without its context current.
 *
 * The pose is the one the cpu and gpu modes draw: the caller's, for an
 * instance given one (crowd_instance_set_pose, below); else each clip of the
 * instance sampled at its clip time on the world's clock (crowd_world_time:
 * the time of the last update or set_time; so a query right after
 * crowd_world_update(t) gives the pose drawn at t), crossfades blended as
 * local poses (crowd_anim_blend), whatever the archetype's mode. bat and
 * vat draw baked frames interpolated linearly, and blend a crossfade in
 * model space: what they draw differs from the sampled pose by the bake's
 * between-frame error (crowd_bake_clip.between_error_max) and, during a
 * crossfade, by the chord (see "Crossfade" above); static mode draws the
 * bind pose and the query still answers the pose the instance's clip is
 * at. An archetype without clips (an asset without any) answers its rest
 * pose, as cpu and gpu draw it. An archetype made from a bake without
 * runtime clips (manifest version 3 or older) alone cannot answer:
 * CROWD_ERROR_UNSUPPORTED, whatever the index.
 *
 * A query samples the instance's clips without the cursors the cpu and gpu
 * modes keep (a binary search per track, which finds the same keys), into
 * scratch memory of its own made at the archetype's first query: it
 * changes nothing those modes draw. Matrices are column-major 4x4 like the
 * rest of the API. */
typedef enum crowd_space {
    /* The character's model space: the space its vertices are skinned in,
     * before the instance transform (a joint's model matrix,
     * crowd_anim_local_to_model). */
    CROWD_SPACE_MODEL = 0,
    /* World space: the instance's transform (translation by position,
     * rotation by heading_rad about +Y, uniform scale) times model space,
     * as the shaders place vertices. */
    CROWD_SPACE_WORLD,
} crowd_space;

/* Joints of the archetype's skeleton (0 for a bad handle). */
uint32_t crowd_archetype_joint_count(const crowd_world *world, crowd_archetype archetype);
/* The joint's name ("" when joint >= joint_count), owned by the asset. */
const char *crowd_archetype_joint_name(const crowd_world *world, crowd_archetype archetype,
                                       uint32_t joint);
/* The index of the joint named `name` into *out_joint; false also when no
 * joint has that name (or name is NULL). */
bool crowd_archetype_find_joint(const crowd_world *world, crowd_archetype archetype,
                                const char *name, uint32_t *out_joint);

/* Sockets of the archetype: the asset's (crowd_asset.sockets), or a loaded
 * bake's (from its runtime clips file; none before version 4). */
typedef struct crowd_socket_info {
    const char *name; /* owned by the asset, valid while the archetype lives */
    uint32_t joint;   /* the joint it follows */
    float offset[16]; /* socket relative to that joint: model = joint's model x offset */
} crowd_socket_info;
uint32_t crowd_archetype_socket_count(const crowd_world *world, crowd_archetype archetype);
/* False also when socket >= socket_count. */
bool crowd_archetype_get_socket(const crowd_world *world, crowd_archetype archetype,
                                uint32_t socket, crowd_socket_info *out);
/* The index of the socket named `name` into *out_socket; false also when no
 * socket has that name (or name is NULL). */
bool crowd_archetype_find_socket(const crowd_world *world, crowd_archetype archetype,
                                 const char *name, uint32_t *out_socket);

/* The joint's transform (model matrix of the joint, in `space`) of the
 * instance now into out[16]. Errors, with out untouched:
 * CROWD_ERROR_INVALID_ARGUMENT (a NULL world or out, an instance that is
 * not live, joint >= the archetype's joint count, an unknown space),
 * CROWD_ERROR_UNSUPPORTED (no skeleton clips to sample: see above),
 * CROWD_ERROR_OUT_OF_MEMORY (the first query's scratch). */
crowd_result crowd_instance_joint_transform(crowd_world *world, crowd_instance instance,
                                            uint32_t joint, crowd_space space, float out[16],
                                            crowd_error *error);
/* The socket's transform (its joint's model matrix times its offset, in
 * `space`): errors as above, socket >= socket_count among them. */
crowd_result crowd_instance_socket_transform(crowd_world *world, crowd_instance instance,
                                             uint32_t socket, crowd_space space, float out[16],
                                             crowd_error *error);
/* The same for `count` instances of `archetype` at once, 16 floats each
 * into out[16 * count] in the order given (an instance may appear more than
 * once), each instance sampled once. Every handle is checked before
 * anything is written: one that is not live or of another archetype is
 * CROWD_ERROR_INVALID_ARGUMENT naming its position, with out untouched.
 * count 0 checks the archetype and the index and writes nothing
 * (instances and out may then be NULL). */
crowd_result crowd_archetype_joint_transforms(crowd_world *world, crowd_archetype archetype,
                                              const crowd_instance *instances, uint32_t count,
                                              uint32_t joint, crowd_space space, float *out,
                                              crowd_error *error);
crowd_result crowd_archetype_socket_transforms(crowd_world *world, crowd_archetype archetype,
                                               const crowd_instance *instances, uint32_t count,
                                               uint32_t socket, crowd_space space, float *out,
                                               crowd_error *error);

/* ---- root motion --------------------------------------------------------- */

/* How far an instance's clip moves the character between clock times
 * from_s and to_s, for the game to move it by (crowd_instance_set_transform)
 * when its bake was made with the root motion taken out of the frames
 * (crowd_bake_desc.root_motion EXTRACT, `crowd bake --root-motion extract`;
 * the frames then play in place). From the bake's curve of the instance's
 * clip (crowd_bake_clip.root_motion) and its clock as it is now: the play
 * times of from_s and to_s (crowd_anim_play_unwrapped with the instance's
 * start, offset and speed, so speed 2 goes twice as far and a negative
 * speed backwards), its loop mode (whole loops add the loop's displacement
 * turned by the heading gathered before, crowd_anim_root_motion_delta; a
 * one-shot clip stops at its ends). out_delta_position is in world space:
 * the displacement in the character's frame at from_s, turned by the
 * instance's heading and scaled by its scale (y 0: the vertical motion
 * stays in the frames); *out_delta_heading the turn about +Y in radians,
 * to add to the instance's heading. Move the instance by both each frame
 * (from the last update's time to this one's) and it follows the source's
 * path. The clock as it is now: across a call that restarts or re-times it
 * (play, set_speed), ask from the change on. A crossfade's old clip and a
 * caller's pose are not counted: the clip the instance plays is. Give the
 * archetype such a bake without an asset (or with bake->asset, the in-place
 * copy): the source asset would make cpu and gpu modes play the motion
 * twice. CPU only,
 * no GL call. Errors, nothing written: CROWD_ERROR_INVALID_ARGUMENT (a
 * handle that is not live, a NULL output, a time that is not finite),
 * CROWD_ERROR_UNSUPPORTED (the archetype has no bake, or the clip has no
 * root motion). */
crowd_result crowd_instance_root_motion(crowd_world *world, crowd_instance instance, double from_s,
                                        double to_s, float out_delta_position[3],
                                        float *out_delta_heading, crowd_error *error);

/* ---- the game's own poses ------------------------------------------------ */

/* The game's own poses. An instance of an archetype in cpu or gpu mode can
 * show a pose the game computed (IK, ragdoll, procedural animation) instead
 * of its clip, beside instances that play clips: the same draw, one palette
 * per instance either way. The pose is copied (the caller's array may go),
 * turned into model matrices once, and drawn every frame until it is set
 * again or ends; a frame costs the same as one of a clip (the skinning
 * matrices are built from it each update), and memory is held only for
 * posed instances (16 floats per joint each), freed as poses end.
 *
 * A local pose sampled by crowd_anim_sample (and blended by
 * crowd_anim_blend) draws exactly what the instance playing that clip at
 * that time draws, bit for bit: both go through crowd_anim_local_to_model
 * and crowd_anim_skin_matrices.
 *
 * What a pose does to the rest of the instance:
 *   - its clock, clip, speed and crossfade go on underneath, unseen;
 *     crowd_instance_set_transform still places it, set_speed still changes
 *     the hidden clip's rate.
 *   - it fires no events (crowd_world_events): what its clip passed up to
 *     the first set_pose is reported, then nothing; the clip a running
 *     crossfade was leaving never fires again.
 *   - crowd_instance_clear_pose ends it: the instance shows its clip where
 *     its clock is now (a jump, as the clip ran on underneath) and fires
 *     from there on. crowd_instance_play and crowd_instance_update end it
 *     too: a crossfade of play fades from the clip that ran underneath, not
 *     from the caller's pose. To blend out of a pose into a clip, blend the
 *     two yourself (crowd_anim_blend) into the poses set over the fade, and
 *     play the clip once the pose is the clip's.
 *   - joint and socket queries answer the caller's pose, in every mode.
 *   - a switch to static, bat or vat keeps the pose, but those modes draw
 *     the clip (baked frames cannot show it); back in cpu or gpu it shows
 *     again. Removing the instance or clearing the world drops it.
 * Errors, with nothing changed: CROWD_ERROR_INVALID_ARGUMENT (a NULL world
 * or pose, an instance that is not live, joint_count other than the
 * archetype's joint count, a value that is not finite, a rotation of
 * length 0, a model matrix whose fourth row is not (0 0 0 1) within 1e-5),
 * CROWD_ERROR_UNSUPPORTED (the archetype's mode is static, bat or vat),
 * CROWD_ERROR_OUT_OF_MEMORY. */

/* A local pose: one crowd_transform per joint of the skeleton, in its
 * order (crowd_archetype_joint_count, crowd_archetype_find_joint), as
 * crowd_anim_sample writes it. A rotation whose squared length is within
 * 1e-4 of 1 is used as given; any other (but 0) is normalized. */
crowd_result crowd_instance_set_pose(crowd_world *world, crowd_instance instance,
                                     const crowd_transform *local_pose, uint32_t joint_count,
                                     crowd_error *error);
/* A pose as model matrices: 16 floats per joint (column-major 4x4), each
 * the joint's transform in the character's model space as
 * crowd_anim_local_to_model makes it (the skeleton's root_transform
 * included): what a ragdoll or a full-body IK solver that works in model
 * space has. The fourth row is stored as exactly (0 0 0 1). */
crowd_result crowd_instance_set_pose_models(crowd_world *world, crowd_instance instance,
                                            const float *model_matrices, uint32_t joint_count,
                                            crowd_error *error);
/* Ends the instance's pose (nothing to do when it has none): it plays its
 * clip again at the world's clock. CROWD_ERROR_INVALID_ARGUMENT for a NULL
 * world or an instance that is not live. */
crowd_result crowd_instance_clear_pose(crowd_world *world, crowd_instance instance,
                                       crowd_error *error);
/* Whether the instance shows a caller's pose (false for a bad handle). */
bool crowd_instance_has_pose(const crowd_world *world, crowd_instance instance);

/* ---- props ---------------------------------------------------------------- */

/* Props: static meshes (a sword, a shield, a hat) that instances carry on a
 * socket of their archetype, attached and detached per instance at run time.
 * A prop type is one mesh on one socket; each pass draws the visible
 * carriers of a prop type with one instanced draw (cpu mode: one draw per
 * carrier, as it draws its characters), culled and LOD-switched with their
 * characters (a prop has no LODs of its own).
 *
 * The prop follows the socket exactly as `crowd bake --attach` would: its
 * vertices are placed in the character's bind space at the socket (the
 * joint's bind matrix times the socket's offset) and bound with weight 1
 * to the socket's joint, then drawn by each mode's own skinning: static in
 * the bind pose, bat from the baked joint matrices, gpu from the sampled
 * palette, cpu skinned on the CPU with its character. vat has no joint
 * matrices: the prop reads its socket track, the socket joint's skinning
 * matrix at every baked frame (3 RGBA32F texels a frame, made when the prop
 * is added from the bake's BAT rows, or sampled from its clips where it has
 * no BAT), played with the same frame pair and crossfade as the VAT.
 *
 * Attaching or detaching writes one instance record (a flag bit); nothing
 * else changes per instance. Prop types live until their archetype goes. A
 * vat archetype with props also holds the bat programs (shared, counted in
 * crowd_world_stats.program_count) once it draws one. */
#define CROWD_ARCHETYPE_MAX_PROPS 12u

typedef struct crowd_prop {
    uint32_t id;
} crowd_prop;

typedef struct crowd_prop_desc {
    /* The prop's mesh (positions and triangles; normals, uvs and materials
     * when it has them), in the socket's space as a `--attach` prop is.
     * Copied: the asset may go once the call returns. */
    const crowd_asset *asset;
    /* A socket of the archetype (crowd_archetype_find_socket). */
    const char *socket;
} crowd_prop_desc;

/* Adds a prop type to an archetype. Errors, with nothing changed:
 * CROWD_ERROR_INVALID_ARGUMENT (NULL world, desc, asset or socket; an
 * archetype that does not exist; a socket it does not have, the error
 * listing those it has; an asset without vertices or triangles, or whose
 * indices or values are out of range), CROWD_ERROR_LIMIT (the archetype has
 * CROWD_ARCHETYPE_MAX_PROPS already), CROWD_ERROR_INVALID_DATA (a socket's
 * joint with a singular bind matrix), CROWD_ERROR_OUT_OF_MEMORY,
 * CROWD_ERROR_GPU. */
crowd_result crowd_world_add_prop(crowd_world *world, crowd_archetype archetype,
                                  const crowd_prop_desc *desc, crowd_prop *out_prop,
                                  crowd_error *error);
/* What a prop type is and what it holds on the GPU. */
typedef struct crowd_prop_info {
    crowd_archetype archetype;
    const char *socket;
    uint32_t joint;        /* the socket's joint */
    uint32_t vertex_count; /* the prop's mesh */
    uint32_t carriers;     /* instances carrying it now */
    /* GPU bytes: its mesh and materials, and its socket track (vat; 0
     * where the archetype has no baked frames). */
    uint64_t mesh_bytes, socket_track_bytes;
} crowd_prop_info;
bool crowd_prop_get_info(const crowd_world *world, crowd_prop prop, crowd_prop_info *out);
/* GPU bytes of the socket track a vat prop on `joint` takes with this bake
 * (crowd info BAKE lists it per socket): 48 bytes (3 RGBA32F texels) per
 * baked frame, plus `joint` rows of padding; 0 when the bake has no frames
 * or no BAT to take it from. No GL: any thread. */
uint64_t crowd_prop_socket_track_bytes(const crowd_bake *bake, uint32_t joint);
uint32_t crowd_archetype_prop_count(const crowd_world *world, crowd_archetype archetype);
/* Prop type `index` (< crowd_archetype_prop_count) of an archetype, or 0. */
crowd_prop crowd_archetype_prop(const crowd_world *world, crowd_archetype archetype,
                                uint32_t index);

/* The instance carries the prop from the next pass on (again: no change),
 * or no longer does. Several props per instance, on any sockets. Errors,
 * with nothing changed: CROWD_ERROR_INVALID_ARGUMENT (NULL world, an
 * instance that is not live, a prop that does not exist or belongs to
 * another archetype than the instance's). */
crowd_result crowd_instance_attach_prop(crowd_world *world, crowd_instance instance,
                                        crowd_prop prop, crowd_error *error);
crowd_result crowd_instance_detach_prop(crowd_world *world, crowd_instance instance,
                                        crowd_prop prop, crowd_error *error);
/* Whether it carries the prop (false for bad handles). */
bool crowd_instance_has_prop(const crowd_world *world, crowd_instance instance, crowd_prop prop);

/* ---- frames ------------------------------------------------------------- */

/* The world's clock, in seconds: see "Time" above. A time that is not
 * finite (NaN, infinity) is ignored: the clock keeps its time and the
 * world's logger gets a warning. */
void crowd_world_set_time(crowd_world *world, double time_s);
double crowd_world_time(const crowd_world *world);

/* Starts a frame at global time time_s (also the world's clock): cpu and
 * gpu archetypes sample, blend and skin (or build palettes) for every
 * instance and write them into this frame's stream section. Call once per
 * frame, before the frame's draws; then crowd_world_events says which
 * events fired since the update before. CROWD_ERROR_INVALID_ARGUMENT for a
 * non-finite time, CROWD_ERROR_GPU when a stream cannot be made,
 * CROWD_ERROR_OUT_OF_MEMORY when the events do not fit (the instances not
 * read then report theirs at the next update). */
crowd_result crowd_world_update(crowd_world *world, double time_s, crowd_error *error);

/* ---- events ------------------------------------------------------------- */

/* Events. A bake's events (crowd_bake_event: a name at a clip time) fire as
 * an instance's clip time passes them, worked out on the CPU from the
 * instances' clocks, the same ones the GPU plays (no readback), by
 * crowd_anim_markers_passed (crowd/anim.h) over the clip-time rule:
 *   - forward, a marker fires in the update whose clip time reaches it
 *     (previous, now]; backwards (a negative speed, or a clock set back),
 *     in [now, previous); at speed 0 nothing fires. A clip just started
 *     (crowd_world_add_instance, crowd_instance_update, crowd_instance_play)
 *     also fires the markers at its starting time.
 *   - a one-shot clip (its own flag, or CROWD_LOOP_OFF) reports its end,
 *     CROWD_EVENT_END, when its clip time reaches the end it is held at (the
 *     duration forward, 0 backwards); a clip of duration 0 fires nothing.
 *   - an update that spans several loops reports the rest of the loop, then
 *     the whole loops folded into one pass of the clip's markers whose
 *     entries have count = the loops, then the start of the loop it ends in:
 *     at most 3 x markers + 1 entries per clip and instance, however long.
 *   - crossfades: both clips fire while the fade runs. The clip faded out
 *     keeps its own clock up to and including the fade's end (entries with
 *     fading_out set); the new clip fires from its start.
 *   - set_speed, play and update first take the events that the old state
 *     passed up to the world's clock (none, unless crowd_world_set_time
 *     moved it since the last update); the next update reports them, first.
 *     Removing an instance drops what it passed since the last update.
 * Cost: each archetype indexes its instances whose clip (or fading-out clip)
 * has markers or plays once, kept on add, remove, play and update; an update
 * reads those alone: O(those instances + entries reported), nothing for the
 * instances that play clips without events. */
typedef enum crowd_event_kind {
    CROWD_EVENT_MARKER = 0, /* a bake's event */
    CROWD_EVENT_END,        /* a one-shot clip reached its end */
} crowd_event_kind;

typedef struct crowd_event {
    crowd_instance instance; /* may be removed since */
    crowd_archetype archetype;
    uint32_t clip;
    crowd_event_kind kind;
    /* The event's name (a string of the archetype's bake); "" for
     * CROWD_EVENT_END, a name no bake event has. */
    const char *name;
    float time_s;    /* the event's clip time; for CROWD_EVENT_END the end reached */
    uint32_t count;  /* times passed: 1, or the whole loops of a long update */
    bool fading_out; /* fired by the clip a crossfade is leaving */
} crowd_event;

/* The events of the last crowd_world_update, in the order they were
 * passed for each clip of each instance (those from state changes first):
 * *out_count of them (NULL and 0 when none, or for a NULL world). Valid
 * until the next crowd_world_update, until their archetype is removed, or
 * until the world is destroyed. */
const crowd_event *crowd_world_events(const crowd_world *world, uint32_t *out_count);

typedef enum crowd_pass {
    CROWD_PASS_COLOR = 0, /* shaded colour + depth */
    CROWD_PASS_DEPTH,     /* depth only (shadow maps, depth pre-pass): no colour writes */
} crowd_pass;

/* Light of the colour pass, in linear RGB. Nothing is assumed: a zeroed
 * light is black (crowd_light_default gives crowd's usual daylight). */
typedef struct crowd_light {
    float direction[3];      /* towards the light, world space; need not be unit */
    float color[3];          /* of the directional light */
    float ambient_sky[3];    /* hemisphere ambient for normals pointing up */
    float ambient_ground[3]; /* ... and down */
} crowd_light;

/* A sun from the upper right front with a sky/ground hemisphere. */
void crowd_light_default(crowd_light *out);

/* Which instances a pass draws, and at which LOD (static, bat and vat
 * archetypes; cpu and gpu draw every instance at LOD0). */
typedef enum crowd_cull_mode {
    /* A compute pass per view tests every instance's animated bounds (its
     * clip's sphere from the bake, or the hull of both clips' during a
     * crossfade; the bind pose's in static mode) against the frustum,
     * picks its LOD, and writes the indirect draws: no per-instance CPU work. */
    CROWD_CULL_GPU = 0,
    /* The same choices made on the CPU (for contexts without compute),
     * visible records uploaded each pass. */
    CROWD_CULL_CPU,
    CROWD_CULL_OFF, /* every instance at LOD0: the brute-force reference */
} crowd_cull_mode;

/* How bat and vat instances pick their baked frames (crowd_draw_desc). */
typedef enum crowd_frame_fetch {
    /* Culled passes (CROWD_CULL_GPU, _CPU) play the nearest frame, one
     * texture fetch instead of two, for each instance whose clip's largest
     * vertex step from one baked frame to the next (crowd_bake_clip.max_step)
     * projects below half a pixel at its distance: its vertices then sit at
     * most a quarter pixel from the interpolated pose. The rest, instances in
     * a crossfade or blend, clips without a measured step (older bakes) and
     * passes without viewport_height_px or culling interpolate. */
    CROWD_FRAME_FETCH_AUTO = 0,
    CROWD_FRAME_FETCH_INTERPOLATE, /* every instance interpolates two frames */
    /* Every instance that is not in a crossfade or blend plays the nearest
     * frame (to measure the one-fetch path, or for stylized stepped motion). */
    CROWD_FRAME_FETCH_NEAREST,
    CROWD_FRAME_FETCH_COUNT
} crowd_frame_fetch;

typedef struct crowd_draw_desc {
    crowd_pass pass;
    /* Column-major 4x4 matrices as OpenGL takes them (clip = projection x
     * view x world). Any projection works: perspective, orthographic,
     * reversed-Z (with the application's glClipControl and depth function),
     * infinite far plane. */
    float view[16];
    float projection[16];
    crowd_light light; /* colour pass */
    /* The colour pass writes sRGB-encoded values (for an RGBA8 target
     * without GL_FRAMEBUFFER_SRGB); true writes linear values (sRGB
     * framebuffers with GL_FRAMEBUFFER_SRGB on, HDR targets). */
    bool linear_output;
    crowd_cull_mode cull;
    /* LOD choice: an instance is drawn at the coarsest LOD whose error
     * (measured by the bake over every frame, crowd_bake_lod.error) projects
     * to at most lod_error_px pixels in a viewport viewport_height_px tall;
     * to switch to a coarser LOD it must project to 20 % less (hysteresis,
     * kept by the colour pass, per instance). viewport_height_px 0 = LOD0
     * always; lod_error_px 0 = 1 pixel. Both finite and >= 0. */
    float viewport_height_px;
    float lod_error_px;
    /* Colour pass: each character tinted by its LOD (0 white, 1 green, 2
     * yellow, 3 orange, ...), to see where LODs switch. */
    bool debug_lod_tint;
    crowd_frame_fetch frame_fetch; /* 0 = CROWD_FRAME_FETCH_AUTO */
} crowd_draw_desc;

/* Draws the instances of every archetype that the view keeps (desc->cull),
 * each in its archetype's mode, into the bound draw framebuffer and
 * viewport: one multi-draw per archetype with instances, with one command
 * per LOD in use (cpu mode: one draw per instance). Never waits for the GPU.
 * CROWD_ERROR_INVALID_ARGUMENT, the field named, for a bad desc: an unknown
 * pass, cull mode or frame fetch, matrices that are not finite, a viewport_height_px or
 * lod_error_px that is negative or not finite, and in the colour pass a
 * light value that is not finite (the depth pass ignores the light).
 * CROWD_ERROR_OUT_OF_MEMORY when an archetype's culling lists cannot grow
 * to its instance count: that archetype is left out of the pass, the others
 * are drawn. GL errors are only checked in debug builds (CROWD_ERROR_GPU). */
crowd_result crowd_world_draw(crowd_world *world, const crowd_draw_desc *desc, crowd_error *error);

/* What the frames cost. Counts are always kept (they cost nothing); times
 * only when crowd_world_desc.timing is set. */
typedef struct crowd_world_stats {
    uint32_t archetype_count;
    uint32_t instance_count;
    /* Since the last crowd_world_update: */
    uint32_t passes;     /* crowd_world_draw calls */
    uint32_t draw_calls; /* draws (indirect commands counted one each), all passes */
    /* Vertices submitted, all passes: exact for CROWD_CULL_CPU and _OFF;
     * with CROWD_CULL_GPU the GPU alone knows, so it counts every instance
     * at LOD0 (an upper bound) unless timing is on, which reads the
     * commands back frames later (never waiting) into visible_instances. */
    uint64_t vertices_drawn;
    /* Instances drawn, all passes (GPU culling: of the frame
     * gpu_time_frames_ago, timing on only). */
    uint64_t visible_instances;
    /* Of those, the instances drawn with the nearest frame (one fetch, see
     * crowd_frame_fetch), counted as visible_instances is. */
    uint64_t nearest_instances;
    /* visible_instances split by the LOD they were drawn at (unculled at
     * LOD 0), from the same source as visible_instances: summed, it is
     * visible_instances, except for GPU-culled passes before a read-back
     * (timing off), which count as visible_instances does, every instance
     * at LOD 0. For benches that report what each LOD level drew. */
    uint64_t visible_per_lod[CROWD_BAKE_MAX_LODS];
    /* Bytes sent to GPU buffers: instance records written by add, update and
     * remove since the update before, plus this frame's palettes or vertices. */
    uint64_t uploaded_bytes;
    /* Events of the update (crowd_world_events), and the instances whose
     * clocks it read for them: those of clips with events or that play once
     * (crowd_event). */
    uint32_t events;
    uint32_t event_instances;
    /* Thread CPU time (CLOCK_THREAD_CPUTIME_ID) of crowd's calls since the
     * last update began (the update and every draw): animation work, uploads
     * and GL submission. A software rasterizer without a GL thread shades
     * vertices inside the draw calls, so there it includes vertex shading. */
    double cpu_time_s;
    /* The part of it spent on crowd's own per-frame CPU animation (sampling,
     * blending, skinning matrices and cpu mode's skinning); 0 in static, bat
     * and vat. Means the same on every driver. */
    double cpu_animation_time_s;
    /* The part of it spent choosing the visible instances and their LODs on
     * the CPU (the portable tier's culling, or CROWD_CULL_CPU), every pass:
     * it grows with the instance count. 0 when the GPU culls or nothing is
     * culled (cull off; cpu and gpu modes). */
    double cpu_cull_time_s;
    /* GPU time of the draws of the newest frame whose timer results have
     * arrived, and how many frames ago that was (0 = none yet). */
    double gpu_time_s;
    uint32_t gpu_time_frames_ago;
    /* Bytes of every buffer and texture the world holds (mip chains included). */
    uint64_t gpu_memory_bytes;
    /* The part of it that grows with the instances: the 40-byte instance
     * records (the GL 4.5 tier's buffer, the portable tier's per-pass
     * stream), the culled passes' visible lists and the side table of
     * fading or blending instances. */
    uint64_t record_memory_bytes;
    /* GL programs the world holds. Archetypes that draw the same variant
     * (mode, VAT encoding, fragment_source) share one set: per variant 2
     * (colour, depth), 4 in bat and vat (each also with crossfade code),
     * plus 1 for the culling pass. */
    uint32_t program_count;
    crowd_gpu_tier tier; /* the tier the world runs: CROWD_TIER_GL45 or _PORTABLE */
} crowd_world_stats;

void crowd_world_get_stats(const crowd_world *world, crowd_world_stats *out);

/* ---- cameras ------------------------------------------------------------ */

/* A look-at camera, turned into matrices by crowd_camera_matrices. */
typedef struct crowd_camera {
    float eye[3];
    float target[3];
    float up[3];         /* all zero = +Y */
    float fov_y_rad;     /* vertical field of view; 0 = 45 degrees */
    float near_m, far_m; /* 0 = from the distance to the target */
} crowd_camera;

/* A camera looking at the box [min, max] from the front (+Z), a little from
 * the right and above, far enough that the whole box fits an image of aspect
 * width / height. */
void crowd_camera_frame_box(const float min[3], const float max[3], float aspect,
                            crowd_camera *out);

/* Right-handed view and OpenGL perspective projection (clip z in [-w, w])
 * matrices of `camera` for an image of aspect width / height; false when the
 * camera is degenerate (eye on target, bad field of view or planes). */
bool crowd_camera_matrices(const crowd_camera *camera, float aspect, float view[16],
                           float projection[16]);

#ifdef __cplusplus
}
#endif

#endif
