/* One-flag error handling for cJSON document building (write_json.h). */
#include "bake/write_json.h"

#include <stddef.h>

cJSON *json_put(bool *failed, cJSON *parent, const char *key, cJSON *item) {
    bool ok = item != NULL && parent != NULL &&
              (key != NULL ? cJSON_AddItemToObject(parent, key, item)
                           : cJSON_AddItemToArray(parent, item));
    if (!ok) {
        cJSON_Delete(item);
        *failed = true;
        return NULL;
    }
    return item;
}

void json_put_number(bool *failed, cJSON *parent, const char *key, double value) {
    json_put(failed, parent, key, cJSON_CreateNumber(value));
}

void json_put_string(bool *failed, cJSON *parent, const char *key, const char *value) {
    json_put(failed, parent, key, cJSON_CreateString(value));
}

void json_put_bool(bool *failed, cJSON *parent, const char *key, bool value) {
    json_put(failed, parent, key, cJSON_CreateBool(value));
}

void json_put_floats(bool *failed, cJSON *parent, const char *key, const float *values, int count) {
    json_put(failed, parent, key, cJSON_CreateFloatArray(values, count));
}
