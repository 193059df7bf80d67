/*
 * compare.c - the aclnn comparison family (the NN_COMPARE calls of
 * api/abi/calls.def): a tensor against a scalar (GtScalar and its Inplace
 * form) or a tensor (EqTensor), giving bool or any type bool casts to;
 * Sign; and a scalar raised to a tensor's powers (PowScalarTensor). Each is
 * CANN's argument checks and type rule, cited per operator below, over the
 * simulator's pointwise kernels (sim/ops/pointwise.c), which compute them
 * on views as they compute arithmetic.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "checks.h"

/* Sign (hicann/ops-math math/sign/op_api/aclnn_sign.cpp L38-40 the list,
 * L42-78 the checks: on the 910B bf16 passes besides the list, and a
 * listed self needs result of its own type; L80-86 the shapes; L157-176:
 * bool computed in int32). */
aclnnStatus api_impl_aclnnSignGetWorkspaceSize(const aclTensor *self, aclTensor *result,
                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnSignGetWorkspaceSize, (self, result, workspaceSize, executor));
    NN_CHECK_NULL("aclnnSign", self);
    NN_CHECK_NULL("aclnnSign", result);
    api_types listed = T(DOUBLE) | T(FLOAT) | T(FLOAT16) | T(INT32) | T(INT64) | T(COMPLEX64) |
                       T(COMPLEX128) | T(BOOL);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnSign", "Sign", BE_OP_SIGN, workspaceSize, executor);
    if (rc != OK)
        return rc;
    if (!api_type_in(self->dtype, listed | T(BF16))) {
        char list[600];
        api_types_text(listed, list, sizeof list);
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "On Ascend910B, self dtype [%s] should be in "
                       "dtype support list [%s] or be BF16.", api_dtype_name(self->dtype), list);
    }
    if (self->dtype != ACL_BF16 && self->dtype != result->dtype)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Self dtype should be same as result dtype. "
                       "self [%s], result [%s]", api_dtype_name(self->dtype),
                       api_dtype_name(result->dtype));
    aclDataType calc = self->dtype == ACL_BOOL ? ACL_INT32 : self->dtype;
    if ((rc = nn_check_same_shape(&c, self, "self", result, "result")) != OK ||
        (rc = nn_computed(&c, calc)) != OK || (rc = nn_out(&c, result, "result")) != OK ||
        (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    c.op->calc = calc;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnSign)

/* A double scalar read as a tensor of type t reads it (GtScalar's
 * GetCastedDouble, aclnn_gt_scalar.cpp L59-77). */
static double as_type(double v, aclDataType t)
{
    if (t == ACL_FLOAT)
        return (float)v;
    if (t == ACL_FLOAT16)
        return api_impl_aclFloat16ToFloat(api_impl_aclFloatToFloat16((float)v));
    if (t == ACL_BF16) { /* to nearest, ties to even */
        float f = (float)v;
        uint32_t x;
        memcpy(&x, &f, 4);
        x = (x + 0x7fff + ((x >> 16) & 1)) & 0xffff0000u;
        memcpy(&f, &x, 4);
        return f;
    }
    return v;
}

/* hicann/ops-math math/greater/op_api/aclnn_gt_scalar.cpp: the 910B lists
 * L39-55, CheckDtypeValid L95-107, CheckPromoteType L169-204 (PromoteType,
 * bool compared as int8, a double scalar a floating self holds exactly
 * compared in self's type, the bool result cast to out), CheckShape
 * L207-212. */
#define T_UNSIGNED (T(UINT16) | T(UINT32) | T(UINT64))
#define T_GT (T(FLOAT) | T(INT32) | T(INT64) | T(FLOAT16) | T(INT16) | T(INT8) | T(UINT8) |   \
              T(DOUBLE) | T_UNSIGNED | T(BOOL) | T(BF16))
static aclnnStatus gt_scalar(const char *launch, const aclTensor *self, const char *self_name,
                             const aclScalar *other, const aclTensor *out, const char *out_name,
                             uint64_t *ws, aclOpExecutor **executor)
{
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, launch, "Greater", BE_OP_GT, ws, executor);
    if (rc != OK || (rc = nn_check_type(&c, self, self_name, T_GT)) != OK ||
        (rc = nn_check_scalar_type(&c, other, "other", T_GT)) != OK ||
        (rc = nn_check_type(&c, out, out_name, T_GT | T(COMPLEX64) | T(COMPLEX128))) != OK)
        return rc;
    aclDataType calc = api_promote(self->dtype, other->dtype);
    if (calc == ACL_BOOL)
        calc = ACL_INT8;
    if (other->dtype == ACL_DOUBLE && api_is_floating(self->dtype)) {
        double v = nn_scalar_value(other);
        if (fabs(as_type(v, self->dtype) - v) <= FLT_EPSILON)
            calc = self->dtype;
    }
    if (calc == ACL_DT_UNDEFINED)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Self dtype %s and other dtype %s can not "
                       "promote dtype.", api_dtype_name(self->dtype), api_dtype_name(other->dtype));
    if ((rc = nn_check_cast(&c, ACL_BOOL, out->dtype)) != OK ||
        (rc = nn_check_dims(&c, self, self_name)) != OK ||
        (rc = nn_check_dims(&c, out, out_name)) != OK ||
        (rc = nn_check_same_shape(&c, out, out_name, self, self_name)) != OK ||
        (rc = nn_computed(&c, calc)) != OK || (rc = nn_out(&c, out, out_name)) != OK ||
        (rc = nn_in(&c, self, self_name)) != OK || (rc = nn_in_scalar(&c, other)) != OK)
        return rc;
    c.op->calc = calc;
    return nn_end(&c, 0, ws, executor);
}

aclnnStatus api_impl_aclnnGtScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                                   aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor)
{
    API_FORWARD(aclnnGtScalarGetWorkspaceSize, (self, other, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnGtScalar", self);
    NN_CHECK_NULL("aclnnGtScalar", other);
    NN_CHECK_NULL("aclnnGtScalar", out);
    return gt_scalar("aclnnGtScalar", self, "self", other, out, "out", workspaceSize, executor);
}
NN_LAUNCH(aclnnGtScalar)

aclnnStatus api_impl_aclnnInplaceGtScalarGetWorkspaceSize(aclTensor *selfRef,
                                                          const aclScalar *other,
                                                          uint64_t *workspaceSize,
                                                          aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceGtScalarGetWorkspaceSize, (selfRef, other, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceGtScalar", selfRef);
    NN_CHECK_NULL("aclnnInplaceGtScalar", other);
    return gt_scalar("aclnnInplaceGtScalar", selfRef, "self", other, selfRef, "out",
                     workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceGtScalar)

/* hicann/ops-math math/equal/op_api/aclnn_eq_tensor.cpp: the 910B list
 * L66-69; on the 910B (DAV_2201) CheckDtypeValid L132-184 checks out
 * against it, then the promoted type of self and other (PromoteType) and
 * that bool casts to out; CheckShape L187-202: the broadcast shape is
 * out's. */
#define T_EQ (T(FLOAT) | T(INT32) | T(INT64) | T(FLOAT16) | T(INT16) | T(INT8) | T(UINT8) |   \
              T(BF16) | T(BOOL) | T(DOUBLE) | T(COMPLEX64) | T(COMPLEX128))
aclnnStatus api_impl_aclnnEqTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                                   aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor)
{
    API_FORWARD(aclnnEqTensorGetWorkspaceSize, (self, other, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnEqTensor", self);
    NN_CHECK_NULL("aclnnEqTensor", other);
    NN_CHECK_NULL("aclnnEqTensor", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnEqTensor", "Equal", BE_OP_EQ, workspaceSize, executor);
    if (rc != OK || (rc = nn_check_type(&c, out, "out", T_EQ)) != OK)
        return rc;
    aclDataType calc = api_promote(self->dtype, other->dtype);
    if (calc == ACL_DT_UNDEFINED)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Self dtype %s and other dtype %s can not "
                       "promote dtype.", api_dtype_name(self->dtype), api_dtype_name(other->dtype));
    if (!api_type_in(calc, T_EQ)) {
        char list[600];
        api_types_text(T_EQ, list, sizeof list);
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Self dtype %s and other dtype %s get "
                       "promoteType dtype %s should be in dtype support list [%s].",
                       api_dtype_name(self->dtype), api_dtype_name(other->dtype),
                       api_dtype_name(calc), list);
    }
    int64_t dims[BE_OP_MAX_DIMS];
    int n = 0;
    if ((rc = nn_check_cast(&c, ACL_BOOL, out->dtype)) != OK ||
        (rc = nn_check_dims(&c, self, "self")) != OK ||
        (rc = nn_check_dims(&c, other, "other")) != OK ||
        (rc = nn_check_dims(&c, out, "out")) != OK ||
        (rc = nn_check_broadcast(&c, self, "self", other, "other", dims, &n)) != OK)
        return rc;
    bool same = n == (int)out->ndims;
    for (int i = 0; same && i < n; i++)
        same = dims[i] == out->dims[i];
    if (!same) {
        char want[200], got[200];
        api_dims_text(dims, n, want, sizeof want);
        api_dims_text(out->dims, (int)out->ndims, got, sizeof got);
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "BroadcastShape %s is not equal out's shape "
                       "%s.", want, got);
    }
    if ((rc = nn_computed(&c, calc)) != OK || (rc = nn_out(&c, out, "out")) != OK ||
        (rc = nn_in(&c, self, "self")) != OK || (rc = nn_in(&c, other, "other")) != OK)
        return rc;
    c.op->calc = calc;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnEqTensor)

/* hicann/ops-math math/pow/op_api/aclnn_pow.cpp: the list L44-47,
 * CheckDtypeValid L160-185, InferScalarTensorDtype L218-241 (the 910B
 * branch: a floating exponent keeps its type, else a floating or bool
 * operand promotes), CheckPromoteType L243-257, CheckShape L259-264 (the
 * exponent's shape is out's), BuildPowScalarTensorCompute L542-570. */
#define T_POW (T(FLOAT) | T(INT32) | T(INT64) | T(FLOAT16) | T(INT8) | T(UINT8) | T(DOUBLE) | \
               T(BOOL) | T(INT16) | T(COMPLEX64) | T(COMPLEX128) | T(BF16))
aclnnStatus api_impl_aclnnPowScalarTensorGetWorkspaceSize(const aclScalar *self,
                                                          const aclTensor *exponent,
                                                          const aclTensor *out,
                                                          uint64_t *workspaceSize,
                                                          aclOpExecutor **executor)
{
    API_FORWARD(aclnnPowScalarTensorGetWorkspaceSize, (self, exponent, out, workspaceSize,
                                                       executor));
    NN_CHECK_NULL("aclnnPowScalarTensor", self);
    NN_CHECK_NULL("aclnnPowScalarTensor", exponent);
    NN_CHECK_NULL("aclnnPowScalarTensor", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnPowScalarTensor", "Pow", BE_OP_POW, workspaceSize,
                              executor);
    if (rc != OK)
        return rc;
    aclDataType st = self->dtype, et = exponent->dtype;
    char list[600];
    api_types_text(T_POW, list, sizeof list);
    if (!api_type_in(st, T_POW))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Self dtype %s should be in dtype support "
                       "list %s.", api_dtype_name(st), list);
    if (!api_type_in(et, T_POW))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "exp dtype %s should be in dtype support "
                       "list %s.", api_dtype_name(et), list);
    aclDataType promoted = api_promote(st, et);
    if (promoted == ACL_DT_UNDEFINED)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "self dtype %s and exponent dtype %s can not "
                       "promote dtype.", api_dtype_name(st), api_dtype_name(et));
    if ((rc = nn_check_cast(&c, promoted, out->dtype)) != OK)
        return rc;
    aclDataType calc = et == ACL_DOUBLE && out->dtype == ACL_FLOAT ? ACL_FLOAT
                       : api_is_complex(st)                         ? promoted
                       : api_is_floating(et)                        ? et
                       : api_is_floating(st) || et == ACL_BOOL      ? api_promote(et, st)
                                                                    : et;
    if (calc == ACL_DT_UNDEFINED)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Self dtype %s and exponent dtype %s can not "
                       "promote dtype.", api_dtype_name(st), api_dtype_name(et));
    if (st == ACL_BOOL && et == ACL_BOOL)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Self and exponent dtype are bool is not "
                       "supported.");
    if ((rc = nn_check_cast(&c, calc, out->dtype)) != OK ||
        (rc = nn_check_dims(&c, exponent, "exponent")) != OK ||
        (rc = nn_check_same_shape(&c, exponent, "exponent", out, "out")) != OK ||
        (rc = nn_computed(&c, calc)) != OK || (rc = nn_out(&c, out, "out")) != OK ||
        (rc = nn_in_scalar(&c, self)) != OK || (rc = nn_in(&c, exponent, "exponent")) != OK)
        return rc;
    c.op->calc = calc;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnPowScalarTensor)
