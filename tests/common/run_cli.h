/* run_cli.h - running the crowd CLI (CROWD_CLI) in a child process, as a
 * user would, for the end-to-end tests.
 *
 * The child's stdout and stderr go to cli_out.txt and cli_err.txt in
 * `capture_dir` (the working folder when NULL) and are read back into a
 * cli_run, so a test checks what a user sees: the exit code, the one
 * "crowd: error:" line, the printed results. Limits make the child meet a
 * full disk (RLIMIT_FSIZE with SIGXFSZ ignored, so writes past it fail with
 * EFBIG instead of killing it) or run as nobody when the test runs as root.
 *
 * Needs _POSIX_C_SOURCE 200809L (fork, execv, setrlimit) before any include.
 * Not thread-safe; one child at a time.
 */
#ifndef CROWD_TEST_RUN_CLI_H
#define CROWD_TEST_RUN_CLI_H

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define CLI_RUN_MAX_ARGS 63

typedef struct cli_run {
    int exit_code; /* 128 + signal when a signal ended it */
    char out[1 << 16];
    char err[1 << 14];
} cli_run;

typedef struct cli_limits {
    rlim_t file_size_bytes; /* 0 = unlimited */
    bool unprivileged;      /* run as nobody (when the test runs as root) */
} cli_limits;

/* The text of file `path` (at most size - 1 bytes), "" when unreadable. */
static inline void cli_read_text(const char *path, char *out, size_t size) {
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return;
    }
    size_t n = fread(out, 1, size - 1, f);
    out[n] = '\0';
    fclose(f);
}

/* Lines in `text` (newlines counted): an error is exactly one. */
static inline int cli_line_count(const char *text) {
    int lines = 0;
    for (; *text; text++) {
        lines += *text == '\n';
    }
    return lines;
}

/* Runs `crowd ARGS...` (`args` NULL-terminated, at most CLI_RUN_MAX_ARGS);
 * `limits` may be NULL. */
static inline void cli_run_argv(const char *const *args, const cli_limits *limits,
                                const char *capture_dir, cli_run *run) {
    char out_path[1024], err_path[1024];
    snprintf(out_path, sizeof out_path, "%s/cli_out.txt", capture_dir ? capture_dir : ".");
    snprintf(err_path, sizeof err_path, "%s/cli_err.txt", capture_dir ? capture_dir : ".");
    const char *argv[CLI_RUN_MAX_ARGS + 2] = {CROWD_CLI};
    int argc = 1;
    for (const char *const *a = args; *a != NULL && argc <= CLI_RUN_MAX_ARGS; a++) {
        argv[argc++] = *a;
    }
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, STDOUT_FILENO);
        dup2(err, STDERR_FILENO);
        if (limits != NULL && limits->file_size_bytes > 0) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit limit = {limits->file_size_bytes, limits->file_size_bytes};
            setrlimit(RLIMIT_FSIZE, &limit);
        }
        if (limits != NULL && limits->unprivileged && geteuid() == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0) {
                _exit(99);
            }
        }
        execv(CROWD_CLI, (char *const *)argv);
        _exit(98);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        run->exit_code = -2;
    } else {
        run->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    cli_read_text(out_path, run->out, sizeof run->out);
    cli_read_text(err_path, run->err, sizeof run->err);
}

/* Same for `crowd [command] first ...`: `command` (when not NULL), then
 * `first` and the NULL-terminated list `rest`, in the working folder. */
static inline void cli_run_list(const char *command, const char *first, va_list rest,
                                cli_run *run) {
    const char *args[CLI_RUN_MAX_ARGS + 1];
    int count = 0;
    if (command != NULL) {
        args[count++] = command;
    }
    for (const char *a = first; a != NULL && count < CLI_RUN_MAX_ARGS;
         a = va_arg(rest, const char *)) {
        args[count++] = a;
    }
    args[count] = NULL;
    cli_run_argv(args, NULL, NULL, run);
}

#endif
