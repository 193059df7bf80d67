/*
 * scan.c - the kinds that walk each row along one dim in order
 * (api/abi/ops/scan.def): CUMSUM, ARGSORT and ARGMAX. The input is read
 * with that dim moved last (rows.h), a row at a time; the results go back
 * through the engine into the output's view, moved the same way (ARGMAX's
 * output is the input's shape without the dim, one value per row, in the
 * rows' order).
 */
#include <math.h>
#include <stdlib.h>
#include "base/mem.h"
#include "rows.h"

/* a before b in the order (NaN the largest, as torch's sort) */
static bool less(double a, double b)
{
    return isnan(b) ? !isnan(a) : a < b;
}

/* Stable merge sort of the indices idx[0..n) of row by value (tmp: n
 * more); descending when `desc`. */
static void sort_idx(const double *row, int64_t *idx, int64_t *tmp, int64_t n, bool desc)
{
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                double a = row[idx[i]], b = row[idx[j]];
                bool take_j = desc ? less(a, b) : less(b, a);
                tmp[k++] = take_j ? idx[j++] : idx[i++];
            }
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        for (int64_t k = 0; k < n; k++)
            idx[k] = tmp[k];
    }
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    (void)ws_host, (void)ws_len;
    const struct sim_view *in = &op->in[0];
    int d = in->ndims ? (int)op->axes[0] : 0;
    struct sim_view vi = sim_view_axis_last(in, d);
    int64_t len = in->ndims ? in->dims[d] : 1, n = sim_view_elems(in), rows = len ? n / len : 0;
    double *v = sim_rows_load(&vi, sim_access_in(x, op, 0));
    int64_t *idx = base_malloc((size_t)(2 * len + 1) * sizeof *idx);
    double *res = base_malloc((size_t)(rows + 1) * sizeof *res);
    if (!v || !idx || !res) {
        base_free(v);
        base_free(idx);
        base_free(res);
        return SIM_EHOSTMEM;
    }
    for (int64_t r = 0; r < rows; r++) {
        double *row = v + r * len;
        if (op->kind == SIM_OP_CUMSUM) {
            for (int64_t j = 1; j < len; j++)
                row[j] = sim_dt_round(op->out[0].dt, row[j - 1] + row[j]);
        } else if (op->kind == SIM_OP_ARGSORT) {
            for (int64_t j = 0; j < len; j++)
                idx[j] = j;
            sort_idx(row, idx, idx + len, len, op->iparam[0] != 0);
            for (int64_t j = 0; j < len; j++)
                row[j] = (double)idx[j];
        } else {
            int64_t best = 0;
            for (int64_t j = 1; j < len; j++)
                if (!isnan(row[best]) && (isnan(row[j]) || row[j] > row[best]))
                    best = j;
            res[r] = (double)best;
        }
    }
    if (op->kind == SIM_OP_ARGMAX) {
        sim_scatter_f64(&op->out[0], sim_access_out(x, 0), res);
    } else {
        struct sim_view vo = sim_view_axis_last(&op->out[0], d);
        sim_scatter_f64(&vo, sim_access_out(x, 0), v);
    }
    base_free(v);
    base_free(idx);
    base_free(res);
    return SIM_OK;
}

static void cost(const struct sim_op *op, double *flops, bool *cube)
{
    *cube = false;
    double n = (double)sim_view_elems(&op->in[0]);
    int64_t len = op->in[0].ndims ? op->in[0].dims[op->axes[0]] : 1;
    /* a sort compares each element about log2(len) times */
    *flops = op->kind == SIM_OP_ARGSORT && len > 1 ? n * log2((double)len) : n;
}

const struct sim_family sim_family_scan = {compute, cost};
