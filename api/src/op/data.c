/*
 * data.c - data types, fp16 conversions and data buffers (the DATA family
 * of api/abi/calls.def).
 *
 * Pure host-side work: nothing here reaches a backend, and nothing needs
 * aclInit.
 */
#include <string.h>
#include "op.h"
#include "base/mem.h"

size_t api_impl_aclDataTypeSize(aclDataType dataType)
{
    switch (dataType) {
    case ACL_STRING:
    case ACL_DT_UNDEFINED:
        return 0;
    case ACL_UINT1:
    case ACL_INT4: /* sub-byte types still take a byte each, as CANN says */
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
        return 1;
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_BF16:
        return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
        return 4;
    case ACL_COMPLEX128:
        return 16;
    default:
        /* INT64, UINT64, DOUBLE, COMPLEX64, and (as in CANN's runtime) any
         * other value, the 4-bit float types included. */
        return 8;
    }
}

/* ---- fp16 conversions ----
 *
 * CANN's conversions (fp16_impl.cpp), not C's: float to half rounds to
 * nearest, ties to even, through the subnormals, but saturates: a value
 * past the largest half (rounding included), an infinity or a NaN becomes
 * +-65504 (0x7bff, 0xfbff). Half to float reads exponent 31 as an ordinary
 * exponent: +-infinity come back as +-65536 and a NaN as a number (0x7e00
 * is 98304). Zeros keep their sign. */

float api_impl_aclFloat16ToFloat(aclFloat16 value)
{
    uint32_t sign = (uint32_t)(value >> 15) << 31;
    int32_t exp = (value >> 10) & 0x1f;
    uint32_t man = value & 0x3ffu;
    uint32_t bits;
    if (exp == 0 && man == 0) {
        bits = sign;
    } else {
        if (exp == 0) { /* subnormal: normalise */
            exp = 1;
            while (!(man & 0x400u)) {
                man <<= 1;
                exp--;
            }
        } else {
            man |= 0x400u;
        }
        bits = sign | (uint32_t)(exp + 127 - 15) << 23 | (man & 0x3ffu) << 13;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Whether dropping the low `cut` bits of m rounds up (to nearest, ties to
 * even). pre: cut >= 1. */
static bool round_up(uint64_t m, unsigned cut)
{
    uint64_t half = 1ull << (cut - 1);
    uint64_t rest = m & ((half << 1) - 1);
    return rest > half || (rest == half && (m >> cut) & 1u);
}

aclFloat16 api_impl_aclFloatToFloat16(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint16_t sign = (uint16_t)(bits >> 31 << 15);
    uint32_t exp = bits >> 23 & 0xffu;
    uint32_t man = bits & 0x7fffffu;
    uint32_t e, m; /* the half's exponent and mantissa (hidden bit included) */
    if (exp > 127 + 15) {
        return (aclFloat16)(sign | 0x7bffu); /* too big, infinite or NaN */
    } else if (exp <= 127 - 15) {
        /* below the smallest normal half: a subnormal in units of 2^-24 */
        e = 0;
        if (exp >= 127 - 24) {
            uint64_t full = (uint64_t)(man | 0x800000u) << (exp - (127 - 24));
            m = (uint32_t)(full >> 23) + round_up(full, 23);
        } else {
            /* under half the smallest subnormal: 0; just over: rounds up */
            m = exp == 127 - 25 && man != 0;
        }
        if (m == 0x400u) /* rounded up to the smallest normal */
            e = 1;
    } else {
        e = exp - (127 - 15);
        m = (man >> 13) + round_up(man, 13);
        if (m == 0x400u) { /* the mantissa carried into the exponent */
            m = 0;
            e++;
        }
        if (e >= 31)
            return (aclFloat16)(sign | 0x7bffu);
    }
    return (aclFloat16)(sign | e << 10 | (m & 0x3ffu));
}

/* ---- Data buffers ----
 *
 * As CANN's (data_buffer.cpp): creation checks nothing (any address, any
 * size, NULL and 0 included); destroy and update refuse only a NULL buffer;
 * the getters answer NULL or 0 for one, without a message. A pointer that
 * is not a live buffer is not detected: destroying or updating one is
 * undefined, as in CANN. */

aclDataBuffer *api_impl_aclCreateDataBuffer(void *data, size_t size)
{
    struct aclDataBuffer *b = base_malloc(sizeof *b);
    if (!b) {
        api_err_runtime("aclCreateDataBuffer", ACL_ERROR_BAD_ALLOC);
        return NULL;
    }
    *b = (struct aclDataBuffer){data, size};
    return b;
}

aclError api_impl_aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    if (!dataBuffer)
        return api_err_null("aclDestroyDataBuffer", "dataBuffer");
    base_free((void *)(uintptr_t)dataBuffer);
    return ACL_SUCCESS;
}

aclError api_impl_aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
    if (!dataBuffer)
        return api_err_null("aclUpdateDataBuffer", "dataBuffer");
    dataBuffer->data = data;
    dataBuffer->length = size;
    return ACL_SUCCESS;
}

void *api_impl_aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    return dataBuffer ? dataBuffer->data : NULL;
}

/* The deprecated 32-bit size: the low 32 bits, as CANN's cast gives. */
uint32_t api_impl_aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
    return dataBuffer ? (uint32_t)dataBuffer->length : 0;
}

size_t api_impl_aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    return dataBuffer ? (size_t)dataBuffer->length : 0;
}
