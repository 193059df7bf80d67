/*
 * view.c - the one view type of a tensor (struct be_view, backends/be.h):
 * what aclop's tensor descs (contiguous, library.c) and aclnn's tensors
 * (any strides, nn/) both become before an operator is planned, and the
 * shape arithmetic every planner shares: the bytes a view touches (what
 * the buffer checks and the allocator sanitizer see), contiguity, numpy
 * broadcasting and CANN's way of writing a shape.
 */
#include <stdio.h>
#include "api/abi/opview.h"
#include "op.h"

void api_view_init(struct be_view *v, const void *data, bool dev, aclDataType dtype, int ndims,
                   const int64_t *dims)
{
    v->data = data;
    v->dev = dev;
    v->dtype = dtype;
    v->ndims = ndims;
    v->offset = 0;
    v->nz_c0 = 0;
    v->nz_t = false;
    int64_t s = 1;
    for (int i = ndims - 1; i >= 0; i--) {
        v->dims[i] = dims[i];
        v->strides[i] = s;
        s *= dims[i] > 0 ? dims[i] : 1;
    }
}

void api_view_span(const struct be_view *v, const void **lo, size_t *bytes)
{
    int64_t es = (int64_t)api_impl_aclDataTypeSize(v->dtype), first, count;
    opview_span(v->ndims, v->dims, v->strides, v->offset, v->nz_c0, v->nz_t, &first, &count);
    *lo = (const char *)v->data + first * es;
    *bytes = (size_t)(count * es);
}

/* As opbase's IsContiguous (hicann/opbase
 * src/nnopbase/composite_op/utils/tensor_view_utils.cpp L21-33). */
bool api_view_contiguous(const struct be_view *v)
{
    int64_t s = 1;
    for (int i = v->ndims - 1; i >= 0; i--) {
        if (v->dims[i] == 1)
            continue;
        if (v->strides[i] != s)
            return false;
        if (__builtin_mul_overflow(s, v->dims[i], &s))
            return false; /* more elements than an int64 counts */
    }
    return true;
}

int64_t api_dims_elements(const int64_t *dims, int n)
{
    int64_t e = 1;
    for (int i = 0; i < n; i++)
        e *= dims[i];
    return e;
}

/* As opbase's BroadcastInferShape (src/nnopbase/common/utils/
 * shape_utils.cpp): dims agree, or one of them is 1. */
int api_broadcast(const int64_t *a, int na, const int64_t *b, int nb, int64_t *out)
{
    int n = na > nb ? na : nb;
    for (int i = n - 1, ia = na - 1, ib = nb - 1; i >= 0; i--, ia--, ib--) {
        int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return -1;
        out[i] = da == 1 ? db : da;
    }
    return n;
}

void api_dims_text(const int64_t *dims, int n, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%lld", i ? ", " : "", (long long)dims[i]);
    if (at < len)
        snprintf(buf + at, len - at, "]");
}
