/*
 * nnhost.h - host pictures of device tensors for the aclnn operator
 * suites (test_nn_engine.c, test_nn_ops.c): a view over device storage
 * whose values the test keeps as doubles, each type encoded and decoded
 * by the test's own rules (not aclsim's), and the check that an output's
 * view holds what a host reference says while the rest of its storage is
 * untouched. Include it after testutil.h; S, its stream, and the suite set-up are nnsuite.h's.
 */
#ifndef ACLSIM_TESTS_API_NNHOST_H_
#define ACLSIM_TESTS_API_NNHOST_H_

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "nnsuite.h"
#include "aclnn/acl_meta.h"


/* ---- Host pictures of device tensors ---- */

#define MAXD 9

/* A view over storage of n elements, with the storage's values (as
 * doubles) kept on the host. */
struct ht {
    aclDataType dt;
    int nd;
    int64_t dims[MAXD], strides[MAXD], offset;
    size_t n;
    double *v;
    void *dev;
    aclTensor *t;
};

/* bfloat16 by the test's own rounding: to nearest, ties to even */
static inline uint16_t to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* float16 read as IEEE 754 binary16 (aclFloat16ToFloat, as CANN's, reads
 * the infinity exponent as a number) */
static inline double from_f16(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return h & 0x8000 ? -v : v;
}

static inline float from_bf16(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* Encode v (a value of the type) into p. */
static inline void enc(aclDataType dt, void *p, double v)
{
    switch ((int)dt) {
    case ACL_FLOAT: {
        float f = (float)v;
        memcpy(p, &f, 4);
        break;
    }
    case ACL_FLOAT16: {
        aclFloat16 h = aclFloatToFloat16((float)v);
        memcpy(p, &h, 2);
        break;
    }
    case ACL_BF16: {
        uint16_t b = to_bf16((float)v);
        memcpy(p, &b, 2);
        break;
    }
    case ACL_DOUBLE:
        memcpy(p, &v, 8);
        break;
    case ACL_INT8:
        *(int8_t *)p = (int8_t)v;
        break;
    case ACL_UINT8:
        *(uint8_t *)p = (uint8_t)v;
        break;
    case ACL_BOOL:
        *(uint8_t *)p = v != 0;
        break;
    case ACL_INT16: {
        int16_t i = (int16_t)v;
        memcpy(p, &i, 2);
        break;
    }
    case ACL_INT32: {
        int32_t i = (int32_t)v;
        memcpy(p, &i, 4);
        break;
    }
    case ACL_INT64: {
        int64_t i = (int64_t)v;
        memcpy(p, &i, 8);
        break;
    }
    default:
        fail_msg("type %d", (int)dt);
    }
}

static inline double dec(aclDataType dt, const void *p)
{
    switch ((int)dt) {
    case ACL_FLOAT: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case ACL_FLOAT16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return from_f16(h);
    }
    case ACL_BF16: {
        uint16_t b;
        memcpy(&b, p, 2);
        return from_bf16(b);
    }
    case ACL_DOUBLE: {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    case ACL_INT8:
        return *(const int8_t *)p;
    case ACL_UINT8:
    case ACL_BOOL:
        return *(const uint8_t *)p;
    case ACL_INT16: {
        int16_t i;
        memcpy(&i, p, 2);
        return i;
    }
    case ACL_INT32: {
        int32_t i;
        memcpy(&i, p, 4);
        return i;
    }
    case ACL_INT64: {
        int64_t i;
        memcpy(&i, p, 8);
        return (double)i;
    }
    default:
        fail_msg("type %d", (int)dt);
    }
    return 0;
}

/* v as a value of type dt (what storing it and reading it back gives, for
 * values the test chooses in range). */
static inline double as(aclDataType dt, double v)
{
    char b[8];
    enc(dt, b, v);
    return dec(dt, b);
}

/* A tensor: dims, strides (NULL: contiguous), offset, over storage of n
 * elements whose element i holds vals[i] as a value of type dt. */
static inline struct ht mk_of(aclDataType dt, int nd, const int64_t *dims, const int64_t *strides,
                              int64_t offset, size_t n, const double *vals)
{
    struct ht h = {dt, nd, {0}, {0}, offset, n, calloc(n ? n : 1, sizeof(double)), NULL, NULL};
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        h.dims[i] = dims[i];
        h.strides[i] = strides ? strides[i] : s;
        s *= dims[i];
    }
    size_t es = aclDataTypeSize(dt), bytes = n * es;
    char *host = malloc(bytes ? bytes : 1);
    for (size_t i = 0; i < n; i++) {
        h.v[i] = as(dt, vals[i]);
        enc(dt, host + i * es, h.v[i]);
    }
    assert_int_equal(aclrtMalloc(&h.dev, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    if (bytes)
        assert_int_equal(aclrtMemcpy(h.dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), 0);
    free(host);
    int64_t storage = (int64_t)n;
    h.t = aclCreateTensor(dims, (uint64_t)nd, dt, h.strides, offset, ACL_FORMAT_ND, &storage, 1,
                          h.dev);
    assert_non_null(h.t);
    return h;
}

/* The same, element i holding val(i). */
static inline struct ht mk(aclDataType dt, int nd, const int64_t *dims, const int64_t *strides,
                           int64_t offset, size_t n, double (*val)(size_t))
{
    double *vals = malloc((n ? n : 1) * sizeof *vals);
    for (size_t i = 0; i < n; i++)
        vals[i] = val(i);
    struct ht h = mk_of(dt, nd, dims, strides, offset, n, vals);
    free(vals);
    return h;
}

/* The storage's values as the device holds them now. */
static inline void fetch(const struct ht *h, double *out)
{
    assert_int_equal(aclrtSynchronizeStream(S), 0);
    size_t es = aclDataTypeSize(h->dt), bytes = h->n * es;
    char *host = malloc(bytes ? bytes : 1);
    if (bytes)
        assert_int_equal(aclrtMemcpy(host, bytes, h->dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST), 0);
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

static inline int64_t numel(const struct ht *h)
{
    int64_t e = 1;
    for (int i = 0; i < h->nd; i++)
        e *= h->dims[i];
    return e;
}

/* Storage index of element k (row-major over out's dims) of h broadcast to
 * out's shape. */
static inline int64_t at(const struct ht *h, const struct ht *out, int64_t k)
{
    int64_t off = h->offset;
    for (int j = out->nd - 1, i = h->nd - 1; j >= 0; j--, i--) {
        int64_t idx = k % out->dims[j];
        k /= out->dims[j];
        if (i >= 0 && h->dims[i] != 1)
            off += idx * h->strides[i];
    }
    return off;
}

/* The output's storage after the operator: each element of its view is
 * want(k); every other element of the storage is as it was. */
static inline void expect_out(struct ht *o, double (*want)(void *, int64_t), void *ctx, double tol)
{
    double *got = malloc(o->n * sizeof *got);
    char *mine = calloc(o->n, 1);
    fetch(o, got);
    for (int64_t k = 0; k < numel(o); k++) {
        int64_t s = at(o, o, k);
        mine[s] = 1;
        double w = want(ctx, k);
        if (isnan(w) ? !isnan(got[s]) : fabs(got[s] - w) > tol)
            fail_msg("element %lld (storage %lld): got %.9g, want %.9g", (long long)k,
                     (long long)s, got[s], w);
    }
    for (size_t s = 0; s < o->n; s++)
        if (!mine[s] && got[s] != o->v[s])
            fail_msg("storage element %zu outside the view changed: %.9g, was %.9g", s, got[s],
                     o->v[s]);
    free(got);
    free(mine);
}

static inline double ramp(size_t i)
{
    return (double)((int)(i * 7 % 23) - 11) / 4; /* -2.75 .. 2.75 in quarters */
}

static inline double ints(size_t i)
{
    return (double)((int)(i * 5 % 17) - 8);
}

static inline double positive(size_t i)
{
    return 0.5 + (double)(i % 9);
}

static inline double sevens(size_t i)
{
    (void)i;
    return 7;
}

#endif /* ACLSIM_TESTS_API_NNHOST_H_ */
