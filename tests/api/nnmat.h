/*
 * nnmat.h - what the aclnn family suites share (test_nn_matmul.c, test_nn_attention.c,
 * test_nn_conv.c): device tensors with a host picture of their storage
 * (struct ht), the float types' encodings worked out here (float16 through
 * aclFloatToFloat16, bfloat16 by the test's own rounding to nearest even),
 * values exact in every float type, and the storage index of an element of
 * a broadcast view. Header-only; each suite defines nothing else of it.
 */
#ifndef ACLSIM_TESTS_API_NNMAT_H_
#define ACLSIM_TESTS_API_NNMAT_H_

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "nnsuite.h"
#include "aclnn/acl_meta.h"

#define OK 0

/* ---- Tensors with a host picture ---- */

struct ht {
    aclDataType dt;
    int nd;
    int64_t dims[4], strides[4], offset;
    size_t n;  /* storage elements */
    double *v; /* the storage's values */
    void *dev;
    aclTensor *t;
};

static inline uint16_t to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

static inline double from_bf16(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static inline void enc(aclDataType dt, char *p, double v)
{
    if (dt == ACL_DOUBLE) {
        memcpy(p, &v, 8);
    } else if (dt == ACL_FLOAT) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else if (dt == ACL_FLOAT16) {
        aclFloat16 h = aclFloatToFloat16((float)v);
        memcpy(p, &h, 2);
    } else if (dt == ACL_BF16) {
        uint16_t b = to_bf16((float)v);
        memcpy(p, &b, 2);
    } else {
        *(int8_t *)p = (int8_t)v;
    }
}

static inline double dec(aclDataType dt, const char *p)
{
    if (dt == ACL_DOUBLE) {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    if (dt == ACL_FLOAT) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    uint16_t h;
    memcpy(&h, p, 2);
    if (dt == ACL_FLOAT16)
        return aclFloat16ToFloat(h);
    if (dt == ACL_BF16)
        return from_bf16(h);
    return *(const int8_t *)p;
}

/* v as stored in dt */
static inline double as(aclDataType dt, double v)
{
    char b[8];
    enc(dt, b, v);
    return dec(dt, b);
}

/* Eighths from -1.125 to 1.125: exact in every float type. */
static inline double val(size_t i, int seed)
{
    return (double)((int)((i * 37 + (size_t)seed * 11) % 19) - 9) / 8;
}

/* A tensor of dims (strides NULL: contiguous) at offset over n storage
 * elements holding vals[i] (NULL: val(i, seed)). */
static inline struct ht mk_vals(aclDataType dt, int nd, const int64_t *dims, const int64_t *strides,
                         int64_t offset, size_t n, int seed, const double *vals)
{
    struct ht h = {dt, nd, {0}, {0}, offset, n, calloc(n, sizeof(double)), NULL, NULL};
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        h.dims[i] = dims[i];
        h.strides[i] = strides ? strides[i] : s;
        s *= dims[i];
    }
    size_t es = aclDataTypeSize(dt);
    char *host = malloc(n * es);
    for (size_t i = 0; i < n; i++) {
        h.v[i] = dt == ACL_DOUBLE ? (vals ? vals[i] : val(i, seed))
                                  : as(dt, vals ? vals[i] : val(i, seed));
        enc(dt, host + i * es, h.v[i]);
    }
    assert_int_equal(aclrtMalloc(&h.dev, n * es, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    assert_int_equal(aclrtMemcpy(h.dev, n * es, host, n * es, ACL_MEMCPY_HOST_TO_DEVICE), 0);
    free(host);
    int64_t storage = (int64_t)n;
    h.t = aclCreateTensor(dims, (uint64_t)nd, dt, h.strides, offset, ACL_FORMAT_ND, &storage, 1,
                          h.dev);
    assert_non_null(h.t);
    return h;
}

static inline struct ht mk(aclDataType dt, int nd, const int64_t *dims, const int64_t *strides,
                    int64_t offset, size_t n, int seed)
{
    return mk_vals(dt, nd, dims, strides, offset, n, seed, NULL);
}

static inline void fetch(const struct ht *h, double *out)
{
    assert_int_equal(aclrtSynchronizeStream(S), 0);
    size_t es = aclDataTypeSize(h->dt);
    char *host = malloc(h->n * es);
    assert_int_equal(aclrtMemcpy(host, h->n * es, h->dev, h->n * es, ACL_MEMCPY_DEVICE_TO_HOST), 0);
    for (size_t i = 0; i < h->n; i++)
        out[i] = dec(h->dt, host + i * es);
    free(host);
}

static inline void drop(struct ht *h)
{
    assert_int_equal(aclDestroyTensor(h->t), OK);
    assert_int_equal(aclrtFree(h->dev), 0);
    free(h->v);
}

/* Storage index of element idx (over `nd` dims, right-aligned) of h,
 * broadcast where h has size 1 or lacks the dim. */
static inline int64_t at(const struct ht *h, int nd, const int64_t *idx)
{
    int64_t off = h->offset;
    for (int j = nd - 1, i = h->nd - 1; j >= 0 && i >= 0; j--, i--)
        if (h->dims[i] != 1)
            off += idx[j] * h->strides[i];
    return off;
}

#endif /* ACLSIM_TESTS_API_NNMAT_H_ */
