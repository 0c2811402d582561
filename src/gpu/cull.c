/* Culling and LOD choice per view (crowd_cull_mode): on the GPU, a compute
 * pass (crowd_cull.comp.glsl) writes per-LOD lists of visible records and
 * the indirect commands that draw them; on the CPU, crowd__gpu_cull_cpu makes the
 * same choices and the lists are uploaded. Either way the GL 4.5 tier's
 * draw is one glMultiDrawElementsIndirect per archetype and pass. The
 * portable tier always culls on the CPU and its draw streams the lists
 * (draw_portable.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

/* To switch to a coarser LOD an instance's error must project 20 % below
 * the budget: at the switching distance it keeps the LOD it has. */
#define LOD_HYSTERESIS 0.2f
/* An instance whose clip's largest frame-to-frame step projects below this
 * many pixels plays the nearest frame: its vertices then sit within a
 * quarter pixel of the interpolated pose. */
#define NEAREST_STEP_PX 0.5f

typedef struct draw_command {
    GLuint count, instance_count, first_index;
    GLint base_vertex;
    GLuint base_instance;
} draw_command;

bool crowd__gpu_cull_applies(const gpu_archetype *r) {
    return r->mode == CROWD_GPU_MODE_STATIC || r->mode == CROWD_GPU_MODE_BAT ||
           r->mode == CROWD_GPU_MODE_VAT;
}

/* A sphere around a box: its centre, half its diagonal. */
static void box_sphere(const float min[3], const float max[3], float out[4]) {
    float r2 = 0.0f;
    for (int a = 0; a < 3; a++) {
        out[a] = 0.5f * (min[a] + max[a]);
        float h = 0.5f * (max[a] - min[a]);
        r2 += h * h;
    }
    out[3] = sqrtf(r2);
}

static void sphere_hull(const float a[4], const float b[4], float out[4]);

/* clip_spheres: entry 0 the hull of every clip's (a blend partner may be
 * any clip: the culling takes it for a record with one), then clip c's at
 * 1 + c. */
crowd_result crowd__gpu_cull_init(gpu_archetype *r, crowd_error *error) {
    box_sphere(r->bind_min, r->bind_max, r->cull.bind_sphere);
    uint32_t clips = r->clip_count > 0 ? r->clip_count : 1;
    r->cull.clip_spheres = crowd__mem_alloc_zeroed(&r->world->allocator, 4 * (size_t)(clips + 1),
                                                   sizeof *r->cull.clip_spheres);
    if (r->cull.clip_spheres == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    for (uint32_t c = 0; c < clips; c++) {
        float *sphere = r->cull.clip_spheres + 4 * (1 + c);
        if (r->bake != NULL && c < r->bake->clip_count) {
            memcpy(sphere, r->bake->clips[c].sphere_center, 3 * sizeof(float));
            sphere[3] = r->bake->clips[c].sphere_radius;
        } else if (r->bake != NULL) {
            box_sphere(r->bake->bounds_min, r->bake->bounds_max, sphere);
        } else {
            memcpy(sphere, r->cull.bind_sphere, sizeof r->cull.bind_sphere);
        }
        if (c == 0) {
            memcpy(r->cull.clip_spheres, sphere, 4 * sizeof *sphere);
        } else {
            sphere_hull(r->cull.clip_spheres, sphere, r->cull.clip_spheres);
        }
    }
    r->cull.clip_steps =
        crowd__mem_alloc_zeroed(&r->world->allocator, clips, sizeof *r->cull.clip_steps);
    if (r->cull.clip_steps == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    for (uint32_t c = 0; c < clips; c++) {
        bool measured = r->bake != NULL && c < r->bake->clip_count &&
                        isfinite(r->bake->clips[c].max_step) && r->bake->clips[c].max_step >= 0.0f;
        r->cull.clip_steps[c] = measured ? r->bake->clips[c].max_step : -1.0f;
        r->cull.any_clip_step |= measured;
    }
    if (r->world->portable) {
        return CROWD_OK; /* culled on the CPU only */
    }
    crowd_result result = crowd__gpu_buffer_create(
        &r->gpu_memory_bytes, &r->cull.clip_sphere_buffer, &r->cull.clip_sphere_bytes,
        16ull * (clips + 1), r->cull.clip_spheres, 0, error);
    if (result != CROWD_OK) {
        return result;
    }
    return crowd__gpu_buffer_create(&r->gpu_memory_bytes, &r->cull.clip_step_buffer,
                                    &r->cull.clip_step_bytes, 4ull * clips, r->cull.clip_steps, 0,
                                    error);
}

void crowd__gpu_cull_release(gpu_archetype *r) {
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &r->cull.clip_sphere_buffer,
                             &r->cull.clip_sphere_bytes);
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &r->cull.clip_step_buffer,
                             &r->cull.clip_step_bytes);
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &r->cull.visible_buffer, &r->cull.visible_bytes);
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &r->cull.command_buffer, &r->cull.command_bytes);
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &r->cull.lod_state_buffer,
                             &r->cull.lod_state_bytes);
    crowd__mem_free(&r->world->allocator, r->cull.clip_spheres);
    crowd__mem_free(&r->world->allocator, r->cull.clip_steps);
    r->cull.clip_steps = NULL;
    crowd__mem_free(&r->world->allocator, r->cull.cpu_lod_state);
    crowd__mem_free(&r->world->allocator, r->cull.cpu_visible);
    crowd__mem_free(&r->world->allocator, r->cull.block_spheres);
    crowd__mem_free(&r->world->allocator, r->cull.block_fresh);
    r->cull.block_spheres = NULL;
    r->cull.block_fresh = NULL;
    r->cull.block_capacity = 0;
    r->cull.clip_spheres = NULL;
    r->cull.cpu_lod_state = NULL;
    r->cull.cpu_visible = NULL;
    r->cull.cpu_visible_capacity = 0;
    r->cull.visible_capacity = 0;
}

/* Lists as long as the instance capacity for every LOD; the LOD state
 * keeps what it had when it grows. */
static crowd_result reserve_lists(gpu_archetype *r, crowd_error *error) {
    uint32_t capacity = r->instances.capacity;
    uint32_t lists = r->mesh.lod_count + r->props.count;
    if (r->cull.visible_buffer != 0 && r->cull.visible_capacity >= capacity &&
        r->cull.visible_lists >= lists) {
        return CROWD_OK;
    }
    crowd_result result;
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &r->cull.visible_buffer, &r->cull.visible_bytes);
    GLuint old_state = r->cull.lod_state_buffer;
    uint64_t old_state_bytes = r->cull.lod_state_bytes;
    r->cull.lod_state_buffer = 0;
    uint64_t records = (uint64_t)capacity * lists;
    /* Written by the culling pass, or by the CPU path's uploads. */
    if ((result =
             crowd__gpu_buffer_create(&r->gpu_memory_bytes, &r->cull.visible_buffer,
                                      &r->cull.visible_bytes, records * sizeof(gpu_instance_record),
                                      NULL, GL_DYNAMIC_STORAGE_BIT, error)) != CROWD_OK ||
        (result = crowd__gpu_buffer_create(&r->gpu_memory_bytes, &r->cull.lod_state_buffer,
                                           &r->cull.lod_state_bytes, 4ull * capacity, NULL,
                                           GL_DYNAMIC_STORAGE_BIT, error)) != CROWD_OK) {
        r->cull.lod_state_buffer = old_state;
        r->cull.lod_state_bytes = old_state_bytes;
        return result;
    }
    /* NULL data clears to zero and reads nothing: a clear value would be
     * read under the application's unpack state (row length, skips). */
    glClearNamedBufferData(r->cull.lod_state_buffer, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT,
                           NULL);
    if (old_state != 0) {
        glCopyNamedBufferSubData(old_state, r->cull.lod_state_buffer, 0, 0,
                                 (GLsizeiptr)old_state_bytes);
        crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &old_state, &old_state_bytes);
    }
    /* The LODs', the prop types' and the LODs' one-fetch commands. */
    uint64_t command_bytes = sizeof(draw_command) * GPU_COMMAND_COUNT;
    if (command_bytes > r->cull.command_bytes) {
        crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &r->cull.command_buffer,
                                 &r->cull.command_bytes);
        if ((result = crowd__gpu_buffer_create(&r->gpu_memory_bytes, &r->cull.command_buffer,
                                               &r->cull.command_bytes, command_bytes, NULL,
                                               GL_DYNAMIC_STORAGE_BIT, error)) != CROWD_OK) {
            return result;
        }
    }
    r->cull.visible_capacity = capacity;
    r->cull.visible_lists = lists;
    return CROWD_OK;
}

/* Gribb and Hartmann: the planes of clip space (-w <= x, y, z <= w) in
 * world space. A plane that degenerates (an infinite far plane) keeps
 * everything. For a [0, 1] depth range (reversed-Z) the near test is
 * looser than the range: it never drops what is visible. */
static void frustum_planes(const float m[16], float planes[6][4]) {
    for (int p = 0; p < 6; p++) {
        int axis = p / 2;
        float sign = (p & 1) ? -1.0f : 1.0f;
        float length2 = 0.0f;
        for (int c = 0; c < 4; c++) {
            planes[p][c] = m[c * 4 + 3] + sign * m[c * 4 + axis];
            length2 += c < 3 ? planes[p][c] * planes[p][c] : 0.0f;
        }
        float length = sqrtf(length2);
        if (!(length > 1e-20f)) {
            planes[p][0] = planes[p][1] = planes[p][2] = 0.0f;
            planes[p][3] = 1.0f;
            continue;
        }
        for (int c = 0; c < 4; c++) {
            planes[p][c] /= length;
        }
    }
}

void crowd__gpu_view_make(const gpu_archetype *r, const crowd_draw_desc *desc,
                          const float view_proj[16], gpu_view *out) {
    memset(out, 0, sizeof *out);
    frustum_planes(view_proj, out->planes);
    for (int c = 0; c < 4; c++) {
        out->clip_w[c] = view_proj[c * 4 + 3];
    }
    /* A unit of length at clip w = 1 spans projection[5] * height / 2
     * pixels vertically (perspective and orthographic alike). */
    float budget = desc->lod_error_px > 0.0f ? desc->lod_error_px : 1.0f;
    float pixels_per_unit = fabsf(desc->projection[5]) * 0.5f * desc->viewport_height_px;
    out->lod_count =
        desc->viewport_height_px > 0.0f && isfinite(pixels_per_unit) ? r->mesh.lod_count : 1u;
    for (uint32_t k = 0; k < out->lod_count; k++) {
        out->lod_scaled_error[k] = r->mesh.lod_error[k] * pixels_per_unit / budget;
    }
    out->keep_lod_state = desc->pass == CROWD_PASS_COLOR;
    out->frame_fetch = desc->frame_fetch;
    out->frame_step_scale = desc->viewport_height_px > 0.0f && isfinite(pixels_per_unit)
                                ? pixels_per_unit / NEAREST_STEP_PX
                                : 0.0f;
}

/* The sphere holding both spheres (as hull() in the shader). */
static void sphere_hull(const float a[4], const float b[4], float out[4]) {
    float d = sqrtf((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) +
                    (b[2] - a[2]) * (b[2] - a[2]));
    if (d + b[3] <= a[3]) {
        memcpy(out, a, 4 * sizeof(float));
        return;
    }
    if (d + a[3] <= b[3]) {
        memcpy(out, b, 4 * sizeof(float));
        return;
    }
    float radius = 0.5f * (d + a[3] + b[3]);
    float t = (radius - a[3]) / d;
    for (int c = 0; c < 3; c++) {
        out[c] = a[c] + (b[c] - a[c]) * t;
    }
    out[3] = radius;
}

void crowd__gpu_cull_block_changed(gpu_archetype *r, uint32_t slot) {
    uint32_t block = slot / GPU_CULL_BLOCK;
    if (block < r->cull.block_capacity) {
        r->cull.block_fresh[block] = 0;
    }
}

/* The instance's world sphere as the culling pass makes it: its clip's
 * (every clip's while it fades or blends: GPU_BITS_ANY_CLIP), placed by
 * the record's transform as crowd_record.glsl decodes it. */
static void instance_sphere(const gpu_archetype *r, const gpu_instance_record *rec, bool bind_pose,
                            float out[4]) {
    float sphere[4];
    uint32_t at = rec->bits & GPU_BITS_ANY_CLIP ? 0u : 1u + (rec->bits & GPU_BITS_CLIP_MASK);
    memcpy(sphere, bind_pose ? r->cull.bind_sphere : r->cull.clip_spheres + 4 * at, sizeof sphere);
    float angle = crowd__gpu_heading_angle(rec->heading);
    float c = cosf(angle), s = sinf(angle), scale = rec->scale;
    float x = scale * sphere[0], y = scale * sphere[1], z = scale * sphere[2];
    out[0] = rec->position[0] + (c * x + s * z);
    out[1] = rec->position[1] + y;
    out[2] = rec->position[2] + (-s * x + c * z);
    out[3] = scale * sphere[3];
}

static bool sphere_visible(const gpu_view *view, const float sphere[4]) {
    for (int p = 0; p < 6; p++) {
        const float *plane = view->planes[p];
        /* Written so that a NaN is outside, as the compute pass has it. */
        if (!(plane[0] * sphere[0] + plane[1] * sphere[1] + plane[2] * sphere[2] + plane[3] >=
              -sphere[3])) {
            return false;
        }
    }
    return true;
}

/* Remakes block b's sphere around its members' (slots first .. end - 1). */
static void block_sphere(gpu_archetype *r, uint32_t b, uint32_t first, uint32_t end,
                         bool bind_pose) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = first; i < end; i++) {
        float sphere[4];
        instance_sphere(r, &r->instances.records[i], bind_pose, sphere);
        for (int a = 0; a < 3; a++) {
            lo[a] = fminf(lo[a], sphere[a] - sphere[3]);
            hi[a] = fmaxf(hi[a], sphere[a] + sphere[3]);
        }
    }
    box_sphere(lo, hi, r->cull.block_spheres + 4 * (size_t)b);
    r->cull.block_fresh[b] = 1;
}

/* Whether a visible instance plays the nearest frame (crowd_frame_fetch):
 * as the culling pass decides it. */
static bool plays_nearest(const gpu_archetype *r, const gpu_view *view,
                          const gpu_instance_record *rec, const float sphere[4], bool bind_pose) {
    /* Fades and blends (records with a side-table entry) mix clips. */
    bool mixed = (rec->bits & GPU_BITS_EXTENDED) != 0;
    if (bind_pose || mixed || view->frame_fetch == CROWD_FRAME_FETCH_INTERPOLATE) {
        return false;
    }
    if (view->frame_fetch == CROWD_FRAME_FETCH_NEAREST) {
        return true;
    }
    float w = view->clip_w[0] * sphere[0] + view->clip_w[1] * sphere[1] +
              view->clip_w[2] * sphere[2] + view->clip_w[3];
    float step = r->cull.clip_steps[rec->bits & GPU_BITS_CLIP_MASK];
    return view->frame_step_scale > 0.0f && step >= 0.0f && w > sphere[3] &&
           step * rec->scale * view->frame_step_scale < w;
}

/* The LOD an instance whose sphere is in view draws at, by projected error
 * with hysteresis against its previous one. */
static uint32_t pick_lod(const gpu_view *view, const float sphere[4], float scale,
                         uint8_t previous_state) {
    float w = view->clip_w[0] * sphere[0] + view->clip_w[1] * sphere[1] +
              view->clip_w[2] * sphere[2] + view->clip_w[3];
    if (view->lod_count <= 1 || !(w > sphere[3])) {
        return 0;
    }
    uint32_t fine = 0, coarse = 0;
    for (uint32_t k = 1; k < view->lod_count; k++) {
        float projected = view->lod_scaled_error[k] * scale / w;
        fine = projected <= 1.0f ? k : fine;
        coarse = projected <= 1.0f - LOD_HYSTERESIS ? k : coarse;
    }
    uint32_t previous = previous_state < view->lod_count ? previous_state : view->lod_count - 1;
    return previous > fine ? fine : (coarse > previous ? coarse : previous);
}

void crowd__gpu_cull_cpu(gpu_archetype *r, const gpu_view *view, uint8_t *lod_state,
                         gpu_instance_record *out, uint32_t capacity, uint32_t counts[],
                         uint32_t nearest_counts[]) {
    bool bind_pose = r->mode == CROWD_GPU_MODE_STATIC;
    memset(counts, 0, CROWD_BAKE_MAX_LODS * sizeof counts[0]);
    memset(nearest_counts, 0, CROWD_BAKE_MAX_LODS * sizeof nearest_counts[0]);
    if (r->cull.blocks_bind_pose != bind_pose) {
        memset(r->cull.block_fresh, 0, r->cull.block_capacity);
        r->cull.blocks_bind_pose = bind_pose;
    }
    uint32_t count = r->instances.count;
    for (uint32_t b = 0; b * GPU_CULL_BLOCK < count; b++) {
        uint32_t first = b * GPU_CULL_BLOCK;
        uint32_t end = count - first < GPU_CULL_BLOCK ? count : first + GPU_CULL_BLOCK;
        if (!r->cull.block_fresh[b]) {
            block_sphere(r, b, first, end, bind_pose);
        }
        if (!sphere_visible(view, r->cull.block_spheres + 4 * (size_t)b)) {
            continue;
        }
        for (uint32_t i = first; i < end; i++) {
            const gpu_instance_record *rec = &r->instances.records[i];
            float sphere[4];
            instance_sphere(r, rec, bind_pose, sphere);
            if (!sphere_visible(view, sphere)) {
                continue;
            }
            uint32_t lod = pick_lod(view, sphere, rec->scale, lod_state[i]);
            if (view->keep_lod_state) {
                lod_state[i] = (uint8_t)lod;
            }
            /* Interpolating instances from the list's start, one-fetch ones
             * from its end. */
            gpu_instance_record *kept =
                plays_nearest(r, view, rec, sphere, bind_pose)
                    ? &out[lod * capacity + capacity - 1 - nearest_counts[lod]++]
                    : &out[lod * capacity + counts[lod] - nearest_counts[lod]];
            counts[lod]++;
            *kept = *rec;
            kept->bits = (kept->bits & ~GPU_FLAG_LOD_MASK) | lod << GPU_FLAG_LOD_SHIFT;
        }
    }
}

/* The LODs' commands (out[k]) and one-fetch commands (out_nearest[k]) for
 * counts[k] instances of which nearest_counts[k] play the nearest frame
 * (NULL: none yet, the culling pass counts them): interpolating ones at the
 * start of list k, one-fetch ones at its end, their base instance one past
 * it until the pass steps it down. */
static void commands_for(const gpu_archetype *r, const gpu_view *view, const uint32_t counts[],
                         const uint32_t nearest_counts[], uint32_t capacity, draw_command out[],
                         draw_command out_nearest[]) {
    for (uint32_t k = 0; k < view->lod_count; k++) {
        uint32_t nearest = nearest_counts != NULL ? nearest_counts[k] : 0;
        uint32_t all = counts != NULL ? counts[k] : 0;
        out[k] = (draw_command){r->mesh.lod_index_count[k], all - nearest,
                                r->mesh.lod_first_index[k], 0, k * capacity};
        out_nearest[k] =
            (draw_command){r->mesh.lod_index_count[k], nearest, r->mesh.lod_first_index[k], 0,
                           k * capacity + capacity - nearest};
    }
}

/* Both command sets into the command buffer. */
static void upload_commands(const gpu_archetype *r, uint32_t lod_count, const draw_command *lods,
                            const draw_command *nearest) {
    GLsizeiptr bytes = (GLsizeiptr)(lod_count * sizeof(draw_command));
    glNamedBufferSubData(r->cull.command_buffer, 0, bytes, lods);
    glNamedBufferSubData(r->cull.command_buffer,
                         (GLintptr)(GPU_COMMAND_NEAREST_FIRST * sizeof(draw_command)), bytes,
                         nearest);
}

/* The props' commands, at GPU_COMMAND_PROPS_FIRST on: prop p draws list
 * mesh.lod_count + p of its own mesh; counts[p] carriers (NULL: 0); the
 * mask of the prop types that anyone carries. */
static uint32_t prop_commands(const gpu_archetype *r, const uint32_t *counts, uint32_t capacity) {
    draw_command commands[GPU_MAX_PROPS];
    uint32_t mask = 0;
    for (uint32_t p = 0; p < r->props.count; p++) {
        const gpu_prop *prop = &r->props.items[p];
        commands[p] = (draw_command){prop->mesh.index_count, counts != NULL ? counts[p] : 0, 0, 0,
                                     (r->mesh.lod_count + p) * capacity};
        mask |= prop->carriers > 0 ? 1u << p : 0u;
    }
    if (r->props.count > 0) {
        glNamedBufferSubData(r->cull.command_buffer, GPU_COMMAND_PROPS_FIRST * sizeof(draw_command),
                             (GLsizeiptr)(r->props.count * sizeof commands[0]), commands);
    }
    return mask;
}

static void cull_on_gpu(gpu_archetype *r, const gpu_view *view) {
    draw_command zeroed[CROWD_BAKE_MAX_LODS], zeroed_nearest[CROWD_BAKE_MAX_LODS];
    commands_for(r, view, NULL, NULL, r->cull.visible_capacity, zeroed, zeroed_nearest);
    upload_commands(r, view->lod_count, zeroed, zeroed_nearest);
    uint32_t prop_mask = prop_commands(r, NULL, r->cull.visible_capacity);
    GLuint program = r->world->cull_program;
    glUseProgram(program);
    glProgramUniform1ui(program, GPU_CULL_UNIFORM_COUNT, r->instances.count);
    glProgramUniform4fv(program, GPU_CULL_UNIFORM_PLANES, 6, &view->planes[0][0]);
    glProgramUniform4fv(program, GPU_CULL_UNIFORM_CLIP_W, 1, view->clip_w);
    glProgramUniform1fv(program, GPU_CULL_UNIFORM_LOD_SCALED_ERROR, GPU_MAX_LODS,
                        view->lod_scaled_error);
    glProgramUniform1ui(program, GPU_CULL_UNIFORM_LOD_COUNT, view->lod_count);
    glProgramUniform1f(program, GPU_CULL_UNIFORM_HYSTERESIS, LOD_HYSTERESIS);
    glProgramUniform1ui(program, GPU_CULL_UNIFORM_CAPACITY, r->cull.visible_capacity);
    glProgramUniform1ui(program, GPU_CULL_UNIFORM_BIND_POSE,
                        r->mode == CROWD_GPU_MODE_STATIC ? 1u : 0u);
    glProgramUniform4fv(program, GPU_CULL_UNIFORM_BIND_SPHERE, 1, r->cull.bind_sphere);
    glProgramUniform1ui(program, GPU_CULL_UNIFORM_KEEP_LOD_STATE, view->keep_lod_state ? 1u : 0u);
    glProgramUniform1ui(program, GPU_CULL_UNIFORM_PROP_FIRST_LIST, r->mesh.lod_count);
    glProgramUniform1ui(program, GPU_CULL_UNIFORM_PROP_MASK, prop_mask);
    glProgramUniform1f(program, GPU_CULL_UNIFORM_FRAME_STEP_SCALE, view->frame_step_scale);
    glProgramUniform1ui(program, GPU_CULL_UNIFORM_FRAME_FETCH, (GLuint)view->frame_fetch);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_CULL_RECORDS, r->instances.buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_CULL_SPHERES, r->cull.clip_sphere_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_CULL_VISIBLE, r->cull.visible_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_CULL_COMMANDS, r->cull.command_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_CULL_LOD_STATE, r->cull.lod_state_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_CULL_CLIP_STEPS, r->cull.clip_step_buffer);
    glDispatchCompute((r->instances.count + GPU_CULL_GROUP_SIZE - 1) / GPU_CULL_GROUP_SIZE, 1, 1);
    /* The draws read the commands and records; the timing read-back copies
     * the commands. */
    glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT |
                    GL_BUFFER_UPDATE_BARRIER_BIT);
    r->world->culled_upper_vertices += (uint64_t)r->mesh.index_count * r->instances.count;
    r->world->culled_upper_instances += r->instances.count;
}

/* The CPU culling's prop lists into the visible buffer, with their commands. */
static void upload_prop_lists(gpu_archetype *r, uint32_t capacity) {
    uint32_t counts[GPU_MAX_PROPS];
    for (uint32_t p = 0; p < r->props.count; p++) {
        counts[p] = r->props.items[p].cpu_count;
        if (counts[p] > 0) {
            uint64_t list = (uint64_t)(r->mesh.lod_count + p) * r->cull.visible_capacity;
            glNamedBufferSubData(r->cull.visible_buffer,
                                 (GLintptr)(list * sizeof(gpu_instance_record)),
                                 (GLsizeiptr)(counts[p] * sizeof(gpu_instance_record)),
                                 r->props.cpu_visible + (size_t)p * capacity);
            r->world->stats.uploaded_bytes += counts[p] * sizeof(gpu_instance_record);
        }
    }
    prop_commands(r, counts, r->cull.visible_capacity);
}

static crowd_result cull_on_cpu(gpu_archetype *r, const gpu_view *view, crowd_error *error) {
    uint32_t capacity = r->instances.capacity;
    if (r->cull.cpu_visible_capacity < capacity) {
        const crowd_allocator *allocator = &r->world->allocator;
        size_t list_bytes = CROWD_BAKE_MAX_LODS * sizeof *r->cull.cpu_visible;
        void *visible =
            crowd__mem_grow(allocator, r->cull.cpu_visible,
                            r->cull.cpu_visible_capacity * list_bytes, capacity * list_bytes);
        void *state = crowd__mem_grow(allocator, r->cull.cpu_lod_state,
                                      r->cull.cpu_visible_capacity, capacity);
        if (visible != NULL) {
            r->cull.cpu_visible = visible;
        }
        if (state != NULL) {
            memset((uint8_t *)state + r->cull.cpu_visible_capacity, 0,
                   capacity - r->cull.cpu_visible_capacity);
            r->cull.cpu_lod_state = state;
        }
        if (visible == NULL || state == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, r->name,
                                   "out of memory for the CPU culling lists");
        }
        r->cull.cpu_visible_capacity = capacity;
    }
    uint32_t blocks = (capacity + GPU_CULL_BLOCK - 1) / GPU_CULL_BLOCK;
    if (r->cull.block_capacity < blocks) {
        const crowd_allocator *allocator = &r->world->allocator;
        void *spheres =
            crowd__mem_grow(allocator, r->cull.block_spheres,
                            4 * sizeof(float) * r->cull.block_capacity, 4 * sizeof(float) * blocks);
        if (spheres != NULL) {
            r->cull.block_spheres = spheres;
        }
        void *fresh =
            crowd__mem_grow(allocator, r->cull.block_fresh, r->cull.block_capacity, blocks);
        if (fresh != NULL) {
            memset((uint8_t *)fresh + r->cull.block_capacity, 0, blocks - r->cull.block_capacity);
            r->cull.block_fresh = fresh;
        }
        if (spheres == NULL || fresh == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, r->name,
                                   "out of memory for the CPU culling's blocks");
        }
        r->cull.block_capacity = blocks;
    }
    uint32_t *counts = r->cull.cpu_counts, *nearest = r->cull.cpu_nearest_counts;
    double start = r->world->timing ? crowd__gpu_thread_cpu_s() : 0.0;
    crowd__gpu_cull_cpu(r, view, r->cull.cpu_lod_state, r->cull.cpu_visible, capacity, counts,
                        nearest);
    crowd_result result =
        r->props.count > 0 ? crowd__gpu_props_cull_cpu(r, view->lod_count, error) : CROWD_OK;
    if (r->world->timing) {
        r->world->stats.cpu_cull_time_s += crowd__gpu_thread_cpu_s() - start;
    }
    if (result != CROWD_OK) {
        return result;
    }
    for (uint32_t k = 0; k < view->lod_count; k++) {
        r->world->stats.vertices_drawn += (uint64_t)counts[k] * r->mesh.lod_index_count[k];
        r->world->stats.visible_instances += counts[k];
        r->world->stats.visible_per_lod[k] += counts[k];
        r->world->stats.nearest_instances += nearest[k];
    }
    if (r->world->portable) {
        return CROWD_OK; /* the draw streams the lists (draw_portable.c) */
    }
    uint64_t list_bytes = (uint64_t)r->cull.visible_capacity * sizeof(gpu_instance_record);
    for (uint32_t k = 0; k < view->lod_count; k++) {
        const gpu_instance_record *list = r->cull.cpu_visible + (size_t)k * capacity;
        uint32_t interpolated = counts[k] - nearest[k];
        if (interpolated > 0) {
            glNamedBufferSubData(r->cull.visible_buffer, (GLintptr)(k * list_bytes),
                                 (GLsizeiptr)(interpolated * sizeof(gpu_instance_record)), list);
        }
        if (nearest[k] > 0) {
            uint64_t tail = nearest[k] * sizeof(gpu_instance_record);
            glNamedBufferSubData(r->cull.visible_buffer, (GLintptr)((k + 1) * list_bytes - tail),
                                 (GLsizeiptr)tail, list + capacity - nearest[k]);
        }
        r->world->stats.uploaded_bytes += counts[k] * sizeof(gpu_instance_record);
    }
    draw_command commands[CROWD_BAKE_MAX_LODS], nearest_commands[CROWD_BAKE_MAX_LODS];
    commands_for(r, view, counts, nearest, r->cull.visible_capacity, commands, nearest_commands);
    upload_commands(r, view->lod_count, commands, nearest_commands);
    upload_prop_lists(r, capacity);
    return CROWD_OK;
}

crowd_result crowd__gpu_cull_run(gpu_archetype *r, const crowd_draw_desc *desc,
                                 const float view_proj[16], uint32_t *out_lod_count,
                                 crowd_error *error) {
    crowd_result result = r->world->portable ? CROWD_OK : reserve_lists(r, error);
    if (result != CROWD_OK) {
        return result;
    }
    gpu_view view;
    crowd__gpu_view_make(r, desc, view_proj, &view);
    *out_lod_count = view.lod_count;
    if (desc->cull == CROWD_CULL_CPU || r->world->portable) {
        return cull_on_cpu(r, &view, error);
    }
    cull_on_gpu(r, &view);
    return CROWD_OK;
}

void crowd__gpu_cull_submit(gpu_archetype *r, uint32_t lod_count, bool counted, bool nearest) {
    uint32_t first = nearest ? GPU_COMMAND_NEAREST_FIRST : 0;
    glBindVertexBuffer(GPU_BINDING_INSTANCES, r->cull.visible_buffer, 0,
                       sizeof(gpu_instance_record));
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, r->cull.command_buffer);
    glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                (const void *)(uintptr_t)(first * sizeof(draw_command)),
                                (GLsizei)lod_count, sizeof(draw_command));
    r->world->stats.draw_calls += lod_count;
    if (r->world->gpu_timing && !counted) {
        crowd__gpu_timing_note_commands(r->world, r->cull.command_buffer, first, lod_count,
                                        nearest);
    }
}

bool crowd__gpu_cull_any_nearest(const gpu_archetype *r, const crowd_draw_desc *desc,
                                 uint32_t lod_count) {
    if (desc->frame_fetch == CROWD_FRAME_FETCH_INTERPOLATE || r->mode == CROWD_GPU_MODE_STATIC) {
        return false;
    }
    if (desc->cull == CROWD_CULL_GPU && !r->world->portable) {
        /* The count is on the GPU: its commands draw whatever it has, when
         * it can have any. */
        bool by_size = desc->viewport_height_px > 0.0f && r->cull.any_clip_step;
        return desc->frame_fetch == CROWD_FRAME_FETCH_NEAREST || by_size;
    }
    for (uint32_t k = 0; k < lod_count; k++) {
        if (r->cull.cpu_nearest_counts[k] > 0) {
            return true;
        }
    }
    return false;
}
