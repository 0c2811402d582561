/* cli.h - what the crowd subcommands share: exit codes, error printing and
 * strict argument parsing. The CLI is thin: each cmd_*.c parses its options
 * and calls the public API; the library never prints, this layer does.
 */
#ifndef CROWD_CLI_H
#define CROWD_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/asset.h"
#include "crowd/import.h"
#include "crowd/result.h"

enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_USAGE = 1,
    CLI_EXIT_INPUT = 2,
    CLI_EXIT_UNSUPPORTED = 3,
    CLI_EXIT_OUTPUT = 4,
    CLI_EXIT_GPU = 5,
};

/* Exit code for a library result (docs/architecture.md, "The command line"). */
int cli_exit_code(crowd_result result);

/* Prints "crowd: error: <file>: <reason>" (or without the file part) to
 * stderr and returns cli_exit_code(error->result). */
int cli_report(const crowd_error *error);

/* Prints "crowd: error: <printf message>" to stderr, returns `exit_code`. */
int cli_fail(int exit_code, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Strict number parsing: the whole string must be a finite number within
 * [min, max]. On failure prints a usage error naming `option` and returns false. */
bool cli_parse_float(const char *option, const char *text, double min, double max, double *out);
bool cli_parse_int(const char *option, const char *text, long min, long max, long *out);

/* Whether `arg` is one of `names` (NULL-terminated), e.g. of the options
 * of a command that take a value. */
bool cli_arg_in(const char *arg, const char *const *names);

/* Value of option argv[*i] (advances *i), or prints a usage error and
 * returns NULL when it is the last argument. */
const char *cli_option_value(int argc, char **argv, int *i);

/* "WxH" (or "WxH" with a capital X), each side a whole number in [1, 16384].
 * On failure prints a usage error naming `option` and returns false. */
bool cli_parse_size(const char *option, const char *text, uint32_t *width, uint32_t *height);

/* A word of `command`'s line that is not an option it knows: "-x" is an
 * unknown option, other words are appended to models[*count], one more than
 * `max` is a usage error. Returns -1 to go on, else the exit code (error
 * printed). */
int cli_model_argument(const char *command, const char *arg, const char **models, uint32_t *count,
                       uint32_t max);

/* The longest socket name of a SOCKET=FILE option, terminator included. */
#define CLI_SOCKET_NAME_BYTES 256

/* --attach SOCKET=FILE (info, bake). cli_attach_check prints a usage error
 * and returns false unless both parts are non-empty and the socket name is
 * shorter than 256 bytes. cli_attach_props loads each checked value's FILE
 * with `import` and merges it onto SOCKET of `asset` (crowd_asset_attach);
 * errors are those of crowd_model_load and crowd_asset_attach, `asset`
 * holding the props merged before the failing one. */
bool cli_attach_check(const char *value);
/* The same check for any SOCKET=FILE option (--prop of play), named in the error. */
bool cli_socket_file_check(const char *option, const char *value);
crowd_result cli_attach_props(crowd_asset *asset, const char *const *values, uint32_t count,
                              const crowd_import_desc *import, crowd_error *error);

/* Seconds on a monotonic clock, for durations. */
double cli_wall_s(void);

/* mkstemp() for an output the user will read: the file gets the mode a plain
 * fopen() would give (0666 less the umask) instead of mkstemp's 0600, so
 * renaming it into place publishes an ordinary file. */
int cli_mkstemp_public(char *template_path);

/* Logger that prints library diagnostics to stderr as "crowd: <message>";
 * warnings always, info when `verbose` is set. */
void cli_log_stderr(void *user, crowd_log_level level, const char *message);
extern bool cli_verbose;

/* Subcommands: each returns the process exit code. argv[0] is the subcommand name. */
int cmd_info(int argc, char **argv);
/* `crowd info BAKE` (info_bake.c): whether `path` names a bake folder or a
 * manifest, and the report of one (text, or JSON with `json`). */
bool cli_info_is_bake(const char *path);
int cli_info_bake(const char *path, bool json);
int cmd_bake(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_play(int argc, char **argv);

#endif
