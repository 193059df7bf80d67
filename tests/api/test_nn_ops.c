/*
 * test_nn_ops.c - the aclnn operators of the shape, index and norm
 * families (api/src/op/nn/shape.c, index.c, norm.c) against host
 * references worked out here: slices, repeats and interleaves of
 * transposed views, concatenation with a type conversion, constant and
 * reflection pads (negative pads cut), triangles in and out of place,
 * ranges, gathers and index copies, softmax along any dim, RMS, layer and
 * group norms, the softmax cross entropy; means, p-norms, running sums,
 * sorts and arg-maxes; outputs with gaps whose other
 * elements must stay untouched; and CANN's refusals with their codes and
 * texts.
 *
 * Sources the expectations come from (hicann mirrors; file and lines in
 * each test): ops-math conversion/slice, math/tile, conversion/concat_d,
 * conversion/pad_v3, conversion/mirror_pad, conversion/tril, conversion/
 * triu, math/range (op_api/aclnn_*.cpp); ops-nn index/gather_v2,
 * index/scatter_update, index/repeat_interleave, activation/softmax_v2,
 * activation/softmax_cross_entropy_with_logits, norm/layer_norm_v4,
 * norm/group_norm, norm/rms_norm/docs/aclnnRmsNorm.md (the formula and
 * the return codes), norm/add_rms_norm.
 */
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_arange.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_argsort.h"
#include "aclnnop/aclnn_cat.h"
#include "aclnnop/aclnn_constant_pad_nd.h"
#include "aclnnop/aclnn_cumsum.h"
#include "aclnnop/aclnn_gather_v2.h"
#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_im2col.h"
#include "aclnnop/aclnn_index_copy.h"
#include "aclnnop/aclnn_index_select.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_mean.h"
#include "aclnnop/aclnn_norm.h"
#include "aclnnop/aclnn_reflection_pad1d.h"
#include "aclnnop/aclnn_repeat.h"
#include "aclnnop/aclnn_repeat_interleave.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_slice.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_tril.h"
#include "aclnnop/aclnn_triu.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "nnhost.h"

/* Element (i, j, k) of a view (row-major index k of its own shape). */
static double el(const struct ht *h, int64_t k)
{
    return h->v[at(h, h, k)];
}

/* Drop a tensor whose aclTensor a tensor list destroyed with it (CANN's
 * aclDestroyTensorList destroys the tensors it holds). */
static void drop_listed(struct ht *h)
{
    assert_int_equal(aclrtFree(h->dev), 0);
    free(h->v);
}

static double want_arr(void *ctx, int64_t k)
{
    return ((const double *)ctx)[k];
}

/* Plan (OK) and launch with the workspace the plan asked for: none, or
 * the reductions' fp32 partial sums (RoundUp(outputs * 4, 512) bytes). */
#define RUN(plan, launch, ...)                                                           \
    do {                                                                                 \
        uint64_t ws_ = 7;                                                                \
        aclOpExecutor *e_ = NULL;                                                        \
        void *w_ = NULL;                                                                 \
        assert_int_equal(plan(__VA_ARGS__, &ws_, &e_), OK);                              \
        assert_true(ws_ % 512 == 0);                                                     \
        if (ws_)                                                                         \
            assert_int_equal(aclrtMalloc(&w_, ws_, ACL_MEM_MALLOC_HUGE_FIRST), 0);       \
        assert_int_equal(launch(w_, ws_, e_, S), OK);                                    \
        assert_int_equal(aclrtSynchronizeStream(S), 0);                                  \
        if (w_)                                                                          \
            assert_int_equal(aclrtFree(w_), 0);                                          \
    } while (0)

/* A plan refused with code rc and a message holding `text`. */
#define REFUSED(rc, text, plan, ...)                                                     \
    do {                                                                                 \
        uint64_t ws_ = 0;                                                                \
        aclOpExecutor *e_ = NULL;                                                        \
        assert_int_equal(plan(__VA_ARGS__, &ws_, &e_), rc);                              \
        const char *m_ = aclGetRecentErrMsg();                                           \
        assert_non_null(m_);                                                             \
        if (!strstr(m_, text))                                                           \
            fail_msg("message %s lacks \"%s\"", m_, text);                              \
    } while (0)

/* ---- Shapes made of the input ---- */

/* x: [3, 4], the transpose of a [4, 3] storage. Slice keeps columns 1 and
 * 3 (aclnn_slice.cpp L123-124: (end - start + step - 1) / step); Repeat
 * {2, 1, 2} gives [2, 3, 8] (aclnn_repeat.cpp L219-228: self unsqueezed
 * to the repeats' rank, then tiled); RepeatInterleaveIntWithDim 2 along
 * dim 0 gives [6, 4] into an output with gaps. */
static void test_slice_repeat_interleave(void **state)
{
    (void)state;
    int64_t d34[2] = {3, 4}, tr[2] = {1, 3}, d32[2] = {3, 2}, d238[3] = {2, 3, 8};
    int64_t d64[2] = {6, 4}, gap[2] = {8, 1}, rep[3] = {2, 1, 2};
    struct ht x = mk(ACL_FLOAT, 2, d34, tr, 0, 12, ramp);
    struct ht s = mk(ACL_FLOAT, 2, d32, NULL, 0, 6, sevens);
    struct ht r = mk(ACL_FLOAT, 3, d238, NULL, 0, 48, sevens);
    struct ht ri = mk(ACL_FLOAT, 2, d64, gap, 0, 48, sevens);
    double w[48];
    RUN(aclnnSliceGetWorkspaceSize, aclnnSlice, x.t, 1, 1, 100, 2, s.t);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            w[i * 2 + j] = el(&x, i * 4 + 1 + 2 * j);
    expect_out(&s, want_arr, w, 0);
    aclIntArray *reps = aclCreateIntArray(rep, 3);
    RUN(aclnnRepeatGetWorkspaceSize, aclnnRepeat, x.t, reps, r.t);
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 8; j++)
                w[a * 24 + i * 8 + j] = el(&x, i * 4 + j % 4);
    expect_out(&r, want_arr, w, 0);
    RUN(aclnnRepeatInterleaveIntWithDimGetWorkspaceSize, aclnnRepeatInterleaveIntWithDim, x.t, 2,
        0, 6, ri.t);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 4; j++)
            w[i * 4 + j] = el(&x, (i / 2) * 4 + j);
    expect_out(&ri, want_arr, w, 0);
    aclDestroyIntArray(reps);
    drop(&x);
    drop(&s);
    drop(&r);
    drop(&ri);
}

/* Cat of an fp16 [2, 3] and an fp32 [2, 2] along dim -1 into fp32 (the
 * promoted type cast to out, aclnn_cat.cpp L106-125); ConstantPadNd with
 * pad {1, -1, 2, 0}: the last dim gains one 9 before and loses its last
 * element, dim 0 gains two rows of 9 (aclnn_constant_pad_nd.cpp L110-139);
 * ReflectionPad1d {2, 3} mirrors the last dim (column -j is column j). */
static void test_cat_and_pads(void **state)
{
    (void)state;
    int64_t d23[2] = {2, 3}, d22[2] = {2, 2}, d25[2] = {2, 5}, d34[2] = {3, 4}, d54[2] = {5, 4};
    int64_t d234[3] = {2, 3, 4}, d239[3] = {2, 3, 9}, pad[4] = {1, -1, 2, 0}, rp[2] = {2, 3};
    struct ht a = mk(ACL_FLOAT16, 2, d23, NULL, 0, 6, ramp), b = mk(ACL_FLOAT, 2, d22, NULL, 0, 4, ints);
    struct ht c = mk(ACL_FLOAT, 2, d25, NULL, 0, 10, sevens);
    const aclTensor *list[2] = {a.t, b.t};
    aclTensorList *tl = aclCreateTensorList(list, 2);
    double w[64];
    RUN(aclnnCatGetWorkspaceSize, aclnnCat, tl, -1, c.t);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 5; j++)
            w[i * 5 + j] = j < 3 ? el(&a, i * 3 + j) : el(&b, i * 2 + j - 3);
    expect_out(&c, want_arr, w, 0);
    struct ht x = mk(ACL_INT32, 2, d34, NULL, 0, 12, ints), p = mk(ACL_INT32, 2, d54, NULL, 0, 20, ramp);
    aclIntArray *pads = aclCreateIntArray(pad, 4);
    float nine = 9;
    aclScalar *v = aclCreateScalar(&nine, ACL_FLOAT);
    RUN(aclnnConstantPadNdGetWorkspaceSize, aclnnConstantPadNd, x.t, pads, v, p.t);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++)
            w[i * 4 + j] = i < 2 || j < 1 ? 9 : el(&x, (i - 2) * 4 + j - 1);
    expect_out(&p, want_arr, w, 0);
    struct ht y = mk(ACL_FLOAT, 3, d234, NULL, 0, 24, ramp), q = mk(ACL_FLOAT, 3, d239, NULL, 0, 54, sevens);
    aclIntArray *rpa = aclCreateIntArray(rp, 2);
    RUN(aclnnReflectionPad1dGetWorkspaceSize, aclnnReflectionPad1d, y.t, rpa, q.t);
    for (int r = 0; r < 6; r++)
        for (int j = 0; j < 9; j++) {
            int col = j - 2 < 0 ? 2 - j : j - 2 > 3 ? 6 - (j - 2) : j - 2;
            w[r * 9 + j] = el(&y, r * 4 + col);
        }
    expect_out(&q, want_arr, w, 0);
    aclDestroyTensorList(tl);
    drop_listed(&a);
    drop_listed(&b);
    aclDestroyIntArray(pads);
    aclDestroyIntArray(rpa);
    aclDestroyScalar(v);
    drop(&c);
    drop(&x);
    drop(&p);
    drop(&y);
    drop(&q);
}

/* Tril(-1) keeps j <= i - 1, Triu(1) keeps j >= i + 1 (torch's rule, the
 * one ggml's CANN backend relies on: its ggml_cann_tri comments), on a
 * batch of two [4, 5] matrices; InplaceTriu(0) on a transposed view;
 * Arange [1, 4) by 0.5 into fp32 and [0, 5) by 2 into int64
 * (aclnn_arange.cpp: the half-open range, out of its length). */
static void test_triangles_and_ranges(void **state)
{
    (void)state;
    int64_t d245[3] = {2, 4, 5}, d33[2] = {3, 3}, tr[2] = {1, 3}, d6[1] = {6}, d3[1] = {3};
    struct ht x = mk(ACL_FLOAT, 3, d245, NULL, 0, 40, ramp), o = mk(ACL_FLOAT, 3, d245, NULL, 0, 40, sevens);
    double w[40];
    for (int up = 0; up < 2; up++) {
        if (up)
            RUN(aclnnTriuGetWorkspaceSize, aclnnTriu, x.t, 1, o.t);
        else
            RUN(aclnnTrilGetWorkspaceSize, aclnnTril, x.t, -1, o.t);
        for (int k = 0; k < 40; k++) {
            int i = k / 5 % 4, j = k % 5;
            bool keep = up ? j >= i + 1 : j <= i - 1;
            w[k] = keep ? el(&x, k) : 0;
        }
        expect_out(&o, want_arr, w, 0);
    }
    struct ht t = mk(ACL_FLOAT16, 2, d33, tr, 0, 9, positive);
    double before[9];
    for (int k = 0; k < 9; k++)
        before[k] = el(&t, k);
    RUN(aclnnInplaceTriuGetWorkspaceSize, aclnnInplaceTriu, t.t, 0);
    for (int k = 0; k < 9; k++)
        w[k] = k % 3 >= k / 3 ? before[k] : 0;
    expect_out(&t, want_arr, w, 0);
    struct ht r = mk(ACL_FLOAT, 1, d6, NULL, 0, 6, sevens), ri = mk(ACL_INT64, 1, d3, NULL, 0, 3, sevens);
    float f[3] = {1, 4, 0.5f};
    int64_t i[3] = {0, 5, 2};
    aclScalar *fs[3], *is[3];
    for (int k = 0; k < 3; k++) {
        fs[k] = aclCreateScalar(&f[k], ACL_FLOAT);
        is[k] = aclCreateScalar(&i[k], ACL_INT64);
    }
    RUN(aclnnArangeGetWorkspaceSize, aclnnArange, fs[0], fs[1], fs[2], r.t);
    for (int k = 0; k < 6; k++)
        w[k] = 1 + 0.5 * k;
    expect_out(&r, want_arr, w, 0);
    RUN(aclnnArangeGetWorkspaceSize, aclnnArange, is[0], is[1], is[2], ri.t);
    for (int k = 0; k < 3; k++)
        w[k] = 2 * k;
    expect_out(&ri, want_arr, w, 0);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "step must be nonzero.", aclnnArangeGetWorkspaceSize, fs[0],
            fs[1], is[0], r.t);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "The range holds 3 elements, out [6] holds 6.",
            aclnnArangeGetWorkspaceSize, is[0], is[1], is[2], r.t);
    for (int k = 0; k < 3; k++) {
        aclDestroyScalar(fs[k]);
        aclDestroyScalar(is[k]);
    }
    drop(&x);
    drop(&o);
    drop(&t);
    drop(&r);
    drop(&ri);
}

/* h's tensor made again in format NCHW (the resizes take NCHW or NHWC). */
static void nchw(struct ht *h)
{
    assert_int_equal(aclDestroyTensor(h->t), OK);
    int64_t storage = (int64_t)h->n;
    h->t = aclCreateTensor(h->dims, (uint64_t)h->nd, h->dt, h->strides, h->offset,
                           ACL_FORMAT_NCHW, &storage, 1, h->dev);
    assert_non_null(h->t);
}

/* Im2col of [1, 2, 4, 6] with kernel (2, 3), dilation (1, 2), padding
 * (1, 0), stride (2, 1): OH = (4 + 2 - 2) / 2 + 1 = 3, OW = (6 - 5) / 1 +
 * 1 = 2 (aclnn_im2col.cpp L103-138), row (c, kh, kw), column (oh, ow),
 * zeros where the window reaches the padding (torch's unfold). Upsample
 * nearest of [1, 2, 3, 4] to (5, 7): row min(floor(oh * 3/5), 2), column
 * min(floor(ow * 4/7), 3) (ResizeNearestNeighborV2, the scales in fp32). */
static void test_windows_and_resizes(void **state)
{
    (void)state;
    int64_t d1246[4] = {1, 2, 4, 6}, d1_12_6[3] = {1, 12, 6}, k[2] = {2, 3}, dl[2] = {1, 2};
    int64_t pd[2] = {1, 0}, st[2] = {2, 1};
    struct ht x = mk(ACL_FLOAT, 4, d1246, NULL, 0, 48, ramp), o = mk(ACL_FLOAT, 3, d1_12_6, NULL, 0, 72, sevens);
    aclIntArray *ka = aclCreateIntArray(k, 2), *da = aclCreateIntArray(dl, 2),
                *pa = aclCreateIntArray(pd, 2), *sa = aclCreateIntArray(st, 2);
    RUN(aclnnIm2colGetWorkspaceSize, aclnnIm2col, x.t, ka, da, pa, sa, o.t);
    double w[128];
    for (int c = 0; c < 2; c++)
        for (int kh = 0; kh < 2; kh++)
            for (int kw = 0; kw < 3; kw++)
                for (int oh = 0; oh < 3; oh++)
                    for (int ow = 0; ow < 2; ow++) {
                        int ih = oh * 2 - 1 + kh, iw = ow + kw * 2;
                        bool in = ih >= 0 && ih < 4 && iw >= 0 && iw < 6;
                        w[((c * 2 + kh) * 3 + kw) * 6 + oh * 2 + ow] =
                            in ? el(&x, (c * 4 + ih) * 6 + iw) : 0;
                    }
    expect_out(&o, want_arr, w, 0);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "It is expected stride be greater than zero, but stride No.[2] "
            "dim is [0].", aclnnIm2colGetWorkspaceSize, x.t, ka, da, pa, pa, o.t);
    int64_t d1234[4] = {1, 2, 3, 4}, d1257[4] = {1, 2, 5, 7}, size[2] = {5, 7};
    struct ht u = mk(ACL_FLOAT16, 4, d1234, NULL, 0, 24, ramp), uo = mk(ACL_FLOAT16, 4, d1257, NULL, 0, 70, sevens);
    nchw(&u);
    nchw(&uo);
    aclIntArray *sz = aclCreateIntArray(size, 2);
    RUN(aclnnUpsampleNearest2dGetWorkspaceSize, aclnnUpsampleNearest2d, u.t, sz, uo.t);
    for (int c = 0; c < 2; c++)
        for (int r = 0; r < 5; r++)
            for (int q = 0; q < 7; q++) {
                int ir = (int)floorf((float)r * (3.0f / 5.0f)), iq = (int)floorf((float)q * (4.0f / 7.0f));
                w[(c * 5 + r) * 7 + q] = el(&u, (c * 3 + (ir < 2 ? ir : 2)) * 4 + (iq < 3 ? iq : 3));
            }
    expect_out(&uo, want_arr, w, 0);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "Do not support this format", aclnnUpsampleNearest2dGetWorkspaceSize,
            x.t, sz, o.t);
    aclDestroyIntArray(ka);
    aclDestroyIntArray(da);
    aclDestroyIntArray(pa);
    aclDestroyIntArray(sa);
    aclDestroyIntArray(sz);
    drop(&x);
    drop(&o);
    drop(&u);
    drop(&uo);
}

/* ---- Gathers and index copies ---- */

static double row_ids(size_t i)
{
    static const double v[] = {4, 0, 2, 2, 7, -1};
    return v[i % 6];
}

/* GatherV2 along dim 0 with a 1-D and along dim 1 with a 2-D index (out's
 * shape: self's with index's dims in place of dim, aclnn_gather_v2.cpp
 * L132-157); an index out of range gives zeros (aclsim's choice: CANN's
 * kernel does not check). IndexSelect of a bf16 self; InplaceIndexCopy of
 * two rows into a view with gaps. */
static void test_gathers_and_index_copy(void **state)
{
    (void)state;
    int64_t d53[2] = {5, 3}, d4[1] = {4}, d43[2] = {4, 3}, d22[2] = {2, 2}, d522[3] = {5, 2, 2};
    int64_t d63[2] = {6, 3};
    struct ht self = mk(ACL_FLOAT, 2, d53, NULL, 0, 15, ramp);
    struct ht i4 = mk(ACL_INT64, 1, d4, NULL, 0, 4, row_ids), i22 = mk(ACL_INT32, 2, d22, NULL, 0, 4, row_ids);
    struct ht o = mk(ACL_FLOAT, 2, d43, NULL, 0, 12, sevens), o3 = mk(ACL_FLOAT, 3, d522, NULL, 0, 20, sevens);
    double w[64];
    RUN(aclnnGatherV2GetWorkspaceSize, aclnnGatherV2, self.t, 0, i4.t, o.t);
    for (int k = 0; k < 12; k++)
        w[k] = el(&self, (int64_t)i4.v[k / 3] * 3 + k % 3);
    expect_out(&o, want_arr, w, 0);
    /* dim 1 has 3 columns: index 4 is out of range, a column of zeros */
    RUN(aclnnGatherV2GetWorkspaceSize, aclnnGatherV2, self.t, 1, i22.t, o3.t);
    for (int k = 0; k < 20; k++) {
        int64_t c = (int64_t)i22.v[k % 4];
        w[k] = c >= 0 && c < 3 ? el(&self, (k / 4) * 3 + c) : 0;
    }
    expect_out(&o3, want_arr, w, 0);
    struct ht sb = mk(ACL_BF16, 2, d53, NULL, 0, 15, ramp), ob = mk(ACL_BF16, 2, d43, NULL, 0, 12, sevens);
    RUN(aclnnIndexSelectGetWorkspaceSize, aclnnIndexSelect, sb.t, 0, i4.t, ob.t);
    for (int k = 0; k < 12; k++)
        w[k] = el(&sb, (int64_t)i4.v[k / 3] * 3 + k % 3);
    expect_out(&ob, want_arr, w, 0);
    int64_t gap[2] = {4, 1};
    struct ht dst = mk(ACL_FLOAT, 2, d63, gap, 1, 25, sevens), src = mk(ACL_FLOAT, 2, d43, NULL, 0, 12, ints);
    struct ht idx = mk(ACL_INT32, 1, d4, NULL, 0, 4, row_ids);
    RUN(aclnnInplaceIndexCopyGetWorkspaceSize, aclnnInplaceIndexCopy, dst.t, 0, idx.t, src.t);
    for (int k = 0; k < 18; k++)
        w[k] = 7;
    for (int r = 0; r < 4; r++) /* rows 4, 0, 2, 2: the later copy of row 2 wins */
        for (int j = 0; j < 3; j++)
            w[(int)idx.v[r] * 3 + j] = el(&src, r * 3 + j);
    expect_out(&dst, want_arr, w, 0);
    /* refusals: the dim's range (aclnn_gather_v2.cpp L170-174), a 2-D index
     * for IndexSelect (aclnn_index_select.cpp L134-138), a float index */
    REFUSED(ACLNN_ERR_PARAM_INVALID, "dim 2 not in valid range: [-2, 2)",
            aclnnGatherV2GetWorkspaceSize, self.t, 2, i4.t, o.t);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "index dimNum is 2, should not greater than 1",
            aclnnIndexSelectGetWorkspaceSize, self.t, 0, i22.t, o.t);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "Tensor index not implemented for DT_FLOAT",
            aclnnGatherV2GetWorkspaceSize, self.t, 0, o.t, o.t);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "The element num of index (4) should be equal to source size "
            "in dimension 0, actual is 6", aclnnInplaceIndexCopyGetWorkspaceSize, dst.t, 0, idx.t,
            dst.t);
    drop(&self);
    drop(&i4);
    drop(&i22);
    drop(&o);
    drop(&o3);
    drop(&sb);
    drop(&ob);
    drop(&dst);
    drop(&src);
    drop(&idx);
}

/* ---- Softmax and the norms ---- */

/* softmax of a transposed [3, 5] view along dim 0 and along dim -1. */
static void test_softmax_any_dim(void **state)
{
    (void)state;
    int64_t d35[2] = {3, 5}, tr[2] = {1, 3};
    struct ht x = mk(ACL_FLOAT, 2, d35, tr, 0, 15, ramp), o = mk(ACL_FLOAT, 2, d35, NULL, 0, 15, sevens);
    double w[15];
    for (int dim = 0; dim < 2; dim++) {
        RUN(aclnnSoftmaxGetWorkspaceSize, aclnnSoftmax, x.t, dim ? -1 : 0, o.t);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++) {
                double s = 0;
                for (int k = 0; k < (dim ? 5 : 3); k++)
                    s += exp(el(&x, dim ? i * 5 + k : k * 5 + j));
                w[i * 5 + j] = exp(el(&x, i * 5 + j)) / s;
            }
        expect_out(&o, want_arr, w, 1e-6);
    }
    REFUSED(ACLNN_ERR_PARAM_INVALID, "provided dim 2 not in the range of input size 2.",
            aclnnSoftmaxGetWorkspaceSize, x.t, 2, o.t);
    drop(&x);
    drop(&o);
}

/* RmsNorm (aclnnRmsNorm.md's formula: x / sqrt(mean(x^2) + eps) * gamma,
 * rstd = 1 / that root) of [2, 3, 8] rows with gamma [8]; AddRmsNorm the
 * same of x1 + x2 with xOut; LayerNorm over the last dim with weight,
 * bias, mean and rstd [4, 1]; GroupNorm of [2, 4, 3] in 2 groups. */
static void test_norms(void **state)
{
    (void)state;
    const double eps = 1e-5;
    int64_t d238[3] = {2, 3, 8}, d8[1] = {8}, d23[2] = {2, 3};
    struct ht x = mk(ACL_FLOAT, 3, d238, NULL, 0, 48, ramp), g = mk(ACL_FLOAT, 1, d8, NULL, 0, 8, positive);
    struct ht y = mk(ACL_FLOAT, 3, d238, NULL, 0, 48, sevens), rs = mk(ACL_FLOAT, 2, d23, NULL, 0, 6, sevens);
    struct ht x2 = mk(ACL_FLOAT, 3, d238, NULL, 0, 48, ints), xo = mk(ACL_FLOAT, 3, d238, NULL, 0, 48, sevens);
    double w[48], r[6], s[48];
    for (int add = 0; add < 2; add++) {
        if (add)
            RUN(aclnnAddRmsNormGetWorkspaceSize, aclnnAddRmsNorm, x.t, x2.t, g.t, eps, y.t, rs.t, xo.t);
        else
            RUN(aclnnRmsNormGetWorkspaceSize, aclnnRmsNorm, x.t, g.t, eps, y.t, rs.t);
        for (int k = 0; k < 48; k++)
            s[k] = el(&x, k) + (add ? el(&x2, k) : 0);
        for (int row = 0; row < 6; row++) {
            double q = 0;
            for (int j = 0; j < 8; j++)
                q += s[row * 8 + j] * s[row * 8 + j];
            r[row] = 1 / sqrt(q / 8 + eps);
            for (int j = 0; j < 8; j++)
                w[row * 8 + j] = s[row * 8 + j] * r[row] * g.v[j];
        }
        expect_out(&y, want_arr, w, 1e-5);
        expect_out(&rs, want_arr, r, 1e-5);
        if (add)
            expect_out(&xo, want_arr, s, 0);
    }
    int64_t d46[2] = {4, 6}, d6[1] = {6}, d41[2] = {4, 1}, ns[1] = {6};
    struct ht lx = mk(ACL_FLOAT, 2, d46, NULL, 0, 24, ramp), lw = mk(ACL_FLOAT, 1, d6, NULL, 0, 6, positive);
    struct ht lb = mk(ACL_FLOAT, 1, d6, NULL, 0, 6, ints), ly = mk(ACL_FLOAT, 2, d46, NULL, 0, 24, sevens);
    struct ht lm = mk(ACL_FLOAT, 2, d41, NULL, 0, 4, sevens), lr = mk(ACL_FLOAT, 2, d41, NULL, 0, 4, sevens);
    aclIntArray *norm = aclCreateIntArray(ns, 1);
    RUN(aclnnLayerNormGetWorkspaceSize, aclnnLayerNorm, lx.t, norm, lw.t, lb.t, eps, ly.t, lm.t,
        lr.t);
    double mean[4], rstd[4];
    for (int row = 0; row < 4; row++) {
        double m = 0, q = 0;
        for (int j = 0; j < 6; j++)
            m += lx.v[row * 6 + j] / 6;
        for (int j = 0; j < 6; j++)
            q += (lx.v[row * 6 + j] - m) * (lx.v[row * 6 + j] - m) / 6;
        mean[row] = m;
        rstd[row] = 1 / sqrt(q + eps);
        for (int j = 0; j < 6; j++)
            w[row * 6 + j] = (lx.v[row * 6 + j] - m) * rstd[row] * lw.v[j] + lb.v[j];
    }
    expect_out(&ly, want_arr, w, 1e-5);
    expect_out(&lm, want_arr, mean, 1e-6);
    expect_out(&lr, want_arr, rstd, 1e-5);
    int64_t d243[3] = {2, 4, 3}, d22[2] = {2, 2};
    struct ht gx = mk(ACL_FLOAT, 3, d243, NULL, 0, 24, ramp), gy = mk(ACL_FLOAT, 3, d243, NULL, 0, 24, sevens);
    struct ht gm = mk(ACL_FLOAT, 2, d22, NULL, 0, 4, sevens), gr = mk(ACL_FLOAT, 2, d22, NULL, 0, 4, sevens);
    RUN(aclnnGroupNormGetWorkspaceSize, aclnnGroupNorm, gx.t, NULL, NULL, 2, 4, 3, 2, eps, gy.t,
        gm.t, gr.t);
    for (int grp = 0; grp < 4; grp++) { /* each group: 2 channels of 3 = 6 elements in a row */
        double m = 0, q = 0;
        for (int j = 0; j < 6; j++)
            m += gx.v[grp * 6 + j] / 6;
        for (int j = 0; j < 6; j++)
            q += (gx.v[grp * 6 + j] - m) * (gx.v[grp * 6 + j] - m) / 6;
        mean[grp] = m;
        rstd[grp] = 1 / sqrt(q + eps);
        for (int j = 0; j < 6; j++)
            w[grp * 6 + j] = (gx.v[grp * 6 + j] - m) * rstd[grp];
    }
    expect_out(&gy, want_arr, w, 1e-5);
    expect_out(&gm, want_arr, mean, 1e-6);
    expect_out(&gr, want_arr, rstd, 1e-5);
    /* refusals: gamma not x's last dims is 561002 (aclnnRmsNorm.md's
     * return codes); normalizedShape against the input (aclnn_layer_norm.cpp
     * L222-230); channels not divisible by group (aclnn_group_norm.cpp
     * L105-110) */
    REFUSED(ACLNN_ERR_INNER_TILING_ERROR, "should be the last dims of x's shape",
            aclnnRmsNormGetWorkspaceSize, x.t, lw.t, eps, y.t, rs.t);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "Expected normalized index [0] shape [6] be equal to input "
            "index [2] shape [8], but failed.", aclnnLayerNormGetWorkspaceSize, x.t, norm, NULL,
            NULL, eps, y.t, NULL, NULL);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "Expected number of channels in input to be divisible by "
            "group", aclnnGroupNormGetWorkspaceSize, gx.t, NULL, NULL, 2, 4, 3, 3, eps, gy.t, gm.t,
            gr.t);
    aclDestroyIntArray(norm);
    struct ht *all[] = {&x, &g, &y, &rs, &x2, &xo, &lx, &lw, &lb, &ly, &lm, &lr, &gx, &gy, &gm, &gr};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        drop(all[k]);
}

static double labels(size_t i)
{
    return i % 4 == 1 ? 0.75 : i % 4 == 2 ? 0.25 : 0;
}

/* loss = -sum(labels * log_softmax(features)) per row, backprop =
 * softmax(features) - labels (TensorFlow's SoftmaxCrossEntropyWithLogits,
 * which CANN's operator of that name computes). */
static void test_softmax_cross_entropy(void **state)
{
    (void)state;
    int64_t d34[2] = {3, 4}, d3[1] = {3};
    struct ht f = mk(ACL_FLOAT, 2, d34, NULL, 0, 12, ramp), l = mk(ACL_FLOAT, 2, d34, NULL, 0, 12, labels);
    struct ht loss = mk(ACL_FLOAT, 1, d3, NULL, 0, 3, sevens), bp = mk(ACL_FLOAT, 2, d34, NULL, 0, 12, sevens);
    RUN(aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize, aclnnSoftmaxCrossEntropyWithLogits,
        f.t, l.t, loss.t, bp.t);
    double wl[3], wb[12];
    for (int r = 0; r < 3; r++) {
        double s = 0;
        for (int j = 0; j < 4; j++)
            s += exp(f.v[r * 4 + j]);
        wl[r] = 0;
        for (int j = 0; j < 4; j++) {
            wl[r] -= l.v[r * 4 + j] * log(exp(f.v[r * 4 + j]) / s);
            wb[r * 4 + j] = exp(f.v[r * 4 + j]) / s - l.v[r * 4 + j];
        }
    }
    expect_out(&loss, want_arr, wl, 1e-5);
    expect_out(&bp, want_arr, wb, 1e-6);
    REFUSED(ACLNN_ERR_PARAM_NULLPTR, "dimNum is 1, must be 2, but check failed.",
            aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize, loss.t, loss.t, loss.t, loss.t);
    drop(&f);
    drop(&l);
    drop(&loss);
    drop(&bp);
}

/* ---- Reductions, scans and sorts ---- */

static double ties(size_t i)
{
    return (double)(i * 3 % 5 % 3); /* rows 0 0 1 1, 2 0 0 1, 1 2 0 0: equal values */
}

/* Mean over dims {0, 2} of [2, 3, 4] keeping them (aclnn_mean.cpp: the
 * sum over the count); Norm p = 2 and p = 1 over dim 1 of a transposed
 * [3, 4]; Cumsum along dim 0 of the transposed view (aclnn_cumsum.cpp);
 * Argsort descending of rows with ties (a stable sort keeps equal values
 * in their order); ArgMax along dim 1 into int32 without the dim
 * (aclnn_argmax.cpp: the first of equal largest). */
static void test_reductions_scans_sorts(void **state)
{
    (void)state;
    int64_t d234[3] = {2, 3, 4}, d131[3] = {1, 3, 1}, dims02[2] = {0, 2}, d34[2] = {3, 4};
    int64_t tr[2] = {1, 3}, d3[1] = {3}, dim1[1] = {1}, d31[2] = {3, 1};
    struct ht x = mk(ACL_FLOAT16, 3, d234, NULL, 0, 24, ramp), m = mk(ACL_FLOAT, 3, d131, NULL, 0, 3, sevens);
    aclIntArray *a02 = aclCreateIntArray(dims02, 2), *a1 = aclCreateIntArray(dim1, 1);
    double w[24];
    RUN(aclnnMeanGetWorkspaceSize, aclnnMean, x.t, a02, true, ACL_FLOAT, m.t);
    for (int j = 0; j < 3; j++) {
        w[j] = 0;
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < 4; k++)
                w[j] += el(&x, i * 12 + j * 4 + k) / 8;
    }
    expect_out(&m, want_arr, w, 1e-6);
    struct ht t = mk(ACL_FLOAT, 2, d34, tr, 0, 12, ramp), n = mk(ACL_FLOAT, 2, d31, NULL, 0, 3, sevens);
    for (int p = 1; p <= 2; p++) {
        float pv = (float)p;
        aclScalar *ps = aclCreateScalar(&pv, ACL_FLOAT);
        RUN(aclnnNormGetWorkspaceSize, aclnnNorm, t.t, ps, a1, true, n.t);
        for (int i = 0; i < 3; i++) {
            w[i] = 0;
            for (int k = 0; k < 4; k++)
                w[i] += pow(fabs(el(&t, i * 4 + k)), p);
            w[i] = pow(w[i], 1.0 / p);
        }
        expect_out(&n, want_arr, w, 1e-5);
        aclDestroyScalar(ps);
    }
    struct ht c = mk(ACL_FLOAT, 2, d34, NULL, 0, 12, sevens);
    RUN(aclnnCumsumGetWorkspaceSize, aclnnCumsum, t.t, 0, ACL_FLOAT, c.t);
    for (int k = 0; k < 12; k++)
        w[k] = el(&t, k) + (k >= 4 ? w[k - 4] : 0);
    expect_out(&c, want_arr, w, 1e-6);
    struct ht q = mk(ACL_INT32, 2, d34, NULL, 0, 12, ties), qi = mk(ACL_INT64, 2, d34, NULL, 0, 12, sevens);
    RUN(aclnnArgsortGetWorkspaceSize, aclnnArgsort, q.t, -1, true, qi.t);
    for (int r = 0; r < 3; r++) { /* a stable descending order, worked out by insertion */
        int order[4] = {0, 1, 2, 3};
        for (int i = 1; i < 4; i++)
            for (int j = i; j > 0 && q.v[r * 4 + order[j]] > q.v[r * 4 + order[j - 1]]; j--) {
                int tmp = order[j];
                order[j] = order[j - 1];
                order[j - 1] = tmp;
            }
        for (int j = 0; j < 4; j++)
            w[r * 4 + j] = order[j];
    }
    expect_out(&qi, want_arr, w, 0);
    struct ht am = mk(ACL_INT32, 1, d3, NULL, 0, 3, sevens);
    RUN(aclnnArgMaxGetWorkspaceSize, aclnnArgMax, q.t, 1, false, am.t);
    for (int r = 0; r < 3; r++) {
        int best = 0;
        for (int j = 1; j < 4; j++)
            if (q.v[r * 4 + j] > q.v[r * 4 + best])
                best = j;
        w[r] = best;
    }
    expect_out(&am, want_arr, w, 0);
    /* refusals: aclnn_mean.cpp L139-143 (a repeated dim), aclnn_cumsum.cpp
     * L113-119 (the dim's range), aclnn_argsort.cpp L60-66 (out INT64) */
    int64_t twice[2] = {1, -2};
    aclIntArray *tw = aclCreateIntArray(twice, 2);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "provided dim -2 is repeated.", aclnnMeanGetWorkspaceSize,
            x.t, tw, true, ACL_FLOAT, m.t);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "expected dim to be in range of [-2, 1], but got 2.",
            aclnnCumsumGetWorkspaceSize, t.t, 2, ACL_FLOAT, c.t);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "Tensor out not implemented for DT_INT32",
            aclnnArgsortGetWorkspaceSize, q.t, -1, true, q.t);
    aclDestroyIntArray(tw);
    aclDestroyIntArray(a02);
    aclDestroyIntArray(a1);
    struct ht *all[] = {&x, &m, &t, &n, &c, &q, &qi, &am};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        drop(all[k]);
}

/* ---- Refusals of the shape family ---- */

/* Codes and texts: aclnn_slice.cpp L119-122 (step), L106-111 (the dim,
 * ACLNN_ERR_PARAM_NULLPTR there); aclnn_repeat.cpp L123-133 (fewer repeats
 * than dims), L138-147 (a negative repeat); aclnn_cat.cpp L170-178 (a
 * dim that differs); aclnn_constant_pad_nd.cpp L96-100 (an odd pad);
 * aclnn_tril.cpp L83-86 (a 1-D self); aclnn_reflection_pad1d.cpp L103-106
 * (a pad as wide as the dim). */
static void test_shape_refusals(void **state)
{
    (void)state;
    int64_t d34[2] = {3, 4}, d4[1] = {4}, d24[2] = {2, 4}, one[1] = {2}, neg[2] = {-1, 2};
    int64_t odd[3] = {1, 1, 1}, big[2] = {4, 0};
    struct ht x = mk(ACL_FLOAT, 2, d34, NULL, 0, 12, ramp), v = mk(ACL_FLOAT, 1, d4, NULL, 0, 4, ramp);
    struct ht u = mk(ACL_FLOAT, 2, d24, NULL, 0, 8, ramp);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "aclnnSlice step must be positive.",
            aclnnSliceGetWorkspaceSize, x.t, 0, 0, 2, 0, x.t);
    REFUSED(ACLNN_ERR_PARAM_NULLPTR, "Expected aclnnSlice dim value 2 to be in range [-2, 1] but "
            "check failed.", aclnnSliceGetWorkspaceSize, x.t, 2, 0, 2, 1, x.t);
    aclIntArray *r1 = aclCreateIntArray(one, 1), *rn = aclCreateIntArray(neg, 2),
                *ro = aclCreateIntArray(odd, 3), *rb = aclCreateIntArray(big, 2);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "Number of dimensions of repeat dims can not be smaller than "
            "number of dimensions of input tensor, self 2, repeats 1.", aclnnRepeatGetWorkspaceSize,
            x.t, r1, x.t);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "repeats expected 1th value > 0, but got -1",
            aclnnRepeatGetWorkspaceSize, x.t, rn, x.t);
    const aclTensor *list[2] = {x.t, u.t};
    aclTensorList *tl = aclCreateTensorList(list, 2);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "dim 0 of tensor 1 is [2], should be equal to tensor 0 [3].",
            aclnnCatGetWorkspaceSize, tl, 1, x.t);
    float zero = 0;
    aclScalar *z = aclCreateScalar(&zero, ACL_FLOAT);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "Pad len must be divisible by 2",
            aclnnConstantPadNdGetWorkspaceSize, x.t, ro, z, x.t);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "Dim of self should be last 2 dims.",
            aclnnTrilGetWorkspaceSize, v.t, 0, v.t);
    REFUSED(ACLNN_ERR_PARAM_INVALID, "padding size should be less than the corresponding self "
            "dimention.", aclnnReflectionPad1dGetWorkspaceSize, x.t, rb, x.t);
    aclDestroyTensorList(tl);
    aclDestroyScalar(z);
    aclDestroyIntArray(r1);
    aclDestroyIntArray(rn);
    aclDestroyIntArray(ro);
    aclDestroyIntArray(rb);
    drop_listed(&x);
    drop(&v);
    drop_listed(&u);
}

int main(void)
{
    if (strcmp(ACLSIM_EXPECT_BACKEND, "sim") != 0)
        return 0; /* aclsim's kernels and refusals */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_slice_repeat_interleave, nn_fresh),
        cmocka_unit_test_setup(test_cat_and_pads, nn_fresh),
        cmocka_unit_test_setup(test_triangles_and_ranges, nn_fresh),
        cmocka_unit_test_setup(test_windows_and_resizes, nn_fresh),
        cmocka_unit_test_setup(test_gathers_and_index_copy, nn_fresh),
        cmocka_unit_test_setup(test_softmax_any_dim, nn_fresh),
        cmocka_unit_test_setup(test_norms, nn_fresh),
        cmocka_unit_test_setup(test_softmax_cross_entropy, nn_fresh),
        cmocka_unit_test_setup(test_reductions_scans_sorts, nn_fresh),
        cmocka_unit_test_setup(test_shape_refusals, nn_fresh),
    };
    return cmocka_run_group_tests_name("nn_ops", tests, nn_setup, nn_teardown);
}
