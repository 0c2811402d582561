/* Many characters at once: a small pthread pool that skins a batch of jobs.
 *
 * Work items are (job, chunk) pairs handed out with one atomic counter, so
 * threads that wake late or run slower simply take fewer items. Jobs are
 * split into chunks only when there are too few of them to keep every
 * thread busy (a batch of one big character), because splitting costs a
 * little per item and a crowd of hundreds already balances on whole jobs.
 * Workers sleep on a condition variable between batches. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "skin/prepared.h"

#define MAX_THREADS 256
/* Items per thread a batch aims for at least, for balance. */
#define ITEMS_PER_THREAD 4

struct crowd_skin_pool {
    skin_kernel kernel;
    uint32_t thread_count;
    pthread_t *workers; /* thread_count - 1 */
    uint32_t workers_started;
    pthread_mutex_t mutex;
    pthread_cond_t wake; /* a batch started, or quit */
    pthread_cond_t idle; /* the last worker left the batch */
    uint64_t generation; /* batches started so far */
    uint32_t busy;       /* workers still inside the current batch */
    bool quit;
    /* The current batch, written under the mutex before `generation` moves. */
    const crowd_skin_job *jobs;
    uint32_t chunks_per_job;
    uint32_t item_count;
    atomic_uint next_item;
};

static void run_item(skin_kernel kernel, const crowd_skin_job *jobs, uint32_t chunks_per_job,
                     uint32_t item) {
    const crowd_skin_job *job = &jobs[item / chunks_per_job];
    uint32_t chunk = item % chunks_per_job;
    uint64_t blocks = job->prepared->block_count;
    uint32_t begin = (uint32_t)(blocks * chunk / chunks_per_job);
    uint32_t end = (uint32_t)(blocks * (chunk + 1) / chunks_per_job);
    crowd__skin_run_blocks(job->prepared, kernel, begin, end, job->skin_matrices,
                           job->out_positions, job->out_normals);
}

static void work(crowd_skin_pool *pool) {
    for (;;) {
        uint32_t item = atomic_fetch_add_explicit(&pool->next_item, 1, memory_order_relaxed);
        if (item >= pool->item_count) {
            return;
        }
        run_item(pool->kernel, pool->jobs, pool->chunks_per_job, item);
    }
}

static void *worker_main(void *arg) {
    crowd_skin_pool *pool = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->mutex);
    for (;;) {
        while (!pool->quit && pool->generation == seen) {
            pthread_cond_wait(&pool->wake, &pool->mutex);
        }
        if (pool->quit) {
            break;
        }
        seen = pool->generation;
        pthread_mutex_unlock(&pool->mutex);
        work(pool);
        pthread_mutex_lock(&pool->mutex);
        if (--pool->busy == 0) {
            pthread_cond_signal(&pool->idle);
        }
    }
    pthread_mutex_unlock(&pool->mutex);
    return NULL;
}

static uint32_t online_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) {
        return 1;
    }
    return n > MAX_THREADS ? MAX_THREADS : (uint32_t)n;
}

crowd_result crowd_skin_pool_create(const crowd_skin_pool_desc *desc, crowd_skin_pool **out_pool,
                                    crowd_error *error) {
    if (out_pool) {
        *out_pool = NULL;
    }
    crowd_skin_pool_desc d = desc ? *desc : (crowd_skin_pool_desc){0};
    if (!out_pool || d.thread_count > MAX_THREADS || (unsigned)d.path >= CROWD_SKIN_PATH_COUNT) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "crowd_skin_pool_create: out_pool is required, thread_count at most "
                               "%d, path in range",
                               MAX_THREADS);
    }
    if (!crowd_skin_path_supported(d.path)) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, NULL,
                               "crowd_skin_pool_create: this CPU cannot run the %s path",
                               crowd_skin_path_name(d.path));
    }
    crowd_skin_pool *pool = calloc(1, sizeof *pool);
    if (!pool) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    pool->kernel =
        crowd__skin_kernel_for(d.path == CROWD_SKIN_PATH_AUTO ? crowd_skin_path_best() : d.path);
    pool->thread_count = d.thread_count ? d.thread_count : online_cpus();
    pthread_mutex_init(&pool->mutex, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->idle, NULL);
    atomic_init(&pool->next_item, 0);
    if (pool->thread_count > 1) {
        pool->workers = calloc(pool->thread_count - 1, sizeof *pool->workers);
        if (!pool->workers) {
            crowd_skin_pool_destroy(pool);
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
        for (uint32_t t = 0; t + 1 < pool->thread_count; t++) {
            if (pthread_create(&pool->workers[t], NULL, worker_main, pool) != 0) {
                crowd_skin_pool_destroy(pool);
                return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL,
                                       "cannot start skinning thread %u", t + 1);
            }
            pool->workers_started++;
        }
    }
    *out_pool = pool;
    return CROWD_OK;
}

void crowd_skin_pool_destroy(crowd_skin_pool *pool) {
    if (!pool) {
        return;
    }
    pthread_mutex_lock(&pool->mutex);
    pool->quit = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    for (uint32_t t = 0; t < pool->workers_started; t++) {
        pthread_join(pool->workers[t], NULL);
    }
    pthread_cond_destroy(&pool->idle);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->mutex);
    free(pool->workers);
    free(pool);
}

uint32_t crowd_skin_pool_thread_count(const crowd_skin_pool *pool) {
    return pool->thread_count;
}

void crowd_skin_batch(crowd_skin_pool *pool, const crowd_skin_job *jobs, uint32_t job_count) {
    if (job_count == 0) {
        return;
    }
    if (!pool || pool->workers_started == 0) {
        skin_kernel kernel = pool ? pool->kernel : crowd__skin_kernel_for(crowd_skin_path_best());
        for (uint32_t j = 0; j < job_count; j++) {
            run_item(kernel, jobs, 1, j);
        }
        return;
    }
    uint32_t wanted = pool->thread_count * ITEMS_PER_THREAD;
    uint32_t chunks_per_job = job_count >= wanted ? 1 : (wanted + job_count - 1) / job_count;
    pthread_mutex_lock(&pool->mutex);
    pool->jobs = jobs;
    pool->chunks_per_job = chunks_per_job;
    pool->item_count = job_count * chunks_per_job;
    atomic_store_explicit(&pool->next_item, 0, memory_order_relaxed);
    pool->busy = pool->workers_started;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    work(pool);
    pthread_mutex_lock(&pool->mutex);
    while (pool->busy > 0) {
        pthread_cond_wait(&pool->idle, &pool->mutex);
    }
    pthread_mutex_unlock(&pool->mutex);
}
