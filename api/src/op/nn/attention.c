/*
 * attention.c - the aclnn rotary embedding and fused attention operators
 * (the NN_ATTENTION calls of api/abi/calls.def): RotaryPositionEmbedding,
 * over the simulator's attention family (sim/ops/attention.c).
 *
 * RotaryPositionEmbedding: hicann/ops-transformer posembedding/
 * rotary_position_embedding/docs/aclnnRotaryPositionEmbedding.md (the
 * formulas of the half and interleave modes; x, cos, sin and out 4-D of
 * bfloat16, float16 or float32, cos, sin and out of x's type, out of x's
 * shape; the Atlas A2 and A3 series take mode 0 (half) and 1
 * (interleave)). Its op_api (aclnn_rotary_position_embedding.cpp) hands
 * the checks to the generated inner operator, so the texts here are
 * aclsim's own sentences with CANN's codes; cos and sin must broadcast to
 * x with x's last dim, which must be even. Workspace: 0.
 *
 * FusedInferAttentionScoreV2: attention/fused_infer_attention_score/docs/
 * aclnnFusedInferAttentionScoreV2.md (Attention = Softmax(scale * Q K^T +
 * pseShift, masked) V; inputLayout BSH, BSND, BNSD or BNSD_BSND (L719);
 * query of float16 or bfloat16, key and value lists of one tensor of its
 * type; pseShift (B or 1, N, Q_S, KV_S) of query's type (L677-678);
 * attenMask of bool, int8 or uint8, 1 masked, shaped (Q_S, KV_S),
 * (B or 1, Q_S, KV_S), (B or 1, 1, Q_S, KV_S) or, Q_S 1, (B, KV_S),
 * (B, 1, KV_S), larger S taken from the top left (L680-686); sparseMode 0:
 * preTokens and nextTokens bound the band only with a mask (L728);
 * softmaxLse (B, N, Q_S, 1) float32 (L797)). aclsim computes that form:
 * the actual sequence lengths, quantisation, antiquantisation, paged KV
 * (blockTable), padding sizes, shared prefixes and sparse modes other than
 * 0 are refused as not simulated. Texts are aclsim's own sentences with
 * CANN's codes (its op_api hands the checks to generated tiling code).
 * Workspace: 0.
 */
#include <string.h>
#include "nn.h"

#define T(x) API_T(ACL_##x)
#define T_ROPE (T(FLOAT) | T(FLOAT16) | T(BF16))

aclnnStatus api_impl_aclnnRotaryPositionEmbeddingGetWorkspaceSize(const aclTensor *x,
                                                                  const aclTensor *cos,
                                                                  const aclTensor *sin,
                                                                  int64_t mode, aclTensor *out,
                                                                  uint64_t *workspaceSize,
                                                                  aclOpExecutor **executor)
{
    API_FORWARD(aclnnRotaryPositionEmbeddingGetWorkspaceSize,
                (x, cos, sin, mode, out, workspaceSize, executor));
    const char *fn = "aclnnRotaryPositionEmbedding";
    NN_CHECK_NULL(fn, x);
    NN_CHECK_NULL(fn, cos);
    NN_CHECK_NULL(fn, sin);
    NN_CHECK_NULL(fn, out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, fn, "RotaryPositionEmbedding", BE_OP_ROPE, workspaceSize,
                              executor);
    if (rc != OK || (rc = nn_check_type(&c, x, "x", T_ROPE)) != OK)
        return rc;
    const aclTensor *t[3] = {cos, sin, out};
    const char *names[3] = {"cos", "sin", "out"};
    for (int i = 0; i < 3; i++)
        if (t[i]->dtype != x->dtype)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "%s must have x's type %s, got %s.",
                           names[i], api_dtype_name(x->dtype), api_dtype_name(t[i]->dtype));
    for (int i = 0; i < 3; i++)
        if (t[i]->ndims != 4 || x->ndims != 4)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "x, cos, sin and out must be 4-D, got "
                           "%llu, %llu, %llu and %llu dims.", (unsigned long long)x->ndims,
                           (unsigned long long)cos->ndims, (unsigned long long)sin->ndims,
                           (unsigned long long)out->ndims);
    if (mode != 0 && mode != 1)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "mode must be 0 (half) or 1 (interleave) on "
                       "the Atlas A2 and A3 series, got %lld.", (long long)mode);
    int64_t d = x->dims[3], bc[BE_OP_MAX_DIMS];
    int n;
    if (d % 2)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "x's last dim must be even, got %lld.",
                       (long long)d);
    for (int i = 0; i < 2; i++) {
        if ((rc = nn_check_broadcast(&c, x, "x", t[i], names[i], bc, &n)) != OK)
            return rc;
        if (t[i]->dims[3] != d || (rc = nn_check_shape(&c, x, "x", bc, n)) != OK)
            return rc == OK ? nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "%s's last dim must be x's "
                                      "%lld.", names[i], (long long)d)
                            : rc;
    }
    if ((rc = nn_check_same_shape(&c, out, "out", x, "x")) != OK ||
        (rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, x, "x")) != OK ||
        (rc = nn_in(&c, cos, "cos")) != OK || (rc = nn_in(&c, sin, "sin")) != OK)
        return rc;
    c.op->iparam[0] = mode;
    c.op->calc = ACL_FLOAT;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnRotaryPositionEmbedding)

/* ---- FusedInferAttentionScoreV2 ---- */

#define T_FIA (T(FLOAT16) | T(BF16))
#define T_MASK (T(BOOL) | T(INT8) | T(UINT8))

/* View v of a tensor in `layout` as (B, N, S, D): BSND swaps its middle
 * dims, BSH splits H into N heads. */
static bool as_bnsd(struct be_view *v, const char *layout, int64_t heads)
{
    if (!strcmp(layout, "BNSD"))
        return v->ndims == 4;
    if (!strcmp(layout, "BSND")) {
        if (v->ndims != 4)
            return false;
        int64_t d = v->dims[1], s = v->strides[1];
        v->dims[1] = v->dims[2], v->strides[1] = v->strides[2];
        v->dims[2] = d, v->strides[2] = s;
        return true;
    }
    if (v->ndims != 3 || heads < 1 || v->dims[2] % heads)
        return false;
    int64_t hd = v->dims[2] / heads, sh = v->strides[2];
    int64_t dims[4] = {v->dims[0], heads, v->dims[1], hd};
    int64_t st[4] = {v->strides[0], hd * sh, v->strides[1], sh};
    v->ndims = 4;
    for (int i = 0; i < 4; i++)
        v->dims[i] = dims[i], v->strides[i] = st[i];
    return true;
}

/* The mask's view as (B or 1, 1, Sq, Skv), false when its shape is not one
 * the operator takes. */
static bool mask_view(struct be_view *m, int64_t b, int64_t sq, int64_t skv)
{
    int64_t dims[4] = {1, 1, sq, skv}, st[4] = {0, 0, 0, 0};
    const int64_t *d = m->dims, *s = m->strides;
    int nd = m->ndims;
    if (sq == 1 && (nd == 2 || (nd == 3 && d[1] == 1))) { /* (B, KV_S), (B, 1, KV_S) */
        dims[0] = d[0], st[0] = s[0], st[3] = s[nd - 1];
        if (d[nd - 1] < skv)
            return false;
    } else if (nd >= 2 && nd <= 4) {
        if (d[nd - 2] < sq || d[nd - 1] < skv || (nd == 4 && d[1] != 1))
            return false;
        st[2] = s[nd - 2], st[3] = s[nd - 1];
        if (nd >= 3)
            dims[0] = d[0], st[0] = s[0];
    } else {
        return false;
    }
    if (dims[0] != 1 && dims[0] != b)
        return false;
    m->ndims = 4;
    for (int i = 0; i < 4; i++)
        m->dims[i] = dims[i], m->strides[i] = st[i];
    return true;
}

aclnnStatus api_impl_aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
    const aclTensor *query, const aclTensorList *key, const aclTensorList *value,
    const aclTensor *pseShiftOptional, const aclTensor *attenMaskOptional,
    const aclIntArray *actualSeqLengthsOptional, const aclIntArray *actualSeqLengthsKvOptional,
    const aclTensor *deqScale1Optional, const aclTensor *quantScale1Optional,
    const aclTensor *deqScale2Optional, const aclTensor *quantScale2Optional,
    const aclTensor *quantOffset2Optional, const aclTensor *antiquantScaleOptional,
    const aclTensor *antiquantOffsetOptional, const aclTensor *blockTableOptional,
    const aclTensor *queryPaddingSizeOptional, const aclTensor *kvPaddingSizeOptional,
    const aclTensor *keyAntiquantScaleOptional, const aclTensor *keyAntiquantOffsetOptional,
    const aclTensor *valueAntiquantScaleOptional, const aclTensor *valueAntiquantOffsetOptional,
    const aclTensor *keySharedPrefixOptional, const aclTensor *valueSharedPrefixOptional,
    const aclIntArray *actualSharedPrefixLenOptional, int64_t numHeads, double scaleValue,
    int64_t preTokens, int64_t nextTokens, char *inputLayout, int64_t numKeyValueHeads,
    int64_t sparseMode, int64_t innerPrecise, int64_t blockSize, int64_t antiquantMode,
    bool softmaxLseFlag, int64_t keyAntiquantMode, int64_t valueAntiquantMode,
    const aclTensor *attentionOut, const aclTensor *softmaxLse, uint64_t *workspaceSize,
    aclOpExecutor **executor)
{
    API_FORWARD(aclnnFusedInferAttentionScoreV2GetWorkspaceSize,
                (query, key, value, pseShiftOptional, attenMaskOptional, actualSeqLengthsOptional,
                 actualSeqLengthsKvOptional, deqScale1Optional, quantScale1Optional,
                 deqScale2Optional, quantScale2Optional, quantOffset2Optional,
                 antiquantScaleOptional, antiquantOffsetOptional, blockTableOptional,
                 queryPaddingSizeOptional, kvPaddingSizeOptional, keyAntiquantScaleOptional,
                 keyAntiquantOffsetOptional, valueAntiquantScaleOptional,
                 valueAntiquantOffsetOptional, keySharedPrefixOptional,
                 valueSharedPrefixOptional, actualSharedPrefixLenOptional, numHeads, scaleValue,
                 preTokens, nextTokens, inputLayout, numKeyValueHeads, sparseMode, innerPrecise,
                 blockSize, antiquantMode, softmaxLseFlag, keyAntiquantMode, valueAntiquantMode,
                 attentionOut, softmaxLse, workspaceSize, executor));
    (void)innerPrecise, (void)blockSize, (void)antiquantMode, (void)keyAntiquantMode,
        (void)valueAntiquantMode; /* fp32 softmax and accumulation whatever they say */
    const char *fn = "aclnnFusedInferAttentionScoreV2";
    NN_CHECK_NULL(fn, query);
    NN_CHECK_NULL(fn, key);
    NN_CHECK_NULL(fn, value);
    NN_CHECK_NULL(fn, attentionOut);
    if (!inputLayout)
        return nn_null(fn, "char", "inputLayout");
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, fn, "FusedInferAttentionScore", BE_OP_FIA, workspaceSize,
                              executor);
    if (rc != OK)
        return rc;
    const void *unsupported[] = {actualSeqLengthsOptional, actualSeqLengthsKvOptional,
        deqScale1Optional, quantScale1Optional, deqScale2Optional, quantScale2Optional,
        quantOffset2Optional, antiquantScaleOptional, antiquantOffsetOptional, blockTableOptional,
        queryPaddingSizeOptional, kvPaddingSizeOptional, keyAntiquantScaleOptional,
        keyAntiquantOffsetOptional, valueAntiquantScaleOptional, valueAntiquantOffsetOptional,
        keySharedPrefixOptional, valueSharedPrefixOptional, actualSharedPrefixLenOptional};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (unsupported[i])
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim computes attention without "
                           "actual sequence lengths, quantisation, antiquantisation, a block "
                           "table, padding sizes or shared prefixes (argument %zu of them is "
                           "given)", i + 1);
    if (sparseMode != 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim computes sparseMode 0 only, got "
                       "%lld.", (long long)sparseMode);
    uint64_t nk = 0, nv = 0;
    api_impl_aclGetTensorListSize(key, &nk);
    api_impl_aclGetTensorListSize(value, &nv);
    const aclTensor *k = api_nn_tensor_list_at(key, 0), *v = api_nn_tensor_list_at(value, 0);
    if (nk != 1 || nv != 1 || !k || !v)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "key and value must be lists of one tensor "
                       "(aclsim does not simulate tensor lists of several), got %llu and %llu.",
                       (unsigned long long)nk, (unsigned long long)nv);
    if ((rc = nn_check_type(&c, query, "query", T_FIA)) != OK)
        return rc;
    const aclTensor *same[4] = {k, v, attentionOut, pseShiftOptional};
    const char *names[4] = {"key", "value", "attentionOut", "pseShift"};
    for (int i = 0; i < 4; i++)
        if (same[i] && same[i]->dtype != query->dtype)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "%s must have query's type %s, got %s.",
                           names[i], api_dtype_name(query->dtype),
                           api_dtype_name(same[i]->dtype));
    if (attenMaskOptional && (rc = nn_check_type(&c, attenMaskOptional, "attenMask", T_MASK)) != OK)
        return rc;
    bool bsnd_out = !strcmp(inputLayout, "BNSD_BSND");
    const char *in_layout = bsnd_out ? "BNSD" : inputLayout;
    if (strcmp(in_layout, "BSH") && strcmp(in_layout, "BSND") && strcmp(in_layout, "BNSD"))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "inputLayout must be BSH, BSND, BNSD or "
                       "BNSD_BSND, got %s.", inputLayout);
    int64_t nkv = numKeyValueHeads ? numKeyValueHeads : numHeads;
    if (numHeads < 1 || nkv < 1 || numHeads % nkv)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "numHeads %lld must be a positive multiple "
                       "of numKeyValueHeads %lld.", (long long)numHeads, (long long)nkv);
    if ((rc = nn_out(&c, attentionOut, "attentionOut")) != OK ||
        (softmaxLseFlag && softmaxLse && (rc = nn_out(&c, softmaxLse, "softmaxLse")) != OK) ||
        (rc = nn_in(&c, query, "query")) != OK || (rc = nn_in(&c, k, "key")) != OK ||
        (rc = nn_in(&c, v, "value")) != OK)
        return rc;
    struct be_op *op = c.op;
    bool ok = as_bnsd(&op->in[0], in_layout, numHeads) && as_bnsd(&op->in[1], in_layout, nkv) &&
              as_bnsd(&op->in[2], in_layout, nkv) &&
              as_bnsd(&op->out[0], bsnd_out ? "BSND" : in_layout, numHeads);
    const struct be_view *q4 = &op->in[0], *k4 = &op->in[1], *v4 = &op->in[2], *o4 = &op->out[0];
    int64_t b = q4->dims[0], sq = q4->dims[2], skv = k4->dims[2];
    ok = ok && q4->dims[1] == numHeads && k4->dims[1] == nkv && v4->dims[1] == nkv &&
         k4->dims[0] == b && v4->dims[0] == b && v4->dims[2] == skv &&
         k4->dims[3] == q4->dims[3] && o4->dims[0] == b && o4->dims[1] == numHeads &&
         o4->dims[2] == sq && o4->dims[3] == v4->dims[3];
    if (!ok)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "query, key, value and attentionOut do not "
                       "agree as %s with %lld heads (%lld key/value heads).", inputLayout,
                       (long long)numHeads, (long long)nkv);
    if (softmaxLseFlag && softmaxLse) {
        const struct be_view *l = &op->out[1];
        if (l->ndims != 4 || l->dims[0] != b || l->dims[1] != numHeads || l->dims[2] != sq ||
            l->dims[3] != 1 || l->dtype != ACL_FLOAT)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "softmaxLse must be float32 [B, N, "
                           "Q_S, 1] = [%lld, %lld, %lld, 1].", (long long)b, (long long)numHeads,
                           (long long)sq);
    }
    op->iparam[0] = op->iparam[1] = -1;
    if (pseShiftOptional) {
        const aclTensor *p = pseShiftOptional;
        if (p->ndims != 4 || (p->dims[0] != 1 && p->dims[0] != b) || p->dims[1] != numHeads ||
            p->dims[2] != sq || p->dims[3] < skv)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "pseShift must be (B or 1, N, Q_S, KV_S) "
                           "= (%lld or 1, %lld, %lld, %lld).", (long long)b, (long long)numHeads,
                           (long long)sq, (long long)skv);
        op->iparam[0] = op->n_in;
        if ((rc = nn_in(&c, p, "pseShift")) != OK)
            return rc;
        op->in[op->n_in - 1].dims[3] = skv;
    }
    if (attenMaskOptional) {
        op->iparam[1] = op->n_in;
        if ((rc = nn_in(&c, attenMaskOptional, "attenMask")) != OK)
            return rc;
        if (!mask_view(&op->in[op->n_in - 1], b, sq, skv))
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "attenMask's shape is not one of (Q_S, "
                           "KV_S), (B or 1, Q_S, KV_S), (B or 1, 1, Q_S, KV_S) or, Q_S 1, (B, "
                           "KV_S), (B, 1, KV_S).");
    }
    op->iparam[2] = preTokens;
    op->iparam[3] = nextTokens;
    op->fparam[0] = scaleValue;
    op->calc = ACL_FLOAT;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnFusedInferAttentionScoreV2)
