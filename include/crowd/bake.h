/* crowd/bake.h - vertex animation textures (VAT) and bone-matrix textures
 * (BAT): build them from an asset, write them as a bake folder, load a bake
 * folder back.
 *
 * A crowd_bake is the in-memory form of a bake folder (docs/manifest.md;
 * docs/architecture.md, "Data model"): the manifest's fields, the decoded
 * texture payloads in their stored encoding, and the mesh whose vertex order
 * the textures follow. crowd_bake_build() makes one from an asset (nothing
 * touches the disk), crowd_bake_write() writes it atomically (all files to
 * temporary names, renamed into place only when every one is complete),
 * crowd_bake_load() reads and validates a folder, and
 * crowd_bake_load_memory() the same files held in memory (an engine's own
 * archive). The gpu module plays either kind.
 *
 * Layout. VAT: vertices across, frames down, clips stacked; vertex v of
 * global frame f is texel (v % width, f * rows_per_frame + v / width).
 * BAT: joint j of global frame f is texels (3j + k) for k = 0..2, wrapped
 * the same way, holding the rows of the 3x4 skinning matrix (crowd/anim.h).
 * Row 0 of a texture is the first row in memory and in the file.
 *
 * LODs. LOD 0 is the asset's mesh. Each LOD k >= 1 is a simplified index
 * buffer over a compacted range of vertices, and each of those vertices
 * names the LOD0 vertex it is (lod_vertices): its attributes, material and
 * VAT/BAT texels are that vertex's, so every LOD plays from the same
 * textures. Per clip, the bake also holds its animated bounds (box and
 * sphere over every baked frame), for culling.
 *
 * Ownership: create/destroy pairs; destroy(NULL) is a no-op. A bake built
 * from an asset borrows it (bake->asset); the caller keeps the asset alive
 * for the bake's lifetime. A loaded bake owns its asset: mesh, materials and
 * skeleton, and from version 4 the runtime clips (crowd_bake_anim), so
 * that it plays every mode alone. A loaded bake's blocks come
 * from the allocator of its crowd_bake_load_desc (bake->allocator) and go
 * back there on destroy; a built bake's from malloc.
 * Threading: a finished bake is immutable and may be read from many threads.
 */
#ifndef CROWD_BAKE_H
#define CROWD_BAKE_H

#include "crowd/anim.h"
#include "crowd/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Manifest version written; the loader reads versions 1 to 4. */
#define CROWD_BAKE_FORMAT_VERSION 4
/* The rate of clips whose keys are not uniformly spaced, before the
 * between-frame budget raises it (crowd_bake_desc.fps). */
#define CROWD_BAKE_DEFAULT_FPS 30.0f
/* Default between-frame error budget, of the bounds diagonal. */
#define CROWD_BAKE_DEFAULT_BETWEEN_ERROR 5e-4

#define CROWD_BAKE_DEFAULT_MAX_WIDTH 4096u
#define CROWD_BAKE_MAX_TEXTURE_SIZE 16384u
#define CROWD_BAKE_MAX_LODS 8 /* LOD 0 included */
#define CROWD_BAKE_DEFAULT_LODS 3

typedef enum crowd_vat_encoding {
    CROWD_VAT_DEFAULT = 0, /* = CROWD_VAT_UNORM16_OCT */
    CROWD_VAT_UNORM16_OCT, /* RGBA16 unorm: xyz over bounds, a = octahedral normal (8+8 bits) */
    CROWD_VAT_F16,         /* RGBA16F position + RGBA16F normal texture */
    CROWD_VAT_F32,         /* RGBA32F position + RGBA32F normal texture, lossless */
} crowd_vat_encoding;

typedef enum crowd_bat_encoding {
    CROWD_BAT_DEFAULT = 0, /* = CROWD_BAT_F32 */
    CROWD_BAT_F32,
    CROWD_BAT_F16,
} crowd_bat_encoding;

typedef enum crowd_bake_what {
    CROWD_BAKE_BOTH = 0,
    CROWD_BAKE_VAT_ONLY,
    CROWD_BAKE_BAT_ONLY,
} crowd_bake_what;

typedef enum crowd_texel_format {
    CROWD_TEXEL_NONE = 0,
    CROWD_TEXEL_RGBA32F,      /* float[4] */
    CROWD_TEXEL_RGBA16F,      /* uint16_t[4], IEEE half bits */
    CROWD_TEXEL_RGBA16_UNORM, /* uint16_t[4] */
} crowd_texel_format;

typedef struct crowd_texture {
    uint32_t width, height;
    crowd_texel_format format;
    void *texels; /* width * height texels, rows top first; NULL when absent */
} crowd_texture;

typedef struct crowd_bake_clip {
    char *name;
    float duration_s;
    bool loop; /* wraps at duration_s when played with its own loop flag; else clamps */
    float fps; /* frame k < frame_count - 1 is the pose at k / fps */
    /* CROWD_FRAMES_END for bakes of version 3 (the last frame is the pose at
     * duration_s); WRAP (loop) or CLAMP for older ones (crowd/anim.h). */
    crowd_frame_layout layout;
    uint32_t first_frame; /* global frame of the clip's frame 0 */
    uint32_t frame_count;
    /* Index into the source asset's clips; for a loaded bake with runtime
     * clips its own index (owned_asset's clips), else UINT32_MAX. */
    uint32_t source_clip;
    /* How fps was chosen: key_rate is the spacing of the source's keys
     * when they are uniform (keys/s; 0 when not, or for a loaded older
     * bake); fps = rate_multiple x the key rate (or 30 fps when the keys are
     * not uniform; rate_multiple is 1 when fps was forced). */
    float key_rate;
    uint32_t rate_multiple;
    /* Measured at build (0 when loaded from an older bake): skinned
     * positions at the middle of every step between two frames against the
     * average of the two frames' positions (what interpolation plays), in
     * model units; within_budget says whether max met the bake's budget. */
    float between_error_max, between_error_mean;
    bool within_budget;
    /* Animated bounds, object space: every vertex position of every baked
     * frame of the clip lies in the box and in the sphere. Positions as the
     * bake plays them: decoded from the VAT (crowd_bake_vat_fetch), or
     * skinned with the decoded BAT matrices when there is no VAT; the other
     * mode of a bake with both differs by the VAT's position error
     * (crowd_bake_measure). The sphere is centred on the box. A version-1
     * bake gives every clip the bake's bounds and the sphere around them. */
    float bounds_min[3], bounds_max[3];
    float sphere_center[3], sphere_radius;
    /* The root motion taken out of the clip's frames (crowd/anim.h's
     * crowd_root_motion; crowd_bake_desc.root_motion), from the bake's
     * blocks; sample_count 0 when the bake keeps it in the frames. */
    crowd_root_motion root_motion;
    /* Its ground speed (crowd_anim_clip_ground_speed on the source
     * skeleton, watching the mesh's feet), model units a second, when the
     * bake was written (manifest "ground_speed"): a world made from the
     * loaded bake uses it rather than measuring the runtime clips, so every
     * player matches speeds on the same numbers. has_ground_speed false for
     * a built bake (the world measures) or an older manifest. */
    float ground_speed;
    bool has_ground_speed;
    /* The largest distance any vertex moves from one baked frame of the
     * clip to the next (skinned positions, model units): how far the pose
     * can be from the interpolated one when the nearest frame is played
     * instead (half of it at most). Measured at build; from the manifest
     * ("max_step") when loaded, -1 (not known) for an older manifest. */
    float max_step;
} crowd_bake_clip;

/* One level of detail. */
typedef struct crowd_bake_lod {
    /* LOD 0: 0 and the mesh's index_count (its indices are
     * asset->mesh.indices); LOD k >= 1: a range of bake->lod_indices. */
    uint32_t first_index, index_count;
    /* LOD 0: 0 and vertex_count; LOD k >= 1: a range of bake->lod_vertices. */
    uint32_t first_vertex, vertex_count;
    uint32_t triangle_count; /* index_count / 3 */
    /* Measured: the largest distance of a LOD0 vertex from this LOD's
     * surface (its nearest triangle) over every baked frame, positions as
     * for the clip bounds, in model units; 0 for LOD 0. */
    float error;
    float error_rel; /* error / bounds diagonal */
} crowd_bake_lod;

/* The skeleton and clips in runtime form (NAME.G.anim.bin from manifest
 * version 4, docs/manifest.md): what lets a bake loaded alone play the cpu
 * and gpu modes. One runtime clip per baked clip, in the bake's order, with
 * the source's keys and interpolation kept as float32; a track whose keys
 * all hold one value is stored as one key, or left out when that value is
 * the joint's rest value. */
typedef struct crowd_bake_anim {
    /* Built: every baked clip has its source clip in the asset (or is the
     * "rest" clip of an asset without clips), so the runtime clips are
     * written. Loaded: the file was read and owned_asset holds the clips
     * (clip i is baked clip i, source_clip i). false for a loaded bake of
     * version 3 or older, or one written without them. */
    bool present;
    uint32_t track_count; /* tracks stored, all clips */
    uint32_t key_count;   /* keys stored, all tracks */
    uint64_t size_bytes;  /* of NAME.G.anim.bin */
    /* Measured when built: skinned positions with the runtime clips against
     * the source clips, every vertex at every baked frame's time and at the
     * middle of every step between two frames, in model units and of the
     * bounds diagonal (the manifest carries them to a loaded bake). */
    double error_max, error_max_rel;
} crowd_bake_anim;

/* Events: a named marker at a time of a baked clip (a footstep, a hit),
 * given at bake time (crowd_bake_add_event, `crowd bake --event`), stored in
 * the manifest (clips[i].events) and fired by a world's instances as their
 * clocks pass it (crowd_world_events, crowd/gpu.h). glTF has no standard
 * for events and assimp exposes none of any format's, so none are read
 * from the source. */
#define CROWD_BAKE_EVENT_NAME_MAX 64 /* bytes */
#define CROWD_BAKE_MAX_EVENTS 65536  /* per bake */

typedef struct crowd_bake_event {
    char *name;    /* 1..CROWD_BAKE_EVENT_NAME_MAX bytes, no control characters */
    uint32_t clip; /* index of its baked clip */
    float time_s;  /* clip time, in [0, the clip's duration_s] */
} crowd_bake_event;

/* Blends declared in the bake (crowd_bake_add_blend, `crowd bake --blend`),
 * stored in the manifest ("blends") and declared on every archetype made
 * from the bake (crowd_archetype_add_blend, crowd_archetype_find_blend in
 * crowd/gpu.h): clips of the bake along one parameter. */
#define CROWD_BAKE_BLEND_MAX_CLIPS 16 /* = CROWD_BLEND_MAX_CLIPS */
#define CROWD_BAKE_MAX_BLENDS 64      /* = CROWD_ARCHETYPE_MAX_BLENDS */
/* Weights k / STEPS at which a blend's strides are taken per segment. */
#define CROWD_BAKE_BLEND_STRIDE_STEPS 8

typedef struct crowd_bake_blend {
    char *name;          /* as an event's name: 1..CROWD_BAKE_EVENT_NAME_MAX bytes, unique */
    uint32_t clip_count; /* 2..CROWD_BAKE_BLEND_MAX_CLIPS */
    uint32_t clips[CROWD_BAKE_BLEND_MAX_CLIPS]; /* indices of baked clips */
    /* Strictly rising, when has_thresholds; else the clips' ground speeds
     * (measured by the world when an archetype is made). */
    float thresholds[CROWD_BAKE_BLEND_MAX_CLIPS];
    bool has_thresholds;
    /* Per segment (clips i, i + 1), the phase-locked blend's stride at
     * weight k / CROWD_BAKE_BLEND_STRIDE_STEPS (ground speed x cycle, what
     * crowd_instance_set_ground_speed interpolates), when the bake was
     * written (manifest "strides"): used by a world made from the loaded
     * bake as the clips' ground_speed is. has_strides false otherwise. */
    float strides[CROWD_BAKE_BLEND_MAX_CLIPS - 1][CROWD_BAKE_BLEND_STRIDE_STEPS + 1];
    bool has_strides;
} crowd_bake_blend;

typedef struct crowd_bake {
    char *name;               /* output base name: NAME.crowd.json, ... */
    char *source;             /* source file name as given to the baker */
    const crowd_asset *asset; /* mesh the textures follow (borrowed or owned_asset) */
    crowd_asset *owned_asset; /* set when loaded from disk */
    uint32_t vertex_count, joint_count;
    float bounds_min[3], bounds_max[3]; /* rest pose + every baked frame */
    /* The between-frame budget the rates were chosen for, of the bounds
     * diagonal (0 when loaded from an older bake). */
    double between_error_budget_rel;
    uint32_t clip_count;
    crowd_bake_clip *clips;
    uint32_t frame_count; /* total frames, all clips stacked */

    crowd_vat_encoding vat_encoding; /* CROWD_VAT_DEFAULT when there is no VAT */
    uint32_t vat_rows_per_frame;
    crowd_texture vat_position;
    crowd_texture vat_normal; /* f16/f32 only; format NONE for unorm16_oct */

    crowd_bat_encoding bat_encoding; /* CROWD_BAT_DEFAULT when there is no BAT */
    uint32_t bat_rows_per_frame;
    crowd_texture bat;

    /* Socket tracks: per baked frame, per socket s of `asset` (its order),
     * the socket's model matrix (model[joint] x offset) as 3 rows of 4:
     * RGBA32F texels 3s..3s+2 of the frame, laid out as the BAT (elements
     * across, wrapping onto socket_rows_per_frame rows). What a vat prop
     * follows (crowd_world_add_prop), in every bake with sockets, vat-only
     * ones too. Format NONE (socket_count 0) when the asset has no sockets
     * or the bake predates them. */
    uint32_t socket_count, socket_rows_per_frame;
    crowd_texture socket_tracks;

    /* 1..CROWD_BAKE_MAX_LODS; 1 = LOD 0 only (version-1 bakes, no LODs
     * asked for, or a mesh that cannot be simplified). Each LOD has fewer
     * triangles than the one before. */
    uint32_t lod_count;
    crowd_bake_lod lods[CROWD_BAKE_MAX_LODS];
    /* The LOD0 vertex (< vertex_count) of each compacted LOD vertex, the
     * ranges of LODs 1.. one after another; NULL when lod_count is 1. */
    uint32_t *lod_vertices;
    uint32_t lod_vertex_total;
    /* Per LOD >= 1, triangles indexing ITS OWN range: index i of LOD k is
     * vertex lod_vertices[lods[k].first_vertex + i], i < lods[k].vertex_count.
     * Triangles of one material are contiguous (the material of a triangle
     * is that of its LOD0 vertices). NULL when lod_count is 1. */
    uint32_t *lod_indices;
    uint32_t lod_index_total;

    crowd_bake_anim anim; /* the runtime clips */

    /* A built bake whose root motion was extracted plays this copy of the
     * asset, which `asset` points to: the source's, except that every
     * clip's root joint (clips[i].root_motion.joint) has translation and
     * rotation tracks of its own that play in place. Its clips array, their
     * track arrays and those two tracks' keys are the bake's; the rest is
     * borrowed from the source. NULL otherwise (a loaded bake's runtime
     * clips are in place already). */
    crowd_asset *in_place_asset;
    uint32_t in_place_joint; /* the root joint whose tracks in_place_asset owns */

    /* Sorted by clip, then time; events of one clip and time in the order
     * they were added. NULL when event_count is 0. */
    uint32_t event_count;
    crowd_bake_event *events;

    /* In the order added; NULL when blend_count is 0. */
    uint32_t blend_count;
    crowd_bake_blend *blends;

    /* Where every block of the bake, the struct and owned_asset included,
     * came from and goes back to (crowd_bake_load_desc.allocator); zeroed =
     * malloc and free, as for every built bake. */
    crowd_allocator allocator;
} crowd_bake;

/* What a bake does with the root's motion (crowd_bake_desc.root_motion). */
typedef enum crowd_root_motion_mode {
    CROWD_ROOT_MOTION_KEEP = 0, /* in the frames: the character walks away from its origin */
    /* Taken out: the frames, the runtime clips and every mode play in
     * place, and each clip's curve is in clips[i].root_motion. */
    CROWD_ROOT_MOTION_EXTRACT,
} crowd_root_motion_mode;

typedef struct crowd_bake_desc {
    /* 0 = per clip: where the clip's keys are uniformly spaced (at most 240
     * a second), the key rate or the smallest multiple of it (1, 2, 3, 4, 5,
     * 6, 8, 10, 12, ..., up to 240 fps) whose between-frame error is within
     * between_error_rel, so the source's keys are baked frames; otherwise
     * the smallest such multiple of 30 fps. Lowered (never below the base
     * rate) where the textures would not hold every clip. Else forces this
     * rate on every clip, in (0, 1000]. */
    float fps;
    /* Between-frame budget, of the bounds diagonal: 0 = 5e-4; in (0, 1). */
    double between_error_rel;
    const char *const *clips; /* clip names to bake, in this order; NULL = all */
    uint32_t clip_count;
    const char *const *loop_clips; /* force looping */
    uint32_t loop_clip_count;
    const char *const *once_clips; /* force one-shot */
    uint32_t once_clip_count;
    crowd_bake_what what;
    uint32_t max_width; /* 0 = 4096 (or max_texture_size if smaller); at most max_texture_size */
    /* Largest width and height of any texture: 0 = 16384 (desktop GL); 4096
     * keeps a bake within what every WebGL2 device holds. At most 16384. */
    uint32_t max_texture_size;
    /* LODs below LOD 0: 0 = CROWD_BAKE_DEFAULT_LODS, -1 = none, 1 to
     * CROWD_BAKE_MAX_LODS - 1 = that many. Each targets half the triangles
     * of the one before; a mesh that cannot be simplified that far keeps
     * the LODs it got (a warning says why). */
    int32_t lods;
    crowd_vat_encoding vat_encoding;
    crowd_bat_encoding bat_encoding;
    crowd_logger logger;
    /* Called now and then with the fraction done in [0, 1]; may be NULL. */
    void (*progress)(void *user, float fraction);
    void *progress_user;
    /* Worker threads across frames; 0 = one per online CPU (at most 16). The
     * result does not depend on it. progress is only called from the calling
     * thread. */
    uint32_t thread_count;
    crowd_root_motion_mode root_motion;
    /* The joint whose motion is the character's (EXTRACT only): NULL = the
     * first joint, in skeleton order, whose translation keys move in any
     * clip of the asset, else joint 0. Its horizontal (x, z) model-space
     * path and its turn about +Y since each clip's start are taken out;
     * its height and everything else stay in the frames. */
    const char *root_joint;
} crowd_bake_desc;

/* Samples every selected clip of `asset`, encodes the textures, computes
 * each clip's animated bounds and builds and measures the LODs. desc may be
 * NULL. Errors: CROWD_ERROR_INVALID_ARGUMENT (fps out of range, unknown clip
 * name, max_width, max_texture_size or lods out of range, an unknown
 * root_motion mode or root_joint name, root motion asked of a model without
 * clips),
 * CROWD_ERROR_LIMIT (a texture would be taller than max_texture_size: the
 * reason says how many frames fit and which fps would fit),
 * CROWD_ERROR_OUT_OF_MEMORY. An asset with no clips bakes its rest pose as
 * one one-frame clip named "rest". Also encodes the runtime clips and
 * measures them against the asset's (bake->anim). */
crowd_result crowd_bake_build(const crowd_asset *asset, const crowd_bake_desc *desc,
                              crowd_bake **out_bake, crowd_error *error);

typedef struct crowd_bake_write_desc {
    bool openvat; /* also write the OpenVAT-layout set */
    crowd_logger logger;
} crowd_bake_write_desc;

/* Writes NAME.crowd.json, the textures and NAME.mesh.glb into `dir`
 * (created if missing). All-or-nothing: on failure (CROWD_ERROR_OUTPUT) the
 * folder holds what it held before. desc may be NULL. */
crowd_result crowd_bake_write(const crowd_bake *bake, const char *dir,
                              const crowd_bake_write_desc *desc, crowd_error *error);

/* How crowd_bake_load and crowd_bake_load_memory load; zeroed (or a NULL
 * desc) = defaults. */
typedef struct crowd_bake_load_desc {
    crowd_logger logger; /* one info line per loaded bake */
    /* Every block the loaded bake owns (the struct, names, clips, texels,
     * LOD arrays, the asset and all its arrays) comes from alloc_fn and goes
     * back through free_fn in crowd_bake_destroy, so the allocator must
     * outlive the bake. Most transient memory goes through it too: the file
     * buffers crowd_bake_load reads, the loader's scratch arrays, libpng's
     * decoder (png_create_read_struct_2) and OpenEXR's context (whose
     * alloc_fn takes no user pointer: the reader hands the allocator over in
     * a thread-local for the length of one decode). Not cJSON's: its hooks
     * are process-wide (cJSON_InitHooks), so the parse trees of the manifest
     * and of the mesh's JSON chunk use malloc, as does zlib's inflate state
     * inside OpenEXR's ZIP decoder; all of it is freed before the call
     * returns. Zeroed: malloc and free; a half-set allocator (one function
     * without the other) is refused. On failure every block taken has been
     * returned. */
    crowd_allocator allocator;
} crowd_bake_load_desc;

/* Loads a bake folder (or a path to its .crowd.json). Validates everything:
 * format and version, required fields, texture files present, readable and of
 * the sizes the manifest states (and from version 3 their CRC-32s), values in
 * range, the mesh, and from version 4 the runtime clips (crowd_bake_anim,
 * every byte checked, docs/manifest.md). desc may be NULL. Errors name the file: CROWD_ERROR_IO
 * (missing, unreadable, no manifest in the folder),
 * CROWD_ERROR_INVALID_DATA, CROWD_ERROR_UNSUPPORTED, CROWD_ERROR_LIMIT,
 * CROWD_ERROR_OUT_OF_MEMORY, CROWD_ERROR_INVALID_ARGUMENT (no path or output
 * pointer, several manifests in the folder, a half-set allocator). */
crowd_result crowd_bake_load(const char *path, const crowd_bake_load_desc *desc,
                             crowd_bake **out_bake, crowd_error *error);

/* One file of a bake folder held in memory. */
typedef struct crowd_bake_file {
    /* Its name in the bake folder, as the manifest names it
     * ("robot.vat.png"): a plain name without slash or backslash, not
     * starting with '.', at most 200 bytes. */
    const char *name;
    const void *data; /* may be NULL only when size_bytes is 0 */
    size_t size_bytes;
} crowd_bake_file;

/* Loads the bake whose files are `files` (from an engine's archive, a
 * network buffer, ...): exactly one of them is named *.crowd.json, the
 * manifest, and the files it names must be among them (others are ignored;
 * the OpenVAT set of a folder is never read). The bytes are only read during
 * the call; the bake copies what it keeps. Every check of crowd_bake_load
 * applies, and errors name the file by its name here. desc may be NULL.
 * Errors: CROWD_ERROR_INVALID_ARGUMENT (no files or output pointer, a file
 * without a name or bytes, a name that is not a plain file name, two files
 * of one name, not exactly one manifest, a half-set allocator),
 * CROWD_ERROR_IO (a file the manifest names is not in the set), then the
 * errors of crowd_bake_load. */
crowd_result crowd_bake_load_memory(const crowd_bake_file *files, uint32_t file_count,
                                    const crowd_bake_load_desc *desc, crowd_bake **out_bake,
                                    crowd_error *error);

void crowd_bake_destroy(crowd_bake *bake);

/* Adds the event `name` at time_s of the baked clip named `clip`, to a
 * built or a loaded bake, before crowd_bake_write writes it. Errors, with
 * the bake unchanged: CROWD_ERROR_INVALID_ARGUMENT (a NULL bake, clip or
 * name; no clip of that name; a time that is not finite or lies outside
 * [0, the clip's duration_s]; a name that is empty, longer than
 * CROWD_BAKE_EVENT_NAME_MAX bytes or holds a control character),
 * CROWD_ERROR_LIMIT (more than CROWD_BAKE_MAX_EVENTS),
 * CROWD_ERROR_OUT_OF_MEMORY. Its blocks come from bake->allocator; events
 * are only added through this call (it keeps the array's capacity). */
crowd_result crowd_bake_add_event(crowd_bake *bake, const char *clip, float time_s,
                                  const char *name, crowd_error *error);

/* Adds the blend `name` of clip_count baked clips named in `clips`, at
 * `thresholds` (strictly rising and finite) or, with thresholds NULL, at
 * the clips' ground speeds, to a built or a loaded bake before
 * crowd_bake_write writes it. Errors, with the bake unchanged:
 * CROWD_ERROR_INVALID_ARGUMENT (a NULL bake, name or clips; a name as an
 * event's may not be, or one another blend has; a clip count outside
 * 2..CROWD_BAKE_BLEND_MAX_CLIPS; no clip of a name; thresholds not finite
 * or not rising), CROWD_ERROR_LIMIT (more than CROWD_BAKE_MAX_BLENDS),
 * CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd_bake_add_blend(crowd_bake *bake, const char *name, uint32_t clip_count,
                                  const char *const *clips, const float *thresholds,
                                  crowd_error *error);

/* The events of baked clip `clip`: *out_count of them from the returned
 * pointer, in time order (NULL and 0 when it has none or clip is out of
 * range). O(log events). */
const crowd_bake_event *crowd_bake_clip_events(const crowd_bake *bake, uint32_t clip,
                                               uint32_t *out_count);

/* Decoded VAT position and unit normal of `vertex` at global frame `frame`
 * (both in range; normal may be NULL). */
void crowd_bake_vat_fetch(const crowd_bake *bake, uint32_t frame, uint32_t vertex,
                          float position[3], float normal[3]);

/* Decoded BAT skinning matrix (3x4 row-major) of `joint` at global `frame`. */
void crowd_bake_bat_fetch(const crowd_bake *bake, uint32_t frame, uint32_t joint, float matrix[12]);

/* The frame layout of a baked clip, for crowd_anim_frame_pair and
 * crowd_anim_frame_time. */
crowd_clip_frames crowd_bake_clip_frames(const crowd_bake_clip *clip);

/* The motion of baked clip `clip` between unwrapped play times from_t and
 * to_t (crowd_anim_root_motion_delta on clips[clip].root_motion; model
 * units, the character's frame at from). Errors, nothing written:
 * CROWD_ERROR_INVALID_ARGUMENT (a NULL pointer, clip out of range, a time
 * that is not finite), CROWD_ERROR_UNSUPPORTED (the clip has no root
 * motion: baked with CROWD_ROOT_MOTION_KEEP). */
crowd_result crowd_bake_root_motion_delta(const crowd_bake *bake, uint32_t clip, float from_t,
                                          float to_t, float out_delta_position[3],
                                          float *out_delta_heading, crowd_error *error);

/* Index of the baked clip with that name, or -1. */
int32_t crowd_bake_find_clip(const crowd_bake *bake, const char *name);

/* How far a bake is from float32 CPU skinning, measured from the encoded
 * data (crowd_bake_vat_fetch / crowd_bake_bat_fetch), every vertex of every
 * frame. Positions are in the asset's units (metres for glTF); "_rel" values
 * are divided by the bounds diagonal. Fields of a texture the bake lacks are 0. */
typedef struct crowd_bake_report {
    uint64_t vertex_frames; /* vertex samples compared */
    double bounds_diagonal;
    double position_error_max, position_error_mean; /* VAT */
    double position_error_max_rel, position_error_mean_rel;
    double normal_error_max_deg, normal_error_mean_deg; /* VAT */
    /* Vertices skinned (crowd_skin_reference) with the decoded BAT matrices. */
    double bat_position_error_max, bat_position_error_max_rel;
    uint64_t vat_size_bytes; /* texel payload of the VAT textures (GPU memory) */
    uint64_t bat_size_bytes;
} crowd_bake_report;

/* Compares `bake` with float32 reference skinning of `asset` (the asset it
 * was built from: for a bake with root motion extracted, bake->asset, the
 * in-place copy it played, or for a loaded bake the asset its source file imports to:
 * same vertex count and order, clips matched by name, "rest" = rest pose) at
 * each baked frame's time, k / fps. Errors: CROWD_ERROR_INVALID_ARGUMENT
 * (vertex or joint counts differ, a baked clip the asset lacks),
 * CROWD_ERROR_OUT_OF_MEMORY. thread_count: worker threads, 0 = one per
 * online CPU (at most 16); the report does not depend on it. */
crowd_result crowd_bake_measure(const crowd_bake *bake, const crowd_asset *asset,
                                uint32_t thread_count, crowd_bake_report *out_report,
                                crowd_error *error);

#ifdef __cplusplus
}
#endif

#endif
