/* gpu/internal.h - what the files of the gpu module share: the world and
 * archetype structs, the GPU record structs (laid out by
 * shaders/crowd_contract.glsl, which the shaders read too) and the helpers
 * that keep GPU memory accounted.
 */
#ifndef CROWD_GPU_INTERNAL_H
#define CROWD_GPU_INTERNAL_H

#include <stddef.h>

#include "../../shaders/crowd_contract.glsl"
#include "crowd/anim.h"
#include "crowd/bake.h"
#include "crowd/gpu.h"
#include "crowd/skin.h"
#include "gpu/gl.h"

typedef struct gpu_archetype gpu_archetype;

/* One instance's full state, on the CPU only: what every CPU path (events,
 * queries, cpu and gpu modes, root motion) reads, and what the GPU record
 * (gpu_instance_record) is packed from (record_pack.c) at each write. Clock
 * times are doubles, so they hold over a long clock. */
typedef struct gpu_instance_state {
    float position[3];
    /* The heading as its cosine and sine (sin_heading further down), worked
     * out once when the instance is written. */
    float cos_heading;
    float tint[4];
    float scale;
    double start_s;
    float offset_s;
    float speed;
    float duration_s; /* of clip */
    double fade_start_s;
    float fade_duration_s; /* > 0 while a crossfade is set */
    float from_duration_s; /* of from_clip */
    double from_start_s;
    float from_offset_s;
    float from_speed;
    float heading_rad;
    float sin_heading;
    float partner_weight; /* blend partner of clip: 0 none */
    float partner_duration_s;
    float from_partner_weight; /* of from_clip */
    float from_partner_duration_s;
    uint32_t clip;
    uint32_t flags;    /* GPU_FLAG_* */
    uint32_t frames;   /* clip's baked frames (bat, vat): gpu_frames() */
    uint32_t fps_bits; /* the clip's fps, a float's bits */
    uint32_t from_clip;
    uint32_t from_frames;
    uint32_t from_fps_bits;
    uint32_t handle; /* the instance's crowd_instance.id, for custom shading */
    uint32_t partner_frames;
    uint32_t partner_fps_bits;
    uint32_t from_partner_frames;
    uint32_t from_partner_fps_bits;
} gpu_instance_state;

/* The state's flags: loop mode (crowd_loop_mode) of the clip in bits 0-1,
 * of the clip faded from in bits 2-3; GPU_FLAG_FADE while that clip is
 * meaningful; whether each clip was baked as a loop; the frame layout
 * (crowd_frame_layout) of each clip and of their blend partners; the props
 * in the record's bits (GPU_FLAG_PROPS_*, the same bits in both). */
#define GPU_FLAG_LOOP_MASK 3u
#define GPU_FLAG_FROM_LOOP_SHIFT 2u
#define GPU_FLAG_FADE 16u
#define GPU_FLAG_CLIP_LOOPS 32u
#define GPU_FLAG_FROM_CLIP_LOOPS 64u
#define GPU_FLAG_LAYOUT_SHIFT 11u
#define GPU_FLAG_FROM_LAYOUT_SHIFT 13u
#define GPU_FLAG_PARTNER_LAYOUT_SHIFT 15u
#define GPU_FLAG_FROM_PARTNER_LAYOUT_SHIFT 17u
#define GPU_FLAG_LAYOUT_MASK 3u

/* One instance on the GPU (GPU_RECORD_* in shaders/crowd_contract.glsl, the
 * one description of it; the asserts below hold this struct to it): 40
 * bytes. The vertex shader reads it as per-instance vertex attributes, not
 * from a storage buffer: a software rasterizer fetches a per-instance
 * attribute once per batch of vertices, but loads storage buffer values one
 * lane at a time. Per-clip constants are in the clip table (u_clips), a
 * fade's or blend's state in the side table. */
typedef struct gpu_instance_record {
    float position[3];
    int32_t heading; /* heading_rad * 2^31 / pi */
    float scale;
    float speed;
    float phase_s;
    uint8_t tint[4];
    uint32_t bits;   /* GPU_BITS_* */
    uint32_t handle; /* crowd_instance.id, or the side entry while GPU_BITS_EXTENDED */
} gpu_instance_record;

#define GPU_WORD(type, field) (offsetof(type, field) / 4)
#define GPU_RECORD_AT(field, word)                                                                 \
    _Static_assert(GPU_WORD(gpu_instance_record, field) == (word),                                 \
                   "gpu_instance_record." #field " is not where crowd_contract.glsl puts it")
GPU_RECORD_AT(position, GPU_RECORD_POSITION);
GPU_RECORD_AT(heading, GPU_RECORD_HEADING);
GPU_RECORD_AT(scale, GPU_RECORD_SCALE);
GPU_RECORD_AT(speed, GPU_RECORD_SPEED);
GPU_RECORD_AT(phase_s, GPU_RECORD_PHASE);
GPU_RECORD_AT(tint, GPU_RECORD_TINT);
GPU_RECORD_AT(bits, GPU_RECORD_BITS);
GPU_RECORD_AT(handle, GPU_RECORD_HANDLE);
_Static_assert(sizeof(gpu_instance_record) == 4 * GPU_RECORD_WORDS,
               "gpu_instance_record is GPU_RECORD_WORDS words");
_Static_assert(GPU_INSTANCE_ATTR == GPU_ATTR_COUNT && GPU_BINDING_INSTANCES == GPU_ATTR_COUNT &&
                   GPU_INSTANCE_POSITION_ATTR == GPU_INSTANCE_ATTR &&
                   GPU_INSTANCE_BITS_ATTR == GPU_INSTANCE_ATTR + GPU_INSTANCE_ATTRS - 1 &&
                   GPU_INSTANCE_BITS_ATTR < 16,
               "the record's attributes follow the mesh's, within the 16 every tier has");
_Static_assert(GPU_MAX_CLIPS == CROWD_ARCHETYPE_MAX_CLIPS &&
                   GPU_MAX_CLIPS - 1 == GPU_BITS_CLIP_MASK,
               "a clip index fits the record's bits");
_Static_assert((1u << GPU_SIDE_ROW_SHIFT) == GPU_SIDE_ROW_ENTRIES, "side table rows");
_Static_assert((1u << GPU_PALETTE_WIDTH_SHIFT) - 1u == GPU_PALETTE_WIDTH_MASK,
               "the palette texture's width and mask agree");
_Static_assert(GPU_MAX_LODS == CROWD_BAKE_MAX_LODS, "the culling pass holds every LOD");
_Static_assert(GPU_COMMAND_PROPS_FIRST == GPU_MAX_LODS &&
                   GPU_COMMAND_NEAREST_FIRST == GPU_COMMAND_PROPS_FIRST + GPU_MAX_PROPS &&
                   GPU_COMMAND_COUNT == GPU_COMMAND_NEAREST_FIRST + GPU_MAX_LODS,
               "the culling pass's commands: LODs', props', then the LODs' one-fetch ones");
_Static_assert(CROWD_BAKE_BLEND_MAX_CLIPS == CROWD_BLEND_MAX_CLIPS &&
                   CROWD_BAKE_MAX_BLENDS == CROWD_ARCHETYPE_MAX_BLENDS,
               "a bake's blends fit an archetype");
_Static_assert(GPU_MAX_PROPS == CROWD_ARCHETYPE_MAX_PROPS &&
                   GPU_FLAG_PROPS_MASK == ((1u << GPU_MAX_PROPS) - 1u) << GPU_FLAG_PROPS_SHIFT &&
                   (GPU_FLAG_PROPS_MASK &
                    ((1u << (GPU_FLAG_FROM_PARTNER_LAYOUT_SHIFT + 2u)) - 1u)) == 0u &&
                   (GPU_FLAG_PROPS_MASK & (GPU_FLAG_LOD_MASK | GPU_BITS_ANY_CLIP)) == 0u,
               "every prop type has its flag bit, above the other flags");
_Static_assert(GPU_FLAG_LOD_BITS + 1u >= CROWD_BAKE_MAX_LODS, "a LOD index fits its flag bits");

/* A clip's first frame and frame count in one record word: both are below
 * 2^16, as a texture holds at most 16384 rows (the archetype checks). */
static inline uint32_t gpu_frames(uint32_t first_frame, uint32_t frame_count) {
    return first_frame | frame_count << 16;
}

/* One material (GPU_MATERIAL_* in crowd_contract.glsl). */
typedef struct gpu_material_record {
    float base_color[4];
    int32_t texture_layer; /* -1: none */
    float metallic, roughness;
    int32_t pad;
} gpu_material_record;
_Static_assert(GPU_WORD(gpu_material_record, base_color) == GPU_MATERIAL_BASE_COLOR &&
                   GPU_WORD(gpu_material_record, texture_layer) == GPU_MATERIAL_TEXTURE_LAYER &&
                   GPU_WORD(gpu_material_record, metallic) == GPU_MATERIAL_METALLIC &&
                   GPU_WORD(gpu_material_record, roughness) == GPU_MATERIAL_ROUGHNESS &&
                   sizeof(gpu_material_record) == 16 * GPU_MATERIAL_VEC4S,
               "gpu_material_record is not laid out as crowd_contract.glsl says");

typedef struct gpu_clip {
    char *name;
    float duration_s;
    bool loop;
    uint32_t first_frame; /* baked frames (bat/vat) */
    uint32_t frame_count;
    float fps;
    crowd_frame_layout layout;
    uint32_t source_clip; /* index into the source asset's clips, UINT32_MAX if none */
    /* Its markers (the bake's events): gpu_events.times and names from
     * marker_first, in time order. */
    uint32_t marker_first, marker_count;
} gpu_clip;

/* The GLSL a world compiles: the GL 4.5 tier's, or the portable tier's
 * on desktop GL 3.3+ core or on GLES 3.0+ / WebGL2. */
typedef enum gpu_glsl { GPU_GLSL_450, GPU_GLSL_330, GPU_GLSL_300_ES } gpu_glsl;

/* A linked program and its uniforms' locations by GPU_UNIFORM_* number
 * (looked up by name: the portable tier's GLSL has no layout(location) on
 * uniforms; on the GL 4.5 tier each is its own number). -1: not in it. */
typedef struct gpu_program {
    GLuint id;
    GLint uniform[GPU_UNIFORM_COUNT];
} gpu_program;

/* The programs of one mode: colour and depth-only passes, each built
 * without and (bat, vat) with the crossfade code, the latter drawn with only
 * while a fade may be running: before fade_end_s on the clock. */
typedef struct gpu_mode_programs {
    gpu_program color, color_fade, depth, depth_fade;
    gpu_program color_nearest, depth_nearest; /* bat, vat: one frame fetched */
} gpu_mode_programs;
/* A mode's programs shared by the world's archetypes of one variant
 * (programs.c). */
typedef struct gpu_program_set gpu_program_set;

/* An archetype's parts, one per file that owns it (as sokol keeps one pool
 * per resource type): each file works on its part and reads the rest. GPU
 * bytes of every part are summed in gpu_archetype.gpu_memory_bytes. */

/* mesh.c: the mesh, shared by every mode, and the materials. LODs: LOD0's
 * vertices, then every LOD's compacted copies (vertex_total in all); each
 * LOD's indices a range of the one index buffer. */
typedef struct gpu_mesh {
    GLuint vao;
    GLuint mesh_buffer, index_buffer;
    GLintptr attr_offset[GPU_ATTR_COUNT];
    uint64_t mesh_bytes, index_bytes;
    uint32_t index_count; /* LOD0's */
    uint32_t lod_count;
    uint32_t lod_first_index[CROWD_BAKE_MAX_LODS], lod_index_count[CROWD_BAKE_MAX_LODS];
    float lod_error[CROWD_BAKE_MAX_LODS]; /* measured by the bake, model units */
    uint32_t vertex_total, index_total;
    GLuint material_buffer, material_textures;
    uint64_t material_bytes, material_texture_bytes;
    GLuint material_records; /* portable: the materials as an RGBA32UI texture */
} gpu_mesh;

/* instances.c: the CPU shadow of the GPU records, dense in slots
 * [0, count); slot_handle maps a slot to its index in the world's handle
 * table. The portable tier keeps no GPU copy (buffer 0): each pass streams
 * the records it draws (gpu_streams.records). */
/* side_table.c: the rare state of instances that fade or blend in bat and
 * vat modes (GPU_SIDE_* in crowd_contract.glsl), dense in entries
 * [0, count) as the slots are (freeing one moves the last into it). The
 * texture is remade or refilled at the next draw after a change. */
typedef struct gpu_side_table {
    uint32_t *words;      /* 4 * GPU_SIDE_TEXELS per entry, CPU copy */
    uint32_t *entry_slot; /* per entry */
    uint32_t *slot_entry; /* per slot, capacity of the instances; UINT32_MAX: none */
    uint32_t count, capacity;
    GLuint texture;
    uint32_t texture_rows;
    uint64_t texture_bytes;
    bool dirty;
} gpu_side_table;

typedef struct gpu_instances {
    GLuint buffer;
    uint32_t capacity;
    uint32_t count;
    gpu_instance_state *states;   /* the CPU's full state, per slot */
    gpu_instance_record *records; /* packed from states: the GPU buffer's copy */
    gpu_side_table side;
    uint32_t *slot_handle;
    /* Every crossfade ever set ends before this clock time (-INFINITY when
     * none was): from then on each fade weight is exactly 1. */
    double fade_end_s;
} gpu_instances;

/* baked.c: bat and vat modes' textures. */
typedef struct gpu_baked {
    GLuint bat_texture, vat_position_texture, vat_normal_texture;
    uint64_t bat_bytes, vat_position_bytes, vat_normal_bytes;
} gpu_baked;

/* playback.c: cpu and gpu modes' per-slot animation cursors (two per slot:
 * clip, fade source) and scratch arrays sized for the skeleton and mesh. */
typedef struct gpu_playback {
    crowd_anim_cursor *cursors;
    uint32_t *cursor_keys;
    uint32_t cursor_capacity; /* slots the cursors cover */
    crowd_transform *pose, *from_pose, *partner_pose;
    float *models;
    float *palette;                     /* 12 * joints, cpu mode's per-character scratch */
    crowd_skin_prepared *skin_prepared; /* cpu mode's SIMD skinning layout, made once */
} gpu_playback;

/* query.c: the joint and socket queries' own scratch (a pose, the fade
 * source's and the model matrices), made at the first query, so a query
 * touches nothing the cpu and gpu modes draw from. */
typedef struct gpu_query {
    crowd_transform *pose, *from_pose, *partner_pose;
    float *models;
} gpu_query;

/* poses.c: the caller's own poses (crowd_instance_set_pose). Only posed
 * instances hold one: slot_entry maps each slot to its entry in a pool of
 * model matrices (16 floats per joint an entry), UINT32_MAX for a slot that
 * plays its clip; entry_slot maps back. The pool is dense too: freeing an
 * entry moves the last one into it, as instance removal moves the last slot.
 * `scratch` is one local pose, for normalizing a caller's rotations. */
typedef struct gpu_poses {
    uint32_t *slot_entry; /* per slot, capacity of the instances */
    uint32_t *entry_slot; /* per entry */
    float *models;        /* 16 * joints per entry */
    uint32_t count, capacity;
    crowd_transform *scratch;
} gpu_poses;

/* streams.c: per-frame streams, CROWD_WORLD_STREAM_FRAMES sections of
 * section_bytes, mapped for as long as they live; this frame's is the
 * world's stream_section. */
typedef struct gpu_streams {
    GLuint palette_buffer, skinned_buffer;
    uint64_t palette_bytes, skinned_bytes;
    uint64_t palette_section_bytes, skinned_section_bytes;
    void *palette_mapped, *skinned_mapped;
    /* The portable tier (no persistent mapping, no storage buffers): the
     * update writes palette_mapped / skinned_mapped in CPU memory (one
     * section), the frame's first draw uploads it (uploaded_frame): vertices
     * into skinned_buffer by orphaning, palettes into the texture of the
     * frame's stream section (fenced as the sections are). Each pass's
     * instance records go to `records`, orphaned per pass. */
    GLuint palette_textures[CROWD_WORLD_STREAM_FRAMES];
    uint32_t palette_rows; /* of every palette texture */
    uint64_t palette_texture_bytes;
    uint64_t uploaded_frame;
    GLuint records;
    uint64_t records_bytes; /* the buffer's size now */
} gpu_streams;

/* cull.c: animated bounding spheres per clip (object space), the bind
 * pose's, and per LOD a list of visible records with its indirect command.
 * lod_state keeps each slot's LOD for the hysteresis. */
typedef struct gpu_cull_lists {
    float bind_sphere[4];
    GLuint clip_sphere_buffer, visible_buffer, command_buffer, lod_state_buffer, clip_step_buffer;
    uint64_t clip_sphere_bytes, visible_bytes, command_bytes, lod_state_bytes, clip_step_bytes;
    uint32_t visible_capacity;        /* records per LOD or prop list */
    uint32_t visible_lists;           /* the LODs' lists, then one per prop type */
    float *clip_spheres;              /* 4 per clip, CPU copy */
    float *clip_steps;                /* per clip, the bake's max_step (-1: not known) */
    bool any_clip_step;               /* some clip's is known */
    uint8_t *cpu_lod_state;           /* per slot, the CPU path's hysteresis */
    gpu_instance_record *cpu_visible; /* per LOD, at LOD x cpu_visible_capacity */
    uint32_t cpu_visible_capacity;
    uint32_t cpu_counts[CROWD_BAKE_MAX_LODS]; /* the last CPU culling's, per LOD */
    /* Of its instances, those that play the nearest frame, per LOD: the
     * last ones of the LOD's list (crowd__gpu_cull_cpu). */
    uint32_t cpu_nearest_counts[CROWD_BAKE_MAX_LODS];
    uint64_t nearest_stream_first; /* portable tier: where the pass's stream has them */
    /* The CPU culling's blocks of GPU_CULL_BLOCK slots: a world sphere
     * around its members' spheres, tested first, so a block outside the
     * view costs one test. A block's sphere is remade when one of its
     * records was written since (block_fresh 0) or the mode changed between
     * bind pose and clips; removals leave it larger than it need be. */
    float *block_spheres; /* 4 per block */
    uint8_t *block_fresh;
    uint32_t block_capacity;
    bool blocks_bind_pose;
} gpu_cull_lists;
#define GPU_CULL_BLOCK 64u

/* events.c: each slot's event clocks, the index of the slots that can fire
 * and every clip's markers. */
#define GPU_EVENTS_FRESH 1u      /* the clip has just started: its start fires too */
#define GPU_EVENTS_FROM_FRESH 2u /* the same, for the clip a crossfade leaves */
#define GPU_EVENTS_FROM_LIVE 4u  /* that clip's fade has not ended */
typedef struct gpu_event_clock {
    float t;         /* the clip's unwrapped play time when it was last read */
    float from_t;    /* the fading-out clip's, while GPU_EVENTS_FROM_LIVE */
    uint32_t listed; /* index in gpu_events.listed, UINT32_MAX when not there */
    uint32_t flags;  /* GPU_EVENTS_* */
} gpu_event_clock;

typedef struct gpu_events {
    float *times;       /* every clip's marker times, clip after clip */
    const char **names; /* the bake's names (it outlives the archetype) */
    uint32_t total;
    crowd_marker_hit *hits; /* scratch: CROWD_MARKER_HITS_MAX(the most a clip has) */
    uint32_t hit_capacity;
    gpu_event_clock *clocks; /* per slot */
    /* The slots whose clip has markers or plays once, or whose fading-out
     * clip does while its fade runs: what an update reads, so instances of
     * clips without events cost nothing. */
    uint32_t *listed;
    uint32_t listed_count;
} gpu_events;

/* blend.c, blend_slots.c, blend_play.c: the archetype's blends and each
 * slot's place in one. */
/* Weights at which a blend's strides are measured per segment. */
#define GPU_BLEND_STRIDE_STEPS ((uint32_t)CROWD_BAKE_BLEND_STRIDE_STEPS)
typedef struct gpu_blend {
    char *name;
    uint32_t clip_count;
    uint32_t clips[CROWD_BLEND_MAX_CLIPS];
    float thresholds[CROWD_BLEND_MAX_CLIPS];
    /* Per segment, the phase-locked blend's stride (ground speed * cycle,
     * crowd_anim_blend_ground_speed) at weights k / GPU_BLEND_STRIDE_STEPS,
     * for speed matching; has_strides false without a skeleton. */
    float strides[CROWD_BLEND_MAX_CLIPS - 1][GPU_BLEND_STRIDE_STEPS + 1];
    bool has_strides;
} gpu_blend;

/* Per slot. The record's speed is rate * factor: factor 1 for a clip, and
 * for a blend d_main / D (the main clip runs at the blend cycle's rate); the
 * clip a crossfade leaves keeps its own factor. partner_clip is what cpu
 * and gpu sample as the partner (UINT32_MAX: none); blend UINT32_MAX: the
 * slot plays a clip. */
typedef struct gpu_blend_slot {
    uint32_t blend;
    float parameter;
    float rate;
    float factor, from_factor;
    uint32_t partner_clip, from_partner_clip;
} gpu_blend_slot;

typedef struct gpu_blends {
    gpu_blend *items; /* count of them, grown one at a time (a few per archetype) */
    uint32_t count;
    float *ground_speeds;  /* per clip, measured at the first need */
    gpu_blend_slot *slots; /* per slot, capacity of the instances */
    /* Slots whose clip has a blend partner: bat and vat draw their
     * CROSSFADE build while there is one. */
    uint32_t partnered;
} gpu_blends;

/* A growing list of events (world.c's reported and pending ones). */
typedef struct gpu_event_list {
    crowd_event *items;
    uint32_t count, capacity;
} gpu_event_list;

/* props.c: the archetype's prop types. Each keeps its mesh in the
 * character's bind space (gpu_mesh, drawn with the character's record), its
 * vertices on the CPU for cpu mode's skinning (after the character's in the
 * skinned stream, from first_skinned), and vat's socket track. */
typedef struct gpu_prop {
    char *socket_name;
    uint32_t joint;
    gpu_mesh mesh;
    uint32_t vertex_count;
    float *positions, *normals; /* bind space, 3 floats per vertex */
    uint32_t first_skinned;
    GLuint track_texture; /* 3 RGBA32F texels per baked frame, or 0 */
    uint64_t track_bytes;
    uint64_t mesh_bytes; /* the mesh's and materials' share of gpu_memory_bytes */
    uint32_t carriers;
    /* The last CPU culling's carriers (records at p x capacity of
     * gpu_props.cpu_visible) and, on the portable tier, where the pass's
     * record stream holds them. */
    uint32_t cpu_count;
    uint64_t stream_first;
} gpu_prop;

typedef struct gpu_props {
    gpu_prop items[GPU_MAX_PROPS];
    uint32_t count;
    uint32_t vertex_total; /* every prop's, cpu mode's share of the skinned stream */
    /* vat props draw with the bat programs (their socket track is a
     * one-joint BAT), taken with the first vat prop draw. */
    gpu_program_set *track_programs;
    gpu_instance_record *cpu_visible; /* cpu_lists lists of cpu_capacity records */
    uint32_t cpu_capacity, cpu_lists;
} gpu_props;

/* One character type (archetype.c): what it was made from, its clips and
 * mode, the programs it draws with, and its parts. */
struct gpu_archetype {
    crowd_world *world;
    uint32_t handle; /* crowd_archetype.id */
    char *name;
    const crowd_asset *source; /* skeleton and clips for cpu/gpu; NULL for a loaded bake */
    const crowd_asset *drawn;  /* mesh and materials drawn */
    const crowd_bake *bake;
    char *fragment_source; /* the caller's crowd_shade, or NULL */
    crowd_gpu_mode mode;
    float bind_min[3], bind_max[3];

    uint32_t clip_count;
    gpu_clip *clips;
    uint32_t clip_table[GPU_MAX_CLIPS][4]; /* u_clips (crowd_contract.glsl) */

    /* Taken from the world's shared sets when a mode is first used (or at
     * creation, desc.warm_programs), and kept until the archetype goes. */
    gpu_program_set *programs[CROWD_GPU_MODE_COUNT];

    gpu_mesh mesh;
    gpu_instances instances;
    gpu_baked baked;
    gpu_playback playback;
    gpu_query query;
    gpu_poses poses;
    gpu_streams streams;
    gpu_cull_lists cull;
    gpu_events events;
    gpu_blends blends;
    gpu_props props;

    uint64_t gpu_memory_bytes;
};

/* GL_TIME_ELAPSED queries of the last GPU_TIMING_FRAMES frames, at most
 * GPU_TIMING_DRAWS draws each. */
#define GPU_TIMING_FRAMES 4u
#define GPU_TIMING_DRAWS 32u
typedef struct gpu_timing {
    GLuint queries[GPU_TIMING_FRAMES][GPU_TIMING_DRAWS];
    uint32_t used[GPU_TIMING_FRAMES];
    uint64_t frame_of[GPU_TIMING_FRAMES];
    /* GPU-culled passes' indirect commands, copied into a mapped buffer
     * inside the frame's queries: GPU_TIMING_DRAWS x CROWD_BAKE_MAX_LODS
     * commands of 5 uints per frame. */
    GLuint readback_buffer;
    const GLuint *readback;
    uint32_t noted[GPU_TIMING_FRAMES];
    uint32_t noted_lods[GPU_TIMING_FRAMES][GPU_TIMING_DRAWS];
    bool noted_nearest[GPU_TIMING_FRAMES][GPU_TIMING_DRAWS]; /* one-fetch commands */
} gpu_timing;

struct crowd_world {
    crowd_gpu_tier tier; /* CROWD_TIER_GL45 or CROWD_TIER_PORTABLE */
    bool portable;       /* tier == CROWD_TIER_PORTABLE */
    gpu_glsl glsl;
    bool gles;
    bool unorm16_textures; /* GL_RGBA16 can be sampled (desktop, EXT_texture_norm16) */
    crowd_logger logger;
    crowd_allocator allocator; /* every CPU block of the world and its parts */
    uint32_t max_instances;
    bool timing;
    bool gpu_timing; /* timing with GPU queries (the GL 4.5 tier's) */
    crowd_state_policy state_policy;
    GLint max_texture_size;
    GLint max_texture_layers;
    double clock_s;
    /* Records' times are relative to it (crowd_contract.glsl, GPU_EPOCH_S). */
    double epoch_s;

    /* Archetypes by index (NULL when free), handle = index + 1 | generation << 8. */
    gpu_archetype *archetypes[CROWD_WORLD_MAX_ARCHETYPES];
    uint8_t archetype_generation[CROWD_WORLD_MAX_ARCHETYPES];
    uint32_t archetype_count;

    /* Instance handles: index | generation << 22, index < handle_count;
     * handle_archetype is UINT32_MAX when the index is free. */
    uint32_t *handle_archetype;
    uint32_t *handle_slot;
    uint16_t *handle_generation;
    uint32_t *free_handles;
    uint32_t free_handle_count;
    uint32_t handle_count, handle_capacity;
    uint32_t instance_count;

    /* Frames: streams' sections are guarded by a fence each. */
    uint64_t frame;
    uint32_t stream_section;
    GLsync section_fence[CROWD_WORLD_STREAM_FRAMES];

    GLuint cull_program; /* compiled with the first archetype */
    gpu_program_set **program_sets;
    uint32_t program_set_count, program_set_capacity;
    /* GPU-culled draws of this frame counted as if nothing were culled,
     * and what a read-back frame says they drew (timing.c). */
    uint64_t culled_upper_vertices, culled_upper_instances;
    uint64_t readback_vertices, readback_instances, readback_nearest;
    uint64_t readback_per_lod[CROWD_BAKE_MAX_LODS];
    bool readback_valid;

    /* Events: those the last update reported, and those state changes took
     * since (crowd__gpu_events_settle), which the next update reports. */
    gpu_event_list events, pending_events;

    gpu_timing timing_queries;
    double frame_cpu_start_s; /* thread CPU clock when the frame's update began */
    uint64_t pending_upload_bytes;
    crowd_world_stats stats;
};

/* glutil.c */
crowd_result crowd__gpu_check(crowd_error *error, const char *what);
/* Buffers and textures whose sizes (size_field) are counted in
 * *memory_bytes (an archetype's gpu_memory_bytes). */
crowd_result crowd__gpu_buffer_create(uint64_t *memory_bytes, GLuint *buffer, uint64_t *size_field,
                                      uint64_t size_bytes, const void *data, GLbitfield flags,
                                      crowd_error *error);
void crowd__gpu_buffer_delete(uint64_t *memory_bytes, GLuint *buffer, uint64_t *size_field);
/* The portable tier's buffer: made and filled bound to `target`
 * (GL_ARRAY_BUFFER, or GL_ELEMENT_ARRAY_BUFFER with the archetype's vertex
 * array bound), with glBufferData's `usage`; the binding is left to the
 * caller's saved state. */
crowd_result crowd__gpu_buffer_create_bound(uint64_t *memory_bytes, GLuint *buffer,
                                            uint64_t *size_field, GLenum target,
                                            uint64_t size_bytes, const void *data, GLenum usage,
                                            crowd_error *error);
/* The portable tier's 2D texture: made bound on unit `unit` (the active
 * unit is left there: the caller's saved state puts it back), nearest
 * filtering, one level, `pixels` (may be NULL) read tightly packed. */
crowd_result crowd__gpu_texture_create_bound(const crowd_world *world, GLuint *texture, GLuint unit,
                                             GLenum internal_format, uint32_t width,
                                             uint32_t height, GLenum format, GLenum type,
                                             const void *pixels, crowd_error *error);
void crowd__gpu_texture_delete(uint64_t *memory_bytes, GLuint *texture, uint64_t *size_field);
/* Builds a program from embedded shader files, each prefixed with
 * `#version 450 core` and `defines` (lines of #define); `fragment_tail`
 * (may be NULL) is appended to the fragment shader. */
/* A compute program from one embedded shader file. */
crowd_result crowd__gpu_compute_program_create(const char *name, GLuint *out_program,
                                               crowd_error *error);
crowd_result crowd__gpu_program_create(gpu_glsl glsl, const char *vertex_name,
                                       const char *fragment_name, const char *defines,
                                       const char *fragment_tail, GLuint *out_program,
                                       crowd_error *error);
/* The first lines of every stage in `glsl`: #version, precision statements
 * and the tier's macro (crowd_tier.glsl follows them). */
const char *crowd__gpu_glsl_preamble(gpu_glsl glsl);
/* Embedded shader text by file name (generated at build time), or NULL. */
const char *crowd_gpu_shader_source(const char *name);

/* Pixel-store state and unpack buffer set aside around texture uploads. */
#define GPU_UNPACK_STATE_COUNT 9
typedef struct gpu_unpack_state {
    GLint values[GPU_UNPACK_STATE_COUNT];
} gpu_unpack_state;
/* `gles`: the pixel-store state GLES has (no swap-bytes, no LSB-first). */
void crowd__gpu_unpack_begin(gpu_unpack_state *saved, bool gles);
void crowd__gpu_unpack_end(const gpu_unpack_state *saved, bool gles);
/* The unpack state at GL's defaults (alignment 4, the rest 0, no unpack
 * buffer), set without reading it: what the portable tier's draws leave
 * under CROWD_STATE_RESET, where a glGet may wait on the GPU (WebGL in
 * Chromium answers each from its GPU process). */
void crowd__gpu_unpack_defaults(bool gles);

/* programs.c */
/* The programs of the variant (mode, VAT_OCT decoding, fragment function or
 * NULL for crowd's), compiled the first time any archetype asks, with one
 * more user; CROWD_ERROR_GPU with the compiler's log. */
crowd_result crowd__gpu_programs_acquire(crowd_world *world, crowd_gpu_mode mode, bool vat_oct,
                                         bool vat_uint16, const char *fragment_source,
                                         gpu_program_set **out, crowd_error *error);
/* One user fewer; the last one deletes the programs. NULL is a no-op. */
void crowd__gpu_programs_release(crowd_world *world, gpu_program_set *set);
const gpu_mode_programs *crowd__gpu_programs_of(const gpu_program_set *set);
/* Deletes every set left (the world's destroy, after its archetypes). */
void crowd__gpu_programs_destroy_all(crowd_world *world);
/* GL programs the world holds: every set's and the culling pass's. */
uint32_t crowd__gpu_programs_count(const crowd_world *world);

/* world.c */
/* The tier a world runs on the context (`requested`: crowd_world_desc.tier):
 * the GL 4.5 tier on desktop OpenGL 4.5+ core; the portable tier on desktop
 * OpenGL 3.3+ core or OpenGL ES 3.0+; auto picks GL 4.5 where it can.
 * CROWD_ERROR_GPU saying what the context is and what the tier needs
 * otherwise (a compatibility profile is refused by both). */
crowd_result crowd__gpu_context_check(bool desktop_gl, int version, int profile_mask,
                                      crowd_gpu_tier requested, crowd_gpu_tier *out_tier,
                                      crowd_error *error);
/* The calling thread's CPU time in seconds (the stats' CPU times). */
double crowd__gpu_thread_cpu_s(void);
/* A copy of `text` from the world's allocator, NULL when out of memory. */
char *crowd__gpu_copy_string(const crowd_world *world, const char *text);
/* The calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), seconds: what the
 * stats' CPU times are read from. */
double crowd__gpu_thread_cpu_s(void);

/* mesh.c */
/* The mesh of `drawn` (with the LODs and VAT texels of `bake`, which may
 * be NULL) and its materials, counted in *memory_bytes; the vertex array is
 * left bound (the caller restores the application's). */
crowd_result crowd__gpu_mesh_upload(gpu_mesh *mesh, const crowd_asset *drawn,
                                    const crowd_bake *bake, const crowd_world *world,
                                    uint64_t *memory_bytes, crowd_error *error);
void crowd__gpu_mesh_release(gpu_mesh *mesh, uint64_t *memory_bytes);
/* Points the bound vertex array's positions and normals back at the mesh. */
void crowd__gpu_mesh_bind_pose(const gpu_mesh *mesh);

/* mesh_portable.c: the portable tier's mesh buffers and vertex array (left
 * bound), its materials as an RGBA32UI texture row, and the records'
 * attributes pointed at record `first_record` of `buffer` (bound to
 * GL_ARRAY_BUFFER, left bound). */
crowd_result crowd__gpu_mesh_arrays_portable(gpu_mesh *mesh, const uint8_t *data, uint64_t total,
                                             const uint32_t *indices, uint64_t *memory_bytes,
                                             crowd_error *error);
crowd_result crowd__gpu_material_records_portable(gpu_mesh *mesh, const crowd_world *world,
                                                  const gpu_material_record *records,
                                                  uint32_t count, uint64_t *memory_bytes,
                                                  crowd_error *error);
void crowd__gpu_mesh_bind_pose_portable(const gpu_mesh *mesh);
void crowd__gpu_records_point(GLuint buffer, uint64_t first_record);

/* baked.c */
/* The textures `mode` (bat or vat) reads from `bake`, each at most
 * max_texture_size a side, counted in *memory_bytes. */
crowd_result crowd__gpu_baked_upload(gpu_baked *baked, const crowd_bake *bake, crowd_gpu_mode mode,
                                     const crowd_world *world, uint64_t *memory_bytes,
                                     crowd_error *error);
/* Whether the world reads the bake's VAT positions as RGBA16UI (GLES
 * without EXT_texture_norm16): the programs decode them (VAT_UINT16). */
bool crowd__gpu_baked_vat_uint16(const crowd_world *world, const crowd_bake *bake);
void crowd__gpu_baked_release(gpu_baked *baked, uint64_t *memory_bytes);

/* world.c, world_instances.c */
/* The live archetype of a handle, or NULL. */
gpu_archetype *crowd__gpu_world_archetype(const crowd_world *world, crowd_archetype handle);
/* Same, as a result with the error message. */
crowd_result crowd__gpu_world_find_archetype(const crowd_world *world, crowd_archetype handle,
                                             gpu_archetype **out, crowd_error *error);
/* The archetype and slot of a live instance handle;
 * CROWD_ERROR_INVALID_ARGUMENT for a NULL world or a handle that is not live. */
crowd_result crowd__gpu_world_find_instance(const crowd_world *world, crowd_instance instance,
                                            gpu_archetype **out_archetype, uint32_t *out_slot,
                                            crowd_error *error);
/* Frees the handles of every instance of `archetype` and empties it. */
void crowd__gpu_world_release_handles(crowd_world *world, gpu_archetype *archetype);

/* archetype.c */
crowd_result crowd__gpu_archetype_create(crowd_world *world, const crowd_archetype_desc *desc,
                                         gpu_archetype **out, crowd_error *error);
void crowd__gpu_archetype_destroy(gpu_archetype *r);
bool crowd__gpu_archetype_has_mode(const gpu_archetype *r, crowd_gpu_mode mode);
crowd_result crowd__gpu_archetype_set_mode(gpu_archetype *r, crowd_gpu_mode mode,
                                           crowd_error *error);

/* instances.c: one archetype's records, by slot */
crowd_result crowd__gpu_instances_init(gpu_archetype *r, crowd_error *error);
void crowd__gpu_instances_release(gpu_archetype *r);
/* Whether some instance's fade weight may be below 1 at global time now_s
 * (the float the shaders get): O(1), from fade_end_s. */
bool crowd__gpu_crossfade_running(const gpu_archetype *r, float now_s);
/* Appends a record for world handle index `handle_index` (id `handle`). */
crowd_result crowd__gpu_instance_add(gpu_archetype *r, const crowd_instance_desc *desc,
                                     uint32_t handle_index, uint32_t handle, uint32_t *out_slot,
                                     crowd_error *error);
crowd_result crowd__gpu_instance_update(gpu_archetype *r, uint32_t slot,
                                        const crowd_instance_desc *desc, crowd_error *error);
crowd_result crowd__gpu_instance_set_transform(gpu_archetype *r, uint32_t slot,
                                               const float position[3], float heading_rad,
                                               float scale, crowd_error *error);
crowd_result crowd__gpu_instance_set_speed(gpu_archetype *r, uint32_t slot, float speed,
                                           crowd_error *error);
crowd_result crowd__gpu_instance_play(gpu_archetype *r, uint32_t slot, uint32_t clip,
                                      float crossfade_s, crowd_error *error);
/* play without the record's write (play_blend writes it once, blended). */
crowd_result crowd__gpu_instance_start(gpu_archetype *r, uint32_t slot, uint32_t clip,
                                       float crossfade_s, crowd_error *error);
/* Sends the slot's record to the GPU (the GL 4.5 tier; nothing on the
 * portable one, which streams records per pass) and tells the CPU culling
 * that its block changed. Every change of a record goes through here. */
void crowd__gpu_instance_write(gpu_archetype *r, uint32_t slot);
/* record_pack.c: the slot's GPU record from its state (and its side-table
 * entry taken, refilled or freed), into instances.records. */
void crowd__gpu_record_pack(gpu_archetype *r, uint32_t slot);
/* Every slot's record again (a mode change, a new epoch); on the GL 4.5
 * tier the buffer gets them all. */
void crowd__gpu_records_repack_all(gpu_archetype *r);
/* The heading code of the record (GPU_RECORD_HEADING) and the angle the
 * shaders decode from it. */
int32_t crowd__gpu_heading_code(float heading_rad);
float crowd__gpu_heading_angle(int32_t code);
/* The clip time a record encodes at clock time epoch + rel_s, evaluated as
 * the shaders do (float). */
float crowd__gpu_record_clip_time(const gpu_archetype *r, const gpu_instance_record *rec,
                                  float rel_s);
/* Whether the slot needs a side-table entry now (a running fade or a blend
 * partner, in bat or vat mode). */
bool crowd__gpu_record_extended(const gpu_archetype *r, uint32_t slot);
/* World update: a new epoch when the clock has run GPU_EPOCH_S past it,
 * and entries freed whose fade has ended. */
void crowd__gpu_records_tick(crowd_world *w);
/* crowd_world_stats.record_memory_bytes of the archetype. */
uint64_t crowd__gpu_record_memory(const gpu_archetype *r);

/* side_table.c */
crowd_result crowd__gpu_side_reserve(gpu_archetype *r, uint32_t capacity, crowd_error *error);
void crowd__gpu_side_release(gpu_archetype *r);
/* The slot's entry (taken if it had none), its words to fill. */
uint32_t *crowd__gpu_side_take(gpu_archetype *r, uint32_t slot, uint32_t *out_entry);
/* Frees the slot's entry if it has one; the last entry moves into it (its
 * slot's record gets the new index). */
void crowd__gpu_side_free(gpu_archetype *r, uint32_t slot);
/* Removal: the last slot's entry (if any) becomes slot's. */
void crowd__gpu_side_move_slot(gpu_archetype *r, uint32_t slot, uint32_t last);
/* Before a draw that reads it: the texture holds the entries, bound on
 * GPU_TEXTURE_SIDE. */
crowd_result crowd__gpu_side_bind(gpu_archetype *r, crowd_error *error);

/* The record's clip words (frames, fps, duration, loop and layout flags). */
void crowd__gpu_record_set_clip(const gpu_archetype *r, gpu_instance_state *rec, uint32_t clip);
/* Removes the record in `slot`; the last record moves into it. Returns the
 * handle index of the moved record (UINT32_MAX when none moved). */
uint32_t crowd__gpu_instance_remove(gpu_archetype *r, uint32_t slot);
void crowd__gpu_instances_clear(gpu_archetype *r);
/* Grows [min, max] by every instance's bind-pose box in world space. */
void crowd__gpu_instances_grow_bounds(const gpu_archetype *r, float min[3], float max[3]);

/* blend.c: declared blends and their measures */
/* Every clip's ground speed into blends.ground_speeds, once;
 * CROWD_ERROR_UNSUPPORTED without a skeleton and clips. */
crowd_result crowd__gpu_blends_measure(gpu_archetype *r, crowd_error *error);
/* blend_slots.c: each slot's state */
/* slots for `capacity` slots (before instances.capacity moves). */
crowd_result crowd__gpu_blends_reserve(gpu_archetype *r, uint32_t capacity, crowd_error *error);
void crowd__gpu_blends_release(gpu_archetype *r);
/* A slot starts (add, update) or plays a plain clip from now (play): it
 * is in no blend, its rate the record's speed. */
void crowd__gpu_blends_slot_clip(gpu_archetype *r, uint32_t slot, float rate);
/* The same for a fresh slot (add), whose state holds nothing yet. */
void crowd__gpu_blends_slot_init(gpu_archetype *r, uint32_t slot, float rate);
/* Before crowd_instance_play with a crossfade: the slot's partner becomes
 * the fading-out clip's; then (after the new clip is set) no partner. */
void crowd__gpu_blends_slot_fade(gpu_archetype *r, uint32_t slot);
/* Removal: the last slot's state moves into slot. */
void crowd__gpu_blends_remove(gpu_archetype *r, uint32_t slot, uint32_t last);
void crowd__gpu_blends_clear(gpu_archetype *r);
/* The record's speed for rate `rate` (and its fading-out clip's). */
void crowd__gpu_blends_set_rate(gpu_archetype *r, uint32_t slot, float rate);
/* The slot's partner clips for sampling (UINT32_MAX: none). */
const gpu_blend_slot *crowd__gpu_blends_slot(const gpu_archetype *r, uint32_t slot);
/* The bake's blends (crowd_bake.blends), declared at the archetype's
 * creation; an error (a clip's ground speed that does not rise) fails it. */
crowd_result crowd__gpu_blends_declare_baked(gpu_archetype *r, crowd_error *error);
/* Clears the record's partner words and flags (to side). */
void crowd__gpu_record_clear_partner(gpu_instance_state *rec);

/* events.c */
/* The markers of every clip of the bake (r->clips made), checked. */
crowd_result crowd__gpu_events_init(gpu_archetype *r, crowd_error *error);
void crowd__gpu_events_release(gpu_archetype *r);
/* Per-slot clocks for r->instances.capacity slots. */
crowd_result crowd__gpu_events_reserve(gpu_archetype *r, uint32_t capacity, crowd_error *error);
/* Before a change to the playback of `slot`: the events its clocks passed
 * up to the world's clock, into the pending list. Nothing changes on
 * CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__gpu_events_settle(gpu_archetype *r, uint32_t slot, crowd_error *error);
/* After it: how the new state starts. */
typedef enum gpu_event_start {
    GPU_EVENT_START_CLIP,     /* a new clip from its start (add, update, a cut) */
    GPU_EVENT_START_FADE,     /* play with a crossfade: the old clip fades out */
    GPU_EVENT_START_CONTINUE, /* the same clips on from here (set_speed) */
} gpu_event_start;
void crowd__gpu_events_start(gpu_archetype *r, uint32_t slot, gpu_event_start how);
/* The slot has just taken a caller's pose: it fires nothing while posed
 * (slot_fires), and the clip a crossfade was leaving never fires again. */
void crowd__gpu_events_pose(gpu_archetype *r, uint32_t slot);
/* Removal: slot leaves the index; the last slot's clock moves into it. */
void crowd__gpu_events_remove(gpu_archetype *r, uint32_t slot, uint32_t last);
void crowd__gpu_events_clear(gpu_archetype *r);
/* The update's events at now_s: the pending ones, then each listed slot's. */
crowd_result crowd__gpu_events_update(crowd_world *w, float now_s, crowd_error *error);
/* Drops the events of an archetype about to go (their names are its bake's). */
void crowd__gpu_events_forget(crowd_world *w, const gpu_archetype *r);
void crowd__gpu_events_free_lists(crowd_world *w);

/* playback.c */
/* Whether `clip` wraps when played in loop_mode (crowd_loop_mode). */
bool crowd__gpu_clip_loops(const gpu_clip *clip, uint32_t loop_mode);
/* crowd_anim_play_time of `clip` played in loop_mode (crowd_loop_mode). */
float crowd__gpu_clip_time(const gpu_clip *clip, uint32_t loop_mode, float now_s, float start_s,
                           float offset_s, float speed);
float crowd__gpu_fade_weight(const gpu_instance_state *record, float now_s);
crowd_result crowd__gpu_pose_reserve(gpu_archetype *r, crowd_error *error);
void crowd__gpu_pose_release(gpu_archetype *r);
void crowd__gpu_pose_reset_cursor(gpu_archetype *r, uint32_t slot, uint32_t which);
void crowd__gpu_pose_move_cursor(gpu_archetype *r, uint32_t from_slot, uint32_t from_which,
                                 uint32_t to_slot, uint32_t to_which);
/* The pose of `record` at global time now_s as model matrices (16 floats
 * per joint into out_models): each clip sampled at its clip time, the two
 * crossfade-blended (crowd_anim_blend), local to model. The one path of the
 * cpu and gpu modes and the joint queries. `cursors`: the slot's two (clip,
 * fade source), or NULL for a stateless sample (a binary search per track,
 * which finds the same keys). pose and from_pose: joint_count scratch. */
/* `blend`: the slot's blend partners (NULL: none); partner_pose a third
 * scratch pose (may be NULL when blend is). */
void crowd__gpu_pose_models(const gpu_archetype *r, const gpu_instance_state *record, float now_s,
                            const gpu_blend_slot *blend, crowd_anim_cursor *cursors,
                            crowd_transform *pose, crowd_transform *from_pose,
                            crowd_transform *partner_pose, float *out_models);
/* Skinning matrices (12 floats per joint) of the instance in `slot` at
 * global time now_s, crossfade included. */
void crowd__gpu_pose_palette(gpu_archetype *r, uint32_t slot, float now_s, float *out_palette);
/* Prepares the fast skinning path for cpu mode (once). */
crowd_result crowd__gpu_pose_prepare_skinning(gpu_archetype *r, crowd_error *error);
/* Skins the instance in `slot` into out (positions, then normals: 6 floats
 * per vertex). */
void crowd__gpu_pose_skin(gpu_archetype *r, uint32_t slot, float now_s, float *out);

/* poses.c */
/* slot_entry for `capacity` slots (before instances.capacity moves). */
crowd_result crowd__gpu_poses_reserve(gpu_archetype *r, uint32_t capacity, crowd_error *error);
void crowd__gpu_poses_release(gpu_archetype *r);
/* The caller's model matrices of the instance in `slot`, or NULL when it
 * plays its clip. */
const float *crowd__gpu_poses_models(const gpu_archetype *r, uint32_t slot);
/* Ends the slot's pose, if it has one: it plays its clip again, at the
 * world's clock, and fires from there (clear_pose; play and update first). */
void crowd__gpu_poses_end(gpu_archetype *r, uint32_t slot);
/* Removal: slot's pose goes; the last slot's entry moves into it. */
void crowd__gpu_poses_remove(gpu_archetype *r, uint32_t slot, uint32_t last);
void crowd__gpu_poses_clear(gpu_archetype *r);

/* query.c */
/* Frees the queries' scratch (the archetype's destroy). */
void crowd__gpu_query_release(gpu_archetype *r);

/* streams.c: the cpu and gpu modes' per-frame data */
/* Samples and writes this frame's palettes (gpu) or skinned vertices (cpu)
 * into the world's current stream section. */
crowd_result crowd__gpu_streams_update(gpu_archetype *r, float now_s, crowd_error *error);
/* Deletes the per-frame palette and skinned-vertex buffers (gpu, cpu). */
void crowd__gpu_streams_release(gpu_archetype *r);
/* Every instance's palette or skinned vertices at `base`, per_instance
 * bytes apart (timed as cpu_animation_time_s). */
void crowd__gpu_streams_write(gpu_archetype *r, float now_s, char *base, uint64_t per_instance);

/* streams_portable.c: the portable tier's streams. The update writes CPU
 * memory; the frame's first draw uploads it (vertices by orphaning,
 * palettes into the stream section's texture) and the draws read it. */
crowd_result crowd__gpu_streams_update_portable(gpu_archetype *r, float now_s, crowd_error *error);
crowd_result crowd__gpu_streams_upload_portable(gpu_archetype *r, crowd_error *error);
void crowd__gpu_streams_release_portable(gpu_archetype *r);
/* `count` records into the streamed record buffer (orphaned), from
 * `lists[i]`, `counts[i]` records each, one after the other. */
crowd_result crowd__gpu_records_stream(gpu_archetype *r, const gpu_instance_record *const lists[],
                                       const uint32_t counts[], uint32_t list_count,
                                       crowd_error *error);

/* cull.c */
/* Per-clip spheres and the bind pose's, from the bake (or the bind pose
 * when there is none); called once the mesh is up. */
crowd_result crowd__gpu_cull_init(gpu_archetype *r, crowd_error *error);
void crowd__gpu_cull_release(gpu_archetype *r);
/* Whether the archetype's mode draws through the culled path (static, bat,
 * vat: their bounds are known and their records are all they read). */
bool crowd__gpu_cull_applies(const gpu_archetype *r);
/* The view's culling and LOD choice (GPU or CPU as desc says) into the
 * archetype's lists and commands; an error (out of memory for the lists)
 * when nothing can be drawn. Binds storage buffers and the culling program:
 * run it before the draw's own bindings. */
crowd_result crowd__gpu_cull_run(gpu_archetype *r, const crowd_draw_desc *desc,
                                 const float view_proj[16], uint32_t *out_lod_count,
                                 crowd_error *error);
/* The multi-draw of those lists, with the archetype's draw state bound:
 * the interpolating instances', or (nearest) the one-fetch instances' with
 * the one-fetch program bound; `counted`: the CPU path already counted what
 * it draws (the GPU path's commands are read back for the stats when
 * timing is on). */
void crowd__gpu_cull_submit(gpu_archetype *r, uint32_t lod_count, bool counted, bool nearest);
/* Whether the pass's culling may have put instances on the one-fetch path
 * (the GPU's count is not known to the CPU: true whenever it could). */
bool crowd__gpu_cull_any_nearest(const gpu_archetype *r, const crowd_draw_desc *desc,
                                 uint32_t lod_count);
/* The planes, the LOD scaling and the hysteresis of one view. */
typedef struct gpu_view {
    float planes[6][4]; /* normalized, inside where dot(n, p) + d >= 0 */
    float clip_w[4];    /* view_proj's row 3 */
    float lod_scaled_error[CROWD_BAKE_MAX_LODS];
    uint32_t lod_count;
    bool keep_lod_state;
    /* One-fetch playback: pixels per unit at w = 1 over the step that
     * plays the nearest frame (0: not by size), and the draw's choice. */
    float frame_step_scale;
    crowd_frame_fetch frame_fetch;
} gpu_view;
void crowd__gpu_view_make(const gpu_archetype *r, const crowd_draw_desc *desc,
                          const float view_proj[16], gpu_view *out);
/* The CPU path: visible records into per-LOD lists (out, capacity each),
 * counts per LOD; of them nearest_counts[lod] play the nearest frame, at
 * the far end of the list (out[lod * capacity + capacity - 1 - n] for the
 * n-th). Same choices as crowd_cull.comp.glsl. */
void crowd__gpu_cull_cpu(gpu_archetype *r, const gpu_view *view, uint8_t *lod_state,
                         gpu_instance_record *out, uint32_t capacity, uint32_t counts[],
                         uint32_t nearest_counts[]);
/* The slot's record changed: its block's sphere is remade at the next CPU
 * culling. */
void crowd__gpu_cull_block_changed(gpu_archetype *r, uint32_t slot);

/* draw.c */
/* Draws the archetype's instances in `pass` with the given uniforms; an
 * error when its culling lists cannot grow (nothing of it drawn). */
crowd_result crowd__gpu_archetype_draw(gpu_archetype *r, const crowd_draw_desc *desc,
                                       const float view_proj[16], float now_s, crowd_error *error);

/* Adds an unculled draw of every instance at LOD0 to the frame's stats. */
void crowd__gpu_count_unculled(gpu_archetype *r);

/* draw_portable.c: the portable tier's draws of the archetype, its program
 * and bindings set by crowd__gpu_archetype_draw (culled: the CPU lists of
 * crowd__gpu_cull_run, lod_count of them). */
crowd_result crowd__gpu_draw_portable(gpu_archetype *r, bool culled, uint32_t lod_count,
                                      crowd_error *error);
/* The one-fetch lists of the culled pass streamed by crowd__gpu_draw_portable,
 * with the one-fetch program bound. */
void crowd__gpu_draw_portable_nearest(gpu_archetype *r, uint32_t lod_count);

/* state.c: the GL state crowd_world_draw changes, saved and put back */
typedef struct gpu_saved_state {
    bool portable; /* the portable tier's list: no storage or indirect buffers */
    GLint program, vertex_array, active_texture, array_buffer;
    GLint texture_2d[GPU_PORTABLE_TEXTURE_UNITS], texture_2d_array[GPU_PORTABLE_TEXTURE_UNITS],
        sampler[GPU_PORTABLE_TEXTURE_UNITS];
    GLint storage_buffer, storage_indexed[6];
    GLint64 storage_start[6], storage_size[6];
    GLint draw_indirect_buffer;
    GLboolean depth_test, cull_face, blend;
    GLboolean color_mask[4];
    crowd_state_policy policy;
} gpu_saved_state;
void crowd__gpu_state_save(gpu_saved_state *saved, const crowd_world *world,
                           crowd_state_policy policy);
void crowd__gpu_state_restore(const gpu_saved_state *saved);

/* timing.c */
void crowd__gpu_timing_init(crowd_world *world);
void crowd__gpu_timing_release(crowd_world *world);
/* Collects what has arrived, starts the frame's query set. */
void crowd__gpu_timing_frame(crowd_world *world);
/* Notes a pass's command buffer, read back once the frame's timing has
 * arrived (visible_instances, vertices_drawn of GPU-culled passes). */
void crowd__gpu_timing_note_commands(crowd_world *world, GLuint command_buffer,
                                     uint32_t first_command, uint32_t lod_count, bool nearest);
/* Brackets one draw call set of a pass. */
void crowd__gpu_timing_begin(crowd_world *world);
void crowd__gpu_timing_end(crowd_world *world);

/* props.c */
/* Vertices cpu mode skins per instance: the character's, then every prop's. */
static inline uint64_t crowd__gpu_skinned_vertices(const gpu_archetype *r) {
    return (uint64_t)r->source->mesh.vertex_count + r->props.vertex_total;
}
/* cpu mode: the props' vertices rigidly by the palette (12 floats per
 * joint), into the skinned stream's positions and normals after the
 * character's. */
void crowd__gpu_props_skin(const gpu_archetype *r, const float *palette, float *positions,
                           float *normals);
/* The carrier counts lose the removed slot's props (before it is moved over). */
void crowd__gpu_props_forget(gpu_archetype *r, uint32_t slot);
void crowd__gpu_props_forget_all(gpu_archetype *r);
void crowd__gpu_props_release(gpu_archetype *r);
/* CPU culling: each prop's carriers among the LOD lists just made. */
crowd_result crowd__gpu_props_cull_cpu(gpu_archetype *r, uint32_t lod_count, crowd_error *error);

/* props_draw.c: the pass's prop draws, after the archetype's own (draw.c
 * has bound its program, uniforms and vertex array): `culled` as it drew. */
crowd_result crowd__gpu_props_draw(gpu_archetype *r, const crowd_draw_desc *desc,
                                   const float view_proj[16], float now_s, bool culled,
                                   crowd_error *error);

/* draw.c, for the props' draws */
/* The pass's uniforms (view_proj, light, clock) on `program`, made current,
 * with the materials of `mesh` bound and its vertex array. */
void crowd__gpu_draw_use(gpu_archetype *r, const gpu_program *program, const gpu_mesh *mesh,
                         const crowd_draw_desc *desc, const float view_proj[16]);
/* The mode's own uniforms and textures (joint count and palettes, BAT or VAT). */
void crowd__gpu_draw_mode_uniforms(gpu_archetype *r, const gpu_program *program);
/* The clip table (u_clips) of the program, from the archetype's clips. */
void crowd__gpu_draw_clip_table(const gpu_archetype *r, const gpu_program *program);
/* A texture on a unit (both tiers). */
void crowd__gpu_bind_texture(const crowd_world *w, GLuint unit, GLenum target, GLuint texture);
/* The program of the pass: depth or colour, with crossfade code or not. */
const gpu_program *crowd__gpu_pass_program(const gpu_mode_programs *p, bool depth, bool fading);

#endif
