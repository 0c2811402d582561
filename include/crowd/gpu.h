/* crowd/gpu.h - OpenGL 4.5 playback of a crowd: a context, a renderer for
 * one character, its instances, five playback modes, per-frame statistics.
 *
 * A crowd_gpu_context is an OpenGL 4.5 core context: headless through EGL
 * (the EGL device platform, then Mesa's surfaceless platform, then the
 * default display; rendering goes to framebuffer objects, no pbuffer) or a
 * GLFW window for interactive use. A crowd_renderer draws many instances of
 * one character into its own offscreen colour + depth target of a given size;
 * pixels are read back as RGBA8, or blitted to the window.
 *
 * Playback modes (DESIGN.md, "GPU playback modes"):
 *   static  bind pose, instance transform only: the floor. 1 draw.
 *   cpu     the CPU samples, blends and skins every character every frame and
 *           uploads its vertices; one draw per character (the skinned-mesh
 *           renderer baseline).
 *   gpu     the CPU samples, blends and builds skinning matrices; palettes go
 *           to a shader storage buffer; the vertex shader skins. 1 draw.
 *   bat     the vertex shader fetches skinning matrices from the baked
 *           bone-matrix texture. 1 draw.
 *   vat     the vertex shader fetches positions and normals from the baked
 *           vertex animation texture. 1 draw.
 * cpu and gpu need the source asset (skeleton and clips); bat and vat need a
 * crowd_bake (built in memory with crowd_bake_build or loaded from a folder
 * with crowd_bake_load). A renderer made from a loaded bake alone plays
 * static, bat and vat.
 *
 * Time. Each instance plays its clip at clip time
 *     t = (now - start) * speed + time_offset_s
 * wrapped into [0, duration) when looping, clamped to [0, duration] when not,
 * where `now` is the global time of the frame and `start` the renderer's
 * clock when the instance was added or last changed clip. The renderer's
 * clock is the time of the last frame drawn, or what crowd_renderer_set_time
 * set. bat and vat interpolate linearly between the two baked frames around
 * t (never across a clip boundary: a looping clip wraps from its last frame
 * to its frame 0, a one-shot clip holds its last frame), exactly as the bake
 * stores them (frame k of a clip at time k / fps). Times are 32-bit floats
 * on the GPU: past 16384 s (4.5 hours) of clock a frame's time moves in
 * 2 ms steps, so long sessions should restart the clock (set_time, update).
 *
 * Crossfade. crowd_instance_play(id, clip, crossfade_s) keeps the old clip
 * running on its own clock and fades to the new one, started at time 0, with
 * weight w = (now - start) / crossfade_s. cpu and gpu blend the two sampled
 * local poses (crowd_anim_blend, exact); bat blends the two clips' skinning
 * matrices per influence and vat the two skinned positions and normals: both
 * are linear in model space, which differs from blending local rotations when
 * the clips' joint rotations differ a lot (a limb swinging through a large
 * angle cuts the chord instead of the arc and shortens slightly at mid-fade).
 *
 * Every instance's state lives in one GPU buffer that persists across frames;
 * adding, changing or removing one instance writes one record. A frame where
 * nobody changes state uploads nothing in static, bat and vat modes.
 *
 * Ownership: create/destroy pairs, destroy(NULL) is a no-op. The renderer
 * borrows the asset and the bake: cpu and gpu modes read the skeleton and
 * clips every frame, and switching to bat or vat uploads the bake's textures
 * then, so both must outlive the renderer.
 * Threading: a context and everything made with it belong to the thread on
 * which the context is current; functions taking a renderer require its
 * context to be current. No global state besides what EGL/GLFW keep.
 */
#ifndef CROWD_GPU_H
#define CROWD_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/asset.h"
#include "crowd/bake.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- context ------------------------------------------------------------ */

typedef struct crowd_gpu_context crowd_gpu_context;

typedef struct crowd_gpu_context_desc {
    bool window;            /* false: headless EGL; true: a GLFW window */
    uint32_t width, height; /* window size; 0 = 1280 x 720 */
    const char *title;      /* window title; NULL = "crowd" */
    bool vsync;             /* window: swap on vertical blank */
    crowd_logger logger;
} crowd_gpu_context_desc;

/* Makes an OpenGL 4.5 core context and makes it current on this thread.
 * desc may be NULL (headless). On failure CROWD_ERROR_GPU with a reason that
 * names every way that was tried and how each failed. */
crowd_result crowd_gpu_context_create(const crowd_gpu_context_desc *desc,
                                      crowd_gpu_context **out_context, crowd_error *error);
void crowd_gpu_context_destroy(crowd_gpu_context *context);

typedef struct crowd_gpu_context_info {
    const char *platform; /* "EGL device", "EGL surfaceless", "EGL default display", "GLFW" */
    const char *vendor;   /* GL_VENDOR */
    const char *renderer; /* GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" */
    const char *version;  /* GL_VERSION */
    bool software;        /* a CPU rasterizer (llvmpipe, softpipe, swrast) */
} crowd_gpu_context_info;

/* Strings owned by the context, valid until it is destroyed. */
void crowd_gpu_context_get_info(const crowd_gpu_context *context, crowd_gpu_context_info *out);

/* Makes the context current on the calling thread again. */
crowd_result crowd_gpu_context_make_current(crowd_gpu_context *context, crowd_error *error);

/* Window input gathered by crowd_gpu_window_poll since the previous poll. */
typedef struct crowd_window_input {
    bool close_requested;      /* window closed or Escape pressed */
    double cursor_x, cursor_y; /* pixels from the top left */
    double cursor_dx, cursor_dy;
    bool mouse_left, mouse_right;               /* held */
    double scroll_y;                            /* wheel steps */
    bool key_up, key_down, key_left, key_right; /* arrows or W S A D, held */
    bool key_shift;                             /* held */
    uint32_t chars[32];                         /* Unicode code points typed, in order */
    uint32_t char_count;
} crowd_window_input;

/* Window contexts only (no-ops returning false / zeros otherwise). */
bool crowd_gpu_window_poll(crowd_gpu_context *context, crowd_window_input *out);
void crowd_gpu_window_swap(crowd_gpu_context *context);
void crowd_gpu_window_size(const crowd_gpu_context *context, uint32_t *width, uint32_t *height);
void crowd_gpu_window_set_title(crowd_gpu_context *context, const char *title);

/* ---- renderer ----------------------------------------------------------- */

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

#define CROWD_RENDERER_DEFAULT_MAX_INSTANCES 65536u
#define CROWD_RENDERER_MAX_INSTANCES (1u << 22)
#define CROWD_RENDERER_DEFAULT_WIDTH 640u
#define CROWD_RENDERER_DEFAULT_HEIGHT 480u
/* Base-colour textures are resized to one common size, at most this. */
#define CROWD_RENDERER_MAX_MATERIAL_TEXTURE 1024u

typedef struct crowd_renderer crowd_renderer;

typedef struct crowd_renderer_desc {
    crowd_gpu_context *context; /* required, current on this thread */
    /* The character. asset alone: static, cpu, gpu. bake alone (a loaded
     * folder): static, bat, vat on bake->asset's mesh. Both (bake built from
     * this asset): every mode. Clips are the bake's when a bake is given,
     * else the asset's. */
    const crowd_asset *asset;
    const crowd_bake *bake;
    crowd_gpu_mode mode;    /* initial mode; 0 = static */
    uint32_t max_instances; /* 0 = CROWD_RENDERER_DEFAULT_MAX_INSTANCES */
    uint32_t width, height; /* offscreen target; 0 = 640 x 480 */
    crowd_logger logger;
} crowd_renderer_desc;

/* Uploads the mesh, materials and (when given) the baked textures, compiles
 * the mode's shaders. Errors: CROWD_ERROR_INVALID_ARGUMENT (no context, no
 * asset or bake, bake and asset of different vertex counts, mode not playable
 * with what was given), CROWD_ERROR_LIMIT (size or a texture beyond what the
 * GL implementation allows), CROWD_ERROR_GPU (a shader failed to compile or a
 * GL call failed; the reason carries the GL log). */
crowd_result crowd_renderer_create(const crowd_renderer_desc *desc, crowd_renderer **out_renderer,
                                   crowd_error *error);
void crowd_renderer_destroy(crowd_renderer *renderer);

/* Whether `mode` can play with what the renderer was given. */
bool crowd_renderer_has_mode(const crowd_renderer *renderer, crowd_gpu_mode mode);
/* Switches mode; the previous mode's buffers and textures are released and
 * the new mode's created (nothing else changes: instances keep their state).
 * CROWD_ERROR_UNSUPPORTED when !has_mode. */
crowd_result crowd_renderer_set_mode(crowd_renderer *renderer, crowd_gpu_mode mode,
                                     crowd_error *error);
crowd_gpu_mode crowd_renderer_mode(const crowd_renderer *renderer);

/* Changes the offscreen target size (1 .. GL_MAX_RENDERBUFFER_SIZE). */
crowd_result crowd_renderer_resize(crowd_renderer *renderer, uint32_t width, uint32_t height,
                                   crowd_error *error);
void crowd_renderer_size(const crowd_renderer *renderer, uint32_t *width, uint32_t *height);

/* Clips the instances can play. */
typedef struct crowd_renderer_clip {
    const char *name;
    float duration_s;
    bool loop; /* what an instance with CROWD_LOOP_CLIP does */
} crowd_renderer_clip;
uint32_t crowd_renderer_clip_count(const crowd_renderer *renderer);
/* False when clip >= clip_count. Strings owned by the renderer. */
bool crowd_renderer_get_clip(const crowd_renderer *renderer, uint32_t clip,
                             crowd_renderer_clip *out);
/* Index of the clip with that name, or -1. */
int32_t crowd_renderer_find_clip(const crowd_renderer *renderer, const char *name);

/* Bind-pose bounds of the character (object space, before instance transforms). */
void crowd_renderer_bind_bounds(const crowd_renderer *renderer, float min[3], float max[3]);

/* The renderer's clock, in seconds: see "Time" above. */
void crowd_renderer_set_time(crowd_renderer *renderer, double time_s);
double crowd_renderer_time(const crowd_renderer *renderer);

/* ---- instances ---------------------------------------------------------- */

/* Non-zero handle: a slot index plus a generation, so the id of a removed
 * instance stays invalid (CROWD_ERROR_INVALID_ARGUMENT) when its slot is
 * reused, until the generation wraps after 1023 reuses of that slot. */
typedef uint32_t crowd_instance_id;

typedef enum crowd_loop_mode {
    CROWD_LOOP_CLIP = 0, /* the clip's own flag */
    CROWD_LOOP_ON,
    CROWD_LOOP_OFF, /* play once, hold the last frame */
} crowd_loop_mode;

typedef struct crowd_instance_desc {
    float position[3];   /* world, metres */
    float heading_rad;   /* rotation about +Y */
    float scale;         /* uniform; 0 = 1 */
    uint32_t clip;       /* < crowd_renderer_clip_count (0 when there are none) */
    float time_offset_s; /* clip time at the renderer's clock now */
    float speed;         /* playback rate; 0 = 1; negative plays backwards */
    bool paused;         /* speed 0: holds clip time time_offset_s */
    crowd_loop_mode loop;
    float tint[4]; /* multiplies the base colour; all zero = (1, 1, 1, 1) */
} crowd_instance_desc;

/* Adds an instance; its record is written to the GPU at once. Errors:
 * CROWD_ERROR_INVALID_ARGUMENT (clip out of range, non-finite values),
 * CROWD_ERROR_LIMIT (max_instances reached), CROWD_ERROR_GPU. */
crowd_result crowd_instance_add(crowd_renderer *renderer, const crowd_instance_desc *desc,
                                crowd_instance_id *out_id, crowd_error *error);
/* Replaces an instance's whole state (any crossfade ends). */
crowd_result crowd_instance_update(crowd_renderer *renderer, crowd_instance_id id,
                                   const crowd_instance_desc *desc, crowd_error *error);
/* Moves an instance, keeping its playback state. scale 0 = 1. */
crowd_result crowd_instance_set_transform(crowd_renderer *renderer, crowd_instance_id id,
                                          const float position[3], float heading_rad, float scale,
                                          crowd_error *error);
/* Changes the playback rate at the renderer's clock without a jump in pose
 * (literal: 0 holds the current frame). */
crowd_result crowd_instance_set_speed(crowd_renderer *renderer, crowd_instance_id id, float speed,
                                      crowd_error *error);
/* Starts `clip` from time 0 at the renderer's clock, crossfading from the
 * current pose's clip over crossfade_s seconds (0 = cut). The old clip keeps
 * playing during the fade. Speed and loop mode carry over. */
crowd_result crowd_instance_play(crowd_renderer *renderer, crowd_instance_id id, uint32_t clip,
                                 float crossfade_s, crowd_error *error);
/* Removes an instance (the last record moves into its slot). */
crowd_result crowd_instance_remove(crowd_renderer *renderer, crowd_instance_id id,
                                   crowd_error *error);
void crowd_renderer_clear_instances(crowd_renderer *renderer);
uint32_t crowd_renderer_instance_count(const crowd_renderer *renderer);
/* Axis-aligned world bounds of every instance's bind-pose box; false when
 * there are no instances. */
bool crowd_renderer_instance_bounds(const crowd_renderer *renderer, float min[3], float max[3]);

/* ---- frames ------------------------------------------------------------- */

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

typedef struct crowd_frame_desc {
    double time_s; /* global time; also sets the renderer's clock */
    crowd_camera camera;
    bool ground;          /* a ground plane under the crowd's feet (one extra draw) */
    float clear_color[4]; /* linear RGB(A); all zero = a light grey-blue */
} crowd_frame_desc;

/* Renders every instance in the current mode into the offscreen target and
 * waits until the GPU has finished (so the frame time is complete). */
crowd_result crowd_renderer_draw(crowd_renderer *renderer, const crowd_frame_desc *frame,
                                 crowd_error *error);

/* RGBA8 pixels of the last frame, sRGB-encoded, rows top first:
 * size_bytes >= width * height * 4. */
crowd_result crowd_renderer_read_pixels(crowd_renderer *renderer, uint8_t *rgba, size_t size_bytes,
                                        crowd_error *error);

/* Window contexts: scales the last frame onto the window's framebuffer
 * (then call crowd_gpu_window_swap). */
crowd_result crowd_renderer_present(crowd_renderer *renderer, crowd_error *error);

typedef struct crowd_renderer_stats {
    crowd_gpu_mode mode;
    uint32_t instance_count;
    uint32_t draw_calls;       /* crowd draw calls in the last frame */
    uint32_t extra_draw_calls; /* other draws of the frame (ground) */
    uint64_t vertices_drawn;   /* crowd vertices submitted in the last frame */
    /* Thread CPU time (CLOCK_THREAD_CPUTIME_ID) the last frame spent on the
     * calling thread before waiting for the GPU: animation work, uploads and
     * every GL call. A software rasterizer (llvmpipe) shades vertices inside
     * the draw calls on this thread, so there it includes vertex shading. */
    double cpu_time_s;
    /* The part of cpu_time_s spent on crowd's own per-frame CPU animation:
     * sampling, blending, skinning matrices and (cpu mode) skinning, written
     * into mapped buffers. GL submission is not in it, so it means the same
     * on every driver. 0 in static, bat and vat modes. */
    double cpu_animation_time_s;
    /* Wall time from the start of the last draw until the GPU finished it. */
    double frame_time_s;
    /* Bytes sent to GPU buffers since the frame before: instance records
     * written by add/update/remove and per-frame palettes or vertices. */
    uint64_t uploaded_bytes;
    /* Bytes of every buffer, texture and render target the renderer holds
     * (texture mip chains included). */
    uint64_t gpu_memory_bytes;
} crowd_renderer_stats;

void crowd_renderer_get_stats(const crowd_renderer *renderer, crowd_renderer_stats *out);

/* ---- images ------------------------------------------------------------- */

/* Writes RGBA8 pixels (rows top first) as an 8-bit RGBA PNG, atomically (a
 * temporary file in the same folder renamed into place). CROWD_ERROR_OUTPUT
 * on failure, leaving no file behind. */
crowd_result crowd_image_write_png(const char *path, uint32_t width, uint32_t height,
                                   const uint8_t *rgba, crowd_error *error);

#ifdef __cplusplus
}
#endif

#endif
