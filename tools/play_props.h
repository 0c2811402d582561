/* play_props.h - `crowd play --prop SOCKET=FILE`: props carried at run time
 * (crowd_world_add_prop). Each prop file is loaded once and becomes a prop
 * type of every archetype that has its socket; the crowd is dressed by
 * index, so that neighbours carry different props and some carry none:
 * instance i carries prop type i % (props + 1) (the last choice: nothing),
 * plus, where a second prop is given, every third one also the next. The P
 * key takes every prop off and puts it back (props_set_on).
 *
 * Ownership: the props own the loaded assets; props_release after the
 * world (the world copied what it needs).
 */
#ifndef CROWD_TOOLS_PLAY_PROPS_H
#define CROWD_TOOLS_PLAY_PROPS_H

#include <stdbool.h>
#include <stdint.h>

#include "cast.h"
#include "crowd/gpu.h"

#define PROPS_MAX 8u

typedef struct props {
    const char *specs[PROPS_MAX]; /* SOCKET=FILE, checked */
    uint32_t count;
    crowd_asset *assets[PROPS_MAX];
    /* Per archetype of the cast, the prop type of each spec, 0 where the
     * archetype lacks the socket. */
    crowd_prop types[CAST_MAX_CHARACTERS][PROPS_MAX];
    bool on;
} props;

/* One --prop value: false (usage error printed) when malformed or one too many. */
bool props_option(props *p, const char *value);
/* Loads every prop file (crowd_model_load): a file that is not a model, or
 * whose model has no mesh, is an error naming it. */
crowd_result props_load(props *p, const crowd_logger *logger, crowd_error *error);
/* Makes the prop types of every archetype of the cast that has the socket;
 * a socket that no archetype has is an error. */
crowd_result props_add(props *p, crowd_world *world, const cast *c, crowd_error *error);
/* Dresses instances [first, count) of the crowd (instance i is of archetype
 * i % cast count, as scene_populate lays it out), if props are on. */
crowd_result props_dress(const props *p, crowd_world *world, const cast *c,
                         const crowd_instance *ids, uint32_t first, uint32_t count,
                         crowd_error *error);
/* Every instance's props on or off. */
crowd_result props_set_on(props *p, crowd_world *world, const cast *c, const crowd_instance *ids,
                          uint32_t count, bool on, crowd_error *error);
void props_release(props *p);

#endif
