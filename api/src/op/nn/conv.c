/*
 * conv.c - the aclnn convolution and pooling operators (the NN_CONV calls
 * of api/abi/calls.def): Convolution (1-D and 2-D, grouped, transposed),
 * AvgPool2d and MaxPool, over the simulator's conv family (sim/ops/conv.c:
 * convolutions as im2col / col2im around OpenBLAS's sgemm, pooling as
 * windows over the engine's gathered values); and the two other
 * operators on images, Im2col (the movement family's IM2COL: sliding
 * windows as columns) and UpsampleNearest2d (nearest pixels repeated).
 *
 * Sources: hicann/ops-nn conv/convolution_forward/op_host/op_api/
 * aclnn_convolution.cpp (the NULL checks, float16, bfloat16 and float32,
 * x, filter and y of one rank, strides, pads and dilations of one entry a
 * spatial dim, groups dividing the channels, y's shape inferred as
 * (in + 2 * pad - dilation * (k - 1) - 1) / stride + 1, transposed
 * (in - 1) * stride - 2 * pad + dilation * (k - 1) + outputPadding + 1);
 * pooling/avg_pool3_d/op_api/aclnn_avgpool2d.cpp and
 * pooling/max_pool_v3/op_api/aclnn_max_pool.cpp (3-D or 4-D self of
 * float32, float16 or bfloat16, two-entry kernel and strides; MaxPool's
 * pads {top, left, bottom, right} and its output shape, docs/aclnnMaxPool.md
 * L30-45 and the pads row). The checks' texts are aclsim's
 * own sentences (CANN's come from message macros of its error catalogue);
 * the codes are CANN's (161001, 161002). 3-D convolutions are refused as
 * not simulated. Workspace: 0 (the kernel's columns are host scratch).
 */
#include <math.h>
#include "checks.h"

#define T_CONV (T(FLOAT) | T(FLOAT16) | T(BF16))

/* The int array's n entries into v (at most 4), or -1 when its size is not
 * one of want1 / want2. */
static int ints(const aclIntArray *a, int64_t *v, uint64_t want1, uint64_t want2)
{
    uint64_t n = 0;
    api_impl_aclGetIntArraySize(a, &n);
    if ((n != want1 && n != want2) || n > 4)
        return -1;
    api_nn_int_array(a, v);
    return (int)n;
}

/* A spatial parameter of `sp` entries (1 or 2) as (h, w): a 1-D one is
 * (dflt, v[0]). */
static bool spatial(struct nn_call *c, const aclIntArray *a, const char *name, int sp,
                    int64_t dflt, int64_t *hw, aclnnStatus *rc)
{
    int64_t v[4];
    int n = ints(a, v, (uint64_t)sp, (uint64_t)sp);
    if (n < 0) {
        uint64_t got = 0;
        api_impl_aclGetIntArraySize(a, &got);
        *rc = nn_fail(c, ACLNN_ERR_PARAM_INVALID, "%s must have %d entries (one a spatial "
                      "dim), got %llu.", name, sp, (unsigned long long)got);
        return false;
    }
    hw[0] = sp == 2 ? v[0] : dflt;
    hw[1] = sp == 2 ? v[1] : v[0];
    return true;
}

aclnnStatus api_impl_aclnnConvolutionGetWorkspaceSize(
    const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
    const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
    bool transposed, const aclIntArray *outputPadding, const int64_t groups, aclTensor *output,
    int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnConvolutionGetWorkspaceSize,
                (input, weight, bias, stride, padding, dilation, transposed, outputPadding,
                 groups, output, cubeMathType, workspaceSize, executor));
    (void)cubeMathType; /* fp32 accumulation whatever it says */
    const char *fn = "aclnnConvolution";
    NN_CHECK_NULL(fn, input);
    NN_CHECK_NULL(fn, weight);
    NN_CHECK_NULL(fn, stride);
    NN_CHECK_NULL(fn, padding);
    NN_CHECK_NULL(fn, dilation);
    NN_CHECK_NULL(fn, output);
    if (transposed)
        NN_CHECK_NULL(fn, outputPadding);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, fn, transposed ? "Conv2DTranspose" : "Conv2D", BE_OP_CONV,
                              workspaceSize, executor);
    if (rc != OK || (rc = nn_check_type(&c, input, "input", T_CONV)) != OK ||
        (rc = nn_check_type(&c, weight, "weight", T_CONV)) != OK ||
        (rc = nn_check_type(&c, output, "output", T_CONV)) != OK ||
        (bias && (rc = nn_check_type(&c, bias, "bias", T_CONV)) != OK))
        return rc;
    int nd = (int)input->ndims;
    if (nd == 5)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim computes 1-D and 2-D convolutions, "
                       "not 3-D ones");
    if (nd != 3 && nd != 4)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "input must have 3 (N, C, L) or 4 (N, C, H, "
                       "W) dims, got %d.", nd);
    if ((int)weight->ndims != nd || (int)output->ndims != nd)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "input, weight and output must have one "
                       "rank, got %d, %d and %d.", nd, (int)weight->ndims, (int)output->ndims);
    int sp = nd - 2;
    int64_t st[2], pad[2], dil[2], opad[2] = {0, 0};
    if (!spatial(&c, stride, "stride", sp, 1, st, &rc) ||
        !spatial(&c, padding, "padding", sp, 0, pad, &rc) ||
        !spatial(&c, dilation, "dilation", sp, 1, dil, &rc) ||
        (transposed && !spatial(&c, outputPadding, "outputPadding", sp, 0, opad, &rc)))
        return rc;
    for (int i = 0; i < 2; i++)
        if (st[i] < 1 || dil[i] < 1 || pad[i] < 0 || opad[i] < 0)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "stride and dilation must be positive, "
                           "padding and outputPadding not negative.");
    int64_t cin = input->dims[1], cout = transposed ? weight->dims[1] * groups : weight->dims[0];
    int64_t wcin = transposed ? weight->dims[0] : weight->dims[1] * groups;
    if (groups < 1 || cin % groups || cout % groups || wcin != cin)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "groups %lld must divide the channels and "
                       "weight must take input's %lld channels (weight's dims [%lld, %lld, ...]).",
                       (long long)groups, (long long)cin, (long long)weight->dims[0],
                       (long long)weight->dims[1]);
    int64_t dims[4] = {input->dims[0], cout, 1, 1};
    for (int i = 0; i < sp; i++) {
        int d = 2 + i, g = sp == 2 ? i : 1;
        int64_t in = input->dims[d], k = weight->dims[d];
        dims[d] = transposed ? (in - 1) * st[g] - 2 * pad[g] + dil[g] * (k - 1) + opad[g] + 1
                             : (in + 2 * pad[g] - dil[g] * (k - 1) - 1) / st[g] + 1;
        if (dims[d] < 1)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "the output's spatial dim %d would be "
                           "%lld.", d, (long long)dims[d]);
    }
    if ((rc = nn_check_shape(&c, output, "output", dims, nd)) != OK)
        return rc;
    if (bias && (bias->ndims != 1 || bias->dims[0] != cout))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "bias must be 1-D of the %lld output "
                       "channels.", (long long)cout);
    if ((rc = nn_out(&c, output, "output")) != OK || (rc = nn_in(&c, input, "input")) != OK ||
        (rc = nn_in(&c, weight, "weight")) != OK || (bias && (rc = nn_in(&c, bias, "bias")) != OK))
        return rc;
    int64_t *p = c.op->iparam;
    p[0] = transposed, p[1] = groups;
    for (int i = 0; i < 2; i++)
        p[2 + i] = st[i], p[4 + i] = pad[i], p[6 + i] = dil[i], p[8 + i] = opad[i];
    c.op->calc = input->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnConvolution)

/* ---- Pooling ---- */

/* Windows over the last two dims of a 3-D or 4-D self: out's h and w. */
static aclnnStatus pool(struct nn_call *c, const aclTensor *self, const aclTensor *out,
                        const int64_t *k, const int64_t *st, const int64_t *pb, const int64_t *pe,
                        const int64_t *dil, bool ceil_mode)
{
    aclnnStatus rc;
    if ((rc = nn_check_type(c, self, "self", T_CONV)) != OK ||
        (rc = nn_check_type(c, out, "out", T_CONV)) != OK)
        return rc;
    if (self->ndims != 3 && self->ndims != 4)
        return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "self must be 3-D (C, H, W) or 4-D (N, C, H, "
                       "W), got %llu dims.", (unsigned long long)self->ndims);
    int nd = (int)self->ndims;
    int64_t dims[4];
    for (int i = 0; i < nd; i++)
        dims[i] = self->dims[i];
    for (int i = 0; i < 2; i++) {
        if (k[i] < 1 || st[i] < 1 || dil[i] < 1 || pb[i] < 0 || pe[i] < 0 ||
            2 * pb[i] > k[i])
            return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "kernel, strides and dilations must be "
                           "positive, pads not negative and at most half the kernel.");
        int64_t span = self->dims[nd - 2 + i] + pb[i] + pe[i] - dil[i] * (k[i] - 1) - 1;
        int64_t o = (ceil_mode ? span + st[i] - 1 : span) / st[i] + 1;
        if (ceil_mode && (o - 1) * st[i] >= self->dims[nd - 2 + i] + pb[i])
            o--; /* the last window starts inside the input (or the left padding) */
        if (span < 0 || o < 1)
            return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "the output's dim %d would be empty.",
                           nd - 2 + i);
        dims[nd - 2 + i] = o;
    }
    if ((rc = nn_check_shape(c, out, "out", dims, nd)) != OK ||
        (rc = nn_out(c, out, "out")) != OK || (rc = nn_in(c, self, "self")) != OK)
        return rc;
    int64_t *p = c->op->iparam;
    for (int i = 0; i < 2; i++)
        p[2 + i] = st[i], p[4 + i] = pb[i], p[6 + i] = dil[i], p[8 + i] = k[i];
    c->op->calc = self->dtype;
    return OK;
}

aclnnStatus api_impl_aclnnAvgPool2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *strides,
    const aclIntArray *paddings, const bool ceilMode, const bool countIncludePad,
    const int64_t divisorOverride, const int8_t cubeMathType, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnAvgPool2dGetWorkspaceSize,
                (self, kernelSize, strides, paddings, ceilMode, countIncludePad, divisorOverride,
                 cubeMathType, out, workspaceSize, executor));
    (void)cubeMathType;
    const char *fn = "aclnnAvgPool2d";
    NN_CHECK_NULL(fn, self);
    NN_CHECK_NULL(fn, kernelSize);
    NN_CHECK_NULL(fn, strides);
    NN_CHECK_NULL(fn, paddings);
    NN_CHECK_NULL(fn, out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, fn, "AvgPoolV2", BE_OP_POOL, workspaceSize, executor);
    if (rc != OK)
        return rc;
    int64_t k[4], st[4], pd[4], one[2] = {1, 1};
    int nk = ints(kernelSize, k, 1, 2), ns = ints(strides, st, 1, 2), np = ints(paddings, pd, 1, 2);
    if (nk < 0 || ns < 0 || np < 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "kernelSize, strides and paddings must have "
                       "1 or 2 entries.");
    if (nk == 1)
        k[1] = k[0];
    if (ns == 1)
        st[1] = st[0];
    if (np == 1)
        pd[1] = pd[0];
    if (divisorOverride < 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "divisorOverride must not be negative, got "
                       "%lld.", (long long)divisorOverride);
    if ((rc = pool(&c, self, out, k, st, pd, pd, one, ceilMode)) != OK)
        return rc;
    c.op->iparam[0] = 0;
    c.op->iparam[1] = countIncludePad;
    c.op->iparam[10] = divisorOverride;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnAvgPool2d)

aclnnStatus api_impl_aclnnMaxPoolGetWorkspaceSize(const aclTensor *self,
                                                  const aclIntArray *kernelShape,
                                                  const aclIntArray *strides,
                                                  const int64_t autoPad, const aclIntArray *pads,
                                                  const aclIntArray *dilations,
                                                  const int64_t ceilMode, aclTensor *out,
                                                  uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    API_FORWARD(aclnnMaxPoolGetWorkspaceSize, (self, kernelShape, strides, autoPad, pads,
                                               dilations, ceilMode, out, workspaceSize,
                                               executor));
    const char *fn = "aclnnMaxPool";
    NN_CHECK_NULL(fn, self);
    NN_CHECK_NULL(fn, kernelShape);
    NN_CHECK_NULL(fn, strides);
    NN_CHECK_NULL(fn, pads);
    NN_CHECK_NULL(fn, dilations);
    NN_CHECK_NULL(fn, out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, fn, "MaxPoolV3", BE_OP_POOL, workspaceSize, executor);
    if (rc != OK)
        return rc;
    int64_t k[4], st[4], pd[4], dl[4];
    int np = ints(pads, pd, 2, 4), nl = ints(dilations, dl, 1, 2);
    if (ints(kernelShape, k, 2, 2) < 0 || ints(strides, st, 2, 2) < 0 || np < 0 || nl < 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "kernelShape and strides must have 2 "
                       "entries, pads 2 or 4, dilations 1 or 2.");
    if (np == 2) /* docs/aclnnMaxPool.md: {top (bottom), left (right)} */
        pd[2] = pd[0], pd[3] = pd[1];
    if (nl == 1)
        dl[1] = dl[0];
    if (autoPad != 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim computes autoPad 0 (explicit pads) "
                       "only, got %lld.", (long long)autoPad);
    int64_t pb[2] = {pd[0], pd[1]}, pe[2] = {pd[2], pd[3]};
    if ((rc = pool(&c, self, out, k, st, pb, pe, dl, ceilMode != 0)) != OK)
        return rc;
    c.op->iparam[0] = 1;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnMaxPool)

/* aclnn_im2col.cpp DTYPE_SUPPORT_LIST L37-38 */
#define T_IM2COL (T(FLOAT) | T(FLOAT16) | T(BF16))

/* out [N, C*KH*KW, OH*OW] = self [N, C, H, W]'s sliding windows (torch's
 * unfold; a 3-D self is one image): hicann/ops-math conversion/im2col/
 * op_api/aclnn_im2col.cpp (CheckParams L216-238: self's list, 3 or 4 dims
 * of positive sizes L79-101, the four arrays L139-201, out's shape
 * L103-138 with div_rtn's floor). */
aclnnStatus api_impl_aclnnIm2colGetWorkspaceSize(const aclTensor *self,
                                                 const aclIntArray *kernelSize,
                                                 const aclIntArray *dilation,
                                                 const aclIntArray *padding,
                                                 const aclIntArray *stride, const aclTensor *out,
                                                 uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    API_FORWARD(aclnnIm2colGetWorkspaceSize, (self, kernelSize, dilation, padding, stride, out,
                                              workspaceSize, executor));
    NN_CHECK_NULL("aclnnIm2col", self);
    NN_CHECK_NULL("aclnnIm2col", kernelSize);
    NN_CHECK_NULL("aclnnIm2col", dilation);
    NN_CHECK_NULL("aclnnIm2col", padding);
    NN_CHECK_NULL("aclnnIm2col", stride);
    NN_CHECK_NULL("aclnnIm2col", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnIm2col", "Im2col", BE_OP_IM2COL, workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_IM2COL);
    if (rc != OK)
        return rc;
    int n = (int)self->ndims;
    if (n != 3 && n != 4)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected self dim [%d] to be 3 or 4 but check "
                       "failed.", n);
    for (int i = n == 4 ? 1 : 0; i < n; i++)
        if (self->dims[i] <= 0)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "self'dims is invalid, self No.[%d] dim is "
                           "[%lld].", i + 1, (long long)self->dims[i]);
    const aclIntArray *arr[4] = {kernelSize, dilation, padding, stride};
    const char *names[4] = {"kernelSize", "dilation", "padding", "stride"};
    int64_t v[4][2];
    for (int k = 0; k < 4; k++) {
        uint64_t len = 0;
        api_impl_aclGetIntArraySize(arr[k], &len);
        if (len != 2)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "It is expected %s equals to 2, but got "
                           "size %llu.", names[k], (unsigned long long)len);
    }
    for (int k = 0; k < 4; k++)
        api_nn_int_array(arr[k], v[k]);
    static const int order[4] = {0, 3, 1, 2}; /* kernelSize, stride, dilation, padding */
    for (int o = 0; o < 4; o++) {
        int k = order[o];
        for (int i = 0; i < 2; i++)
            if (k == 2 ? v[k][i] < 0 : v[k][i] <= 0)
                return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "It is expected %s be greater than "
                               "%szero, but %s No.[%d] dim is [%lld].", names[k],
                               k == 2 ? "or equal to " : "", names[k], i + 1, (long long)v[k][i]);
    }
    int64_t h = self->dims[n - 2], w = self->dims[n - 1], o[2];
    for (int i = 0; i < 2; i++) {
        int64_t span = (i ? w : h) + 2 * v[2][i] - (v[1][i] * (v[0][i] - 1) + 1);
        o[i] = (span >= 0 ? span / v[3][i] : -((-span + v[3][i] - 1) / v[3][i])) + 1;
    }
    if (o[0] < 1 || o[1] < 1)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The shape (%lld, %lld) of the array "
                       "calculated by other parameters must be at least one.", (long long)o[0],
                       (long long)o[1]);
    int64_t want[3];
    int nw = 0;
    if (n == 4)
        want[nw++] = self->dims[0];
    want[nw++] = self->dims[n - 3] * v[0][0] * v[0][1];
    want[nw++] = o[0] * o[1];
    if (!nn_same_dims(out, want, nw)) {
        char sw[200], so[200];
        api_dims_text(want, nw, sw, sizeof sw);
        api_dims_text(out->dims, (int)out->ndims, so, sizeof so);
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expect out shape [%s], but got: [%s].", sw,
                       so);
    }
    if ((rc = nn_moved(&c, out, "out")) != OK || (rc = nn_out(&c, out, "out")) != OK ||
        (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    if (n == 3) { /* one image: N = 1 */
        nn_view_unsqueeze(&c.op->in[0], 0);
        nn_view_unsqueeze(&c.op->out[0], 0);
    }
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 2; i++)
            c.op->axes[2 * k + i] = v[k][i];
    c.op->n_axes = 8;
    c.op->calc = out->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnIm2col)

/* aclnn_upsample_nearest_2d.cpp (hicann/ops-cv image/
 * resize_nearest_neighbor_v2/op_api/) 910B list L43-45 */
#define T_UPSAMPLE (T(FLOAT16) | T(FLOAT) | T(DOUBLE) | T(UINT8) | T(BF16))

/* out [N, C, OH, OW] = self at row min(floor(oh * H / OH), H - 1) and the
 * column likewise (ResizeNearestNeighborV2 without align_corners or half
 * pixels): aclnn_upsample_nearest_2d.cpp (CheckParams L188-215: self's
 * list and out of its type L70-79, outputSize of 2 and a 4-D self of
 * nonzero sizes L82-114, NCHW or NHWC and the same for out L116-134, N and
 * C kept, out's H and W from outputSize L136-160). aclsim computes NCHW. */
aclnnStatus api_impl_aclnnUpsampleNearest2dGetWorkspaceSize(const aclTensor *self,
                                                            const aclIntArray *outputSize,
                                                            aclTensor *out,
                                                            uint64_t *workspaceSize,
                                                            aclOpExecutor **executor)
{
    API_FORWARD(aclnnUpsampleNearest2dGetWorkspaceSize, (self, outputSize, out, workspaceSize,
                                                         executor));
    const char *name = "aclnnUpsampleNearest2d";
    NN_CHECK_NULL(name, self);
    NN_CHECK_NULL(name, outputSize);
    NN_CHECK_NULL(name, out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, name, "ResizeNearestNeighborV2", BE_OP_UPSAMPLE_NEAREST,
                              workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_UPSAMPLE);
    if (rc == OK)
        rc = nn_match_type(&c, self, "self", out->dtype);
    if (rc != OK)
        return rc;
    uint64_t len = 0;
    api_impl_aclGetIntArraySize(outputSize, &len);
    if (len != 2)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "It is expected output size equals to 2, but "
                       "got size %llu.", (unsigned long long)len);
    if (self->ndims != 4)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "It is expected input size equals to 4, but "
                       "got size %llu.", (unsigned long long)self->ndims);
    int64_t sz[2];
    api_nn_int_array(outputSize, sz);
    if (self->dims[2] == 0 || self->dims[3] == 0 || sz[0] == 0 || sz[1] == 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Input and output sizes should be greater than "
                       "0, but got input (H: %lld, W: %lld) output (H: %lld, W: %lld).",
                       (long long)self->dims[2], (long long)self->dims[3], (long long)sz[0],
                       (long long)sz[1]);
    if (self->format != ACL_FORMAT_NCHW && self->format != ACL_FORMAT_NHWC)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Do not support this format [%d] of input.",
                       (int)self->format);
    if (self->format != out->format)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Format of input and output should be equal, "
                       "self [%d], out [%d].", (int)self->format, (int)out->format);
    if (self->format == ACL_FORMAT_NHWC)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim computes NCHW only (CANN's operator "
                       "takes NHWC).");
    int64_t want[4] = {self->dims[0], self->dims[1], sz[0], sz[1]};
    if (out->ndims != 4 || out->dims[0] != want[0] || out->dims[1] != want[1])
        return nn_check_shape(&c, out, "out", want, 4);
    if (out->dims[2] != sz[0] || out->dims[3] != sz[1])
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected output size (H: %lld, W: %lld), but "
                       "got output tensor size (H: %lld, W: %lld).", (long long)sz[0],
                       (long long)sz[1], (long long)out->dims[2], (long long)out->dims[3]);
    if ((rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    c.op->calc = out->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnUpsampleNearest2d)
