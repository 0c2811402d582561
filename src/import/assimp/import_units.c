/* import_units.c - the file's length unit as assimp's formats declare it
 * (the asset is put in metres by scene/scene_units.c).
 *
 * Two formats that assimp reads declare a unit: FBX (GlobalSettings
 * UnitScaleFactor, centimetres per unit, which assimp 5.2 passes on as
 * scene metadata and leaves in the coordinates) and Collada (<unit
 * meter="..."> in the document's <asset>, which assimp applies itself, in
 * its root node's transform, without saying so). Every other format is
 * taken as metres, as glTF is.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/assimp/import_internal.h"

/* The Collada <unit> sits in the document's first <asset>, near its top. */
#define COLLADA_HEAD_BYTES 65536

static bool scene_unit_factor(const struct aiScene *scene, double *out) {
    const struct aiMetadata *meta = scene->mMetaData;
    for (uint32_t k = 0; meta != NULL && meta->mKeys != NULL && k < meta->mNumProperties; k++) {
        if (strcmp(meta->mKeys[k].data, "UnitScaleFactor") != 0 || meta->mValues == NULL ||
            meta->mValues[k].mData == NULL) {
            continue;
        }
        const struct aiMetadataEntry *entry = &meta->mValues[k];
        if (entry->mType == AI_DOUBLE) {
            *out = *(const double *)entry->mData;
        } else if (entry->mType == AI_FLOAT) {
            *out = *(const float *)entry->mData;
        } else {
            continue;
        }
        return isfinite(*out) && *out > 0.0;
    }
    return false;
}

/* Offset of `token` in bytes [from, size), or size when absent. */
static size_t find(const uint8_t *bytes, size_t size, size_t from, const char *token) {
    size_t length = strlen(token);
    for (size_t i = from; i + length <= size; i++) {
        if (memcmp(bytes + i, token, length) == 0) {
            return i;
        }
    }
    return size;
}

/* meter="X" of the first <unit ...> element of a Collada document. */
static bool collada_unit(const uint8_t *head, size_t size, double *out) {
    size = size < COLLADA_HEAD_BYTES ? size : COLLADA_HEAD_BYTES;
    if (find(head, size, 0, "<COLLADA") == size) {
        return false;
    }
    size_t unit = find(head, size, 0, "<unit");
    size_t end = find(head, size, unit, ">");
    size_t meter = find(head, end, unit, "meter=");
    if (meter + 7 >= end || (head[meter + 6] != '"' && head[meter + 6] != '\'')) {
        return false;
    }
    char number[64];
    size_t n = 0;
    for (size_t i = meter + 7; i < end && head[i] != head[meter + 6] && n + 1 < sizeof number;
         i++) {
        number[n++] = (char)head[i];
    }
    number[n] = '\0';
    char *stop = NULL;
    double value = strtod(number, &stop);
    *out = value;
    return n > 0 && *stop == '\0' && isfinite(value) && value > 0.0;
}

void crowd__import_units_find(const struct aiScene *scene, const uint8_t *head, size_t head_size,
                              import_units *out) {
    out->file_m = 1.0;
    out->applied_by_assimp = 1.0;
    out->source = NULL;
    double factor = 0.0;
    if (scene_unit_factor(scene, &factor)) {
        out->file_m = factor * 0.01;
        out->source = "FBX UnitScaleFactor";
    } else if (head != NULL && collada_unit(head, head_size, &factor)) {
        out->file_m = factor;
        out->applied_by_assimp = factor;
        out->source = "Collada <unit>";
    }
}
