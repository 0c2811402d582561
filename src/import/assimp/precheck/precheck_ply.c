/* precheck_ply.c - PLY's "element NAME COUNT" declarations and the list
 * lengths in its data against the bytes that hold them.
 *
 * assimp 5.2 resizes its instance arrays to the declared count and every
 * list to its declared length before reading them, so a 200-byte file can
 * ask for gigabytes. The header is read as assimp reads it (an unknown
 * property type ends its element's property list), then:
 * - every element instance needs at least its fixed bytes: the sum of its
 *   scalar sizes and list-length sizes in binary, one number per property
 *   in ASCII (one byte when it has no properties);
 * - binary data is walked instance by instance, each list's length read
 *   and checked against the bytes left;
 * - in ASCII, where an instance is a line, a list cannot be longer than
 *   the numbers its line has room for. */
#include <stdio.h>
#include <string.h>

#include "import/assimp/precheck/precheck.h"

#define PLY_MAX_ELEMENTS 64u
#define PLY_MAX_PROPERTIES 64u

typedef struct ply_property {
    bool is_list;
    uint8_t length_size; /* bytes of a list's length (binary) */
    bool length_signed;
    uint8_t size; /* bytes of the scalar or of each list item */
} ply_property;

typedef struct ply_element {
    char name[32];
    uint64_t count;
    uint32_t property_count;
    bool properties_closed; /* an unknown type was met: assimp reads no more */
    ply_property properties[PLY_MAX_PROPERTIES];
} ply_element;

typedef struct ply_header {
    enum { PLY_ASCII, PLY_LITTLE, PLY_BIG } format;
    uint32_t element_count;
    ply_element elements[PLY_MAX_ELEMENTS];
    size_t data; /* offset of the first byte after end_header's line */
} ply_header;

/* A line as words: up to 6 words of up to 31 characters. */
typedef struct ply_words {
    char word[6][32];
    uint32_t count;
} ply_words;

static size_t line_end(const precheck_input *in, size_t at) {
    while (at < in->size && in->bytes[at] != '\n' && in->bytes[at] != '\r') {
        at++;
    }
    return at;
}

static void split_words(const precheck_input *in, size_t start, size_t end, ply_words *out) {
    memset(out, 0, sizeof *out);
    size_t at = start;
    while (at < end && out->count < 6) {
        while (at < end && (in->bytes[at] == ' ' || in->bytes[at] == '\t')) {
            at++;
        }
        size_t length = 0;
        while (at < end && in->bytes[at] != ' ' && in->bytes[at] != '\t') {
            if (length < sizeof out->word[0] - 1) {
                out->word[out->count][length++] = (char)in->bytes[at];
            }
            at++;
        }
        if (length > 0) {
            out->count++;
        }
    }
}

/* Size of a PLY scalar type, 0 when unknown; *is_signed for the signed ones. */
static uint8_t type_size(const char *type, bool *is_signed) {
    static const struct {
        const char *name;
        uint8_t size;
        bool is_signed;
    } types[] = {{"char", 1, true},    {"int8", 1, true},    {"uchar", 1, false},
                 {"uint8", 1, false},  {"short", 2, true},   {"int16", 2, true},
                 {"ushort", 2, false}, {"uint16", 2, false}, {"int", 4, true},
                 {"int32", 4, true},   {"uint", 4, false},   {"uint32", 4, false},
                 {"float", 4, true},   {"float32", 4, true}, {"double", 8, true},
                 {"float64", 8, true}, {"double64", 8, true}};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        if (strcmp(type, types[t].name) == 0) {
            *is_signed = types[t].is_signed;
            return types[t].size;
        }
    }
    return 0;
}

static crowd_result ply_fail(const precheck_input *in, const char *what) {
    return crowd_error_set(in->error, CROWD_ERROR_INVALID_DATA, in->file, "PLY %s", what);
}

/* Adds a property; false when the element has no room for it. */
static bool add_property(ply_element *element, const ply_words *words) {
    ply_property p;
    memset(&p, 0, sizeof p);
    bool item_signed = false;
    p.is_list = strcmp(words->word[1], "list") == 0;
    if (p.is_list) {
        p.length_size = type_size(words->word[2], &p.length_signed);
        p.size = type_size(words->word[3], &item_signed);
    } else {
        p.size = type_size(words->word[1], &item_signed);
    }
    if (p.size == 0 || (p.is_list && p.length_size == 0)) {
        element->properties_closed = true;
        return true;
    }
    if (element->property_count == PLY_MAX_PROPERTIES) {
        return false;
    }
    element->properties[element->property_count++] = p;
    return true;
}

/* Reads the header; false (not a PLY crowd can check, left to assimp) when
 * the magic, format or end_header is missing, or it has more elements or
 * properties than checked here. */
static bool read_header(const precheck_input *in, ply_header *h, bool *too_many) {
    memset(h, 0, sizeof *h);
    size_t at = 0;
    bool has_format = false;
    ply_element *element = NULL;
    for (uint32_t line = 0; at < in->size; line++) {
        size_t end = line_end(in, at);
        ply_words words;
        split_words(in, at, end, &words);
        at = end;
        if (at < in->size && in->bytes[at] == '\r') {
            at++;
        }
        if (at < in->size && in->bytes[at] == '\n') {
            at++;
        }
        if (line == 0) {
            if (words.count == 0 ||
                (strcmp(words.word[0], "ply") != 0 && strcmp(words.word[0], "PLY") != 0)) {
                return false;
            }
        } else if (strcmp(words.word[0], "format") == 0 && words.count >= 2) {
            has_format = true;
            h->format = strcmp(words.word[1], "binary_little_endian") == 0 ? PLY_LITTLE
                        : strcmp(words.word[1], "binary_big_endian") == 0  ? PLY_BIG
                                                                           : PLY_ASCII;
        } else if (strcmp(words.word[0], "element") == 0 && words.count >= 3) {
            if (h->element_count == PLY_MAX_ELEMENTS) {
                *too_many = true;
                return false;
            }
            element = &h->elements[h->element_count++];
            memcpy(element->name, words.word[1], sizeof element->name);
            size_t digits = 0;
            precheck_input number = {
                (const uint8_t *)words.word[2], strlen(words.word[2]), NULL, NULL, NULL, NULL};
            if (!crowd__precheck_read_count(&number, &digits, &element->count)) {
                element->count = 0;
            }
        } else if (strcmp(words.word[0], "property") == 0 && words.count >= 3 && element != NULL &&
                   !element->properties_closed) {
            if (!add_property(element, &words)) {
                *too_many = true;
                return false;
            }
        } else if (strcmp(words.word[0], "end_header") == 0) {
            h->data = at;
            return has_format;
        }
    }
    return false;
}

/* The bytes an instance takes at least (binary: exactly, without lists). */
static uint64_t fixed_bytes(const ply_header *h, const ply_element *e) {
    uint64_t bytes = 0;
    for (uint32_t p = 0; p < e->property_count; p++) {
        const ply_property *prop = &e->properties[p];
        bytes += h->format == PLY_ASCII ? 2 : prop->is_list ? prop->length_size : prop->size;
    }
    return bytes;
}

static uint64_t read_binary(const uint8_t *p, uint8_t size, bool big_endian, bool is_signed) {
    uint64_t value = 0;
    for (uint8_t i = 0; i < size; i++) {
        value = value << 8 | p[big_endian ? i : size - 1 - i];
    }
    if (is_signed && size < 8 && (value >> (size * 8 - 1)) != 0) {
        return UINT64_MAX; /* negative: assimp's unsigned conversion makes it huge */
    }
    return value;
}

static crowd_result walk_binary(const precheck_input *in, const ply_header *h) {
    size_t at = h->data;
    char what[160];
    for (uint32_t e = 0; e < h->element_count; e++) {
        const ply_element *element = &h->elements[e];
        bool has_list = false;
        for (uint32_t p = 0; p < element->property_count; p++) {
            has_list = has_list || element->properties[p].is_list;
        }
        if (!has_list) {
            at += (size_t)(element->count * fixed_bytes(h, element)); /* checked to fit */
            continue;
        }
        for (uint64_t i = 0; i < element->count; i++) {
            for (uint32_t p = 0; p < element->property_count; p++) {
                const ply_property *prop = &element->properties[p];
                if (!prop->is_list) {
                    at += prop->size;
                    continue;
                }
                uint64_t length = in->size - at >= prop->length_size
                                      ? read_binary(in->bytes + at, prop->length_size,
                                                    h->format == PLY_BIG, prop->length_signed)
                                      : UINT64_MAX;
                at += prop->length_size;
                if (at > in->size || length > (in->size - at) / prop->size) {
                    snprintf(
                        what, sizeof what,
                        "element '%.31s' %llu: a list of %llu items runs past the end of the file",
                        element->name, (unsigned long long)i, (unsigned long long)length);
                    return ply_fail(in, what);
                }
                at += (size_t)(length * prop->size);
            }
        }
    }
    return CROWD_OK;
}

/* One line per instance; a list's length is checked against the numbers
 * the rest of its line has room for (a digit and a separator each). */
static crowd_result walk_ascii(const precheck_input *in, const ply_header *h) {
    size_t at = h->data;
    char what[160];
    for (uint32_t e = 0; e < h->element_count; e++) {
        const ply_element *element = &h->elements[e];
        bool has_list = false;
        for (uint32_t p = 0; p < element->property_count; p++) {
            has_list = has_list || element->properties[p].is_list;
        }
        for (uint64_t i = 0; i < element->count && at < in->size; i++) {
            while (at < in->size && (in->bytes[at] == '\n' || in->bytes[at] == '\r')) {
                at++;
            }
            size_t end = line_end(in, at);
            for (uint32_t p = 0; has_list && p < element->property_count && at < end; p++) {
                const ply_property *prop = &element->properties[p];
                while (at < end && (in->bytes[at] == ' ' || in->bytes[at] == '\t')) {
                    at++;
                }
                bool negative = at < end && in->bytes[at] == '-';
                uint64_t length = 0;
                precheck_input line = {in->bytes, end, in->file, NULL, NULL, NULL};
                size_t number = at + (negative ? 1 : 0);
                bool is_number = crowd__precheck_read_count(&line, &number, &length);
                while (at < end && in->bytes[at] != ' ' && in->bytes[at] != '\t') {
                    at++;
                }
                if (!prop->is_list || !is_number) {
                    continue;
                }
                if (negative && !prop->length_signed) {
                    length = 0; /* assimp reads no digits after the sign */
                }
                if ((negative && prop->length_signed && length > 0) ||
                    length > (end - at + 1) / 2) {
                    snprintf(
                        what, sizeof what,
                        "element '%.31s' %llu: a list of %s%llu items on a line with room for %llu",
                        element->name, (unsigned long long)i, negative ? "-" : "",
                        (unsigned long long)length, (unsigned long long)((end - at + 1) / 2));
                    return ply_fail(in, what);
                }
                for (uint64_t item = 0; item < length && at < end; item++) {
                    while (at < end && (in->bytes[at] == ' ' || in->bytes[at] == '\t')) {
                        at++;
                    }
                    while (at < end && in->bytes[at] != ' ' && in->bytes[at] != '\t') {
                        at++;
                    }
                }
            }
            at = end;
        }
    }
    return CROWD_OK;
}

crowd_result crowd__precheck_ply(const precheck_input *in) {
    ply_header header;
    ply_header *h = &header;
    bool too_many = false;
    if (!read_header(in, h, &too_many)) {
        return too_many ? crowd_error_set(in->error, CROWD_ERROR_UNSUPPORTED, in->file,
                                          "PLY header with more than %u elements or %u properties "
                                          "in one element",
                                          PLY_MAX_ELEMENTS, PLY_MAX_PROPERTIES)
                        : CROWD_OK;
    }
    uint64_t available = in->size - h->data + (h->format == PLY_ASCII ? 1 : 0);
    uint64_t needed = 0;
    char what[200];
    for (uint32_t e = 0; e < h->element_count; e++) {
        const ply_element *element = &h->elements[e];
        /* An instance without properties takes no bytes, but assimp still
         * allocates it: one byte each keeps the count honest. */
        uint64_t bytes = fixed_bytes(h, element) > 0 ? fixed_bytes(h, element) : 1;
        if (element->count > (available - needed) / bytes) {
            snprintf(what, sizeof what,
                     "header declares %llu '%.31s' elements of at least %llu bytes each; the file "
                     "has %llu bytes of data%s",
                     (unsigned long long)element->count, element->name, (unsigned long long)bytes,
                     (unsigned long long)(in->size - h->data), e > 0 ? " for all elements" : "");
            return ply_fail(in, what);
        }
        needed += element->count * bytes;
    }
    return h->format == PLY_ASCII ? walk_ascii(in, h) : walk_binary(in, h);
}
