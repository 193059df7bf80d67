/*
 * reduce.c - the aclnn reductions (the NN_REDUCE calls of
 * api/abi/calls.def): ReduceSum, over the simulator's reduction family
 * (sim/ops/reduce.c), which walks the input through its view.
 *
 * Checks: hicann/ops-math math/reduce_sum/op_api/aclnn_reduce_sum.cpp
 * (CheckParams L107-119: self, out and dtype in the 910B list L24-27, out
 * of type dtype, at most 8 dims, each dim in range once: "Provided dim 2
 * must be in the range of [-2, 1]."); the sum is taken in dtype (the input
 * cast to it first, L236-239); a 0-d input is its own sum; no dims: every
 * dim. Workspace (the aclnn table of docs/operators.md): RoundUp(elements of out * 4, 512)
 * bytes, where the kernel keeps its fp32 partial sums.
 */
#include "nn.h"

#define T(x) API_T(ACL_##x)
#define T_SUM                                                                             \
    (T(FLOAT16) | T(FLOAT) | T(INT8) | T(INT16) | T(INT32) | T(INT64) | T(UINT8) | T(BOOL) |  \
     T(DOUBLE) | T(COMPLEX64) | T(COMPLEX128) | T(BF16))

aclnnStatus api_impl_aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim,
                                                    bool keepDim, aclDataType dtype,
                                                    aclTensor *out, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor)
{
    API_FORWARD(aclnnReduceSumGetWorkspaceSize, (self, dim, keepDim, dtype, out, workspaceSize,
                                                 executor));
    NN_CHECK_NULL("aclnnReduceSum", self);
    NN_CHECK_NULL("aclnnReduceSum", dim);
    NN_CHECK_NULL("aclnnReduceSum", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnReduceSum", "ReduceSum", BE_OP_REDUCE_SUM,
                              workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_SUM);
    if (rc == OK)
        rc = nn_check_type(&c, out, "out", T_SUM);
    if (rc != OK)
        return rc;
    char list[600];
    api_types_text(T_SUM, list, sizeof list);
    if (!api_type_in(dtype, T_SUM))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "type %s should be in dtype support list "
                       "[%s].", api_dtype_name(dtype), list);
    if (out->dtype != dtype)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Tensor out expected dtype is %s but found "
                       "%s.", api_dtype_name(dtype), api_dtype_name(out->dtype));
    if ((rc = nn_check_dims(&c, self, "self")) != OK)
        return rc;
    uint64_t n = 0;
    api_impl_aclGetIntArraySize(dim, &n);
    int64_t axes[API_NN_MAX_DIMS];
    int rank = self->ndims ? (int)self->ndims : 1; /* a 0-d input takes dims -1 and 0 */
    if (n > (uint64_t)rank)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "dim has %llu values for a %d-D self",
                       (unsigned long long)n, rank);
    api_nn_int_array(dim, axes);
    bool reduced[BE_OP_MAX_DIMS] = {false};
    for (uint64_t i = 0; i < n; i++) {
        if (axes[i] >= rank || axes[i] < -rank)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Provided dim %lld must be in the range "
                           "of [%d, %d].", (long long)axes[i], -rank, rank - 1);
        int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
        if (reduced[a])
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Dim %lld appears multiple times in the "
                           "list of dims.", (long long)a);
        reduced[a] = true;
    }
    int64_t dims[BE_OP_MAX_DIMS];
    int nd = 0;
    struct be_op *op = c.op;
    for (int i = 0; i < (int)self->ndims; i++) {
        bool r = reduced[i] || n == 0;
        if (r)
            op->axes[op->n_axes++] = i;
        if (!r)
            dims[nd++] = self->dims[i];
        else if (keepDim)
            dims[nd++] = 1;
    }
    /* the sum of a 0-d input is the input; CANN accepts an out of one element
     * for it (CheckReduceOutShape) */
    bool one = api_dims_elements(out->dims, (int)out->ndims) == 1 &&
               api_dims_elements(dims, nd) == 1;
    if (!one && (rc = nn_check_shape(&c, out, "out", dims, nd)) != OK)
        return rc;
    if (api_is_complex(dtype) || api_is_complex(self->dtype))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim does not compute %s (CANN's "
                       "operator takes it).", api_dtype_name(dtype));
    if ((rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    op->keep_dims = keepDim;
    op->calc = dtype;
    if (one && (int)out->ndims != nd) { /* the kernel writes one element: out as reduced */
        struct be_view *o = &op->out[0];
        int64_t off = o->offset;
        api_view_init(o, o->data, true, o->dtype, nd, dims);
        o->offset = off;
    }
    uint64_t cells = (uint64_t)api_dims_elements(dims, nd);
    return nn_end(&c, (cells * 4 + 511) / 512 * 512, workspaceSize, executor);
}
NN_LAUNCH(aclnnReduceSum)
