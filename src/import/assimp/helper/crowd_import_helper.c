/* crowd_import_helper.c - the helper program an import runs assimp in
 * (crowd/import.h; command line in process/import_child.h).
 *
 * It limits itself before it reads anything (address space, CPU time, no
 * core files, and on Linux it dies with its parent), imports the input in this process with the
 * library (desc.in_process; a file of clips with --content clips), and writes the reply
 * (import_wire.h) to stdout: every log message as it comes, so a crash still leaves them, then the
 * asset or the error. A crash, a limit or a hang is the parent's to report. Exit status 0 when a
 * whole reply was written, 2 for a wrong command line, 3 when stdout could not be written.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "crowd/import.h"
#include "import/import_run.h"
#include "import/assimp/process/import_wire.h"
#include "import/assimp/process/import_child.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

enum { EXIT_USAGE = 2, EXIT_WRITE = 3 };

typedef struct helper_args {
    uint64_t memory_limit;
    uint32_t cpu_limit;
    float scale;
    const char *file;   /* --file */
    const char *memory; /* --memory NAME */
    const char **sockets;
    uint32_t socket_count;
    bool clips_only; /* --content clips */
} helper_args;

static bool write_all(const uint8_t *data, size_t size) {
    while (size > 0) {
        ssize_t n = write(STDOUT_FILENO, data, size);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        data += n;
        size -= (size_t)n;
    }
    return true;
}

/* Writes and empties `buffer`; exits when stdout is gone. */
static void send_buffer(import_wire_buffer *buffer) {
    bool sent = !buffer->failed && write_all(buffer->data, buffer->size);
    crowd__import_wire_buffer_free(buffer);
    if (!sent) {
        exit(EXIT_WRITE);
    }
}

static void send_log(void *user, crowd_log_level level, const char *message) {
    (void)user;
    import_wire_buffer record = {0};
    crowd__import_wire_put_log(&record, level, message);
    send_buffer(&record);
}

static bool parse_number(const char *text, uint64_t max, uint64_t *out) {
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || value == 0 || value > max) {
        return false;
    }
    *out = value;
    return true;
}

static bool parse_args(int argc, char **argv, helper_args *out) {
    out->sockets = calloc((size_t)argc, sizeof *out->sockets);
    if (out->sockets == NULL) {
        return false;
    }
    bool protocol = false;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *key = argv[i], *value = argv[i + 1];
        uint64_t number = 0;
        if (strcmp(key, "--protocol") == 0) {
            protocol = parse_number(value, UINT32_MAX, &number) && number == IMPORT_WIRE_VERSION;
        } else if (strcmp(key, "--memory-limit") == 0 && parse_number(value, UINT64_MAX, &number)) {
            out->memory_limit = number;
        } else if (strcmp(key, "--cpu-limit") == 0 && parse_number(value, UINT32_MAX, &number)) {
            out->cpu_limit = (uint32_t)number;
        } else if (strcmp(key, "--scale") == 0) {
            char *end = NULL;
            out->scale = strtof(value, &end);
            if (end == value || *end != '\0' || !(out->scale >= 0.0f && out->scale < 1e30f)) {
                return false;
            }
        } else if (strcmp(key, "--content") == 0 &&
                   (strcmp(value, "clips") == 0 || strcmp(value, "character") == 0)) {
            out->clips_only = strcmp(value, "clips") == 0;
        } else if (strcmp(key, "--socket") == 0) {
            out->sockets[out->socket_count++] = value;
        } else if (strcmp(key, "--file") == 0) {
            out->file = value;
        } else if (strcmp(key, "--memory") == 0) {
            out->memory = value;
        } else {
            return false;
        }
    }
    return argc % 2 == 1 && protocol && out->memory_limit > 0 && out->cpu_limit > 0 &&
           (out->file != NULL) != (out->memory != NULL) && !(out->clips_only && out->memory);
}

static void set_limits(const helper_args *args) {
#ifdef __linux__
    /* A parent that is killed takes its helper with it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    /* SIGXCPU at the limit, SIGKILL two seconds later if it is caught. */
    struct rlimit cpu = {args->cpu_limit, (rlim_t)args->cpu_limit + 2};
    setrlimit(RLIMIT_CPU, &cpu);
#ifndef UNDER_ASAN
    struct rlimit memory = {args->memory_limit, args->memory_limit};
    setrlimit(RLIMIT_AS, &memory);
#endif
}

#ifdef CROWD_IMPORT_HELPER_FAULTS
/* The test build's misbehaviour (see import_child.h). Returns when there is none. */
static void misbehave(void) {
    const char *fault = getenv(IMPORT_HELPER_FAULT_ENV);
    if (fault == NULL || fault[0] == '\0') {
        return;
    }
    if (strcmp(fault, "abort") == 0) {
        abort();
    }
    if (strcmp(fault, "hang") == 0) {
        for (;;) {
            sleep(1000);
        }
    }
    if (strcmp(fault, "spin") == 0) {
        for (volatile uint64_t i = 0;; i++) {
        }
    }
    if (strcmp(fault, "alloc") == 0) {
        for (;;) {
            size_t size = (size_t)64 << 20;
            char *block = malloc(size);
            if (block == NULL) {
                /* What an import step does when malloc fails. */
                import_wire_buffer reply = {0};
                crowd__import_wire_put_header(&reply);
                crowd__import_wire_put_error(&reply, CROWD_ERROR_OUT_OF_MEMORY, "out of memory");
                crowd__import_wire_put_end(&reply);
                send_buffer(&reply);
                exit(0);
            }
            memset(block, 1, size);
        }
    }
    if (strcmp(fault, "garbage") == 0) {
        import_wire_buffer reply = {0};
        crowd__import_wire_put_header(&reply);
        send_buffer(&reply);
        uint8_t noise[4096];
        uint32_t x = 2463534242u;
        for (size_t i = 0; i < sizeof noise; i++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            noise[i] = (uint8_t)x;
        }
        exit(write_all(noise, sizeof noise) ? 0 : EXIT_WRITE);
    }
}
#endif

/* All of stdin, at most `limit` bytes; NULL when it cannot be read. */
static uint8_t *read_stdin(uint64_t limit, size_t *out_size) {
    size_t size = 0, capacity = 1 << 16;
    uint8_t *data = malloc(capacity);
    while (data != NULL) {
        if (size == capacity) {
            uint8_t *grown = capacity <= limit / 2 ? realloc(data, 2 * capacity) : NULL;
            if (grown == NULL) {
                free(data);
                return NULL;
            }
            data = grown;
            capacity *= 2;
        }
        ssize_t n = read(STDIN_FILENO, data + size, capacity - size);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            free(data);
            return NULL;
        }
        if (n == 0) {
            *out_size = size;
            return data;
        }
        size += (size_t)n;
    }
    return NULL;
}

int main(int argc, char **argv) {
    helper_args args;
    memset(&args, 0, sizeof args);
    if (!parse_args(argc, argv, &args)) {
        fprintf(stderr, "%s: this program is run by the crowd library, not by hand\n", argv[0]);
        free(args.sockets);
        return EXIT_USAGE;
    }
    set_limits(&args);
#ifdef CROWD_IMPORT_HELPER_FAULTS
    misbehave();
#endif
    import_wire_buffer reply = {0};
    crowd__import_wire_put_header(&reply);
    send_buffer(&reply);

    crowd_import_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.logger = (crowd_logger){send_log, NULL};
    desc.socket_nodes = args.sockets;
    desc.socket_node_count = args.socket_count;
    desc.scale = args.scale;
    desc.in_process = true;
    crowd_asset *asset = NULL;
    crowd_error error;
    memset(&error, 0, sizeof error);
    crowd_result result = CROWD_OK;
    if (args.file != NULL && args.clips_only) {
        result = crowd__import_clips_file(args.file, &desc, &asset, &error);
    } else if (args.file != NULL) {
        result = crowd_import_file(args.file, &desc, &asset, &error);
    } else {
        size_t size = 0;
        uint8_t *bytes = read_stdin(args.memory_limit, &size);
        result = bytes == NULL
                     ? crowd_error_set(&error, CROWD_ERROR_IO, args.memory,
                                       "cannot read the bytes to import")
                     : crowd_import_memory(bytes, size, args.memory, &desc, &asset, &error);
        free(bytes);
    }
    if (result == CROWD_OK) {
        crowd__import_wire_put_asset(&reply, asset);
    } else {
        crowd__import_wire_put_error(&reply, result, error.reason);
    }
    if (reply.failed) {
        crowd__import_wire_buffer_free(&reply);
        crowd__import_wire_put_error(&reply, CROWD_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    crowd__import_wire_put_end(&reply);
    crowd_asset_destroy(asset);
    free(args.sockets);
    send_buffer(&reply);
    return 0;
}
