#include "crowd/result.h"

#include <stdio.h>
#include <string.h>

const char *crowd_result_str(crowd_result result) {
    switch (result) {
    case CROWD_OK:
        return "ok";
    case CROWD_ERROR_INVALID_ARGUMENT:
        return "invalid argument";
    case CROWD_ERROR_IO:
        return "input/output error";
    case CROWD_ERROR_INVALID_DATA:
        return "invalid data";
    case CROWD_ERROR_UNSUPPORTED:
        return "unsupported";
    case CROWD_ERROR_LIMIT:
        return "limit exceeded";
    case CROWD_ERROR_OUT_OF_MEMORY:
        return "out of memory";
    case CROWD_ERROR_OUTPUT:
        return "cannot write output";
    case CROWD_ERROR_GPU:
        return "GPU error";
    case CROWD_RESULT_COUNT:
        break;
    }
    return "unknown result";
}

crowd_result crowd_error_set(crowd_error *error, crowd_result result, const char *file,
                             const char *format, ...) {
    if (error == NULL) {
        return result;
    }
    error->result = result;
    snprintf(error->file, sizeof error->file, "%s", file ? file : "");
    va_list args;
    va_start(args, format);
    vsnprintf(error->reason, sizeof error->reason, format, args);
    va_end(args);
    return result;
}

void crowd_log(const crowd_logger *logger, crowd_log_level level, const char *format, ...) {
    if (logger == NULL || logger->fn == NULL) {
        return;
    }
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    logger->fn(logger->user, level, message);
}
