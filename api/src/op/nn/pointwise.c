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
#include "checks.h"

/* the 910B list of Add, Sub, Mul and Div (one list in each of their files) */
#define T_ARITH                                                                           \
    (T(FLOAT) | T(INT32) | T(INT64) | T(FLOAT16) | T(INT16) | T(INT8) | T(UINT8) |         \
     T(DOUBLE) | T(BOOL) | T(BF16) | T(COMPLEX64) | T(COMPLEX128))
/* ---- Two tensors ---- */

struct binary {
    const char *launch, *type;
    enum be_op_kind kind;
    bool alpha;       /* Add, Sub: other is scaled by alpha */
    bool out_listed;  /* Mul: out's type is checked against the list too */
    bool true_div;    /* Div: integers divide in float32 */
    bool out_first;   /* Div: CheckNotNull checks out, other, self (aclnn_div.cpp) */
};

/* CANN's CheckNotNull of a two-operand operator: self, other, alpha (when
 * it takes one), out, or Div's out, other, self. An in-place operator's out
 * is its self. other_type: "aclTensor" or "aclScalar". */
static aclnnStatus not_null(const struct binary *b, const void *self, const char *self_name,
                            const void *other, const char *other_type, const aclScalar *alpha,
                            const void *out)
{
    const char *first = b->out_first ? "out" : self_name;
    if (!(b->out_first ? out : self))
        return nn_null(b->launch, "aclTensor", first);
    if (!other)
        return nn_null(b->launch, other_type, "other");
    if (b->alpha && !alpha)
        return nn_null(b->launch, "aclScalar", "alpha");
    if (!(b->out_first ? self : out))
        return nn_null(b->launch, "aclTensor", b->out_first ? self_name : "out");
    return OK;
}

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

/* out = self (op) alpha * other, out broadcast from self and other. */
static aclnnStatus binary(const struct binary *b, const aclTensor *self, const char *self_name,
                          const aclTensor *other, const aclScalar *alpha, const aclTensor *out,
                          const char *out_name, uint64_t *ws, aclOpExecutor **executor)
{
    aclnnStatus rc = not_null(b, self, self_name, other, "aclTensor", alpha, out);
    if (rc != OK)
        return rc;
    struct nn_call c;
    rc = nn_begin(&c, b->launch, b->type, b->kind, ws, executor);
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
    if ((rc = nn_computed(&c, calc)) != OK || (rc = nn_out(&c, out, out_name)) != OK ||
        (rc = nn_in(&c, self, self_name)) != OK || (rc = nn_in(&c, other, "other")) != OK)
        return rc;
    c.op->calc = calc;
    if (b->alpha)
        c.op->alpha = nn_scalar_value(alpha);
    return nn_end(&c, 0, ws, executor);
}

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

/* out = self (op) alpha * other for a host scalar other; out has self's
 * shape. */
static aclnnStatus scalar(const struct binary *b, const aclTensor *self, const char *self_name,
                          const aclScalar *other, const aclScalar *alpha, const aclTensor *out,
                          const char *out_name, uint64_t *ws, aclOpExecutor **executor)
{
    aclnnStatus rc = not_null(b, self, self_name, other, "aclScalar", alpha, out);
    if (rc != OK)
        return rc;
    struct nn_call c;
    rc = nn_begin(&c, b->launch, b->type, b->kind, ws, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, self_name, T_ARITH);
    if (rc == OK && b->out_listed)
        rc = nn_check_type(&c, out, out_name, T_ARITH);
    if (rc != OK)
        return rc;
    if ((rc = nn_check_scalar_type(&c, other, "other", T_ARITH)) != OK)
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
        (rc = nn_computed(&c, calc)) != OK || (rc = nn_out(&c, out, out_name)) != OK ||
        (rc = nn_in(&c, self, self_name)) != OK || (rc = nn_in_scalar(&c, other)) != OK)
        return rc;
    c.op->calc = calc;
    if (b->alpha)
        c.op->alpha = nn_scalar_value(alpha);
    return nn_end(&c, 0, ws, executor);
}

/* ---- The planning and launch calls of the two-operand operators ----
 *
 * Each is CANN's signature of `plan` around binary or scalar (`planner`),
 * followed by its launch call: OTHER is the type of other (aclTensor or
 * aclScalar), SELF that of an in-place operator's selfRef, as each header
 * declares them; with _ALPHA the operator takes an alpha. */
#define TWO(plan, rule, planner, OTHER)                                                         \
    aclnnStatus api_impl_##plan(const aclTensor *self, const OTHER *other, aclTensor *out,      \
                                uint64_t *workspaceSize, aclOpExecutor **executor)              \
    {                                                                                           \
        API_FORWARD(plan, (self, other, out, workspaceSize, executor));                         \
        return planner(&rule, self, "self", other, NULL, out, "out", workspaceSize, executor);  \
    }
#define TWO_ALPHA(plan, rule, planner, OTHER)                                                   \
    aclnnStatus api_impl_##plan(const aclTensor *self, const OTHER *other,                      \
                                const aclScalar *alpha, aclTensor *out,                         \
                                uint64_t *workspaceSize, aclOpExecutor **executor)              \
    {                                                                                           \
        API_FORWARD(plan, (self, other, alpha, out, workspaceSize, executor));                  \
        return planner(&rule, self, "self", other, alpha, out, "out", workspaceSize, executor); \
    }
#define TWO_INPLACE(plan, rule, planner, SELF, OTHER)                                           \
    aclnnStatus api_impl_##plan(SELF *selfRef, const OTHER *other, uint64_t *workspaceSize,     \
                                aclOpExecutor **executor)                                       \
    {                                                                                           \
        API_FORWARD(plan, (selfRef, other, workspaceSize, executor));                           \
        return planner(&rule, selfRef, "selfRef", other, NULL, selfRef, "selfRef",              \
                       workspaceSize, executor);                                                \
    }
#define TWO_INPLACE_ALPHA(plan, rule, planner, SELF, OTHER)                                     \
    aclnnStatus api_impl_##plan(SELF *selfRef, const OTHER *other, const aclScalar *alpha,      \
                                uint64_t *workspaceSize, aclOpExecutor **executor)              \
    {                                                                                           \
        API_FORWARD(plan, (selfRef, other, alpha, workspaceSize, executor));                    \
        return planner(&rule, selfRef, "selfRef", other, alpha, selfRef, "selfRef",             \
                       workspaceSize, executor);                                                \
    }

/* The rules: launch, type, kind, alpha, out_listed, true_div, out_first. */
static const struct binary add_ = {"aclnnAdd", "Add", BE_OP_ADD, true, false, false, false};
static const struct binary inplace_add = {"aclnnInplaceAdd", "Add", BE_OP_ADD, true, false,
                                          false, false};
static const struct binary sub_ = {"aclnnSub", "Sub", BE_OP_SUB, true, false, false, false};
static const struct binary inplace_sub = {"aclnnInplaceSub", "Sub", BE_OP_SUB, true, false,
                                          false, false};
static const struct binary mul_ = {"aclnnMul", "Mul", BE_OP_MUL, false, true, false, false};
static const struct binary inplace_mul = {"aclnnInplaceMul", "Mul", BE_OP_MUL, false, false,
                                          false, false};
static const struct binary div_ = {"aclnnDiv", "RealDiv", BE_OP_DIV, false, false, true, true};
static const struct binary inplace_div = {"aclnnInplaceDiv", "RealDiv", BE_OP_DIV, false, false,
                                          true, false};
static const struct binary adds_ = {"aclnnAdds", "Add", BE_OP_ADD, true, false, false, false};
static const struct binary inplace_adds = {"aclnnInplaceAdds", "Add", BE_OP_ADD, true, false,
                                           false, false};
static const struct binary subs_ = {"aclnnSubs", "Sub", BE_OP_SUB, true, false, false, false};
static const struct binary inplace_subs = {"aclnnInplaceSubs", "Sub", BE_OP_SUB, true, false,
                                           false, false};
static const struct binary muls_ = {"aclnnMuls", "Muls", BE_OP_MUL, false, true, false, false};
static const struct binary inplace_muls = {"aclnnInplaceMuls", "Muls", BE_OP_MUL, false, false,
                                           false, false};
static const struct binary divs_ = {"aclnnDivs", "RealDiv", BE_OP_DIV, false, false, true, false};
static const struct binary inplace_divs = {"aclnnInplaceDivs", "RealDiv", BE_OP_DIV, false,
                                           false, true, false};

TWO_ALPHA(aclnnAddGetWorkspaceSize, add_, binary, aclTensor)
NN_LAUNCH(aclnnAdd)
TWO_INPLACE_ALPHA(aclnnInplaceAddGetWorkspaceSize, inplace_add, binary, const aclTensor, aclTensor)
NN_LAUNCH(aclnnInplaceAdd)
TWO_ALPHA(aclnnSubGetWorkspaceSize, sub_, binary, aclTensor)
NN_LAUNCH(aclnnSub)
TWO_INPLACE_ALPHA(aclnnInplaceSubGetWorkspaceSize, inplace_sub, binary, aclTensor, aclTensor)
NN_LAUNCH(aclnnInplaceSub)
TWO(aclnnMulGetWorkspaceSize, mul_, binary, aclTensor)
NN_LAUNCH(aclnnMul)
TWO_INPLACE(aclnnInplaceMulGetWorkspaceSize, inplace_mul, binary, aclTensor, aclTensor)
NN_LAUNCH(aclnnInplaceMul)
TWO(aclnnDivGetWorkspaceSize, div_, binary, aclTensor)
NN_LAUNCH(aclnnDiv)
TWO_INPLACE(aclnnInplaceDivGetWorkspaceSize, inplace_div, binary, aclTensor, aclTensor)
NN_LAUNCH(aclnnInplaceDiv)
TWO_ALPHA(aclnnAddsGetWorkspaceSize, adds_, scalar, aclScalar)
NN_LAUNCH(aclnnAdds)
TWO_INPLACE_ALPHA(aclnnInplaceAddsGetWorkspaceSize, inplace_adds, scalar, const aclTensor,
                  aclScalar)
NN_LAUNCH(aclnnInplaceAdds)
TWO_ALPHA(aclnnSubsGetWorkspaceSize, subs_, scalar, aclScalar)
NN_LAUNCH(aclnnSubs)
TWO_INPLACE_ALPHA(aclnnInplaceSubsGetWorkspaceSize, inplace_subs, scalar, aclTensor, aclScalar)
NN_LAUNCH(aclnnInplaceSubs)
TWO(aclnnMulsGetWorkspaceSize, muls_, scalar, aclScalar)
NN_LAUNCH(aclnnMuls)
TWO_INPLACE(aclnnInplaceMulsGetWorkspaceSize, inplace_muls, scalar, aclTensor, aclScalar)
NN_LAUNCH(aclnnInplaceMuls)
TWO(aclnnDivsGetWorkspaceSize, divs_, scalar, aclScalar)
NN_LAUNCH(aclnnDivs)
TWO_INPLACE(aclnnInplaceDivsGetWorkspaceSize, inplace_divs, scalar, aclTensor, aclScalar)
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
        (rc = nn_computed(&c, calc)) != OK || (rc = nn_out(&c, out, out_name)) != OK ||
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
