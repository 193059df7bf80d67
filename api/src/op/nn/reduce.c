/*
 * reduce.c - the aclnn reductions, scans and sorts (the NN_REDUCE calls of
 * api/abi/calls.def): ReduceSum, Mean and Norm over the simulator's
 * reduction family (sim/ops/reduce.c), which walks the input through its
 * view; Cumsum, Argsort and ArgMax over its scan family (sim/ops/scan.c).
 *
 * Checks: hicann/ops-math math/reduce_sum/op_api/aclnn_reduce_sum.cpp
 * (CheckParams L107-119: self, out and dtype in the 910B list L24-27, out
 * of type dtype, at most 8 dims, each dim in range once: "Provided dim 2
 * must be in the range of [-2, 1]."); the sum is taken in dtype (the input
 * cast to it first, L236-239); a 0-d input is its own sum; no dims: every
 * dim. Workspace (the aclnn table of docs/operators.md): RoundUp(elements of out * 4, 512)
 * bytes, where the kernel keeps its fp32 partial sums.
 */
#include "checks.h"

#define T_SUM                                                                             \
    (T(FLOAT16) | T(FLOAT) | T(INT8) | T(INT16) | T(INT32) | T(INT64) | T(UINT8) | T(BOOL) |  \
     T(DOUBLE) | T(COMPLEX64) | T(COMPLEX128) | T(BF16))

/* The dims a reduction covers, and its output's shape: dim's values in
 * range once each (no dims: every dim), CANN's texts for the range and the
 * repeats given (ops-math aclnn_reduce_sum.cpp, aclnn_mean.cpp L117-147,
 * ops-nn aclnn_norm.cpp L136-160 say the same with their own words). The
 * sum of a 0-d input is the input. Fills the op's axes and keep_dims and
 * checks out's shape (an out of one element is taken for a result of one,
 * CheckReduceOutShape); the kernel's output view is out as reduced. */
struct red_text {
    const char *range, *repeated; /* printf formats: (dim, lo, hi) and (dim) */
};

static aclnnStatus reduce_dims(struct nn_call *c, const aclTensor *self, const aclIntArray *dim,
                               bool keepDim, aclTensor *out, const struct red_text *tx)
{
    aclnnStatus rc;
    uint64_t n = 0;
    api_impl_aclGetIntArraySize(dim, &n);
    int64_t axes[API_NN_MAX_DIMS];
    int rank = self->ndims ? (int)self->ndims : 1; /* a 0-d input takes dims -1 and 0 */
    if (n > (uint64_t)rank)
        return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "dim has %llu values for a %d-D self",
                       (unsigned long long)n, rank);
    api_nn_int_array(dim, axes);
    bool reduced[BE_OP_MAX_DIMS] = {false};
    for (uint64_t i = 0; i < n; i++)
        if (axes[i] >= rank || axes[i] < -rank)
            return nn_fail(c, ACLNN_ERR_PARAM_INVALID, tx->range, (long long)axes[i], -rank,
                           rank - 1);
    for (uint64_t i = 0; i < n; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
        if (reduced[a])
            return nn_fail(c, ACLNN_ERR_PARAM_INVALID, tx->repeated, (long long)axes[i]);
        reduced[a] = true;
    }
    int64_t dims[BE_OP_MAX_DIMS];
    int nd = 0;
    struct be_op *op = c->op;
    for (int i = 0; i < (int)self->ndims; i++) {
        bool r = reduced[i] || n == 0;
        if (r)
            op->axes[op->n_axes++] = i;
        if (!r)
            dims[nd++] = self->dims[i];
        else if (keepDim)
            dims[nd++] = 1;
    }
    bool one = api_dims_elements(out->dims, (int)out->ndims) == 1 &&
               api_dims_elements(dims, nd) == 1;
    if (!one && (rc = nn_check_shape(c, out, "out", dims, nd)) != OK)
        return rc;
    if ((rc = nn_out(c, out, "out")) != OK || (rc = nn_in(c, self, "self")) != OK)
        return rc;
    op->keep_dims = keepDim;
    if (one && (int)out->ndims != nd) { /* the kernel writes one element: out as reduced */
        struct be_view *o = &op->out[0];
        int64_t off = o->offset;
        api_view_init(o, o->data, true, o->dtype, nd, dims);
        o->offset = off;
    }
    return OK;
}

/* The workspace of a reduction (the aclnn table of docs/operators.md):
 * RoundUp(elements of out * 4, 512) bytes, where the kernel keeps its fp32
 * partial sums. */
static uint64_t partials(const struct be_op *op)
{
    const struct be_view *o = &op->out[0];
    uint64_t cells = (uint64_t)api_dims_elements(o->dims, o->ndims);
    return (cells * 4 + 511) / 512 * 512;
}

static const struct red_text SUM_TEXT = {"Provided dim %lld must be in the range of [%d, %d].",
                                         "Dim %lld appears multiple times in the list of dims."};

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
    if (api_is_complex(dtype) || api_is_complex(self->dtype))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim does not compute %s (CANN's "
                       "operator takes it).", api_dtype_name(dtype));
    if ((rc = reduce_dims(&c, self, dim, keepDim, out, &SUM_TEXT)) != OK)
        return rc;
    c.op->calc = dtype;
    return nn_end(&c, partials(c.op), workspaceSize, executor);
}
NN_LAUNCH(aclnnReduceSum)

/* aclnn_mean.cpp ASCEND910B_DTYPE_SUPPORT_LIST L57-60 */
#define T_MEAN                                                                            \
    (T(FLOAT) | T(INT32) | T(INT64) | T(FLOAT16) | T(INT16) | T(INT8) | T(UINT8) | T(DOUBLE) |  \
     T(BF16) | T(COMPLEX64) | T(COMPLEX128))

/* out = the mean of self over dim in dtype: hicann/ops-math
 * math/reduce_mean/op_api/aclnn_mean.cpp (CheckParams L162-178: the types
 * L79-94, self castable to dtype and dtype to out L108-114, the dims
 * L116-148, at most 8 dims L152-158). */
aclnnStatus api_impl_aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim,
                                               bool keepDim, aclDataType dtype, aclTensor *out,
                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnMeanGetWorkspaceSize, (self, dim, keepDim, dtype, out, workspaceSize,
                                            executor));
    NN_CHECK_NULL("aclnnMean", self);
    NN_CHECK_NULL("aclnnMean", dim);
    NN_CHECK_NULL("aclnnMean", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnMean", "ReduceMean", BE_OP_REDUCE_MEAN, workspaceSize,
                              executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_MEAN);
    if (rc != OK)
        return rc;
    if (!api_type_in(dtype, T_MEAN)) {
        char list[600];
        api_types_text(T_MEAN, list, sizeof list);
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "type %s should be in dtype support list "
                       "[%s].", api_dtype_name(dtype), list);
    }
    static const struct red_text text = {"provided dim %lld must be in the range of [%d, %d].",
                                         "provided dim %lld is repeated."};
    if ((rc = nn_check_type(&c, out, "out", T_MEAN)) != OK ||
        (rc = nn_check_cast(&c, self->dtype, dtype)) != OK ||
        (rc = nn_check_cast(&c, dtype, out->dtype)) != OK ||
        (rc = nn_check_dims(&c, self, "self")) != OK || (rc = nn_check_dims(&c, out, "out")) != OK)
        return rc;
    if (api_is_complex(dtype) || api_is_complex(self->dtype))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim does not compute %s (CANN's "
                       "operator takes it).", api_dtype_name(dtype));
    if ((rc = reduce_dims(&c, self, dim, keepDim, out, &text)) != OK)
        return rc;
    c.op->calc = ACL_DOUBLE; /* a mean is a fraction, whatever dtype */
    return nn_end(&c, partials(c.op), workspaceSize, executor);
}
NN_LAUNCH(aclnnMean)

/* out = (sum |self|^p over dim)^(1/p): hicann/ops-nn norm/lp_norm_v2/
 * op_api/aclnn_norm.cpp (self and out FLOAT, FLOAT16 or BF16 L79-93, the
 * promotion of the two and its cast to out L116-127, the dims L130-160,
 * out's shape L196-206). */
aclnnStatus api_impl_aclnnNormGetWorkspaceSize(const aclTensor *self, const aclScalar *pScalar,
                                               const aclIntArray *dim, bool keepdim,
                                               aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor)
{
    API_FORWARD(aclnnNormGetWorkspaceSize, (self, pScalar, dim, keepdim, out, workspaceSize,
                                            executor));
    NN_CHECK_NULL("aclnnNorm", self);
    NN_CHECK_NULL("aclnnNorm", pScalar);
    NN_CHECK_NULL("aclnnNorm", dim);
    NN_CHECK_NULL("aclnnNorm", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnNorm", "LpNormV2", BE_OP_REDUCE_NORM, workspaceSize,
                              executor);
    api_types floats = T(FLOAT) | T(FLOAT16) | T(BF16);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", floats);
    if (rc == OK)
        rc = nn_check_type(&c, out, "out", floats);
    if (rc != OK)
        return rc;
    aclDataType promoted = api_promote(self->dtype, out->dtype);
    if (promoted == ACL_DT_UNDEFINED)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Input dtype %s and output dtype %s can not "
                       "promote dtype.", api_dtype_name(self->dtype), api_dtype_name(out->dtype));
    static const struct red_text text = {"provided dim %lld not in the range of input tensor "
                                         "size [%d, %d].",
                                         "Dim %lld appears multiple times in the list of dims"};
    if ((rc = nn_check_cast(&c, promoted, out->dtype)) != OK ||
        (rc = nn_check_dims(&c, self, "self")) != OK ||
        (rc = reduce_dims(&c, self, dim, keepdim, out, &text)) != OK)
        return rc;
    c.op->fparam[0] = nn_scalar_value(pScalar);
    c.op->calc = ACL_FLOAT;
    return nn_end(&c, partials(c.op), workspaceSize, executor);
}
NN_LAUNCH(aclnnNorm)

/* A dim of self in [-n, n) (a 0-d self as 1-D): d, or -1 after reporting
 * `fmt` (dim, lo, hi). */
static int64_t one_dim(struct nn_call *c, const aclTensor *self, int64_t dim, const char *fmt)
{
    int64_t n = self->ndims ? (int64_t)self->ndims : 1;
    if (dim >= n || dim < -n) {
        nn_fail(c, ACLNN_ERR_PARAM_INVALID, fmt, -(long long)n, (long long)n - 1, (long long)dim);
        return -1;
    }
    return self->ndims == 0 ? 0 : dim < 0 ? dim + n : dim;
}

/* aclnn_cumsum.cpp ASCEND910B list L51-55 */
#define T_CUMSUM                                                                          \
    (T(FLOAT) | T(FLOAT16) | T(INT32) | T(DOUBLE) | T(UINT8) | T(INT8) | T(INT16) | T(INT64) |  \
     T(COMPLEX64) | T(COMPLEX128) | T(BF16))

/* out = the running sum of self along dim, in dtype: hicann/ops-math
 * math/cumsum/op_api/aclnn_cumsum.cpp (CheckParams L134-148: out in the
 * list and of type dtype L88-106, one shape and at most 8 dims L124-132,
 * the dim's range L108-122). */
aclnnStatus api_impl_aclnnCumsumGetWorkspaceSize(const aclTensor *self, int64_t dim,
                                                 aclDataType dtype, aclTensor *out,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnCumsumGetWorkspaceSize, (self, dim, dtype, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnCumsum", self);
    NN_CHECK_NULL("aclnnCumsum", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnCumsum", "Cumsum", BE_OP_CUMSUM, workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_type(&c, out, "out", T_CUMSUM);
    if (rc == OK)
        rc = nn_match_type(&c, out, "out", dtype);
    if (rc == OK)
        rc = nn_check_same_shape(&c, out, "out", self, "self");
    if (rc == OK)
        rc = nn_check_dims(&c, self, "self");
    if (rc != OK)
        return rc;
    int64_t d = one_dim(&c, self, dim, "expected dim to be in range of [%lld, %lld], but got "
                        "%lld.");
    if (d < 0)
        return ACLNN_ERR_PARAM_INVALID;
    if (api_dims_elements(self->dims, (int)self->ndims) == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    if ((rc = nn_moved(&c, self, "self")) != OK || (rc = nn_moved(&c, out, "out")) != OK ||
        (rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    c.op->axes[0] = d;
    c.op->n_axes = 1;
    c.op->calc = dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnCumsum)

/* aclnn_argsort.cpp 910B list L39-41 */
#define T_ARGSORT                                                                         \
    (T(FLOAT) | T(FLOAT16) | T(INT8) | T(INT16) | T(INT32) | T(INT64) | T(UINT8) | T(BF16))

/* out (int64) = the indices that sort self along dim: hicann/ops-math
 * math/sort/op_api/aclnn_argsort.cpp (CheckParams L131-147: the dim's
 * range L90-104, self's list and out INT64 L60-66, one shape L121-127).
 * Ties keep their order (a stable sort). */
aclnnStatus api_impl_aclnnArgsortGetWorkspaceSize(const aclTensor *self, int64_t dim,
                                                  bool descending, aclTensor *out,
                                                  uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    API_FORWARD(aclnnArgsortGetWorkspaceSize, (self, dim, descending, out, workspaceSize,
                                               executor));
    NN_CHECK_NULL("aclnnArgsort", self);
    NN_CHECK_NULL("aclnnArgsort", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnArgsort", "Sort", BE_OP_ARGSORT, workspaceSize,
                              executor);
    if (rc != OK)
        return rc;
    int64_t d = one_dim(&c, self, dim, "dim must be within the range of [%lld, %lld], but it is "
                        "%lld.");
    if (d < 0)
        return ACLNN_ERR_PARAM_INVALID;
    if ((rc = nn_check_type(&c, self, "self", T_ARGSORT)) != OK ||
        (rc = nn_check_type(&c, out, "out", T(INT64))) != OK ||
        (rc = nn_check_dims(&c, self, "self")) != OK ||
        (rc = nn_check_same_shape(&c, self, "self", out, "out")) != OK)
        return rc;
    if (api_dims_elements(self->dims, (int)self->ndims) == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    if ((rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    c.op->axes[0] = d;
    c.op->n_axes = 1;
    c.op->iparam[0] = descending;
    c.op->calc = ACL_INT64;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnArgsort)

/* aclnn_argmax.cpp 910B list L41-43 */
#define T_ARGMAX                                                                          \
    (T(FLOAT) | T(FLOAT16) | T(DOUBLE) | T(INT8) | T(INT16) | T(INT32) | T(INT64) | T(UINT8) |  \
     T(BF16))

/* out = the index of the largest element of self along dim (the first of
 * equals), self's shape without dim (keepdim: dim as 1): hicann/ops-math
 * math/arg_max_v2/op_api/aclnn_argmax.cpp (CheckParams L158-171: self's
 * list, at most 8 dims, the dim's range L86-100; out's shape against the
 * result L222; the result in out's type, int32 or int64, L213). */
aclnnStatus api_impl_aclnnArgMaxGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim,
                                                 aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    API_FORWARD(aclnnArgMaxGetWorkspaceSize, (self, dim, keepdim, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnArgMax", self);
    NN_CHECK_NULL("aclnnArgMax", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnArgMax", "ArgMaxV2", BE_OP_ARGMAX, workspaceSize,
                              executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_ARGMAX);
    if (rc == OK)
        rc = nn_check_dims(&c, self, "self");
    if (rc == OK)
        rc = nn_check_dims(&c, out, "out");
    if (rc != OK)
        return rc;
    int64_t d = one_dim(&c, self, dim, "dim must be within the range of [%lld, %lld], but it is "
                        "%lld.");
    if (d < 0)
        return ACLNN_ERR_PARAM_INVALID;
    int64_t dims[BE_OP_MAX_DIMS];
    int nd = 0;
    for (int i = 0; i < (int)self->ndims; i++)
        if (i != d)
            dims[nd++] = self->dims[i];
        else if (keepdim)
            dims[nd++] = 1;
    if ((rc = nn_check_shape(&c, out, "out", dims, nd)) != OK)
        return rc;
    if (api_dims_elements(self->dims, (int)self->ndims) == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    if ((rc = nn_check_type(&c, out, "out", T(INT32) | T(INT64))) != OK ||
        (rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    struct be_view *o = &c.op->out[0];
    if (keepdim && self->ndims) { /* the kernel writes one value per row: dim's 1 goes */
        for (int i = (int)d; i < o->ndims - 1; i++) {
            o->dims[i] = o->dims[i + 1];
            o->strides[i] = o->strides[i + 1];
        }
        o->ndims--;
    }
    c.op->axes[0] = d;
    c.op->n_axes = 1;
    c.op->calc = out->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnArgMax)
