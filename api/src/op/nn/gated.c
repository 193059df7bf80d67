/*
 * gated.c - the aclnn gated activations (the NN_GATED calls of
 * api/abi/calls.def): SwiGlu, GeGlu and GeGluV3. Each splits its input in
 * two halves along one dim and multiplies the activation of one half by
 * the other. Nothing is copied: the halves are two views of the one input
 * tensor (the second starts half the dim further), and the simulator's
 * GLU kernel (sim/ops/pointwise.c) walks them with the output through the
 * one engine. The activation and the product are computed in float32 (the
 * vector unit's type for these kernels; an assumption for float16 and
 * bfloat16 inputs) and stored in the output's type.
 */
#include "nn.h"

#define T(x) API_T(ACL_##x)
#define T_GLU (T(FLOAT) | T(FLOAT16) | T(BF16))

/* Make in[0] the activated half of the input's view in[0] along dim d and
 * in[1] the other (both views of the caller's input 0). */
static void halves(struct nn_call *c, int d, bool activate_left)
{
    struct be_view *a = &c->op->in[0], *b = &c->op->in[1];
    int64_t half = a->dims[d] / 2;
    a->dims[d] = half;
    b->dims[d] = half;
    if (activate_left)
        b->offset += half * b->strides[d];
    else
        a->offset += half * a->strides[d];
    c->e->plan.in_index[1] = 0;
}

/* ---- SwiGlu ---- */

/* hicann/ops-nn activation/swi_glu/docs/aclnnSwiGlu.md: out = Swish(A) * B
 * (L11-14, Swish of scale 1, SiLU), x in float32, float16 or bfloat16 with
 * at least one dim, dim in [-x.dim(), x.dim() - 1] and x even along it
 * (the parameter table, L58-86), out of x's type. CANN generates this
 * operator's aclnn layer from its definition (op_host/swi_glu_def.cpp): no
 * op_api source gives its texts, so these are aclsim's own. */
aclnnStatus api_impl_aclnnSwiGluGetWorkspaceSize(const aclTensor *x, int64_t dim,
                                                 const aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    API_FORWARD(aclnnSwiGluGetWorkspaceSize, (x, dim, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnSwiGlu", x);
    NN_CHECK_NULL("aclnnSwiGlu", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnSwiGlu", "SwiGlu", BE_OP_GLU, workspaceSize, executor);
    if (rc != OK || (rc = nn_check_type(&c, x, "x", T_GLU)) != OK ||
        (rc = nn_check_type(&c, out, "out", T_GLU)) != OK ||
        (rc = nn_check_dims(&c, x, "x")) != OK)
        return rc;
    if (out->dtype != x->dtype)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Tensor out expected dtype is %s but found "
                       "%s.", api_dtype_name(x->dtype), api_dtype_name(out->dtype));
    int64_t n = (int64_t)x->ndims;
    if (n == 0 || dim < -n || dim >= n)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of range [%lld, %lld] of "
                       "x's %lld dims (x must have at least one).", (long long)dim,
                       (long long)-n, (long long)n - 1, (long long)n);
    int d = (int)(dim < 0 ? dim + n : dim);
    if (x->dims[d] % 2)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "x's dim %d (%lld) must be even: SwiGlu "
                       "splits it in two halves.", d, (long long)x->dims[d]);
    int64_t want[BE_OP_MAX_DIMS];
    for (int i = 0; i < n; i++)
        want[i] = i == d ? x->dims[i] / 2 : x->dims[i];
    if ((rc = nn_check_shape(&c, out, "out", want, (int)n)) != OK ||
        (rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, x, "x")) != OK ||
        (rc = nn_in(&c, x, "x")) != OK)
        return rc;
    halves(&c, d, true);
    c.op->calc = ACL_FLOAT;
    c.op->iparam[0] = 0; /* SiLU */
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnSwiGlu)

/* ---- GeGlu ---- */

/* hicann/ops-nn activation/ge_glu_v2/op_host/op_api/aclnn_geglu.cpp: the
 * 910B list L34-42, CheckDtypeValid L53-73 (self, out, outGelu in it; out
 * and outGelu of self's type unless self is empty or 0-d), CheckShape
 * L121-155 (dim in range; self even along it; out and outGelu half of it
 * and equal to self elsewhere), checkApproximate L157-165; docs/
 * aclnnGeGluV3.md: approximate 0 is the erf Gelu ("none"), 1 the tanh one;
 * activateLeft: Gelu(A) * B, else A * Gelu(B); outGelu the Gelu. */
static aclnnStatus geglu(const char *launch, const aclTensor *self, int64_t dim,
                         int64_t approximate, bool activate_left, const aclTensor *out,
                         const aclTensor *out_gelu, uint64_t *ws, aclOpExecutor **executor)
{
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, launch, "GeGluV2", BE_OP_GLU, ws, executor);
    if (rc != OK || (rc = nn_check_type(&c, self, "self", T_GLU)) != OK ||
        (rc = nn_check_type(&c, out, "out", T_GLU)) != OK ||
        (rc = nn_check_type(&c, out_gelu, "outGelu", T_GLU)) != OK)
        return rc;
    int64_t n = (int64_t)self->ndims, elems = api_dims_elements(self->dims, (int)n);
    bool nothing = n == 0 || elems == 0;
    if (!nothing && out->dtype != self->dtype)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Tensor out expected dtype is %s but found "
                       "%s.", api_dtype_name(self->dtype), api_dtype_name(out->dtype));
    if (!nothing && out_gelu->dtype != self->dtype)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Tensor outGelu expected dtype is %s but "
                       "found %s.", api_dtype_name(self->dtype), api_dtype_name(out_gelu->dtype));
    if ((rc = nn_check_dims(&c, self, "self")) != OK ||
        (rc = nn_check_dims(&c, out, "out")) != OK ||
        (rc = nn_check_dims(&c, out_gelu, "outGelu")) != OK)
        return rc;
    int64_t nd = n ? n : 1;
    if (dim < -nd || dim > nd - 1)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected aclnnGeGlu dim value %lld to be "
                       "in range [%lld, %lld] but check failed.", (long long)dim, (long long)-nd,
                       (long long)nd - 1);
    int d = (int)(dim < 0 ? nd + dim : dim);
    int64_t size = n ? self->dims[d] : 1;
    int64_t osize = (int64_t)out->ndims > d ? out->dims[d] : 1;
    int64_t gsize = (int64_t)out_gelu->ndims > d ? out_gelu->dims[d] : 1;
    if (size % 2)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "selfSliceDimSize[%lld] must be even number.",
                       (long long)size);
    if (osize != size / 2)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected aclnnGeGlu out slice dim size %lld "
                       "to be equal to %lld but check failed.", (long long)osize,
                       (long long)size / 2);
    if (gsize != size / 2)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected aclnnGeGlu outGelu slice dim size "
                       "%lld to be equal to %lld but check failed.", (long long)gsize,
                       (long long)size / 2);
    if ((int64_t)out->ndims != nd || (int64_t)out_gelu->ndims != nd)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "outDimNum[%lld] and outGeluDimNum[%lld] must "
                       "be the same with inputDimNum[%lld].", (long long)out->ndims,
                       (long long)out_gelu->ndims, (long long)nd);
    for (int i = 0; i < n; i++)
        if (i != d && (self->dims[i] != out->dims[i] || out->dims[i] != out_gelu->dims[i])) {
            char a[200], b[200], g[200];
            api_dims_text(self->dims, (int)n, a, sizeof a);
            api_dims_text(out->dims, (int)n, b, sizeof b);
            api_dims_text(out_gelu->dims, (int)n, g, sizeof g);
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Except the slice dim[%lld], all other "
                           "shape dim must be the same, but got input shape: %s, out shape: %s, "
                           "out gelu shape: %s", (long long)dim, a, b, g);
        }
    if (approximate < 0 || approximate > 1)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Approximate should be 0 or 1, but current "
                       "is %lld", (long long)approximate);
    if ((rc = nn_out(&c, out, "out")) != OK || (rc = nn_out(&c, out_gelu, "outGelu")) != OK ||
        (rc = nn_in(&c, self, "self")) != OK || (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    halves(&c, d, activate_left); /* a 0-d self is odd along its one "dim" */
    c.op->calc = ACL_FLOAT;
    c.op->iparam[0] = approximate == 1 ? 2 : 1; /* Gelu by tanh, or by erf */
    return nn_end(&c, 0, ws, executor);
}

aclnnStatus api_impl_aclnnGeGluGetWorkspaceSize(const aclTensor *self, int64_t dim,
                                                int64_t approximate, aclTensor *out,
                                                aclTensor *outGelu, uint64_t *workspaceSize,
                                                aclOpExecutor **executor)
{
    API_FORWARD(aclnnGeGluGetWorkspaceSize, (self, dim, approximate, out, outGelu,
                                             workspaceSize, executor));
    NN_CHECK_NULL("aclnnGeGlu", self);
    NN_CHECK_NULL("aclnnGeGlu", out);
    NN_CHECK_NULL("aclnnGeGlu", outGelu);
    /* aclnn_geglu.cpp L224-229: GeGlu activates the right half */
    return geglu("aclnnGeGlu", self, dim, approximate, false, out, outGelu, workspaceSize,
                 executor);
}
NN_LAUNCH(aclnnGeGlu)

aclnnStatus api_impl_aclnnGeGluV3GetWorkspaceSize(const aclTensor *self, int64_t dim,
                                                  int64_t approximate, bool activateLeft,
                                                  aclTensor *out, aclTensor *outGelu,
                                                  uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    API_FORWARD(aclnnGeGluV3GetWorkspaceSize, (self, dim, approximate, activateLeft, out,
                                               outGelu, workspaceSize, executor));
    NN_CHECK_NULL("aclnnGeGluV3", self);
    NN_CHECK_NULL("aclnnGeGluV3", out);
    NN_CHECK_NULL("aclnnGeGluV3", outGelu);
    return geglu("aclnnGeGluV3", self, dim, approximate, activateLeft, out, outGelu,
                 workspaceSize, executor);
}
NN_LAUNCH(aclnnGeGluV3)
