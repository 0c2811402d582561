/* crowd/result.h - result codes, error reports and the logger callback.
 *
 * Every crowd function that can fail returns a crowd_result. Functions that
 * read files or untrusted bytes also take an optional crowd_error, filled on
 * failure with the file concerned and a one-line reason, so a caller can print
 * "crowd: error: <file>: <reason>" without guessing. The library never prints:
 * diagnostics that are not errors (repairs, progress) go to an optional
 * crowd_logger supplied in the desc structs.
 *
 * Thread safety: all functions here are pure; a crowd_error belongs to one
 * thread at a time.
 */
#ifndef CROWD_RESULT_H
#define CROWD_RESULT_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CROWD_VERSION_STRING "0.1.0"

typedef enum crowd_result {
    CROWD_OK = 0,
    CROWD_ERROR_INVALID_ARGUMENT, /* caller passed something the contract forbids */
    CROWD_ERROR_IO,               /* a file could not be opened or read */
    CROWD_ERROR_INVALID_DATA,     /* a file or buffer was read but is malformed */
    CROWD_ERROR_UNSUPPORTED,      /* well-formed, but a feature crowd does not handle */
    CROWD_ERROR_LIMIT,            /* a size limit would be exceeded (texture height, counts) */
    CROWD_ERROR_OUT_OF_MEMORY,
    CROWD_ERROR_OUTPUT, /* an output could not be written */
    CROWD_ERROR_GPU,    /* no GL context, or a GL call failed */
    CROWD_RESULT_COUNT
} crowd_result;

/* Static, human-readable name of a result ("invalid data", ...). Never NULL. */
const char *crowd_result_str(crowd_result result);

/* What went wrong, for the caller to print. `file` is the path or name the
 * error concerns (may be empty), `reason` one line without a trailing period. */
typedef struct crowd_error {
    crowd_result result;
    char file[512];
    char reason[512];
} crowd_error;

/* Fills `error` (if not NULL) and returns `result`, so failures read
 * `return crowd_error_set(err, CROWD_ERROR_IO, path, "cannot open: %s", ...)`.
 * `file` may be NULL. */
crowd_result crowd_error_set(crowd_error *error, crowd_result result, const char *file,
                             const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

typedef enum crowd_log_level {
    CROWD_LOG_DEBUG,
    CROWD_LOG_INFO,
    CROWD_LOG_WARNING,
} crowd_log_level;

/* Optional sink for diagnostics. A zeroed crowd_logger discards everything. */
typedef struct crowd_logger {
    void (*fn)(void *user, crowd_log_level level, const char *message);
    void *user;
} crowd_logger;

/* Formats and forwards to logger->fn when both are set. */
void crowd_log(const crowd_logger *logger, crowd_log_level level, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Optional memory functions for an engine that owns its memory (a zoned or
 * tracked heap). Descs that carry one allocate every block of the object they
 * create through it, and the matching destroy call frees them through it, so
 * the allocator must outlive that object. alloc_fn returns memory aligned for
 * any type, as malloc does, or NULL; free_fn accepts NULL. A zeroed
 * crowd_allocator means malloc and free. Both functions may be called from
 * any thread that calls into the object. */
typedef struct crowd_allocator {
    void *(*alloc_fn)(size_t size, void *user_data);
    void (*free_fn)(void *pointer, void *user_data);
    void *user_data;
} crowd_allocator;

#ifdef __cplusplus
}
#endif

#endif
