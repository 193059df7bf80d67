/*
 * movement.c - the family that moves and sets elements
 * (api/abi/ops/movement.def): CAST writes in[0] into out[0] in out[0]'s type
 * (CANN's Cast, sim_dt_convert; a plain copy of the bytes when the types
 * agree), whatever the two views' strides: transposes, permutations,
 * broadcasts, slices, repeats and strided outputs are all this one kernel
 * over the engine. FILL sets every element of out[0] to alpha. The kinds
 * that place their input in parts of the output (CAT, PAD, REFLECT_PAD,
 * TRI, IM2COL, UPSAMPLE_NEAREST) are CASTs and FILLs of sub-views: a
 * sub-view is the view with one dim shortened, starting further along it,
 * or read with a longer stride.
 */
#include <math.h>
#include <string.h>
#include "base/mem.h"
#include "ops.h"

struct mv {
    enum sim_dtype to, from;
    size_t size;
    char value[8]; /* FILL: alpha in the output's type */
};

static void strip_copy(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct mv *m = ctx;
    if (s[0] == (int64_t)m->size && s[1] == (int64_t)m->size) {
        memmove(p[0], p[1], (size_t)n * m->size);
        return;
    }
    char *o = p[0];
    const char *i = p[1];
    for (int64_t k = 0; k < n; k++, o += s[0], i += s[1])
        memcpy(o, i, m->size);
}

static void strip_cast(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct mv *m = ctx;
    char *o = p[0];
    const char *i = p[1];
    for (int64_t k = 0; k < n; k++, o += s[0], i += s[1])
        sim_dt_convert(m->to, o, m->from, i);
}

static void strip_fill(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct mv *m = ctx;
    char *o = p[0];
    for (int64_t k = 0; k < n; k++, o += s[0])
        memcpy(o, m->value, m->size);
}

/* out (element 0 at o) = in (at i), in broadcast to out's shape. */
static void move(const struct sim_view *out, char *o, const struct sim_view *in, const char *i)
{
    struct mv m = {out->dt, in->dt, sim_dt_size(out->dt), {0}};
    struct sim_iter it;
    sim_iter_init(&it, out->ndims, out->dims);
    sim_iter_add_view(&it, o, out);
    sim_iter_add_view(&it, (char *)(uintptr_t)i, in);
    sim_iter_coalesce(&it, 0);
    sim_iter_run(&it, m.from == m.to ? strip_copy : strip_cast, &m);
}

/* Every element of out (at o) = value. */
static void fill(const struct sim_view *out, char *o, double value)
{
    struct mv m = {out->dt, out->dt, sim_dt_size(out->dt), {0}};
    sim_dt_store(out->dt, m.value, value);
    struct sim_iter it;
    sim_iter_init(&it, out->ndims, out->dims);
    sim_iter_add_view(&it, o, out);
    sim_iter_coalesce(&it, 0);
    sim_iter_run(&it, strip_fill, &m);
}

/* The part of v (element 0 at *p) from `start` along dim d, `len` long. */
static void part(struct sim_view *v, char **p, int d, int64_t start, int64_t len)
{
    *p += start * v->strides[d] * (int64_t)sim_dt_size(v->dt);
    v->dims[d] = len;
}

/* CAT: the inputs one after another along axes[0]. */
static void cat(const struct sim_op *op, struct sim_access *x)
{
    int d = (int)op->axes[0];
    int64_t at = 0;
    for (int k = 0; k < op->n_in; k++) {
        struct sim_view o = op->out[0];
        char *p = sim_access_out(x, 0);
        if (op->in[k].dims[d] == 0)
            continue;
        part(&o, &p, d, at, op->in[k].dims[d]);
        move(&o, p, &op->in[k], sim_access_in(x, op, k));
        at += op->in[k].dims[d];
    }
}

/* PAD: out filled with alpha, in[0] placed from axes[d] along each dim. */
static void pad(const struct sim_op *op, struct sim_access *x)
{
    struct sim_view o = op->out[0];
    char *p = sim_access_out(x, 0);
    fill(&o, p, op->alpha);
    for (int d = 0; d < o.ndims; d++)
        part(&o, &p, d, op->axes[d], op->in[0].dims[d]);
    move(&o, p, &op->in[0], sim_access_in(x, op, 0));
}

/* REFLECT_PAD: in[0] placed from iparam[0] along the last dim, the
 * iparam[0] columns before it and iparam[1] after it its mirror images
 * (column -j is column j, column w-1+j is column w-1-j). */
static void reflect_pad(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *in = &op->in[0];
    int d = in->ndims - 1;
    int64_t w = in->dims[d], left = op->iparam[0];
    for (int64_t j = 0; j < op->out[0].dims[d]; j++) {
        int64_t c = j - left;
        if (c < 0)
            c = -c;
        else if (c >= w)
            c = 2 * (w - 1) - c;
        struct sim_view o = op->out[0], i = *in;
        char *po = sim_access_out(x, 0), *pi = sim_access_in(x, op, 0);
        part(&o, &po, d, j, 1);
        part(&i, &pi, d, c, 1);
        move(&o, po, &i, pi);
    }
}

/* TRI: out = in[0] with what lies above diagonal iparam[0] of the last two
 * dims set to 0 (Tril), or below it (Triu, iparam[1] = 1). */
static void tri(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *out = &op->out[0];
    move(out, sim_access_out(x, 0), &op->in[0], sim_access_in(x, op, 0));
    int r = out->ndims - 2, c = out->ndims - 1;
    int64_t rows = out->dims[r], cols = out->dims[c], diag = op->iparam[0];
    for (int64_t i = 0; i < rows; i++) {
        /* Tril keeps columns j <= i + diag, Triu keeps j >= i + diag */
        int64_t lo = op->iparam[1] ? 0 : i + diag + 1, hi = op->iparam[1] ? i + diag : cols;
        lo = lo < 0 ? 0 : lo > cols ? cols : lo;
        hi = hi < 0 ? 0 : hi > cols ? cols : hi;
        if (lo >= hi)
            continue;
        struct sim_view o = *out;
        char *p = sim_access_out(x, 0);
        part(&o, &p, r, i, 1);
        part(&o, &p, c, lo, hi - lo);
        fill(&o, p, 0);
    }
}

/* ARANGE: element i of out[0] (row-major over its shape) = alpha + i * beta. */
static enum sim_rc arange(const struct sim_op *op, struct sim_access *x)
{
    int64_t n = sim_view_elems(&op->out[0]);
    double *v = base_malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
        return SIM_EHOSTMEM;
    for (int64_t i = 0; i < n; i++)
        v[i] = op->alpha + (double)i * op->beta;
    sim_scatter_f64(&op->out[0], sim_access_out(x, 0), v);
    base_free(v);
    return SIM_OK;
}

/* IM2COL: for each window position (kh, kw), out's rows (c, kh, kw) over
 * [N, C, OH, OW] read in at (oh * sH - pH + kh * dH, ow * sW - pW + kw *
 * dW) where that lies inside, 0 elsewhere. */
static void im2col(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *in = &op->in[0], *out = &op->out[0];
    const int64_t *a = op->axes; /* KH KW dH dW pH pW sH sW */
    int64_t h = in->dims[2], w = in->dims[3];
    int64_t oh = (h + 2 * a[4] - (a[2] * (a[0] - 1) + 1)) / a[6] + 1;
    int64_t ow = (w + 2 * a[5] - (a[3] * (a[1] - 1) + 1)) / a[7] + 1;
    fill(out, sim_access_out(x, 0), 0);
    size_t oe = sim_dt_size(out->dt), ie = sim_dt_size(in->dt);
    for (int64_t kh = 0; kh < a[0]; kh++)
        for (int64_t kw = 0; kw < a[1]; kw++) {
            /* the outputs whose input row and column lie inside: [lo, hi) */
            int64_t lo[2], hi[2], k[2] = {kh, kw}, size[2] = {h, w}, n[2] = {oh, ow};
            for (int i = 0; i < 2; i++) {
                int64_t first = a[4 + i] - k[i] * a[2 + i]; /* o * s >= first */
                lo[i] = first <= 0 ? 0 : (first + a[6 + i] - 1) / a[6 + i];
                int64_t last = size[i] - 1 + a[4 + i] - k[i] * a[2 + i]; /* o * s <= last */
                hi[i] = last < 0 ? 0 : last / a[6 + i] + 1;
                hi[i] = hi[i] > n[i] ? n[i] : hi[i];
            }
            if (lo[0] >= hi[0] || lo[1] >= hi[1])
                continue;
            struct sim_view o = {.dt = out->dt, .ndims = 4}, i = o;
            i.dt = in->dt;
            int64_t row = (kh * a[1] + kw) * out->strides[1];
            int64_t dims[4] = {out->dims[0], in->dims[1], hi[0] - lo[0], hi[1] - lo[1]};
            int64_t os[4] = {out->strides[0], a[0] * a[1] * out->strides[1], ow * out->strides[2],
                             out->strides[2]};
            int64_t is[4] = {in->strides[0], in->strides[1], a[6] * in->strides[2],
                             a[7] * in->strides[3]};
            memcpy(o.dims, dims, sizeof dims);
            memcpy(i.dims, dims, sizeof dims);
            memcpy(o.strides, os, sizeof os);
            memcpy(i.strides, is, sizeof is);
            char *po = sim_access_out(x, 0) + (row + (lo[0] * ow + lo[1]) * out->strides[2]) *
                       (int64_t)oe;
            int64_t ih = lo[0] * a[6] - a[4] + kh * a[2], iw = lo[1] * a[7] - a[5] + kw * a[3];
            const char *pi = sim_access_in(x, op, 0) +
                             (ih * in->strides[2] + iw * in->strides[3]) * (int64_t)ie;
            move(&o, po, &i, pi);
        }
}

/* UPSAMPLE_NEAREST: one copy per output row and column pair of lines:
 * out's column ow is in's column min(floor(ow * (W / OW)), W - 1), and so
 * for rows (each a copy of a [N, C] view). */
static void upsample(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *in = &op->in[0], *out = &op->out[0];
    float sh = (float)in->dims[2] / (float)out->dims[2], sw = (float)in->dims[3] / (float)out->dims[3];
    for (int64_t r = 0; r < out->dims[2]; r++)
        for (int64_t c = 0; c < out->dims[3]; c++) {
            int64_t ir = (int64_t)floorf((float)r * sh), ic = (int64_t)floorf((float)c * sw);
            ir = ir < in->dims[2] ? ir : in->dims[2] - 1;
            ic = ic < in->dims[3] ? ic : in->dims[3] - 1;
            struct sim_view o = *out, i = *in;
            char *po = sim_access_out(x, 0), *pi = sim_access_in(x, op, 0);
            part(&o, &po, 2, r, 1);
            part(&o, &po, 3, c, 1);
            part(&i, &pi, 2, ir, 1);
            part(&i, &pi, 3, ic, 1);
            move(&o, po, &i, pi);
        }
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    (void)ws_host, (void)ws_len;
    switch (op->kind) {
    case SIM_OP_FILL:
        fill(&op->out[0], sim_access_out(x, 0), op->alpha);
        break;
    case SIM_OP_CAT:
        cat(op, x);
        break;
    case SIM_OP_PAD:
        pad(op, x);
        break;
    case SIM_OP_REFLECT_PAD:
        reflect_pad(op, x);
        break;
    case SIM_OP_TRI:
        tri(op, x);
        break;
    case SIM_OP_ARANGE:
        return arange(op, x);
    case SIM_OP_IM2COL:
        im2col(op, x);
        break;
    case SIM_OP_UPSAMPLE_NEAREST:
        upsample(op, x);
        break;
    default:
        move(&op->out[0], sim_access_out(x, 0), &op->in[0], sim_access_in(x, op, 0));
        break;
    }
    return SIM_OK;
}

static void cost(const struct sim_op *op, double *flops, bool *cube)
{
    *cube = false;
    *flops = (double)sim_view_elems(&op->out[0]); /* one vector move per element */
}

const struct sim_family sim_family_movement = {compute, cost};
