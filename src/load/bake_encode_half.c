/* IEEE 754 half floats, written out because C11 has no _Float16 we can rely
 * on and the rounding must be the same on every machine (round to nearest
 * even, like GPUs and OpenEXR). */
#include "load/bake_internal.h"

#include <string.h>

uint16_t crowd__bake_half_from_float(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint32_t sign = (bits >> 16) & 0x8000u;
    uint32_t exponent = (bits >> 23) & 0xffu;
    uint32_t mantissa = bits & 0x7fffffu;
    if (exponent == 0xffu) {
        return (uint16_t)(sign | 0x7c00u | (mantissa != 0 ? 0x200u : 0u));
    }
    int32_t half_exponent = (int32_t)exponent - 127 + 15;
    if (half_exponent >= 31) {
        return (uint16_t)(sign | 0x7c00u);
    }
    if (half_exponent <= 0) {
        /* Subnormal half: value = m * 2^-24, m = full mantissa >> shift. */
        if (half_exponent < -10) {
            return (uint16_t)sign;
        }
        uint32_t full = mantissa | 0x800000u;
        uint32_t shift = (uint32_t)(14 - half_exponent);
        uint32_t result = full >> shift;
        uint32_t rest = full & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1u);
        if (rest > halfway || (rest == halfway && (result & 1u))) {
            result++; /* may carry into the smallest normal: the bits are right */
        }
        return (uint16_t)(sign | result);
    }
    uint32_t result = ((uint32_t)half_exponent << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u))) {
        result++; /* a carry rolls into the exponent, up to infinity */
    }
    return (uint16_t)(sign | result);
}

float crowd__bake_half_to_float(uint16_t half) {
    uint32_t sign = ((uint32_t)half & 0x8000u) << 16;
    uint32_t exponent = ((uint32_t)half >> 10) & 0x1fu;
    uint32_t mantissa = (uint32_t)half & 0x3ffu;
    uint32_t bits;
    if (exponent == 0x1fu) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent - 15u + 127u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else {
        /* Subnormal half: normalise the mantissa into a float exponent. */
        uint32_t e = 127u - 15u + 1u;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            e--;
        }
        bits = sign | (e << 23) | ((mantissa & 0x3ffu) << 13);
    }
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}
