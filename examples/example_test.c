/* example_test - runs an example as `make test` does: in a temporary folder
 * of its own, writing its picture there, then looks at the picture.
 *
 * Usage: example_test PROGRAM [embed]
 * Runs `PROGRAM example.png`; its exit code 77 (no OpenGL context) is the
 * test's. With `embed`, the picture must be embed.c's frame
 * (embed_scene.h): the application's wall a solid rectangle of its colour
 * with characters cut off at its sides (they stand behind it, so the wall
 * hides them), characters elsewhere, the ground and the sky, and the quad
 * drawn after crowd's draw exactly on its rectangle in its colour.
 */
#define _POSIX_C_SOURCE 200809L
#include <png.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "embed_scene.h"

static int run(const char *program, const char *picture) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl(program, program, picture, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static bool is(const uint8_t *p, const unsigned char rgb[3]) {
    return p[0] == rgb[0] && p[1] == rgb[1] && p[2] == rgb[2];
}

/* Neither sky, ground, wall nor quad: a character. */
static bool character(const uint8_t *p) {
    return !is(p, embed_sky) && !is(p, embed_ground) && !is(p, embed_wall) && !is(p, embed_quad);
}

static void check_embed(const uint8_t *rgba) {
    const int w = EMBED_WIDTH, h = EMBED_HEIGHT;
    int x0 = w, x1 = -1, y0 = h, y1 = -1;
    uint32_t wall = 0, quad = 0, characters = 0, ground = 0, sky = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const uint8_t *p = rgba + 4 * (y * w + x);
            if (is(p, embed_wall)) {
                wall++;
                x0 = x < x0 ? x : x0;
                x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0;
                y1 = y > y1 ? y : y1;
            }
            quad += is(p, embed_quad);
            ground += is(p, embed_ground);
            sky += is(p, embed_sky);
            characters += character(p);
        }
    }
    uint32_t box = x1 >= x0 ? (uint32_t)((x1 - x0 + 1) * (y1 - y0 + 1)) : 0;
    /* Rows where a character touches the wall's left or right side. */
    uint32_t cut_rows = 0;
    for (int y = y0; x1 >= x0 && y <= y1; y++) {
        bool left = x0 > 0 && character(rgba + 4 * (y * w + x0 - 1));
        bool right = x1 + 1 < w && character(rgba + 4 * (y * w + x1 + 1));
        cut_rows += left || right;
    }
    uint32_t quad_area = (EMBED_QUAD_X1 - EMBED_QUAD_X0) * (EMBED_QUAD_Y1 - EMBED_QUAD_Y0);
    uint32_t quad_inside = 0;
    for (int y = EMBED_QUAD_Y0; y < EMBED_QUAD_Y1; y++) {
        for (int x = EMBED_QUAD_X0; x < EMBED_QUAD_X1; x++) {
            quad_inside += is(rgba + 4 * (y * w + x), embed_quad);
        }
    }
    printf("wall: %u px, box %d-%d x %d-%d (%u px); characters %u px, %u rows cut by the wall's "
           "sides; quad %u px (%u inside its %u px rectangle); ground %u px, sky %u px\n",
           (unsigned)wall, x0, x1, y0, y1, (unsigned)box, (unsigned)characters, (unsigned)cut_rows,
           (unsigned)quad, (unsigned)quad_inside, (unsigned)quad_area, (unsigned)ground,
           (unsigned)sky);
    CHECK_MSG(wall > 2000 && wall == box, "the wall is not a solid rectangle");
    CHECK_MSG(cut_rows >= 10, "no character stands behind the wall's sides");
    CHECK_MSG(characters > (uint32_t)(w * h / 50), "too few character pixels");
    CHECK_MSG(quad_inside == quad_area && quad == quad_area, "the quad is not exactly drawn");
    CHECK(ground > (uint32_t)(w * h / 10) && sky > (uint32_t)(w * h / 10));
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: example_test PROGRAM [embed]\n");
        return 1;
    }
    check_enter_temp_dir("example");
    int code = run(argv[1], "example.png");
    if (code == 77) {
        printf("SKIP: %s found no OpenGL 4.5 context\n", argv[1]);
        return 77;
    }
    CHECK_MSG(code == 0, "%s exited with %d", argv[1], code);
    png_image image = {.version = PNG_IMAGE_VERSION};
    uint8_t *rgba = NULL;
    if (code == 0 && png_image_begin_read_from_file(&image, "example.png")) {
        image.format = PNG_FORMAT_RGBA;
        rgba = malloc(PNG_IMAGE_SIZE(image));
        CHECK(rgba != NULL && png_image_finish_read(&image, NULL, rgba, 0, NULL));
    }
    CHECK_MSG(rgba != NULL, "example.png unreadable");
    if (rgba != NULL && argc > 2 && strcmp(argv[2], "embed") == 0) {
        CHECK(image.width == EMBED_WIDTH && image.height == EMBED_HEIGHT);
        if (image.width == EMBED_WIDTH && image.height == EMBED_HEIGHT) {
            check_embed(rgba);
        }
    }
    free(rgba);
    return check_finish();
}
