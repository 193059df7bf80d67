/*
 * test_nn_attention.c - the aclnn rotary embedding (the NN_ATTENTION
 * family) against a host reference worked out here from the formulas of
 * hicann/ops-transformer posembedding/rotary_position_embedding/docs/
 * aclnnRotaryPositionEmbedding.md (half mode: rotate = cat(-x2, x1) of x's
 * two halves; interleave mode: each pair (a, b) becomes (-b, a);
 * y = x * cos + rotate * sin), in float32, float16 and bfloat16, with cos
 * and sin broadcast over the batch and heads dims and x a permuted view; the
 * refusals. FusedInferAttentionScoreV2 against softmax(scale * q k^T + pse,
 * masked) v worked out here (attention/fused_infer_attention_score/docs/
 * aclnnFusedInferAttentionScoreV2.md: the formula, the layouts L719, pse
 * (B or 1, N, Q_S, KV_S) L677, the mask's shapes and 1 = masked L680-686,
 * softmaxLse [B, N, Q_S, 1] L797), grouped key/value heads, BSND and BSH.
 */
#include "nnmat.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "aclnnop/aclnn_rotary_position_embedding.h"

static void check_rope(aclDataType dt, int64_t mode)
{
    enum { B = 2, L = 3, N = 2, D = 8 };
    /* x: a (B, L, N, D) view of (B, N, L, D) storage */
    int64_t dx[4] = {B, L, N, D}, sx[4] = {N * L * D, D, L * D, 1}, dc[4] = {1, L, 1, D};
    struct ht x = mks(dt, 4, dx, sx, 0, B * L * N * D, 1);
    struct ht c = mks(dt, 4, dc, NULL, 0, L * D, 2), s = mks(dt, 4, dc, NULL, 0, L * D, 3);
    struct ht o = mks(dt, 4, dx, NULL, 0, B * L * N * D, 4);
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnRotaryPositionEmbeddingGetWorkspaceSize(x.t, c.t, s.t, mode, o.t, &ws,
                                                                  &e), OK);
    assert_int_equal(ws, 0);
    assert_int_equal(aclnnRotaryPositionEmbedding(NULL, 0, e, S), OK);
    double got[B * L * N * D];
    fetch(&o, got);
    for (int64_t b = 0; b < B; b++)
        for (int64_t q = 0; q < L; q++)
            for (int64_t h = 0; h < N; h++)
                for (int64_t i = 0; i < D; i++) {
                    int64_t idx[4] = {b, q, h, i}, ri[4] = {b, q, h, 0};
                    ri[3] = mode ? (i % 2 ? i - 1 : i + 1) : (i < D / 2 ? i + D / 2 : i - D / 2);
                    double sign = mode ? (i % 2 ? 1 : -1) : (i < D / 2 ? -1 : 1);
                    double want = x.v[at_idx(&x, 4, idx)] * c.v[at_idx(&c, 4, idx)] +
                                  sign * x.v[at_idx(&x, 4, ri)] * s.v[at_idx(&s, 4, idx)];
                    want = as(dt, want);
                    double g = got[((b * L + q) * N + h) * D + i];
                    if (fabs(g - want) > 1e-6 + (dt == ACL_FLOAT ? 0 : fabs(want) / 128))
                        fail_msg("mode %lld [%lld %lld %lld %lld]: got %.9g want %.9g",
                                 (long long)mode, (long long)b, (long long)q, (long long)h,
                                 (long long)i, g, want);
                }
    drop(&x), drop(&c), drop(&s), drop(&o);
}

static void test_rope_half_and_interleave(void **state)
{
    (void)state;
    const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    for (size_t t = 0; t < 3; t++) {
        check_rope(types[t], 0);
        check_rope(types[t], 1);
    }
}

static void test_rope_refusals(void **state)
{
    (void)state;
    int64_t d4[4] = {1, 2, 1, 4}, d3[3] = {2, 1, 4}, d5[4] = {1, 2, 1, 6};
    struct ht x = mks(ACL_FLOAT, 4, d4, NULL, 0, 8, 1), h = mks(ACL_FLOAT16, 4, d4, NULL, 0, 8, 2);
    struct ht x3 = mks(ACL_FLOAT, 3, d3, NULL, 0, 8, 3), w = mks(ACL_FLOAT, 4, d5, NULL, 0, 12, 4);
    uint64_t ws;
    aclOpExecutor *e = NULL;
    FAILS(aclnnRotaryPositionEmbeddingGetWorkspaceSize(x.t, h.t, x.t, 0, x.t, &ws, &e),
          ACLNN_ERR_PARAM_INVALID); /* cos of another type */
    FAILS(aclnnRotaryPositionEmbeddingGetWorkspaceSize(x3.t, x3.t, x3.t, 0, x3.t, &ws, &e),
          ACLNN_ERR_PARAM_INVALID); /* 3-D */
    FAILS(aclnnRotaryPositionEmbeddingGetWorkspaceSize(x.t, x.t, x.t, 2, x.t, &ws, &e),
          ACLNN_ERR_PARAM_INVALID); /* quarter mode: not on A2/A3 */
    FAILS(aclnnRotaryPositionEmbeddingGetWorkspaceSize(x.t, w.t, x.t, 0, x.t, &ws, &e),
          ACLNN_ERR_PARAM_INVALID); /* cos of another last dim */
    FAILS(aclnnRotaryPositionEmbeddingGetWorkspaceSize(x.t, NULL, x.t, 0, x.t, &ws, &e),
          ACLNN_ERR_PARAM_NULLPTR);
    assert_null(e);
    drop(&x), drop(&h), drop(&x3), drop(&w);
}

/* ---- FusedInferAttentionScoreV2 ---- */

struct fia {
    int64_t b, sq, skv, n, nkv, d;
    bool bsh; /* else BSND */
};

/* Element (b, s, h, i) of a BSND or BSH tensor with `heads` heads. */
static double el(const struct ht *t, const struct fia *f, int64_t heads, int64_t b, int64_t s,
                 int64_t h, int64_t i)
{
    if (f->bsh) {
        int64_t idx[3] = {b, s, h * f->d + i};
        return t->v[at_idx(t, 3, idx)];
    }
    int64_t idx[4] = {b, s, h, i};
    (void)heads;
    return t->v[at_idx(t, 4, idx)];
}

static struct ht mk_bsx(const struct fia *f, int64_t s, int64_t heads, int seed)
{
    int64_t d4[4] = {f->b, s, heads, f->d}, d3[3] = {f->b, s, heads * f->d};
    return f->bsh ? mks(ACL_FLOAT16, 3, d3, NULL, 0, (size_t)(f->b * s * heads * f->d), seed)
                  : mks(ACL_FLOAT16, 4, d4, NULL, 0, (size_t)(f->b * s * heads * f->d), seed);
}

static void check_fia(const struct fia *f, bool pse_on, bool mask_on, bool lse_on)
{
    struct ht q = mk_bsx(f, f->sq, f->n, 1), k = mk_bsx(f, f->skv, f->nkv, 2);
    struct ht v = mk_bsx(f, f->skv, f->nkv, 3), o = mk_bsx(f, f->sq, f->n, 4);
    int64_t dp[4] = {1, f->n, f->sq, f->skv}, dm[4] = {f->b, 1, f->sq, f->skv};
    int64_t dl[4] = {f->b, f->n, f->sq, 1};
    size_t nm = (size_t)(f->b * f->sq * f->skv);
    double *mv = malloc(nm * sizeof *mv);
    for (size_t i = 0; i < nm; i++) /* a causal-like pattern, never a whole row */
        mv[i] = (double)(((int64_t)i % f->skv) > ((int64_t)i / f->skv) % f->sq + 1);
    struct ht p = mks(ACL_FLOAT16, 4, dp, NULL, 0, (size_t)(f->n * f->sq * f->skv), 5);
    struct ht m = mk_vals(ACL_BOOL, 4, dm, NULL, 0, nm, 0, mv);
    struct ht l = mks(ACL_FLOAT, 4, dl, NULL, 0, (size_t)(f->b * f->n * f->sq), 6);
    aclTensorList *kl = aclCreateTensorList((const aclTensor *const *)&k.t, 1);
    aclTensorList *vl = aclCreateTensorList((const aclTensor *const *)&v.t, 1);
    double scale = 1 / sqrt((double)f->d);
    char layout[5];
    strcpy(layout, f->bsh ? "BSH" : "BSND");
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnFusedInferAttentionScoreV2GetWorkspaceSize(q.t, kl, vl,
        pse_on ? p.t : NULL, mask_on ? m.t : NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, f->n, scale,
        65535, 65535, layout, f->nkv, 0, 0, 0, 0, lse_on, 0, 0, o.t, lse_on ? l.t : NULL, &ws,
        &e), OK);
    assert_int_equal(aclnnFusedInferAttentionScoreV2(NULL, ws, e, S), OK);
    double *got = malloc(o.n * sizeof *got), *gl = malloc(l.n * sizeof *gl);
    fetch(&o, got);
    fetch(&l, gl);
    for (int64_t b = 0; b < f->b; b++)
        for (int64_t h = 0; h < f->n; h++)
            for (int64_t i = 0; i < f->sq; i++) {
                int64_t hk = h / (f->n / f->nkv);
                double sc[64], top = -INFINITY, sum = 0;
                for (int64_t j = 0; j < f->skv; j++) {
                    double t = 0;
                    for (int64_t c = 0; c < f->d; c++)
                        t += el(&q, f, f->n, b, i, h, c) * el(&k, f, f->nkv, b, j, hk, c);
                    sc[j] = scale * t + (pse_on ? p.v[(h * f->sq + i) * f->skv + j] : 0);
                    if (mask_on && m.v[(b * f->sq + i) * f->skv + j] != 0)
                        sc[j] = -INFINITY;
                    top = fmax(top, sc[j]);
                }
                for (int64_t j = 0; j < f->skv; j++)
                    sum += sc[j] = exp(sc[j] - top);
                if (lse_on) {
                    double want = top + log(sum), g = gl[(b * f->n + h) * f->sq + i];
                    if (fabs(g - want) > 1e-4 * (1 + fabs(want)))
                        fail_msg("lse [%lld %lld %lld]: got %.7g want %.7g", (long long)b,
                                 (long long)h, (long long)i, g, want);
                }
                for (int64_t c = 0; c < f->d; c++) {
                    double want = 0;
                    for (int64_t j = 0; j < f->skv; j++)
                        want += sc[j] / sum * el(&v, f, f->nkv, b, j, hk, c);
                    int64_t oi = ((b * f->sq + i) * f->n + h) * f->d + c; /* BSND = BSH order */
                    if (fabs(got[oi] - want) > 2e-3 + fabs(want) / 256)
                        fail_msg("out [%lld %lld %lld %lld]: got %.6g want %.6g", (long long)b,
                                 (long long)i, (long long)h, (long long)c, got[oi], want);
                }
            }
    free(got), free(gl), free(mv);
    aclDestroyTensorList(kl), aclDestroyTensorList(vl); /* destroys k and v too */
    assert_int_equal(aclrtFree(k.dev), 0), assert_int_equal(aclrtFree(v.dev), 0);
    free(k.v), free(v.v);
    drop(&q), drop(&o), drop(&p), drop(&m), drop(&l);
}

static void test_fused_attention(void **state)
{
    (void)state;
    struct fia bsnd = {2, 3, 5, 4, 2, 8, false}, bsh = {2, 1, 6, 2, 1, 4, true};
    check_fia(&bsnd, true, true, false); /* ggml's FLASH_ATTN_EXT: pse (mask and slopes) */
    check_fia(&bsnd, false, true, true);
    check_fia(&bsh, true, false, true); /* one query token (incremental) */
}

static void test_fused_attention_refusals(void **state)
{
    (void)state;
    struct fia f = {1, 2, 2, 2, 2, 4, false};
    struct ht q = mk_bsx(&f, 2, 2, 1), k = mk_bsx(&f, 2, 2, 2);
    aclTensorList *kl = aclCreateTensorList((const aclTensor *const *)&k.t, 1);
    char bsnd[5] = "BSND", tnd[4] = "TND";
    uint64_t ws;
    aclOpExecutor *e = NULL;
    FAILS(aclnnFusedInferAttentionScoreV2GetWorkspaceSize(q.t, kl, kl, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, 2, 0.5, 65535, 65535, bsnd, 2, 1, 0, 0, 0, false, 0, 0, q.t, NULL, &ws, &e),
          ACLNN_ERR_PARAM_INVALID); /* sparseMode 1 */
    FAILS(aclnnFusedInferAttentionScoreV2GetWorkspaceSize(q.t, kl, kl, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, 2, 0.5, 65535, 65535, tnd, 2, 0, 0, 0, 0, false, 0, 0, q.t, NULL, &ws, &e),
          ACLNN_ERR_PARAM_INVALID);
    FAILS(aclnnFusedInferAttentionScoreV2GetWorkspaceSize(q.t, kl, kl, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, 2, 0.5, 65535, 65535, bsnd, 3, 0, 0, 0, 0, false, 0, 0, q.t, NULL, &ws, &e),
          ACLNN_ERR_PARAM_INVALID); /* 2 heads over 3 key/value heads */
    assert_null(e);
    aclDestroyTensorList(kl);
    assert_int_equal(aclrtFree(k.dev), 0);
    free(k.v);
    drop(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rope_half_and_interleave),
        cmocka_unit_test(test_rope_refusals),
        cmocka_unit_test(test_fused_attention),
        cmocka_unit_test(test_fused_attention_refusals),
    };
    return cmocka_run_group_tests(tests, nn_setup, nn_teardown);
}
