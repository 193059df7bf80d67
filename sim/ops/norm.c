/*
 * norm.c - the normalisations and softmax (api/abi/ops/norm.def). Each
 * computes on rows: the elements one statistic covers, gathered in
 * row-major order through the engine (sim_gather_f64) into doubles, so
 * that any view, broadcast or strided, is read as it is; the results are
 * written back through the engine (sim_scatter_f64) in each output's type.
 * A softmax along a dim that is not the last reads the views with that dim
 * moved last. Statistics are taken in double: CANN's kernels accumulate
 * in fp32, so results agree to fp32's rounding.
 */
#include <math.h>
#include <string.h>
#include "base/mem.h"
#include "rows.h"

/* The optional weight (has & 1) and bias (has & 2), inputs from k on. */
static enum sim_rc affine(const struct sim_op *op, struct sim_access *x, int has, int k,
                          double **w, double **b)
{
    if ((has & 1) && !(*w = sim_rows_load(&op->in[k], sim_access_in(x, op, k))))
        return SIM_EHOSTMEM;
    k += has & 1;
    if ((has & 2) && !(*b = sim_rows_load(&op->in[k], sim_access_in(x, op, k))))
        return SIM_EHOSTMEM;
    return SIM_OK;
}

/* Softmax of x[0..n) into y (y may be x). */
static void softmax_row(const double *x, double *y, int64_t n)
{
    double m = -INFINITY, s = 0;
    for (int64_t j = 0; j < n; j++)
        m = x[j] > m ? x[j] : m;
    for (int64_t j = 0; j < n; j++)
        s += (y[j] = exp(x[j] - m));
    for (int64_t j = 0; j < n; j++)
        y[j] /= s;
}

static enum sim_rc softmax(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *in = &op->in[0];
    int d = in->ndims ? (int)op->axes[0] : 0;
    struct sim_view vi = sim_view_axis_last(in, d), vo = sim_view_axis_last(&op->out[0], d);
    double *v = sim_rows_load(&vi, sim_access_in(x, op, 0));
    if (!v)
        return SIM_EHOSTMEM;
    int64_t len = vi.ndims ? vi.dims[vi.ndims - 1] : 1, n = sim_view_elems(&vi);
    for (int64_t r = 0; len && r < n / len; r++)
        softmax_row(v + r * len, v + r * len, len);
    sim_scatter_f64(&vo, sim_access_out(x, 0), v);
    base_free(v);
    return SIM_OK;
}

/* Rows of len elements of y = x * rstd (* w[j]) (+ b[j]), centred on
 * mean when `centre`; mean and rstd per row into mu and rs (NULL: not
 * kept). w and b index j % wlen (NULL: none). */
static void normalise(double *v, int64_t rows, int64_t len, bool centre, double eps,
                      const double *w, const double *b, double *mu, double *rs)
{
    for (int64_t r = 0; r < rows; r++) {
        double *row = v + r * len, m = 0, q = 0;
        if (centre) {
            for (int64_t j = 0; j < len; j++)
                m += row[j];
            m /= (double)len;
        }
        for (int64_t j = 0; j < len; j++)
            q += (row[j] - m) * (row[j] - m);
        double s = 1 / sqrt(q / (double)len + eps);
        for (int64_t j = 0; j < len; j++)
            row[j] = (row[j] - m) * s * (w ? w[j] : 1) + (b ? b[j] : 0);
        if (mu)
            mu[r] = m;
        if (rs)
            rs[r] = s;
    }
}

/* RMS_NORM, ADD_RMS_NORM, LAYER_NORM: rows of the trailing elements. */
static enum sim_rc rows_norm(const struct sim_op *op, struct sim_access *x)
{
    bool add = op->kind == SIM_OP_ADD_RMS_NORM, layer = op->kind == SIM_OP_LAYER_NORM;
    const struct sim_view *in = &op->in[0];
    int wi = add ? 2 : 1, has = layer ? (int)op->iparam[1] : 1, outs = layer ? (int)op->iparam[2] : 2;
    int64_t n = sim_view_elems(in), len = 1;
    if (layer)
        for (int i = in->ndims - (int)op->iparam[0]; i < in->ndims; i++)
            len *= in->dims[i];
    else
        len = sim_view_elems(&op->in[wi]);
    int64_t rows = len ? n / len : 0;
    double *v = sim_rows_load(in, sim_access_in(x, op, 0)), *w = NULL, *b = NULL;
    double *st = base_malloc((size_t)(2 * rows + 1) * sizeof *st);
    enum sim_rc rc = v && st ? SIM_OK : SIM_EHOSTMEM;
    if (rc == SIM_OK && add) { /* x = x1 + x2, in x's type */
        double *v2 = sim_rows_load(&op->in[1], sim_access_in(x, op, 1));
        if (!v2) {
            rc = SIM_EHOSTMEM;
        } else {
            for (int64_t i = 0; i < n; i++)
                v[i] = sim_dt_round(op->out[2].dt, v[i] + v2[i]);
            base_free(v2);
            sim_scatter_f64(&op->out[2], sim_access_out(x, 2), v);
        }
    }
    int k = wi;
    if (rc == SIM_OK)
        rc = affine(op, x, has, k, &w, &b);
    if (rc == SIM_OK) {
        normalise(v, rows, len, layer, op->fparam[0], w, b, st, st + rows);
        sim_scatter_f64(&op->out[0], sim_access_out(x, 0), v);
        int o = 1;
        if (layer && (outs & 1)) {
            sim_scatter_f64(&op->out[o], sim_access_out(x, o), st);
            o++;
        }
        if (outs & 2)
            sim_scatter_f64(&op->out[o], sim_access_out(x, o), st + rows);
    }
    base_free(v);
    base_free(st);
    base_free(w);
    base_free(b);
    return rc;
}

static enum sim_rc group_norm(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *in = &op->in[0];
    int64_t n = sim_view_elems(in), batch = in->dims[0], c = in->dims[1], g = op->iparam[0];
    int64_t rows = batch * g; /* the planner keeps empty tensors away */
    int64_t len = n / rows, hw = n / (batch * c);
    double *v = sim_rows_load(in, sim_access_in(x, op, 0)), *w = NULL, *b = NULL;
    double *st = base_malloc((size_t)(2 * rows + 1) * sizeof *st);
    enum sim_rc rc = v && st ? SIM_OK : SIM_EHOSTMEM;
    int has = (int)op->iparam[1], k = 1;
    if (rc == SIM_OK)
        rc = affine(op, x, has, k, &w, &b);
    if (rc == SIM_OK) {
        normalise(v, rows, len, true, op->fparam[0], NULL, NULL, st, st + rows);
        for (int64_t i = 0; (w || b) && i < n; i++) { /* the channel's gamma and beta */
            int64_t ch = (i / hw) % c;
            v[i] = v[i] * (w ? w[ch] : 1) + (b ? b[ch] : 0);
        }
        sim_scatter_f64(&op->out[0], sim_access_out(x, 0), v);
        sim_scatter_f64(&op->out[1], sim_access_out(x, 1), st);
        sim_scatter_f64(&op->out[2], sim_access_out(x, 2), st + rows);
    }
    base_free(v);
    base_free(st);
    base_free(w);
    base_free(b);
    return rc;
}

static enum sim_rc xent(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *in = &op->in[0];
    int64_t rows = in->dims[0], len = in->dims[1];
    double *v = sim_rows_load(in, sim_access_in(x, op, 0)), *l = sim_rows_load(&op->in[1], sim_access_in(x, op, 1));
    double *loss = base_malloc((size_t)(rows + 1) * sizeof *loss);
    if (!v || !l || !loss) {
        base_free(v);
        base_free(l);
        base_free(loss);
        return SIM_EHOSTMEM;
    }
    for (int64_t r = 0; r < rows; r++) {
        double *row = v + r * len, *lab = l + r * len, m = -INFINITY, s = 0, sum = 0;
        for (int64_t j = 0; j < len; j++)
            m = row[j] > m ? row[j] : m;
        for (int64_t j = 0; j < len; j++)
            s += exp(row[j] - m);
        for (int64_t j = 0; j < len; j++) {
            double logp = row[j] - m - log(s);
            sum -= lab[j] * logp;
            row[j] = exp(logp) - lab[j];
        }
        loss[r] = sum;
    }
    sim_scatter_f64(&op->out[0], sim_access_out(x, 0), loss);
    sim_scatter_f64(&op->out[1], sim_access_out(x, 1), v);
    base_free(v);
    base_free(l);
    base_free(loss);
    return SIM_OK;
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    (void)ws_host, (void)ws_len;
    switch (op->kind) {
    case SIM_OP_SOFTMAX:
        return softmax(op, x);
    case SIM_OP_GROUP_NORM:
        return group_norm(op, x);
    case SIM_OP_SOFTMAX_XENT:
        return xent(op, x);
    default:
        return rows_norm(op, x);
    }
}

static void cost(const struct sim_op *op, double *flops, bool *cube)
{
    *cube = false;
    *flops = 5.0 * (double)sim_view_elems(&op->in[0]); /* a few vector passes per element */
}

const struct sim_family sim_family_norm = {compute, cost};
