/* What the EXR reader and writer share (exr_texture.h). */
#include "load/exr_texture.h"

#include <stdio.h>
#include <string.h>

void crowd__exr_texture_printable(char *out, size_t size, const char *in) {
    size_t at = 0;
    for (const unsigned char *c = (const unsigned char *)(in ? in : ""); *c != '\0'; c++) {
        bool plain = *c >= 0x20 && *c <= 0x7E && *c != '\\';
        size_t need = plain ? 1 : 4;
        if (at + need >= size) {
            break;
        }
        if (plain) {
            out[at++] = (char)*c;
        } else {
            at += (size_t)snprintf(out + at, size - at, "\\x%02X", *c);
        }
    }
    if (size > 0) {
        out[at] = '\0';
    }
}

void crowd__exr_texture_on_error(exr_const_context_t context, exr_result_t code,
                                 const char *message) {
    void *user = NULL;
    if (exr_get_user_data(context, &user) != EXR_ERR_SUCCESS || user == NULL) {
        return;
    }
    exr_texture_message *captured = user;
    if (captured->text[0] == '\0') {
        /* OpenEXR quotes the header's names and types as found, raw bytes too. */
        char raw[sizeof captured->text];
        snprintf(raw, sizeof raw, "%s (%s)", message, exr_get_error_code_as_string(code));
        crowd__exr_texture_printable(captured->text, sizeof captured->text, raw);
    }
}

void crowd__exr_texture_note_failure(exr_texture_message *message, exr_result_t code) {
    if (message->text[0] == '\0') {
        snprintf(message->text, sizeof message->text, "%s", exr_get_default_error_message(code));
    }
}

int crowd__exr_texture_channel_index(const char *name) {
    static const char *const names[4] = {"R", "G", "B", "A"};
    for (int i = 0; i < 4; i++) {
        if (name != NULL && strcmp(name, names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

exr_pixel_type_t crowd__exr_texture_pixel_type(crowd_texel_format format) {
    return format == CROWD_TEXEL_RGBA16F ? EXR_PIXEL_HALF : EXR_PIXEL_FLOAT;
}

int32_t crowd__exr_texture_component_bytes(crowd_texel_format format) {
    return format == CROWD_TEXEL_RGBA16F ? 2 : 4;
}

void crowd__exr_texture_point_channels(exr_coding_channel_info_t *channels, int16_t count,
                                       uint8_t *texels, uint32_t width, int32_t start_y,
                                       crowd_texel_format format, bool decoding) {
    int32_t component = crowd__exr_texture_component_bytes(format);
    for (int16_t c = 0; c < count; c++) {
        int index = crowd__exr_texture_channel_index(channels[c].channel_name);
        uint8_t *base =
            texels + ((size_t)start_y * width) * 4 * (size_t)component + (size_t)index * component;
        channels[c].user_bytes_per_element = (int16_t)component;
        channels[c].user_data_type = (uint16_t)crowd__exr_texture_pixel_type(format);
        channels[c].user_pixel_stride = 4 * component;
        channels[c].user_line_stride = (int32_t)(width * 4u * (uint32_t)component);
        if (decoding) {
            channels[c].decode_to_ptr = base;
        } else {
            channels[c].encode_from_ptr = base;
        }
    }
}
