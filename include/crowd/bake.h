/* crowd/bake.h - vertex animation textures (VAT) and bone-matrix textures
 * (BAT): build them from an asset, write them as a bake folder, load a bake
 * folder back.
 *
 * A crowd_bake is the in-memory form of a bake folder (DESIGN.md, "Bake
 * outputs"): the manifest's fields, the decoded texture payloads in their
 * stored encoding, and the mesh whose vertex order the textures follow.
 * crowd_bake_build() makes one from an asset (nothing touches the disk),
 * crowd_bake_write() writes it atomically (all files to temporary names,
 * renamed into place only when every one is complete), crowd_bake_load()
 * reads and validates a folder. The gpu module plays either kind.
 *
 * Layout. VAT: vertices across, frames down, clips stacked; vertex v of
 * global frame f is texel (v % width, f * rows_per_frame + v / width).
 * BAT: joint j of global frame f is texels (3j + k) for k = 0..2, wrapped
 * the same way, holding the rows of the 3x4 skinning matrix (crowd/anim.h).
 * Row 0 of a texture is the first row in memory and in the file.
 *
 * Ownership: create/destroy pairs; destroy(NULL) is a no-op. A bake built
 * from an asset borrows it (bake->asset); the caller keeps the asset alive
 * for the bake's lifetime. A loaded bake owns its asset (mesh and materials
 * only; skeleton with joint names and no clips).
 * Threading: a finished bake is immutable and may be read from many threads.
 */
#ifndef CROWD_BAKE_H
#define CROWD_BAKE_H

#include "crowd/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CROWD_BAKE_FORMAT_VERSION 1
#define CROWD_BAKE_DEFAULT_FPS 30.0f
#define CROWD_BAKE_DEFAULT_MAX_WIDTH 4096u
#define CROWD_BAKE_MAX_TEXTURE_SIZE 16384u

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
    bool loop;            /* loop: round(d*fps) frames, wraps; else round(d*fps)+1, clamps */
    uint32_t first_frame; /* global frame of the clip's frame 0 */
    uint32_t frame_count;
    uint32_t source_clip; /* index into the source asset's clips (UINT32_MAX when loaded) */
} crowd_bake_clip;

typedef struct crowd_bake {
    char *name;               /* output base name: NAME.crowd.json, ... */
    char *source;             /* source file name as given to the baker */
    const crowd_asset *asset; /* mesh the textures follow (borrowed or owned_asset) */
    crowd_asset *owned_asset; /* set when loaded from disk */
    uint32_t vertex_count, joint_count;
    float fps;
    float bounds_min[3], bounds_max[3]; /* rest pose + every baked frame */
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
} crowd_bake;

typedef struct crowd_bake_desc {
    float fps;                /* 0 = 30; must be in (0, 1000] */
    const char *const *clips; /* clip names to bake, in this order; NULL = all */
    uint32_t clip_count;
    const char *const *loop_clips; /* force looping */
    uint32_t loop_clip_count;
    const char *const *once_clips; /* force one-shot */
    uint32_t once_clip_count;
    crowd_bake_what what;
    uint32_t max_width; /* 0 = 4096; at most 16384 */
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
} crowd_bake_desc;

/* Samples every selected clip of `asset` and encodes the textures. desc may
 * be NULL. Errors: CROWD_ERROR_INVALID_ARGUMENT (fps out of range, unknown
 * clip name, max_width out of range), CROWD_ERROR_LIMIT (the texture would be
 * taller than 16384: the reason says how many frames fit and which fps would
 * fit), CROWD_ERROR_OUT_OF_MEMORY. An asset with no clips bakes its rest pose
 * as one one-frame clip named "rest". */
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

/* Loads a bake folder (or a path to its .crowd.json). Validates everything:
 * format and version, required fields, texture files present, readable and of
 * the sizes the manifest states, values in range, the mesh. */
crowd_result crowd_bake_load(const char *path, const crowd_logger *logger, crowd_bake **out_bake,
                             crowd_error *error);

void crowd_bake_destroy(crowd_bake *bake);

/* Decoded VAT position and unit normal of `vertex` at global frame `frame`
 * (both in range; normal may be NULL). */
void crowd_bake_vat_fetch(const crowd_bake *bake, uint32_t frame, uint32_t vertex,
                          float position[3], float normal[3]);

/* Decoded BAT skinning matrix (3x4 row-major) of `joint` at global `frame`. */
void crowd_bake_bat_fetch(const crowd_bake *bake, uint32_t frame, uint32_t joint, float matrix[12]);

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
 * was built from, or for a loaded bake the asset its source file imports to:
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
