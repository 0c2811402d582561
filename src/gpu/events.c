/* Events (crowd/gpu.h, "Events"): which markers of the bake each instance's
 * clocks passed since they were last read, from the records' clocks on the
 * CPU by the clip-time rule (crowd_anim_markers_passed), never from the GPU.
 *
 * The index: every clip's markers are one sorted range of `times`, and each
 * archetype lists the slots whose clip (or fading-out clip) can fire, kept
 * on add, remove, play and update, so an update reads only those: its cost
 * is O(listed slots + events), not O(instances). A time-ordered queue of
 * next firings would skip even the listed slots that fire nothing this
 * frame, but every speed change, clock set back and fade would have to
 * re-key it; the list needs no upkeep between state changes. */
#include <math.h>
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

static crowd_result oom(crowd_error *error) {
    return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
}

crowd_result crowd__gpu_events_init(gpu_archetype *r, crowd_error *error) {
    const crowd_bake *bake = r->bake;
    const crowd_allocator *allocator = &r->world->allocator;
    uint32_t total = bake != NULL ? bake->event_count : 0, most = 0;
    if (total > 0) {
        r->events.times = crowd__mem_alloc(allocator, total * sizeof *r->events.times);
        r->events.names = crowd__mem_alloc(allocator, total * sizeof *r->events.names);
        if (r->events.times == NULL || r->events.names == NULL) {
            return oom(error);
        }
    }
    uint32_t next = 0;
    for (uint32_t c = 0; c < r->clip_count && total > 0; c++) {
        uint32_t count = 0;
        const crowd_bake_event *events = crowd_bake_clip_events(bake, c, &count);
        gpu_clip *clip = &r->clips[c];
        clip->marker_first = next;
        clip->marker_count = count;
        for (uint32_t e = 0; e < count; e++) {
            r->events.times[next + e] = events[e].time_s;
            r->events.names[next + e] = events[e].name != NULL ? events[e].name : "";
        }
        next += count;
        most = count > most ? count : most;
        crowd_clip_markers markers = {r->events.times + clip->marker_first, count, clip->duration_s,
                                      clip->loop};
        bool named = true;
        for (uint32_t e = 0; e < count; e++) {
            named = named && r->events.names[clip->marker_first + e][0] != '\0';
        }
        /* A bake is untrusted here as everywhere in gpu: a marker outside
         * its clip, out of order or unnamed would fire wrongly. A clip of
         * duration 0 fires nothing, so its markers (at 0) are left alone. */
        if (count > 0 &&
            (!named || (clip->duration_s != 0.0f && !crowd_anim_markers_valid(&markers)))) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                                   "clip %u: events out of order, unnamed or outside its %g s",
                                   (unsigned)c, (double)clip->duration_s);
        }
    }
    if (next != total) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                               "%u events name a clip the bake does not have",
                               (unsigned)(total - next));
    }
    r->events.total = total;
    r->events.hit_capacity = CROWD_MARKER_HITS_MAX(most);
    r->events.hits = crowd__mem_alloc(allocator, r->events.hit_capacity * sizeof *r->events.hits);
    return r->events.hits != NULL ? CROWD_OK : oom(error);
}

void crowd__gpu_events_release(gpu_archetype *r) {
    const crowd_allocator *allocator = &r->world->allocator;
    crowd__mem_free(allocator, r->events.times);
    crowd__mem_free(allocator, r->events.names);
    crowd__mem_free(allocator, r->events.hits);
    crowd__mem_free(allocator, r->events.clocks);
    crowd__mem_free(allocator, r->events.listed);
    memset(&r->events, 0, sizeof r->events);
}

crowd_result crowd__gpu_events_reserve(gpu_archetype *r, uint32_t capacity, crowd_error *error) {
    const crowd_allocator *allocator = &r->world->allocator;
    uint32_t had = r->instances.capacity;
    void *p = crowd__mem_grow(allocator, r->events.clocks, had * sizeof *r->events.clocks,
                              capacity * sizeof *r->events.clocks);
    if (p == NULL) {
        return oom(error);
    }
    r->events.clocks = p;
    p = crowd__mem_grow(allocator, r->events.listed, had * sizeof *r->events.listed,
                        capacity * sizeof *r->events.listed);
    if (p == NULL) {
        return oom(error);
    }
    r->events.listed = p;
    return CROWD_OK;
}

static const gpu_clip *clip_of(const gpu_archetype *r, uint32_t clip) {
    return clip < r->clip_count ? &r->clips[clip] : NULL;
}

/* Whether playing `clip` in loop_mode can fire: it has markers, or an end. */
static bool clip_fires(const gpu_archetype *r, uint32_t clip, uint32_t loop_mode) {
    const gpu_clip *c = clip_of(r, clip);
    return c != NULL && c->duration_s > 0.0f &&
           (c->marker_count > 0 || !crowd__gpu_clip_loops(c, loop_mode));
}

static uint32_t from_loop_mode(const gpu_instance_state *rec) {
    return (rec->flags >> GPU_FLAG_FROM_LOOP_SHIFT) & GPU_FLAG_LOOP_MASK;
}

/* A slot showing the caller's pose (crowd_instance_set_pose) plays no
 * clip, so it fires nothing and stays out of the index. */
static bool slot_fires(const gpu_archetype *r, uint32_t slot) {
    const gpu_instance_state *rec = &r->instances.states[slot];
    const gpu_event_clock *clock = &r->events.clocks[slot];
    if (crowd__gpu_poses_models(r, slot) != NULL) {
        return false;
    }
    return clip_fires(r, rec->clip, rec->flags & GPU_FLAG_LOOP_MASK) ||
           ((clock->flags & GPU_EVENTS_FROM_LIVE) &&
            clip_fires(r, rec->from_clip, from_loop_mode(rec)));
}

static void unlist(gpu_archetype *r, uint32_t slot) {
    uint32_t at = r->events.clocks[slot].listed;
    if (at == UINT32_MAX) {
        return;
    }
    uint32_t moved = r->events.listed[--r->events.listed_count];
    r->events.listed[at] = moved;
    r->events.clocks[moved].listed = at;
    r->events.clocks[slot].listed = UINT32_MAX;
}

/* Puts the slot in the index or takes it out, as its clips say. */
static void relist(gpu_archetype *r, uint32_t slot) {
    bool listed = r->events.clocks[slot].listed != UINT32_MAX;
    if (slot_fires(r, slot) && !listed) {
        r->events.clocks[slot].listed = r->events.listed_count;
        r->events.listed[r->events.listed_count++] = slot;
    } else if (!slot_fires(r, slot) && listed) {
        unlist(r, slot);
    }
}

static crowd_result reserve_list(const crowd_world *w, gpu_event_list *list, uint32_t more,
                                 crowd_error *error) {
    if (list->capacity - list->count >= more) {
        return CROWD_OK;
    }
    uint64_t wanted = (uint64_t)list->count + more;
    uint64_t capacity = list->capacity < 64 ? 64 : 2 * (uint64_t)list->capacity;
    capacity = capacity < wanted ? wanted : capacity;
    if (capacity > UINT32_MAX / 2) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "too many events");
    }
    void *p = crowd__mem_grow(&w->allocator, list->items, list->capacity * sizeof *list->items,
                              (size_t)capacity * sizeof *list->items);
    if (p == NULL) {
        return oom(error);
    }
    list->items = p;
    list->capacity = (uint32_t)capacity;
    return CROWD_OK;
}

/* Appends the events of `clip` between play times from_t and to_t (room
 * for them reserved). */
static void fire(gpu_archetype *r, uint32_t slot, uint32_t clip, uint32_t loop_mode, float from_t,
                 float to_t, bool fresh, bool fading_out, gpu_event_list *list) {
    const gpu_clip *c = clip_of(r, clip);
    if (c == NULL || !clip_fires(r, clip, loop_mode)) {
        return;
    }
    bool loop = crowd__gpu_clip_loops(c, loop_mode);
    const float *times = r->events.times != NULL ? r->events.times + c->marker_first : NULL;
    crowd_clip_markers markers = {times, c->marker_count, c->duration_s, loop};
    uint32_t count = crowd_anim_markers_passed(&markers, from_t, to_t, fresh, r->events.hits,
                                               r->events.hit_capacity);
    const gpu_instance_state *rec = &r->instances.states[slot];
    for (uint32_t h = 0; h < count && h < r->events.hit_capacity; h++) {
        const crowd_marker_hit *hit = &r->events.hits[h];
        bool end = hit->marker == CROWD_MARKER_END;
        crowd_event *event = &list->items[list->count++];
        event->instance.id = rec->handle;
        event->archetype.id = r->handle;
        event->clip = clip;
        event->kind = end ? CROWD_EVENT_END : CROWD_EVENT_MARKER;
        event->name = end ? "" : r->events.names[c->marker_first + hit->marker];
        event->time_s =
            end ? crowd_anim_play_position(to_t, c->duration_s, false).time_s : times[hit->marker];
        event->count = hit->count;
        event->fading_out = fading_out;
    }
}

/* Reads the slot's clocks at clock_s into `list`: its clip's events, then
 * those of the clip its fade leaves, up to the fade's end. */
static crowd_result read_slot(gpu_archetype *r, uint32_t slot, float clock_s, gpu_event_list *list,
                              crowd_error *error) {
    const gpu_instance_state *rec = &r->instances.states[slot];
    gpu_event_clock *clock = &r->events.clocks[slot];
    bool from_live = (clock->flags & GPU_EVENTS_FROM_LIVE) != 0;
    crowd_result result = reserve_list(r->world, list, 2 * r->events.hit_capacity, error);
    if (result != CROWD_OK) {
        return result;
    }
    float to_t = crowd_anim_play_unwrapped(clock_s, rec->start_s, rec->offset_s, rec->speed);
    fire(r, slot, rec->clip, rec->flags & GPU_FLAG_LOOP_MASK, clock->t, to_t,
         (clock->flags & GPU_EVENTS_FRESH) != 0, false, list);
    if (to_t != clock->t) {
        clock->flags &= ~GPU_EVENTS_FRESH;
    }
    clock->t = to_t;
    if (!from_live) {
        return CROWD_OK;
    }
    /* The fade's weight reaches 1 when clock - start >= duration
     * (crowd__gpu_fade_weight): the clip faded out stops there. */
    bool over = !(clock_s - rec->fade_start_s < rec->fade_duration_s);
    float end_s = over ? rec->fade_start_s + rec->fade_duration_s : clock_s;
    float from_to =
        crowd_anim_play_unwrapped(end_s, rec->from_start_s, rec->from_offset_s, rec->from_speed);
    fire(r, slot, rec->from_clip, from_loop_mode(rec), clock->from_t, from_to,
         (clock->flags & GPU_EVENTS_FROM_FRESH) != 0, true, list);
    if (from_to != clock->from_t) {
        clock->flags &= ~GPU_EVENTS_FROM_FRESH;
    }
    clock->from_t = from_to;
    if (over) {
        clock->flags &= ~(GPU_EVENTS_FROM_LIVE | GPU_EVENTS_FROM_FRESH);
    }
    return CROWD_OK;
}

crowd_result crowd__gpu_events_settle(gpu_archetype *r, uint32_t slot, crowd_error *error) {
    if (r->events.clocks[slot].listed == UINT32_MAX) {
        return CROWD_OK;
    }
    return read_slot(r, slot, (float)r->world->clock_s, &r->world->pending_events, error);
}

void crowd__gpu_events_start(gpu_archetype *r, uint32_t slot, gpu_event_start how) {
    const gpu_instance_state *rec = &r->instances.states[slot];
    gpu_event_clock *clock = &r->events.clocks[slot];
    float now = (float)r->world->clock_s;
    if (how == GPU_EVENT_START_CLIP) {
        clock->flags = GPU_EVENTS_FRESH;
    } else if (how == GPU_EVENT_START_FADE) {
        /* The clip being left goes on from where its clock is. */
        clock->from_t = clock->t;
        clock->flags = GPU_EVENTS_FRESH | GPU_EVENTS_FROM_LIVE |
                       (clock->flags & GPU_EVENTS_FRESH ? GPU_EVENTS_FROM_FRESH : 0u);
    } else if (clock->flags & GPU_EVENTS_FROM_LIVE) {
        clock->from_t =
            crowd_anim_play_unwrapped(now, rec->from_start_s, rec->from_offset_s, rec->from_speed);
    }
    clock->t = crowd_anim_play_unwrapped(now, rec->start_s, rec->offset_s, rec->speed);
    relist(r, slot);
}

void crowd__gpu_events_pose(gpu_archetype *r, uint32_t slot) {
    /* When the pose is cleared the clip goes on from the clock then
     * (GPU_EVENT_START_CONTINUE): only the flags could carry anything over,
     * a fade's source or a start that never fired. */
    r->events.clocks[slot].flags = 0;
    relist(r, slot);
}

void crowd__gpu_events_remove(gpu_archetype *r, uint32_t slot, uint32_t last) {
    unlist(r, slot);
    if (slot != last) {
        r->events.clocks[slot] = r->events.clocks[last];
        uint32_t at = r->events.clocks[slot].listed;
        if (at != UINT32_MAX) {
            r->events.listed[at] = slot;
        }
    }
}

void crowd__gpu_events_clear(gpu_archetype *r) {
    r->events.listed_count = 0;
}

crowd_result crowd__gpu_events_update(crowd_world *w, float now_s, crowd_error *error) {
    /* What state changes took since the last update comes first. */
    gpu_event_list reported = w->pending_events;
    w->pending_events = w->events;
    w->pending_events.count = 0;
    w->events = reported;
    crowd_result result = CROWD_OK;
    for (uint32_t i = 0; i < CROWD_WORLD_MAX_ARCHETYPES && result == CROWD_OK; i++) {
        gpu_archetype *r = w->archetypes[i];
        if (r == NULL) {
            continue;
        }
        /* Backwards: relist may swap the last entry into this one, which
         * has been read already. */
        for (uint32_t k = r->events.listed_count; k-- > 0 && result == CROWD_OK;) {
            uint32_t slot = r->events.listed[k];
            result = read_slot(r, slot, now_s, &w->events, error);
            relist(r, slot);
            w->stats.event_instances++;
        }
    }
    w->stats.events = w->events.count;
    return result;
}

void crowd__gpu_events_forget(crowd_world *w, const gpu_archetype *r) {
    gpu_event_list *lists[2] = {&w->events, &w->pending_events};
    for (int l = 0; l < 2; l++) {
        uint32_t kept = 0;
        for (uint32_t i = 0; i < lists[l]->count; i++) {
            if (lists[l]->items[i].archetype.id != r->handle) {
                lists[l]->items[kept++] = lists[l]->items[i];
            }
        }
        lists[l]->count = kept;
    }
}

void crowd__gpu_events_free_lists(crowd_world *w) {
    crowd__mem_free(&w->allocator, w->events.items);
    crowd__mem_free(&w->allocator, w->pending_events.items);
    memset(&w->events, 0, sizeof w->events);
    memset(&w->pending_events, 0, sizeof w->pending_events);
}

const crowd_event *crowd_world_events(const crowd_world *w, uint32_t *out_count) {
    uint32_t count = w != NULL ? w->events.count : 0;
    if (out_count != NULL) {
        *out_count = count;
    }
    return count > 0 ? w->events.items : NULL;
}
