/* A small parallel-for for the baker and the error report: frames are
 * independent, so workers take the next frame from a shared counter (frames
 * differ in cost only a little, but machines are shared and threads get
 * descheduled, so dynamic hand-out beats fixed ranges). */
#define _POSIX_C_SOURCE 200809L

#include "bake/bake_build.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define BAKE_MAX_THREADS 16u

typedef struct parallel_state {
    atomic_uint next_item;
    atomic_uint items_finished;
    uint32_t item_count;
    bake_item_fn fn;
    void *context;
} parallel_state;

typedef struct worker_arg {
    parallel_state *state;
    uint32_t worker;
} worker_arg;

static void run_items(parallel_state *state, uint32_t worker, bake_done_fn done) {
    for (;;) {
        unsigned item = atomic_fetch_add(&state->next_item, 1u);
        if (item >= state->item_count) {
            return;
        }
        state->fn(state->context, worker, (uint32_t)item);
        unsigned finished = atomic_fetch_add(&state->items_finished, 1u) + 1u;
        if (done != NULL) {
            done(state->context, (uint32_t)finished);
        }
    }
}

static void *worker_main(void *arg) {
    worker_arg *w = arg;
    run_items(w->state, w->worker, NULL);
    return NULL;
}

uint32_t crowd__bake_thread_count(uint32_t requested, uint32_t item_count) {
    uint32_t count = requested;
    if (count == 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        count = online > 0 ? (uint32_t)online : 1u;
    }
    if (count > BAKE_MAX_THREADS) {
        count = BAKE_MAX_THREADS;
    }
    if (count > item_count) {
        count = item_count;
    }
    return count == 0 ? 1u : count;
}

void crowd__bake_parallel_for(uint32_t item_count, uint32_t thread_count, bake_item_fn fn,
                              bake_done_fn done, void *context) {
    parallel_state state = {.item_count = item_count, .fn = fn, .context = context};
    atomic_init(&state.next_item, 0u);
    atomic_init(&state.items_finished, 0u);
    if (thread_count > BAKE_MAX_THREADS) {
        thread_count = BAKE_MAX_THREADS;
    }
    pthread_t threads[BAKE_MAX_THREADS];
    worker_arg args[BAKE_MAX_THREADS];
    uint32_t started = 0;
    for (uint32_t t = 1; t < thread_count; t++) {
        args[started] = (worker_arg){.state = &state, .worker = t};
        if (pthread_create(&threads[started], NULL, worker_main, &args[started]) != 0) {
            break;
        }
        started++;
    }
    run_items(&state, 0, done);
    for (uint32_t t = 0; t < started; t++) {
        pthread_join(threads[t], NULL);
    }
}
