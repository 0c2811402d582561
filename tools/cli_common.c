#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

bool cli_verbose = false;

int cli_exit_code(crowd_result result) {
    switch (result) {
    case CROWD_OK:
        return CLI_EXIT_OK;
    case CROWD_ERROR_INVALID_ARGUMENT:
        return CLI_EXIT_USAGE;
    case CROWD_ERROR_UNSUPPORTED:
        return CLI_EXIT_UNSUPPORTED;
    case CROWD_ERROR_OUTPUT:
        return CLI_EXIT_OUTPUT;
    case CROWD_ERROR_GPU:
        return CLI_EXIT_GPU;
    case CROWD_ERROR_IO:
    case CROWD_ERROR_INVALID_DATA:
    case CROWD_ERROR_LIMIT:
    case CROWD_ERROR_OUT_OF_MEMORY:
    case CROWD_RESULT_COUNT:
        break;
    }
    return CLI_EXIT_INPUT;
}

int cli_report(const crowd_error *error) {
    if (error->file[0] != '\0') {
        fprintf(stderr, "crowd: error: %s: %s\n", error->file, error->reason);
    } else {
        fprintf(stderr, "crowd: error: %s\n", error->reason);
    }
    return cli_exit_code(error->result);
}

int cli_fail(int exit_code, const char *format, ...) {
    va_list args;
    va_start(args, format);
    fputs("crowd: error: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    return exit_code;
}

bool cli_parse_float(const char *option, const char *text, double min, double max, double *out) {
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !isfinite(value) || value < min ||
        value > max) {
        cli_fail(CLI_EXIT_USAGE, "%s: '%s' is not a number in [%g, %g]", option, text, min, max);
        return false;
    }
    *out = value;
    return true;
}

bool cli_parse_int(const char *option, const char *text, long min, long max, long *out) {
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || value < min || value > max) {
        cli_fail(CLI_EXIT_USAGE, "%s: '%s' is not an integer in [%ld, %ld]", option, text, min,
                 max);
        return false;
    }
    *out = value;
    return true;
}

const char *cli_option_value(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        cli_fail(CLI_EXIT_USAGE, "%s needs a value", argv[*i]);
        return NULL;
    }
    *i += 1;
    return argv[*i];
}

void cli_log_stderr(void *user, crowd_log_level level, const char *message) {
    (void)user;
    if (level == CROWD_LOG_WARNING) {
        fprintf(stderr, "crowd: warning: %s\n", message);
    } else if (cli_verbose || level == CROWD_LOG_INFO) {
        if (level == CROWD_LOG_DEBUG && !cli_verbose) {
            return;
        }
        fprintf(stderr, "crowd: %s\n", message);
    }
}
