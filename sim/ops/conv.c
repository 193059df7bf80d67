/*
 * conv.c - convolution and pooling (api/abi/ops/conv.def). A convolution is
 * the BLAS's sgemm between the weight and the input's columns (im2col), a
 * transposed one sgemm of the weight's transpose by the input, its columns
 * then added back into the output (col2im): products accumulate in fp32 as
 * the cube unit does, whatever the tensors' float type. Pooling takes the
 * maximum or the average of each window. Tensors are gathered through the
 * engine from their views and the result scattered into the output's view
 * in its type. A 1-D operator is the 2-D one with a height of 1.
 */
#include <cblas.h>
#include <math.h>
#include "base/mem.h"
#include "ops.h"

/* The geometry of a 2-D operator: batch n, channels c, h x w in, oh x ow
 * out; kernel kh x kw; strides, paddings, dilations (h, w). */
struct geo {
    int64_t n, c, h, w, oc, oh, ow, kh, kw;
    int64_t sh, sw, ph, pw, dh, dw;
};

static void geometry(const struct sim_op *op, const struct sim_view *in,
                     const struct sim_view *out, int64_t kh, int64_t kw, struct geo *g)
{
    int nd = in->ndims;
    const int64_t *p = op->iparam;
    /* a convolution's (N, C, [H,] W), a pooling's ([N,] C, H, W) */
    bool conv = op->kind == SIM_OP_CONV, two = nd == 4 || !conv;
    g->n = conv || nd == 4 ? in->dims[0] : 1;
    g->c = in->dims[conv ? 1 : nd - 3];
    g->oc = out->dims[conv ? 1 : nd - 3];
    g->h = two ? in->dims[nd - 2] : 1;
    g->oh = two ? out->dims[nd - 2] : 1;
    g->w = in->dims[nd - 1];
    g->ow = out->dims[nd - 1];
    g->kh = kh, g->kw = kw;
    g->sh = p[2], g->sw = p[3], g->ph = p[4], g->pw = p[5], g->dh = p[6], g->dw = p[7];
}

static float *gathered_f32(const struct sim_op *op, struct sim_access *x, int i)
{
    int64_t n = sim_view_elems(&op->in[i]);
    double *d = base_malloc((size_t)(n ? n : 1) * sizeof *d);
    float *f = base_malloc((size_t)(n ? n : 1) * sizeof *f);
    if (d && f) {
        sim_gather_f64(&op->in[i], sim_access_in(x, op, i), d);
        for (int64_t k = 0; k < n; k++)
            f[k] = (float)d[k];
    } else {
        base_free(f), f = NULL;
    }
    base_free(d);
    return f;
}

/* Write the fp32 result r into out[0]. */
static enum sim_rc scatter(const struct sim_op *op, struct sim_access *x, const float *r)
{
    int64_t n = sim_view_elems(&op->out[0]);
    double *d = base_malloc((size_t)(n ? n : 1) * sizeof *d);
    if (!d)
        return SIM_EHOSTMEM;
    for (int64_t k = 0; k < n; k++)
        d[k] = r[k];
    sim_scatter_f64(&op->out[0], sim_access_out(x, 0), d);
    base_free(d);
    return SIM_OK;
}

/* ---- Convolution ---- */

/* One image's columns: row (c, i, j) of the kernel, column (y, x) of the
 * output, the input element it meets (0 in the padding). */
static void im2col(const float *img, int64_t cg, const struct geo *g, float *col)
{
    int64_t p = g->oh * g->ow;
    for (int64_t c = 0; c < cg; c++)
        for (int64_t i = 0; i < g->kh; i++)
            for (int64_t j = 0; j < g->kw; j++) {
                float *row = col + ((c * g->kh + i) * g->kw + j) * p;
                for (int64_t y = 0; y < g->oh; y++) {
                    int64_t iy = y * g->sh - g->ph + i * g->dh;
                    for (int64_t xo = 0; xo < g->ow; xo++) {
                        int64_t ix = xo * g->sw - g->pw + j * g->dw;
                        bool in = iy >= 0 && iy < g->h && ix >= 0 && ix < g->w;
                        row[y * g->ow + xo] = in ? img[(c * g->h + iy) * g->w + ix] : 0;
                    }
                }
            }
}

/* The transposed convolution's scatter: column (y, x) of input row
 * (c, i, j) adds into output element (y * s - p + i * d, ...). */
static void col2im(const float *col, int64_t cg, const struct geo *g, float *img)
{
    int64_t q = g->h * g->w;
    for (int64_t c = 0; c < cg; c++)
        for (int64_t i = 0; i < g->kh; i++)
            for (int64_t j = 0; j < g->kw; j++) {
                const float *row = col + ((c * g->kh + i) * g->kw + j) * q;
                for (int64_t y = 0; y < g->h; y++) {
                    int64_t oy = y * g->sh - g->ph + i * g->dh;
                    if (oy < 0 || oy >= g->oh)
                        continue;
                    for (int64_t xi = 0; xi < g->w; xi++) {
                        int64_t ox = xi * g->sw - g->pw + j * g->dw;
                        if (ox >= 0 && ox < g->ow)
                            img[(c * g->oh + oy) * g->ow + ox] += row[y * g->w + xi];
                    }
                }
            }
}

static enum sim_rc conv(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *wv = &op->in[1];
    bool tr = op->iparam[0] != 0;
    int64_t groups = op->iparam[1];
    struct geo g;
    geometry(op, &op->in[0], &op->out[0], wv->ndims == 4 ? wv->dims[2] : 1,
             wv->dims[wv->ndims - 1], &g);
    int64_t cg = g.c / groups, og = g.oc / groups, kk = g.kh * g.kw;
    int64_t p = g.oh * g.ow, q = g.h * g.w, total = g.n * g.oc * p;
    int64_t rows = tr ? og * kk : cg * kk, cols = tr ? q : p;
    float *in = gathered_f32(op, x, 0), *w = gathered_f32(op, x, 1);
    float *b = op->n_in > 2 ? gathered_f32(op, x, 2) : NULL;
    float *res = base_calloc((size_t)(total ? total : 1), sizeof *res);
    int64_t cells = rows * cols;
    float *col = base_malloc((size_t)(cells ? cells : 1) * sizeof *col);
    enum sim_rc rc = SIM_EHOSTMEM;
    if (!in || !w || (op->n_in > 2 && !b) || !res || !col)
        goto out;
    for (int64_t n = 0; n < g.n; n++)
        for (int64_t gi = 0; gi < groups && total; gi++) {
            float *o = res + (n * g.oc + gi * og) * p;
            const float *img = in + (n * g.c + gi * cg) * q;
            if (!tr) { /* out (og x p) = W_g (og x cg.kk) @ columns (cg.kk x p) */
                im2col(img, cg, &g, col);
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)og, (int)p,
                            (int)rows, 1.0f, w + gi * og * rows, (int)rows, col, (int)p, 0.0f,
                            o, (int)p);
            } else { /* columns (og.kk x q) = W_g^T, W_g being (cg x og.kk), @ in (cg x q) */
                cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)rows, (int)q, (int)cg,
                            1.0f, w + gi * cg * rows, (int)rows, img, (int)q, 0.0f, col, (int)q);
                col2im(col, og, &g, o);
            }
        }
    for (int64_t i = 0; b && i < total; i++)
        res[i] += b[(i / p) % g.oc];
    rc = total ? scatter(op, x, res) : SIM_OK;
out:
    base_free(in), base_free(w), base_free(b), base_free(res), base_free(col);
    return rc;
}

/* ---- Pooling ---- */

static enum sim_rc pool(const struct sim_op *op, struct sim_access *x)
{
    struct geo g;
    geometry(op, &op->in[0], &op->out[0], op->iparam[8], op->iparam[9], &g);
    bool max = op->iparam[0] != 0, with_pad = op->iparam[1] != 0;
    int64_t divisor = op->iparam[10], planes = g.n * g.c, total = planes * g.oh * g.ow;
    int64_t nin = sim_view_elems(&op->in[0]);
    double *in = base_malloc((size_t)(nin ? nin : 1) * sizeof *in);
    float *res = base_malloc((size_t)(total ? total : 1) * sizeof *res);
    if (!in || !res) {
        base_free(in), base_free(res);
        return SIM_EHOSTMEM;
    }
    sim_gather_f64(&op->in[0], sim_access_in(x, op, 0), in);
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t y = 0; y < g.oh; y++)
            for (int64_t xo = 0; xo < g.ow; xo++) {
                double acc = max ? -INFINITY : 0;
                int64_t inside = 0, padded = 0;
                for (int64_t i = 0; i < g.kh; i++)
                    for (int64_t j = 0; j < g.kw; j++) {
                        int64_t iy = y * g.sh - g.ph + i * g.dh, ix = xo * g.sw - g.pw + j * g.dw;
                        /* the average counts the window inside input + padding */
                        padded += iy < g.h + g.ph && ix < g.w + g.pw;
                        if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w)
                            continue;
                        double v = in[(pl * g.h + iy) * g.w + ix];
                        acc = max ? (v > acc || isnan(v) ? v : acc) : acc + v;
                        inside++;
                    }
                if (!max)
                    acc /= (double)(divisor ? divisor : with_pad ? padded : inside);
                res[(pl * g.oh + y) * g.ow + xo] = (float)acc;
            }
    enum sim_rc rc = total ? scatter(op, x, res) : SIM_OK;
    base_free(in), base_free(res);
    return rc;
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    (void)ws_host, (void)ws_len;
    return op->kind == SIM_OP_CONV ? conv(op, x) : pool(op, x);
}

static void cost(const struct sim_op *op, double *flops, bool *cube)
{
    const struct sim_view *o = &op->out[0];
    if (op->kind == SIM_OP_CONV) { /* a multiply-add per weight element each output (input
                                    * of a transposed one) element meets */
        const struct sim_view *w = &op->in[1];
        const struct sim_view *each = op->iparam[0] ? &op->in[0] : o;
        *flops = 2 * (double)sim_view_elems(each) * (double)sim_view_elems(w) /
                 (double)(w->dims[0] ? w->dims[0] : 1);
        *cube = true;
    } else {
        *flops = (double)sim_view_elems(o) * (double)(op->iparam[8] * op->iparam[9]);
        *cube = false;
    }
}

const struct sim_family sim_family_conv = {compute, cost};
