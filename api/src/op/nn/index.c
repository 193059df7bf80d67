/*
 * index.c - the aclnn indexing family (the NN_INDEX calls of
 * api/abi/calls.def): GatherV2, IndexSelect and InplaceIndexCopy, over the
 * simulator's index family (sim/ops/index.c: GATHER, INDEX_COPY), which
 * reads the indices on the device and copies one slice per index through
 * the engine. Checks, codes and texts are cited per operator
 * (hicann/ops-nn index/gather_v2/op_api/, index/scatter_update/op_api/).
 * An index out of [0, size) is not checked by CANN's kernels (what they
 * do with it is undefined); aclsim writes a slice of 0 for it (a gather)
 * or skips it (an index copy).
 */
#include "checks.h"

#define T_INDEX (T(INT32) | T(INT64))

/* out = self's slices along dim picked by index: the common part of
 * GatherV2 and IndexSelect once their own checks passed; out's shape is
 * self's with index's dims (1 for a 0-d index) in place of dim. */
static aclnnStatus gather(struct nn_call *c, const aclTensor *self, int64_t d,
                          const aclTensor *index, aclTensor *out, uint64_t *ws,
                          aclOpExecutor **executor)
{
    aclnnStatus rc;
    if (self->ndims == 0)
        return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "aclsim does not compute a gather from a 0-d "
                       "self (CANN's operator takes it).");
    if (api_dims_elements(out->dims, (int)out->ndims) == 0)
        return nn_end(c, 0, ws, executor);
    if ((rc = nn_moved(c, self, "self")) != OK || (rc = nn_out(c, out, "out")) != OK ||
        (rc = nn_in(c, self, "self")) != OK || (rc = nn_in(c, index, "index")) != OK)
        return rc;
    c->op->axes[0] = d;
    c->op->n_axes = 1;
    c->op->iparam[0] = out->ndims - self->ndims + 1;
    c->op->calc = out->dtype;
    return nn_end(c, 0, ws, executor);
}

/* aclnn_gather_v2.cpp 910B list L59-62 */
#define T_GATHER                                                                          \
    (T(FLOAT) | T(INT32) | T(INT64) | T(FLOAT16) | T(INT16) | T(INT8) | T(UINT8) | T(BOOL) |  \
     T(DOUBLE) | T(COMPLEX64) | T(COMPLEX128) | T(BF16))

/* hicann/ops-nn index/gather_v2/op_api/aclnn_gather_v2.cpp: CheckParams
 * L183-194 (self and out of one type L118, the lists L124-127, at most 8
 * dims and dim in [-n, n) L160-176, out's shape L132-157). */
aclnnStatus api_impl_aclnnGatherV2GetWorkspaceSize(const aclTensor *self, int64_t dim,
                                                   const aclTensor *index, aclTensor *out,
                                                   uint64_t *workspaceSize,
                                                   aclOpExecutor **executor)
{
    API_FORWARD(aclnnGatherV2GetWorkspaceSize, (self, dim, index, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnGatherV2", self);
    NN_CHECK_NULL("aclnnGatherV2", index);
    NN_CHECK_NULL("aclnnGatherV2", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnGatherV2", "GatherV2", BE_OP_GATHER, workspaceSize,
                              executor);
    if (rc == OK)
        rc = nn_same_type(&c, self, "self", out, "out");
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_GATHER);
    if (rc == OK)
        rc = nn_check_type(&c, index, "index", T_INDEX);
    if (rc == OK)
        rc = nn_check_dims(&c, self, "self");
    if (rc == OK)
        rc = nn_check_dims(&c, index, "index");
    if (rc != OK)
        return rc;
    int64_t n = self->ndims ? (int64_t)self->ndims : 1;
    if (!(dim >= -n && dim < n))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "dim %lld not in valid range: [%lld, %lld)",
                       (long long)dim, -(long long)n, (long long)n);
    int64_t d = dim < 0 ? dim + n : dim, want[2 * BE_OP_MAX_DIMS];
    int k = 0;
    if (self->ndims == 0) {
        k = 0;
    } else {
        for (int i = 0; i < d; i++)
            want[k++] = self->dims[i];
        if (index->ndims == 0)
            want[k++] = 1;
        for (uint64_t i = 0; i < index->ndims; i++)
            want[k++] = index->dims[i];
        for (uint64_t i = (uint64_t)d + 1; i < self->ndims; i++)
            want[k++] = self->dims[i];
    }
    if ((rc = nn_check_shape(&c, out, "out", want, k)) != OK)
        return rc;
    return gather(&c, self, d, index, out, workspaceSize, executor);
}
NN_LAUNCH(aclnnGatherV2)

/* aclnn_index_select.cpp DTYPE_SUPPORT_LIST L57-61 */
#define T_SELECT                                                                          \
    (T(FLOAT) | T(INT32) | T(INT64) | T(FLOAT16) | T(INT16) | T(INT8) | T(UINT8) | T(BOOL) |  \
     T(UINT64) | T(UINT32) | T(UINT16) | T(DOUBLE) | T(COMPLEX64) | T(COMPLEX128) | T(BF16))

/* hicann/ops-nn index/gather_v2/op_api/aclnn_index_select.cpp: CheckParams
 * L153-166 (self's list and out of its type L82-95, index at most 1-D and
 * the dim's range L110-147, out's shape when neither is empty L141-146). */
aclnnStatus api_impl_aclnnIndexSelectGetWorkspaceSize(const aclTensor *self, int64_t dim,
                                                      const aclTensor *index, aclTensor *out,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnIndexSelectGetWorkspaceSize, (self, dim, index, out, workspaceSize,
                                                   executor));
    NN_CHECK_NULL("aclnnIndexSelect", self);
    NN_CHECK_NULL("aclnnIndexSelect", index);
    NN_CHECK_NULL("aclnnIndexSelect", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnIndexSelect", "GatherV2", BE_OP_GATHER, workspaceSize,
                              executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_SELECT);
    if (rc == OK)
        rc = nn_match_type(&c, self, "self", out->dtype);
    if (rc == OK)
        rc = nn_check_type(&c, index, "index", T_INDEX);
    if (rc != OK)
        return rc;
    int64_t n = (int64_t)self->ndims;
    if (n == 0) {
        n = 1;
        if (out->ndims != 0)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "self is scalar, and out should also be "
                           "scalar");
    }
    if ((rc = nn_check_dims(&c, self, "self")) != OK)
        return rc;
    if (!(dim >= -n && dim < n))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "IndexError: Dimension out of range "
                       "(expected to be in range of [%lld, %lld], but got %lld)", -(long long)n,
                       (long long)n - 1, (long long)dim);
    if (index->ndims > 1)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "index dimNum is %llu, should not greater "
                       "than 1", (unsigned long long)index->ndims);
    int64_t d = dim < 0 ? dim + n : dim, want[BE_OP_MAX_DIMS];
    for (uint64_t i = 0; i < self->ndims; i++)
        want[i] = self->dims[i];
    want[d] = index->ndims ? index->dims[0] : 1;
    bool any = api_dims_elements(self->dims, (int)self->ndims) &&
               api_dims_elements(index->dims, (int)index->ndims);
    if (any && !nn_same_dims(out, want, (int)self->ndims)) {
        char sw[200], so[200];
        api_dims_text(want, (int)self->ndims, sw, sizeof sw);
        api_dims_text(out->dims, (int)out->ndims, so, sizeof so);
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Shape of out should be %s, but current is "
                       "%s.", sw, so);
    }
    if (!any)
        return nn_end(&c, 0, workspaceSize, executor);
    return gather(&c, self, d, index, out, workspaceSize, executor);
}
NN_LAUNCH(aclnnIndexSelect)

/* aclnn_index_copy.cpp SELF_DTYPE_SUPPORT_LIST_910B L67-72 */
#define T_INDEX_COPY                                                                      \
    (T(DOUBLE) | T(INT16) | T(INT8) | T(UINT8) | T(COMPLEX64) | T(COMPLEX128) | T(BOOL) |       \
     T(FLOAT) | T(FLOAT16) | T(INT32) | T(INT64) | T(BF16))

/* selfRef's slices along dim at the positions in index = source's slices
 * in order: hicann/ops-nn index/scatter_update/op_api/aclnn_index_copy.cpp
 * (CheckParams L219-235: the types L114-127, the shapes and the dim's
 * range L155-200, index's element count against source's dim L202-214). */
aclnnStatus api_impl_aclnnInplaceIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
                                                           const aclTensor *index,
                                                           const aclTensor *source,
                                                           uint64_t *workspaceSize,
                                                           aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceIndexCopyGetWorkspaceSize, (selfRef, dim, index, source,
                                                        workspaceSize, executor));
    const char *name = "aclnnInplaceIndexCopy";
    aclTensor *self = selfRef;
    NN_CHECK_NULL(name, self);
    NN_CHECK_NULL(name, index);
    NN_CHECK_NULL(name, source);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, name, "ScatterUpdate", BE_OP_INDEX_COPY, workspaceSize,
                              executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_INDEX_COPY);
    if (rc == OK)
        rc = nn_check_type(&c, index, "index", T_INDEX);
    if (rc == OK)
        rc = nn_same_type(&c, self, "self", source, "source");
    if (rc == OK)
        rc = nn_check_dims(&c, self, "self");
    if (rc == OK)
        rc = nn_check_dims(&c, source, "source");
    if (rc != OK)
        return rc;
    if (index->ndims > 1)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The index tensor cannot be larger than 1 "
                       "dimensions.");
    int64_t n = (int64_t)self->ndims, n_idx = api_dims_elements(index->dims, (int)index->ndims);
    if (source->ndims == 0 && n_idx != 1)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "When source is scalar,index should have one "
                       "element,but got %lld.", (long long)n_idx);
    if ((int64_t)source->ndims != n && n && source->ndims) {
        char ss[200], so[200];
        api_dims_text(self->dims, (int)n, ss, sizeof ss);
        api_dims_text(source->dims, (int)source->ndims, so, sizeof so);
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "When source and self are not scalars,their "
                       "dimensionality must match,but got self dimensionality %s,source "
                       "dimensionlity %s", ss, so);
    }
    if (n == 0 && dim != 0 && dim != -1)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Dimension out of range (expected to be in "
                       "range of [-1, 0], but got %lld)", (long long)dim);
    if (n > 0 && (dim < -n || dim >= n))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Dimension out of range (expected to be in "
                       "range of [-%lld, %lld],but got %lld)", (long long)n, (long long)n - 1,
                       (long long)dim);
    int64_t d = dim < 0 ? dim + n : dim;
    for (int64_t i = 0; n && (int64_t)source->ndims == n && i < n; i++)
        if (i != d && self->dims[i] != source->dims[i])
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Self and source must have same slice "
                           "shapes");
    if (source->ndims && n_idx != source->dims[d])
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The element num of index (%lld) should be "
                       "equal to source size in dimension %lld, actual is %lld", (long long)n_idx,
                       (long long)d, (long long)source->dims[d]);
    if (n == 0 || source->ndims == 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim does not compute an index copy of a "
                       "0-d tensor (CANN's operator takes it).");
    if (n_idx == 0 || api_dims_elements(self->dims, (int)n) == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    if ((rc = nn_moved(&c, self, "self")) != OK || (rc = nn_out(&c, self, "selfRef")) != OK ||
        (rc = nn_in(&c, index, "index")) != OK || (rc = nn_in(&c, source, "source")) != OK)
        return rc;
    c.op->axes[0] = d;
    c.op->n_axes = 1;
    c.op->calc = self->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceIndexCopy)
