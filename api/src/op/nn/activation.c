/*
 * activation.c - the aclnn activations with parameters and bounds (the
 * NN_ACTIVATION calls of api/abi/calls.def): Silu, GeluV2, Elu, LeakyRelu,
 * Softplus, Hardsigmoid, Hardswish, Threshold and the scalar Clamps, with
 * their Inplace forms. Each is a rule (CANN's support list and what out
 * may be) and one small function over act_begin / act_end, with the
 * checks of its scalars between them; the simulator's pointwise kernels
 * (sim/ops/pointwise.c) compute them through the one engine, on views.
 *
 * The rules are those of the Atlas A2 operators (the 910B lists, DAV_2201)
 * of hicann/ops-nn activation/{swish,gelu_v2,elu,leaky_relu,softplus_v2,
 * hard_sigmoid,hard_swish,threshold}/ and hicann/ops-math conversion/
 * clip_by_value_v2/op_api/aclnn_clamp.cpp; each function cites its lines.
 * The parameters travel as fparam (the kind's line in
 * api/abi/ops/pointwise.def says which); an integer calc type takes its
 * bounds as iparam.
 */
#include <math.h>
#include "nn.h"

#define T(x) API_T(ACL_##x)
#define T_F (T(FLOAT) | T(FLOAT16) | T(BF16))

struct act {
    const char *launch, *type;
    enum be_op_kind kind;
    api_types types;     /* self's support list */
    api_types out_types; /* out's (0: not checked against a list) */
    bool same_type;      /* out must have self's type (else CanCast(self, out)) */
};

/* Start planning: the executor, self's (and out's) list, out's type. */
static aclnnStatus act_begin(struct nn_call *c, const struct act *r, const aclTensor *self,
                             const aclTensor *out, uint64_t *ws, aclOpExecutor **executor)
{
    aclnnStatus rc = nn_begin(c, r->launch, r->type, r->kind, ws, executor);
    if (rc == OK)
        rc = nn_check_type(c, self, "self", r->types);
    if (rc == OK && r->out_types)
        rc = nn_check_type(c, out, "out", r->out_types);
    if (rc != OK)
        return rc;
    if (!r->same_type)
        return nn_check_cast(c, self->dtype, out->dtype);
    if (out->dtype != self->dtype) /* OP_CHECK_DTYPE_NOT_MATCH, op_error_check.h L118-126 */
        return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Tensor out expected dtype is %s but found "
                       "%s.", api_dtype_name(self->dtype), api_dtype_name(out->dtype));
    return OK;
}

/* Finish: the dims and shapes, out and self as views, computed in calc. */
static aclnnStatus act_end(struct nn_call *c, const aclTensor *self, const aclTensor *out,
                           aclDataType calc, uint64_t *ws, aclOpExecutor **executor)
{
    aclnnStatus rc;
    if ((rc = nn_check_dims(c, self, "self")) != OK ||
        (rc = nn_check_same_shape(c, out, "out", self, "self")) != OK ||
        (rc = nn_out(c, out, "out")) != OK || (rc = nn_in(c, self, "self")) != OK)
        return rc;
    c->op->calc = calc;
    return nn_end(c, 0, ws, executor);
}

/* CANN's OP_CHECK_COMM_INPUT where an operator checks it before its
 * arguments (a NULL workspaceSize or executor). */
static aclnnStatus comm_input(const char *launch, uint64_t *ws, aclOpExecutor **executor)
{
    struct nn_call c;
    return nn_begin(&c, launch, "", BE_OP_RELU, ws, executor);
}
#define COMM_INPUT_FIRST(launch)                                                            \
    do {                                                                                    \
        if (!workspaceSize || !executor)                                                    \
            return comm_input(launch, workspaceSize, executor);                             \
    } while (0)

/* A scalar parameter must cast to type t: `text` with its type. */
static aclnnStatus scalar_casts(struct nn_call *c, const aclScalar *s, aclDataType t,
                                const char *text)
{
    if (api_can_cast(s->dtype, t))
        return OK;
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, text, api_dtype_name(s->dtype),
                   api_dtype_name(t));
}

/* A plain activation: the checks, then computed in self's type. */
static aclnnStatus plain(const struct act *r, const aclTensor *self, const aclTensor *out,
                         uint64_t *ws, aclOpExecutor **executor)
{
    struct nn_call c;
    aclnnStatus rc = act_begin(&c, r, self, out, ws, executor);
    return rc != OK ? rc : act_end(&c, self, out, self->dtype, ws, executor);
}

/* ---- Without parameters ---- */

/* ops-nn activation/swish/op_api/aclnn_silu.cpp L39-60 (CheckDtypeValid-
 * Activation: self and out in the list, out of self's type) */
static const struct act silu_ = {"aclnnSilu", "Swish", BE_OP_SILU, T_F, T_F, true};
/* activation/hard_sigmoid/op_api/aclnn_hardsigmoid.cpp L36-81: the list,
 * the shapes, out of self's type */
static const struct act hardsigmoid_ = {"aclnnHardsigmoid", "HardSigmoid", BE_OP_HARDSIGMOID,
                                        T_F | T(INT32), 0, true};
static const struct act inplace_hardsigmoid = {"aclnnInplaceHardsigmoid", "HardSigmoid",
                                               BE_OP_HARDSIGMOID, T_F | T(INT32), 0, true};
/* activation/hard_swish/op_host/op_api/aclnn_hardswish.cpp L37-63: self and
 * out in the list, CanCast(self, out) */
static const struct act hardswish_ = {"aclnnHardswish", "HardSwish", BE_OP_HARDSWISH, T_F, T_F,
                                      false};
static const struct act inplace_hardswish = {"aclnnInplaceHardswish", "HardSwish",
                                             BE_OP_HARDSWISH, T_F, T_F, false};

/* The planning call `plan` of `name` by rule (self, out as CANN declares
 * them). */
#define PLAIN(plan, name, rule, out_type)                                                   \
    aclnnStatus api_impl_##plan(const aclTensor *self, out_type *out,                       \
                                uint64_t *workspaceSize, aclOpExecutor **executor)          \
    {                                                                                       \
        API_FORWARD(plan, (self, out, workspaceSize, executor));                            \
        COMM_INPUT_FIRST(#name);                                                            \
        NN_CHECK_NULL(#name, self);                                                         \
        NN_CHECK_NULL(#name, out);                                                          \
        return plain(&rule, self, out, workspaceSize, executor);                            \
    }
#define INPLACE_PLAIN(plan, name, rule)                                                     \
    aclnnStatus api_impl_##plan(const aclTensor *self, uint64_t *workspaceSize,             \
                                aclOpExecutor **executor)                                   \
    {                                                                                       \
        API_FORWARD(plan, (self, workspaceSize, executor));                                 \
        COMM_INPUT_FIRST(#name);                                                            \
        NN_CHECK_NULL(#name, self);                                                         \
        return plain(&rule, self, self, workspaceSize, executor);                           \
    }

PLAIN(aclnnSiluGetWorkspaceSize, aclnnSilu, silu_, aclTensor)
NN_LAUNCH(aclnnSilu)
PLAIN(aclnnHardsigmoidGetWorkspaceSize, aclnnHardsigmoid, hardsigmoid_, aclTensor)
NN_LAUNCH(aclnnHardsigmoid)
INPLACE_PLAIN(aclnnInplaceHardsigmoidGetWorkspaceSize, aclnnInplaceHardsigmoid,
              inplace_hardsigmoid)
NN_LAUNCH(aclnnInplaceHardsigmoid)
PLAIN(aclnnHardswishGetWorkspaceSize, aclnnHardswish, hardswish_, const aclTensor)
NN_LAUNCH(aclnnHardswish)
INPLACE_PLAIN(aclnnInplaceHardswishGetWorkspaceSize, aclnnInplaceHardswish, inplace_hardswish)
NN_LAUNCH(aclnnInplaceHardswish)

/* ops-nn activation/gelu_v2/op_api/aclnn_gelu_v2.cpp L23-31 (approximate:
 * 1 is "tanh", anything else "none", the erf form), L50-63 (y of x's type,
 * then x in the list), L65-70 (the shapes). */
static const struct act gelu_v2 = {"aclnnGeluV2", "GeluV2", BE_OP_GELU_ERF, T_F, 0, true};

aclnnStatus api_impl_aclnnGeluV2GetWorkspaceSize(const aclTensor *x, int64_t approximate,
                                                 aclTensor *y, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    API_FORWARD(aclnnGeluV2GetWorkspaceSize, (x, approximate, y, workspaceSize, executor));
    NN_CHECK_NULL("aclnnGeluV2", x);
    NN_CHECK_NULL("aclnnGeluV2", y);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, gelu_v2.launch, gelu_v2.type,
                              approximate == 1 ? BE_OP_GELU : BE_OP_GELU_ERF, workspaceSize,
                              executor);
    if (rc != OK)
        return rc;
    if (y->dtype != x->dtype)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Tensor y expected dtype is %s but found "
                       "%s.", api_dtype_name(x->dtype), api_dtype_name(y->dtype));
    if ((rc = nn_check_type(&c, x, "x", gelu_v2.types)) != OK)
        return rc;
    return act_end(&c, x, y, x->dtype, workspaceSize, executor);
}
NN_LAUNCH(aclnnGeluV2)

/* ---- With scalar parameters ---- */

/* ops-nn activation/elu/op_api/aclnn_elu.cpp L35-36 (the list), L50-80
 * (scale, alpha, inputScale cast to float32; CanCast(self, out)), L83-91,
 * L176-177 (out = scale * (x > 0 ? x : alpha * (exp(inputScale * x) - 1)),
 * docs/aclnnElu.md). */
static const struct act elu_ = {"aclnnElu", "Elu", BE_OP_ELU,
                                T(FLOAT) | T(FLOAT16) | T(DOUBLE) | T(BF16), 0, false};

static aclnnStatus elu(const aclTensor *self, const aclScalar *alpha, const aclScalar *scale,
                       const aclScalar *inputScale, const aclTensor *out, uint64_t *ws,
                       aclOpExecutor **executor)
{
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, elu_.launch, elu_.type, elu_.kind, ws, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", elu_.types);
    if (rc == OK)
        rc = scalar_casts(&c, scale, ACL_FLOAT, "scale dtype %s can not cast to float32.");
    if (rc == OK)
        rc = scalar_casts(&c, alpha, ACL_FLOAT, "alpha dtype %s can not cast to float32.");
    if (rc == OK)
        rc = scalar_casts(&c, inputScale, ACL_FLOAT, "inputScale dtype %s can not cast to "
                          "float32.");
    if (rc == OK)
        rc = nn_check_cast(&c, self->dtype, out->dtype);
    if (rc != OK)
        return rc;
    c.op->fparam[0] = nn_scalar_value(alpha);
    c.op->fparam[1] = nn_scalar_value(scale);
    c.op->fparam[2] = nn_scalar_value(inputScale);
    return act_end(&c, self, out, self->dtype, ws, executor);
}

aclnnStatus api_impl_aclnnEluGetWorkspaceSize(const aclTensor *self, const aclScalar *alpha,
                                              const aclScalar *scale,
                                              const aclScalar *inputScale, aclTensor *out,
                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnEluGetWorkspaceSize, (self, alpha, scale, inputScale, out, workspaceSize,
                                           executor));
    NN_CHECK_NULL("aclnnElu", self);
    NN_CHECK_NULL("aclnnElu", alpha);
    NN_CHECK_NULL("aclnnElu", scale);
    NN_CHECK_NULL("aclnnElu", inputScale);
    NN_CHECK_NULL("aclnnElu", out);
    return elu(self, alpha, scale, inputScale, out, workspaceSize, executor);
}
NN_LAUNCH(aclnnElu)

aclnnStatus api_impl_aclnnInplaceEluGetWorkspaceSize(aclTensor *selfRef, const aclScalar *alpha,
                                                     const aclScalar *scale,
                                                     const aclScalar *inputScale,
                                                     uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceEluGetWorkspaceSize, (selfRef, alpha, scale, inputScale,
                                                  workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceElu", selfRef);
    NN_CHECK_NULL("aclnnInplaceElu", alpha);
    NN_CHECK_NULL("aclnnInplaceElu", scale);
    NN_CHECK_NULL("aclnnInplaceElu", inputScale);
    return elu(selfRef, alpha, scale, inputScale, selfRef, workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceElu)

/* ops-nn activation/leaky_relu/op_api/aclnn_leaky_relu.cpp L35-36 (the
 * list), L56-69 (CanCast(self, out), the shapes), L111 (negativeSlope as a
 * float). */
static const struct act leaky_relu = {"aclnnLeakyRelu", "LeakyRelu", BE_OP_LEAKY_RELU,
                                      T(FLOAT) | T(FLOAT16) | T(DOUBLE) | T(BF16), 0, false};

static aclnnStatus leaky(const char *launch, const aclTensor *self,
                         const aclScalar *negativeSlope, const aclTensor *out, uint64_t *ws,
                         aclOpExecutor **executor)
{
    struct act r = leaky_relu;
    r.launch = launch;
    struct nn_call c;
    aclnnStatus rc = act_begin(&c, &r, self, out, ws, executor);
    if (rc != OK)
        return rc;
    c.op->fparam[0] = (float)nn_scalar_value(negativeSlope);
    return act_end(&c, self, out, self->dtype, ws, executor);
}

aclnnStatus api_impl_aclnnLeakyReluGetWorkspaceSize(const aclTensor *self,
                                                    const aclScalar *negativeSlope,
                                                    aclTensor *out, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor)
{
    API_FORWARD(aclnnLeakyReluGetWorkspaceSize, (self, negativeSlope, out, workspaceSize,
                                                 executor));
    NN_CHECK_NULL("aclnnLeakyRelu", self);
    NN_CHECK_NULL("aclnnLeakyRelu", negativeSlope);
    NN_CHECK_NULL("aclnnLeakyRelu", out);
    return leaky("aclnnLeakyRelu", self, negativeSlope, out, workspaceSize, executor);
}
NN_LAUNCH(aclnnLeakyRelu)

aclnnStatus api_impl_aclnnInplaceLeakyReluGetWorkspaceSize(aclTensor *selfRef,
                                                           const aclScalar *negativeSlope,
                                                           uint64_t *workspaceSize,
                                                           aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceLeakyReluGetWorkspaceSize, (selfRef, negativeSlope, workspaceSize,
                                                        executor));
    /* aclnn_leaky_relu.cpp L128-132: the out-of-place planner with selfRef twice */
    NN_CHECK_NULL("aclnnInplaceLeakyRelu", selfRef);
    NN_CHECK_NULL("aclnnInplaceLeakyRelu", negativeSlope);
    return leaky("aclnnInplaceLeakyRelu", selfRef, negativeSlope, selfRef, workspaceSize,
                 executor);
}
NN_LAUNCH(aclnnInplaceLeakyRelu)

/* ops-nn activation/softplus_v2/op_api/aclnn_softplus.cpp L49-50 (the
 * list), L64-84 (beta and threshold cast to self's type, self to out's),
 * L87-94, L140 (SoftplusV2 with beta and threshold as floats:
 * x if beta * x > threshold, else log(1 + exp(beta * x)) / beta,
 * docs/aclnnSoftplus.md). */
static const struct act softplus_ = {"aclnnSoftplus", "SoftplusV2", BE_OP_SOFTPLUS, T_F, 0,
                                     false};

aclnnStatus api_impl_aclnnSoftplusGetWorkspaceSize(const aclTensor *self, const aclScalar *beta,
                                                   const aclScalar *threshold, aclTensor *out,
                                                   uint64_t *workspaceSize,
                                                   aclOpExecutor **executor)
{
    API_FORWARD(aclnnSoftplusGetWorkspaceSize, (self, beta, threshold, out, workspaceSize,
                                                executor));
    COMM_INPUT_FIRST("aclnnSoftplus"); /* L115 */
    NN_CHECK_NULL("aclnnSoftplus", self);
    NN_CHECK_NULL("aclnnSoftplus", beta);
    NN_CHECK_NULL("aclnnSoftplus", threshold);
    NN_CHECK_NULL("aclnnSoftplus", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, softplus_.launch, softplus_.type, softplus_.kind,
                              workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", softplus_.types);
    if (rc == OK)
        rc = nn_check_cast(&c, beta->dtype, self->dtype);
    if (rc == OK)
        rc = nn_check_cast(&c, threshold->dtype, self->dtype);
    if (rc == OK)
        rc = nn_check_cast(&c, self->dtype, out->dtype);
    if (rc != OK)
        return rc;
    c.op->fparam[0] = (float)nn_scalar_value(beta);
    c.op->fparam[1] = (float)nn_scalar_value(threshold);
    return act_end(&c, self, out, self->dtype, workspaceSize, executor);
}
NN_LAUNCH(aclnnSoftplus)

/* ops-nn activation/threshold/op_host/op_api/aclnn_threshold.cpp L36-38
 * (the 910B list), L50-81 (NULL order self, out, threshold, value;
 * CanCast(self, out); the shapes), L128 (Threshold: x > threshold ? x :
 * value, docs/aclnnThreshold.md). */
#define T_THRESHOLD (T(FLOAT) | T(INT32) | T(FLOAT16) | T(INT8) | T(UINT8) | T(INT16) |        \
                     T(INT64) | T(BF16))
static const struct act threshold_ = {"aclnnThreshold", "Threshold", BE_OP_THRESHOLD,
                                      T_THRESHOLD, 0, false};

static aclnnStatus threshold(const char *launch, const aclTensor *self,
                             const aclScalar *thresh, const aclScalar *value,
                             const aclTensor *out, uint64_t *ws, aclOpExecutor **executor)
{
    struct act r = threshold_;
    r.launch = launch;
    struct nn_call c;
    aclnnStatus rc = act_begin(&c, &r, self, out, ws, executor);
    if (rc != OK)
        return rc;
    c.op->fparam[0] = nn_scalar_value(thresh);
    c.op->fparam[1] = nn_scalar_value(value);
    c.op->iparam[1] = (int64_t)c.op->fparam[1];
    return act_end(&c, self, out, self->dtype, ws, executor);
}

aclnnStatus api_impl_aclnnThresholdGetWorkspaceSize(const aclTensor *self,
                                                    const aclScalar *threshold_v,
                                                    const aclScalar *value, aclTensor *out,
                                                    uint64_t *workspaceSize,
                                                    aclOpExecutor **executor)
{
    API_FORWARD(aclnnThresholdGetWorkspaceSize, (self, threshold_v, value, out, workspaceSize,
                                                 executor));
    COMM_INPUT_FIRST("aclnnThreshold"); /* L148 */
    NN_CHECK_NULL("aclnnThreshold", self);
    NN_CHECK_NULL("aclnnThreshold", out);
    if (!threshold_v)
        return nn_null("aclnnThreshold", "aclScalar", "threshold");
    NN_CHECK_NULL("aclnnThreshold", value);
    return threshold("aclnnThreshold", self, threshold_v, value, out, workspaceSize, executor);
}
NN_LAUNCH(aclnnThreshold)

aclnnStatus api_impl_aclnnInplaceThresholdGetWorkspaceSize(aclTensor *selfRef,
                                                           const aclScalar *threshold_v,
                                                           const aclScalar *value,
                                                           uint64_t *workspaceSize,
                                                           aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceThresholdGetWorkspaceSize, (selfRef, threshold_v, value,
                                                        workspaceSize, executor));
    COMM_INPUT_FIRST("aclnnInplaceThreshold"); /* L165 */
    NN_CHECK_NULL("aclnnInplaceThreshold", selfRef);
    if (!threshold_v)
        return nn_null("aclnnInplaceThreshold", "aclScalar", "threshold");
    NN_CHECK_NULL("aclnnInplaceThreshold", value);
    return threshold("aclnnInplaceThreshold", selfRef, threshold_v, value, selfRef,
                     workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceThreshold)

/* ---- Clamps ---- */

/* hicann/ops-math conversion/clip_by_value_v2/op_api/aclnn_clamp.cpp L36-38
 * (the 910B list), CheckNotNull L126-137 (self, out, then at least one
 * bound: ACLNN_ERR_PARAM_NULLPTR "clamp: At least one of 'min' or 'max'
 * must not be None."), CheckParams L184-192 (self and out in the list; the
 * shapes), aclnnClampCommon L332-385: off the regbase SoCs the clamp is
 * computed in out's type (self must cast to it: "self type %s can't be cast
 * to the output type %s."), a missing bound is the type's extreme
 * (NormalizeMax/MinScalar L231-279) and ClipByValueV2 computes
 * min(max(x, min), max). */
#define T_CLAMP (T(FLOAT16) | T(FLOAT) | T(INT32) | T(INT64) | T(INT16) | T(INT8) | T(UINT8) | \
                 T(DOUBLE) | T(BF16))

static int64_t int_bound(double v)
{
    return v >= 0x1p63 ? INT64_MAX : v <= -0x1p63 ? INT64_MIN : (int64_t)v;
}

static aclnnStatus clamp(const char *launch, const aclTensor *self, const aclScalar *lo,
                         const aclScalar *hi, const aclTensor *out, uint64_t *ws,
                         aclOpExecutor **executor)
{
    if (!self)
        return nn_null(launch, "aclTensor", "self");
    if (!out)
        return nn_null(launch, "aclTensor", "out");
    if (!lo && !hi)
        return api_nn_fail(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: clamp: At least one "
                           "of 'min' or 'max' must not be None.", launch);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, launch, "ClipByValueV2", BE_OP_CLAMP, ws, executor);
    if (rc != OK || (rc = nn_check_type(&c, self, "self", T_CLAMP)) != OK ||
        (rc = nn_check_type(&c, out, "out", T_CLAMP)) != OK ||
        (rc = nn_check_same_shape(&c, self, "self", out, "out")) != OK ||
        (rc = nn_check_dims(&c, self, "self")) != OK)
        return rc;
    if (!api_can_cast(self->dtype, out->dtype))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "self type %s can't be cast to the output "
                       "type %s.", api_dtype_name(self->dtype), api_dtype_name(out->dtype));
    double *f = c.op->fparam;
    f[0] = lo ? nn_scalar_value(lo) : -INFINITY;
    f[1] = hi ? nn_scalar_value(hi) : INFINITY;
    c.op->iparam[0] = int_bound(f[0]);
    c.op->iparam[1] = int_bound(f[1]);
    return act_end(&c, self, out, out->dtype, ws, executor);
}

aclnnStatus api_impl_aclnnClampGetWorkspaceSize(const aclTensor *self,
                                                const aclScalar *clipValueMin,
                                                const aclScalar *clipValueMax, aclTensor *out,
                                                uint64_t *workspaceSize,
                                                aclOpExecutor **executor)
{
    API_FORWARD(aclnnClampGetWorkspaceSize, (self, clipValueMin, clipValueMax, out,
                                             workspaceSize, executor));
    return clamp("aclnnClamp", self, clipValueMin, clipValueMax, out, workspaceSize, executor);
}
NN_LAUNCH(aclnnClamp)

/* L402-408, L629-635, L645-652: the one bound checked for NULL first */
aclnnStatus api_impl_aclnnClampMinGetWorkspaceSize(const aclTensor *self,
                                                   const aclScalar *clipValueMin,
                                                   aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor)
{
    API_FORWARD(aclnnClampMinGetWorkspaceSize, (self, clipValueMin, out, workspaceSize,
                                                executor));
    NN_CHECK_NULL("aclnnClampMin", clipValueMin);
    return clamp("aclnnClampMin", self, clipValueMin, NULL, out, workspaceSize, executor);
}
NN_LAUNCH(aclnnClampMin)

aclnnStatus api_impl_aclnnClampMaxGetWorkspaceSize(const aclTensor *self,
                                                   const aclScalar *clipValueMax,
                                                   aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor)
{
    API_FORWARD(aclnnClampMaxGetWorkspaceSize, (self, clipValueMax, out, workspaceSize,
                                                executor));
    NN_CHECK_NULL("aclnnClampMax", clipValueMax);
    return clamp("aclnnClampMax", self, NULL, clipValueMax, out, workspaceSize, executor);
}
NN_LAUNCH(aclnnClampMax)

aclnnStatus api_impl_aclnnInplaceClampMaxGetWorkspaceSize(const aclTensor *selfRef,
                                                          const aclScalar *clipValueMax,
                                                          uint64_t *workspaceSize,
                                                          aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceClampMaxGetWorkspaceSize, (selfRef, clipValueMax, workspaceSize,
                                                       executor));
    NN_CHECK_NULL("aclnnInplaceClampMax", clipValueMax);
    return clamp("aclnnInplaceClampMax", selfRef, NULL, clipValueMax, selfRef, workspaceSize,
                 executor);
}
NN_LAUNCH(aclnnInplaceClampMax)
