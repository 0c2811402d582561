/* crowd - command-line front end. See `crowd --help` and
 * docs/architecture.md, "The command line". */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
} command;

static const command commands[] = {
    {"info", cmd_info,
     "info   MODEL [--joints] [--json]          meshes, vertices, joints, clips, sockets, repairs"},
    {"bake", cmd_bake,
     "bake   MODEL -o DIR [options]             VAT + BAT textures, manifest and mesh"},
    {"render", cmd_render,
     "render MODEL|DIR... -o OUT.png [options]  render a (mixed) crowd to a PNG"},
    {"bench", cmd_bench,
     "bench  [MODEL] [--counts 1,100,1000]      compare playback modes side by side"},
    {"demo", cmd_demo,
     "demo                                      the built-in character, no arguments needed"},
    {"play", cmd_play, "play   MODEL|DIR... [options]             interactive window"},
};

static void print_usage(FILE *out) {
    fprintf(out, "usage: crowd COMMAND [ARGS]   (MODEL may be builtin:)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        fprintf(out, "  %s\n", commands[i].usage);
    }
    fprintf(out, "\n`crowd COMMAND --help` for the options of one command.\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("crowd %s\n", CROWD_VERSION_STRING);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) == 0) {
            return commands[i].run(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "crowd: error: unknown command '%s'\n", argv[1]);
    print_usage(stderr);
    return CLI_EXIT_USAGE;
}
