/* crowd__core_file_read (core_internal.h): open, fstat for the size, read until
 * that many bytes arrived. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core_internal.h"

crowd_result crowd__core_file_read(const char *path, size_t max_bytes, uint8_t **out_data,
                                   size_t *out_size, crowd_error *error) {
    return crowd__core_file_read_with(NULL, path, max_bytes, out_data, out_size, error);
}

crowd_result crowd__core_file_read_with(const crowd_allocator *allocator, const char *path,
                                        size_t max_bytes, uint8_t **out_data, size_t *out_size,
                                        crowd_error *error) {
    *out_data = NULL;
    *out_size = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        return crowd__core_system_error(error, CROWD_ERROR_IO, path,
                                        errno == ENOENT ? "missing" : "cannot open", errno);
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int errnum = errno;
        close(fd);
        return crowd__core_system_error(error, CROWD_ERROR_IO, path, "cannot inspect", errnum);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return crowd_error_set(error, CROWD_ERROR_IO, path, "not a regular file");
    }
    if ((uint64_t)st.st_size > (uint64_t)max_bytes) {
        close(fd);
        return crowd_error_set(error, CROWD_ERROR_LIMIT, path,
                               "%llu bytes, more than the %zu accepted",
                               (unsigned long long)st.st_size, max_bytes);
    }
    size_t size = (size_t)st.st_size;
    uint8_t *data = crowd__mem_alloc(allocator, size > 0 ? size : 1);
    if (data == NULL) {
        close(fd);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path,
                               "out of memory for %zu bytes", size);
    }
    size_t done = 0;
    while (done < size) {
        ssize_t got = read(fd, data + done, size - done);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            int errnum = got < 0 ? errno : 0;
            close(fd);
            crowd__mem_free(allocator, data);
            return errnum ? crowd__core_system_error(error, CROWD_ERROR_IO, path, "cannot read",
                                                     errnum)
                          : crowd_error_set(error, CROWD_ERROR_IO, path,
                                            "file shrank while being read");
        }
        done += (size_t)got;
    }
    close(fd);
    *out_data = data;
    *out_size = size;
    return CROWD_OK;
}
