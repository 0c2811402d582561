#include "cli.h"

/* Placeholder until the render command lands; replaced by its owner. */
int cmd_render(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail(CLI_EXIT_UNSUPPORTED, "'render' is not built yet");
}
