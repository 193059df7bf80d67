/*
 * norm.c - the aclnn normalisations and softmax (the NN_NORM calls of
 * api/abi/calls.def): Softmax, RmsNorm, AddRmsNorm, LayerNorm, GroupNorm
 * and SoftmaxCrossEntropyWithLogits, over the simulator's norm family
 * (sim/ops/norm.c), which reads every tensor through its view. Checks,
 * codes and texts are cited per operator (hicann/ops-nn activation/ and
 * norm/). None of them asks for a workspace aclsim's kernels would use:
 * each plans 0 bytes.
 */
#include "checks.h"

#define T_NORM (T(FLOAT16) | T(FLOAT) | T(BF16))

/* aclnn_softmax.cpp list L45-46 */
#define T_SOFTMAX (T(FLOAT) | T(FLOAT16) | T(DOUBLE) | T(BF16))

/* out = softmax(self) along dim: hicann/ops-nn activation/softmax_v2/
 * op_api/aclnn_softmax.cpp (CheckParams L93-112: an empty self passes
 * first; the types L60-66, the dim's range L69-81, one shape L84-90). */
aclnnStatus api_impl_aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim,
                                                  aclTensor *out, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    API_FORWARD(aclnnSoftmaxGetWorkspaceSize, (self, dim, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnSoftmax", self);
    NN_CHECK_NULL("aclnnSoftmax", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnSoftmax", "SoftmaxV2", BE_OP_SOFTMAX, workspaceSize,
                              executor);
    if (rc != OK)
        return rc;
    if (api_dims_elements(self->dims, (int)self->ndims) == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    if ((rc = nn_check_type(&c, self, "self", T_SOFTMAX)) != OK ||
        (rc = nn_check_type(&c, out, "out", T_SOFTMAX)) != OK)
        return rc;
    int64_t n = self->ndims ? (int64_t)self->ndims : 1;
    if (dim >= n || dim < -n)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "provided dim %lld not in the range of input "
                       "size %lld.", (long long)dim, (long long)n);
    if ((rc = nn_check_dims(&c, self, "self")) != OK ||
        (rc = nn_check_same_shape(&c, self, "self", out, "out")) != OK ||
        (rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    c.op->axes[0] = dim < 0 ? dim + n : dim;
    c.op->n_axes = 1;
    c.op->calc = ACL_FLOAT;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnSoftmax)

/* The rows an RMS norm covers: gamma's dims must be x's last ones
 * (aclnnRmsNorm.md, the parameter table: gamma's shape is x's last
 * dims; a shape that breaks it is ACLNN_ERR_INNER_TILING_ERROR, 561002,
 * the return-code table). rstd holds one value per row (CANN's table asks
 * for x's rank with the normalised dims 1; ggml's CANN backend passes the
 * rows without them, so aclsim checks the count). */
static aclnnStatus rms_shapes(struct nn_call *c, const aclTensor *x, const aclTensor *gamma,
                              const aclTensor *y, const aclTensor *rstd)
{
    aclnnStatus rc;
    if ((rc = nn_check_dims(c, x, "x")) != OK || (rc = nn_check_dims(c, gamma, "gamma")) != OK)
        return rc;
    bool fits = gamma->ndims >= 1 && gamma->ndims <= x->ndims;
    for (uint64_t i = 0; fits && i < gamma->ndims; i++)
        fits = gamma->dims[gamma->ndims - 1 - i] == x->dims[x->ndims - 1 - i];
    if (!fits) {
        char sx[200], sg[200];
        api_dims_text(x->dims, (int)x->ndims, sx, sizeof sx);
        api_dims_text(gamma->dims, (int)gamma->ndims, sg, sizeof sg);
        return nn_fail(c, ACLNN_ERR_INNER_TILING_ERROR, "gamma's shape %s should be the last "
                       "dims of x's shape %s.", sg, sx);
    }
    if ((rc = nn_check_same_shape(c, y, "yOut", x, "x")) != OK)
        return rc;
    int64_t n = api_dims_elements(x->dims, (int)x->ndims);
    int64_t len = api_dims_elements(gamma->dims, (int)gamma->ndims);
    int64_t rows = len ? n / len : 0, got = api_dims_elements(rstd->dims, (int)rstd->ndims);
    if (got != rows)
        return nn_fail(c, ACLNN_ERR_INNER_TILING_ERROR, "rstdOut holds %lld elements, x has %lld "
                       "rows to normalise.", (long long)got, (long long)rows);
    return OK;
}

/* yOut = x / rms(x) * gamma over rows of gamma's size, rstdOut = 1 / rms:
 * hicann/ops-nn norm/rms_norm/docs/aclnnRmsNorm.md (the formula; x, gamma
 * and yOut FLOAT32, FLOAT16 or BFLOAT16, rstdOut FLOAT32; 161001, 161002
 * and 561002 in the return-code table). */
aclnnStatus api_impl_aclnnRmsNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma,
                                                  double epsilon, const aclTensor *yOut,
                                                  const aclTensor *rstdOut,
                                                  uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    API_FORWARD(aclnnRmsNormGetWorkspaceSize, (x, gamma, epsilon, yOut, rstdOut, workspaceSize,
                                               executor));
    NN_CHECK_NULL("aclnnRmsNorm", x);
    NN_CHECK_NULL("aclnnRmsNorm", gamma);
    NN_CHECK_NULL("aclnnRmsNorm", yOut);
    NN_CHECK_NULL("aclnnRmsNorm", rstdOut);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnRmsNorm", "RmsNorm", BE_OP_RMS_NORM, workspaceSize,
                              executor);
    if (rc == OK)
        rc = nn_check_type(&c, x, "x", T_NORM);
    if (rc == OK)
        rc = nn_check_type(&c, gamma, "gamma", T_NORM);
    if (rc == OK)
        rc = nn_check_type(&c, yOut, "yOut", T_NORM);
    if (rc == OK)
        rc = nn_check_type(&c, rstdOut, "rstdOut", T(FLOAT));
    if (rc == OK)
        rc = rms_shapes(&c, x, gamma, yOut, rstdOut);
    if (rc != OK)
        return rc;
    if (api_dims_elements(x->dims, (int)x->ndims) == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    if ((rc = nn_out(&c, yOut, "yOut")) != OK || (rc = nn_out(&c, rstdOut, "rstdOut")) != OK ||
        (rc = nn_in(&c, x, "x")) != OK || (rc = nn_in(&c, gamma, "gamma")) != OK)
        return rc;
    c.op->fparam[0] = epsilon;
    c.op->calc = ACL_FLOAT;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnRmsNorm)

/* xOut = x1 + x2, then RmsNorm of xOut: hicann/ops-nn norm/add_rms_norm/
 * op_host/op_api/aclnn_add_rms_norm.cpp (x1, x2, gamma, yOut and xOut of
 * one type, rstdOut FLOAT32; the shapes as RmsNorm's). */
aclnnStatus api_impl_aclnnAddRmsNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
                                                     const aclTensor *gamma, double epsilon,
                                                     aclTensor *yOut, aclTensor *rstdOut,
                                                     aclTensor *xOut, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    API_FORWARD(aclnnAddRmsNormGetWorkspaceSize, (x1, x2, gamma, epsilon, yOut, rstdOut, xOut,
                                                  workspaceSize, executor));
    const char *name = "aclnnAddRmsNorm";
    NN_CHECK_NULL(name, x1);
    NN_CHECK_NULL(name, x2);
    NN_CHECK_NULL(name, gamma);
    NN_CHECK_NULL(name, yOut);
    NN_CHECK_NULL(name, rstdOut);
    NN_CHECK_NULL(name, xOut);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, name, "AddRmsNorm", BE_OP_ADD_RMS_NORM, workspaceSize,
                              executor);
    if (rc == OK)
        rc = nn_check_type(&c, x1, "x1", T_NORM);
    if (rc == OK)
        rc = nn_same_type(&c, x1, "x1", x2, "x2");
    if (rc == OK)
        rc = nn_same_type(&c, x1, "x1", gamma, "gamma");
    if (rc == OK)
        rc = nn_same_type(&c, x1, "x1", yOut, "yOut");
    if (rc == OK)
        rc = nn_same_type(&c, x1, "x1", xOut, "xOut");
    if (rc == OK)
        rc = nn_check_type(&c, rstdOut, "rstdOut", T(FLOAT));
    if (rc == OK)
        rc = nn_check_same_shape(&c, x2, "x2", x1, "x1");
    if (rc == OK)
        rc = nn_check_same_shape(&c, xOut, "xOut", x1, "x1");
    if (rc == OK)
        rc = rms_shapes(&c, x1, gamma, yOut, rstdOut);
    if (rc != OK)
        return rc;
    if (api_dims_elements(x1->dims, (int)x1->ndims) == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    if ((rc = nn_out(&c, yOut, "yOut")) != OK || (rc = nn_out(&c, rstdOut, "rstdOut")) != OK ||
        (rc = nn_out(&c, xOut, "xOut")) != OK || (rc = nn_in(&c, x1, "x1")) != OK ||
        (rc = nn_in(&c, x2, "x2")) != OK || (rc = nn_in(&c, gamma, "gamma")) != OK)
        return rc;
    c.op->fparam[0] = epsilon;
    c.op->calc = ACL_FLOAT;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnAddRmsNorm)

/* mean or rstd's shape: input's, the normalised dims 1 (aclnn_layer_norm.cpp
 * CheckMeanRstdOutputShape L77-121; empty: not checked). */
static aclnnStatus stat_shape(struct nn_call *c, const aclTensor *in, uint64_t k,
                              const aclTensor *t, const char *name)
{
    if (!t || api_dims_elements(t->dims, (int)t->ndims) == 0)
        return OK;
    if (t->ndims != in->ndims)
        return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Expected %s dimNum [%llu] to be equal to "
                       "input dimNum [%llu], but check failed.", name,
                       (unsigned long long)t->ndims, (unsigned long long)in->ndims);
    for (uint64_t i = 0; i < in->ndims; i++) {
        bool normalised = i >= in->ndims - k;
        if (!normalised && t->dims[i] != in->dims[i])
            return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Expected %s dim [%llu] shape [%lld] to "
                           "be equal to input dim [%llu] shape [%lld], but check failed.", name,
                           (unsigned long long)i, (long long)t->dims[i], (unsigned long long)i,
                           (long long)in->dims[i]);
        if (normalised && t->dims[i] != 1)
            return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Expected %s trailing dim [%llu] to be 1 "
                           "(normalizedShape axis), but got [%lld]. The trailing %llu dimensions "
                           "should all be 1.", name, (unsigned long long)i, (long long)t->dims[i],
                           (unsigned long long)k);
    }
    return OK;
}

/* The weight or bias of a layer norm: k dims, normalizedShape's sizes
 * (aclnn_layer_norm.cpp CheckShape L208-252). */
static aclnnStatus affine_shape(struct nn_call *c, const aclTensor *t, const char *name,
                                const int64_t *norm, uint64_t k)
{
    if (!t)
        return OK;
    if (t->ndims != k) {
        char st[200];
        api_dims_text(t->dims, (int)t->ndims, st, sizeof st);
        return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Expected %llu dimension input, but got %s "
                       "with sizes %s.", (unsigned long long)k, name, st);
    }
    for (uint64_t i = 0; i < k; i++)
        if (t->dims[i] != norm[i])
            return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Expected normalized index [%llu] shape "
                           "[%lld] be equal to %s index [%llu] shape [%lld], but failed.",
                           (unsigned long long)i, (long long)norm[i], name,
                           (unsigned long long)i, (long long)t->dims[i]);
    return OK;
}

/* out = (input - mean) * rstd (* weight + bias) over the trailing dims
 * normalizedShape names: hicann/ops-nn norm/layer_norm_v4/op_host/op_api/
 * aclnn_layer_norm.cpp (the types L125-169: weight and bias FLOAT or the
 * input's; the shapes L171-258). */
aclnnStatus api_impl_aclnnLayerNormGetWorkspaceSize(const aclTensor *input,
                                                    const aclIntArray *normalizedShape,
                                                    const aclTensor *weightOptional,
                                                    const aclTensor *biasOptional, double eps,
                                                    aclTensor *out, aclTensor *meanOutOptional,
                                                    aclTensor *rstdOutOptional,
                                                    uint64_t *workspaceSize,
                                                    aclOpExecutor **executor)
{
    API_FORWARD(aclnnLayerNormGetWorkspaceSize, (input, normalizedShape, weightOptional,
                                                 biasOptional, eps, out, meanOutOptional,
                                                 rstdOutOptional, workspaceSize, executor));
    NN_CHECK_NULL("aclnnLayerNorm", input);
    NN_CHECK_NULL("aclnnLayerNorm", normalizedShape);
    NN_CHECK_NULL("aclnnLayerNorm", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnLayerNorm", "LayerNormV4", BE_OP_LAYER_NORM,
                              workspaceSize, executor);
    const aclTensor *w = weightOptional, *b = biasOptional, *mo = meanOutOptional,
                    *ro = rstdOutOptional;
    if (rc == OK)
        rc = nn_check_type(&c, input, "input", T_NORM);
    if (rc == OK && w && (rc = nn_check_type(&c, w, "weightOptional", T_NORM)) == OK &&
        w->dtype != ACL_FLOAT)
        rc = nn_same_type(&c, w, "weightOptional", input, "input");
    if (rc == OK && b && (rc = nn_check_type(&c, b, "biasOptional", T_NORM)) == OK &&
        b->dtype != ACL_FLOAT)
        rc = nn_same_type(&c, b, "biasOptional", input, "input");
    if (rc == OK && w && b)
        rc = nn_same_type(&c, w, "weightOptional", b, "biasOptional");
    if (rc == OK)
        rc = nn_check_type(&c, out, "out", T_NORM);
    if (rc == OK && mo)
        rc = nn_check_type(&c, mo, "meanOutOptional", T_NORM);
    if (rc == OK && ro)
        rc = nn_check_type(&c, ro, "rstdOutOptional", T_NORM);
    if (rc == OK)
        rc = nn_check_dims(&c, input, "input");
    if (rc != OK)
        return rc;
    uint64_t k = 0;
    api_impl_aclGetIntArraySize(normalizedShape, &k);
    if (k > BE_OP_MAX_DIMS)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected aclnnLayerNorm normalizedShape dim "
                       "[%llu] to not be greater than [%d] but check failed.",
                       (unsigned long long)k, BE_OP_MAX_DIMS);
    if (k < 1)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected aclnnLayerNorm normalizedShape len "
                       "[%llu] to be greater than [1] but check failed.", (unsigned long long)k);
    if (input->ndims < k)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The input tensor must have at least %llu "
                       "dimensions.", (unsigned long long)k);
    int64_t norm[BE_OP_MAX_DIMS];
    api_nn_int_array(normalizedShape, norm);
    if ((rc = affine_shape(&c, w, "weightOptional", norm, k)) != OK ||
        (rc = affine_shape(&c, b, "biasOptional", norm, k)) != OK)
        return rc;
    uint64_t begin = input->ndims - k;
    for (uint64_t i = 0; i < k; i++)
        if (norm[i] != input->dims[begin + i])
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected normalized index [%llu] shape "
                           "[%lld] be equal to input index [%llu] shape [%lld], but failed.",
                           (unsigned long long)i, (long long)norm[i],
                           (unsigned long long)(begin + i), (long long)input->dims[begin + i]);
    if ((rc = nn_check_same_shape(&c, input, "input", out, "out")) != OK ||
        (rc = stat_shape(&c, input, k, mo, "meanOutOptional")) != OK ||
        (rc = stat_shape(&c, input, k, ro, "rstdOutOptional")) != OK)
        return rc;
    if (api_dims_elements(input->dims, (int)input->ndims) == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    struct be_op *op = c.op;
    if ((rc = nn_out(&c, out, "out")) != OK ||
        (mo && (rc = nn_out(&c, mo, "meanOutOptional")) != OK) ||
        (ro && (rc = nn_out(&c, ro, "rstdOutOptional")) != OK) ||
        (rc = nn_in(&c, input, "input")) != OK || (w && (rc = nn_in(&c, w, "weight")) != OK) ||
        (b && (rc = nn_in(&c, b, "bias")) != OK))
        return rc;
    op->iparam[0] = (int64_t)k;
    op->iparam[1] = (w ? 1 : 0) | (b ? 2 : 0);
    op->iparam[2] = (mo ? 1 : 0) | (ro ? 2 : 0);
    op->fparam[0] = eps;
    op->calc = ACL_FLOAT;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnLayerNorm)

/* out = self ([N, C, ...]) normalised over `group` groups of channels (*
 * gamma + beta per channel), meanOut and rstdOut [N, group]: hicann/ops-nn
 * norm/group_norm/op_host/op_api/aclnn_group_norm.cpp (CheckParams
 * L196-212: the types L70-86, group, C and eps L98-115, the shapes
 * L117-170). */
aclnnStatus api_impl_aclnnGroupNormGetWorkspaceSize(const aclTensor *self, const aclTensor *gamma,
                                                    const aclTensor *beta, int64_t N, int64_t C,
                                                    int64_t HxW, int64_t group, double eps,
                                                    aclTensor *out, aclTensor *meanOut,
                                                    aclTensor *rstdOut, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor)
{
    API_FORWARD(aclnnGroupNormGetWorkspaceSize, (self, gamma, beta, N, C, HxW, group, eps, out,
                                                 meanOut, rstdOut, workspaceSize, executor));
    NN_CHECK_NULL("aclnnGroupNorm", self);
    NN_CHECK_NULL("aclnnGroupNorm", out);
    NN_CHECK_NULL("aclnnGroupNorm", meanOut);
    NN_CHECK_NULL("aclnnGroupNorm", rstdOut);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnGroupNorm", "GroupNorm", BE_OP_GROUP_NORM,
                              workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_NORM);
    if (rc == OK && gamma)
        rc = nn_match_type(&c, gamma, "gamma", self->dtype);
    if (rc == OK && beta)
        rc = nn_match_type(&c, beta, "beta", self->dtype);
    if (rc == OK)
        rc = nn_match_type(&c, out, "out", self->dtype);
    if (rc == OK)
        rc = nn_match_type(&c, meanOut, "meanOut", self->dtype);
    if (rc == OK)
        rc = nn_match_type(&c, rstdOut, "rstdOut", self->dtype);
    if (rc != OK)
        return rc;
    char ss[200];
    api_dims_text(self->dims, (int)self->ndims, ss, sizeof ss);
    if (group <= 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected group to be greater than 0, got "
                       "%lld.", (long long)group);
    if (C % group)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected number of channels in input to be "
                       "divisible by group, but got input of shape %s and group=%lld.", ss,
                       (long long)group);
    if (!(eps > 0.0))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected eps to be greater than 0, got %lf.",
                       eps);
    if (self->ndims < 2)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The self tensor must have at least 2 "
                       "dimensions.");
    int64_t mv[2] = {N, group};
    if ((rc = nn_check_dims(&c, self, "self")) != OK ||
        (rc = nn_check_same_shape(&c, out, "out", self, "self")) != OK ||
        (rc = nn_check_shape(&c, meanOut, "meanOut", mv, 2)) != OK ||
        (rc = nn_check_shape(&c, rstdOut, "rstdOut", mv, 2)) != OK)
        return rc;
    if (self->dims[0] != N)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected self.shape[0] == N to be true, but "
                       "got false.");
    if (self->dims[1] != C)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected self.shape[1] == C to be true, but "
                       "got false.");
    if (api_dims_elements(self->dims + 2, (int)self->ndims - 2) != HxW)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected the size of self outside the N and "
                       "C dimensions == HxW to be true, but got false.");
    const aclTensor *aff[2] = {gamma, beta};
    for (int i = 0; i < 2; i++)
        if (aff[i] && (aff[i]->ndims != 1 || aff[i]->dims[0] != C)) {
            char sa[200];
            api_dims_text(aff[i]->dims, (int)aff[i]->ndims, sa, sizeof sa);
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected %s to be a vector of size "
                           "equal to the number of channels in input, but got %s of shape %s and "
                           "input of shape %s.", i ? "beta" : "gamma", i ? "beta" : "gamma", sa,
                           ss);
        }
    if (api_dims_elements(self->dims, (int)self->ndims) == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    if ((rc = nn_out(&c, out, "out")) != OK || (rc = nn_out(&c, meanOut, "meanOut")) != OK ||
        (rc = nn_out(&c, rstdOut, "rstdOut")) != OK || (rc = nn_in(&c, self, "self")) != OK ||
        (gamma && (rc = nn_in(&c, gamma, "gamma")) != OK) ||
        (beta && (rc = nn_in(&c, beta, "beta")) != OK))
        return rc;
    c.op->iparam[0] = group;
    c.op->iparam[1] = (gamma ? 1 : 0) | (beta ? 2 : 0);
    c.op->fparam[0] = eps;
    c.op->calc = ACL_FLOAT;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnGroupNorm)

/* loss[n] = -sum(labels * log_softmax(features)) per row, backprop =
 * softmax(features) - labels: hicann/ops-nn activation/
 * softmax_cross_entropy_with_logits/op_api/
 * aclnn_softmax_cross_entropy_with_logits.cpp (the types L58-76: all four
 * in the list, loss and backprop of features' type; features 2-D, its
 * texts L81-95). */
aclnnStatus api_impl_aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize(
    const aclTensor *features, aclTensor *labels, aclTensor *loss, aclTensor *backprop,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize, (features, labels, loss,
                                                                     backprop, workspaceSize,
                                                                     executor));
    const char *name = "aclnnSoftmaxCrossEntropyWithLogits";
    NN_CHECK_NULL(name, features);
    NN_CHECK_NULL(name, labels);
    NN_CHECK_NULL(name, loss);
    NN_CHECK_NULL(name, backprop);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, name, "SoftmaxCrossEntropyWithLogits", BE_OP_SOFTMAX_XENT,
                              workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_type(&c, features, "features", T_NORM);
    if (rc == OK)
        rc = nn_check_type(&c, labels, "labels", T_NORM);
    if (rc == OK)
        rc = nn_check_type(&c, loss, "loss", T_NORM);
    if (rc == OK)
        rc = nn_check_type(&c, backprop, "backprop", T_NORM);
    if (rc == OK)
        rc = nn_match_type(&c, loss, "loss", features->dtype);
    if (rc == OK)
        rc = nn_match_type(&c, backprop, "backprop", features->dtype);
    if (rc != OK)
        return rc;
    if (features->ndims != 2)
        return nn_fail(&c, ACLNN_ERR_PARAM_NULLPTR, "dimNum is %llu, must be 2, but check "
                       "failed.", (unsigned long long)features->ndims);
    int64_t rows = features->dims[0];
    if ((rc = nn_check_same_shape(&c, labels, "labels", features, "features")) != OK ||
        (rc = nn_check_same_shape(&c, backprop, "backprop", features, "features")) != OK ||
        (rc = nn_check_shape(&c, loss, "loss", &rows, 1)) != OK)
        return rc;
    if (api_dims_elements(features->dims, 2) == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    if ((rc = nn_out(&c, loss, "loss")) != OK || (rc = nn_out(&c, backprop, "backprop")) != OK ||
        (rc = nn_in(&c, features, "features")) != OK || (rc = nn_in(&c, labels, "labels")) != OK)
        return rc;
    c.op->calc = ACL_FLOAT;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnSoftmaxCrossEntropyWithLogits)
