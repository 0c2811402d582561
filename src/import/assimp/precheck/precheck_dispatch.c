/* precheck_dispatch.c - which format checks an input gets, and the file
 * entry point (the file is mapped: most formats need only a few header
 * bytes, and a large FBX should not be read twice). */
#define _POSIX_C_SOURCE 200809L /* strncasecmp, mmap */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/assimp/precheck/precheck.h"

void crowd__precheck_skip_space(const precheck_input *in, size_t *at) {
    while (*at < in->size && (in->bytes[*at] == ' ' || in->bytes[*at] == '\t' ||
                              in->bytes[*at] == '\r' || in->bytes[*at] == '\n')) {
        (*at)++;
    }
}

bool crowd__precheck_read_count(const precheck_input *in, size_t *at, uint64_t *out) {
    size_t i = *at;
    uint64_t value = 0;
    while (i < in->size && in->bytes[i] >= '0' && in->bytes[i] <= '9') {
        uint64_t digit = (uint64_t)(in->bytes[i] - '0');
        value = value > (UINT64_MAX - digit) / 10 ? UINT64_MAX : value * 10 + digit;
        i++;
    }
    if (i == *at) {
        return false;
    }
    *at = i;
    *out = value;
    return true;
}

static bool starts_with(const precheck_input *in, const char *prefix, bool ignore_case) {
    size_t length = strlen(prefix);
    if (in->size < length) {
        return false;
    }
    return ignore_case ? strncasecmp((const char *)in->bytes, prefix, length) == 0
                       : memcmp(in->bytes, prefix, length) == 0;
}

static bool ext_is(const precheck_input *in, const char *ext) {
    return strcasecmp(in->ext, ext) == 0;
}

/* A token within the first `window` bytes, as assimp's signature check
 * looks for one (case-insensitive). */
static bool header_has(const precheck_input *in, const char *token, size_t window) {
    size_t length = strlen(token), end = in->size < window ? in->size : window;
    for (size_t i = 0; i + length <= end; i++) {
        if (strncasecmp((const char *)in->bytes + i, token, length) == 0) {
            return true;
        }
    }
    return false;
}

static crowd_result run_checks(const precheck_input *in) {
    crowd_result result = CROWD_OK;
    if ((ext_is(in, "off") || starts_with(in, "off", true))) {
        result = crowd__precheck_off(in);
    }
    if (result == CROWD_OK && (ext_is(in, "ply") || starts_with(in, "ply", true))) {
        result = crowd__precheck_ply(in);
    }
    if (result == CROWD_OK &&
        (ext_is(in, "stl") || header_has(in, "solid", 80) || header_has(in, "stl", 80))) {
        result = crowd__precheck_stl(in);
    }
    if (result == CROWD_OK && (ext_is(in, "md2") || starts_with(in, "IDP2", false))) {
        result = crowd__precheck_md2(in);
    }
    if (result == CROWD_OK && (ext_is(in, "md3") || starts_with(in, "IDP3", false))) {
        result = crowd__precheck_md3(in);
    }
    /* SMD has no signature: its extensions, or text that starts "version". */
    if (result == CROWD_OK &&
        (ext_is(in, "smd") || ext_is(in, "vta") ||
         (starts_with(in, "version", false) && header_has(in, "nodes", 200)))) {
        result = crowd__precheck_smd(in);
    }
    if (result == CROWD_OK && (ext_is(in, "md5mesh") || ext_is(in, "md5anim") ||
                               ext_is(in, "md5camera") || header_has(in, "MD5Version", 200))) {
        result = crowd__precheck_md5(in);
    }
    return result;
}

static const char *extension_of(const char *name) {
    const char *slash = name ? strrchr(name, '/') : NULL;
    const char *dot = name ? strrchr(slash ? slash : name, '.') : NULL;
    return dot ? dot + 1 : "";
}

crowd_result crowd__import_precheck_memory(const void *bytes, size_t size, const char *name,
                                           crowd_error *error) {
    precheck_input in = {bytes, size, name ? name : "(memory)", extension_of(name), NULL, error};
    return run_checks(&in);
}

crowd_result crowd__import_precheck_file(const char *path, const char *dir, crowd_error *error) {
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        crowd_result result =
            crowd_error_set(error, CROWD_ERROR_IO, path, "cannot open: %s", strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return result;
    }
    size_t size = (size_t)st.st_size;
    if (size == 0) {
        close(fd);
        return CROWD_OK; /* nothing to check; assimp says what an empty file is */
    }
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        return crowd_error_set(error, CROWD_ERROR_IO, path, "cannot map: %s", strerror(errno));
    }
    precheck_input in = {map, size, path, extension_of(path), dir, error};
    crowd_result result = run_checks(&in);
    munmap(map, size);
    return result;
}
