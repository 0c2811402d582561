/* test_files.h - file helpers the tests share: a whole file into memory, a
 * buffer onto disk, and removing a folder tree a test made (made writable
 * first, since tests make read-only folders to provoke errors).
 *
 * Include with _POSIX_C_SOURCE 200809L (or _XOPEN_SOURCE 700) defined.
 */
#ifndef CROWD_TEST_FILES_H
#define CROWD_TEST_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The bytes of `path` in a malloc'ed buffer with a '\0' after them (so text
 * can be used as a string), *size set; NULL when it cannot be read. */
static inline char *test_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = length >= 0 ? malloc((size_t)length + 1) : NULL;
    size_t got = data != NULL ? fread(data, 1, (size_t)length, f) : 0;
    fclose(f);
    if (data != NULL) {
        data[got] = '\0';
        *size = got;
    }
    return data;
}

/* 0 when all `size` bytes reached `path`, else -1. */
static inline int test_write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return -1;
    }
    size_t put = fwrite(data, 1, size, f);
    return fclose(f) == 0 && put == size ? 0 : -1;
}

/* rm -rf `path`; entries whose path would not fit 1024 bytes are left. */
static inline void test_remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) {
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    chmod(path, 0755);
    DIR *dir = opendir(path);
    struct dirent *entry;
    while (dir != NULL && (entry = readdir(dir)) != NULL) {
        char child[1024];
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0 &&
            snprintf(child, sizeof child, "%s/%s", path, entry->d_name) < (int)sizeof child) {
            test_remove_tree(child);
        }
    }
    if (dir != NULL) {
        closedir(dir);
    }
    rmdir(path);
}

#endif
