#include "cli.h"

/* Placeholder until the demo command lands; replaced by its owner. */
int cmd_demo(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail(CLI_EXIT_UNSUPPORTED, "'demo' is not built yet");
}
