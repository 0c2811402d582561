/* cli_common.c - what the subcommands share (cli.h). */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>

/* Longest image side --size accepts. */
#define CLI_MAX_SIZE 16384ul
/* Room for a socket name of --attach, terminator included. */

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

bool cli_arg_in(const char *arg, const char *const *names) {
    for (; *names != NULL; names++) {
        if (strcmp(arg, *names) == 0) {
            return true;
        }
    }
    return false;
}

const char *cli_option_value(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        cli_fail(CLI_EXIT_USAGE, "%s needs a value", argv[*i]);
        return NULL;
    }
    *i += 1;
    return argv[*i];
}

bool cli_parse_size(const char *option, const char *text, uint32_t *width, uint32_t *height) {
    char *end = NULL;
    errno = 0;
    unsigned long w = strtoul(text, &end, 10);
    bool ok = end != text && (*end == 'x' || *end == 'X') && errno == 0 && text[0] != '-';
    unsigned long h = 0;
    if (ok) {
        const char *rest = end + 1;
        h = strtoul(rest, &end, 10);
        ok = end != rest && *end == '\0' && errno == 0 && rest[0] != '-';
    }
    if (!ok || w < 1 || h < 1 || w > CLI_MAX_SIZE || h > CLI_MAX_SIZE) {
        cli_fail(CLI_EXIT_USAGE, "%s: '%s' is not WxH with each in [1, %lu]", option, text,
                 CLI_MAX_SIZE);
        return false;
    }
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return true;
}

int cli_model_argument(const char *command, const char *arg, const char **models, uint32_t *count,
                       uint32_t max) {
    if (arg[0] == '-' && arg[1] != '\0') {
        return cli_fail(CLI_EXIT_USAGE, "%s: unknown option '%s' (see crowd %s --help)", command,
                        arg, command);
    }
    if (*count == max && max == 1) {
        return cli_fail(CLI_EXIT_USAGE, "%s: more than one MODEL ('%s' and '%s')", command,
                        models[0], arg);
    }
    if (*count == max) {
        return cli_fail(CLI_EXIT_USAGE, "%s: more than %u MODELs ('%s')", command, (unsigned)max,
                        arg);
    }
    models[(*count)++] = arg;
    return -1;
}

bool cli_socket_file_check(const char *option, const char *value) {
    const char *equals = strchr(value, '=');
    if (equals == NULL || equals == value || equals[1] == '\0') {
        cli_fail(CLI_EXIT_USAGE, "%s: '%s' is not SOCKET=FILE", option, value);
        return false;
    }
    if (equals - value >= CLI_SOCKET_NAME_BYTES) {
        cli_fail(CLI_EXIT_USAGE, "%s: socket name too long", option);
        return false;
    }
    return true;
}

bool cli_attach_check(const char *value) {
    return cli_socket_file_check("--attach", value);
}

crowd_result cli_attach_props(crowd_asset *asset, const char *const *values, uint32_t count,
                              const crowd_import_desc *import, crowd_error *error) {
    for (uint32_t i = 0; i < count; i++) {
        const char *equals = strchr(values[i], '=');
        char socket[CLI_SOCKET_NAME_BYTES];
        snprintf(socket, sizeof socket, "%.*s", (int)(equals - values[i]), values[i]);
        crowd_asset *prop = NULL;
        crowd_result result = crowd_model_load(equals + 1, import, &prop, error);
        if (result == CROWD_OK) {
            result = crowd_asset_attach(asset, socket, prop, error);
        }
        crowd_asset_destroy(prop);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

double cli_wall_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

int cli_mkstemp_public(char *template_path) {
    int fd = mkstemp(template_path);
    if (fd >= 0) {
        mode_t mask = umask(0);
        umask(mask);
        /* On failure the file stays 0600, still readable by its owner. */
        fchmod(fd, 0666 & ~mask);
    }
    return fd;
}
