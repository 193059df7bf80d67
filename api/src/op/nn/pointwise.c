/*
 * pointwise.c - the aclnn pointwise family (the NN_POINTWISE calls of
 * api/abi/calls.def): arithmetic of two tensors (Add, Sub, Mul, Div and
 * their Inplace forms), of a tensor and a scalar (Adds, Subs, Muls, Divs
 * and Inplace), and the unary activations (Abs, Neg, Relu, Sigmoid, Tanh,
 * Gelu, Exp, Sqrt and Inplace). Each operator is a rule (CANN's support
 * list and how it types its result) and one small function over the three
 * planners below; the simulator's pointwise kernels (sim/ops/pointwise.c)
 * compute them through the one engine, on views: broadcast, strided and
 * transposed inputs and strided outputs alike.
 *
 * The rules are those of the Atlas A2 operators (the 910B support lists,
 * DAV_2201) in hicann/ops-math math/{add,sub,mul,div,abs,neg,exp,sqrt,
 * tanh}/op_api/aclnn_*.cpp and hicann/ops-nn activation/{relu,sigmoid,
 * gelu}/op_api/aclnn_*.cpp: the support lists; the result type of mixed
 * inputs is PromoteType's (aclnn_add.cpp CheckParams L262-290), a scalar
 * operand follows the tensor's category (PromoteTypeScalar, aclnn_add.cpp
 * L501-533; InferTensorScalarDtype, aclnn_mul.cpp L203-232), an alpha
 * must cast to the promoted type (CheckPromoteType, aclnn_add.cpp
 * L192-240: 161002 "Alpha dtype DT_FLOAT can't be cast to the promote
 * dtype DT_INT32."), the result must cast to out (CanCast), True division
 * of integers is computed in float32 (aclnn_div.cpp CompatibleInferDivDtype
 * L173-186), and integer inputs of a floating function are computed in
 * float32 (aclnn_sqrt.cpp L72-74, aclnn_tanh.cpp L83-85, aclnn_exp.cpp
 * L62-64). Complex types pass CANN's checks and are then refused: aclsim
 * does not compute them.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "nn.h"

#define T(x) API_T(ACL_##x)
/* the 910B list of Add, Sub, Mul and Div (one list in each of their files) */
#define T_ARITH                                                                           \
    (T(FLOAT) | T(INT32) | T(INT64) | T(FLOAT16) | T(INT16) | T(INT8) | T(UINT8) |         \
     T(DOUBLE) | T(BOOL) | T(BF16) | T(COMPLEX64) | T(COMPLEX128))
/* what the simulator's kernels compute */
#define T_COMPUTED                                                                        \
    (T(FLOAT) | T(FLOAT16) | T(BF16) | T(DOUBLE) | T(INT8) | T(UINT8) | T(INT16) | T(INT32) | \
     T(INT64) | T(BOOL))

/* A calc type the simulator computes, or the call refused. */
static aclnnStatus computed(struct nn_call *c, aclDataType calc)
{
    if (api_type_in(calc, T_COMPUTED))
        return OK;
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "aclsim does not compute %s (CANN's operator "
                   "takes it; aclsim's kernels take real types only).", api_dtype_name(calc));
}

/* ---- Two tensors ---- */

struct binary {
    const char *launch, *type;
    enum be_op_kind kind;
    bool alpha;       /* Add, Sub: other is scaled by alpha */
    bool out_listed;  /* Mul: out's type is checked against the list too */
    bool true_div;    /* Div: integers divide in float32 */
};

/* CheckPromoteType of Add (aclnn_add.cpp L200-246) and of Sub
 * (aclnn_sub.cpp L194-230) differ in their texts: Add says "Alpha dtype
 * ... promote dtype" and "Promote dtype ... desired output type"; Sub says
 * so only for a bool sum's alpha and otherwise uses OP_CHECK_RESULT_DTYPE_
 * CAST_FAILED ("Result type ... desired output type") for both. */
static aclnnStatus check_alpha(struct nn_call *c, enum be_op_kind kind, const aclScalar *alpha,
                               aclDataType promoted)
{
    if (promoted != ACL_BOOL && kind == BE_OP_SUB)
        return nn_check_cast(c, alpha->dtype, promoted);
    bool ok = promoted == ACL_BOOL ? api_is_integral(alpha->dtype, true)
                                   : api_can_cast(alpha->dtype, promoted);
    if (ok)
        return OK;
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Alpha dtype %s can't be cast to the promote "
                   "dtype %s.", api_dtype_name(alpha->dtype), api_dtype_name(promoted));
}

/* The result's cast to out, in the operator's own words (above). */
static aclnnStatus check_out_cast(struct nn_call *c, enum be_op_kind kind, aclDataType from,
                                  aclDataType to)
{
    if (kind != BE_OP_ADD || api_can_cast(from, to))
        return nn_check_cast(c, from, to);
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Promote dtype %s can't be cast to the desired "
                   "output type %s.", api_dtype_name(from), api_dtype_name(to));
}

/* out = self (op) alpha * other, out broadcast from self and other. The
 * caller checked the arguments for NULL in its operator's order. */
static aclnnStatus binary(const struct binary *b, const aclTensor *self, const char *self_name,
                          const aclTensor *other, const aclScalar *alpha, const aclTensor *out,
                          const char *out_name, uint64_t *ws, aclOpExecutor **executor)
{
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, b->launch, b->type, b->kind, ws, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, self_name, T_ARITH);
    if (rc == OK)
        rc = nn_check_type(&c, other, "other", T_ARITH);
    if (rc == OK && b->out_listed)
        rc = nn_check_type(&c, out, out_name, T_ARITH);
    if (rc != OK)
        return rc;
    aclDataType promoted = api_promote(self->dtype, other->dtype);
    if (promoted == ACL_DT_UNDEFINED)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Self dtype %s and other dtype %s can not "
                       "promote dtype.", api_dtype_name(self->dtype), api_dtype_name(other->dtype));
    if (b->alpha && (rc = check_alpha(&c, b->kind, alpha, promoted)) != OK)
        return rc;
    if ((rc = check_out_cast(&c, b->kind, promoted, out->dtype)) != OK)
        return rc;
    int64_t dims[BE_OP_MAX_DIMS];
    int n = 0;
    if ((rc = nn_check_dims(&c, self, self_name)) != OK ||
        (rc = nn_check_dims(&c, other, "other")) != OK ||
        (rc = nn_check_broadcast(&c, self, self_name, other, "other", dims, &n)) != OK ||
        (rc = nn_check_shape(&c, out, out_name, dims, n)) != OK)
        return rc;
    aclDataType calc = b->true_div && !api_is_floating(promoted) && !api_is_complex(promoted)
                           ? ACL_FLOAT
                           : promoted;
    if ((rc = computed(&c, calc)) != OK || (rc = nn_out(&c, out, out_name)) != OK ||
        (rc = nn_in(&c, self, self_name)) != OK || (rc = nn_in(&c, other, "other")) != OK)
        return rc;
    c.op->calc = calc;
    if (b->alpha)
        c.op->alpha = nn_scalar_value(alpha);
    return nn_end(&c, 0, ws, executor);
}

static const struct binary add_ = {"aclnnAdd", "Add", BE_OP_ADD, true, false, false};
static const struct binary inplace_add = {"aclnnInplaceAdd", "Add", BE_OP_ADD, true, false, false};
static const struct binary sub_ = {"aclnnSub", "Sub", BE_OP_SUB, true, false, false};
static const struct binary inplace_sub = {"aclnnInplaceSub", "Sub", BE_OP_SUB, true, false, false};
static const struct binary mul_ = {"aclnnMul", "Mul", BE_OP_MUL, false, true, false};
static const struct binary inplace_mul = {"aclnnInplaceMul", "Mul", BE_OP_MUL, false, false, false};
static const struct binary div_ = {"aclnnDiv", "RealDiv", BE_OP_DIV, false, false, true};
static const struct binary inplace_div = {"aclnnInplaceDiv", "RealDiv", BE_OP_DIV, false, false,
                                          true};

aclnnStatus api_impl_aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                              const aclScalar *alpha, aclTensor *out,
                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnAddGetWorkspaceSize, (self, other, alpha, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnAdd", self);
    NN_CHECK_NULL("aclnnAdd", other);
    NN_CHECK_NULL("aclnnAdd", alpha);
    NN_CHECK_NULL("aclnnAdd", out);
    return binary(&add_, self, "self", other, alpha, out, "out", workspaceSize, executor);
}
NN_LAUNCH(aclnnAdd)

aclnnStatus api_impl_aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef,
                                                     const aclTensor *other,
                                                     const aclScalar *alpha,
                                                     uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceAddGetWorkspaceSize, (selfRef, other, alpha, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceAdd", selfRef);
    NN_CHECK_NULL("aclnnInplaceAdd", other);
    NN_CHECK_NULL("aclnnInplaceAdd", alpha);
    return binary(&inplace_add, selfRef, "selfRef", other, alpha, selfRef, "selfRef",
                  workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceAdd)

aclnnStatus api_impl_aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                              const aclScalar *alpha, aclTensor *out,
                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnSubGetWorkspaceSize, (self, other, alpha, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnSub", self);
    NN_CHECK_NULL("aclnnSub", other);
    NN_CHECK_NULL("aclnnSub", alpha);
    NN_CHECK_NULL("aclnnSub", out);
    return binary(&sub_, self, "self", other, alpha, out, "out", workspaceSize, executor);
}
NN_LAUNCH(aclnnSub)

aclnnStatus api_impl_aclnnInplaceSubGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                     const aclScalar *alpha,
                                                     uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceSubGetWorkspaceSize, (selfRef, other, alpha, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceSub", selfRef);
    NN_CHECK_NULL("aclnnInplaceSub", other);
    NN_CHECK_NULL("aclnnInplaceSub", alpha);
    return binary(&inplace_sub, selfRef, "selfRef", other, alpha, selfRef, "selfRef",
                  workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceSub)

aclnnStatus api_impl_aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                              aclTensor *out, uint64_t *workspaceSize,
                                              aclOpExecutor **executor)
{
    API_FORWARD(aclnnMulGetWorkspaceSize, (self, other, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnMul", self);
    NN_CHECK_NULL("aclnnMul", other);
    NN_CHECK_NULL("aclnnMul", out);
    return binary(&mul_, self, "self", other, NULL, out, "out", workspaceSize, executor);
}
NN_LAUNCH(aclnnMul)

aclnnStatus api_impl_aclnnInplaceMulGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                     uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceMulGetWorkspaceSize, (selfRef, other, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceMul", selfRef);
    NN_CHECK_NULL("aclnnInplaceMul", other);
    return binary(&inplace_mul, selfRef, "selfRef", other, NULL, selfRef, "selfRef",
                  workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceMul)

aclnnStatus api_impl_aclnnDivGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                              aclTensor *out, uint64_t *workspaceSize,
                                              aclOpExecutor **executor)
{
    API_FORWARD(aclnnDivGetWorkspaceSize, (self, other, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnDiv", out); /* aclnn_div.cpp CheckNotNull: out, other, self */
    NN_CHECK_NULL("aclnnDiv", other);
    NN_CHECK_NULL("aclnnDiv", self);
    return binary(&div_, self, "self", other, NULL, out, "out", workspaceSize, executor);
}
NN_LAUNCH(aclnnDiv)

aclnnStatus api_impl_aclnnInplaceDivGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                     uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceDivGetWorkspaceSize, (selfRef, other, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceDiv", selfRef);
    NN_CHECK_NULL("aclnnInplaceDiv", other);
    return binary(&inplace_div, selfRef, "selfRef", other, NULL, selfRef, "selfRef",
                  workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceDiv)

/* ---- A tensor and a scalar ---- */

/* The type a tensor and a scalar compute in: the tensor's category decides
 * (aclnn_add.cpp PromoteTypeScalar, aclnn_mul.cpp InferTensorScalarDtype:
 * a floating tensor keeps its type, an integer one takes a floating
 * scalar's, a bool one promotes); Divs divides integers in float32. */
static aclDataType scalar_calc(enum be_op_kind kind, aclDataType self, aclDataType other,
                               aclDataType out)
{
    if (kind == BE_OP_DIV) /* aclnn_div.cpp CompatibleInferDivsDtype L201-214 */
        return api_is_floating(self) ? self : ACL_FLOAT;
    if (api_is_complex(self) || api_is_complex(other))
        return api_promote(self, other);
    if (api_is_floating(self))
        return kind == BE_OP_MUL && self == ACL_BF16 ? ACL_FLOAT : self;
    if (other == ACL_DOUBLE && (out == ACL_FLOAT || (kind == BE_OP_MUL && self == ACL_BOOL)))
        return ACL_FLOAT;
    if (api_is_floating(other) || self == ACL_BOOL)
        return api_promote(self, other);
    return self;
}

/* OP_CHECK_DTYPE_NOT_SUPPORT of a scalar operand (op_error_check.h
 * L114-123, which names it a tensor). */
static aclnnStatus check_scalar_type(struct nn_call *c, const aclScalar *s, const char *name,
                                     api_types supported)
{
    if (api_type_in(s->dtype, supported))
        return OK;
    char list[600];
    api_types_text(supported, list, sizeof list);
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Tensor %s not implemented for %s, should be in "
                   "dtype support list %s.", name, api_dtype_name(s->dtype), list);
}

/* out = self (op) alpha * other for a host scalar other; out has self's
 * shape. */
static aclnnStatus scalar(const struct binary *b, const aclTensor *self, const char *self_name,
                          const aclScalar *other, const aclScalar *alpha, const aclTensor *out,
                          const char *out_name, uint64_t *ws, aclOpExecutor **executor)
{
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, b->launch, b->type, b->kind, ws, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, self_name, T_ARITH);
    if (rc == OK && b->out_listed)
        rc = nn_check_type(&c, out, out_name, T_ARITH);
    if (rc != OK)
        return rc;
    if ((rc = check_scalar_type(&c, other, "other", T_ARITH)) != OK)
        return rc;
    aclDataType calc = scalar_calc(b->kind, self->dtype, other->dtype, out->dtype);
    if (b->true_div && calc != ACL_DT_UNDEFINED && !api_is_floating(calc) && !api_is_complex(calc))
        calc = ACL_FLOAT; /* true division, as Div's */
    if (calc == ACL_DT_UNDEFINED)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Self dtype %s and other dtype %s can not "
                       "promote dtype.", api_dtype_name(self->dtype), api_dtype_name(other->dtype));
    if (b->alpha && (rc = check_alpha(&c, b->kind, alpha, calc)) != OK)
        return rc;
    if ((b->kind != BE_OP_MUL && (rc = check_out_cast(&c, b->kind, calc, out->dtype)) != OK) ||
        (rc = nn_check_dims(&c, self, self_name)) != OK ||
        (rc = nn_check_same_shape(&c, self, self_name, out, out_name)) != OK ||
        (rc = computed(&c, calc)) != OK || (rc = nn_out(&c, out, out_name)) != OK ||
        (rc = nn_in(&c, self, self_name)) != OK || (rc = nn_in_scalar(&c, other)) != OK)
        return rc;
    c.op->calc = calc;
    if (b->alpha)
        c.op->alpha = nn_scalar_value(alpha);
    return nn_end(&c, 0, ws, executor);
}

static const struct binary adds_ = {"aclnnAdds", "Add", BE_OP_ADD, true, false, false};
static const struct binary inplace_adds = {"aclnnInplaceAdds", "Add", BE_OP_ADD, true, false,
                                           false};
static const struct binary subs_ = {"aclnnSubs", "Sub", BE_OP_SUB, true, false, false};
static const struct binary inplace_subs = {"aclnnInplaceSubs", "Sub", BE_OP_SUB, true, false,
                                           false};
static const struct binary muls_ = {"aclnnMuls", "Muls", BE_OP_MUL, false, true, false};
static const struct binary inplace_muls = {"aclnnInplaceMuls", "Muls", BE_OP_MUL, false, false,
                                           false};
static const struct binary divs_ = {"aclnnDivs", "RealDiv", BE_OP_DIV, false, false, true};
static const struct binary inplace_divs = {"aclnnInplaceDivs", "RealDiv", BE_OP_DIV, false,
                                           false, true};

aclnnStatus api_impl_aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                               const aclScalar *alpha, aclTensor *out,
                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnAddsGetWorkspaceSize, (self, other, alpha, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnAdds", self);
    NN_CHECK_NULL("aclnnAdds", other);
    NN_CHECK_NULL("aclnnAdds", alpha);
    NN_CHECK_NULL("aclnnAdds", out);
    return scalar(&adds_, self, "self", other, alpha, out, "out", workspaceSize, executor);
}
NN_LAUNCH(aclnnAdds)

aclnnStatus api_impl_aclnnInplaceAddsGetWorkspaceSize(const aclTensor *selfRef,
                                                      const aclScalar *other,
                                                      const aclScalar *alpha,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceAddsGetWorkspaceSize, (selfRef, other, alpha, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceAdds", selfRef);
    NN_CHECK_NULL("aclnnInplaceAdds", other);
    NN_CHECK_NULL("aclnnInplaceAdds", alpha);
    return scalar(&inplace_adds, selfRef, "selfRef", other, alpha, selfRef, "selfRef",
                  workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceAdds)

aclnnStatus api_impl_aclnnSubsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                               const aclScalar *alpha, aclTensor *out,
                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnSubsGetWorkspaceSize, (self, other, alpha, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnSubs", self);
    NN_CHECK_NULL("aclnnSubs", other);
    NN_CHECK_NULL("aclnnSubs", alpha);
    NN_CHECK_NULL("aclnnSubs", out);
    return scalar(&subs_, self, "self", other, alpha, out, "out", workspaceSize, executor);
}
NN_LAUNCH(aclnnSubs)

aclnnStatus api_impl_aclnnInplaceSubsGetWorkspaceSize(aclTensor *selfRef,
                                                      const aclScalar *other,
                                                      const aclScalar *alpha,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceSubsGetWorkspaceSize, (selfRef, other, alpha, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceSubs", selfRef);
    NN_CHECK_NULL("aclnnInplaceSubs", other);
    NN_CHECK_NULL("aclnnInplaceSubs", alpha);
    return scalar(&inplace_subs, selfRef, "selfRef", other, alpha, selfRef, "selfRef",
                  workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceSubs)

aclnnStatus api_impl_aclnnMulsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                               aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor)
{
    API_FORWARD(aclnnMulsGetWorkspaceSize, (self, other, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnMuls", self);
    NN_CHECK_NULL("aclnnMuls", other);
    NN_CHECK_NULL("aclnnMuls", out);
    return scalar(&muls_, self, "self", other, NULL, out, "out", workspaceSize, executor);
}
NN_LAUNCH(aclnnMuls)

aclnnStatus api_impl_aclnnInplaceMulsGetWorkspaceSize(aclTensor *selfRef,
                                                      const aclScalar *other,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceMulsGetWorkspaceSize, (selfRef, other, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceMuls", selfRef);
    NN_CHECK_NULL("aclnnInplaceMuls", other);
    return scalar(&inplace_muls, selfRef, "selfRef", other, NULL, selfRef, "selfRef",
                  workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceMuls)

aclnnStatus api_impl_aclnnDivsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                               aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor)
{
    API_FORWARD(aclnnDivsGetWorkspaceSize, (self, other, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnDivs", self);
    NN_CHECK_NULL("aclnnDivs", other);
    NN_CHECK_NULL("aclnnDivs", out);
    return scalar(&divs_, self, "self", other, NULL, out, "out", workspaceSize, executor);
}
NN_LAUNCH(aclnnDivs)

aclnnStatus api_impl_aclnnInplaceDivsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceDivsGetWorkspaceSize, (selfRef, other, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceDivs", selfRef);
    NN_CHECK_NULL("aclnnInplaceDivs", other);
    return scalar(&inplace_divs, selfRef, "selfRef", other, NULL, selfRef, "selfRef",
                  workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceDivs)

/* ---- One tensor ---- */

struct unary {
    const char *launch, *type;
    enum be_op_kind kind;
    api_types types;     /* self's support list */
    api_types out_types; /* out's (0: out must have self's type) */
    api_types to_float;  /* self types computed in float32 */
};

/* out = f(self), out of self's shape. */
static aclnnStatus unary(const struct unary *u, const aclTensor *self, const char *self_name,
                         const aclTensor *out, const char *out_name, uint64_t *ws,
                         aclOpExecutor **executor)
{
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, u->launch, u->type, u->kind, ws, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, self_name, u->types);
    if (rc != OK)
        return rc;
    aclDataType calc = api_type_in(self->dtype, u->to_float) ? ACL_FLOAT : self->dtype;
    if (u->out_types) {
        if ((rc = nn_check_type(&c, out, out_name, u->out_types)) != OK ||
            (rc = nn_check_cast(&c, calc, out->dtype)) != OK)
            return rc;
    } else if (out->dtype != self->dtype) {
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Tensor %s expected dtype is %s but found "
                       "%s.", out_name, api_dtype_name(self->dtype), api_dtype_name(out->dtype));
    }
    if ((rc = nn_check_dims(&c, self, self_name)) != OK ||
        (rc = nn_check_same_shape(&c, self, self_name, out, out_name)) != OK ||
        (rc = computed(&c, calc)) != OK || (rc = nn_out(&c, out, out_name)) != OK ||
        (rc = nn_in(&c, self, self_name)) != OK)
        return rc;
    c.op->calc = calc;
    return nn_end(&c, 0, ws, executor);
}

#define T_INTS (T(INT8) | T(UINT8) | T(INT16) | T(INT32) | T(INT64) | T(BOOL))
#define T_FLOATS_OUT (T(FLOAT) | T(FLOAT16) | T(DOUBLE) | T(COMPLEX64) | T(COMPLEX128) | T(BF16))

/* aclnn_abs.cpp L35-38: out has self's type */
static const struct unary abs_ = {"aclnnAbs", "Abs", BE_OP_ABS,
                                  T(DOUBLE) | T(FLOAT) | T(FLOAT16) | T(INT64) | T(INT32) |
                                      T(INT16) | T(INT8) | T(UINT8) | T(BOOL) | T(BF16) |
                                      T(COMPLEX64),
                                  0, 0};
/* aclnn_neg.cpp L36-39: CanCast(self, out) */
#define T_NEG                                                                             \
    (T(INT8) | T(INT32) | T(INT64) | T(FLOAT16) | T(FLOAT) | T(DOUBLE) | T(COMPLEX64) |    \
     T(COMPLEX128) | T(BF16))
static const struct unary neg_ = {"aclnnNeg", "Neg", BE_OP_NEG, T_NEG, ~UINT64_C(0), 0};
static const struct unary inplace_neg = {"aclnnInplaceNeg", "Neg", BE_OP_NEG, T_NEG, 0, 0};
/* aclnn_relu.cpp L35-37: out has self's type */
#define T_RELU (T(FLOAT) | T(FLOAT16) | T(INT8) | T(UINT8) | T(INT32) | T(INT64) | T(BF16))
static const struct unary relu_ = {"aclnnRelu", "Relu", BE_OP_RELU, T_RELU, 0, 0};
static const struct unary inplace_relu = {"aclnnInplaceRelu", "Relu", BE_OP_RELU, T_RELU, 0, 0};
/* aclnn_sigmoid.cpp L28-35: out in DTYPE_OUT_LIST; selfRef too */
static const struct unary sigmoid_ = {"aclnnSigmoid", "Sigmoid", BE_OP_SIGMOID,
                                      T(FLOAT) | T(FLOAT16) | T(DOUBLE) | T(INT8) | T(INT16) |
                                          T(INT32) | T(INT64) | T(BOOL) | T(COMPLEX64) |
                                          T(COMPLEX128) | T(BF16) | T(UINT8),
                                      T_FLOATS_OUT, T_INTS};
static const struct unary inplace_sigmoid = {"aclnnInplaceSigmoid", "Sigmoid", BE_OP_SIGMOID,
                                             T_FLOATS_OUT, 0, 0};
/* aclnn_tanh.cpp L39-49: out in the same list; integers computed in float */
#define T_TANH (T(FLOAT) | T(FLOAT16) | T(BOOL) | T(UINT8) | T(INT8) | T(INT16) | T(INT32) | \
                T(INT64) | T(BF16))
static const struct unary tanh_ = {"aclnnTanh", "Tanh", BE_OP_TANH, T_TANH, T_TANH, T_INTS};
static const struct unary inplace_tanh = {"aclnnInplaceTanh", "Tanh", BE_OP_TANH,
                                          T(FLOAT) | T(FLOAT16) | T(BF16), 0, 0};
/* aclnn_gelu.cpp L23-24: out has self's type */
static const struct unary gelu_ = {"aclnnGelu", "Gelu", BE_OP_GELU,
                                   T(FLOAT) | T(FLOAT16) | T(BF16), 0, 0};
/* aclnn_exp.cpp L40-49: bool and int64 computed in float */
static const struct unary exp_ = {"aclnnExp", "Exp", BE_OP_EXP,
                                  T(FLOAT) | T(FLOAT16) | T(BF16) | T(DOUBLE) | T(COMPLEX64) |
                                      T(COMPLEX128) | T(BOOL) | T(INT64),
                                  ~UINT64_C(0), T(BOOL) | T(INT64)};
static const struct unary inplace_exp = {"aclnnInplaceExp", "Exp", BE_OP_EXP,
                                         T(FLOAT) | T(FLOAT16) | T(BF16) | T(DOUBLE) |
                                             T(COMPLEX64) | T(COMPLEX128),
                                         0, 0};
/* aclnn_sqrt.cpp L41-58: integers computed in float */
static const struct unary sqrt_ = {"aclnnSqrt", "Sqrt", BE_OP_SQRT,
                                   T(FLOAT) | T(FLOAT16) | T(DOUBLE) | T(COMPLEX64) |
                                       T(COMPLEX128) | T_INTS | T(BF16),
                                   ~UINT64_C(0), T_INTS};
static const struct unary inplace_sqrt = {"aclnnInplaceSqrt", "Sqrt", BE_OP_SQRT,
                                          T(FLOAT) | T(FLOAT16) | T(DOUBLE) | T(COMPLEX64) |
                                              T(COMPLEX128) | T(BF16),
                                          0, 0};

/* hicann/ops-math math/cos/op_api/aclnn_cos.cpp L41-53 (the 910B lists),
 * L81-101 (checks), L123-129 (integers and bool computed in float32);
 * math/sin/op_api/aclnn_sin.cpp L26-33, L62-69, L122-126 the same;
 * math/log/op_api/aclnn_log.cpp L58-70, L72-75 (CanCast(self, out)),
 * L145-151 (the in-place list). */
#define T_TRIG (T_FLOATS_OUT | T_INTS)
static const struct unary cos_ = {"aclnnCos", "Cos", BE_OP_COS, T_TRIG, T_FLOATS_OUT, T_INTS};
static const struct unary inplace_cos = {"aclnnInplaceCos", "Cos", BE_OP_COS, T_FLOATS_OUT, 0, 0};
static const struct unary sin_ = {"aclnnSin", "Sin", BE_OP_SIN, T_TRIG, T_FLOATS_OUT, T_INTS};
static const struct unary inplace_sin = {"aclnnInplaceSin", "Sin", BE_OP_SIN, T_FLOATS_OUT, 0, 0};
static const struct unary log_ = {"aclnnLog", "Log", BE_OP_LOG, T_TRIG, T_FLOATS_OUT, T_INTS};
static const struct unary inplace_log = {"aclnnInplaceLog", "Log", BE_OP_LOG, T_FLOATS_OUT, 0, 0};

/* The planning call `plan` of unary operator `rule`, named `name` in messages
 * (self, out: out_type *out, as CANN declares it). */
#define UNARY_OUT(plan, name, rule, out_type)                                               \
    aclnnStatus api_impl_##plan(const aclTensor *self, out_type *out,                       \
                                uint64_t *workspaceSize, aclOpExecutor **executor)          \
    {                                                                                       \
        API_FORWARD(plan, (self, out, workspaceSize, executor));                            \
        NN_CHECK_NULL(#name, self);                                                         \
        NN_CHECK_NULL(#name, out);                                                          \
        return unary(&rule, self, "self", out, "out", workspaceSize, executor);             \
    }
#define UNARY(plan, name, rule) UNARY_OUT(plan, name, rule, aclTensor)
/* The planning call `plan` of an in-place unary operator (selfRef). */
#define INPLACE_UNARY(plan, name, rule)                                                     \
    aclnnStatus api_impl_##plan(aclTensor *selfRef, uint64_t *workspaceSize,                \
                                aclOpExecutor **executor)                                   \
    {                                                                                       \
        API_FORWARD(plan, (selfRef, workspaceSize, executor));                              \
        NN_CHECK_NULL(#name, selfRef);                                                      \
        return unary(&rule, selfRef, "selfRef", selfRef, "selfRef", workspaceSize,          \
                     executor);                                                             \
    }

UNARY(aclnnAbsGetWorkspaceSize, aclnnAbs, abs_)
NN_LAUNCH(aclnnAbs)
UNARY(aclnnNegGetWorkspaceSize, aclnnNeg, neg_)
NN_LAUNCH(aclnnNeg)
INPLACE_UNARY(aclnnInplaceNegGetWorkspaceSize, aclnnInplaceNeg, inplace_neg)
NN_LAUNCH(aclnnInplaceNeg)
UNARY_OUT(aclnnReluGetWorkspaceSize, aclnnRelu, relu_, const aclTensor)
NN_LAUNCH(aclnnRelu)
INPLACE_UNARY(aclnnInplaceReluGetWorkspaceSize, aclnnInplaceRelu, inplace_relu)
NN_LAUNCH(aclnnInplaceRelu)
UNARY(aclnnSigmoidGetWorkspaceSize, aclnnSigmoid, sigmoid_)
NN_LAUNCH(aclnnSigmoid)
INPLACE_UNARY(aclnnInplaceSigmoidGetWorkspaceSize, aclnnInplaceSigmoid, inplace_sigmoid)
NN_LAUNCH(aclnnInplaceSigmoid)
UNARY(aclnnTanhGetWorkspaceSize, aclnnTanh, tanh_)
NN_LAUNCH(aclnnTanh)
INPLACE_UNARY(aclnnInplaceTanhGetWorkspaceSize, aclnnInplaceTanh, inplace_tanh)
NN_LAUNCH(aclnnInplaceTanh)
UNARY(aclnnGeluGetWorkspaceSize, aclnnGelu, gelu_)
NN_LAUNCH(aclnnGelu)
UNARY(aclnnExpGetWorkspaceSize, aclnnExp, exp_)
NN_LAUNCH(aclnnExp)
INPLACE_UNARY(aclnnInplaceExpGetWorkspaceSize, aclnnInplaceExp, inplace_exp)
NN_LAUNCH(aclnnInplaceExp)
UNARY(aclnnSqrtGetWorkspaceSize, aclnnSqrt, sqrt_)
NN_LAUNCH(aclnnSqrt)
INPLACE_UNARY(aclnnInplaceSqrtGetWorkspaceSize, aclnnInplaceSqrt, inplace_sqrt)
NN_LAUNCH(aclnnInplaceSqrt)
UNARY(aclnnCosGetWorkspaceSize, aclnnCos, cos_)
NN_LAUNCH(aclnnCos)
INPLACE_UNARY(aclnnInplaceCosGetWorkspaceSize, aclnnInplaceCos, inplace_cos)
NN_LAUNCH(aclnnInplaceCos)
UNARY(aclnnSinGetWorkspaceSize, aclnnSin, sin_)
NN_LAUNCH(aclnnSin)
INPLACE_UNARY(aclnnInplaceSinGetWorkspaceSize, aclnnInplaceSin, inplace_sin)
NN_LAUNCH(aclnnInplaceSin)
UNARY(aclnnLogGetWorkspaceSize, aclnnLog, log_)
NN_LAUNCH(aclnnLog)
INPLACE_UNARY(aclnnInplaceLogGetWorkspaceSize, aclnnInplaceLog, inplace_log)
NN_LAUNCH(aclnnInplaceLog)

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
        (rc = computed(&c, calc)) != OK || (rc = nn_out(&c, result, "result")) != OK ||
        (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    c.op->calc = calc;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnSign)

/* ---- Comparisons and powers ---- */

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
        (rc = check_scalar_type(&c, other, "other", T_GT)) != OK ||
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
        (rc = computed(&c, calc)) != OK || (rc = nn_out(&c, out, out_name)) != OK ||
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
    if ((rc = computed(&c, calc)) != OK || (rc = nn_out(&c, out, "out")) != OK ||
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
        (rc = computed(&c, calc)) != OK || (rc = nn_out(&c, out, "out")) != OK ||
        (rc = nn_in_scalar(&c, self)) != OK || (rc = nn_in(&c, exponent, "exponent")) != OK)
        return rc;
    c.op->calc = calc;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnPowScalarTensor)
