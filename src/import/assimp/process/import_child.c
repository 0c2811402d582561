/* import_child.c - an import in the helper process (crowd/import.h).
 *
 * The helper is started with posix_spawn: stdin from /dev/null (or, for
 * bytes, a socket they are sent through, so a helper that dies early gives
 * EPIPE and not SIGPIPE), stdout and stderr into pipes, signals at their
 * defaults. It sets its own limits before reading anything (address space,
 * CPU time; no core files). This side reads both pipes under a wall-clock
 * deadline, kills the helper when it passes, waits for it, and turns what
 * happened into one error: a signal is a crash, SIGXCPU the CPU limit, a
 * C++ bad_alloc or an out-of-memory result the memory limit, a reply that
 * does not decode garbage. A reply that decodes is still checked with
 * crowd_asset_validate. The helper's stderr never reaches the terminal:
 * its lines go to the logger (warnings when the import worked, debug
 * messages otherwise) and the telling one into the error.
 *
 * Under AddressSanitizer (a CROWD_SANITIZE build, where the helper is
 * sanitized too) an address-space limit would fail ASan's own terabytes of
 * shadow memory, so the helper skips it and is given ASan's
 * hard_rss_limit_mb instead.
 *
 * Nothing here is process-wide: no signal handler, no SIGCHLD, waitpid on
 * this helper's pid only. A host that ignores SIGCHLD (children reaped
 * automatically) gets ECHILD from waitpid; the reply then decides.
 */
#define _GNU_SOURCE /* pipe2, SOCK_CLOEXEC, MSG_NOSIGNAL */
#include "import/assimp/process/import_child.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/core_internal.h"
#include "crowd/asset.h"
#include "import/import_run.h"
#include "import/assimp/process/import_wire.h"

extern char **environ;

#define DEFAULT_MEMORY_LIMIT_BYTES (8ull << 30)
#define DEFAULT_CPU_LIMIT_S 300u
#define DEFAULT_TIMEOUT_S 600u
/* The helper's stderr kept for the error and the logger; the rest is read
 * and dropped. */
#define STDERR_KEPT_BYTES 32768
#define STDERR_LINES_LOGGED 20
#define REPLY_PIPE_BYTES (1 << 20)

#if defined(__SANITIZE_ADDRESS__)
#define HELPER_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HELPER_UNDER_ASAN 1
#endif
#endif

typedef struct child_limits {
    uint64_t memory_bytes;
    uint32_t cpu_s, wall_s;
} child_limits;

/* One run of the helper and what came out of it. */
typedef struct child_run {
    pid_t pid;
    int in_fd, out_fd, err_fd; /* -1 once closed */
    const uint8_t *input;
    size_t input_size, input_sent;
    uint8_t *reply;
    size_t reply_size, reply_capacity;
    char err[STDERR_KEPT_BYTES + 1];
    size_t err_size;
    bool timed_out, reply_too_large, reaped;
    int status;
} child_run;

/* "FBX" for "models/hero.fbx": how the error names the reader. */
static void reader_name(const char *file, char *out, size_t size) {
    const char *slash = strrchr(file, '/');
    const char *dot = strrchr(slash ? slash : file, '.');
    size_t n = 0;
    for (const char *c = dot ? dot + 1 : ""; *c != '\0' && n + 1 < size && n < 12; c++) {
        out[n++] = (*c >= 'a' && *c <= 'z') ? (char)(*c - 'a' + 'A') : *c;
    }
    out[n] = '\0';
    if (n == 0) {
        snprintf(out, size, "assimp");
    }
}

static const char *signal_name(int sig) {
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGABRT:
        return "SIGABRT";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGKILL:
        return "SIGKILL";
    case SIGTRAP:
        return "SIGTRAP";
    default:
        return "";
    }
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void close_fd(int *fd) {
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* The environment for the helper: ours, plus ASan's RSS limit under ASan. */
static char **helper_environment(const child_limits *limits, char *asan_entry, size_t size) {
    size_t count = 0;
    while (environ != NULL && environ[count] != NULL) {
        count++;
    }
    char **envp = calloc(count + 2, sizeof *envp);
    if (envp == NULL) {
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
#ifdef HELPER_UNDER_ASAN
        if (strncmp(environ[i], "ASAN_OPTIONS=", 13) == 0) {
            continue;
        }
#endif
        envp[n++] = environ[i];
    }
#ifdef HELPER_UNDER_ASAN
    const char *options = getenv("ASAN_OPTIONS");
    snprintf(asan_entry, size, "ASAN_OPTIONS=%s%shard_rss_limit_mb=%" PRIu64,
             options ? options : "", options && options[0] ? ":" : "", limits->memory_bytes >> 20);
    envp[n++] = asan_entry;
#else
    (void)limits;
    (void)asan_entry;
    (void)size;
#endif
    return envp;
}

/* Starts the helper with `args` (NULL-terminated, args[0] its path). */
static crowd_result spawn_helper(const char *const *args, const child_limits *limits, bool bytes,
                                 child_run *run, const char *file, crowd_error *error) {
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, in_pair[2] = {-1, -1};
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
        (bytes && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pair) != 0)) {
        crowd_result result = crowd__core_system_error(
            error, CROWD_ERROR_IO, file, "cannot make pipes for the import helper", errno);
        for (int i = 0; i < 2; i++) {
            close_fd(&out_pipe[i]);
            close_fd(&err_pipe[i]);
            close_fd(&in_pair[i]);
        }
        return result;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    if (bytes) {
        posix_spawn_file_actions_adddup2(&actions, in_pair[1], STDIN_FILENO);
    } else {
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    }
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
    /* The host's signal dispositions and mask are its own business; the
     * helper starts with the defaults. */
    sigset_t all, none;
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    char asan_entry[4096];
    char **envp = helper_environment(limits, asan_entry, sizeof asan_entry);
    int failed = envp == NULL
                     ? ENOMEM
                     : posix_spawn(&run->pid, args[0], &actions, &attr, (char *const *)args, envp);
    free(envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close_fd(&out_pipe[1]);
    close_fd(&err_pipe[1]);
    close_fd(&in_pair[1]);
    run->out_fd = out_pipe[0];
    run->err_fd = err_pipe[0];
    run->in_fd = in_pair[0];
#ifdef F_SETPIPE_SZ
    /* A reply of megabytes (a texture) then crosses in a few wakeups, not
     * one per 64 KiB; where the system refuses, the default pipe will do. */
    fcntl(run->out_fd, F_SETPIPE_SZ, REPLY_PIPE_BYTES);
#endif
    if (failed != 0) {
        close_fd(&run->out_fd);
        close_fd(&run->err_fd);
        close_fd(&run->in_fd);
        char what[4200];
        snprintf(what, sizeof what, "cannot start the import helper %s", args[0]);
        return crowd__core_system_error(error, CROWD_ERROR_IO, file, what, failed);
    }
    if (run->in_fd >= 0) {
        fcntl(run->in_fd, F_SETFL, fcntl(run->in_fd, F_GETFL) | O_NONBLOCK);
        if (run->input_size == 0) {
            close_fd(&run->in_fd);
        }
    }
    return CROWD_OK;
}

/* Reads what `fd` has into the reply or the kept stderr; closes it at EOF. */
static void drain(child_run *run, int *fd, bool is_reply, uint64_t reply_limit) {
    uint8_t scratch[65536];
    uint8_t *into = scratch;
    size_t room = sizeof scratch;
    if (is_reply) {
        if (run->reply_capacity - run->reply_size < REPLY_PIPE_BYTES) {
            size_t capacity = run->reply_capacity ? 2 * run->reply_capacity : 1 << 20;
            uint8_t *grown = realloc(run->reply, capacity);
            if (grown == NULL) {
                run->reply_too_large = true;
                close_fd(fd);
                return;
            }
            run->reply = grown;
            run->reply_capacity = capacity;
        }
        into = run->reply + run->reply_size;
        room = run->reply_capacity - run->reply_size;
    }
    ssize_t n = read(*fd, into, room);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    if (n <= 0) {
        close_fd(fd);
        return;
    }
    if (is_reply) {
        run->reply_size += (size_t)n;
        if (run->reply_size > reply_limit) {
            run->reply_too_large = true;
            close_fd(fd);
        }
    } else {
        size_t keep = STDERR_KEPT_BYTES - run->err_size;
        keep = (size_t)n < keep ? (size_t)n : keep;
        memcpy(run->err + run->err_size, scratch, keep);
        run->err_size += keep;
        run->err[run->err_size] = '\0';
    }
}

static void send_input(child_run *run) {
    ssize_t n = send(run->in_fd, run->input + run->input_sent, run->input_size - run->input_sent,
                     MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    if (n <= 0) {
        close_fd(&run->in_fd); /* the helper stopped reading: its exit tells why */
        return;
    }
    run->input_sent += (size_t)n;
    if (run->input_sent == run->input_size) {
        close_fd(&run->in_fd);
    }
}

/* Feeds and reads the helper until both its outputs end, then waits for
 * it; kills it when the deadline passes or its reply grows too large. */
static void watch_helper(child_run *run, const child_limits *limits) {
    double deadline = now_s() + limits->wall_s;
    while ((run->out_fd >= 0 || run->err_fd >= 0) && !run->reply_too_large) {
        struct pollfd fds[3];
        int count = 0, out_at = -1, err_at = -1, in_at = -1;
        if (run->out_fd >= 0) {
            fds[out_at = count++] = (struct pollfd){run->out_fd, POLLIN, 0};
        }
        if (run->err_fd >= 0) {
            fds[err_at = count++] = (struct pollfd){run->err_fd, POLLIN, 0};
        }
        if (run->in_fd >= 0) {
            fds[in_at = count++] = (struct pollfd){run->in_fd, POLLOUT, 0};
        }
        double left = deadline - now_s();
        if (left <= 0.0) {
            run->timed_out = true;
            break;
        }
        int ready = poll(fds, (nfds_t)count, left > 1000.0 ? 1000000 : (int)(left * 1000.0) + 1);
        if (ready < 0 && errno != EINTR) {
            break;
        }
        if (ready <= 0) {
            continue;
        }
        if (out_at >= 0 && fds[out_at].revents != 0) {
            drain(run, &run->out_fd, true, limits->memory_bytes);
        }
        if (err_at >= 0 && fds[err_at].revents != 0) {
            drain(run, &run->err_fd, false, 0);
        }
        if (in_at >= 0 && fds[in_at].revents != 0 && run->in_fd >= 0) {
            send_input(run);
        }
    }
    /* Both outputs closed: the helper is exiting; give it until the deadline. */
    long pause_ns = 100000;
    while (!run->timed_out && !run->reply_too_large) {
        pid_t done = waitpid(run->pid, &run->status, WNOHANG);
        if (done == run->pid || (done < 0 && errno != EINTR)) {
            run->reaped = done == run->pid;
            break;
        }
        if (now_s() >= deadline) {
            run->timed_out = true;
            break;
        }
        struct timespec pause = {0, pause_ns};
        nanosleep(&pause, NULL);
        pause_ns = pause_ns < 20000000 ? 2 * pause_ns : pause_ns;
    }
    if (run->timed_out || run->reply_too_large || (run->out_fd >= 0 || run->err_fd >= 0)) {
        kill(run->pid, SIGKILL);
        while (waitpid(run->pid, &run->status, 0) < 0 && errno == EINTR) {
        }
        run->reaped = true;
    }
    close_fd(&run->out_fd);
    close_fd(&run->err_fd);
    close_fd(&run->in_fd);
}

/* The stderr line that says most about a failure: a sanitizer's or the C++
 * runtime's verdict, else the last line. Empty when there is none. */
static void telling_line(const char *text, char *out, size_t size) {
    static const char *const verdicts[] = {"ERROR: AddressSanitizer", "runtime error",
                                           "terminate called", "what():", "LeakSanitizer"};
    out[0] = '\0';
    const char *line = text, *last = NULL;
    while (*line != '\0') {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        if (length > 0) {
            last = line;
            for (size_t v = 0; v < sizeof verdicts / sizeof *verdicts; v++) {
                const char *hit = strstr(line, verdicts[v]);
                if (hit != NULL && hit < line + length && out[0] == '\0') {
                    snprintf(out, size, "%.*s", (int)length, line);
                }
            }
        }
        line = end ? end + 1 : line + length;
    }
    if (out[0] == '\0' && last != NULL) {
        const char *end = strchr(last, '\n');
        snprintf(out, size, "%.*s", (int)(end ? (size_t)(end - last) : strlen(last)), last);
    }
}

static void log_stderr(const child_run *run, const crowd_logger *logger, crowd_log_level level,
                       const char *file, const char *reader) {
    const char *line = run->err;
    int logged = 0;
    while (*line != '\0' && logged < STDERR_LINES_LOGGED) {
        const char *end = strchr(line, '\n');
        int length = (int)(end ? (size_t)(end - line) : strlen(line));
        if (length > 0) {
            crowd_log(logger, level, "%s: the %s reader printed: %.*s", file, reader, length, line);
            logged++;
        }
        line = end ? end + 1 : line + length;
    }
}

static bool out_of_memory_text(const char *text) {
    return strstr(text, "bad_alloc") != NULL || strstr(text, "rss limit") != NULL ||
           strstr(text, "out of memory") != NULL || strstr(text, "out-of-memory") != NULL;
}

static crowd_result memory_error(crowd_error *error, const char *file, const char *reader,
                                 const child_limits *limits) {
    return crowd_error_set(error, CROWD_ERROR_LIMIT, file,
                           "the %s reader needed more than its memory limit (%.3g GiB) for this "
                           "file; nothing was written",
                           reader, (double)limits->memory_bytes / (double)(1ull << 30));
}

/* What happened to a helper that did not exit cleanly. */
static crowd_result failure(const child_run *run, const child_limits *limits, const char *file,
                            const char *reader, crowd_error *error) {
    char line[300];
    telling_line(run->err, line, sizeof line);
    char detail[320] = "";
    if (line[0] != '\0') {
        snprintf(detail, sizeof detail, ": %s", line);
    }
    if (run->timed_out) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, file,
                               "the %s reader did not finish this file within %u s and was "
                               "stopped; nothing was written",
                               reader, limits->wall_s);
    }
    if (run->reply_too_large) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, file,
                               "the %s reader's reply grew past its memory limit and it was "
                               "stopped; nothing was written",
                               reader);
    }
    if (out_of_memory_text(run->err)) {
        return memory_error(error, file, reader, limits);
    }
    if (WIFSIGNALED(run->status)) {
        int sig = WTERMSIG(run->status);
        if (sig == SIGXCPU) {
            return crowd_error_set(error, CROWD_ERROR_LIMIT, file,
                                   "the %s reader used more than its %u s of CPU time on this "
                                   "file and was stopped; nothing was written",
                                   reader, limits->cpu_s);
        }
        /* The kernel's answer to a helper that ignores SIGXCPU, or the
         * system's to one it ran out of memory for. */
        if (sig == SIGKILL) {
            return crowd_error_set(error, CROWD_ERROR_LIMIT, file,
                                   "the %s reader was killed on this file (signal 9, SIGKILL: "
                                   "past its %u s of CPU time, or the system out of memory); "
                                   "nothing was written",
                                   reader, limits->cpu_s);
        }
        const char *name = signal_name(sig);
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file,
                               "the %s reader crashed on this file (signal %d%s%s)%s; nothing "
                               "was written",
                               reader, sig, name[0] ? ", " : "", name, detail);
    }
    return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file,
                           "the %s reader exited with status %d on this file%s; nothing was "
                           "written",
                           reader, WEXITSTATUS(run->status), detail);
}

/* The reply of a helper that exited with status 0. */
static crowd_result read_reply(const child_run *run, const child_limits *limits,
                               const crowd_import_desc *desc, const char *file, const char *reader,
                               crowd_asset **out_asset, crowd_error *error) {
    bool helper_said = false;
    crowd_asset *asset = NULL;
    crowd_result result = crowd__import_wire_decode(run->reply, run->reply_size, &desc->logger,
                                                    &asset, error, &helper_said);
    if (!helper_said && result == CROWD_ERROR_INVALID_DATA) {
        char where[sizeof error->reason];
        snprintf(where, sizeof where, "%s", error->reason);
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file,
                               "the %s reader's helper sent a malformed reply (%s); nothing was "
                               "written",
                               reader, where);
    }
    if (helper_said && result == CROWD_ERROR_OUT_OF_MEMORY) {
        return memory_error(error, file, reader, limits);
    }
    if (result != CROWD_OK) {
        char reason[sizeof error->reason];
        snprintf(reason, sizeof reason, "%s", error->reason);
        return crowd_error_set(error, result, file, "%s", reason);
    }
    crowd_error invalid;
    if (crowd_asset_validate(asset, &invalid) != CROWD_OK) {
        crowd_asset_destroy(asset);
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file,
                               "the %s reader's helper sent an invalid asset (%s); nothing was "
                               "written",
                               reader, invalid.reason);
    }
    *out_asset = asset;
    return CROWD_OK;
}

static crowd_result run_helper(const char *path, const uint8_t *bytes, size_t size,
                               const char *name, const crowd_import_desc *desc, bool clips_only,
                               crowd_asset **out_asset, crowd_error *error) {
    const char *file = path ? path : name ? name : "(memory)";
    char reader[16];
    reader_name(file, reader, sizeof reader);
    char helper[4096], looked[8400];
    if (!crowd__import_helper_path(helper, sizeof helper, looked, sizeof looked)) {
        return crowd_error_set(error, CROWD_ERROR_IO, file,
                               "the import helper " IMPORT_HELPER_NAME
                               " is not installed or not executable (looked for: %s)",
                               looked);
    }
    child_limits limits = {desc->memory_limit_bytes ? desc->memory_limit_bytes
                                                    : DEFAULT_MEMORY_LIMIT_BYTES,
                           desc->cpu_limit_s ? desc->cpu_limit_s : DEFAULT_CPU_LIMIT_S,
                           desc->timeout_s ? desc->timeout_s : DEFAULT_TIMEOUT_S};
    char memory[32], cpu[32], scale[32], protocol[16];
    snprintf(protocol, sizeof protocol, "%u", IMPORT_WIRE_VERSION);
    snprintf(memory, sizeof memory, "%" PRIu64, limits.memory_bytes);
    snprintf(cpu, sizeof cpu, "%u", limits.cpu_s);
    snprintf(scale, sizeof scale, "%.9g", (double)desc->scale);
    size_t arg_count = 16 + 2 * (size_t)desc->socket_node_count;
    const char **args = calloc(arg_count, sizeof *args);
    if (args == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
    }
    size_t n = 0;
    args[n++] = helper;
    args[n++] = "--protocol";
    args[n++] = protocol;
    args[n++] = "--memory-limit";
    args[n++] = memory;
    args[n++] = "--cpu-limit";
    args[n++] = cpu;
    args[n++] = "--scale";
    args[n++] = scale;
    for (uint32_t s = 0; s < desc->socket_node_count; s++) {
        args[n++] = "--socket";
        args[n++] = desc->socket_nodes[s];
    }
    if (clips_only) {
        args[n++] = "--content";
        args[n++] = "clips";
    }
    args[n++] = path ? "--file" : "--memory";
    args[n++] = file;
    child_run *run = calloc(1, sizeof *run);
    if (run == NULL) {
        free(args);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
    }
    run->input = bytes;
    run->input_size = size;
    crowd_result result = spawn_helper(args, &limits, path == NULL, run, file, error);
    free(args);
    if (result == CROWD_OK) {
        watch_helper(run, &limits);
        bool clean = !run->timed_out && !run->reply_too_large &&
                     (!run->reaped || (WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0));
        if (clean) {
            result = read_reply(run, &limits, desc, file, reader, out_asset, error);
        } else {
            result = failure(run, &limits, file, reader, error);
        }
        bool worked = result == CROWD_OK;
        log_stderr(run, &desc->logger, worked ? CROWD_LOG_WARNING : CROWD_LOG_DEBUG, file, reader);
    }
    free(run->reply);
    free(run);
    return result;
}

crowd_result crowd__import_child_file(const char *path, const crowd_import_desc *desc,
                                      bool clips_only, crowd_asset **out_asset,
                                      crowd_error *error) {
    return run_helper(path, NULL, 0, NULL, desc, clips_only, out_asset, error);
}

crowd_result crowd__import_child_memory(const void *bytes, size_t size, const char *name,
                                        const crowd_import_desc *desc, crowd_asset **out_asset,
                                        crowd_error *error) {
    return run_helper(NULL, bytes, size, name, desc, false, out_asset, error);
}
