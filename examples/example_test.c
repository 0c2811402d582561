/* example_test - runs an example as `make test` does: in a temporary folder
 * of its own, writing its picture there, then looks at the picture.
 *
 * Usage: example_test PROGRAM [embed|gl33|game]
 * Runs `PROGRAM example.png` (game: see below); its exit code 77 (no OpenGL context) is the
 * test's. With `embed`, the picture must be embed.c's frame
 * (embed_scene.h): the application's wall a solid rectangle of its colour
 * with characters cut off at its sides (they stand behind it, so the wall
 * hides them), characters elsewhere, the ground and the sky, and the quad
 * drawn after crowd's draw exactly on its rectangle in its colour.
 * With `gl33`, the program runs on an OpenGL 3.3 core context (Mesa is
 * asked for exactly 3.3 with MESA_GL_VERSION_OVERRIDE, unless the caller
 * set it; a driver that still gives more skips the test, as nothing of the
 * portable tier would run) and must say so and that crowd runs the
 * portable tier; its picture is embed_gl33.c's three frames: wherever the
 * crowd alone is sky, the frame is the level alone pixel for pixel (crowd's
 * draw changed nothing of the application's drawing: the cube drawn after
 * it with the state the level left is the same cube); elsewhere the crowd
 * shows, the cube hides some of it and it hides some of the cube.
 * With `game`, PROGRAM is game_glfw33.c, a GLFW window (the test runs
 * under xvfb-run): three runs of its first 75 frames on the same 3.3
 * override, each with a screenshot of the last frame: the game, the level
 * alone (--characters 0), the crowd alone (--crowd-only); each must report
 * a 3.3 core context and the portable tier, and the three screenshots
 * pass the gl33 checks above. There the level of every frame is drawn
 * after the previous frame's crowd, with the state the game set once.
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

/* Runs args[0] with args (NULL-terminated), its standard output into
 * `log` when not NULL; its exit code, 128 + the signal that ended it, or
 * -1 when it could not be waited for. */
static int run(char *const args[], const char *log) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (log != NULL && freopen(log, "w", stdout) == NULL) {
            _exit(127);
        }
        execv(args[0], args);
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

/* The GL 3.3 example's output: its context and tier. 0 as wanted, 77 when
 * the driver gave another version, 1 otherwise. */
static int check_gl33_log(const char *log) {
    char text[1024] = "";
    FILE *file = fopen(log, "r");
    size_t size = file != NULL ? fread(text, 1, sizeof text - 1, file) : 0;
    if (file != NULL) {
        fclose(file);
    }
    text[size] = '\0';
    fputs(text, stdout);
    const char *context = strstr(text, "context: OpenGL ");
    if (context != NULL && strncmp(context, "context: OpenGL 3.3 ", 20) != 0) {
        printf("SKIP: the driver gave another version than 3.3 for the request: %.40s\n", context);
        return 77;
    }
    CHECK_MSG(context != NULL && strncmp(context, "context: OpenGL 3.3 core ", 25) == 0,
              "the example does not report an OpenGL 3.3 core context");
    CHECK_MSG(strstr(text, "crowd tier: portable") != NULL,
              "the example does not report the portable tier");
    return 0;
}

/* The three frames embed_gl33.c and game_glfw33.c give: the frame, the
 * level alone, the crowd alone, each width x height, pixel (x, y) of
 * frame p at frames[p] + 4 * (y * stride + x). */
typedef struct gl33_frames {
    const uint8_t *frames[3];
    int width, height, stride;
} gl33_frames;

static const uint8_t *pixel(const gl33_frames *f, int p, int x, int y) {
    return f->frames[p] + 4 * ((size_t)y * (size_t)f->stride + (size_t)x);
}

static bool is_face(const uint8_t *p) {
    for (int f = 0; f < 6; f++) {
        if (is(p, gl33_faces[f])) {
            return true;
        }
    }
    return false;
}

static void check_gl33(const gl33_frames *f) {
    enum { FRAME, LEVEL, CROWD };
    uint32_t crowd = 0, outside_changed = 0, shown = 0, cube_over_crowd = 0, crowd_over_cube = 0;
    uint32_t ground = 0, cube = 0;
    for (int y = 0; y < f->height; y++) {
        for (int x = 0; x < f->width; x++) {
            const uint8_t *frame = pixel(f, FRAME, x, y), *level = pixel(f, LEVEL, x, y);
            bool in_crowd = !is(pixel(f, CROWD, x, y), gl33_sky);
            bool same = memcmp(frame, level, 4) == 0;
            crowd += in_crowd;
            outside_changed += !in_crowd && !same;
            shown += in_crowd && !same;
            cube_over_crowd += in_crowd && is_face(frame);
            crowd_over_cube += is_face(level) && !is_face(frame);
            ground += is(level, gl33_ground);
            cube += is_face(level);
        }
    }
    printf("crowd alone %u px; frame vs level alone: %u px differ outside the crowd, %u inside; "
           "the boxes hide %u px of the crowd, the crowd %u px of the boxes; level: ground %u px, "
           "boxes %u px\n",
           (unsigned)crowd, (unsigned)outside_changed, (unsigned)shown, (unsigned)cube_over_crowd,
           (unsigned)crowd_over_cube, (unsigned)ground, (unsigned)cube);
    const uint32_t area = (uint32_t)(f->width * f->height);
    CHECK_MSG(ground > area / 10 && cube > area / 100, "the level did not draw itself");
    CHECK_MSG(crowd > area / 20, "too few crowd pixels");
    CHECK_MSG(outside_changed == 0, "crowd's draw changed the level's pixels where it is not");
    CHECK_MSG(shown > crowd / 2, "the crowd does not show in the frame");
    CHECK_MSG(cube_over_crowd > 20 && crowd_over_cube > 20,
              "the boxes and the crowd are not depth-tested against each other");
}

/* A PNG's RGBA8 pixels (malloc'd, top row first) and size; NULL when it
 * cannot be read. */
static uint8_t *read_png(const char *path, int *width, int *height) {
    png_image image = {.version = PNG_IMAGE_VERSION};
    uint8_t *rgba = NULL;
    if (png_image_begin_read_from_file(&image, path)) {
        image.format = PNG_FORMAT_RGBA;
        rgba = malloc(PNG_IMAGE_SIZE(image));
        if (rgba == NULL || !png_image_finish_read(&image, NULL, rgba, 0, NULL)) {
            free(rgba);
            rgba = NULL;
        }
    }
    *width = (int)image.width;
    *height = (int)image.height;
    return rgba;
}

static void check_embed_picture(const uint8_t *rgba, int width, int height) {
    CHECK(width == EMBED_WIDTH && height == EMBED_HEIGHT);
    if (width == EMBED_WIDTH && height == EMBED_HEIGHT) {
        check_embed(rgba);
    }
}

static void check_gl33_picture(const uint8_t *rgba, int width, int height) {
    CHECK(width == GL33_WIDTH * GL33_PANELS && height == GL33_HEIGHT);
    if (width == GL33_WIDTH * GL33_PANELS && height == GL33_HEIGHT) {
        gl33_frames f = {{rgba, rgba + 4 * GL33_WIDTH, rgba + 8 * GL33_WIDTH},
                         GL33_WIDTH,
                         GL33_HEIGHT,
                         GL33_WIDTH * GL33_PANELS};
        check_gl33(&f);
    }
}

/* 75 frames: the last at 74/60 s, the third of the crowd that switched
 * clips at 1 s half-way through its 0.4 s crossfade. */
#define GAME_FRAMES "75"

/* game_glfw33.c, three runs of the same frames: the game, the level alone
 * (no characters), the crowd alone (no level); 77 when the first skips or
 * gets another context than 3.3, 1 on a failure, else 0. The picture of a
 * run that failed is still checked: it shows what went wrong. */
static int check_game(const char *program) {
    static const char *const extra[3][3] = {{NULL}, {"--characters", "0", NULL}, {"--crowd-only"}};
    static const char *const pictures[3] = {"game.png", "level.png", "crowd.png"};
    static const char *const what[3] = {"the game", "the level alone", "the crowd alone"};
    uint8_t *rgba[3] = {NULL, NULL, NULL};
    int width[3] = {0, 0, 0}, height[3] = {0, 0, 0};
    for (int r = 0; r < 3; r++) {
        char *args[8] = {(char *)program, "--frames", GAME_FRAMES, "--screenshot",
                         (char *)pictures[r]};
        int n = 5;
        for (int k = 0; extra[r][k] != NULL; k++) {
            args[n++] = (char *)extra[r][k];
        }
        args[n] = NULL;
        char log[32];
        snprintf(log, sizeof log, "game%d.txt", r);
        int code = run(args, log);
        if (code == 77 && r == 0) {
            printf("SKIP: %s found no window with an OpenGL 3.3 core context\n", program);
            return 77;
        }
        CHECK_MSG(code == 0, "%s (%s) exited with %d", program, what[r], code);
        if (check_gl33_log(log) == 77) {
            return 77;
        }
        rgba[r] = read_png(pictures[r], &width[r], &height[r]);
        CHECK_MSG(rgba[r] != NULL, "%s unreadable", pictures[r]);
        CHECK_MSG(rgba[r] == NULL || (width[r] == GAME_WIDTH && height[r] == GAME_HEIGHT),
                  "%s is %dx%d, not %dx%d", pictures[r], width[r], height[r], GAME_WIDTH,
                  GAME_HEIGHT);
    }
    bool sized = true;
    for (int r = 0; r < 3; r++) {
        sized = sized && rgba[r] != NULL && width[r] == GAME_WIDTH && height[r] == GAME_HEIGHT;
    }
    if (sized) {
        gl33_frames f = {{rgba[0], rgba[1], rgba[2]}, GAME_WIDTH, GAME_HEIGHT, GAME_WIDTH};
        check_gl33(&f);
    }
    for (int r = 0; r < 3; r++) {
        free(rgba[r]);
    }
    return check_finish();
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: example_test PROGRAM [embed|gl33|game]\n");
        return 1;
    }
    check_enter_temp_dir("example");
    const char *mode = argc > 2 ? argv[2] : "";
    bool gl33 = strcmp(mode, "gl33") == 0, game = strcmp(mode, "game") == 0;
    if (gl33 || game) {
        /* Mesa answers a 3.3 core request with 4.5 (tools/host/host.h). */
        setenv("MESA_GL_VERSION_OVERRIDE", "3.3", 0);
    }
    if (game) {
        return check_game(argv[1]);
    }
    char *args[3] = {argv[1], "example.png", NULL};
    int code = run(args, gl33 ? "example.txt" : NULL);
    if (code == 77) {
        printf("SKIP: %s found no OpenGL %s context\n", argv[1], gl33 ? "3.3 core" : "4.5");
        return 77;
    }
    CHECK_MSG(code == 0, "%s exited with %d", argv[1], code);
    if (gl33 && check_gl33_log("example.txt") == 77) {
        return 77;
    }
    /* Also after a failure: a program that wrote its picture shows what
     * went wrong in it. */
    int width = 0, height = 0;
    uint8_t *rgba = read_png("example.png", &width, &height);
    CHECK_MSG(rgba != NULL, "example.png unreadable");
    if (rgba != NULL && strcmp(mode, "embed") == 0) {
        check_embed_picture(rgba, width, height);
    }
    if (rgba != NULL && gl33) {
        check_gl33_picture(rgba, width, height);
    }
    free(rgba);
    return check_finish();
}
