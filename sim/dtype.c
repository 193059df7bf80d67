/*
 * dtype.c - CANN's element types for the simulator's kernels: sizes,
 * loads and stores, and the conversions of CANN's Cast with its rounding
 * and saturation (dtype.h cites the rules). Every kernel reads and writes
 * elements through these functions, so a type's meaning is written once.
 * The types: float32, float16, bfloat16, double, int8, uint8, int16,
 * uint16, int32, uint32, int64, uint64 and bool (one byte, 0 or 1).
 */
#include <math.h>
#include <string.h>
#include "dtype.h"

const char *sim_dt_name(enum sim_dtype dt)
{
    switch (dt) {
    case SIM_DT_F32: return "float32";
    case SIM_DT_F16: return "float16";
    case SIM_DT_BF16: return "bfloat16";
    case SIM_DT_F64: return "double";
    case SIM_DT_I8: return "int8";
    case SIM_DT_U8: return "uint8";
    case SIM_DT_I16: return "int16";
    case SIM_DT_U16: return "uint16";
    case SIM_DT_I32: return "int32";
    case SIM_DT_U32: return "uint32";
    case SIM_DT_I64: return "int64";
    case SIM_DT_U64: return "uint64";
    case SIM_DT_BOOL: return "bool";
    }
    return "?";
}

size_t sim_dt_size(enum sim_dtype dt)
{
    switch (dt) {
    case SIM_DT_I8:
    case SIM_DT_U8:
    case SIM_DT_BOOL:
        return 1;
    case SIM_DT_F16:
    case SIM_DT_BF16:
    case SIM_DT_I16:
    case SIM_DT_U16:
        return 2;
    case SIM_DT_F32:
    case SIM_DT_I32:
    case SIM_DT_U32:
        return 4;
    case SIM_DT_I64:
    case SIM_DT_U64:
    case SIM_DT_F64:
        return 8;
    }
    return 0;
}

bool sim_dt_known(enum sim_dtype dt)
{
    return sim_dt_size(dt) > 0;
}

bool sim_dt_is_float(enum sim_dtype dt)
{
    return dt == SIM_DT_F32 || dt == SIM_DT_F16 || dt == SIM_DT_BF16 || dt == SIM_DT_F64;
}

/* ---- float16 and bfloat16 ---- */

float sim_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man) { /* subnormal: normalise */
        int e = -1;
        do {
            man <<= 1;
            e++;
        } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t sim_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 0x1f)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        man |= 0x800000;
        unsigned shift = (unsigned)(14 - e);
        uint32_t half = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = (uint32_t)e << 10 | man >> 13, rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
        half++; /* may carry into the exponent: still right */
    return (uint16_t)(sign | half);
}

float sim_bf16_to_f32(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

uint16_t sim_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* d as a float rounded to odd: truncated, then the lowest bit set when
 * anything was cut off. Rounding that float to a type of at most 22
 * significand bits then rounds d itself correctly (no double rounding). */
static float to_odd(double d)
{
    float f = (float)d;
    if (isnan(d) || (double)f == d)
        return f;
    if (fabs((double)f) > fabs(d))
        f = nextafterf(f, 0.0f);
    uint32_t x;
    memcpy(&x, &f, 4);
    x |= 1;
    memcpy(&f, &x, 4);
    return f;
}

/* ---- Loads ---- */

double sim_dt_load(enum sim_dtype dt, const void *p)
{
    switch (dt) {
    case SIM_DT_F32: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    case SIM_DT_F16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return sim_f16_to_f32(v);
    }
    case SIM_DT_BF16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return sim_bf16_to_f32(v);
    }
    case SIM_DT_F64: {
        double v;
        memcpy(&v, p, 8);
        return v;
    }
    case SIM_DT_U64: {
        uint64_t v;
        memcpy(&v, p, 8);
        return (double)v;
    }
    default:
        return (double)sim_dt_load_i(dt, p);
    }
}

int64_t sim_dt_load_i(enum sim_dtype dt, const void *p)
{
    switch (dt) {
    case SIM_DT_I8:
        return *(const int8_t *)p;
    case SIM_DT_U8:
        return *(const uint8_t *)p;
    case SIM_DT_BOOL:
        return *(const uint8_t *)p != 0;
    case SIM_DT_I16: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case SIM_DT_U16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case SIM_DT_I32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case SIM_DT_U32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case SIM_DT_I64:
    case SIM_DT_U64: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    default: { /* a floating value, as a Cast to int64 writes it */
        int64_t v;
        sim_dt_store(SIM_DT_I64, &v, sim_dt_load(dt, p));
        return v;
    }
    }
}

/* ---- Stores ---- */

/* v truncated toward zero and saturated to [lo, hi]; NaN gives 0. */
static int64_t trunc_sat(double v, double lo, double hi, int64_t ilo, int64_t ihi)
{
    if (isnan(v))
        return 0;
    v = trunc(v);
    if (v <= lo)
        return ilo;
    if (v >= hi)
        return ihi;
    return (int64_t)v;
}

void sim_dt_store(enum sim_dtype dt, void *p, double v)
{
    switch (dt) {
    case SIM_DT_F32: {
        float f = (float)v;
        memcpy(p, &f, 4);
        return;
    }
    case SIM_DT_F16: {
        uint16_t h = sim_f32_to_f16(to_odd(v));
        memcpy(p, &h, 2);
        return;
    }
    case SIM_DT_BF16: {
        uint16_t b = sim_f32_to_bf16(to_odd(v));
        memcpy(p, &b, 2);
        return;
    }
    case SIM_DT_F64:
        memcpy(p, &v, 8);
        return;
    case SIM_DT_BOOL:
        *(uint8_t *)p = v != 0;
        return;
    case SIM_DT_I8:
        sim_dt_store_i(dt, p, trunc_sat(v, INT8_MIN, INT8_MAX, INT8_MIN, INT8_MAX));
        return;
    case SIM_DT_U8:
        sim_dt_store_i(dt, p, trunc_sat(v, 0, UINT8_MAX, 0, UINT8_MAX));
        return;
    case SIM_DT_I16:
        sim_dt_store_i(dt, p, trunc_sat(v, INT16_MIN, INT16_MAX, INT16_MIN, INT16_MAX));
        return;
    case SIM_DT_U16:
        sim_dt_store_i(dt, p, trunc_sat(v, 0, UINT16_MAX, 0, UINT16_MAX));
        return;
    case SIM_DT_I32:
        sim_dt_store_i(dt, p, trunc_sat(v, INT32_MIN, INT32_MAX, INT32_MIN, INT32_MAX));
        return;
    case SIM_DT_U32:
        sim_dt_store_i(dt, p, trunc_sat(v, 0, UINT32_MAX, 0, UINT32_MAX));
        return;
    case SIM_DT_I64:
        /* 2^63 is a double; INT64_MAX is not */
        sim_dt_store_i(dt, p, trunc_sat(v, -9223372036854775808.0, 9223372036854775808.0,
                                        INT64_MIN, INT64_MAX));
        return;
    case SIM_DT_U64: {
        uint64_t u = isnan(v) || v <= 0 ? 0 : v >= 18446744073709551616.0 ? UINT64_MAX
                                                                           : (uint64_t)trunc(v);
        memcpy(p, &u, 8);
        return;
    }
    }
}

void sim_dt_store_i(enum sim_dtype dt, void *p, int64_t v)
{
    switch (dt) {
    case SIM_DT_I8:
    case SIM_DT_U8:
        *(uint8_t *)p = (uint8_t)v;
        return;
    case SIM_DT_BOOL:
        *(uint8_t *)p = v != 0;
        return;
    case SIM_DT_I16:
    case SIM_DT_U16: {
        uint16_t w = (uint16_t)v;
        memcpy(p, &w, 2);
        return;
    }
    case SIM_DT_I32:
    case SIM_DT_U32: {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, 4);
        return;
    }
    case SIM_DT_I64:
    case SIM_DT_U64:
        memcpy(p, &v, 8);
        return;
    case SIM_DT_F32: {
        float f = (float)v;
        memcpy(p, &f, 4);
        return;
    }
    case SIM_DT_F64: {
        double d = (double)v;
        memcpy(p, &d, 8);
        return;
    }
    case SIM_DT_F16: {
        uint16_t h = sim_f32_to_f16((float)v);
        memcpy(p, &h, 2);
        return;
    }
    case SIM_DT_BF16: {
        uint16_t b = sim_f32_to_bf16((float)v);
        memcpy(p, &b, 2);
        return;
    }
    }
}

double sim_dt_round(enum sim_dtype dt, double v)
{
    switch (dt) {
    case SIM_DT_F32:
        return (float)v;
    case SIM_DT_F16:
        return sim_f16_to_f32(sim_f32_to_f16(to_odd(v)));
    case SIM_DT_BF16:
        return sim_bf16_to_f32(sim_f32_to_bf16(to_odd(v)));
    default:
        return v;
    }
}

int64_t sim_dt_wrap(enum sim_dtype dt, int64_t v)
{
    switch (dt) {
    case SIM_DT_I8:
        return (int8_t)v;
    case SIM_DT_U8:
        return (uint8_t)v;
    case SIM_DT_BOOL:
        return v != 0;
    case SIM_DT_I16:
        return (int16_t)v;
    case SIM_DT_U16:
        return (uint16_t)v;
    case SIM_DT_I32:
        return (int32_t)v;
    case SIM_DT_U32:
        return (uint32_t)v;
    default:
        return v;
    }
}

void sim_dt_convert(enum sim_dtype to, void *dst, enum sim_dtype from, const void *src)
{
    if (to == from) {
        memcpy(dst, src, sim_dt_size(to));
        return;
    }
    if (sim_dt_is_float(from))
        sim_dt_store(to, dst, sim_dt_load(from, src));
    else if (from == SIM_DT_U64 && sim_dt_is_float(to))
        sim_dt_store(to, dst, sim_dt_load(from, src));
    else
        sim_dt_store_i(to, dst, sim_dt_load_i(from, src));
}
