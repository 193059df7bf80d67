/*
 * test_nn_conv.c - the aclnn convolution and pooling operators (the NN_CONV
 * family) against host references worked out here by direct summation in
 * double precision: Convolution in 2-D (grouped, strided, padded, dilated,
 * with bias), 1-D transposed with output padding, and depthwise 1-D into a
 * transposed output view (ggml's SSM_CONV); AvgPool2d with and without the
 * padding counted, a divisor override and ceil mode; MaxPool with pads on a
 * 3-D self; the refusals with CANN's codes.
 *
 * Sources (hicann/ops-nn): conv/convolution_forward/op_host/op_api/
 * aclnn_convolution.cpp (the output shapes: (in + 2p - d(k - 1) - 1) / s + 1,
 * transposed (in - 1)s - 2p + d(k - 1) + outputPadding + 1; weight
 * (out, in / groups, k...) or, transposed, (in, out / groups, k...)),
 * pooling/avg_pool3_d/op_api/aclnn_avgpool2d.cpp, pooling/max_pool_v3/
 * docs/aclnnMaxPool.md L30-45 (output shapes; pads {top, left, bottom,
 * right}).
 */
#include "nnmat.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_avgpool2d.h"
#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_max_pool.h"

/* ---- Convolution ---- */

struct cp {
    int64_t s[2], p[2], d[2], op[2], groups;
    bool tr;
};

/* The reference: out as a double array of its shape (N, C, OH, OW; a 1-D
 * one has OH = 1), by scattering every input x weight product. */
static void conv_ref(const struct ht *x, const struct ht *w, const struct ht *b,
                     const struct ht *o, const struct cp *c, double *ref)
{
    bool two = x->nd == 4;
    int64_t n = x->dims[0], ci = x->dims[1], h = two ? x->dims[2] : 1, wd = x->dims[x->nd - 1];
    int64_t co = o->dims[1], oh = two ? o->dims[2] : 1, ow = o->dims[o->nd - 1];
    int64_t kh = two ? w->dims[2] : 1, kw = w->dims[w->nd - 1];
    int64_t cig = ci / c->groups, cog = co / c->groups;
    int64_t sh = two ? c->s[0] : 1, sw = two ? c->s[1] : c->s[0];
    int64_t ph = two ? c->p[0] : 0, pw = two ? c->p[1] : c->p[0];
    int64_t dh = two ? c->d[0] : 1, dw = two ? c->d[1] : c->d[0];
    for (int64_t i = 0; i < n * co * oh * ow; i++)
        ref[i] = b ? b->v[(i / (oh * ow)) % co] : 0;
    for (int64_t bn = 0; bn < n; bn++)
        for (int64_t g = 0; g < c->groups; g++)
            for (int64_t a = 0; a < cig; a++)
                for (int64_t z = 0; z < cog; z++)
                    for (int64_t i = 0; i < kh; i++)
                        for (int64_t j = 0; j < kw; j++) {
                            int64_t cin = g * cig + a, cout = g * cog + z;
                            int64_t wi = c->tr ? ((cin * cog + z) * kh + i) * kw + j
                                               : ((cout * cig + a) * kh + i) * kw + j;
                            double wv = w->v[w->offset + wi];
                            if (c->tr) { /* input (y, xx) adds into out (y s - p + i d, ...) */
                                for (int64_t y = 0; y < h; y++)
                                    for (int64_t xx = 0; xx < wd; xx++) {
                                        int64_t oy = y * sh - ph + i * dh, ox = xx * sw - pw + j * dw;
                                        if (oy < 0 || oy >= oh || ox < 0 || ox >= ow)
                                            continue;
                                        int64_t idx[4] = {bn, cin, y, xx}, i3[3] = {bn, cin, xx};
                                        double xv = x->v[two ? at_idx(x, 4, idx) : at_idx(x, 3, i3)];
                                        ref[((bn * co + cout) * oh + oy) * ow + ox] += xv * wv;
                                    }
                            } else { /* out (y, xx) reads input (y s - p + i d, ...) */
                                for (int64_t y = 0; y < oh; y++)
                                    for (int64_t xx = 0; xx < ow; xx++) {
                                        int64_t iy = y * sh - ph + i * dh, ix = xx * sw - pw + j * dw;
                                        if (iy < 0 || iy >= h || ix < 0 || ix >= wd)
                                            continue;
                                        int64_t idx[4] = {bn, cin, iy, ix}, i3[3] = {bn, cin, ix};
                                        double xv = x->v[two ? at_idx(x, 4, idx) : at_idx(x, 3, i3)];
                                        ref[((bn * co + cout) * oh + y) * ow + xx] += xv * wv;
                                    }
                            }
                        }
}

/* Run the convolution and check o's view against the reference (fp32
 * accumulation, then o's type) and o's gaps untouched. */
static void check_conv(struct ht *x, struct ht *w, struct ht *b, struct ht *o, const struct cp *c)
{
    int sp = x->nd - 2;
    aclIntArray *s = aclCreateIntArray(c->s, (uint64_t)sp), *p = aclCreateIntArray(c->p, (uint64_t)sp);
    aclIntArray *d = aclCreateIntArray(c->d, (uint64_t)sp), *op = aclCreateIntArray(c->op, (uint64_t)sp);
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnConvolutionGetWorkspaceSize(x->t, w->t, b ? b->t : NULL, s, p, d, c->tr,
                                                      op, c->groups, o->t, 0, &ws, &e), OK);
    assert_int_equal(ws, 0);
    assert_int_equal(aclnnConvolution(NULL, 0, e, S), OK);
    int64_t total = 1;
    for (int i = 0; i < o->nd; i++)
        total *= o->dims[i];
    double *ref = malloc((size_t)total * sizeof *ref), *got = malloc(o->n * sizeof *got);
    char *mine = calloc(o->n, 1);
    conv_ref(x, w, b, o, c, ref);
    fetch(o, got);
    for (int64_t k = 0; k < total; k++) {
        int64_t idx[4], r = k;
        for (int j = o->nd - 1; j >= 0; j--)
            idx[j] = r % o->dims[j], r /= o->dims[j];
        int64_t st = at_idx(o, o->nd, idx);
        mine[st] = 1;
        double want = as(o->dt, ref[k]);
        double tol = 1e-5 * (1 + fabs(want)) + (o->dt == ACL_FLOAT ? 0 : fabs(want) / 256);
        if (fabs(got[st] - want) > tol)
            fail_msg("element %lld: got %.9g, want %.9g", (long long)k, got[st], want);
    }
    for (size_t i = 0; i < o->n; i++)
        if (!mine[i] && got[i] != o->v[i])
            fail_msg("storage element %zu outside the view changed", i);
    free(ref), free(got), free(mine);
    aclDestroyIntArray(s), aclDestroyIntArray(p), aclDestroyIntArray(d), aclDestroyIntArray(op);
}

static void test_conv2d_grouped_strided_padded_dilated(void **state)
{
    (void)state;
    int64_t dx[4] = {2, 4, 5, 6}, dw[4] = {6, 2, 3, 2}, db[1] = {6}, dout[4] = {2, 6, 3, 4};
    /* oh = (5 + 2 - 2 - 1) / 2 + 1 = 3, ow = (6 + 0 - 2 - 1) / 1 + 1 = 4 */
    struct cp c = {{2, 1}, {1, 0}, {1, 2}, {0, 0}, 2, false};
    const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    for (size_t t = 0; t < 3; t++) {
        struct ht x = mks(types[t], 4, dx, NULL, 0, 240, 1), w = mks(types[t], 4, dw, NULL, 0, 72, 2);
        struct ht b = mks(types[t], 1, db, NULL, 0, 6, 3), o = mks(types[t], 4, dout, NULL, 0, 144, 4);
        check_conv(&x, &w, &b, &o, &c);
        drop(&x), drop(&w), drop(&b), drop(&o);
    }
}

static void test_conv1d_transposed(void **state)
{
    (void)state;
    /* (5 - 1) * 2 - 2 * 1 + 1 * (4 - 1) + 1 + 1 = 11 */
    int64_t dx[3] = {1, 3, 5}, dw[3] = {3, 2, 4}, dout[3] = {1, 2, 11};
    struct cp c = {{2}, {1}, {1}, {1}, 1, true};
    struct ht x = mks(ACL_FLOAT, 3, dx, NULL, 0, 15, 5), w = mks(ACL_FLOAT, 3, dw, NULL, 0, 24, 6);
    struct ht o = mks(ACL_FLOAT, 3, dout, NULL, 0, 22, 7);
    check_conv(&x, &w, NULL, &o, &c);
    drop(&x), drop(&w), drop(&o);
}

/* ggml's SSM_CONV: depthwise (groups = channels), the weight a [C, 1, K]
 * view of a [C, K] matrix, the output an (N, C, L) view of (N, L, C). */
static void test_conv1d_depthwise_into_a_transposed_view(void **state)
{
    (void)state;
    enum { N = 2, C = 5, K = 3, L = 4, LIN = K - 1 + L };
    int64_t dx[3] = {N, C, LIN}, dw[3] = {C, 1, K}, sw[3] = {K, K, 1};
    int64_t dout[3] = {N, C, L}, so[3] = {C * L, 1, C};
    struct cp c = {{1}, {0}, {1}, {0}, C, false};
    struct ht x = mks(ACL_FLOAT, 3, dx, NULL, 0, N * C * LIN, 8);
    struct ht w = mks(ACL_FLOAT, 3, dw, sw, 0, C * K, 9);
    struct ht o = mks(ACL_FLOAT, 3, dout, so, 0, N * C * L, 10);
    check_conv(&x, &w, NULL, &o, &c);
    drop(&x), drop(&w), drop(&o);
}

static void test_conv_refusals(void **state)
{
    (void)state;
    int64_t dx[4] = {1, 3, 4, 4}, dw[4] = {2, 3, 3, 3}, dout[4] = {1, 2, 2, 2}, bad[4] = {1, 2, 3, 2};
    int64_t one[2] = {1, 1}, zero[2] = {0, 0};
    struct ht x = mks(ACL_FLOAT, 4, dx, NULL, 0, 48, 1), w = mks(ACL_FLOAT, 4, dw, NULL, 0, 54, 2);
    struct ht o = mks(ACL_FLOAT, 4, dout, NULL, 0, 8, 3), ob = mks(ACL_FLOAT, 4, bad, NULL, 0, 12, 4);
    aclIntArray *s = aclCreateIntArray(one, 2), *p = aclCreateIntArray(zero, 2);
    aclIntArray *s1 = aclCreateIntArray(one, 1);
    uint64_t ws;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnConvolutionGetWorkspaceSize(x.t, w.t, NULL, s, p, s, false, p, 1, ob.t,
                                                      0, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnConvolutionGetWorkspaceSize: Expected "
               "tensor for output to have same size as [1, 2, 2, 2], but got [1, 2, 3, 2].");
    FAILS(aclnnConvolutionGetWorkspaceSize(x.t, w.t, NULL, s, p, s, false, p, 2, o.t, 0, &ws, &e),
          ACLNN_ERR_PARAM_INVALID); /* 3 channels in 2 groups */
    FAILS(aclnnConvolutionGetWorkspaceSize(x.t, w.t, NULL, s1, p, s, false, p, 1, o.t, 0, &ws, &e),
          ACLNN_ERR_PARAM_INVALID); /* a 1-entry stride for 2 spatial dims */
    FAILS(aclnnConvolutionGetWorkspaceSize(x.t, NULL, NULL, s, p, s, false, p, 1, o.t, 0, &ws, &e),
          ACLNN_ERR_PARAM_NULLPTR);
    assert_null(e);
    /* the output planned right: runs */
    assert_int_equal(aclnnConvolutionGetWorkspaceSize(x.t, w.t, NULL, s, p, s, false, p, 1, o.t,
                                                      0, &ws, &e), OK);
    assert_int_equal(aclnnConvolution(NULL, 0, e, S), OK);
    aclDestroyIntArray(s), aclDestroyIntArray(p), aclDestroyIntArray(s1);
    drop(&x), drop(&w), drop(&o), drop(&ob);
}

/* ---- Pooling ---- */

/* The reference window of out element (plane, y, xx). */
static double window(const struct ht *x, int64_t plane, int64_t y, int64_t xx, const int64_t *k,
                     const int64_t *s, const int64_t *p, bool max, bool with_pad, int64_t div)
{
    int64_t h = x->dims[x->nd - 2], w = x->dims[x->nd - 1];
    double acc = max ? -INFINITY : 0;
    int64_t inside = 0, padded = 0;
    for (int64_t i = 0; i < k[0]; i++)
        for (int64_t j = 0; j < k[1]; j++) {
            int64_t iy = y * s[0] - p[0] + i, ix = xx * s[1] - p[1] + j;
            padded += iy < h + p[0] && ix < w + p[1];
            if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                continue;
            double v = x->v[(plane * h + iy) * w + ix];
            acc = max ? fmax(acc, v) : acc + v;
            inside++;
        }
    return max ? acc : acc / (double)(div ? div : with_pad ? padded : inside);
}

static void check_pool(struct ht *x, struct ht *o, const int64_t *k, const int64_t *s,
                       const int64_t *p, bool max, bool with_pad, int64_t div)
{
    int64_t planes = 1;
    for (int i = 0; i < o->nd - 2; i++)
        planes *= o->dims[i];
    int64_t oh = o->dims[o->nd - 2], ow = o->dims[o->nd - 1];
    double *got = malloc(o->n * sizeof *got);
    fetch(o, got);
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t y = 0; y < oh; y++)
            for (int64_t xx = 0; xx < ow; xx++) {
                double want = as(o->dt, window(x, pl, y, xx, k, s, p, max, with_pad, div));
                double g = got[(pl * oh + y) * ow + xx];
                if (fabs(g - want) > 1e-6 * (1 + fabs(want)))
                    fail_msg("plane %lld (%lld, %lld): got %.9g want %.9g", (long long)pl,
                             (long long)y, (long long)xx, g, want);
            }
    free(got);
}

static void avg(struct ht *x, struct ht *o, const int64_t *k, const int64_t *s, const int64_t *p,
                bool ceil_mode, bool with_pad, int64_t div)
{
    aclIntArray *ka = aclCreateIntArray(k, 2), *sa = aclCreateIntArray(s, 2),
                *pa = aclCreateIntArray(p, 2);
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnAvgPool2dGetWorkspaceSize(x->t, ka, sa, pa, ceil_mode, with_pad, div, 0,
                                                    o->t, &ws, &e), OK);
    assert_int_equal(aclnnAvgPool2d(NULL, ws, e, S), OK);
    check_pool(x, o, k, s, p, false, with_pad, div);
    aclDestroyIntArray(ka), aclDestroyIntArray(sa), aclDestroyIntArray(pa);
}

static void test_avg_pool2d(void **state)
{
    (void)state;
    int64_t dx[4] = {2, 3, 5, 7}, k[2] = {3, 2}, s[2] = {2, 2}, p[2] = {1, 1};
    int64_t d1[4] = {2, 3, 3, 4}, d2[4] = {2, 3, 3, 4}; /* (5+2-3)/2+1, (7+2-2)/2+1 */
    struct ht x = mks(ACL_FLOAT, 4, dx, NULL, 0, 210, 11), o = mks(ACL_FLOAT, 4, d1, NULL, 0, 72, 12);
    avg(&x, &o, k, s, p, false, true, 0); /* ggml's POOL_2D avg */
    avg(&x, &o, k, s, p, false, false, 0);
    avg(&x, &o, k, s, p, false, true, 5);
    drop(&o);
    /* ceil mode: ceil((7 + 2 - 2) / 2) + 1 = 5 would start in the right pad: 4 */
    struct ht o2 = mks(ACL_FLOAT16, 4, d2, NULL, 0, 72, 13);
    struct ht xh = mks(ACL_FLOAT16, 4, dx, NULL, 0, 210, 11);
    avg(&xh, &o2, k, s, p, true, true, 0);
    drop(&o2), drop(&xh), drop(&x);
}

static void test_max_pool(void **state)
{
    (void)state;
    int64_t dx[3] = {2, 5, 6}, dout[3] = {2, 3, 3}; /* (5+1+1-3)/2+1 = 3, (6+1+0-2)/2+1 = 3 */
    int64_t k[2] = {3, 2}, s[2] = {2, 2}, pads[4] = {1, 1, 1, 0}, dil[2] = {1, 1}, p[2] = {1, 1};
    struct ht x = mks(ACL_FLOAT, 3, dx, NULL, 0, 60, 14), o = mks(ACL_FLOAT, 3, dout, NULL, 0, 18, 15);
    aclIntArray *ka = aclCreateIntArray(k, 2), *sa = aclCreateIntArray(s, 2),
                *pa = aclCreateIntArray(pads, 4), *da = aclCreateIntArray(dil, 2);
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnMaxPoolGetWorkspaceSize(x.t, ka, sa, 0, pa, da, 0, o.t, &ws, &e), OK);
    assert_int_equal(aclnnMaxPool(NULL, ws, e, S), OK);
    check_pool(&x, &o, k, s, p, true, false, 0);
    FAILS(aclnnMaxPoolGetWorkspaceSize(x.t, ka, sa, 1, pa, da, 0, o.t, &ws, &e),
          ACLNN_ERR_PARAM_INVALID); /* autoPad */
    aclDestroyIntArray(ka), aclDestroyIntArray(sa), aclDestroyIntArray(pa), aclDestroyIntArray(da);
    drop(&x), drop(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv2d_grouped_strided_padded_dilated),
        cmocka_unit_test(test_conv1d_transposed),
        cmocka_unit_test(test_conv1d_depthwise_into_a_transposed_view),
        cmocka_unit_test(test_conv_refusals),
        cmocka_unit_test(test_avg_pool2d),
        cmocka_unit_test(test_max_pool),
    };
    return cmocka_run_group_tests(tests, nn_setup, nn_teardown);
}
