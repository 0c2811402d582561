/* events_reference.c - the events reference for the browser test: a script
 * of state changes and updates played by crowd's world on a bake folder,
 * printing every event crowd_world_events reports, one line each, for the
 * three.js player's Crowd to match (test_browser_events.mjs).
 *
 *   events_reference DIR STEP...
 *
 * Steps (instances are numbered in the order they are added):
 *   a:CLIP:TIME:SPEED:LOOP  add an instance playing clip CLIP (a name) from
 *                           clip time TIME at SPEED, LOOP clip|on|off
 *   p:I:CLIP:FADE           instance I plays CLIP with a FADE s crossfade
 *   s:I:SPEED               instance I's speed changes
 *   b:I:BLEND:PARAM:FADE    instance I plays blend BLEND (a name) at PARAM
 *                           with a FADE s crossfade
 *   v:I:PARAM               instance I's blend parameter changes
 *   g:I:SPEED               instance I's ground speed (speed matching)
 *   r:I                     prints instance I's rate and its clip's speed
 *   u:T                     crowd_world_update at clock T
 * Output, per event of update number U (0-based):
 *   U INSTANCE CLIP event|end NAME TIME COUNT FADING_OUT
 * with NAME "-" for an end and TIME as %.9g (a float32 exactly), and per
 * r: step "rate I RATE SPEED" (%.9g: the blend's rate, the record's speed,
 * read from the world's own state: crowd has no getter for them).
 * Exit 0 when the script ran, 1 on any failure (with the reason).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/bake.h"
#include "crowd/gpu.h"
#include "gpu/internal.h"
#include "host.h"

#define MAX_INSTANCES 64

typedef struct script {
    crowd_world *world;
    crowd_archetype archetype;
    crowd_instance instances[MAX_INSTANCES];
    uint32_t instance_count;
    uint32_t updates;
} script;

static int fail(const crowd_error *error) {
    fprintf(stderr, "events_reference: %s%s%s\n", error->file[0] ? error->file : "",
            error->file[0] ? ": " : "", error->reason);
    return 1;
}

static int bad_step(const char *step) {
    fprintf(stderr, "events_reference: bad step '%s'\n", step);
    return 1;
}

static bool find_clip(const script *s, const char *name, uint32_t *out) {
    return crowd_archetype_find_clip(s->world, s->archetype, name, out);
}

static int instance_number(const script *s, crowd_instance instance) {
    for (uint32_t i = 0; i < s->instance_count; i++) {
        if (s->instances[i].id == instance.id) {
            return (int)i;
        }
    }
    return -1;
}

static void print_events(const script *s) {
    uint32_t count = 0;
    const crowd_event *events = crowd_world_events(s->world, &count);
    for (uint32_t e = 0; e < count; e++) {
        const crowd_event *ev = &events[e];
        bool end = ev->kind == CROWD_EVENT_END;
        printf("%u %d %u %s %s %.9g %u %d\n", (unsigned)s->updates,
               instance_number(s, ev->instance), (unsigned)ev->clip, end ? "end" : "event",
               end ? "-" : ev->name, (double)ev->time_s, (unsigned)ev->count, ev->fading_out);
    }
}

static int add(script *s, const char *step, crowd_error *error) {
    char clip[65], loop[8];
    float time_s, speed;
    crowd_instance_desc desc = {0};
    if (sscanf(step, "a:%64[^:]:%f:%f:%7s", clip, &time_s, &speed, loop) != 4 ||
        !find_clip(s, clip, &desc.clip) || s->instance_count == MAX_INSTANCES) {
        return bad_step(step);
    }
    desc.time_offset_s = time_s;
    desc.speed = speed;
    desc.paused = speed == 0.0f;
    desc.loop = strcmp(loop, "on") == 0    ? CROWD_LOOP_ON
                : strcmp(loop, "off") == 0 ? CROWD_LOOP_OFF
                                           : CROWD_LOOP_CLIP;
    if (crowd_world_add_instance(s->world, s->archetype, &desc, &s->instances[s->instance_count],
                                 error) != CROWD_OK) {
        return fail(error);
    }
    s->instance_count++;
    return 0;
}

/* The blend steps (b, v, g) and the rate print (r). */
static int blend_step(script *s, const char *step, crowd_error *error) {
    char name[65];
    unsigned i;
    float a, b;
    crowd_blend blend;
    crowd_result result = CROWD_OK;
    if (step[0] == 'b') {
        if (sscanf(step, "b:%u:%64[^:]:%f:%f", &i, name, &a, &b) != 4 || i >= s->instance_count ||
            !crowd_archetype_find_blend(s->world, s->archetype, name, &blend)) {
            return bad_step(step);
        }
        result = crowd_instance_play_blend(s->world, s->instances[i], blend, a, b, error);
    } else if (step[0] == 'r') {
        gpu_archetype *r = NULL;
        uint32_t slot = 0;
        if (sscanf(step, "r:%u", &i) != 1 || i >= s->instance_count ||
            crowd__gpu_world_find_instance(s->world, s->instances[i], &r, &slot, error) !=
                CROWD_OK) {
            return bad_step(step);
        }
        printf("rate %u %.9g %.9g\n", i, (double)crowd__gpu_blends_slot(r, slot)->rate,
               (double)r->instances.states[slot].speed);
    } else {
        if (sscanf(step + 1, ":%u:%f", &i, &a) != 2 || i >= s->instance_count) {
            return bad_step(step);
        }
        result = step[0] == 'v'
                     ? crowd_instance_set_blend_parameter(s->world, s->instances[i], a, error)
                     : crowd_instance_set_ground_speed(s->world, s->instances[i], a, error);
    }
    return result == CROWD_OK ? 0 : fail(error);
}

static int run_step(script *s, const char *step, crowd_error *error) {
    char clip[65];
    unsigned i;
    float a;
    double t;
    uint32_t index;
    crowd_result result;
    switch (step[0]) {
    case 'a':
        return add(s, step, error);
    case 'b':
    case 'v':
    case 'g':
    case 'r':
        return blend_step(s, step, error);
    case 'p':
        if (sscanf(step, "p:%u:%64[^:]:%f", &i, clip, &a) != 3 || i >= s->instance_count ||
            !find_clip(s, clip, &index)) {
            return bad_step(step);
        }
        result = crowd_instance_play(s->world, s->instances[i], index, a, error);
        break;
    case 's':
        if (sscanf(step, "s:%u:%f", &i, &a) != 2 || i >= s->instance_count) {
            return bad_step(step);
        }
        result = crowd_instance_set_speed(s->world, s->instances[i], a, error);
        break;
    case 'u':
        if (sscanf(step, "u:%lf", &t) != 1) {
            return bad_step(step);
        }
        result = crowd_world_update(s->world, t, error);
        if (result == CROWD_OK) {
            print_events(s);
            s->updates++;
        }
        break;
    default:
        return bad_step(step);
    }
    return result == CROWD_OK ? 0 : fail(error);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: events_reference DIR STEP...\n");
        return 1;
    }
    crowd_error error = {0};
    crowd_bake *bake = NULL;
    host_context *context = NULL;
    script s = {0};
    int code = 1;
    crowd_archetype_desc desc = {.mode = CROWD_GPU_MODE_VAT};
    if (crowd_bake_load(argv[1], NULL, &bake, &error) != CROWD_OK ||
        host_context_create(NULL, &context, &error) != CROWD_OK ||
        crowd_world_create(NULL, &s.world, &error) != CROWD_OK) {
        code = fail(&error);
        goto done;
    }
    desc.bake = bake;
    if (crowd_world_add_archetype(s.world, &desc, &s.archetype, &error) != CROWD_OK) {
        code = fail(&error);
        goto done;
    }
    code = 0;
    for (int k = 2; k < argc && code == 0; k++) {
        code = run_step(&s, argv[k], &error);
    }
done:
    crowd_world_destroy(s.world);
    host_context_destroy(context);
    crowd_bake_destroy(bake);
    return code;
}
