/* Events over the clip-time rule: crowd_anim_play_position and
 * crowd_anim_markers_passed against positions and firings worked out by
 * hand. Every time is a short binary fraction, so the float arithmetic is
 * exact and the expected hits are those of real numbers. */
#include "check.h"
#include "crowd/anim.h"

/* The hits of one interval as "marker x count" pairs, -1 for the end. */
typedef struct expected_hit {
    int marker;
    uint32_t count;
} expected_hit;

static void check_hits(const char *what, const crowd_clip_markers *m, float from_t, float to_t,
                       bool fresh, const expected_hit *expected, uint32_t expected_count) {
    crowd_marker_hit hits[16];
    uint32_t n = crowd_anim_markers_passed(m, from_t, to_t, fresh, hits, 16);
    CHECK_MSG(n == expected_count, "%s: %u hits, expected %u", what, n, expected_count);
    for (uint32_t i = 0; i < n && i < expected_count; i++) {
        uint32_t marker = expected[i].marker < 0 ? CROWD_MARKER_END : (uint32_t)expected[i].marker;
        CHECK_MSG(hits[i].marker == marker && hits[i].count == expected[i].count,
                  "%s: hit %u is marker %d x %u, expected %d x %u", what, i, (int)hits[i].marker,
                  hits[i].count, expected[i].marker, expected[i].count);
    }
}

#define HITS(...) ((const expected_hit[]){__VA_ARGS__})
#define COUNT(...) (sizeof(HITS(__VA_ARGS__)) / sizeof(expected_hit))
#define EXPECT(what, m, from, to, fresh, ...)                                                      \
    check_hits(what, m, from, to, fresh, HITS(__VA_ARGS__), (uint32_t)COUNT(__VA_ARGS__))
#define EXPECT_NONE(what, m, from, to, fresh) check_hits(what, m, from, to, fresh, NULL, 0)

static void test_positions(void) {
    crowd_play_position p = crowd_anim_play_position(2.25f, 1.0f, true);
    CHECK(p.loop == 2.0 && p.time_s == 0.25f);
    p = crowd_anim_play_position(-0.25f, 1.0f, true);
    CHECK(p.loop == -1.0 && p.time_s == 0.75f);
    /* -2^-30 + 1 rounds to 1, the seam: loop 0's start, as play_time says. */
    p = crowd_anim_play_position(-0x1p-30f, 1.0f, true);
    CHECK(p.loop == 0.0 && p.time_s == 0.0f);
    CHECK(crowd_anim_play_time(-0x1p-30f, 0.0f, 0.0f, 1.0f, 1.0f, true) == 0.0f);
    p = crowd_anim_play_position(3.5f, 1.0f, false);
    CHECK(p.loop == 0.0 && p.time_s == 1.0f);
    p = crowd_anim_play_position(NAN, 1.0f, true);
    CHECK(p.loop == 0.0 && p.time_s == 0.0f);
    p = crowd_anim_play_position(5.0f, 0.0f, true);
    CHECK(p.loop == 0.0 && p.time_s == 0.0f);
    /* The two steps are play_time: (2.5 - 0.5) * 1.5 + 0.25 = 3.25 -> 0.25 of loop 3. */
    float t = crowd_anim_play_unwrapped(2.5f, 0.5f, 0.25f, 1.5f);
    CHECK(t == 3.25f);
    CHECK(crowd_anim_play_time(2.5f, 0.5f, 0.25f, 1.5f, 1.0f, true) ==
          crowd_anim_play_position(t, 1.0f, true).time_s);
}

/* A loop of 1 s with markers at 0.25 and 0.75. */
static void test_loop(void) {
    const float times[] = {0.25f, 0.75f};
    crowd_clip_markers m = {times, 2, 1.0f, true};
    EXPECT("first half", &m, 0.0f, 0.5f, false, {0, 1});
    EXPECT("bounds: (0.25, 0.75]", &m, 0.25f, 0.75f, false, {1, 1});
    EXPECT("fresh start at a marker", &m, 0.25f, 0.5f, true, {0, 1});
    EXPECT_NONE("not fresh: leaving a marker", &m, 0.25f, 0.5f, false);
    EXPECT("over the seam", &m, 0.5f, 1.25f, false, {1, 1}, {0, 1});
    /* 0.5 -> 3.25: 0.75 at 0.75, 1.75, 2.75; 0.25 at 1.25, 2.25, 3.25. */
    EXPECT("three loops", &m, 0.5f, 3.25f, false, {1, 1}, {0, 2}, {1, 2}, {0, 1});
    EXPECT("from below zero", &m, -0.5f, 0.5f, false, {1, 1}, {0, 1});
    EXPECT_NONE("paused", &m, 0.3f, 0.3f, false);
    EXPECT_NONE("paused, fresh", &m, 0.25f, 0.25f, true);
    /* Backwards: [to, from). 0.5 -> -0.5 passes 0.25, then 0.75 of loop -1. */
    EXPECT("backwards over the seam", &m, 0.5f, -0.5f, false, {0, 1}, {1, 1});
    EXPECT("backwards bounds: [0.25, 0.75)", &m, 0.75f, 0.25f, false, {0, 1});
    EXPECT("backwards fresh", &m, 0.75f, 0.5f, true, {1, 1});
    EXPECT("backwards three loops", &m, 3.5f, 0.5f, false, {0, 1}, {1, 2}, {0, 2}, {1, 1});
    /* A long update: 0.5 -> 2^20 + 0.25 folds 2^20 - 1 whole loops. */
    EXPECT("a million loops", &m, 0.5f, 1048576.25f, false, {1, 1}, {0, 1048575}, {1, 1048575},
           {0, 1});
}

static void test_loop_edges(void) {
    const float at_zero[] = {0.0f};
    crowd_clip_markers m = {at_zero, 1, 1.0f, true};
    EXPECT("a marker at 0 fires at the start", &m, 0.0f, 0.5f, true, {0, 1});
    EXPECT_NONE("not before the seam", &m, 0.5f, 0.75f, false);
    EXPECT("at the seam", &m, 0.5f, 1.0f, false, {0, 1});
    EXPECT_NONE("not again after it", &m, 1.0f, 1.5f, false);
    const float at_end[] = {1.0f};
    m.times_s = at_end;
    EXPECT("a marker at d fires once per loop", &m, 0.5f, 1.0f, false, {0, 1});
    EXPECT_NONE("not again from the seam", &m, 1.0f, 1.5f, false);
    const float same[] = {0.5f, 0.5f};
    m.times_s = same;
    m.count = 2;
    EXPECT("equal times in order", &m, 0.0f, 0.5f, false, {0, 1}, {1, 1});
    EXPECT("equal times backwards", &m, 1.0f, 0.25f, false, {1, 1}, {0, 1});
}

/* A one-shot clip of 1 s with a marker at 0.5: clamped, with an end. */
static void test_once(void) {
    const float times[] = {0.5f};
    crowd_clip_markers m = {times, 1, 1.0f, false};
    EXPECT("to the end", &m, 0.0f, 2.0f, false, {0, 1}, {-1, 1});
    EXPECT_NONE("held at the end", &m, 1.0f, 3.0f, false);
    EXPECT("the end alone", &m, 0.75f, 1.0f, false, {-1, 1});
    EXPECT("up to the marker", &m, 0.25f, 0.5f, false, {0, 1});
    EXPECT("backwards to the start", &m, 1.0f, -1.0f, false, {0, 1}, {-1, 1});
    EXPECT_NONE("held at the start", &m, -1.0f, -2.0f, false);
    EXPECT("fresh at the marker", &m, 0.5f, 0.75f, true, {0, 1});
    crowd_clip_markers none = {NULL, 0, 1.0f, false};
    EXPECT("an end without markers", &none, 0.0f, 1.5f, false, {-1, 1});
}

static void test_bad_input(void) {
    const float times[] = {0.25f, 0.75f};
    crowd_clip_markers m = {times, 2, 1.0f, true};
    CHECK(crowd_anim_markers_valid(&m));
    CHECK(!crowd_anim_markers_valid(NULL));
    const float unsorted[] = {0.75f, 0.25f};
    crowd_clip_markers bad = {unsorted, 2, 1.0f, true};
    CHECK(!crowd_anim_markers_valid(&bad));
    const float outside[] = {0.25f, 1.5f};
    bad.times_s = outside;
    CHECK(!crowd_anim_markers_valid(&bad));
    const float nan[] = {NAN};
    bad = (crowd_clip_markers){nan, 1, 1.0f, true};
    CHECK(!crowd_anim_markers_valid(&bad));
    bad = (crowd_clip_markers){NULL, 1, 1.0f, true};
    CHECK(!crowd_anim_markers_valid(&bad));
    CHECK(crowd_anim_markers_passed(&bad, 0.0f, 1.0f, false, NULL, 0) == 0);
    bad = (crowd_clip_markers){times, 2, 0.0f, true};
    CHECK(!crowd_anim_markers_valid(&bad));
    CHECK(crowd_anim_markers_passed(&bad, 0.0f, 1.0f, false, NULL, 0) == 0);
    CHECK(crowd_anim_markers_passed(NULL, 0.0f, 1.0f, false, NULL, 0) == 0);
    /* Short of room: the count says how many, only capacity are written. */
    crowd_marker_hit one[2] = {{7, 7}, {7, 7}};
    CHECK(crowd_anim_markers_passed(&m, 0.5f, 3.25f, false, one, 1) == 4);
    CHECK(one[0].marker == 1 && one[0].count == 1 && one[1].marker == 7);
    CHECK(crowd_anim_markers_passed(&m, 0.5f, 3.25f, false, NULL, 5) == 4);
    CHECK(CROWD_MARKER_HITS_MAX(2) == 7);
}

int main(void) {
    check_enter_temp_dir("test_anim_events");
    test_positions();
    test_loop();
    test_loop_edges();
    test_once();
    test_bad_input();
    return check_finish();
}
