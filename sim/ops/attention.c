/*
 * attention.c - rotary position embedding and fused attention
 * (api/abi/ops/attention.def). RoPE: each row of the last dim of x,
 * y = x * cos + rotate(x) * sin, cos and sin gathered through the engine
 * broadcast to x's shape, computed in float32 (the vector unit's type for
 * float16 and bfloat16 too) and written into the output's view in its type.
 * Fused attention: per batch and head, the scores q @ k^T and the weighted
 * sum p @ v are the BLAS's sgemm (fp32 accumulation, as the cube unit), the
 * softmax between them in fp32; the planner hands q, k, v and the output
 * over as (B, N, S, D) views whatever the layout.
 */
#include <cblas.h>
#include <math.h>
#include "base/mem.h"
#include "ops.h"

static enum sim_rc rope(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *o = &op->out[0], *xv = &op->in[0];
    int64_t total = sim_view_elems(xv), d = xv->ndims ? xv->dims[xv->ndims - 1] : 1;
    if (!total)
        return SIM_OK;
    double *a = base_malloc((size_t)total * sizeof *a), *c = base_malloc((size_t)total * sizeof *c);
    double *s = base_malloc((size_t)total * sizeof *s);
    if (!a || !c || !s) {
        base_free(a), base_free(c), base_free(s);
        return SIM_EHOSTMEM;
    }
    sim_gather_f64(xv, sim_access_in(x, op, 0), a);
    sim_gather_f64_bcast(&op->in[1], sim_access_in(x, op, 1), xv->ndims, xv->dims, c);
    sim_gather_f64_bcast(&op->in[2], sim_access_in(x, op, 2), xv->ndims, xv->dims, s);
    bool interleave = op->iparam[0] == 1;
    for (int64_t r = 0; r < total; r += d) {
        const double *row = a + r;
        for (int64_t i = 0; i < d; i++) {
            double rot = interleave ? (i % 2 ? row[i - 1] : -row[i + 1])
                                    : (i < d / 2 ? -row[i + d / 2] : row[i - d / 2]);
            float y = (float)row[i] * (float)c[r + i] + (float)rot * (float)s[r + i];
            c[r + i] = y;
        }
    }
    sim_scatter_f64(o, sim_access_out(x, 0), c);
    base_free(a), base_free(c), base_free(s);
    return SIM_OK;
}

/* Elements to allocate for n (at least one). */
static size_t cells(int64_t n)
{
    return (size_t)(n > 0 ? n : 1);
}

/* Input i (-1: none) broadcast to dims as floats, or NULL; *fail on no memory. */
static float *floats(const struct sim_op *op, struct sim_access *x, int i, const int64_t *dims,
                     bool *fail)
{
    if (i < 0)
        return NULL;
    int64_t n = dims[0] * dims[1] * dims[2] * dims[3];
    double *d = base_malloc(cells(n) * sizeof *d);
    float *f = base_malloc(cells(n) * sizeof *f);
    if (!d || !f) {
        base_free(d), base_free(f);
        *fail = true;
        return NULL;
    }
    sim_gather_f64_bcast(&op->in[i], sim_access_in(x, op, i), 4, dims, d);
    for (int64_t k = 0; k < n; k++)
        f[k] = (float)d[k];
    base_free(d);
    return f;
}

static enum sim_rc attention(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *q = &op->in[0], *k = &op->in[1], *v = &op->in[2];
    int64_t b = q->dims[0], n = q->dims[1], sq = q->dims[2], d = q->dims[3];
    int64_t nk = k->dims[1], skv = k->dims[2], dv = v->dims[3], per = n / nk;
    int64_t sd[4] = {b, n, sq, skv};
    bool fail = false;
    float *fq = floats(op, x, 0, q->dims, &fail), *fk = floats(op, x, 1, k->dims, &fail);
    float *fv = floats(op, x, 2, v->dims, &fail);
    float *pse = floats(op, x, (int)op->iparam[0], sd, &fail);
    float *mask = floats(op, x, (int)op->iparam[1], sd, &fail);
    float *sc = base_malloc(cells(sq * skv) * sizeof *sc);
    double *o = base_calloc(cells(b * n * sq * dv), sizeof *o);
    double *lse = base_malloc(cells(b * n * sq) * sizeof *lse);
    float *po = base_malloc(cells(sq * dv) * sizeof *po);
    enum sim_rc rc = SIM_EHOSTMEM;
    if (fail || !fq || !fk || !fv || !sc || !o || !lse || !po)
        goto out;
    float scale = (float)op->fparam[0];
    int64_t pre = op->iparam[2], next = op->iparam[3];
    for (int64_t bi = 0; bi < b; bi++)
        for (int64_t h = 0; h < n; h++) {
            int64_t bh = bi * n + h, kh = bi * nk + h / per;
            if (sq && skv && d)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)sq, (int)skv, (int)d,
                            scale, fq + bh * sq * d, (int)d, fk + kh * skv * d, (int)d, 0.0f, sc,
                            (int)skv);
            else
                for (int64_t i = 0; i < sq * skv; i++)
                    sc[i] = 0;
            for (int64_t i = 0; i < sq; i++) {
                float *row = sc + i * skv, top = -INFINITY;
                for (int64_t j = 0; j < skv; j++) {
                    int64_t e = (bh * sq + i) * skv + j;
                    if (pse)
                        row[j] += pse[e];
                    if (mask && (mask[e] != 0 || j < i - pre || j > i + next))
                        row[j] = -INFINITY;
                    top = row[j] > top ? row[j] : top;
                }
                float sum = 0;
                for (int64_t j = 0; j < skv; j++) {
                    row[j] = top == -INFINITY ? 0 : expf(row[j] - top);
                    sum += row[j];
                }
                for (int64_t j = 0; j < skv; j++)
                    row[j] = sum > 0 ? row[j] / sum : 0;
                lse[bh * sq + i] = top == -INFINITY ? INFINITY : (double)top + log((double)sum);
            }
            if (sq && dv && skv)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)sq, (int)dv,
                            (int)skv, 1.0f, sc, (int)skv, fv + kh * skv * dv, (int)dv, 0.0f, po,
                            (int)dv);
            for (int64_t i = 0; skv && i < sq * dv; i++)
                o[bh * sq * dv + i] = po[i];
        }
    sim_scatter_f64(&op->out[0], sim_access_out(x, 0), o);
    if (op->n_out > 1)
        sim_scatter_f64(&op->out[1], sim_access_out(x, 1), lse);
    rc = SIM_OK;
out:
    base_free(fq), base_free(fk), base_free(fv), base_free(pse), base_free(mask);
    base_free(sc), base_free(o), base_free(lse), base_free(po);
    return rc;
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    (void)ws_host, (void)ws_len;
    return op->kind == SIM_OP_FIA ? attention(op, x) : rope(op, x);
}

static void cost(const struct sim_op *op, double *flops, bool *cube)
{
    if (op->kind == SIM_OP_FIA) { /* two products of Sq x Skv x D a batch and head */
        const struct sim_view *q = &op->in[0], *k = &op->in[1], *v = &op->in[2];
        *flops = 2 * (double)(q->dims[0] * q->dims[1] * q->dims[2] * k->dims[2]) *
                 (double)(q->dims[3] + v->dims[3]);
        *cube = true;
        return;
    }
    *flops = 3 * (double)sim_view_elems(&op->out[0]);
    *cube = false;
}

const struct sim_family sim_family_attention = {compute, cost};
