#include "cli.h"

/* Placeholder until the bake command lands; replaced by its owner. */
int cmd_bake(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail(CLI_EXIT_UNSUPPORTED, "'bake' is not built yet");
}
