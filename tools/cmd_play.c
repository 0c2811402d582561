#include "cli.h"

/* Placeholder until the play command lands; replaced by its owner. */
int cmd_play(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail(CLI_EXIT_UNSUPPORTED, "'play' is not built yet");
}
