/*
 * movement.c - the aclnn family that moves and sets elements (the NN_MOVE
 * calls of api/abi/calls.def): Cast, InplaceCopy, Permute, InplaceZero and
 * InplaceFillScalar. Every one is one kernel of the simulator's movement
 * family (sim/ops/movement.c) over views: a Cast and a copy are CAST (a
 * copy when the types agree; src broadcast to selfRef for InplaceCopy),
 * Permute is a CAST of the input's permuted view, the fills are FILL.
 *
 * Checks, codes and texts: hicann/ops-math math/cast/op_api/aclnn_cast.cpp
 * (CheckParams L95-110: self's list, the dtype argument's list, shapes),
 * conversion/view_copy/op_api/aclnn_copy.cpp (L31-98: both lists, src
 * broadcast to selfRef; any cast), conversion/transpose/op_api/
 * aclnn_permute.cpp (L27-150), math/zero_op/op_api/aclnn_zero.cpp and
 * conversion/fill/op_api/aclnn_fill_scalar.cpp (L83-95: the value's type
 * must promote with selfRef's). Cast's result reaches out through CANN's
 * ViewCopy, which wants out of the cast type (ops-math
 * conversion/contiguous/op_host/op_api/contiguous.cpp CheckViewCopyParams
 * L640-646; ACLNN_ERR_INNER_NULLPTR).
 */
#include "checks.h"

/* aclnn_cast.cpp DTYPE_SUPPORT_LIST_DEFAULT L51-55 */
#define T_CAST                                                                            \
    (T_REAL | T(UINT16) | T(UINT32) | T(UINT64) | T(COMPLEX64) | T(COMPLEX128))
/* aclnn_copy.cpp DTYPE_SUPPORT_LIST L31-38 */
#define T_COPY                                                                            \
    (T_CAST | T(FLOAT8_E5M2) | T(FLOAT8_E4M3FN) | T(HIFLOAT8) | T(FLOAT8_E8M0))

aclnnStatus api_impl_aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype,
                                               aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor)
{
    API_FORWARD(aclnnCastGetWorkspaceSize, (self, dtype, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnCast", self);
    NN_CHECK_NULL("aclnnCast", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnCast", "Cast", BE_OP_CAST, workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_CAST);
    if (rc != OK)
        return rc;
    if (!api_type_in(dtype, T_CAST)) {
        char list[600];
        api_types_text(T_CAST, list, sizeof list);
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The param dtype not implemented for %s, "
                       "should be in dtype support list %s.", api_dtype_name(dtype), list);
    }
    if ((rc = nn_check_dims(&c, self, "self")) != OK ||
        (rc = nn_check_same_shape(&c, out, "out", self, "self")) != OK)
        return rc;
    if (out->dtype != dtype)
        return nn_fail(&c, ACLNN_ERR_INNER_NULLPTR, "Input tensor's dtype[%s] should be same "
                       "with output's dtype[%s].", api_dtype_name(dtype),
                       api_dtype_name(out->dtype));
    if ((rc = nn_moved(&c, self, "self")) != OK || (rc = nn_moved(&c, out, "out")) != OK ||
        (rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    c.op->calc = dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnCast)

/* selfRef = src in selfRef's type, src broadcast to selfRef's shape. */
aclnnStatus api_impl_aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceCopyGetWorkspaceSize, (selfRef, src, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceCopy", selfRef);
    NN_CHECK_NULL("aclnnInplaceCopy", src);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnInplaceCopy", "ViewCopy", BE_OP_CAST, workspaceSize,
                              executor);
    if (rc == OK)
        rc = nn_check_type(&c, selfRef, "self", T_COPY);
    if (rc == OK)
        rc = nn_check_type(&c, src, "src", T_COPY);
    int64_t dims[BE_OP_MAX_DIMS];
    int n = 0;
    if (rc == OK && (rc = nn_check_dims(&c, selfRef, "self")) == OK &&
        (rc = nn_check_dims(&c, src, "src")) == OK &&
        (rc = nn_check_broadcast(&c, selfRef, "self", src, "src", dims, &n)) == OK) {
        bool same = n == (int)selfRef->ndims;
        for (int i = 0; same && i < n; i++)
            same = dims[i] == selfRef->dims[i];
        if (!same) {
            char want[200], got[200];
            api_dims_text(dims, n, want, sizeof want);
            api_dims_text(selfRef->dims, (int)selfRef->ndims, got, sizeof got);
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Shape of broadcast result should be %s, "
                           "but self is %s.", want, got);
        }
    }
    if (rc != OK || (rc = nn_moved(&c, selfRef, "self")) != OK || (rc = nn_moved(&c, src, "src")) != OK ||
        (rc = nn_out(&c, selfRef, "selfRef")) != OK || (rc = nn_in(&c, src, "src")) != OK)
        return rc;
    c.op->calc = selfRef->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceCopy)

/* out = self's view with its dims permuted, copied. */
aclnnStatus api_impl_aclnnPermuteGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims,
                                                  aclTensor *out, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    API_FORWARD(aclnnPermuteGetWorkspaceSize, (self, dims, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnPermute", self);
    NN_CHECK_NULL("aclnnPermute", dims);
    NN_CHECK_NULL("aclnnPermute", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnPermute", "Transpose", BE_OP_CAST, workspaceSize,
                              executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_CAST);
    if (rc == OK)
        rc = nn_check_type(&c, out, "out", T_CAST);
    if (rc != OK)
        return rc;
    if (self->dtype != out->dtype)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected both tensors to have same dtype, "
                       "but found self %s and out %s.", api_dtype_name(self->dtype),
                       api_dtype_name(out->dtype));
    if ((rc = nn_check_dims(&c, self, "self")) != OK)
        return rc;
    uint64_t n = 0;
    api_impl_aclGetIntArraySize(dims, &n);
    int64_t perm[API_NN_MAX_DIMS];
    if (n != self->ndims)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The size of dims %llu should be equal to "
                       "the dimensions of self %llu.", (unsigned long long)n,
                       (unsigned long long)self->ndims);
    api_nn_int_array(dims, perm);
    bool seen[BE_OP_MAX_DIMS] = {false};
    for (uint64_t i = 0; i < n; i++) {
        int64_t d = perm[i] < 0 ? perm[i] + (int64_t)n : perm[i]; /* from the end, as torch's */
        if (d < 0 || d >= (int64_t)n)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The values of dims should be in range "
                           "[%lld, %lld].", -(long long)n, (long long)n - 1);
        if (seen[d])
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Each dimension in perm should not be "
                           "repeated.");
        seen[d] = true;
        perm[i] = d;
    }
    if ((rc = nn_moved(&c, self, "self")) != OK || (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    struct be_view *v = &c.op->in[0], src = *v;
    int64_t want[BE_OP_MAX_DIMS];
    for (uint64_t i = 0; i < n; i++) {
        v->dims[i] = want[i] = src.dims[perm[i]];
        v->strides[i] = src.strides[perm[i]];
    }
    if ((rc = nn_check_shape(&c, out, "out", want, (int)n)) != OK ||
        (rc = nn_out(&c, out, "out")) != OK)
        return rc;
    c.op->calc = out->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnPermute)

/* selfRef's every element set to `value` (fills keep no input). */
static aclnnStatus fill(const char *launch, aclTensor *selfRef, api_types types, double value,
                        uint64_t *ws, aclOpExecutor **executor, const aclScalar *scalar)
{
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, launch, scalar ? "Fill" : "ZerosLike", BE_OP_FILL, ws, executor);
    if (rc == OK)
        rc = nn_check_type(&c, selfRef, "self", types);
    if (rc != OK)
        return rc;
    if (scalar && api_promote(selfRef->dtype, scalar->dtype) == ACL_DT_UNDEFINED)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Self dtype %s and value dtype %s can not "
                       "promote dtype.", api_dtype_name(selfRef->dtype),
                       api_dtype_name(scalar->dtype));
    if ((rc = nn_check_dims(&c, selfRef, "self")) != OK || (rc = nn_moved(&c, selfRef, "self")) != OK ||
        (rc = nn_out(&c, selfRef, "selfRef")) != OK)
        return rc;
    c.op->calc = selfRef->dtype;
    c.op->alpha = value;
    return nn_end(&c, 0, ws, executor);
}

aclnnStatus api_impl_aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceZeroGetWorkspaceSize, (selfRef, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceZero", selfRef);
    /* aclnn_zero.cpp L42-48 */
    return fill("aclnnInplaceZero", selfRef, T_REAL | T(UINT16) | T(COMPLEX64) | T(COMPLEX128),
                0, workspaceSize, executor, NULL);
}
NN_LAUNCH(aclnnInplaceZero)

aclnnStatus api_impl_aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef,
                                                            const aclScalar *value,
                                                            uint64_t *workspaceSize,
                                                            aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceFillScalarGetWorkspaceSize, (selfRef, value, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceFillScalar", selfRef);
    NN_CHECK_NULL("aclnnInplaceFillScalar", value);
    /* aclnn_fill_scalar.cpp DTYPE_SUPPORT_GE910B_LIST L41-45 */
    return fill("aclnnInplaceFillScalar", selfRef, T_CAST, nn_scalar_value(value), workspaceSize,
                executor, value);
}
NN_LAUNCH(aclnnInplaceFillScalar)
