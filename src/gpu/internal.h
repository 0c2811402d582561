/* gpu/internal.h - what the files of the gpu module share: the context and
 * renderer structs, the GPU record layouts (mirrored in shaders/crowd.vert.glsl)
 * and the helpers that keep GPU memory accounted.
 */
#ifndef CROWD_GPU_INTERNAL_H
#define CROWD_GPU_INTERNAL_H

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include "crowd/anim.h"
#include "crowd/gpu.h"
#include "crowd/skin.h"

typedef struct GLFWwindow GLFWwindow;

struct crowd_gpu_context {
    crowd_logger logger;
    EGLDisplay display;
    EGLContext egl_context;
    GLFWwindow *window;
    char platform[32];
    char vendor[128];
    char renderer[256];
    char version[128];
    bool software;
    GLint max_texture_size;
    GLint max_renderbuffer_size;
    GLint max_texture_layers;
    /* Window input accumulated by GLFW callbacks between polls. */
    double scroll_y;
    uint32_t chars[32];
    uint32_t char_count;
    double last_cursor_x, last_cursor_y;
    bool have_cursor;
};

/* One instance on the GPU, read by the vertex shader as seven per-instance
 * vertex attributes (`i_*` in crowd.vert.glsl), attribute GPU_INSTANCE_ATTR
 * + k holding the four floats or uints at offset 16 * k. Attributes, not a
 * storage buffer: a software rasterizer fetches a per-instance attribute
 * once per batch of vertices, but loads storage buffer values one lane at a
 * time. The clip's baked frames and duration ride along (written with the
 * clip), so no clip table is read per vertex either. */
typedef struct gpu_instance_record {
    float position[3];
    float heading_rad;
    float tint[4];
    float scale;
    float start_s;
    float offset_s;
    float speed;
    float duration_s; /* of clip */
    float fade_start_s;
    float fade_duration_s; /* > 0 while a crossfade is set */
    float from_duration_s; /* of from_clip */
    float from_start_s;
    float from_offset_s;
    float from_speed;
    float unused;
    uint32_t clip;
    uint32_t flags;       /* GPU_FLAG_* */
    uint32_t first_frame; /* clip's baked frames (bat, vat) */
    uint32_t frame_count;
    uint32_t from_clip;
    uint32_t from_first_frame;
    uint32_t from_frame_count;
    uint32_t unused_uint;
} gpu_instance_record;

#define GPU_INSTANCE_ATTR_COUNT 7
/* The first GPU_INSTANCE_FLOAT_ATTRS of them hold floats, the rest uints. */
#define GPU_INSTANCE_FLOAT_ATTRS 5
_Static_assert(sizeof(gpu_instance_record) == 16 * GPU_INSTANCE_ATTR_COUNT,
               "gpu_instance_record is seven 16-byte attributes");

/* flags: loop mode (crowd_loop_mode) of clip in bits 0-1, of from_clip in
 * bits 2-3; GPU_FLAG_FADE while from_clip is meaningful; whether clip and
 * from_clip were baked as loops (wrapping from their last frame to frame 0). */
#define GPU_FLAG_LOOP_MASK 3u
#define GPU_FLAG_FROM_LOOP_SHIFT 2u
#define GPU_FLAG_FADE 16u
#define GPU_FLAG_CLIP_LOOPS 32u
#define GPU_FLAG_FROM_CLIP_LOOPS 64u

/* One material (`Material` in crowd.frag.glsl). */
typedef struct gpu_material_record {
    float base_color[4];
    int32_t texture_layer; /* -1: none */
    int32_t pad[3];
} gpu_material_record;

typedef struct gpu_clip {
    char *name;
    float duration_s;
    bool loop;
    uint32_t first_frame; /* baked frames (bat/vat) */
    uint32_t frame_count;
    uint32_t source_clip; /* index into the source asset's clips, UINT32_MAX if none */
} gpu_clip;

/* Binding points and uniform locations shared with the shaders. */
enum {
    GPU_SSBO_PALETTES = 1,
    GPU_SSBO_MATERIALS = 3,
};
enum {
    GPU_TEXTURE_MATERIALS = 0,
    GPU_TEXTURE_BAT = 1,
    GPU_TEXTURE_VAT_POSITION = 2,
    GPU_TEXTURE_VAT_NORMAL = 3,
};
enum {
    GPU_UNIFORM_VIEW_PROJ = 0,
    GPU_UNIFORM_TIME = 1,
    GPU_UNIFORM_FPS = 3,
    GPU_UNIFORM_TEX_WIDTH = 4,
    GPU_UNIFORM_ROWS_PER_FRAME = 5,
    GPU_UNIFORM_JOINT_COUNT = 6,
    GPU_UNIFORM_BOUNDS_MIN = 7,
    GPU_UNIFORM_BOUNDS_EXTENT = 8,
    GPU_UNIFORM_SUN_DIR = 9,
    GPU_UNIFORM_GROUND_EXTENT = 10,
    GPU_UNIFORM_EYE = 11,
    GPU_UNIFORM_INV_TEX_WIDTH = 12,
};
/* Vertex attribute locations = buffer binding indices; the per-instance
 * attributes follow, all from binding GPU_BINDING_INSTANCES. */
enum {
    GPU_ATTR_POSITION = 0,
    GPU_ATTR_NORMAL = 1,
    GPU_ATTR_UV = 2,
    GPU_ATTR_JOINTS = 3,
    GPU_ATTR_WEIGHTS = 4,
    GPU_ATTR_MATERIAL = 5,
    GPU_ATTR_COUNT,
    GPU_INSTANCE_ATTR = GPU_ATTR_COUNT,
    GPU_BINDING_INSTANCES = GPU_ATTR_COUNT,
};

struct crowd_renderer {
    crowd_gpu_context *context;
    crowd_logger logger;
    const crowd_asset *source; /* skeleton and clips for cpu/gpu; NULL for a loaded bake */
    const crowd_asset *drawn;  /* mesh and materials drawn */
    const crowd_bake *bake;
    crowd_gpu_mode mode;
    uint32_t max_instances;
    uint32_t width, height;
    double clock_s;
    float bind_min[3], bind_max[3];

    uint32_t clip_count;
    gpu_clip *clips;

    /* Render target. */
    GLuint framebuffer, color_renderbuffer, depth_renderbuffer;
    uint64_t target_bytes;

    /* Mesh, shared by every mode. */
    GLuint vao, empty_vao;
    GLuint mesh_buffer, index_buffer;
    GLintptr attr_offset[GPU_ATTR_COUNT];
    uint64_t mesh_bytes, index_bytes;
    uint32_t index_count;
    GLuint material_buffer, material_textures;
    uint64_t material_bytes, material_texture_bytes;

    /* Programs, compiled when a mode is first used and kept. bat and vat
     * also have a build with the crossfade code, drawn with only while a
     * fade may be running: before fade_end_s on the clock. */
    GLuint programs[CROWD_GPU_MODE_COUNT];
    GLuint fade_programs[CROWD_GPU_MODE_COUNT];
    GLuint ground_program;

    /* Instances: CPU shadow of the GPU records, dense in slots [0, count). */
    GLuint instance_buffer;
    uint32_t instance_capacity;
    uint32_t instance_count;
    gpu_instance_record *records;
    uint32_t *slot_id;    /* slot -> id */
    uint32_t *index_slot; /* id index -> slot, UINT32_MAX when free */
    uint16_t *index_generation;
    uint32_t *free_indices;
    uint32_t free_index_count;
    uint32_t id_count; /* id indices handed out so far */
    /* Every crossfade ever set ends before this clock time (-INFINITY when
     * none was): from then on each fade weight is exactly 1. */
    double fade_end_s;

    /* bat / vat */
    GLuint bat_texture, vat_position_texture, vat_normal_texture;
    uint64_t bat_bytes, vat_position_bytes, vat_normal_bytes;

    /* cpu / gpu: per-slot animation cursors (two per slot: clip, fade source)
     * and scratch arrays sized for the skeleton and mesh. */
    crowd_anim_cursor *cursors;
    uint32_t *cursor_keys;
    crowd_transform *pose, *from_pose;
    float *models;
    float *palette;                     /* 12 * joints, cpu mode's per-character scratch */
    crowd_skin_prepared *skin_prepared; /* cpu mode's SIMD skinning layout, made once */
    GLuint palette_buffer, skinned_buffer;
    uint64_t palette_bytes, skinned_bytes;
    void *palette_mapped, *skinned_mapped; /* mapped for as long as they live */

    uint64_t gpu_memory_bytes;
    uint64_t pending_upload_bytes;
    crowd_renderer_stats stats;
};

/* glutil.c */
crowd_result gpu_check(crowd_error *error, const char *what);
crowd_result gpu_buffer_create(crowd_renderer *r, GLuint *buffer, uint64_t *size_field,
                               uint64_t size_bytes, const void *data, GLbitfield flags,
                               crowd_error *error);
void gpu_buffer_delete(crowd_renderer *r, GLuint *buffer, uint64_t *size_field);
void gpu_texture_delete(crowd_renderer *r, GLuint *texture, uint64_t *size_field);
/* Builds a program from embedded shader files, each prefixed with
 * `#version 450 core` and `defines` (lines of #define). */
crowd_result gpu_program_create(const char *vertex_name, const char *fragment_name,
                                const char *defines, GLuint *out_program, crowd_error *error);
/* Embedded shader text by file name (generated at build time), or NULL. */
const char *crowd_gpu_shader_source(const char *name);

/* mesh.c */
crowd_result gpu_mesh_upload(crowd_renderer *r, crowd_error *error);
void gpu_mesh_release(crowd_renderer *r);
void gpu_mesh_bind_pose(crowd_renderer *r);

/* baked.c */
crowd_result gpu_baked_upload(crowd_renderer *r, crowd_gpu_mode mode, crowd_error *error);
void gpu_baked_release(crowd_renderer *r);

/* instances.c */
crowd_result gpu_instances_init(crowd_renderer *r, crowd_error *error);
void gpu_instances_release(crowd_renderer *r);
/* Whether some instance's fade weight may be below 1 at global time now_s
 * (the float the shaders get): O(1), from fade_end_s. */
bool gpu_crossfade_running(const crowd_renderer *r, float now_s);

/* playback.c */
float gpu_clip_time(const gpu_clip *clip, uint32_t loop_mode, float now_s, float start_s,
                    float offset_s, float speed);
float gpu_fade_weight(const gpu_instance_record *record, float now_s);
crowd_result gpu_pose_reserve(crowd_renderer *r, crowd_error *error);
void gpu_pose_release(crowd_renderer *r);
void gpu_pose_reset_cursor(crowd_renderer *r, uint32_t slot, uint32_t which);
void gpu_pose_move_cursor(crowd_renderer *r, uint32_t from_slot, uint32_t from_which,
                          uint32_t to_slot, uint32_t to_which);
/* Skinning matrices (12 floats per joint) of the instance in `slot` at
 * global time now_s, crossfade included. */
void gpu_pose_palette(crowd_renderer *r, uint32_t slot, float now_s, float *out_palette);
/* Prepares the fast skinning path for cpu mode (once). */
crowd_result gpu_pose_prepare_skinning(crowd_renderer *r, crowd_error *error);
/* Skins the instance in `slot` into out (positions, then normals: 6 floats
 * per vertex). */
void gpu_pose_skin(crowd_renderer *r, uint32_t slot, float now_s, float *out);

/* frame.c */
/* Deletes the per-frame palette and skinned-vertex buffers (gpu, cpu). */
void gpu_streams_release(crowd_renderer *r);

/* camera.c */
float gpu_camera_fov(const crowd_camera *camera);
/* False when the camera is degenerate (eye on target, bad planes). */
bool gpu_camera_view_proj(const crowd_camera *camera, float aspect, float out[16]);

#endif
