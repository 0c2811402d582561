/* The GPU record (gpu_instance_record, 40 bytes, crowd_contract.glsl) packed
 * from an instance's full CPU state (gpu_instance_state) at every write, and
 * the per-world epoch its times are relative to.
 *
 * A record holds what every instance needs each frame: position, heading
 * code, scale, speed, the clip time at the epoch (phase), tint, clip index
 * and bits, handle. Per-clip constants are the clip table's (u_clips, made
 * with the archetype); a fade's source clip and a blend's partners live in
 * the side table (side_table.c) for the instances that have them, in the
 * modes whose shaders read them (bat, vat). Times: the clip time a shader
 * computes is u_time * speed + phase, u_time = clock - epoch below
 * GPU_EPOCH_S, phase folded into one period for a looping clip, so both
 * floats stay small and a clip time keeps 0.1 ms or better over a 24 h
 * clock; every GPU_EPOCH_S of clock the epoch moves and every record is
 * packed again. */
#include <math.h>
#include <string.h>

#include "gpu/internal.h"

/* pi / 2^31 as the shaders write it (crowd_record.glsl). */
#define HEADING_STEP 1.4629180792671596e-09f

int32_t crowd__gpu_heading_code(float heading_rad) {
    double turns = (double)heading_rad / (2.0 * 3.14159265358979323846);
    turns -= floor(turns + 0.5); /* [-0.5, 0.5) */
    long long code = llrint(turns * 4294967296.0);
    return (int32_t)(code >= 2147483648LL ? code - 4294967296LL : code);
}

float crowd__gpu_heading_angle(int32_t code) {
    return (float)code * HEADING_STEP;
}

static uint8_t unorm8(float v) {
    v = v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f; /* tints are clamped to [0, 1] */
    return (uint8_t)lrintf(v * 255.0f);
}

static bool clip_loops(const gpu_archetype *r, uint32_t clip, uint32_t loop_mode) {
    if (loop_mode != CROWD_LOOP_CLIP) {
        return loop_mode == CROWD_LOOP_ON;
    }
    return clip < r->clip_count && r->clips[clip].loop;
}

static float clip_duration(const gpu_archetype *r, uint32_t clip) {
    return clip < r->clip_count ? r->clips[clip].duration_s : 0.0f;
}

/* The clip time at the epoch of a clip played from start_s: folded into
 * one period when it loops (the same time modulo the duration), pinned to
 * an end it cannot leave when it clamps (time running away from it). */
static float phase_at(double epoch_s, double start_s, float offset_s, float speed, float duration_s,
                      bool loop) {
    double t = (epoch_s - start_s) * (double)speed + (double)offset_s;
    if (!isfinite(t) || !(duration_s > 0.0f)) {
        return isfinite(t) ? (float)t : 0.0f;
    }
    if (loop) {
        t -= (double)duration_s * floor(t / (double)duration_s);
    } else if (t > duration_s && speed >= 0.0f) {
        t = duration_s;
    } else if (t < 0.0 && speed <= 0.0f) {
        t = 0.0;
    }
    return (float)t;
}

/* A crossfade still running at the world's clock, by the rule the draws
 * pick the CROSSFADE build with (crowd__gpu_crossfade_running: the float
 * clock before the fade's end as instances.c's note_fade_end has it), so
 * no extended record is drawn by the other build. */
static bool fading(const gpu_archetype *r, const gpu_instance_state *s) {
    if (!(s->flags & GPU_FLAG_FADE) || !(s->fade_duration_s > 0.0f)) {
        return false;
    }
    double end = nextafter(s->fade_start_s + (double)s->fade_duration_s, INFINITY);
    return (double)(float)r->world->clock_s < end;
}

static bool side_mode(const gpu_archetype *r) {
    return r->mode == CROWD_GPU_MODE_BAT || r->mode == CROWD_GPU_MODE_VAT;
}

bool crowd__gpu_record_extended(const gpu_archetype *r, uint32_t slot) {
    const gpu_instance_state *s = &r->instances.states[slot];
    return side_mode(r) && (s->partner_weight > 0.0f || fading(r, s));
}

static void fill_side(const gpu_archetype *r, uint32_t slot, uint32_t *words) {
    const gpu_instance_state *s = &r->instances.states[slot];
    const gpu_blend_slot *b = &r->blends.slots[slot];
    double epoch = r->world->epoch_s;
    bool fade = fading(r, s);
    uint32_t from_loop_mode = (s->flags >> GPU_FLAG_FROM_LOOP_SHIFT) & GPU_FLAG_LOOP_MASK;
    bool from_loops = clip_loops(r, s->from_clip, from_loop_mode);
    uint32_t partner =
        s->partner_weight > 0.0f && b->partner_clip != UINT32_MAX ? b->partner_clip : 0u;
    uint32_t from_partner = s->from_partner_weight > 0.0f && b->from_partner_clip != UINT32_MAX
                                ? b->from_partner_clip
                                : 0u;
    float f[6] = {fade ? (float)(s->fade_start_s - epoch) : 0.0f,
                  fade ? s->fade_duration_s : 0.0f,
                  fade ? phase_at(epoch, s->from_start_s, s->from_offset_s, s->from_speed,
                                  clip_duration(r, s->from_clip), from_loops)
                       : 0.0f,
                  fade ? s->from_speed : 0.0f,
                  s->partner_weight,
                  fade ? s->from_partner_weight : 0.0f};
    words[GPU_SIDE_CLIPS] =
        (fade ? s->from_clip & GPU_BITS_CLIP_MASK : 0u) | (partner & GPU_BITS_CLIP_MASK) << 8 |
        (from_partner & GPU_BITS_CLIP_MASK) << 16 | (from_loops ? GPU_SIDE_FROM_LOOP : 0u);
    words[GPU_SIDE_HANDLE] = s->handle;
    memcpy(&words[GPU_SIDE_FADE_START], f, sizeof f);
}

void crowd__gpu_record_pack(gpu_archetype *r, uint32_t slot) {
    const gpu_instance_state *s = &r->instances.states[slot];
    gpu_instance_record *rec = &r->instances.records[slot];
    uint32_t loop_mode = s->flags & GPU_FLAG_LOOP_MASK;
    bool loops = clip_loops(r, s->clip, loop_mode);
    memcpy(rec->position, s->position, sizeof rec->position);
    rec->heading = crowd__gpu_heading_code(s->heading_rad);
    rec->scale = s->scale;
    rec->speed = s->speed;
    rec->phase_s = phase_at(r->world->epoch_s, s->start_s, s->offset_s, s->speed,
                            clip_duration(r, s->clip), loops);
    for (int c = 0; c < 4; c++) {
        rec->tint[c] = unorm8(s->tint[c]);
    }
    uint32_t bits = (s->clip & GPU_BITS_CLIP_MASK) | (loops ? GPU_BITS_LOOP : 0u) |
                    (s->flags & GPU_FLAG_PROPS_MASK);
    /* Culling takes every clip's sphere while a second clip shows. */
    if (s->partner_weight > 0.0f || fading(r, s)) {
        bits |= GPU_BITS_ANY_CLIP;
    }
    rec->handle = s->handle;
    if (crowd__gpu_record_extended(r, slot)) {
        uint32_t entry = 0;
        fill_side(r, slot, crowd__gpu_side_take(r, slot, &entry));
        bits |= GPU_BITS_EXTENDED;
        rec->handle = entry;
    } else {
        crowd__gpu_side_free(r, slot);
    }
    rec->bits = bits;
}

float crowd__gpu_record_clip_time(const gpu_archetype *r, const gpu_instance_record *rec,
                                  float rel_s) {
    float duration = clip_duration(r, rec->bits & GPU_BITS_CLIP_MASK);
    bool loop = (rec->bits & GPU_BITS_LOOP) != 0;
    /* crowd_play_time of crowd_time.glsl with start 0. */
    float t = rel_s * rec->speed + rec->phase_s;
    if (!(duration > 0.0f) || isnan(t) || isinf(t)) {
        return 0.0f;
    }
    if (loop) {
        t -= duration * floorf(t / duration);
        return t >= duration || t < 0.0f ? 0.0f : t;
    }
    return t < 0.0f ? 0.0f : (t > duration ? duration : t);
}

void crowd__gpu_records_repack_all(gpu_archetype *r) {
    for (uint32_t slot = 0; slot < r->instances.count; slot++) {
        crowd__gpu_record_pack(r, slot);
        crowd__gpu_cull_block_changed(r, slot);
    }
    if (!r->world->portable && r->instances.count > 0) {
        uint64_t bytes = (uint64_t)r->instances.count * sizeof(gpu_instance_record);
        glNamedBufferSubData(r->instances.buffer, 0, (GLsizeiptr)bytes, r->instances.records);
        r->world->pending_upload_bytes += bytes;
    }
}

void crowd__gpu_records_tick(crowd_world *w) {
    bool rebase = w->clock_s - w->epoch_s >= GPU_EPOCH_S || w->clock_s < w->epoch_s;
    if (rebase) {
        w->epoch_s = floor(w->clock_s / GPU_EPOCH_S) * GPU_EPOCH_S;
    }
    for (uint32_t i = 0; i < CROWD_WORLD_MAX_ARCHETYPES; i++) {
        gpu_archetype *a = w->archetypes[i];
        if (a == NULL || a->instances.count == 0) {
            continue;
        }
        if (rebase) {
            crowd__gpu_records_repack_all(a);
            continue;
        }
        /* From the last entry down: freeing one moves the last into it. */
        for (uint32_t e = a->instances.side.count; e-- > 0;) {
            uint32_t slot = a->instances.side.entry_slot[e];
            if (!crowd__gpu_record_extended(a, slot)) {
                crowd__gpu_instance_write(a, slot);
            }
        }
    }
}

uint64_t crowd__gpu_record_memory(const gpu_archetype *r) {
    uint64_t records = r->world->portable
                           ? r->streams.records_bytes
                           : (uint64_t)r->instances.capacity * sizeof(gpu_instance_record);
    return records + r->cull.visible_bytes + r->instances.side.texture_bytes;
}
