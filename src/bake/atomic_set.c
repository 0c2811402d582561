/* All-or-nothing file sets (atomic_set.h): temporaries, backups by hard
 * link, rename into place (the last file last), and the way back on any
 * failure. */
#define _XOPEN_SOURCE 700

#include "bake/atomic_set.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/core_internal.h"

/* How a file that the set replaces is kept until the set succeeds. */
typedef enum backup_state {
    BACKUP_NONE,       /* nothing at the final path */
    BACKUP_LINK,       /* hard link at backup_path, original still in place */
    BACKUP_NEEDS_MOVE, /* no hard links here: moved aside just before the rename */
    BACKUP_MOVED,      /* original moved to backup_path */
} backup_state;

struct atomic_file {
    char *final_path;
    char *temp_path;
    char *backup_path;
    int fd;
    bool finished;
    bool remove;  /* a stale file to delete at commit, not a new one */
    bool renamed; /* applied: renamed into place, or removed */
    backup_state backup;
    uint64_t append_offset;
    uint64_t size_bytes; /* of the finished file */
    uint32_t crc32;      /* of the finished file's bytes as on disk */
    char failure[200];   /* first failure, "" while none */
};

struct atomic_set {
    char *dir;
    char **created_dirs; /* in creation order, removed in reverse on abort */
    uint32_t created_count;
    char **sync_dirs; /* folders holding files of the set, fsync'ed at commit */
    uint32_t sync_count;
    atomic_file **files;
    uint32_t file_count;
};

static crowd_result system_error(crowd_error *error, const char *path, const char *what,
                                 int errnum) {
    return crowd__core_system_error(error, CROWD_ERROR_OUTPUT, path, what, errnum);
}

static char *join_path(const char *dir, const char *name) {
    size_t length = strlen(dir) + 1 + strlen(name) + 1;
    char *path = malloc(length);
    if (path != NULL) {
        snprintf(path, length, "%s/%s", dir, name);
    }
    return path;
}

static bool push_string(char ***list, uint32_t *count, char *text) {
    char **grown = realloc(*list, (*count + 1) * sizeof **list);
    if (grown == NULL) {
        return false;
    }
    grown[(*count)++] = text;
    *list = grown;
    return true;
}

/* Creates `path` if missing; remembers that it did. */
static crowd_result ensure_dir(atomic_set *set, const char *path, crowd_error *error) {
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            return system_error(error, path, "cannot use as output folder", ENOTDIR);
        }
        return CROWD_OK;
    }
    if (errno != ENOENT) {
        return system_error(error, path, "cannot use as output folder", errno);
    }
    if (mkdir(path, 0777) != 0) {
        if (errno == EEXIST) {
            return CROWD_OK;
        }
        return system_error(error, path, "cannot create folder", errno);
    }
    char *copy = crowd__core_copy_string(path);
    if (copy == NULL || !push_string(&set->created_dirs, &set->created_count, copy)) {
        free(copy);
        rmdir(path);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    return CROWD_OK;
}

/* mkdir -p, one component at a time so each created folder is known. */
static crowd_result ensure_dirs(atomic_set *set, const char *dir, crowd_error *error) {
    char *path = crowd__core_copy_string(dir);
    if (path == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, dir, "out of memory");
    }
    crowd_result result = CROWD_OK;
    for (char *p = path + 1; *p != '\0' && result == CROWD_OK; p++) {
        if (*p == '/' && p[-1] != '/') {
            *p = '\0';
            result = ensure_dir(set, path, error);
            *p = '/';
        }
    }
    if (result == CROWD_OK) {
        result = ensure_dir(set, path, error);
    }
    free(path);
    return result;
}

static crowd_result add_sync_dir(atomic_set *set, const char *dir, crowd_error *error) {
    for (uint32_t i = 0; i < set->sync_count; i++) {
        if (strcmp(set->sync_dirs[i], dir) == 0) {
            return CROWD_OK;
        }
    }
    char *copy = crowd__core_copy_string(dir);
    if (copy == NULL || !push_string(&set->sync_dirs, &set->sync_count, copy)) {
        free(copy);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, dir, "out of memory");
    }
    return CROWD_OK;
}

crowd_result crowd__atomic_set_begin(const char *dir, atomic_set **out_set, crowd_error *error) {
    *out_set = NULL;
    if (dir == NULL || dir[0] == '\0') {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, "", "no output folder given");
    }
    atomic_set *set = calloc(1, sizeof *set);
    if (set == NULL || (set->dir = crowd__core_copy_string(dir)) == NULL) {
        free(set);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, dir, "out of memory");
    }
    crowd_result result = ensure_dirs(set, dir, error);
    if (result == CROWD_OK) {
        result = add_sync_dir(set, dir, error);
    }
    if (result != CROWD_OK) {
        crowd__atomic_set_abort(set);
        return result;
    }
    *out_set = set;
    return CROWD_OK;
}

/* A name the set may create: "file" or "folder/file", no "." / ".." parts. */
static bool valid_relative_name(const char *name) {
    const char *slash = strchr(name, '/');
    if (slash != NULL && strchr(slash + 1, '/') != NULL) {
        return false;
    }
    const char *parts[2] = {name, slash ? slash + 1 : NULL};
    for (int i = 0; i < 2 && parts[i] != NULL; i++) {
        size_t length = (i == 0 && slash) ? (size_t)(slash - name) : strlen(parts[i]);
        if (length == 0 || (length == 1 && parts[i][0] == '.') ||
            (length == 2 && parts[i][0] == '.' && parts[i][1] == '.')) {
            return false;
        }
    }
    return true;
}

/* "folder/.file.tag-PID-N", created with O_EXCL so concurrent writers of the
 * same name never share a temporary. */
static int create_unique(const char *final_path, const char *tag, char **out_path, bool open_file) {
    const char *slash = strrchr(final_path, '/');
    size_t dir_length = (size_t)(slash - final_path);
    size_t length = strlen(final_path) + 48;
    char *path = malloc(length);
    if (path == NULL) {
        errno = ENOMEM;
        return -1;
    }
    for (unsigned attempt = 0; attempt < 1000; attempt++) {
        snprintf(path, length, "%.*s/.%s.%s-%ld-%u", (int)dir_length, final_path, slash + 1, tag,
                 (long)getpid(), attempt);
        int fd;
        if (open_file) {
            fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0666);
        } else {
            fd = link(final_path, path);
        }
        if (fd >= 0) {
            *out_path = path;
            return fd;
        }
        if (errno != EEXIST) {
            break;
        }
    }
    free(path);
    return -1;
}

/* A new entry of the set for `name`, its final path set. */
static crowd_result new_entry(atomic_set *set, const char *name, atomic_file **out_file,
                              crowd_error *error) {
    if (!valid_relative_name(name)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                               "not a file name the output set can hold");
    }
    atomic_file *file = calloc(1, sizeof *file);
    atomic_file **grown = realloc(set->files, (set->file_count + 1) * sizeof *grown);
    if (grown != NULL) {
        set->files = grown;
    }
    if (file == NULL || grown == NULL) {
        free(file);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, name, "out of memory");
    }
    set->files[set->file_count++] = file;
    file->fd = -1;
    file->final_path = join_path(set->dir, name);
    if (file->final_path == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, name, "out of memory");
    }
    *out_file = file;
    return CROWD_OK;
}

crowd_result crowd__atomic_set_add(atomic_set *set, const char *name, atomic_file **out_file,
                                   crowd_error *error) {
    *out_file = NULL;
    atomic_file *file = NULL;
    crowd_result result = new_entry(set, name, &file, error);
    if (result != CROWD_OK) {
        return result;
    }
    const char *slash = strrchr(file->final_path, '/');
    char *folder = malloc((size_t)(slash - file->final_path) + 1);
    if (folder == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, name, "out of memory");
    }
    memcpy(folder, file->final_path, (size_t)(slash - file->final_path));
    folder[slash - file->final_path] = '\0';
    result = ensure_dir(set, folder, error);
    if (result == CROWD_OK) {
        result = add_sync_dir(set, folder, error);
    }
    free(folder);
    if (result != CROWD_OK) {
        return result;
    }
    file->fd = create_unique(file->final_path, "tmp", &file->temp_path, true);
    if (file->fd < 0) {
        return system_error(error, file->final_path, "cannot create a temporary file", errno);
    }
    *out_file = file;
    return CROWD_OK;
}

crowd_result crowd__atomic_set_remove(atomic_set *set, const char *name, crowd_error *error) {
    for (uint32_t i = 0; i < set->file_count; i++) {
        const char *relative = set->files[i]->final_path + strlen(set->dir) + 1;
        if (strcmp(relative, name) == 0) {
            return CROWD_OK; /* written anew: replaced, not removed */
        }
    }
    atomic_file *file = NULL;
    crowd_result result = new_entry(set, name, &file, error);
    if (result == CROWD_OK) {
        file->remove = true;
        file->finished = true;
    }
    return result;
}

static void record_errno(atomic_file *file, const char *what, int errnum) {
    if (file->failure[0] == '\0') {
        char name[16];
        snprintf(file->failure, sizeof file->failure, "%s: %s (%s)", what, strerror(errnum),
                 crowd__core_errno_name(errnum, name));
    }
}

void crowd__atomic_file_fail(atomic_file *file, const char *reason) {
    if (file->failure[0] == '\0') {
        snprintf(file->failure, sizeof file->failure, "%s", reason);
    }
}

bool crowd__atomic_file_pwrite(atomic_file *file, const void *data, size_t size, uint64_t offset) {
    if (file->failure[0] != '\0' || file->fd < 0) {
        return false;
    }
    const unsigned char *bytes = data;
    while (size > 0) {
        ssize_t written = pwrite(file->fd, bytes, size, (off_t)offset);
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            record_errno(file, "cannot write", errno);
            return false;
        }
        bytes += written;
        size -= (size_t)written;
        offset += (uint64_t)written;
    }
    return true;
}

bool crowd__atomic_file_write(atomic_file *file, const void *data, size_t size) {
    if (!crowd__atomic_file_pwrite(file, data, size, file->append_offset)) {
        return false;
    }
    file->append_offset += size;
    return true;
}

crowd_result crowd__atomic_file_error(const atomic_file *file, crowd_error *error) {
    return crowd_error_set(error, CROWD_ERROR_OUTPUT, file->final_path, "%s",
                           file->failure[0] ? file->failure : "not written");
}

/* Size and CRC-32 of what the file holds, read back from the disk rather
 * than summed while writing, since writers may seek (OpenEXR's does). */
static void measure(atomic_file *file) {
    enum { CHUNK = 1 << 20 };
    unsigned char *buffer = malloc(CHUNK);
    if (buffer == NULL) {
        record_errno(file, "cannot read back", ENOMEM);
        return;
    }
    uLong crc = crc32(0L, Z_NULL, 0);
    uint64_t offset = 0;
    for (;;) {
        ssize_t got = pread(file->fd, buffer, CHUNK, (off_t)offset);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            record_errno(file, "cannot read back", errno);
            break;
        }
        if (got == 0) {
            break;
        }
        crc = crc32(crc, buffer, (uInt)got);
        offset += (uint64_t)got;
    }
    free(buffer);
    file->size_bytes = offset;
    file->crc32 = (uint32_t)crc;
}

crowd_result crowd__atomic_file_finish(atomic_file *file, crowd_error *error) {
    if (file->fd >= 0) {
        if (file->failure[0] == '\0' && fsync(file->fd) != 0) {
            record_errno(file, "cannot flush to disk", errno);
        }
        if (file->failure[0] == '\0') {
            measure(file);
        }
        if (close(file->fd) != 0) {
            record_errno(file, "cannot close", errno);
        }
        file->fd = -1;
    }
    if (file->failure[0] != '\0') {
        return crowd__atomic_file_error(file, error);
    }
    file->finished = true;
    return CROWD_OK;
}

crowd_result crowd__atomic_set_write(atomic_set *set, const char *name, const void *data,
                                     size_t size, crowd_error *error) {
    atomic_file *file = NULL;
    crowd_result result = crowd__atomic_set_add(set, name, &file, error);
    if (result != CROWD_OK) {
        return result;
    }
    crowd__atomic_file_write(file, data, size); /* a failure is kept and reported by finish */
    return crowd__atomic_file_finish(file, error);
}

const char *crowd__atomic_file_path(const atomic_file *file) {
    return file->final_path;
}

bool crowd__atomic_set_measured(const atomic_set *set, const char *name, uint64_t *size_bytes,
                                uint32_t *crc32_out) {
    for (uint32_t i = 0; i < set->file_count; i++) {
        const atomic_file *file = set->files[i];
        const char *relative = file->final_path + strlen(set->dir) + 1;
        if (!file->remove && file->finished && strcmp(relative, name) == 0) {
            *size_bytes = file->size_bytes;
            *crc32_out = file->crc32;
            return true;
        }
    }
    return false;
}

/* Keeps what `file` will replace. Nothing at the path needs nothing; a
 * folder or link there is refused, since the set only replaces files. */
static crowd_result keep_original(atomic_file *file, crowd_error *error) {
    struct stat st;
    if (lstat(file->final_path, &st) != 0) {
        if (errno == ENOENT) {
            return CROWD_OK;
        }
        return system_error(error, file->final_path, "cannot inspect", errno);
    }
    if (!S_ISREG(st.st_mode)) {
        if (file->remove) {
            return CROWD_OK; /* only files are ever removed */
        }
        return crowd_error_set(error, CROWD_ERROR_OUTPUT, file->final_path,
                               "exists and is not a regular file; not replacing it");
    }
    if (create_unique(file->final_path, "bak", &file->backup_path, false) == 0) {
        file->backup = BACKUP_LINK;
        return CROWD_OK;
    }
    int errnum = errno;
    if (errnum == EPERM || errnum == EXDEV || errnum == EMLINK || errnum == ENOTSUP ||
        errnum == EOPNOTSUPP || errnum == ENOSYS) {
        /* Filesystems without hard links: move the original aside instead. */
        file->backup_path = malloc(strlen(file->final_path) + 48);
        if (file->backup_path == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file->final_path,
                                   "out of memory");
        }
        const char *slash = strrchr(file->final_path, '/');
        sprintf(file->backup_path, "%.*s/.%s.bak-%ld", (int)(slash - file->final_path),
                file->final_path, slash + 1, (long)getpid());
        file->backup = BACKUP_NEEDS_MOVE;
        return CROWD_OK;
    }
    return system_error(error, file->final_path, "cannot keep a backup of the existing file",
                        errnum);
}

static crowd_result rename_into_place(atomic_file *file, crowd_error *error) {
    if (file->remove) {
        if (file->backup == BACKUP_LINK && unlink(file->final_path) != 0) {
            return system_error(error, file->final_path, "cannot remove the stale file", errno);
        }
        if (file->backup == BACKUP_NEEDS_MOVE && rename(file->final_path, file->backup_path) != 0) {
            return system_error(error, file->final_path, "cannot remove the stale file", errno);
        }
        file->backup = file->backup == BACKUP_NEEDS_MOVE ? BACKUP_MOVED : file->backup;
        file->renamed = file->backup != BACKUP_NONE;
        return CROWD_OK;
    }
    if (file->backup == BACKUP_NEEDS_MOVE) {
        if (rename(file->final_path, file->backup_path) != 0) {
            return system_error(error, file->final_path, "cannot move the existing file aside",
                                errno);
        }
        file->backup = BACKUP_MOVED;
    }
    if (rename(file->temp_path, file->final_path) != 0) {
        return system_error(error, file->final_path, "cannot rename into place", errno);
    }
    file->renamed = true;
    return CROWD_OK;
}

static crowd_result sync_dir(const char *dir, crowd_error *error) {
    int fd = open(dir, O_RDONLY);
    if (fd < 0) {
        return system_error(error, dir, "cannot open folder to flush it", errno);
    }
    int failed = fsync(fd) != 0 ? errno : 0;
    close(fd);
    if (failed != 0 && failed != EINVAL) { /* EINVAL: the filesystem cannot sync folders */
        return system_error(error, dir, "cannot flush folder to disk", failed);
    }
    return CROWD_OK;
}

/* Frees the set; temporaries that were not renamed and backups of files
 * left in place are removed, and optionally the folders the set created. */
static void release(atomic_set *set, bool remove_created_dirs) {
    for (uint32_t i = 0; i < set->file_count; i++) {
        atomic_file *file = set->files[i];
        if (file->fd >= 0) {
            close(file->fd);
        }
        if (file->temp_path != NULL && !file->renamed) {
            unlink(file->temp_path);
        }
        if (file->backup == BACKUP_LINK) {
            unlink(file->backup_path);
        }
        free(file->final_path);
        free(file->temp_path);
        free(file->backup_path);
        free(file);
    }
    for (uint32_t i = set->created_count; i-- > 0 && remove_created_dirs;) {
        rmdir(set->created_dirs[i]);
    }
    for (uint32_t i = 0; i < set->created_count; i++) {
        free(set->created_dirs[i]);
    }
    for (uint32_t i = 0; i < set->sync_count; i++) {
        free(set->sync_dirs[i]);
    }
    free(set->created_dirs);
    free(set->sync_dirs);
    free(set->files);
    free(set->dir);
    free(set);
}

/* Puts back what the renames replaced, newest first. */
static void roll_back(atomic_set *set) {
    for (uint32_t i = set->file_count; i-- > 0;) {
        atomic_file *file = set->files[i];
        if (file->backup == BACKUP_LINK || file->backup == BACKUP_MOVED) {
            if (file->renamed || file->backup == BACKUP_MOVED) {
                /* If even this fails, the backup stays on disk for the user. */
                rename(file->backup_path, file->final_path);
                file->backup = BACKUP_NONE;
            }
        } else if (file->renamed) {
            unlink(file->final_path);
        }
        file->renamed = false;
    }
}

crowd_result crowd__atomic_set_commit(atomic_set *set, crowd_error *error) {
    crowd_result result = CROWD_OK;
    for (uint32_t i = 0; i < set->file_count && result == CROWD_OK; i++) {
        if (!set->files[i]->finished) {
            result = crowd_error_set(error, CROWD_ERROR_OUTPUT, set->files[i]->final_path,
                                     "file was not finished before the set was committed");
        }
    }
    for (uint32_t i = 0; i < set->file_count && result == CROWD_OK; i++) {
        result = keep_original(set->files[i], error);
    }
    /* The last file written is the switch (a manifest naming the others):
     * it is renamed only once the others are in place on disk. */
    uint32_t last = set->file_count;
    for (uint32_t i = 0; i < set->file_count; i++) {
        last = set->files[i]->remove ? last : i;
    }
    for (uint32_t i = 0; i < set->file_count && result == CROWD_OK; i++) {
        for (uint32_t d = 0; d < set->sync_count && i == last && result == CROWD_OK; d++) {
            result = sync_dir(set->sync_dirs[d], error);
        }
        if (result == CROWD_OK) {
            result = rename_into_place(set->files[i], error);
        }
    }
    for (uint32_t i = 0; i < set->sync_count && result == CROWD_OK; i++) {
        result = sync_dir(set->sync_dirs[i], error);
    }
    if (result != CROWD_OK) {
        roll_back(set);
        release(set, true);
        return result;
    }
    /* Success: the backups are the only thing left to drop, and a subfolder
     * that held only removed files goes too. */
    for (uint32_t i = 0; i < set->file_count; i++) {
        atomic_file *file = set->files[i];
        if (file->backup == BACKUP_LINK || file->backup == BACKUP_MOVED) {
            unlink(file->backup_path);
        }
        file->backup = BACKUP_NONE;
    }
    for (uint32_t i = 0; i < set->file_count; i++) {
        char *slash = strrchr(set->files[i]->final_path, '/');
        if (set->files[i]->remove && set->files[i]->renamed &&
            (size_t)(slash - set->files[i]->final_path) > strlen(set->dir)) {
            *slash = '\0';
            rmdir(set->files[i]->final_path); /* fails, harmlessly, unless empty */
            *slash = '/';
        }
    }
    release(set, false);
    return CROWD_OK;
}

void crowd__atomic_set_abort(atomic_set *set) {
    if (set != NULL) {
        release(set, true);
    }
}
