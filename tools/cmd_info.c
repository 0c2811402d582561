#include "cli.h"

/* Placeholder until the info command lands; replaced by its owner. */
int cmd_info(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail(CLI_EXIT_UNSUPPORTED, "'info' is not built yet");
}
