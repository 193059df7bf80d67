/*
 * nnmat.h - what the matrix, convolution and attention suites
 * (test_nn_matmul.c, test_nn_conv.c, test_nn_attention.c) add to nnhost.h's
 * host pictures of device tensors: values exact in every float type chosen
 * by a seed, and the storage index of an element given by its indices.
 * Header-only.
 */
#ifndef ACLSIM_TESTS_API_NNMAT_H_
#define ACLSIM_TESTS_API_NNMAT_H_

#include "nnhost.h"

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
    if (vals)
        return mk_of(dt, nd, dims, strides, offset, n, vals);
    double *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = val(i, seed);
    struct ht h = mk_of(dt, nd, dims, strides, offset, n, v);
    free(v);
    return h;
}

static inline struct ht mks(aclDataType dt, int nd, const int64_t *dims, const int64_t *strides,
                            int64_t offset, size_t n, int seed)
{
    return mk_vals(dt, nd, dims, strides, offset, n, seed, NULL);
}

/* Storage index of element idx (over `nd` dims, right-aligned) of h,
 * broadcast where h has size 1 or lacks the dim. */
static inline int64_t at_idx(const struct ht *h, int nd, const int64_t *idx)
{
    int64_t off = h->offset;
    for (int j = nd - 1, i = h->nd - 1; j >= 0 && i >= 0; j--, i--)
        if (h->dims[i] != 1)
            off += idx[j] * h->strides[i];
    return off;
}

#endif /* ACLSIM_TESTS_API_NNMAT_H_ */
