/* Events through the world (crowd/gpu.h, "Events"): the bar fixture baked
 * with markers, its instances' clocks advanced by crowd_world_update, and
 * what crowd_world_events reports checked against firings worked out by
 * hand. Clips: "bend" loops in 1 s with markers a at 0.25 and b at 0.75;
 * "drop" plays once in 0.5 s with d at 0.25; "slide" loops in 2 s with s at
 * 0.5. Every clock is a short binary fraction, so the float arithmetic is
 * exact. Nothing is drawn: events come from the clocks alone. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "crowd/bake.h"
#include "crowd/gpu.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

typedef struct events_scene {
    crowd_world *world;
    crowd_archetype evented, plain; /* the bake with markers, and one without */
    uint32_t bend, slide, drop;
} events_scene;

/* The last update's events as text: "a b", a count as "ax3", the clip a
 * crossfade leaves as "~b", a one-shot's end as "END", and with `tagged`
 * each prefixed by the instance's index in `instances` ("1:a"). */
static void describe(const crowd_world *world, const crowd_instance *instances, uint32_t tagged,
                     char *out, size_t size) {
    uint32_t count = 0;
    const crowd_event *events = crowd_world_events(world, &count);
    out[0] = '\0';
    for (uint32_t i = 0; i < count; i++) {
        const crowd_event *e = &events[i];
        char tag[16] = "";
        for (uint32_t k = 0; k < tagged; k++) {
            if (instances[k].id == e->instance.id) {
                snprintf(tag, sizeof tag, "%u:", k);
            }
        }
        char times[16] = "";
        if (e->count != 1) {
            snprintf(times, sizeof times, "x%u", e->count);
        }
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%s%s%s%s", used > 0 ? " " : "", tag,
                 e->fading_out ? "~" : "", e->kind == CROWD_EVENT_END ? "END" : e->name, times);
    }
}

static void expect_at(events_scene *s, double time_s, const char *expected,
                      const crowd_instance *instances, uint32_t tagged, int line) {
    crowd_error error;
    if (crowd_world_update(s->world, time_s, &error) != CROWD_OK) {
        fprintf(stderr, "update: %s\n", error.reason);
    }
    char got[512];
    describe(s->world, instances, tagged, got, sizeof got);
    CHECK_MSG(strcmp(got, expected) == 0, "line %d, update %g: \"%s\", expected \"%s\"", line,
              time_s, got, expected);
}

#define EXPECT(s, time_s, expected) expect_at(s, time_s, expected, NULL, 0, __LINE__)
#define EXPECT_TAGGED(s, time_s, expected, instances, n)                                           \
    expect_at(s, time_s, expected, instances, n, __LINE__)

static crowd_bake *bake_with_events(const crowd_asset *bar, bool events) {
    crowd_bake *bake = NULL;
    crowd_error error;
    if (crowd_bake_build(bar, &(crowd_bake_desc){.what = CROWD_BAKE_BAT_ONLY, .lods = -1}, &bake,
                         &error) != CROWD_OK) {
        fprintf(stderr, "bake: %s\n", error.reason);
        return NULL;
    }
    bool ok = !events || (crowd_bake_add_event(bake, "bend", 0.75f, "b", &error) == CROWD_OK &&
                          crowd_bake_add_event(bake, "bend", 0.25f, "a", &error) == CROWD_OK &&
                          crowd_bake_add_event(bake, "drop", 0.25f, "d", &error) == CROWD_OK &&
                          crowd_bake_add_event(bake, "slide", 0.5f, "s", &error) == CROWD_OK);
    if (!ok) {
        fprintf(stderr, "event: %s\n", error.reason);
        crowd_bake_destroy(bake);
        return NULL;
    }
    return bake;
}

/* A fresh world at clock 0 with both archetypes. */
static bool scene_create(events_scene *s, const crowd_bake *evented, const crowd_bake *plain) {
    memset(s, 0, sizeof *s);
    crowd_error error;
    crowd_archetype_desc desc = {.bake = evented, .mode = CROWD_GPU_MODE_BAT};
    bool ok = crowd_world_create(&(crowd_world_desc){.tier = gpu_test_tier}, &s->world, &error) ==
                  CROWD_OK &&
              crowd_world_add_archetype(s->world, &desc, &s->evented, &error) == CROWD_OK;
    desc.bake = plain;
    ok = ok && crowd_world_add_archetype(s->world, &desc, &s->plain, &error) == CROWD_OK;
    ok = ok && crowd_archetype_find_clip(s->world, s->evented, "bend", &s->bend) &&
         crowd_archetype_find_clip(s->world, s->evented, "slide", &s->slide) &&
         crowd_archetype_find_clip(s->world, s->evented, "drop", &s->drop);
    ok = ok && crowd_world_update(s->world, 0.0, &error) == CROWD_OK;
    if (!ok) {
        fprintf(stderr, "events scene: %s\n", error.reason);
        crowd_world_destroy(s->world);
    }
    return ok;
}

static crowd_instance add(events_scene *s, crowd_archetype archetype, crowd_instance_desc desc) {
    crowd_instance instance = {0};
    crowd_error error;
    if (crowd_world_add_instance(s->world, archetype, &desc, &instance, &error) != CROWD_OK) {
        fprintf(stderr, "instance: %s\n", error.reason);
    }
    return instance;
}

/* Loops: each loop's markers once, in order; long updates folded. */
static void test_loops(events_scene *s) {
    add(s, s->evented, (crowd_instance_desc){.clip = s->bend});
    EXPECT(s, 0.5, "a");
    EXPECT(s, 1.0, "b");
    EXPECT(s, 1.0, "");
    EXPECT(s, 1.25, "a");
    /* 1.25 -> 3.5: b at 1.75, a and b of loop 2 (2.25, 2.75), a at 3.25 */
    EXPECT(s, 3.5, "b a b a");
    /* 3.5 -> 103.5: b at 3.75, 99 whole loops, a at 103.25 */
    EXPECT(s, 103.5, "b ax99 bx99 a");
    uint32_t count = 0;
    const crowd_event *e = crowd_world_events(s->world, &count);
    CHECK(count == 4 && e[1].clip == s->bend && e[1].time_s == 0.25f &&
          e[1].archetype.id == s->evented.id && e[1].kind == CROWD_EVENT_MARKER);
}

/* Speed changes keep the clip time and fire on from it at the new rate. */
static void test_speed(events_scene *s) {
    crowd_instance i = add(s, s->evented, (crowd_instance_desc){.clip = s->bend});
    EXPECT(s, 0.5, "a");
    CHECK(crowd_instance_set_speed(s->world, i, 2.0f, NULL) == CROWD_OK);
    EXPECT(s, 0.625, "b"); /* 0.5 + 0.125 x 2 = 0.75 */
    EXPECT(s, 0.75, "");   /* 1.0: the seam */
    EXPECT(s, 0.875, "a"); /* 1.25 */
    CHECK(crowd_instance_set_speed(s->world, i, 0.5f, NULL) == CROWD_OK);
    EXPECT(s, 1.875, "b"); /* 0.25 + 1 x 0.5 = 0.75 */
    EXPECT(s, 2.375, "");  /* 1.0 */
}

/* Negative speed: markers fire as the clip time reaches them going back. */
static void test_backwards(events_scene *s) {
    add(s, s->evented,
        (crowd_instance_desc){.clip = s->bend, .speed = -1.0f, .time_offset_s = 0.5f});
    EXPECT(s, 0.25, "a"); /* 0.5 -> 0.25 */
    EXPECT(s, 1.0, "b");  /* 0.25 -> -0.5: over the seam back to 0.75 */
    EXPECT(s, 1.5, "a");  /* -0.5 -> -1.0: 0.25 of the loop before (-0.75) */
    /* A one-shot clip backwards ends at 0 (the newer instance is read
     * first; the first passes b at -1.25). */
    add(s, s->evented,
        (crowd_instance_desc){.clip = s->drop, .speed = -1.0f, .time_offset_s = 0.5f});
    EXPECT(s, 2.0, "d END b");
    uint32_t count = 0;
    const crowd_event *e = crowd_world_events(s->world, &count);
    CHECK(count == 3 && e[1].kind == CROWD_EVENT_END && e[1].time_s == 0.0f &&
          e[1].name[0] == '\0' && e[1].clip == s->drop);
}

/* Speed 0 fires nothing, however long; moving again fires from there (a
 * clip that has not moved since it started fires its start too). */
static void test_pause(events_scene *s) {
    crowd_instance i =
        add(s, s->evented,
            (crowd_instance_desc){.clip = s->bend, .paused = true, .time_offset_s = 0.25f});
    EXPECT(s, 0.5, "");
    EXPECT(s, 10.0, "");
    CHECK(crowd_instance_set_speed(s->world, i, 1.0f, NULL) == CROWD_OK);
    EXPECT(s, 10.5, "a b");
    CHECK(crowd_instance_set_speed(s->world, i, 0.0f, NULL) == CROWD_OK);
    EXPECT(s, 20.0, "");
    CHECK(crowd_instance_set_speed(s->world, i, 1.0f, NULL) == CROWD_OK);
    EXPECT(s, 20.5, "a"); /* 0.75 -> 1.25 */
}

/* One-shot clips: their markers once, then the end, then nothing. */
static void test_once(events_scene *s) {
    add(s, s->evented, (crowd_instance_desc){.clip = s->drop});
    EXPECT(s, 0.25, "d");
    EXPECT(s, 1.0, "END");
    EXPECT(s, 2.0, "");
    uint32_t count = 0;
    const crowd_event *e = crowd_world_events(s->world, &count);
    CHECK(count == 0 && e == NULL);
    /* A looping clip played once (CROWD_LOOP_OFF) ends too. */
    crowd_instance i =
        add(s, s->evented, (crowd_instance_desc){.clip = s->bend, .loop = CROWD_LOOP_OFF});
    EXPECT(s, 4.0, "a b END");
    e = crowd_world_events(s->world, &count);
    CHECK(count == 3 && e[2].time_s == 1.0f && e[2].instance.id == i.id);
    /* Played again, it starts over. */
    CHECK(crowd_instance_play(s->world, i, s->drop, 0.0f, NULL) == CROWD_OK);
    EXPECT(s, 5.0, "d END");
}

/* Crossfades: both clips fire while the fade runs, the one left up to the
 * fade's end. */
static void test_crossfade(events_scene *s) {
    crowd_instance i = add(s, s->evented, (crowd_instance_desc){.clip = s->bend});
    EXPECT(s, 0.5, "a");
    CHECK(crowd_instance_play(s->world, i, s->slide, 0.5f, NULL) == CROWD_OK);
    /* slide 0 -> 0.5 (its start included); bend 0.5 -> 1.0, the fade's end */
    EXPECT(s, 1.0, "s ~b");
    EXPECT(s, 2.0, "");  /* bend's 0.25 at 1.25 is after the fade */
    EXPECT(s, 3.0, "s"); /* slide 1.5 -> 2.5 */
    /* A fade that several updates cross. */
    crowd_instance j = add(s, s->evented, (crowd_instance_desc){.clip = s->bend});
    CHECK(crowd_instance_play(s->world, j, s->slide, 1.0f, NULL) == CROWD_OK);
    EXPECT(s, 3.5, "s ~a"); /* slide 0 -> 0.5, bend 0 -> 0.5 */
    EXPECT(s, 3.875, "~b"); /* bend 0.5 -> 0.875 */
    EXPECT(s, 4.5, "");     /* bend 0.875 -> its fade's end at 4.0 */
    EXPECT(s, 5.5, "s s");  /* i: slide 2.5 -> 4.5; j: 1.5 -> 2.5 */
    /* A cut ends the fade at once. */
    crowd_instance k = add(s, s->evented, (crowd_instance_desc){.clip = s->bend});
    CHECK(crowd_instance_play(s->world, k, s->slide, 1.0f, NULL) == CROWD_OK);
    CHECK(crowd_instance_play(s->world, k, s->drop, 0.0f, NULL) == CROWD_OK);
    crowd_instance tags[3] = {i, j, k};
    EXPECT_TAGGED(s, 6.0, "2:d 2:END", tags, 3);
    uint32_t count = 0;
    const crowd_event *e = crowd_world_events(s->world, &count);
    CHECK(count == 2 && !e[0].fading_out);
}

/* Only the instances whose clips can fire are read: 10,000 of a bake
 * without events cost nothing; removal keeps the index right. */
static void test_index(events_scene *s) {
    crowd_instance plain[16];
    for (uint32_t n = 0; n < 10000; n++) {
        crowd_instance p = add(s, s->plain, (crowd_instance_desc){.clip = s->bend});
        if (n < 16) {
            plain[n] = p;
        }
    }
    crowd_world_stats stats;
    EXPECT(s, 0.5, "");
    crowd_world_get_stats(s->world, &stats);
    CHECK_MSG(stats.event_instances == 0 && stats.events == 0, "%u instances read",
              stats.event_instances);
    crowd_instance tags[3];
    for (int k = 0; k < 3; k++) {
        tags[k] = add(s, s->evented, (crowd_instance_desc){.clip = s->bend});
    }
    EXPECT_TAGGED(s, 0.75, "2:a 1:a 0:a", tags, 3);
    crowd_world_get_stats(s->world, &stats);
    CHECK(stats.event_instances == 3 && stats.events == 3);
    /* Removing the first moves the last into its slot and its list entry. */
    CHECK(crowd_world_remove_instance(s->world, tags[0], NULL) == CROWD_OK);
    CHECK(crowd_world_remove_instance(s->world, plain[3], NULL) == CROWD_OK);
    EXPECT_TAGGED(s, 1.5, "1:b 2:b", tags, 3);
    CHECK(crowd_world_remove_instance(s->world, tags[1], NULL) == CROWD_OK);
    EXPECT_TAGGED(s, 1.75, "2:a", tags, 3);
    crowd_world_get_stats(s->world, &stats);
    CHECK(stats.event_instances == 1);
    crowd_world_clear_instances(s->world);
    EXPECT(s, 2.0, "");
    crowd_world_get_stats(s->world, &stats);
    CHECK(stats.event_instances == 0);
}

/* Between updates: a change takes what the old state passed up to the
 * clock (moved by set_time) and the next update reports it first; a clock
 * set back fires backwards; removing the archetype drops its events. */
static void test_between_updates(events_scene *s) {
    crowd_instance i = add(s, s->evented, (crowd_instance_desc){.clip = s->bend});
    crowd_world_set_time(s->world, 0.5);
    CHECK(crowd_instance_set_speed(s->world, i, 1.0f, NULL) == CROWD_OK);
    EXPECT(s, 0.875, "a b");
    EXPECT(s, 0.0, "b a"); /* 0.875 -> 0 backwards */
    EXPECT(s, 0.5, "a");
    uint32_t count = 0;
    crowd_world_events(s->world, &count);
    CHECK(count == 1);
    CHECK(crowd_world_remove_archetype(s->world, s->evented, NULL) == CROWD_OK);
    CHECK(crowd_world_events(s->world, &count) == NULL && count == 0);
    CHECK(crowd_world_events(NULL, &count) == NULL && count == 0);
}

/* A bake whose events break the rules is refused by the world. */
static void test_bad_bake(const crowd_bake *evented) {
    crowd_bake copy = *evented;
    crowd_bake_event events[4];
    memcpy(events, evented->events, sizeof events);
    copy.events = events;
    events[0].time_s = 5.0f; /* past bend's 1 s */
    crowd_world *world = NULL;
    crowd_error error;
    REQUIRE_VOID(crowd_world_create(&(crowd_world_desc){.tier = gpu_test_tier}, &world, &error) ==
                 CROWD_OK);
    crowd_archetype a;
    crowd_archetype_desc desc = {.bake = &copy, .mode = CROWD_GPU_MODE_BAT};
    CHECK(crowd_world_add_archetype(world, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(error.reason, "events") != NULL, "%s", error.reason);
    memcpy(events, evented->events, sizeof events);
    events[1].name = (char *)"";
    CHECK(crowd_world_add_archetype(world, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_world_archetype_count(world) == 0);
    crowd_world_destroy(world);
}

int test_gpu_events(void) {
    crowd_asset *bar = fixture_bar_create();
    crowd_bake *evented = bar != NULL ? bake_with_events(bar, true) : NULL;
    crowd_bake *plain = bar != NULL ? bake_with_events(bar, false) : NULL;
    if (evented == NULL || plain == NULL) {
        CHECK(false);
    } else {
        CHECK(evented->event_count == 4 && strcmp(evented->events[0].name, "a") == 0);
        void (*tests[])(events_scene *) = {test_loops, test_speed,          test_backwards,
                                           test_pause, test_once,           test_crossfade,
                                           test_index, test_between_updates};
        for (size_t t = 0; t < sizeof tests / sizeof tests[0]; t++) {
            events_scene scene;
            if (!scene_create(&scene, evented, plain)) {
                CHECK(false);
                continue;
            }
            tests[t](&scene);
            crowd_world_destroy(scene.world);
        }
        test_bad_bake(evented);
    }
    crowd_bake_destroy(plain);
    crowd_bake_destroy(evented);
    crowd_asset_destroy(bar);
    return check_finish();
}
